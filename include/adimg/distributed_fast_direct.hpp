#pragma once
/// \file
/// The fast direct solver (fast_direct.hpp) over MPI ranks: the finest grid cut into strips of
/// rows, one per rank, laid out as adimg::DistributedSolver lays out its finest level, so
/// that a user's b and x are the same arrays for both.
///
///     MPI_Init(&argc, &argv);
///     adimg::DistributedFastDirectSolver solver(MPI_COMM_WORLD);
///     solver.setup(adimg::builtin_case("A2"), 9);      // every rank the same call
///     const adimg::RowRange rows = solver.rows();      // this rank's rows of the grid
///     // b and x hold rows.count * mx values: rows rows.first .. rows.first + rows.count - 1
///     adimg::FastDirectReport report = solver.solve(b.data(), x.data());
///
/// The method is the serial one (fast_direct.hpp) with the transformed direction always x: every
/// row is whole on its rank, so the transform along x (FFTW's sine or cosine transform of the
/// rows, or the products with the generalised eigenvectors) needs no message. Per x-mode the line
/// system along y crosses the ranks and is solved by the partition method with PPT (exact): each
/// rank reduces its rows of every mode's line to two coupling equations, one all-gather of those
/// (6 doubles per mode and rank) gives every rank the reduced systems, and each rank fills in its
/// rows. The iterative refinement is the serial solver's loop, stop rule and report: its defect
/// (difference form, in double) takes one halo row from each neighbouring rank, its norms add the
/// ranks' sums in double (MPI_Allreduce). Per transform solve a rank thus joins one all-gather
/// of 6 nt doubles (nt = the modes, the interior nodes of a row); per defect it exchanges one row
/// with each neighbour and joins one all-reduction for its norm (three where the plain sum of
/// squares under- or overflows), and one more per solve for ||b||.
///
/// Ranks run on the CPU (FastDirectOptions::backend cpu or automatic). Every call is collective.
/// Edges: Dirichlet or Neumann as the serial CPU solver takes them, except Neumann on all four
/// edges (a singular system), which only FastDirectSolver solves.

#include <adimg/distributed.hpp>
#include <adimg/fast_direct.hpp>
#include <adimg/problems.hpp>
#include <adimg/solver.hpp>

#include <mpi.h>

#include <memory>
#include <string>
#include <vector>

namespace adimg {

class DistributedFastDirectSolver {
public:
    /// Throws input_error naming the first option out of range: those of FastDirectSolver, and
    /// backend cuda or axis y, which this solver does not take. `comm` is duplicated: the
    /// solver's messages never mix with the caller's.
    explicit DistributedFastDirectSolver(MPI_Comm comm, FastDirectOptions options = {});
    ~DistributedFastDirectSolver();
    DistributedFastDirectSolver(const DistributedFastDirectSolver&) = delete;
    DistributedFastDirectSolver& operator=(const DistributedFastDirectSolver&) = delete;

    /// The transform along x and the line factors of the mesh, each rank its strip of the
    /// matrix. The strips: those of DistributedSolver's finest level for this mesh with the
    /// default SolverOptions (an even cut of the rows where the mesh's sizes are not c 2^k + 1);
    /// input_error if a rank would own fewer than two rows. Throws input_error as
    /// FastDirectSolver::setup does, and for Neumann on all four edges.
    void setup(const TensorMesh& mesh, const FastDirectEdges& edges = {});
    /// The case's mesh on refinement level `level`.
    void setup(const CaseSpec& spec, int level) { setup(spec.mesh(level)); }

    /// This rank's rows of the grid (after setup).
    RowRange rows() const;
    int mx() const;  ///< nodes per row

    /// Solves A x = b for this rank's rows: b and x hold rows().count * mx() values each (they
    /// may be the same array), x this rank's rows of the initial guess with InitialGuess::given
    /// (as FastDirectSolver::solve). The report is the same on every rank.
    FastDirectReport solve(const double* b, double* x, InitialGuess guess = InitialGuess::zero,
                           const StepCallback& on_step = {});

    /// The nodal values of the whole grid gathered from every rank's rows (on every rank).
    std::vector<double> gather(const double* x) const;

    const FastDirectOptions& options() const;
    int rank() const;
    int ranks() const;
    /// One line on how this setup solves: "sine transform (FFTW) along x, the lines along y by PPT across 4 ranks".
    std::string method() const;
    std::string device_name() const;
    CommunicationCounts communication() const;  ///< of the last solve, this rank
    double setup_seconds() const;               ///< of the last setup

private:
    struct State;
    std::unique_ptr<State> state_;
};

}  // namespace adimg

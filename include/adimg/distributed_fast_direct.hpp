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
/// Ranks run on their GPUs (FastDirectOptions::backend cuda, or automatic where every rank has
/// a usable GPU; one GPU a rank) or on the CPU. On GPU ranks each rank transforms its rows on its
/// GPU as the one-GPU engine does (cuFFT's sine transform, or the eigenvector products by
/// cuBLAS), eliminates its rows of every mode's line there in chunks of a thread each, passes the
/// coupling equations of all modes in one all-gather and its halo rows through NCCL in device
/// memory, and computes the defect from the widths on the device: within a solve no vector
/// leaves the device, and the stop test reads one norm a step. Every call is collective.
/// Edges: on CPU ranks Dirichlet or Neumann as the serial CPU solver takes them, except Neumann
/// on all four edges (a singular system), which only FastDirectSolver solves; on GPU ranks
/// Dirichlet only, as on one GPU (backend automatic takes CPU ranks for Neumann edges, with a
/// notice; cuda is an input error).

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
    /// axis y, which this solver does not take; device_error on every rank if backend cuda is
    /// asked and a rank has no usable GPU (the first such rank named). Starts the GPU ranks
    /// (each rank's device, NCCL) where they run. `comm` is duplicated: the solver's messages
    /// never mix with the caller's.
    explicit DistributedFastDirectSolver(MPI_Comm comm, FastDirectOptions options = {});
    ~DistributedFastDirectSolver();
    DistributedFastDirectSolver(const DistributedFastDirectSolver&) = delete;
    DistributedFastDirectSolver& operator=(const DistributedFastDirectSolver&) = delete;

    /// The transform along x and the line factors of the mesh, each rank its strip of the
    /// matrix. The strips: those of DistributedSolver's finest level for this mesh with the
    /// default SolverOptions (an even cut of the rows where the mesh's sizes are not c 2^k + 1);
    /// input_error if a rank would own fewer than two rows. Returns on every rank once every rank
    /// has set up (its time, setup_seconds(), is the slowest rank's). Throws input_error as
    /// FastDirectSolver::setup does, for Neumann on all four edges, and for Neumann edges with
    /// backend cuda.
    void setup(const TensorMesh& mesh, const FastDirectEdges& edges = {});
    /// The case's mesh on refinement level `level`; solve_case() then solves the case's problem.
    void setup(const CaseSpec& spec, int level);

    /// This rank's rows of the grid (after setup).
    RowRange rows() const;
    int mx() const;  ///< nodes per row

    /// Solves A x = b for this rank's rows: b and x hold rows().count * mx() values each (they
    /// may be the same array), x this rank's rows of the initial guess with InitialGuess::given
    /// (as FastDirectSolver::solve). The report is the same on every rank.
    FastDirectReport solve(const double* b, double* x, InitialGuess guess = InitialGuess::zero,
                           const StepCallback& on_step = {});

    /// Solves the problem of the last setup(CaseSpec, level) with its load vector assembled where
    /// the ranks compute (each rank its rows) and its relative L2 error measured there, as
    /// FastDirectSolver::solve_case() does: neither b nor x travels, unless `x` is given, which
    /// then receives this rank's rows of the solution. Throws input_error if the last setup was
    /// not a case's.
    FastDirectCaseReport solve_case(std::vector<double>* x = nullptr, const StepCallback& on_step = {});

    /// The nodal values of the whole grid gathered from every rank's rows (on every rank).
    std::vector<double> gather(const double* x) const;

    const FastDirectOptions& options() const;
    /// The ranks' backend in the last setup (before any, the one the constructor chose): cuda for
    /// GPU ranks, cpu for CPU ranks; never automatic.
    BackendKind backend() const;
    const std::string& notice() const;  ///< why backend automatic runs on CPU ranks, if it does
    int rank() const;
    int ranks() const;
    /// One line on how this setup solves: "sine transform (FFTW) along x, the lines along y by PPT
    /// across 4 ranks".
    std::string method() const;
    std::string device_name() const;
    CommunicationCounts communication() const;  ///< of the last solve, this rank
    double setup_seconds() const;               ///< of the last setup

private:
    struct State;
    std::unique_ptr<State> state_;
};

}  // namespace adimg

#pragma once
/// \file
/// The solver over MPI ranks: the grid of every level cut into strips of rows (y), one strip
/// per rank, and the same algorithm as adimg::Solver (the V-cycle, the refinement loop, the stop
/// criterion) run on them through a backend whose operations exchange halo rows with the
/// neighbouring ranks and reduce dot products and norms over all ranks in double.
///
///     MPI_Init(&argc, &argv);
///     adimg::DistributedSolver solver(MPI_COMM_WORLD, options);
///     solver.setup(adimg::builtin_case("A2"), 9);      // every rank the same call
///     const adimg::RowRange rows = solver.rows();      // this rank's rows of the finest grid
///     // b and x hold rows.count * mx values: rows rows.first .. rows.first + rows.count - 1
///     adimg::SolveReport report = solver.solve(b.data(), x.data());
///
/// Ranks run on the CPU or each on a GPU, as SolverOptions::backend says: cpu; cuda (one GPU per
/// rank, the node-local rank modulo the node's devices, so that ranks may share one); automatic
/// (GPU ranks where every rank has a usable device, else CPU ranks, with notice() saying why).
/// On GPU ranks the strips live on the device; halo rows cross ranks through pinned host memory,
/// or from device memory where the MPI library says it is CUDA-aware (device_name() says which).
///
/// Every call is collective: all ranks of the communicator make it, in the same order. The
/// y-lines of the ADI smoother cross the strips and are solved by the partition method, PPT
/// (exact) by default, or PDD on the levels where the line matrices are diagonally dominant
/// enough for it to be exact in the cycle's precision (DistributedLines).

#include <adimg/grid.hpp>
#include <adimg/options.hpp>
#include <adimg/problems.hpp>
#include <adimg/report.hpp>
#include <adimg/solver.hpp>

#include <mpi.h>

#include <memory>
#include <string>
#include <vector>

namespace adimg {

/// How the y-lines, which cross the ranks, are solved (Sun's partition methods; the paper
/// 004 of the shared papers):
/// - ppt: each rank reduces its part of every line to two equations, one all-gather per sweep
///   gives every rank the reduced systems of all lines, each solves them and back-substitutes.
///   Exact.
/// - pdd: the reduced system is cut into independent 2 x 2 systems between neighbouring ranks
///   (one exchange with each neighbour), dropping couplings that decay like q^(m-1) / (1 - q)
///   for lines of m rows per rank with |a| + |c| <= q |b|. Used on the levels where that bound is
///   below the rounding of the level's precision; the others use ppt (line_solves() says which).
enum class DistributedLines { ppt, pdd };

/// Rows of the finest grid: first .. first + count - 1.
struct RowRange {
    int first = 0;
    int count = 0;
};

/// What this rank sent during the last solve: point-to-point halo and neighbour messages, and
/// collective operations (all-gathers of the y-lines' reduced systems and of the coarsest
/// grid's right-hand side, and all-reductions of dot products and norms).
struct CommunicationCounts {
    long long messages = 0;        ///< point-to-point messages sent
    long long message_bytes = 0;   ///< bytes in them
    long long collectives = 0;     ///< all-gathers and all-reductions joined
    long long collective_bytes = 0;  ///< bytes this rank contributed to them
};

/// The y-line solve of one level: the diagonal dominance of its line matrices and what it chose.
struct LineSolveInfo {
    int level = 0;
    int mx = 0, my = 0;
    double dominance = 0.0;  ///< min over rows of |b| / (|a| + |c|) (infinite for decoupled rows)
    int rows_per_rank = 0;   ///< the fewest rows of a rank
    double pdd_bound = 0.0;  ///< q^(m-1) / (1 - q), q = 1 / dominance, m = rows_per_rank
    bool pdd = false;        ///< PDD used (asked for, and the bound below the level's rounding)
    bool single = false;     ///< the level in float (the V-cycle of a mixed or single solve), else double
};

class DistributedSolver {
public:
    /// Throws input_error naming the first option out of range, device_error if options.backend
    /// is cuda and a rank has no usable GPU (on every rank). `comm` is duplicated: the solver's
    /// messages never mix with the caller's.
    DistributedSolver(MPI_Comm comm, SolverOptions options = {}, DistributedLines lines = DistributedLines::ppt);
    ~DistributedSolver();
    DistributedSolver(const DistributedSolver&) = delete;
    DistributedSolver& operator=(const DistributedSolver&) = delete;

    /// A built-in or case-file problem on refinement level `level`, every level rediscretized;
    /// each rank assembles the strips it owns.
    void setup(const CaseSpec& problem, int level);
    /// A user's matrix, the same on every rank, with its Galerkin coarse levels. Its four edges
    /// must be Dirichlet edges whose rows hold only their diagonal: a natural edge or row-only
    /// Dirichlet rows (grid.hpp) are an input_error on every rank (adimg::Solver takes them).
    void setup(const GridMatrix& A);
    /// A user's matrix given in rows: each rank passes the rows that rows_for(grid) names, as
    /// nine bands of grid.mx() x rows_for(grid).count nodes (couplings to the rows above and below
    /// the strip in their bands, as in the whole matrix). The rows are gathered and checked as a
    /// GridMatrix, and the Galerkin levels formed on every rank (the whole matrix is held during
    /// setup, the strips after it).
    void setup(const Grid& grid, const NineBands<double>& my_rows);
    /// The rows of `grid` that this rank owns once set up with it: its part of b and x, and of
    /// the matrix for setup(grid, my_rows).
    RowRange rows_for(const Grid& grid) const;

    /// This rank's rows of the finest grid (after setup).
    RowRange rows() const;
    int mx() const;  ///< nodes per row of the finest grid

    /// Solves A x = b for this rank's rows: b and x hold rows().count * mx() values each; x is
    /// the initial guess with InitialGuess::given. The report is the same on every rank.
    SolveReport solve(const double* b, double* x, InitialGuess guess = InitialGuess::zero,
                      const StepCallback& on_step = {});
    /// The case of the last setup(case, level) from a zero guess: each rank assembles its rows of
    /// the load vector and its part of the relative L2 error where it solves; x (unless nullptr)
    /// receives this rank's rows of the solution. The report is the same on every rank.
    CaseSolveReport solve_case(std::vector<double>* x = nullptr, const StepCallback& on_step = {});

    int rank() const;
    int ranks() const;
    std::string device_name() const;
    BackendKind backend() const;  ///< the ranks' backend in use, cpu or cuda (never automatic)
    /// How the ranks exchange halo rows, sums and the y-lines' coupling equations (for example
    /// "MPI, host memory", or on GPU ranks the device-resident or staged transport chosen at run
    /// time), the same on every rank.
    std::string transport() const;
    /// A line saying why backend automatic runs on CPU ranks; empty otherwise.
    std::string notice() const;
    /// The levels, coarsest first, with the memory this rank holds for each.
    std::vector<LevelInfo> levels() const;
    CommunicationCounts communication() const;  ///< of the last solve, this rank
    std::vector<LineSolveInfo> line_solves() const;  ///< per level, coarsest first (ADI only)

    /// The nodal values of the finest grid gathered from every rank's rows (all of them, on
    /// every rank): for the error of a solution, or to write it.
    std::vector<double> gather(const double* x) const;

private:
    struct State;
    std::unique_ptr<State> state_;
};

}  // namespace adimg

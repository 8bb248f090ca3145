#pragma once
/// \file
/// The solver: set up once, then solve for as many right-hand sides as needed. The same
/// algorithm runs on either backend (CPU with OpenMP, or CUDA).
///
///     adimg::Solver solver(options);
///     solver.setup(A);           // your GridMatrix (Galerkin coarse levels), or a Hierarchy
///     solver.solve(b, x);        // as often as needed; only b and x travel
///
/// The solve: d = b - A x in double; c ≈ A^-1 d by V-cycles in the inner precision on a scaled
/// copy of d; x += c in double; repeat until ||d|| <= 10^-digits ||d_0|| (docs/design.md §5).
/// With pure double or pure single precision the inner and outer precisions coincide and this
/// is plain multigrid. Failures (divergence, stagnation, non-finite values) come back as a status
/// in the report, never as a silently wrong x.
///
/// Threads: one Solver may be shared by several threads. Its setup() and solve() calls are
/// serialised (a mutex): a call made while another thread's call runs waits for it, so each
/// solve sees one consistent setup. To solve in parallel, give each thread a Solver of its own.
/// A setup() or solve() called from the StepCallback of a running solve throws std::logic_error
/// (it would wait for itself). Moving a Solver while another thread uses it is not allowed.
///
/// The CPU backend runs OpenMP. OpenMP threads that wait at the end of a parallel loop spin by
/// default, which on a machine shared with other busy processes slows a solve down many times
/// over (A2 at L=8 on two cores: 15-20 times). The library's default is therefore the passive
/// wait policy (waiting threads sleep): before main() it sets OMP_WAIT_POLICY=passive unless the
/// environment sets OMP_WAIT_POLICY or GOMP_SPINCOUNT (set OMP_WAIT_POLICY=active to keep
/// spinning). It applies to the whole process, the program's own OpenMP loops included, with the
/// OpenMP runtimes that read the environment at their first parallel region (LLVM's libomp).
/// GNU OpenMP (libgomp, GCC's) reads it while the program is loaded, before any of its code
/// runs: there, start your program with OMP_WAIT_POLICY=passive in its environment. The adimg
/// tool does that for itself (it restarts itself once with the variable set).

#include <adimg/device.hpp>
#include <adimg/grid.hpp>
#include <adimg/hierarchy.hpp>
#include <adimg/options.hpp>
#include <adimg/pinned_memory.hpp>
#include <adimg/problems.hpp>
#include <adimg/report.hpp>

#include <Eigen/Core>

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace adimg {

/// Called after every outer step of a solve, e.g. to print progress.
using StepCallback = std::function<void(const OuterStep&)>;

/// Where a solve starts: from x = 0 (set on the device, nothing uploaded), or from the values
/// that x holds.
enum class InitialGuess { zero, given };

/// True when a CUDA device can be used; otherwise `why` says why not (no CUDA in this build, no
/// device, driver too old).
bool cuda_available(std::string* why = nullptr);

class SolverEngine;  // the generic algorithm instantiated for one backend (src/solver/engine.hpp)

/// What Solver::solve_case() gives back: the solve's report, and the relative L2 error of its
/// solution against the case's exact solution (relative_l2_error() in problems.hpp).
struct CaseSolveReport {
    SolveReport report;
    double relative_l2_error = 0.0;
};

/// Geometric multigrid for nine-band Q1 systems with mixed-precision iterative refinement.
class Solver {
public:
    /// Throws input_error naming the first option out of range. With BackendKind::automatic and
    /// no usable GPU it runs on the CPU; notice() then says why.
    explicit Solver(SolverOptions options = {});
    ~Solver();
    Solver(Solver&&) noexcept;
    Solver& operator=(Solver&&) noexcept;

    /// Your matrix: copies it to the backend, which forms its Galerkin hierarchy there (on the
    /// device for CUDA; the same products as galerkin_hierarchy()) down to
    /// SolverOptions::coarse_level, with the direct coarse solve lowered further where the grid
    /// allows until that level has at most max_direct_coarse_unknowns nodes. Every solve maps b
    /// as GridMatrix::rhs_map() says (rows scaled to the identity, eliminated couplings lifted,
    /// a pure Neumann b made compatible), so x solves the system as given; for a pure Neumann
    /// matrix x has zero mean.
    void setup(const GridMatrix& A);
    /// A hierarchy built elsewhere (rediscretized_hierarchy() of a case, say), used as given.
    void setup(const Hierarchy& hierarchy);
    /// A built-in or case-file problem on refinement level `level`: every level rediscretized on
    /// its own mesh (as rediscretized_hierarchy() has them) and assembled where the solve runs,
    /// on the device for the CUDA backend, so that the host never holds the matrices.
    void setup(const CaseSpec& problem, int level);
    /// Your matrix in device memory (device.hpp), as setup(GridMatrix) without a copy through
    /// the host: the CUDA backend copies the checked bands on the device and forms the Galerkin
    /// levels there. Throws device_error on the CPU backend.
    void setup(const DeviceGridMatrix& A);
    // Called again with a problem on the same grids (new values, same structure: a new time
    // step, a new coefficient), either setup copies the new values into the storage of the first
    // without reallocating: allocation_count() stays 1.

    /// Solves A x = b with x as the initial guess. If x is empty (or of another size) the guess
    /// is zero, and only b travels to the device. Throws input_error before setup() or if b has
    /// the wrong size.
    SolveReport solve(const std::vector<double>& b, std::vector<double>& x, const StepCallback& on_step = {});
    /// The same for Eigen vectors, solved in place in x's storage.
    SolveReport solve(const Eigen::VectorXd& b, Eigen::VectorXd& x, const StepCallback& on_step = {});
    /// The same on memory of the caller's choosing (a finite element toolkit's vectors, say):
    /// b and x hold rows() values each; with InitialGuess::zero the values in x are not read.
    /// In page-locked memory (pinned_memory.hpp) b and x travel to and from the device without a
    /// staging copy on the host (double and mixed precision; single precision converts them on
    /// the host). b and x may be the same array: b is read before x is written.
    SolveReport solve(const double* b, double* x, InitialGuess guess, const StepCallback& on_step = {});
    /// The same on device memory of the solver's GPU (device.hpp; the CUDA backend): b and x
    /// hold rows() doubles each and never cross PCIe. The solve reads b and x after the work
    /// enqueued on `stream` so far, and has finished when it returns. b and x may be the same
    /// array for a zero guess. Throws input_error naming the argument if b or x is not device
    /// memory of this GPU (host memory, another GPU's) or not aligned for doubles, and
    /// device_error on the CPU backend.
    SolveReport solve_device(const double* b, double* x, InitialGuess guess, DeviceStream stream = nullptr,
                             const StepCallback& on_step = {});
    /// `count` right-hand sides at once: b and x hold count * rows() doubles in device memory,
    /// right-hand side c at b + c * rows(); one report per right-hand side. Each keeps its own
    /// outer iteration, in up to 8 lanes (a stream and a host thread each), and the V-cycles run
    /// once for all of them (docs/library.md); each solution has the bits of its single solve.
    /// The first batch makes the lanes' vectors and the levels' vectors for its lanes, which later
    /// batches with as many lanes reuse; where they do not fit, the right-hand sides are solved
    /// one after another.
    std::vector<SolveReport> solve_device_batch(const double* b, double* x, int count, InitialGuess guess,
                                                DeviceStream stream = nullptr, const StepCallback& on_step = {});
    /// Solves the problem of the last setup(CaseSpec, level) from a zero guess, with its load
    /// vector assembled and its relative L2 error measured where the solve runs (on the device
    /// for CUDA): neither b nor x travels, unless `x` is given, which then receives the solution.
    /// Throws input_error if the last setup was not a case's.
    CaseSolveReport solve_case(std::vector<double>* x = nullptr, const StepCallback& on_step = {});

    /// The preconditioner z = M r for a Krylov method of your own: one V-cycle from zero on r,
    /// in the precisions of the options (mixed: the float cycle on r scaled to norm about 1, the
    /// result scaled back). With pre_smooth == post_smooth and the direct coarse solve (the
    /// defaults) M is a fixed symmetric positive definite operator in double precision (to
    /// rounding), so plain CG may use it; a float cycle is symmetric to float rounding only, for
    /// which flexible CG (SolverOptions::outer = cg) is the safe choice. r and z hold rows()
    /// values and may be the same array. Throws input_error before setup() or if r is not
    /// finite.
    void precondition(const double* r, double* z);
    /// The same for Eigen vectors; z is sized to r.
    void precondition(const Eigen::VectorXd& r, Eigen::VectorXd& z);
    /// The same on device memory (as solve_device()): r and z hold rows() doubles each.
    void precondition_device(const double* r, double* z, DeviceStream stream = nullptr);

    const SolverOptions& options() const { return options_; }
    BackendKind backend() const { return backend_; }  ///< the backend in use (never automatic)
    std::string device_name() const;
    const std::string& notice() const { return notice_; }  ///< e.g. why auto chose the CPU
    /// The levels on the backend, coarsest first, with the memory each holds.
    std::vector<LevelInfo> levels() const;
    std::size_t rows() const { return rows_; }  ///< unknowns of the finest level (0 before setup())

    /// Seconds the last setup() took in all: the host hierarchy and the backend's copy.
    double setup_seconds() const { return hierarchy_seconds_ + backend_setup_seconds_; }
    /// The phases of the Solver's start and of its last setup.
    SetupTimes setup_times() const;
    /// Of setup_seconds(): building the levels on the host (the Galerkin hierarchy of a GridMatrix,
    /// the meshes of a case; 0 for a given hierarchy).
    double hierarchy_seconds() const { return hierarchy_seconds_; }
    int setup_count() const { return setups_; }
    int solve_count() const { return solves_; }
    /// How many setups allocated backend storage; a setup with the grids of the previous one
    /// only copies the new values.
    int allocation_count() const;

private:
    /// A user's matrix on `grid` with its map of b: `setup(source)` hands the Galerkin source (its
    /// finest level from `finest`) to the engine.
    template <class Setup>
    void setup_matrix(const Grid& grid, const NineBands<double>& finest, const RightHandSideMap& map, Setup&& setup);
    void setup_locked(const Hierarchy& hierarchy);
    template <class Levels>
    void setup_levels(const Levels& levels);  ///< the engine's setup, timed and counted
    SolveReport solve_locked(const double* b, double* x, InitialGuess guess, const StepCallback& on_step);
    void check_setup(const char* call = "solve") const;
    /// The engine; throws std::logic_error naming `call` on a moved-from Solver.
    const SolverEngine& engine_of(const char* call) const;
    /// b mapped as the GridMatrix says (RightHandSideMap: lifted, scaled rows divided by their
    /// diagonals, the null space removed), in a buffer of this solver (b itself if the map
    /// changes nothing); sets null_component_.
    const double* solver_rhs(const double* b);
    /// For a pure Neumann matrix: x to zero mean, and a note in the report if b had a component
    /// along the null space beyond rounding.
    void to_zero_mean(double* x, SolveReport& report) const;
    template <class Solve>
    SolveReport timed(Solve&& solve);  ///< runs solve(), sets solve_seconds and counts the solve

    SolverOptions options_;
    BackendKind backend_ = BackendKind::cpu;
    std::string notice_;
    std::unique_ptr<SolverEngine> engine_;
    std::size_t rows_ = 0;
    double context_seconds_ = 0.0, hierarchy_seconds_ = 0.0, backend_setup_seconds_ = 0.0;
    int setups_ = 0;
    int solves_ = 0;
    RightHandSideMap rhs_map_;     ///< how b becomes the solver's right-hand side (GridMatrix::rhs_map())
    double null_component_ = 0.0;  ///< of the last b: what RightHandSideMap::apply removed
    /// The case of the last setup(CaseSpec, level): its finest mesh and exact solution.
    struct CaseOnMesh;
    std::unique_ptr<CaseOnMesh> case_;
    // Serialises setup() and solve() (see the file comment); held through a pointer so that a
    // Solver stays movable.
    struct Guard;
    std::unique_ptr<Guard> guard_;
    // The scaled b, kept for the next solve: in pinned memory for the GPU, which reads it
    // directly, and in ordinary memory for the CPU (pinned memory would start the CUDA runtime
    // for nothing).
    pinned_vector<double> scaled_b_pinned_;
    std::vector<double> scaled_b_;
};

}  // namespace adimg

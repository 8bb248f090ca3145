#pragma once
/// \file
/// The solver: set up once with a level hierarchy, then solve for as many right-hand sides as
/// needed. The same algorithm runs on either backend (CPU with OpenMP, or CUDA).

#include <adimg/hierarchy.hpp>
#include <adimg/options.hpp>
#include <adimg/report.hpp>

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace adimg {

/// Called after every outer step of a solve, e.g. to print progress.
using StepCallback = std::function<void(const OuterStep&)>;

/// Where a solve starts: from x = 0 (set on the device, nothing uploaded), or from the values
/// that x holds.
enum class InitialGuess { zero, given };

/// Where a solve writes its solution. `make_room`, if set, is called once b is on the device
/// and may start making room while the solve runs (Solver::solve for vectors sizes x on
/// another thread); `get` is called when the iteration is done and returns room for the
/// matrix's rows.
struct SolutionDestination {
    std::function<void()> make_room;
    std::function<double*()> get;
};

/// What a backend implements: the generic solver instantiated for it (src/core/engine.hpp).
class SolverEngine {
public:
    virtual ~SolverEngine() = default;
    virtual void setup(const Hierarchy& hierarchy) = 0;
    /// b and the initial guess (nullptr: zero) hold the matrix's rows.
    virtual SolveReport solve(const double* b, const double* guess, const SolutionDestination& x,
                              const StepCallback& on_step) = 0;
    virtual std::vector<LevelInfo> levels() const = 0;
    virtual std::string device_name() const = 0;
    /// How many setups allocated storage; a setup with the grids of the previous one only
    /// copies the new values.
    virtual int allocations() const = 0;
};

/// True when a CUDA device can be used; otherwise `why` says why not (no CUDA in this build, no
/// device, driver too old).
bool cuda_available(std::string* why = nullptr);

/// Geometric multigrid for nine-band Q1 systems with mixed-precision iterative refinement.
///
/// Usage: construct with options, call setup() once with the hierarchy (this uploads every level
/// to the device), then solve(b, x) for each right-hand side. A solve transfers only b and x.
///
/// The solve: d = b - A x in double; c ≈ A^-1 d by V-cycles in the inner precision on a scaled
/// copy of d; x += c in double; repeat until ||d|| <= 10^-digits ||d_0||. With pure double or
/// pure single precision the inner and outer precisions coincide and this is plain multigrid.
/// Failures (divergence, stagnation, non-finite values) come back as a status in the report,
/// never as a silently wrong x.
class Solver {
public:
    /// Throws input_error if an option is out of range. With BackendKind::automatic and no
    /// usable GPU it falls back to the CPU; notice() then says so.
    explicit Solver(SolverOptions options = {});
    ~Solver();
    Solver(Solver&&) noexcept;
    Solver& operator=(Solver&&) noexcept;

    /// Builds the backend's copy of the hierarchy. Called again with a hierarchy of the same
    /// grids (new values, same structure), it copies the values into the existing storage
    /// without reallocating; allocation_count() tells which happened.
    void setup(const Hierarchy& hierarchy);
    /// Solves A x = b with x as the initial guess. If x is empty (or of another size) the guess
    /// is zero, and only b travels to the device.
    SolveReport solve(const std::vector<double>& b, std::vector<double>& x, const StepCallback& on_step = {});
    /// The same on memory of the caller's choosing (a finite element toolkit's vectors, say):
    /// b and x hold rows() values each; with InitialGuess::zero the values in x are not read.
    /// In page-locked memory (adimg/pinned_memory.hpp) b and x travel to and from the device
    /// without a staging copy on the host (double and mixed precision; single precision converts
    /// them on the host). b and x may be the same array: b is read before x is written.
    SolveReport solve(const double* b, double* x, InitialGuess guess, const StepCallback& on_step = {});

    const SolverOptions& options() const { return options_; }
    BackendKind backend() const { return backend_; }  ///< the backend in use (never automatic)
    std::string device_name() const;
    const std::string& notice() const { return notice_; }  ///< e.g. why auto chose the CPU
    std::vector<LevelInfo> levels() const;
    double setup_seconds() const { return setup_seconds_; }
    int setup_count() const { return setups_; }
    int solve_count() const { return solves_; }
    int allocation_count() const { return engine_->allocations(); }
    std::size_t rows() const { return rows_; }  ///< unknowns of the finest level (0 before setup())

private:
    void check_setup() const;
    template <class Solve>
    SolveReport timed(Solve&& solve);  ///< runs solve(), sets solve_seconds and counts the solve

    SolverOptions options_;
    BackendKind backend_ = BackendKind::cpu;
    std::string notice_;
    std::unique_ptr<SolverEngine> engine_;
    std::size_t rows_ = 0;
    double setup_seconds_ = 0.0;
    int setups_ = 0;
    int solves_ = 0;
};

std::unique_ptr<SolverEngine> make_cpu_engine(const SolverOptions& options);
/// Throws device_error when this build has no CUDA or no device is usable.
std::unique_ptr<SolverEngine> make_cuda_engine(const SolverOptions& options);

}  // namespace adimg

#pragma once
// `adimg solve` in this process: the multigrid executor over adimg::Solver, and the front end
// that makes it (solve_front_end.hpp).

#include "solve_front_end.hpp"

#include <adimg/pinned_memory.hpp>
#include <adimg/solver.hpp>

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace adimg::cli {

/// adimg::Solver as a MultigridExecutor.
class SerialExecutor final : public MultigridExecutor {
public:
    /// Its options() are the Solver's with the backend that the Solver chose: never automatic.
    explicit SerialExecutor(const SolverOptions& options) : solver_(options), options_(solver_.options()) {
        options_.backend = solver_.backend();
    }

    void setup(const CaseSpec& spec, int level) override { solver_.setup(spec, level); }
    void setup(const GridMatrix& A) override { solver_.setup(A); }
    CaseSolveReport solve_case(std::vector<double>* x, const StepCallback& on_step) override {
        return solver_.solve_case(x, on_step);
    }
    /// With b and x in page-locked memory when the solver runs on the GPU, so that they travel
    /// without a staging copy on the host, as an application that solves often would keep them.
    /// The solve time includes their transfers to and from the device; the copies into and out of
    /// pinned memory, made once here, are outside it, as they would be outside such an
    /// application's solves.
    SolveReport solve(const std::vector<double>& b, std::vector<double>& x, const StepCallback& on_step) override {
        if (solver_.backend() != BackendKind::cuda) return solver_.solve(b, x, on_step);
        const pinned_vector<double> b_pinned(b.begin(), b.end());
        pinned_vector<double> x_pinned(b.size());
        const SolveReport report = solver_.solve(b_pinned.data(), x_pinned.data(), InitialGuess::zero, on_step);
        x.assign(x_pinned.begin(), x_pinned.end());
        return report;
    }

    const SolverOptions& options() const override { return options_; }
    std::string notice() const override { return solver_.notice(); }
    std::string device_name() const override { return solver_.device_name(); }
    std::vector<LevelInfo> levels() const override { return solver_.levels(); }
    double setup_seconds() const override { return solver_.setup_seconds(); }
    std::optional<SetupTimes> setup_times() const override { return solver_.setup_times(); }

private:
    Solver solver_;
    SolverOptions options_;  ///< as they run (after solver_: made from it)
};

/// `adimg solve`: everything in this process.
class SerialFrontEnd final : public SolveFrontEnd {
public:
    std::string command() const override { return "adimg solve"; }
    std::string usage() const override {
        return "usage: adimg solve --case A2 --level 9 [--smoother adi --precision mixed --inner digits:2 --backend cpu]"
               "\n       adimg solve --case U1 --level 8 --solver direct [--precision single]"
               "\n       adimg solve --matrix A.mtx --grid 257x257 --rhs b.mtx --out x.mtx";
    }
    /// A Solver made for a GPU that is not there throws the device_error that says why.
    void check_device(const SolverOptions& options) const override {
        if (options.backend == BackendKind::cuda && !cuda_available()) Solver unusable(options);
    }
    std::unique_ptr<MultigridExecutor> multigrid(const SolverOptions& options) const override {
        return std::make_unique<SerialExecutor>(options);
    }
};

}  // namespace adimg::cli

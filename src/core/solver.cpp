#include <adimg/error.hpp>
#include <adimg/solver.hpp>

#include <chrono>

namespace adimg {

Solver::Solver(SolverOptions options) : options_(options) {
    validate(options_);
    std::string why;
    switch (options_.backend) {
    case BackendKind::cpu:
        backend_ = BackendKind::cpu;
        break;
    case BackendKind::cuda:
        backend_ = BackendKind::cuda;  // make_cuda_engine says precisely what is missing
        break;
    case BackendKind::automatic:
        if (cuda_available(&why)) {
            backend_ = BackendKind::cuda;
        } else {
            backend_ = BackendKind::cpu;
            notice_ = "note: no usable GPU (" + why + "); running on the CPU backend";
        }
        break;
    }
    engine_ = backend_ == BackendKind::cuda ? make_cuda_engine(options_) : make_cpu_engine(options_);
}

Solver::~Solver() = default;
Solver::Solver(Solver&&) noexcept = default;
Solver& Solver::operator=(Solver&&) noexcept = default;

void Solver::setup(const Hierarchy& hierarchy) {
    if (hierarchy.levels.empty()) throw input_error("setup: the hierarchy has no levels");
    const auto start = std::chrono::steady_clock::now();
    engine_->setup(hierarchy);
    setup_seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    rows_ = hierarchy.finest().A.rows();
    ++setups_;
}

SolveReport Solver::solve(const std::vector<double>& b, std::vector<double>& x, const StepCallback& on_step) {
    if (setups_ == 0) throw input_error("solve: call setup() with the matrix hierarchy before solve()");
    if (b.size() != rows_)
        throw input_error("solve: the right-hand side has " + std::to_string(b.size()) + " entries, the matrix " +
                          std::to_string(rows_) + " rows");
    const bool zero_guess = x.size() != rows_;
    const auto start = std::chrono::steady_clock::now();
    SolveReport report = engine_->solve(b, x, zero_guess, on_step);
    report.solve_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    ++solves_;
    return report;
}

std::string Solver::device_name() const { return engine_->device_name(); }
std::vector<LevelInfo> Solver::levels() const { return engine_->levels(); }

}  // namespace adimg

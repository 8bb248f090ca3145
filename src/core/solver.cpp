#include <adimg/error.hpp>
#include <adimg/solver.hpp>

#include <chrono>
#include <future>

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
    check_setup();
    if (b.size() != rows_)
        throw input_error("solve: the right-hand side has " + std::to_string(b.size()) + " entries, the matrix " +
                          std::to_string(rows_) + " rows");
    const bool zero_guess = x.size() != rows_;
    // A zero guess leaves x to be sized for the solution. Growing a std::vector writes every
    // entry, and in fresh memory each 4 KiB page also faults: measured 4 ms for the 8.4 MB of
    // L=10 and 18 ms at L=11, as long as the solve itself. A second host thread does it while
    // the solve runs (the device's, or the CPU backend's other cores), started after the
    // upload, whose conversion uses every core.
    std::future<void> sized;
    SolutionDestination destination;
    if (zero_guess) destination.make_room = [&] { sized = std::async(std::launch::async, [&x, n = rows_] { x.resize(n); }); };
    destination.get = [&] {
        if (sized.valid()) sized.get();
        return x.data();
    };
    return timed([&] { return engine_->solve(b.data(), zero_guess ? nullptr : x.data(), destination, on_step); });
}

SolveReport Solver::solve(const double* b, double* x, InitialGuess guess, const StepCallback& on_step) {
    check_setup();
    if (!b || !x) throw input_error("solve: b and x must point to the matrix's " + std::to_string(rows_) + " rows");
    const SolutionDestination destination{{}, [x] { return x; }};
    return timed([&] { return engine_->solve(b, guess == InitialGuess::given ? x : nullptr, destination, on_step); });
}

void Solver::check_setup() const {
    if (setups_ == 0) throw input_error("solve: call setup() with the matrix hierarchy before solve()");
}

template <class Solve>
SolveReport Solver::timed(Solve&& solve) {
    const auto start = std::chrono::steady_clock::now();
    SolveReport report = solve();
    report.solve_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    ++solves_;
    return report;
}

std::string Solver::device_name() const { return engine_->device_name(); }
std::vector<LevelInfo> Solver::levels() const { return engine_->levels(); }

}  // namespace adimg

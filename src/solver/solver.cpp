#include <adimg/error.hpp>
#include <adimg/solver.hpp>

#include "../problems/mesh_hierarchy.hpp"
#include "../common/seconds_since.hpp"
#include "coarsest_level.hpp"
#include "engine.hpp"
#include "galerkin_levels.hpp"
#include "matrix_messages.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <future>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <tuple>

namespace adimg {

/// The lock of a Solver, and the thread that holds it (to refuse a call from the solve's own
/// step callback, which would wait for itself).
struct Solver::Guard {
    std::mutex mutex;
    std::atomic<std::thread::id> owner{};
};

namespace {

/// Holds a Solver's guard for one call: waits while another thread holds it. A reader (levels(),
/// allocation_count()) called by the thread that holds it, from a StepCallback, reads without it.
class GuardLock {
public:
    template <class Guard>
    GuardLock(Guard* guard, const char* call, bool reader = false) {
        if (!guard) throw std::logic_error(std::string("Solver::") + call + " on a moved-from Solver");
        if (guard->owner.load() == std::this_thread::get_id()) {
            if (reader) return;
            throw std::logic_error(std::string("Solver::") + call +
                                   " called during a solve of the same Solver (from its StepCallback): it would wait "
                                   "for itself; use another Solver there");
        }
        lock_ = std::unique_lock<std::mutex>(guard->mutex);
        owner_ = &guard->owner;
        owner_->store(std::this_thread::get_id());
    }
    ~GuardLock() {
        if (owner_) owner_->store(std::thread::id{});
    }
    GuardLock(const GuardLock&) = delete;
    GuardLock& operator=(const GuardLock&) = delete;

private:
    std::unique_lock<std::mutex> lock_;
    std::atomic<std::thread::id>* owner_ = nullptr;
};

}  // namespace

/// The case of the last setup(CaseSpec, level), for solve_case().
struct Solver::CaseOnMesh {
    TensorMesh mesh;
    PolynomialProblem problem;
};

Solver::Solver(SolverOptions options) : options_(options), guard_(std::make_unique<Guard>()) {
    validate(options_);
    options_ = effective_options(options_);  // what runs, as options() reports it; the engine takes them as they are
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
    const auto start = std::chrono::steady_clock::now();
    engine_ = backend_ == BackendKind::cuda ? make_cuda_engine(options_) : make_cpu_engine(options_);
    context_seconds_ = seconds_since(start);
}

Solver::~Solver() = default;
Solver::Solver(Solver&&) noexcept = default;
Solver& Solver::operator=(Solver&&) noexcept = default;

namespace {

/// The memory of the backend a Solver runs on.
MemoryBudget memory_of(BackendKind backend) { return backend == BackendKind::cuda ? cuda_device_memory() : host_memory(); }

/// Throws input_error if a finest grid of mx x my nodes would not fit the backend's memory.
void check_grid_fits(int mx, int my, BackendKind backend) {
    check_memory(static_cast<double>(mx) * my, solve_bytes_per_node,
                 "setup: the solver of a " + std::to_string(mx) + " x " + std::to_string(my) + " grid", memory_of(backend),
                 "use a coarser grid, or the distributed solver (adimg-mpi) over several machines or GPUs");
}

}  // namespace

void Solver::setup(const GridMatrix& A) {
    const GuardLock lock(guard_.get(), "setup");
    setup_matrix(A.grid(), A.bands(), A.rhs_map(), [&](const GalerkinSource& source) { engine_->setup(source); });
}

void Solver::setup(const DeviceGridMatrix& A) {
    const GuardLock lock(guard_.get(), "setup");
    NineBands<double> shape;  // the grid and its edges; the values stay on the device
    shape.mx = A.grid().mx();
    shape.my = A.grid().my();
    shape.natural = A.natural_edges();
    setup_matrix(A.grid(), shape, A.rhs_map(),
                 [&](const GalerkinSource& source) { engine_->setup_resident(source, A.values()); });
}

template <class Setup>
void Solver::setup_matrix(const Grid& grid, const NineBands<double>& finest, const RightHandSideMap& map, Setup&& setup) {
    check_grid_fits(grid.mx(), grid.my(), backend_);
    const auto start = std::chrono::steady_clock::now();
    GalerkinSource source;
    source.finest = &finest;
    source.coarsest_level = coarsest_level(grid, options_);
    std::tie(source.split_x, source.split_y) = grid.split_positions_from(source.coarsest_level);
    for (int l = source.coarsest_level; l < grid.finest_level(); ++l)
        source.grids.emplace_back(grid.mx_on_level(l), grid.my_on_level(l));
    hierarchy_seconds_ = seconds_since(start);
    const auto backend_start = std::chrono::steady_clock::now();
    setup(source);
    backend_setup_seconds_ = seconds_since(backend_start);
    rhs_map_ = map;
    case_.reset();
    rows_ = grid.nodes();
    engine_->set_rhs_map(rhs_map_, rows_);
    ++setups_;
}

void Solver::setup(const Hierarchy& hierarchy) {
    const GuardLock lock(guard_.get(), "setup");
    setup_locked(hierarchy);
}

void Solver::setup(const CaseSpec& problem, int level) {
    const GuardLock lock(guard_.get(), "setup");
    check_level(level, solve_bytes_per_node, "the solve", memory_of(backend_), "setup: level");
    const auto start = std::chrono::steady_clock::now();
    const MeshHierarchy meshes = mesh_hierarchy(problem, level, options_.coarse_level);
    hierarchy_seconds_ = seconds_since(start);
    setup_levels(meshes);
    case_ = std::make_unique<CaseOnMesh>(CaseOnMesh{meshes.finest().mesh, {problem.x.length, problem.y.length}});
}

void Solver::setup_locked(const Hierarchy& hierarchy) {
    if (hierarchy.levels.empty()) throw input_error("setup: the hierarchy has no levels");
    const auto [mx, my] = grid_of(hierarchy.finest());
    check_grid_fits(mx, my, backend_);
    hierarchy_seconds_ = 0.0;
    setup_levels(hierarchy);
}

template <class Levels>
void Solver::setup_levels(const Levels& levels) {
    const auto start = std::chrono::steady_clock::now();
    engine_->setup(levels);
    backend_setup_seconds_ = seconds_since(start);
    rhs_map_ = {};
    case_.reset();
    const auto& finest = levels.finest();
    rows_ = static_cast<std::size_t>(grid_of(finest).first) * grid_of(finest).second;
    engine_->set_rhs_map(rhs_map_, rows_);
    ++setups_;
}

SolveReport Solver::solve(const std::vector<double>& b, std::vector<double>& x, const StepCallback& on_step) {
    const GuardLock lock(guard_.get(), "solve");
    check_setup();
    if (b.size() != rows_)
        throw input_error("solve: the right-hand side has " + std::to_string(b.size()) + " entries, the matrix " +
                          std::to_string(rows_) + " rows");
    const bool zero_guess = x.size() != rows_;
    // A zero guess leaves x to be sized for the solution. Growing a std::vector writes every
    // entry, and in fresh memory each 4 KiB page also faults, which costs as long as the solve
    // itself at L=10 and L=11. A second host thread does it while the solve runs (the device's,
    // or the CPU backend's other cores), started after the upload, whose conversion uses every
    // core.
    std::future<void> sized;
    SolutionDestination destination;
    if (zero_guess) destination.make_room = [&] { sized = std::async(std::launch::async, [&x, n = rows_] { x.resize(n); }); };
    destination.get = [&] {
        if (sized.valid()) sized.get();
        return x.data();
    };
    const double* rhs = solver_rhs(b.data());
    SolveReport report = timed([&] { return engine_->solve(rhs, zero_guess ? nullptr : x.data(), destination, on_step); });
    rhs_map_.set_dirichlet_values(rhs, x.data());
    to_zero_mean(x.data(), report);
    return report;
}

SolveReport Solver::solve(const Eigen::VectorXd& b, Eigen::VectorXd& x, const StepCallback& on_step) {
    const GuardLock lock(guard_.get(), "solve");
    check_setup();
    if (static_cast<std::size_t>(b.size()) != rows_)
        throw input_error("solve: the right-hand side has " + std::to_string(b.size()) + " entries, the matrix " +
                          std::to_string(rows_) + " rows");
    const bool zero_guess = x.size() != b.size();
    if (zero_guess) x.resize(b.size());
    return solve_locked(b.data(), x.data(), zero_guess ? InitialGuess::zero : InitialGuess::given, on_step);
}

SolveReport Solver::solve(const double* b, double* x, InitialGuess guess, const StepCallback& on_step) {
    const GuardLock lock(guard_.get(), "solve");
    return solve_locked(b, x, guess, on_step);
}

SolveReport Solver::solve_locked(const double* b, double* x, InitialGuess guess, const StepCallback& on_step) {
    check_setup();
    if (!b || !x) throw input_error("solve: b and x must point to the matrix's " + std::to_string(rows_) + " rows");
    const double* rhs = solver_rhs(b);
    const SolutionDestination destination{{}, [x] { return x; }};
    SolveReport report =
        timed([&] { return engine_->solve(rhs, guess == InitialGuess::given ? x : nullptr, destination, on_step); });
    rhs_map_.set_dirichlet_values(rhs, x);
    to_zero_mean(x, report);
    return report;
}

SolveReport Solver::solve_device(const double* b, double* x, InitialGuess guess, DeviceStream stream,
                                 const StepCallback& on_step) {
    return solve_device_batch(b, x, 1, guess, stream, on_step).front();
}

std::vector<SolveReport> Solver::solve_device_batch(const double* b, double* x, int count, InitialGuess guess,
                                                    DeviceStream stream, const StepCallback& on_step) {
    const GuardLock lock(guard_.get(), "solve_device");
    check_setup("solve_device");
    if (count < 1)
        throw input_error("solve_device_batch: count = " + std::to_string(count) + "; give at least one right-hand side");
    std::vector<SolveReport> reports =
        engine_->solve_resident(b, x, count, guess == InitialGuess::zero, stream, on_step);
    solves_ += count;
    return reports;
}

CaseSolveReport Solver::solve_case(std::vector<double>* x, const StepCallback& on_step) {
    const GuardLock lock(guard_.get(), "solve_case");
    check_setup();
    if (!case_)
        throw input_error("solve_case: the last setup was not a case's; call setup(case, level) first, or solve(b, x) "
                          "for a matrix of your own");
    if (x) x->resize(rows_);
    CaseSolveReport out;
    out.report = timed([&] {
        return engine_->solve_problem(case_->mesh, case_->problem, x ? x->data() : nullptr, out.relative_l2_error, on_step);
    });
    return out;
}

void Solver::precondition(const double* r, double* z) {
    const GuardLock lock(guard_.get(), "precondition");
    check_setup("precondition");
    if (!r || !z) throw input_error("precondition: r and z must point to the matrix's " + std::to_string(rows_) + " rows");
    // b's map (rows scaled to the identity, lifted couplings, the null space removed): M
    // approximates the inverse (pure Neumann: the pseudo-inverse) of the system as given.
    engine_->precondition(solver_rhs(r), z);
    if (rhs_map_.constant_null_space) remove_mean(z, rows_);
}

void Solver::precondition_device(const double* r, double* z, DeviceStream stream) {
    const GuardLock lock(guard_.get(), "precondition_device");
    check_setup("precondition_device");
    engine_->precondition_resident(r, z, stream);
}

void Solver::precondition(const Eigen::VectorXd& r, Eigen::VectorXd& z) {
    check_setup("precondition");
    if (static_cast<std::size_t>(r.size()) != rows_)
        throw input_error("precondition: r has " + std::to_string(r.size()) + " entries, the matrix " +
                          std::to_string(rows_) + " rows");
    if (z.size() != r.size()) z.resize(r.size());
    precondition(r.data(), z.data());
}

const double* Solver::solver_rhs(const double* b) {
    null_component_ = 0.0;
    if (!rhs_map_.changes_b()) return b;
    double* scaled = nullptr;
    if (backend_ == BackendKind::cuda) {
        scaled_b_pinned_.assign(b, b + rows_);
        scaled = scaled_b_pinned_.data();
    } else {
        scaled_b_.assign(b, b + rows_);
        scaled = scaled_b_.data();
    }
    null_component_ = rhs_map_.apply(scaled, rows_);
    return scaled;
}

void Solver::to_zero_mean(double* x, SolveReport& report) const {
    if (!rhs_map_.constant_null_space) return;
    remove_mean(x, rows_);
    matrix_messages::add_removed_component_note(report.message, null_component_);
}

void Solver::check_setup(const char* call) const {
    if (setups_ == 0)
        throw input_error(std::string(call) + ": call setup() with the matrix before " + call + "()");
}

template <class Solve>
SolveReport Solver::timed(Solve&& solve) {
    const auto start = std::chrono::steady_clock::now();
    SolveReport report = solve();
    report.solve_seconds = seconds_since(start);
    ++solves_;
    return report;
}

SetupTimes Solver::setup_times() const {
    const SolverEngine& engine = engine_of("setup_times");
    return {context_seconds_, hierarchy_seconds_, backend_setup_seconds_, engine.upload_seconds(),
            engine.coarse_factor_seconds()};
}

std::string Solver::device_name() const { return engine_of("device_name").device_name(); }
std::vector<LevelInfo> Solver::levels() const {
    const GuardLock lock(guard_.get(), "levels", true);
    check_setup("levels");
    return engine_->levels();
}

const SolverEngine& Solver::engine_of(const char* call) const {
    if (!engine_) throw std::logic_error(std::string("Solver::") + call + " on a moved-from Solver");
    return *engine_;
}
int Solver::allocation_count() const {
    const GuardLock lock(guard_.get(), "allocation_count", true);
    return engine_->allocations();
}

}  // namespace adimg

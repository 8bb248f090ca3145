// adimg::DistributedFastDirectSolver: the fast direct solver's engine (BackendFastDirectEngine,
// src/fast_direct/fast_direct_engine.hpp) on StripBackend over CPU or GPU ranks, with the strip
// transform and defect of each rank kind, over the strips of DistributedSolver's finest level.

#include <adimg/distributed_fast_direct.hpp>
#include <adimg/error.hpp>
#include <adimg/grid.hpp>

#include "../common/seconds_since.hpp"
#include "../fast_direct/fast_direct_engine.hpp"
#include "../fast_direct/separable_matrix.hpp"
#include "../solver/coarsest_level.hpp"
#include "strip_defect.hpp"
#include "strip_engines.hpp"
#include "strip_transform.hpp"
#include "usable_ranks.hpp"

#include <chrono>
#include <optional>
#include <string>
#include <utility>

namespace adimg {
namespace {

/// The grids that DistributedSolver cuts into strips for an mx x my mesh with the default
/// SolverOptions (DistributedSolver::rows_for), coarsest first, so that the finest strips are
/// its; the mesh alone where its levels do not halve exactly (not c 2^k + 1, which the
/// distributed multigrid refuses): an even cut.
std::vector<std::pair<int, int>> strip_grids(int mx, int my) {
    std::vector<std::pair<int, int>> grids;
    try {
        const Grid grid(mx, my);
        for (int l = coarsest_level(grid, SolverOptions{}); l <= grid.finest_level(); ++l)
            grids.emplace_back(grid.mx_on_level(l), grid.my_on_level(l));
    } catch (const input_error&) {  // too small for a grid
        grids.clear();
    }
    if (grids.empty() || first_uneven_level(grids) >= 0) grids.assign(1, {mx, my});
    return grids;
}

}  // namespace

struct DistributedFastDirectSolver::State {
    FastDirectOptions options;
    MPI_Comm comm = MPI_COMM_NULL;
    std::shared_ptr<DistributedContext> context;
    BackendKind preferred = BackendKind::cpu;  ///< cuda where the options and every rank's device allow
    BackendKind backend = BackendKind::cpu;    ///< the engine's
    std::unique_ptr<fast_direct::FastDirectEngine> engine;
    std::string ranks_notice;  ///< why backend automatic runs on CPU ranks (some rank has no GPU)
    std::string notice;        ///< the last setup's: ranks_notice, or why its edges keep it on CPU ranks
    TensorMesh mesh;                                ///< of the last setup
    std::optional<PolynomialProblem> case_problem;  ///< of the last setup(CaseSpec, level)
    int mx = 0, my = 0;
    bool ready = false;
    double setup_seconds = 0.0;

    void check_setup(const char* call) const {
        if (!ready) throw input_error(std::string("DistributedFastDirectSolver::") + call + " before setup()");
    }
    /// The engine of `kind`, made anew where the last one ran elsewhere (its memory freed first).
    void use_engine(BackendKind kind) {
        if (engine && backend == kind) return;
        engine.reset();
        engine = kind == BackendKind::cuda ? make_cuda_strip_engine(context) : make_cpu_strip_engine(context);
        backend = kind;
    }
    const StripLevel& finest() const { return context->layout.level(context->layout.levels() - 1); }
};

DistributedFastDirectSolver::DistributedFastDirectSolver(MPI_Comm comm, FastDirectOptions options)
    : state_(std::make_unique<State>()) {
    if (options.axis == FastAxis::y)
        throw input_error("FastDirectOptions::axis = y: the distributed fast direct solver transforms x, along the "
                          "rows that each rank holds whole (y crosses the ranks); use axis = x or automatic");
    FastDirectOptions checked = options;
    checked.backend = BackendKind::cpu;  // no device started for the check
    FastDirectSolver{checked};           // checks the other options as the serial solver does, or throws
    state_->options = options;
    MPI_Comm_dup(comm, &state_->comm);
    state_->context = std::make_shared<DistributedContext>(state_->comm, DistributedLines::ppt);
    const bool gpus = gpu_ranks(state_->context->comm, options.backend, "the distributed fast direct solver",
                                state_->ranks_notice);
    state_->notice = state_->ranks_notice;
    state_->preferred = gpus ? BackendKind::cuda : BackendKind::cpu;
    state_->use_engine(state_->preferred);
}

DistributedFastDirectSolver::~DistributedFastDirectSolver() {
    state_->engine.reset();
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized) MPI_Comm_free(&state_->comm);
}

void DistributedFastDirectSolver::setup(const TensorMesh& mesh, const FastDirectEdges& edges) {
    const auto start = std::chrono::steady_clock::now();
    if (edges.all_neumann())
        throw input_error("DistributedFastDirectSolver::setup: Neumann conditions on all four edges make a singular "
                          "system, which only FastDirectSolver (one process) solves; keep one edge Dirichlet");
    BackendKind backend = state_->preferred;
    state_->notice = state_->ranks_notice;
    if (!edges.all_dirichlet() && backend == BackendKind::cuda) {
        if (state_->options.backend == BackendKind::cuda)
            throw input_error("DistributedFastDirectSolver::setup: Neumann edges are solved on CPU ranks only (as "
                              "FastDirectSolver solves them on the CPU), but FastDirectOptions::backend = cuda; use "
                              "backend = cpu or automatic");
        backend = BackendKind::cpu;
        state_->notice = "note: Neumann edges are solved on CPU ranks; running on CPU ranks";
    }
    // The transformed direction is x whatever the serial plan would choose: the strips hold
    // whole rows, and the lines along y cross the ranks. make_plan throws if the options'
    // transform does not suit x.
    FastDirectOptions along_x = state_->options;
    along_x.axis = FastAxis::x;
    fast_direct::Plan plan = fast_direct::make_plan(mesh, edges, along_x);
    state_->ready = false;
    state_->case_problem.reset();
    state_->use_engine(backend);
    state_->context->layout = StripLayout(strip_grids(mesh.mx(), mesh.my()), state_->context->comm.size());
    // Dirichlet edges: each rank forms its rows from the widths; Neumann edges (CPU ranks): from
    // the separable matrix, held whole during setup only.
    fast_direct::SharedBands A;
    if (!edges.all_dirichlet()) A = std::make_shared<const NineBands<double>>(fast_direct::separable_matrix(mesh, edges));
    state_->engine->setup(std::move(plan), mesh, std::move(A));
    state_->mesh = mesh;
    state_->mx = mesh.mx();
    state_->my = mesh.my();
    state_->ready = true;
    // Every rank returns once all have set up, so that the setup's time is the slowest rank's and
    // a solve does not start by waiting for it in its first collective: on two H200s (one thread
    // a rank) A2 at L = 14 sets up in ~40 s a rank, and a first solve timed without this took
    // 6.26 s, one after a barrier 0.53 s.
    MPI_Barrier(state_->context->comm.comm());
    state_->setup_seconds = seconds_since(start);
}

void DistributedFastDirectSolver::setup(const CaseSpec& spec, int level) {
    setup(spec.mesh(level));
    state_->case_problem = PolynomialProblem{spec.x.length, spec.y.length};
}

RowRange DistributedFastDirectSolver::rows() const {
    state_->check_setup("rows");
    const StripLevel& s = state_->finest();
    return {s.first[rank()], s.rows(rank())};
}

int DistributedFastDirectSolver::mx() const {
    state_->check_setup("mx");
    return state_->mx;
}

FastDirectReport DistributedFastDirectSolver::solve(const double* b, double* x, InitialGuess guess,
                                                   const StepCallback& on_step) {
    state_->check_setup("solve");
    if (!b || !x) throw input_error("solve: b and x must point to this rank's rows of the grid");
    state_->context->comm.reset_counts();
    const auto start = std::chrono::steady_clock::now();
    FastDirectReport report = state_->engine->solve(b, x, guess, state_->options, on_step);
    report.solve_seconds = seconds_since(start);
    return report;
}

FastDirectCaseReport DistributedFastDirectSolver::solve_case(std::vector<double>* x, const StepCallback& on_step) {
    state_->check_setup("solve_case");
    if (!state_->case_problem)
        throw input_error("solve_case: the last setup was not a case's; call setup(case, level) first, or solve(b, x) "
                          "for a right-hand side of your own");
    if (x) x->resize(static_cast<std::size_t>(rows().count) * state_->mx);
    state_->context->comm.reset_counts();
    const auto start = std::chrono::steady_clock::now();
    FastDirectCaseReport out;
    out.report = state_->engine->solve_problem(state_->mesh, *state_->case_problem, x ? x->data() : nullptr,
                                               out.relative_l2_error, state_->options, on_step);
    out.report.solve_seconds = seconds_since(start);
    return out;
}

std::vector<double> DistributedFastDirectSolver::gather(const double* x) const {
    state_->check_setup("gather");
    const StripLevel& s = state_->finest();
    std::vector<int> counts(ranks());
    for (int r = 0; r < ranks(); ++r) counts[r] = s.rows(r) * s.mx;
    std::vector<double> whole(s.nodes());
    state_->context->comm.allgatherv(x, counts, whole.data());
    return whole;
}

const FastDirectOptions& DistributedFastDirectSolver::options() const { return state_->options; }
BackendKind DistributedFastDirectSolver::backend() const { return state_->backend; }
const std::string& DistributedFastDirectSolver::notice() const { return state_->notice; }
int DistributedFastDirectSolver::rank() const { return state_->context->comm.rank(); }
int DistributedFastDirectSolver::ranks() const { return state_->context->comm.size(); }
std::string DistributedFastDirectSolver::device_name() const { return state_->engine->device_name(); }
CommunicationCounts DistributedFastDirectSolver::communication() const { return state_->context->comm.counts(); }
double DistributedFastDirectSolver::setup_seconds() const { return state_->setup_seconds; }

std::string DistributedFastDirectSolver::method() const {
    if (!state_->ready) return "not set up";
    return state_->engine->transform_name() + " along x, the lines along y by " + state_->engine->line_solver_name();
}

std::unique_ptr<fast_direct::FastDirectEngine> make_cpu_strip_engine(std::shared_ptr<DistributedContext> context) {
    return std::make_unique<fast_direct::BackendFastDirectEngine<StripBackend<CpuRank>, StripTransform, StripDefect>>(
        std::in_place, std::move(context));
}

}  // namespace adimg

// adimg::DistributedFastDirectSolver: the fast direct solver's engine (BackendFastDirectEngine,
// src/fast_direct/fast_direct_engine.hpp) on StripBackend, with the strip transform and defect, over the strips
// of DistributedSolver's finest level.

#include <adimg/distributed_fast_direct.hpp>
#include <adimg/error.hpp>
#include <adimg/grid.hpp>

#include "../common/seconds_since.hpp"
#include "../fast_direct/fast_direct_engine.hpp"
#include "../fast_direct/separable_matrix.hpp"
#include "../solver/coarsest_level.hpp"
#include "strip_defect.hpp"
#include "strip_transform.hpp"

#include <chrono>
#include <utility>

namespace adimg {
namespace {

using StripEngine = fast_direct::BackendFastDirectEngine<StripBackend, StripTransform, StripDefect>;

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
    std::unique_ptr<StripEngine> engine;
    std::unique_ptr<StripBackend> strips;  ///< the layout's rows, and the gather of a solution
    int mx = 0, my = 0;
    bool ready = false;
    double setup_seconds = 0.0;

    void check_setup(const char* call) const {
        if (!ready) throw input_error(std::string("DistributedFastDirectSolver::") + call + " before setup()");
    }
};

DistributedFastDirectSolver::DistributedFastDirectSolver(MPI_Comm comm, FastDirectOptions options)
    : state_(std::make_unique<State>()) {
    if (options.backend == BackendKind::cuda)
        throw input_error("FastDirectOptions::backend = cuda: the distributed fast direct solver runs on CPU ranks; "
                          "use backend = cpu or automatic");
    if (options.axis == FastAxis::y)
        throw input_error("FastDirectOptions::axis = y: the distributed fast direct solver transforms x, along the "
                          "rows that each rank holds whole (y crosses the ranks); use axis = x or automatic");
    options.backend = BackendKind::cpu;
    FastDirectSolver{options};  // checks the other options as the serial solver does, or throws
    state_->options = options;
    MPI_Comm_dup(comm, &state_->comm);
    state_->context = std::make_shared<DistributedContext>(state_->comm, DistributedLines::ppt);
    state_->engine = std::make_unique<StripEngine>(StripBackend(state_->context));
    state_->strips = std::make_unique<StripBackend>(state_->context);
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
    // The transformed direction is x whatever the serial plan would choose: the strips hold
    // whole rows, and the lines along y cross the ranks. make_plan throws if the options'
    // transform does not suit x.
    FastDirectOptions along_x = state_->options;
    along_x.axis = FastAxis::x;
    fast_direct::Plan plan = fast_direct::make_plan(mesh, edges, along_x);
    state_->ready = false;
    state_->context->layout = StripLayout(strip_grids(mesh.mx(), mesh.my()), state_->context->comm.size());
    // Dirichlet edges: each rank forms its rows from the widths; Neumann edges: from the
    // separable matrix, held whole during setup only.
    fast_direct::SharedBands A;
    if (!edges.all_dirichlet()) A = std::make_shared<const NineBands<double>>(fast_direct::separable_matrix(mesh, edges));
    state_->engine->setup(std::move(plan), mesh, std::move(A));
    state_->mx = mesh.mx();
    state_->my = mesh.my();
    state_->ready = true;
    state_->setup_seconds = seconds_since(start);
}

RowRange DistributedFastDirectSolver::rows() const {
    state_->check_setup("rows");
    return state_->strips->rows();
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

std::vector<double> DistributedFastDirectSolver::gather(const double* x) const {
    state_->check_setup("gather");
    StripBackend& strips = *state_->strips;
    auto mine = strips.make_vector<double>(state_->mx, state_->my);
    strips.upload(x, mine.size(), mine);
    return strips.gather(mine);
}

const FastDirectOptions& DistributedFastDirectSolver::options() const { return state_->options; }
int DistributedFastDirectSolver::rank() const { return state_->context->comm.rank(); }
int DistributedFastDirectSolver::ranks() const { return state_->context->comm.size(); }
std::string DistributedFastDirectSolver::device_name() const { return state_->engine->device_name(); }
CommunicationCounts DistributedFastDirectSolver::communication() const { return state_->context->comm.counts(); }
double DistributedFastDirectSolver::setup_seconds() const { return state_->setup_seconds; }

std::string DistributedFastDirectSolver::method() const {
    if (!state_->ready) return "not set up";
    return state_->engine->transform_name() + " along x, the lines along y by " + state_->engine->line_solver_name();
}

}  // namespace adimg

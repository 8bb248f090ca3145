// adimg::DistributedSolver: the generic engine (src/solver/engine.hpp) on the distributed
// backend over CPU or GPU ranks (SolverOptions::backend), with the strips of each setup's levels.

#include <adimg/distributed.hpp>
#include <adimg/error.hpp>
#include <adimg/hierarchy.hpp>

#include "../problems/mesh_hierarchy.hpp"
#include "../solver/coarsest_level.hpp"
#include "../solver/engine.hpp"
#include "rank_engines.hpp"
#include "usable_ranks.hpp"

#include <algorithm>
#include <chrono>
#include <optional>

namespace adimg {

struct DistributedSolver::State {
    SolverOptions options;
    MPI_Comm comm = MPI_COMM_NULL;
    std::shared_ptr<DistributedContext> context;
    std::unique_ptr<SolverEngine> engine;
    std::string notice;  ///< why backend auto runs on CPU ranks
    bool on_gpus = false;  ///< the ranks run the CUDA backend
    bool ready = false;
    std::vector<std::pair<std::size_t, double>> scaled_rows;  ///< edge rows of a GridMatrix scaled to 1
    std::vector<double> scaled_b;
    std::optional<TensorMesh> mesh;  ///< the finest mesh and problem of the last setup(case, level)
    PolynomialProblem problem;

    /// The strips of `levels` (coarsest first) over the ranks, before the engine makes them.
    template <class Levels>
    void lay_out(const Levels& levels) {
        std::vector<std::pair<int, int>> grids;
        for (const auto& level : levels.levels) grids.push_back(grid_of(level));
        context->layout = StripLayout(grids, context->comm.size());
        context->coarsest_level = levels.levels.front().level;
        context->line_solves.clear();
    }
    const StripLevel& finest() const { return context->layout.level(context->layout.levels() - 1); }
    void check_setup(const char* call) const {
        if (!ready) throw input_error(std::string("DistributedSolver::") + call + " before setup()");
    }
};

DistributedSolver::DistributedSolver(MPI_Comm comm, SolverOptions options, DistributedLines lines)
    : state_(std::make_unique<State>()) {
    validate(options);
    options = effective_options(options);  // what runs: the engine takes the options as they are
    state_->options = options;
    MPI_Comm_dup(comm, &state_->comm);
    state_->context = std::make_shared<DistributedContext>(state_->comm, lines);
    state_->on_gpus = gpu_ranks(state_->context->comm, options.backend, "the distributed solver", state_->notice);
    state_->engine = state_->on_gpus ? make_cuda_rank_engine(options, state_->context)
                                     : make_cpu_rank_engine(options, state_->context);
}

DistributedSolver::~DistributedSolver() {
    state_->engine.reset();
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized) MPI_Comm_free(&state_->comm);
}

namespace {

/// The memory one rank may fill: its GPU's (one rank a GPU), or its share of its host's among the
/// ranks there; the smallest over all ranks, so that every rank takes the same decision.
MemoryBudget rank_memory(MPI_Comm comm, bool on_gpus) {
    MemoryBudget memory = on_gpus ? cuda_device_memory() : host_memory();
    if (!on_gpus) {
        MPI_Comm host;
        MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &host);
        int ranks_here = 1;
        MPI_Comm_size(host, &ranks_here);
        MPI_Comm_free(&host);
        memory = {memory.bytes / ranks_here, "each rank's share of its host has"};
    }
    MPI_Allreduce(MPI_IN_PLACE, &memory.bytes, 1, MPI_DOUBLE, MPI_MIN, comm);
    return memory;
}

}  // namespace

void DistributedSolver::setup(const CaseSpec& problem, int level) {
    // Each rank holds about its share of the grid.
    check_level(level, solve_bytes_per_node / ranks(), "the solve on each of " + std::to_string(ranks()) + " ranks",
                rank_memory(state_->comm, state_->on_gpus), "setup: level");
    const MeshHierarchy meshes = mesh_hierarchy(problem, level, state_->options.coarse_level);
    state_->lay_out(meshes);
    state_->engine->setup(meshes);
    state_->scaled_rows.clear();
    state_->mesh = meshes.finest().mesh;
    state_->problem = PolynomialProblem{problem.x.length, problem.y.length};
    state_->ready = true;
}

void DistributedSolver::setup(const GridMatrix& A) {
    // The strips' transfers, lines and coarsest grid assume Dirichlet nodes on all four edges.
    const NaturalEdges natural = A.natural_edges();
    if (natural.any() || !A.eliminated().empty())
        throw input_error(std::string("setup: the distributed solver takes matrices with Dirichlet edges on all four sides "
                                      "(symmetric rows, boundary rows holding only their diagonal); this one has ") +
                          (natural.any() ? (natural.all() ? "natural edges on all four sides" : "a natural (Neumann or Robin) edge")
                                         : "Dirichlet rows whose couplings stay in the other rows (row-only enforcement)") +
                          ": solve it with adimg::Solver on one GPU or the CPU, which takes natural edges and row-only "
                          "Dirichlet rows");
    const Hierarchy hierarchy = galerkin_hierarchy(A, coarsest_level(A.grid(), state_->options));
    state_->lay_out(hierarchy);
    state_->engine->setup(hierarchy);
    state_->scaled_rows = A.scaled_rows();
    state_->mesh.reset();
    state_->ready = true;
}

void DistributedSolver::setup(const Grid& grid, const NineBands<double>& my_rows) {
    const RowRange mine = rows_for(grid);
    if (my_rows.mx != grid.mx() || my_rows.my != mine.count)
        throw input_error("setup: rank " + std::to_string(rank()) + " passed " + std::to_string(my_rows.mx) + " x " +
                          std::to_string(my_rows.my) + " nodes of rows, and owns rows " + std::to_string(mine.first) +
                          " to " + std::to_string(mine.first + mine.count - 1) + " of the " + std::to_string(grid.mx()) +
                          " x " + std::to_string(grid.my()) + " grid: pass grid.mx() x rows_for(grid).count nodes");
    Communicator& comm = state_->context->comm;
    std::vector<int> counts(comm.size());
    const int mine_values = mine.count * grid.mx();
    comm.allgather(&mine_values, 1, counts.data());
    NineBands<double> whole(grid.mx(), grid.my());
    for (int k = 0; k < 9; ++k) comm.allgatherv(my_rows.band(k), counts, whole.values.data() + k * whole.rows());
    setup(GridMatrix(grid, std::move(whole)));
}

RowRange DistributedSolver::rows_for(const Grid& grid) const {
    std::vector<std::pair<int, int>> grids;
    for (int l = coarsest_level(grid, state_->options); l <= grid.finest_level(); ++l)
        grids.emplace_back(grid.mx_on_level(l), grid.my_on_level(l));
    const StripLevel finest = StripLayout(grids, ranks()).level(static_cast<int>(grids.size()) - 1);
    return {finest.first[rank()], finest.rows(rank())};
}

RowRange DistributedSolver::rows() const {
    state_->check_setup("rows");
    const StripLevel& s = state_->finest();
    const int r = state_->context->comm.rank();
    return {s.first[r], s.rows(r)};
}

int DistributedSolver::mx() const {
    state_->check_setup("mx");
    return state_->finest().mx;
}

SolveReport DistributedSolver::solve(const double* b, double* x, InitialGuess guess, const StepCallback& on_step) {
    state_->check_setup("solve");
    if (!b || !x) throw input_error("solve: b and x must point to this rank's rows of the finest grid");
    const RowRange mine = rows();
    const std::size_t n = static_cast<std::size_t>(mine.count) * mx(), offset = static_cast<std::size_t>(mine.first) * mx();
    // Edge rows that GridMatrix scaled to the identity: their b divided by the diagonal given.
    const double* rhs = b;
    if (!state_->scaled_rows.empty()) {
        state_->scaled_b.assign(b, b + n);
        for (const auto& [row, diagonal] : state_->scaled_rows)
            if (row >= offset && row < offset + n) state_->scaled_b[row - offset] /= diagonal;
        rhs = state_->scaled_b.data();
    }
    state_->context->comm.reset_counts();
    const auto start = std::chrono::steady_clock::now();
    const SolutionDestination destination{{}, [x] { return x; }};
    SolveReport report = state_->engine->solve(rhs, guess == InitialGuess::given ? x : nullptr, destination, on_step);
    report.solve_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return report;
}

CaseSolveReport DistributedSolver::solve_case(std::vector<double>* x, const StepCallback& on_step) {
    state_->check_setup("solve_case");
    if (!state_->mesh)
        throw input_error("solve_case: the last setup was not a case's; call setup(case, level) first, or solve(b, x) "
                          "for a matrix of your own");
    if (x) x->resize(static_cast<std::size_t>(rows().count) * mx());
    state_->context->comm.reset_counts();
    const auto start = std::chrono::steady_clock::now();
    CaseSolveReport out;
    out.report = state_->engine->solve_problem(*state_->mesh, state_->problem, x ? x->data() : nullptr,
                                               out.relative_l2_error, on_step);
    out.report.solve_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return out;
}

int DistributedSolver::rank() const { return state_->context->comm.rank(); }
int DistributedSolver::ranks() const { return state_->context->comm.size(); }
std::string DistributedSolver::device_name() const { return state_->engine->device_name(); }
BackendKind DistributedSolver::backend() const { return state_->on_gpus ? BackendKind::cuda : BackendKind::cpu; }
std::string DistributedSolver::transport() const { return state_->context->transport; }
std::string DistributedSolver::notice() const { return state_->notice; }

std::vector<LevelInfo> DistributedSolver::levels() const {
    state_->check_setup("levels");
    return state_->engine->levels();
}

CommunicationCounts DistributedSolver::communication() const { return state_->context->comm.counts(); }

std::vector<LineSolveInfo> DistributedSolver::line_solves() const {
    std::vector<LineSolveInfo> out = state_->context->line_solves;
    std::sort(out.begin(), out.end(), [](const LineSolveInfo& a, const LineSolveInfo& b) {
        return a.level != b.level ? a.level < b.level : a.single > b.single;
    });
    return out;
}

std::vector<double> DistributedSolver::gather(const double* x) const {
    state_->check_setup("gather");
    const StripLevel& s = state_->finest();
    Communicator& comm = state_->context->comm;
    std::vector<int> counts(comm.size());
    for (int r = 0; r < comm.size(); ++r) counts[r] = s.rows(r) * s.mx;
    std::vector<double> whole(s.nodes());
    comm.allgatherv(x, counts, whole.data());
    return whole;
}

}  // namespace adimg

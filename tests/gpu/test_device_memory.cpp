// Data that stays on the GPU (device.hpp): DeviceGridMatrix against GridMatrix (the same checks,
// messages, edges and map of b), DeviceGridMatrix::from_host against both, solves and
// preconditioning on device memory against the host calls, several right-hand sides in one call,
// a values-only re-setup from device bands and from host bands, and the errors for memory that is
// not the GPU's.

#include <adimg/device.hpp>
#include <adimg/io.hpp>
#include <adimg/pinned_memory.hpp>
#include <adimg/problems.hpp>
#include <adimg/solver.hpp>

#include <catch2/catch.hpp>

#include <cuda_runtime.h>

#include "../boundary_problems.hpp"
#include "../compare.hpp"
#include "../input_error_of.hpp"

#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

using namespace adimg;
using adimg_test::EdgeCondition;
using adimg_test::input_error_of;
using adimg_test::relative_max_difference;

namespace {

/// A copy of host values in device memory, for the duration of a test.
class DeviceCopy {
public:
    explicit DeviceCopy(const std::vector<double>& host) : n_(host.size()) {
        REQUIRE(cudaMalloc(&data_, n_ * sizeof(double)) == cudaSuccess);
        REQUIRE(cudaMemcpy(data_, host.data(), n_ * sizeof(double), cudaMemcpyHostToDevice) == cudaSuccess);
    }
    explicit DeviceCopy(const ZeroedVector<double>& host) : DeviceCopy(std::vector<double>(host.begin(), host.end())) {}
    ~DeviceCopy() { cudaFree(data_); }
    DeviceCopy(const DeviceCopy&) = delete;
    DeviceCopy& operator=(const DeviceCopy&) = delete;

    double* data() { return data_; }
    std::vector<double> host() const { return to_host(data_, n_); }
    static std::vector<double> to_host(const double* device, std::size_t n) {
        std::vector<double> out(n);
        REQUIRE(cudaMemcpy(out.data(), device, n * sizeof(double), cudaMemcpyDeviceToHost) == cudaSuccess);
        return out;
    }

private:
    double* data_ = nullptr;
    std::size_t n_ = 0;
};

SolverOptions on_gpu() {
    SolverOptions options;
    options.backend = BackendKind::cuda;
    return options;
}

/// The bands of a scikit-fem-like system on a graded mesh as GridMatrix finds them (row-only
/// Dirichlet rows, or a Dirichlet diagonal of 2, or natural edges, or pure Neumann).
struct Case {
    const char* name;
    adimg_test::EdgeConditions edges;
    bool row_only;
    double dirichlet_diagonal;
};
const Case cases[] = {
    {"row-only Dirichlet rows", {EdgeCondition::dirichlet, EdgeCondition::dirichlet, EdgeCondition::dirichlet, EdgeCondition::dirichlet}, true, 1.0},
    {"Dirichlet diagonal 2, Neumann and Robin edges", {EdgeCondition::dirichlet, EdgeCondition::neumann, EdgeCondition::robin, EdgeCondition::dirichlet}, false, 2.0},
    {"pure Neumann", {EdgeCondition::neumann, EdgeCondition::neumann, EdgeCondition::neumann, EdgeCondition::neumann}, false, 1.0},
};

/// A case's system on `mesh`, its bands, and GridMatrix and DeviceGridMatrix made from them.
struct CaseMatrices {
    adimg_test::FemSystem system;
    NineBands<double> given;
    GridMatrix host;
    DeviceCopy bands;
    DeviceGridMatrix device;
    CaseMatrices(const adimg_test::FemMesh& mesh, const Case& c)
        : system(adimg_test::assemble(mesh, c.edges, c.row_only, c.dirichlet_diagonal)),
          given(from_eigen(system.A, mesh.mx, mesh.my)),
          host(mesh.grid, given),
          bands(given.values),
          device(mesh.grid, bands.data()) {}
};

/// The input_error messages of GridMatrix and DeviceGridMatrix for the same bad bands (empty where
/// none is thrown); DeviceGridMatrix::from_host, checked where it finds the same as the device
/// constructor, gives the device's message.
std::pair<std::string, std::string> host_and_device_errors(const Grid& grid, const NineBands<double>& bad) {
    DeviceCopy bands(bad.values);
    const std::vector<double> host_bands(bad.values.begin(), bad.values.end());
    std::string on_device = input_error_of([&] { (void)DeviceGridMatrix(grid, bands.data()); });
    const std::string from_host = input_error_of([&] { (void)DeviceGridMatrix::from_host(grid, host_bands.data()); });
    INFO("device: " << on_device << "\nfrom host: " << from_host);
    CHECK(from_host == on_device);
    return {input_error_of([&] { (void)GridMatrix(grid, bad); }), std::move(on_device)};
}

/// `found`'s natural edges, null space and map of b are `expected`'s (a GridMatrix or another
/// DeviceGridMatrix).
template <class Matrix>
void check_same_edges_and_map(const DeviceGridMatrix& found, const Matrix& expected) {
    CHECK(found.natural_edges().west == expected.natural_edges().west);
    CHECK(found.natural_edges().east == expected.natural_edges().east);
    CHECK(found.natural_edges().south == expected.natural_edges().south);
    CHECK(found.natural_edges().north == expected.natural_edges().north);
    CHECK(found.constant_null_space() == expected.constant_null_space());
    CHECK(found.rhs_map().scaled_rows == expected.rhs_map().scaled_rows);
    CHECK(found.rhs_map().dirichlet_rows == expected.rhs_map().dirichlet_rows);
    REQUIRE(found.rhs_map().eliminated.size() == expected.rhs_map().eliminated.size());
    for (std::size_t e = 0; e < expected.rhs_map().eliminated.size(); ++e) {
        CHECK(found.rhs_map().eliminated[e].row == expected.rhs_map().eliminated[e].row);
        CHECK(found.rhs_map().eliminated[e].column == expected.rhs_map().eliminated[e].column);
        CHECK(found.rhs_map().eliminated[e].value == expected.rhs_map().eliminated[e].value);
    }
}

/// x from solve_device after `solver`'s setup, b from the host.
std::pair<SolveReport, std::vector<double>> device_solve(Solver& solver, const std::vector<double>& b) {
    DeviceCopy d_b(b), d_x(std::vector<double>(b.size(), std::nan("")));
    SolveReport report = solver.solve_device(d_b.data(), d_x.data(), InitialGuess::zero);
    return {std::move(report), d_x.host()};
}

}  // namespace

TEST_CASE("Device memory: DeviceGridMatrix finds what GridMatrix finds, and device solves match host solves",
          "[gpu][device]") {
    const adimg_test::FemMesh mesh = adimg_test::graded_mesh(7);
    for (const Case& c : cases) {
        INFO(c.name);
        const CaseMatrices m(mesh, c);
        const adimg_test::FemSystem& system = m.system;
        const NineBands<double>& given = m.given;
        const GridMatrix& host = m.host;
        const DeviceGridMatrix& device = m.device;

        CHECK(DeviceCopy::to_host(device.values(), given.values.size()) ==
              std::vector<double>(host.bands().values.begin(), host.bands().values.end()));
        check_same_edges_and_map(device, host);

        Solver from_host(on_gpu()), from_device(on_gpu());
        from_host.setup(host);
        from_device.setup(device);
        std::vector<double> x_host;
        const SolveReport r_host = from_host.solve(system.b, x_host);
        DeviceCopy b(system.b), x(std::vector<double>(system.b.size(), std::nan("")));
        const SolveReport r_device = from_device.solve_device(b.data(), x.data(), InitialGuess::zero);
        REQUIRE(r_host.ok());
        REQUIRE(r_device.ok());
        CHECK(r_device.iterations() == r_host.iterations());
        const double diff = relative_max_difference(x.host(), x_host);
        INFO("max |x_device - x_host| / max |x_host| = " << diff);
        CHECK(diff < 1e-12);
        CHECK(b.host() == system.b);  // the caller's b stays as given

        // precondition_device is precondition.
        std::vector<double> z_host(system.b.size());
        from_host.precondition(system.b.data(), z_host.data());
        DeviceCopy z(std::vector<double>(system.b.size(), std::nan("")));
        from_device.precondition_device(b.data(), z.data());
        CHECK(relative_max_difference(z.host(), z_host) < 1e-12);
    }
}

TEST_CASE("Device memory: DeviceGridMatrix::from_host is the device-pointer matrix and GridMatrix, bit for bit",
          "[gpu][device][from_host]") {
    const adimg_test::FemMesh mesh = adimg_test::graded_mesh(7);
    for (const Case& c : cases) {
        INFO(c.name);
        const CaseMatrices m(mesh, c);
        const std::vector<double> pageable(m.given.values.begin(), m.given.values.end());
        const pinned_vector<double> pinned(m.given.values.begin(), m.given.values.end());
        Solver on_host(on_gpu()), on_device(on_gpu());
        on_host.setup(m.host);
        on_device.setup(m.device);
        const auto [r_host, x_host] = device_solve(on_host, m.system.b);
        const auto [r_device, x_device] = device_solve(on_device, m.system.b);
        REQUIRE(r_host.ok());
        REQUIRE(r_device.ok());

        for (const double* values : {pageable.data(), pinned.data()}) {
            INFO((values == pinned.data() ? "page-locked bands" : "pageable bands"));
            const DeviceGridMatrix uploaded = DeviceGridMatrix::from_host(mesh.grid, values);
            CHECK(DeviceCopy::to_host(uploaded.values(), m.given.values.size()) ==
                  DeviceCopy::to_host(m.device.values(), m.given.values.size()));
            check_same_edges_and_map(uploaded, m.device);

            Solver solver(on_gpu());
            solver.setup(uploaded);
            const auto [r, x] = device_solve(solver, m.system.b);
            REQUIRE(r.ok());
            CHECK(r.iterations() == r_device.iterations());
            CHECK(r.iterations() == r_host.iterations());
            INFO("max |x - x_device| / max |x_device| = " << relative_max_difference(x, x_device)
                 << ", max |x - x_host| / max |x_host| = " << relative_max_difference(x, x_host));
            CHECK(x == x_device);
            CHECK(x == x_host);
        }
    }
}

TEST_CASE("Device memory: bad matrices get GridMatrix's messages, found on the device", "[gpu][device][errors]") {
    const int m = 9;
    const NineBands<double> good = assemble_stiffness(builtin_case("U1").mesh(3));
    const Grid grid(m, m);
    auto at = [&](int i, int j) { return static_cast<std::size_t>(j) * m + i; };
    // Sums over the matrix (v^T A v) are added in another order on the device: their last digits
    // may differ, and are left out of the comparison there; entries are read back exactly.
    auto without_sums = [](std::string message) {
        const std::size_t at = message.find("v^T A v = ");
        if (at != std::string::npos) message.erase(at, message.find(' ', at + 10) - at);
        return message;
    };
    bool sums_in_message = false;
    auto same_message = [&](const NineBands<double>& bad) {
        const auto [on_host, on_device] = host_and_device_errors(grid, bad);
        INFO("host: " << on_host << "\ndevice: " << on_device);
        CHECK(!on_host.empty());
        if (sums_in_message)
            CHECK(without_sums(on_device) == without_sums(on_host));
        else
            CHECK(on_device == on_host);
    };
    NineBands<double> bad = good;
    SECTION("non-finite entries (two rows)") {
        bad(E, at(3, 4)) = std::numeric_limits<double>::quiet_NaN();
        bad(C, at(5, 5)) = std::numeric_limits<double>::infinity();
    }
    SECTION("a diagonal that is not positive") { bad(C, at(2, 6)) = 0.0; }
    SECTION("a coupling off the grid") { bad(NE, at(8, 8)) = 1e-3; }
    SECTION("asymmetry beyond the tolerance") { bad(NE, at(3, 3)) *= 1.0 + 1e-6; }
    SECTION("a 2 x 2 minor that is not positive definite") { bad(N, at(0, 3)) = bad(S, at(0, 4)) = -2.0; }
    SECTION("an indefinite sign pattern") {
        for (std::size_t p = 0; p < bad.rows(); ++p)
            if (bad(C, p) != 1.0) bad(C, p) *= 0.3;  // A - s M: interior diagonals shrunk
        sums_in_message = true;
    }
    same_message(bad);
}

TEST_CASE("Device memory: on a grid of more rows than the checks' blocks, the first offending row and the count are "
          "GridMatrix's",
          "[gpu][device][errors]") {
    // U1 at L = 11: 2049 rows of nodes, two per block of the one pass over the bands (1024 blocks),
    // offenders in rows a block takes first and second, placed so that the lowest is not the first
    // a block meets.
    const NineBands<double> good = assemble_stiffness(builtin_case("U1").mesh(11));
    const int m = good.mx;
    const Grid grid(m, m);
    auto at = [&](int i, int j) { return static_cast<std::size_t>(j) * m + i; };
    auto same_message = [&](const NineBands<double>& bad) {
        const auto [on_host, on_device] = host_and_device_errors(grid, bad);
        INFO("host: " << on_host << "\ndevice: " << on_device);
        CHECK(!on_host.empty());
        CHECK(on_device == on_host);
    };
    NineBands<double> bad = good;
    SECTION("non-finite entries in four rows") {
        bad(W, at(1000, 1500)) = std::numeric_limits<double>::quiet_NaN();
        bad(NE, at(7, 1030)) = std::numeric_limits<double>::infinity();
        bad(C, at(2047, 700)) = std::numeric_limits<double>::quiet_NaN();
        bad(S, at(3, 701)) = -std::numeric_limits<double>::infinity();
    }
    SECTION("asymmetry in three rows") {
        bad(E, at(500, 1800)) *= 1.0 + 1e-6;
        bad(NW, at(20, 1025)) *= 1.0 + 1e-6;
        bad(N, at(1900, 1025)) *= 1.0 + 1e-6;
    }
    SECTION("2 x 2 minors that are not positive definite in two places") {
        bad(N, at(600, 1700)) = bad(S, at(600, 1701)) = -5.0;
        bad(E, at(10, 1026)) = bad(W, at(11, 1026)) = -5.0;
    }
    same_message(bad);
}

TEST_CASE("Device memory: several right-hand sides in one call equal single solves, bit for bit, in every precision, "
          "outer method and smoother",
          "[gpu][device][batch]") {
    // The batch's cycles run for all right-hand sides at once (SharedCycles); each keeps its own
    // outer iteration. Eleven right-hand sides: more than the eight lanes, so that three lanes
    // solve two one after another (the second's full multigrid meets the others' plain cycles,
    // and once the other five have left the three run alone); one of them zero (its lane leaves
    // at once), one the others' load scaled by 1e-3 plus a wiggle. L = 9, so that the level below
    // the finest sweeps its y-lines transposed too, and every solver is fresh: its first call is
    // the batch, whose cycles record the one-vector workspace's first (the scratch those
    // recordings hold must survive the finest level's sweeps).
    const CaseSpec spec = builtin_case("A2");
    const TensorMesh mesh = spec.mesh(9);
    const NineBands<double> bands = assemble_stiffness(mesh);
    DeviceCopy d_bands(bands.values);
    const DeviceGridMatrix A(Grid::from_mesh(mesh), d_bands.data());
    const std::size_t n = bands.rows();
    constexpr int count = 11;
    std::vector<double> b(count * n, 0.0);
    const std::vector<double> load = assemble_load(mesh, {spec.x.length, spec.y.length});
    for (int c = 0; c < count; ++c) {
        if (c == 4) continue;  // zero
        const double scale = c == 7 ? 1e-3 : 1.0 + c;
        for (std::size_t p = 0; p < n; ++p) b[c * n + p] = scale * load[p] * (1.0 + (c % 3 == 2 ? 1e-2 * std::sin(0.01 * p * c) : 0.0));
    }
    // A point smoother does not converge on A2 (anisotropic): the batch must then fail as the
    // single solves fail, with the same answer (mixed precision: after the fallback to double
    // cycles, which a lane builds for itself).
    struct Setting {
        const char* name;
        SolverOptions options;
        bool converges;
    };
    std::vector<Setting> settings;
    auto add = [&](const char* name, auto change, bool converges = true) {
        SolverOptions o = on_gpu();
        change(o);
        settings.push_back({name, o, converges});
    };
    add("the defaults (mixed, flexible CG, ADI, full multigrid)", [](SolverOptions&) {});
    add("refinement, inner digits:2 (the inner defect norms)", [](SolverOptions& o) {
        o.outer = OuterMethod::refinement;
        o.inner = parse_inner_stop("digits:2");
    });
    add("double", [](SolverOptions& o) { o.precision = Precision::double_; });
    add("single, 3 digits (float's reach on A2: 3.65)", [](SolverOptions& o) {
        o.precision = Precision::single;
        o.outer = OuterMethod::refinement;
        o.digits = 3;
    });
    add(
        "Jacobi, refinement", [](SolverOptions& o) {
            o.smoother = Smoother::jacobi;
            o.outer = OuterMethod::refinement;
            o.max_iterations = 40;
        },
        false);
    add(
        "Gauss-Seidel, no full multigrid", [](SolverOptions& o) {
            o.smoother = Smoother::gauss_seidel;
            o.full_multigrid = false;
            o.max_iterations = 40;
        },
        false);
    for (const Setting& setting : settings) {
        INFO(setting.name);
        Solver solver(setting.options);
        solver.setup(A);
        DeviceCopy d_b(b), d_x(std::vector<double>(count * n, 0.0));
        const std::vector<SolveReport> reports = solver.solve_device_batch(d_b.data(), d_x.data(), count, InitialGuess::zero);
        REQUIRE(reports.size() == count);
        const std::vector<double> batch = d_x.host();
        for (int c = 0; c < count; ++c) {
            INFO("right-hand side " << c << ": " << reports[c].message);
            if (setting.converges || c == 4) REQUIRE(reports[c].ok());
            DeviceCopy single_b(std::vector<double>(b.begin() + c * n, b.begin() + (c + 1) * n)), single_x{std::vector<double>(n)};
            const SolveReport single = solver.solve_device(single_b.data(), single_x.data(), InitialGuess::zero);
            CHECK(reports[c].status == single.status);
            CHECK(reports[c].message == single.message);
            CHECK(reports[c].fell_back_to_double == single.fell_back_to_double);
            CHECK(reports[c].outer_iterations == single.outer_iterations);
            CHECK(reports[c].final_defect == single.final_defect);
            CHECK((std::vector<double>(batch.begin() + c * n, batch.begin() + (c + 1) * n) == single_x.host()));
        }
        CHECK(solver.solve_count() == count + count);
        CHECK(solver.allocation_count() == 1);
    }
}

TEST_CASE("Device memory: a batch from given guesses equals single solves from them, and a second batch after a "
          "values-only re-setup solves the new matrix",
          "[gpu][device][batch]") {
    const TensorMesh mesh = builtin_case("A5").mesh(8);
    NineBands<double> bands = assemble_stiffness(mesh);
    DeviceCopy d_bands(bands.values);
    DeviceGridMatrix A(Grid::from_mesh(mesh), d_bands.data());
    const std::size_t n = bands.rows();
    constexpr int count = 4;
    const std::vector<double> load = assemble_load(mesh, {1.0, 1.0});
    std::vector<double> b(count * n), guess(count * n);
    for (int c = 0; c < count; ++c)
        for (std::size_t p = 0; p < n; ++p) {
            b[c * n + p] = load[p] * (1.0 + 0.5 * c);
            guess[c * n + p] = c == 1 ? 0.0 : 1e-3 * std::cos(0.003 * p * (c + 1));
        }
    for (double& v : bands.values) v *= 2.0;
    DeviceCopy doubled(bands.values);
    Solver solver(on_gpu());
    for (int round = 0; round < 2; ++round) {
        INFO((round == 0 ? "first setup" : "after a values-only re-setup (2 A)"));
        if (round == 1) A.assign(doubled.data());
        solver.setup(A);
        DeviceCopy d_b(b), d_x(guess);
        const std::vector<SolveReport> reports = solver.solve_device_batch(d_b.data(), d_x.data(), count, InitialGuess::given);
        const std::vector<double> batch = d_x.host();
        for (int c = 0; c < count; ++c) {
            INFO("right-hand side " << c);
            REQUIRE(reports[c].ok());
            DeviceCopy single_b(std::vector<double>(b.begin() + c * n, b.begin() + (c + 1) * n));
            DeviceCopy single_x(std::vector<double>(guess.begin() + c * n, guess.begin() + (c + 1) * n));
            REQUIRE(solver.solve_device(single_b.data(), single_x.data(), InitialGuess::given).ok());
            CHECK((std::vector<double>(batch.begin() + c * n, batch.begin() + (c + 1) * n) == single_x.host()));
        }
    }
    CHECK(solver.allocation_count() == 1);
}

TEST_CASE("Device memory: a values-only re-setup from device or host bands allocates nothing", "[gpu][device][reuse]") {
    const TensorMesh mesh = builtin_case("A3").mesh(8);
    const Grid grid = Grid::from_mesh(mesh);
    const NineBands<double> bands = assemble_stiffness(mesh);
    const std::vector<double> load = assemble_load(mesh, {1.0, 1.0});
    for (const bool from_host : {false, true}) {
        INFO((from_host ? "host bands (from_host, assign_from_host)" : "device bands (constructor, assign)"));
        std::vector<double> values(bands.values.begin(), bands.values.end());  // pageable host memory
        DeviceCopy d_bands(values);
        DeviceGridMatrix A = from_host ? DeviceGridMatrix::from_host(grid, values.data()) : DeviceGridMatrix(grid, d_bands.data());
        Solver solver(on_gpu());
        solver.setup(A);
        const auto [r1, x1] = device_solve(solver, load);
        REQUIRE(r1.ok());

        for (double& v : values) v *= 2.0;  // 2 A: the solution halves (b is zero on the Dirichlet rows)
        DeviceCopy d_doubled(values);
        std::size_t free_before = 0, free_after = 0, total = 0;
        REQUIRE(cudaMemGetInfo(&free_before, &total) == cudaSuccess);
        if (from_host)
            A.assign_from_host(values.data());
        else
            A.assign(d_doubled.data());
        solver.setup(A);
        REQUIRE(cudaMemGetInfo(&free_after, &total) == cudaSuccess);
        CHECK(free_after == free_before);
        CHECK(solver.allocation_count() == 1);
        const auto [r2, x2] = device_solve(solver, load);
        REQUIRE(r2.ok());
        std::vector<double> half(x1.size());
        for (std::size_t p = 0; p < x1.size(); ++p) half[p] = 0.5 * x1[p];
        CHECK(relative_max_difference(x2, half) < 1e-7);
    }
}

TEST_CASE("Device memory: host pointers, misaligned or null pointers and host bands are input errors",
          "[gpu][device][errors]") {
    const TensorMesh mesh = builtin_case("U1").mesh(5);
    const NineBands<double> bands = assemble_stiffness(mesh);
    Solver solver(on_gpu());
    solver.setup(GridMatrix(Grid::from_mesh(mesh), bands));
    const std::size_t n = bands.rows();
    std::vector<double> host(n, 1.0);
    DeviceCopy device(host);
    auto says = [](const std::string& message, std::initializer_list<const char*> parts) {
        INFO("message: " << message);
        for (const char* part : parts) CHECK(message.find(part) != std::string::npos);
    };
    says(input_error_of([&] { solver.solve_device(host.data(), device.data(), InitialGuess::zero); }),
         {"solve_device: b points to host memory", "the host call (solve"});
    says(input_error_of([&] { solver.solve_device(device.data(), host.data(), InitialGuess::zero); }),
         {"solve_device: x points to host memory"});
    pinned_vector<double> pinned(n, 1.0);
    says(input_error_of([&] { solver.solve_device(pinned.data(), device.data(), InitialGuess::zero); }),
         {"b points to host memory (page-locked)"});
    says(input_error_of([&] {
             solver.solve_device(reinterpret_cast<const double*>(reinterpret_cast<const char*>(device.data()) + 4),
                                 device.data(), InitialGuess::zero);
         }),
         {"b is not aligned for doubles"});
    says(input_error_of([&] { solver.solve_device(nullptr, device.data(), InitialGuess::zero); }), {"b is a null pointer"});
    says(input_error_of([&] { solver.precondition_device(device.data(), host.data()); }),
         {"precondition_device: z points to host memory"});
    says(input_error_of([&] { (void)DeviceGridMatrix(Grid::from_mesh(mesh), bands.values.data()); }),
         {"DeviceGridMatrix: the band array points to host memory"});
    says(input_error_of([&] { (void)DeviceGridMatrix::from_host(Grid::from_mesh(mesh), device.data()); }),
         {"DeviceGridMatrix::from_host: the band array points to memory of GPU", "DeviceGridMatrix constructor"});
    says(input_error_of([&] { (void)DeviceGridMatrix::from_host(Grid::from_mesh(mesh), nullptr); }),
         {"DeviceGridMatrix::from_host: the band array is a null pointer"});
    says(input_error_of([&] { solver.solve_device_batch(device.data(), device.data(), 0, InitialGuess::zero); }),
         {"count = 0"});
    // The host solve still works after the refusals.
    std::vector<double> x;
    CHECK(solver.solve(host, x).ok());
}

TEST_CASE("Device memory: another GPU's memory is an input error", "[gpu][device][errors]") {
    int devices = 0;
    REQUIRE(cudaGetDeviceCount(&devices) == cudaSuccess);
    if (devices < 2) {
        WARN("one GPU only: another GPU's memory cannot be tried here");
        return;
    }
    const TensorMesh mesh = builtin_case("U1").mesh(5);
    Solver solver(on_gpu());
    solver.setup(GridMatrix(Grid::from_mesh(mesh), assemble_stiffness(mesh)));
    REQUIRE(cudaSetDevice(1) == cudaSuccess);
    DeviceCopy elsewhere(std::vector<double>(mesh.nodes(), 1.0));
    REQUIRE(cudaSetDevice(0) == cudaSuccess);
    DeviceCopy here(std::vector<double>(mesh.nodes(), 1.0));
    const std::string message = input_error_of([&] { solver.solve_device(elsewhere.data(), here.data(), InitialGuess::zero); });
    INFO(message);
    CHECK(message.find("b is memory of GPU 1, but the solver runs on GPU 0") != std::string::npos);
}

// Data that stays on the GPU (device.hpp), measured in one process on one GPU against the
// acceptance of issue 44:
//   solve    a solve from and to device memory against Solver::solve_case on the same levels
//            (A2, A5 at --level, default 12): ratio <= 1.05, and no vector copied across PCIe
//   matrix   a DeviceGridMatrix of A2 at --level (4097^2 at 12): its checks on the device and a
//            new Solver's first setup together against one solve (<= 0.5), and the values-only
//            re-setup (assign + setup: <= 0.3, allocating nothing); medians of --repeats, after
//            the process's first matrix and setup (timed once, shown apart: they also load the
//            kernels); what a re-setup allocates and copies is counted in one more, untimed
//   batch    8 right-hand sides of A2 in one call (solve_device_batch) against 8 single solves
//            at L = 10 and at --level; then both again under a kernel trace (kernel_trace.hpp):
//            how many streams ran kernels, the kernels' time added up against the time some
//            kernel ran (their ratio: the mean number running at once, which is where the
//            lanes' overlap shows), the wall time from the first kernel to the last, and the
//            kernel time by launch size (the fine levels' launches against the coarse ones')
//   host     (only when named; issue 45) A2's bands at --level in host memory to a matrix on the
//            GPU: GridMatrix on the host, DeviceGridMatrix::from_host from pageable and from
//            page-locked bands (upload + checks on the device), assign_from_host, each then
//            with its setup
//   phases   (only when named) the matrix part's phases traced once each: wall clock against
//            the time some kernel ran, and the longest kernels by name
// Vector copies between host and device are counted by CUPTI (transfer_counter.hpp): any memcpy
// of at least one float per node of the finest grid.
//
//     device_bench [--parts solve,matrix,batch,host,phases] [--level 12] [--repeats 5]

#include <adimg/device.hpp>
#include <adimg/pinned_memory.hpp>
#include <adimg/problems.hpp>
#include <adimg/solver.hpp>

#include <cuda_runtime.h>
#include <cxxabi.h>

#include "kernel_trace.hpp"
#include "transfer_counter.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <utility>
#include <stdexcept>
#include <string>
#include <vector>

using namespace adimg;

namespace {

void check(cudaError_t status, const char* call) {
    if (status != cudaSuccess) throw std::runtime_error(std::string(call) + ": " + cudaGetErrorString(status));
}

/// Device memory holding a copy of host values.
struct DeviceArray {
    double* data = nullptr;
    explicit DeviceArray(std::size_t n) { check(cudaMalloc(&data, n * sizeof(double)), "cudaMalloc"); }
    template <class Values>
    explicit DeviceArray(const Values& host) : DeviceArray(host.size()) {
        check(cudaMemcpy(data, host.data(), host.size() * sizeof(double), cudaMemcpyHostToDevice), "cudaMemcpy");
    }
    ~DeviceArray() { cudaFree(data); }
    DeviceArray(const DeviceArray&) = delete;
    DeviceArray& operator=(const DeviceArray&) = delete;
};

/// Seconds of one call of f.
template <class F>
double seconds_of(F&& f) {
    const auto start = std::chrono::steady_clock::now();
    f();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

/// The middle value (the upper one of an even count).
double median(std::vector<double> values) {
    std::sort(values.begin(), values.end());
    return values[values.size() / 2];
}

/// The median of `repeats` timings of timed(), each after an untimed prepare(r) (r = 0, 1, ...).
template <class Prepare, class Timed>
double median_prepared(int repeats, Prepare&& prepare, Timed&& timed) {
    std::vector<double> times;
    for (int r = 0; r < repeats; ++r) {
        prepare(r);
        times.push_back(seconds_of(timed));
    }
    return median(times);
}

/// Median seconds of `repeats` calls of f, after one call to warm up.
template <class F>
double median_seconds(int repeats, F&& f) {
    f();
    return median_prepared(repeats, [](int) {}, f);
}

SolverOptions on_gpu() {
    SolverOptions options;
    options.backend = BackendKind::cuda;
    return options;
}

std::vector<double> case_load(const CaseSpec& spec, int level) {
    return assemble_load(spec.mesh(level), {spec.x.length, spec.y.length});
}

void require_ok(const SolveReport& report, const char* what) {
    if (!report.ok()) throw std::runtime_error(std::string(what) + " failed: " + report.message);
}

void solve_part(int level, int repeats) {
    std::printf("\n### Solve from and to device memory against solve_case (L = %d)\n\n", level);
    std::printf("| case | solve_case (ms) | solve_device (ms) | ratio (<= 1.05) | iterations | vectors to device | vectors to host |\n");
    std::printf("|---|---|---|---|---|---|---|\n");
    for (const char* name : {"A2", "A5"}) {
        const CaseSpec spec = builtin_case(name);
        Solver solver(on_gpu());
        solver.setup(spec, level);
        const std::vector<double> load = case_load(spec, level);
        DeviceArray b(load), x(load.size());
        const double t_case = median_seconds(repeats, [&] { require_ok(solver.solve_case().report, "solve_case"); });
        SolveReport report;
        const bench::TransferCounter transfers(load.size() * sizeof(float));
        const double t_device = median_seconds(repeats, [&] {
            report = solver.solve_device(b.data, x.data, InitialGuess::zero);
            require_ok(report, "solve_device");
        });
        const auto counted = transfers.counted();
        std::printf("| %s | %.3f | %.3f | %.3f | %s | %lld | %lld |\n", name, 1e3 * t_case, 1e3 * t_device, t_device / t_case,
                    report.iterations().c_str(), counted.to_device, counted.to_host);
    }
}

void matrix_part(int level, int repeats) {
    const CaseSpec spec = builtin_case("A2");
    const TensorMesh mesh = spec.mesh(level);
    std::printf("\n### A matrix in device memory: checks and setup against one solve (A2, %d x %d; medians of %d)\n\n", mesh.mx(),
                mesh.my(), repeats);
    const NineBands<double> bands = assemble_stiffness(mesh);
    DeviceArray d_bands(bands.values), d_new(bands.values.size());
    std::vector<double> scaled(bands.values.begin(), bands.values.end());
    for (double& v : scaled) v *= 1.5;  // a new coefficient: the same grid, new values
    check(cudaMemcpy(d_new.data, scaled.data(), scaled.size() * sizeof(double), cudaMemcpyHostToDevice), "cudaMemcpy");
    const double* values[2] = {d_new.data, d_bands.data};
    const std::vector<double> load = case_load(spec, level);
    DeviceArray b(load), x(load.size());
    Solver solver(on_gpu());  // the CUDA context exists before the timings
    const Grid grid = Grid::from_mesh(mesh);

    // The process's first matrix and setup, once: they also load the kernels they launch (CUDA
    // loads a module at its first launch).
    std::unique_ptr<DeviceGridMatrix> A;
    const double t_first_in_process = seconds_of([&] {
        A = std::make_unique<DeviceGridMatrix>(grid, d_bands.data);
        solver.setup(*A);
    });
    const double t_solve = median_seconds(repeats, [&] { require_ok(solver.solve_device(b.data, x.data, InitialGuess::zero), "solve"); });
    // A user's next matrix: its checks, then a new Solver's first setup from it (the previous
    // matrix and solver freed before each timing).
    std::unique_ptr<DeviceGridMatrix> next;
    const double t_checks = median_prepared(
        repeats, [&](int) { next.reset(); }, [&] { next = std::make_unique<DeviceGridMatrix>(grid, d_bands.data); });
    std::unique_ptr<Solver> fresh;
    const double t_setup = median_prepared(
        repeats, [&](int) { fresh = std::make_unique<Solver>(on_gpu()); }, [&] { fresh->setup(*next); });
    const SetupTimes first = fresh->setup_times();
    fresh.reset();
    next.reset();
    // New values on the same grid: assign, then the values-only setup (alternating two sets).
    std::vector<double> assigns, resetups;
    for (int r = 0; r < repeats; ++r) {
        assigns.push_back(seconds_of([&] { A->assign(values[r % 2]); }));
        resetups.push_back(seconds_of([&] { solver.setup(*A); }));
    }
    const double t_assign = median(assigns), t_resetup = median(resetups);
    const SetupTimes again = solver.setup_times();

    // Untimed: what one more values-only re-setup, to the set the last timed one did not take,
    // allocates and copies across PCIe.
    std::size_t free_before = 0, free_after = 0, total = 0;
    {
        const bench::TransferCounter transfers(load.size() * sizeof(float));
        check(cudaMemGetInfo(&free_before, &total), "cudaMemGetInfo");
        A->assign(values[repeats % 2]);
        solver.setup(*A);
        check(cudaMemGetInfo(&free_after, &total), "cudaMemGetInfo");
        require_ok(solver.solve_device(b.data, x.data, InitialGuess::zero), "solve after the re-setup");
        const auto counted = transfers.counted();

        std::printf("| phase | ms | / one solve | limit |\n|---|---|---|---|\n");
        std::printf("| one solve (solve_device) | %.3f | 1 | |\n", 1e3 * t_solve);
        std::printf("| DeviceGridMatrix (checks on the device) | %.3f | %.3f | |\n", 1e3 * t_checks, t_checks / t_solve);
        std::printf("| first setup (a new Solver) | %.3f | %.3f | |\n", 1e3 * t_setup, t_setup / t_solve);
        std::printf("| checks + first setup | %.3f | %.3f | <= 0.5 |\n", 1e3 * (t_checks + t_setup), (t_checks + t_setup) / t_solve);
        std::printf("| the same, the process's first (its kernels loaded) | %.3f | %.3f | |\n", 1e3 * t_first_in_process,
                    t_first_in_process / t_solve);
        std::printf("| assign (checks of the new values) | %.3f | %.3f | |\n", 1e3 * t_assign, t_assign / t_solve);
        std::printf("| values-only setup | %.3f | %.3f | |\n", 1e3 * t_resetup, t_resetup / t_solve);
        std::printf("| assign + values-only setup | %.3f | %.3f | <= 0.3 |\n", 1e3 * (t_assign + t_resetup),
                    (t_assign + t_resetup) / t_solve);
        // Where a setup's time goes (Solver::setup_times()), of the last timed one of each kind.
        for (const auto& [name, t] : {std::pair<const char*, SetupTimes>{"first setup", first}, {"values-only setup", again}})
            std::printf("\n%s: levels on the host %.3f ms, the backend %.3f ms (bands copied %.3f, coarsest grid's direct solve "
                        "%.3f, the levels formed on the device %.3f)",
                        name, 1e3 * t.levels, 1e3 * t.backend, 1e3 * t.upload, 1e3 * t.coarse_factor, 1e3 * t.backend_levels());
        std::printf("\n\nre-setup: allocation_count %d (1: nothing allocated), device memory free before %zu MiB, after %zu MiB; "
                    "vector copies host->device %lld, device->host %lld\n",
                    solver.allocation_count(), free_before >> 20, free_after >> 20, counted.to_device, counted.to_host);
    }
}

/// The rows of the batch's trace table, printed after its speed-up table.
std::vector<std::string>& traced_rows() {
    static std::vector<std::string> rows;
    return rows;
}

std::string fixed(double value) {
    char text[32];
    std::snprintf(text, sizeof text, "%.3f", value);
    return text;
}

/// A kernel's name as the source spells it (CUPTI gives the mangled one), without its arguments.
std::string kernel_name(const std::string& mangled) {
    int status = 0;
    char* plain = abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status);
    std::string name = status == 0 && plain ? plain : mangled;
    std::free(plain);
    const std::size_t open = name.find('(');
    return open == std::string::npos ? name : name.substr(0, open);
}

/// The `most` kernels that took longest in `spans` (of launches of at least `threads` threads),
/// with the time of all their launches: "name ms, name ms, ...".
std::string longest_kernels(const std::vector<bench::KernelSpan>& spans, std::size_t most, std::uint64_t threads = 0) {
    std::vector<std::pair<std::string, double>> by_name;
    for (const bench::KernelSpan& k : spans) {
        if (k.threads < threads) continue;
        const std::string kernel = kernel_name(k.name);
        auto it = std::find_if(by_name.begin(), by_name.end(), [&](const auto& e) { return e.first == kernel; });
        if (it == by_name.end()) it = by_name.insert(by_name.end(), {kernel, 0.0});
        it->second += 1e-6 * (k.end - k.start);
    }
    std::sort(by_name.begin(), by_name.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
    std::string longest;
    for (std::size_t i = 0; i < std::min(most, by_name.size()); ++i)
        longest += (i ? ", " : "") + by_name[i].first + " " + fixed(by_name[i].second);
    return longest;
}

void batch_part(int level, int repeats, int count) {
    const CaseSpec spec = builtin_case("A2");
    Solver solver(on_gpu());
    solver.setup(spec, level);
    const std::vector<double> load = case_load(spec, level);
    const std::size_t n = load.size();
    std::vector<double> many(count * n);
    for (int c = 0; c < count; ++c)
        for (std::size_t p = 0; p < n; ++p) many[c * n + p] = load[p] * (1.0 + 0.25 * c) * (1.0 + 0.1 * std::sin(1e-3 * p * (c + 1)));
    DeviceArray b(many), x(many.size());
    const double t_batch = median_seconds(repeats, [&] {
        for (const SolveReport& r : solver.solve_device_batch(b.data, x.data, count, InitialGuess::zero)) require_ok(r, "batch");
    });
    const double t_single = median_seconds(repeats, [&] {
        for (int c = 0; c < count; ++c)
            require_ok(solver.solve_device(b.data + c * n, x.data + c * n, InitialGuess::zero), "single solve");
    });
    std::printf("| A2 | %d | %d | %.3f | %.3f | %.2f |\n", level, count, 1e3 * t_single, 1e3 * t_batch, t_single / t_batch);

    // The same two, traced: whether the batch's lanes run kernels at the same time.
    auto traced = [&](const char* name, auto&& run) {
        bench::KernelTrace trace;
        trace.start();
        run();
        const std::vector<bench::KernelSpan> spans = trace.stop();
        if (spans.empty()) return;
        std::vector<std::uint32_t> streams;
        std::uint64_t last = 0;
        for (const bench::KernelSpan& k : spans) {
            if (std::find(streams.begin(), streams.end(), k.stream) == streams.end()) streams.push_back(k.stream);
            last = std::max(last, k.end);
        }
        const double summed = 1e-6 * bench::summed(spans), busy = 1e-6 * bench::covered(spans);
        // The kernel time by launch size: what a kernel that filled the GPU took, against the
        // small launches of the coarse levels, whose time is mostly latency.
        double by_size[3] = {0, 0, 0};
        for (const bench::KernelSpan& k : spans)
            by_size[k.threads >= (1u << 18) ? 0 : k.threads >= (1u << 14) ? 1 : 2] += 1e-6 * (k.end - k.start);
        traced_rows().push_back(std::string("| ") + std::to_string(level) + " | " + name + " | " + std::to_string(spans.size()) +
                                " | " + std::to_string(streams.size()) + " | " + fixed(summed) + " | " + fixed(busy) + " | " +
                                fixed(summed / busy) + " | " + fixed(1e-6 * (last - spans.front().start)) + " | " +
                                fixed(by_size[0]) + " | " + fixed(by_size[1]) + " | " + fixed(by_size[2]) + " | " +
                                longest_kernels(spans, 8, 1u << 18) + " |");
    };
    traced("one call", [&] { (void)solver.solve_device_batch(b.data, x.data, count, InitialGuess::zero); });
    traced("single solves", [&] {
        for (int c = 0; c < count; ++c) (void)solver.solve_device(b.data + c * n, x.data + c * n, InitialGuess::zero);
    });
}

/// Where the matrix part's phases spend their time, each traced once more: the wall clock against
/// the kernels CUPTI saw run (their union), with the longest kernels by name. What the wall clock
/// holds beyond the kernels is the host's part: launches, copies of results, waits.
void phases_part(int level) {
    const CaseSpec spec = builtin_case("A2");
    const TensorMesh mesh = spec.mesh(level);
    std::printf("\n### Where the matrix part's time goes (A2, %d x %d; each phase traced once)\n\n", mesh.mx(), mesh.my());
    const NineBands<double> bands = assemble_stiffness(mesh);
    DeviceArray d_bands(bands.values);
    Solver solver(on_gpu());
    const Grid grid = Grid::from_mesh(mesh);
    std::unique_ptr<DeviceGridMatrix> A;
    std::printf("| phase | wall (ms) | kernels | some kernel running (ms) | the rest (ms) | longest kernels (ms, all their launches) |\n"
                "|---|---|---|---|---|---|\n");
    auto traced = [&](const char* name, auto&& run) {
        bench::KernelTrace trace;
        trace.start();
        const double wall = seconds_of(run);
        const std::vector<bench::KernelSpan> spans = trace.stop();
        const std::string longest = longest_kernels(spans, 4);
        const double busy = 1e-6 * bench::covered(spans);
        std::printf("| %s | %.3f | %zu | %.3f | %.3f | %s |\n", name, 1e3 * wall, spans.size(), busy, 1e3 * wall - busy,
                    longest.c_str());
    };
    traced("DeviceGridMatrix (checks)", [&] { A = std::make_unique<DeviceGridMatrix>(grid, d_bands.data); });
    traced("first setup", [&] { solver.setup(*A); });
    for (int round = 0; round < 2; ++round) {
        traced("assign", [&] { A->assign(d_bands.data); });
        traced("values-only setup", [&] { solver.setup(*A); });
    }
}

void host_part(int level, int repeats) {
    const CaseSpec spec = builtin_case("A2");
    const TensorMesh mesh = spec.mesh(level);
    const double gigabytes = 9.0 * mesh.nodes() * sizeof(double) / 1e9;
    std::printf("\n### Host bands to a matrix on the GPU (A2, %d x %d, %.2f GB of bands; median of %d)\n\n", mesh.mx(), mesh.my(),
                gigabytes, repeats);
    const NineBands<double> bands = assemble_stiffness(mesh);
    const std::vector<double> pageable(bands.values.begin(), bands.values.end());
    const pinned_vector<double> pinned(bands.values.begin(), bands.values.end());
    const Grid grid = Grid::from_mesh(mesh);
    Solver solver(on_gpu());  // the CUDA context exists before the timings
    std::printf("| matrix object | object (ms) | GB/s of bands | + setup (ms) |\n|---|---|---|---|\n");
    auto row = [&](const char* name, auto&& make) {
        const double t_object = median_seconds(repeats, [&] { (void)make(); });
        const double t_total = median_seconds(repeats, [&] { solver.setup(make()); });
        std::printf("| %s | %.3f | %.1f | %.3f |\n", name, 1e3 * t_object, gigabytes / t_object, 1e3 * t_total);
    };
    row("GridMatrix (host copy and checks)", [&] { return GridMatrix(grid, bands); });
    row("DeviceGridMatrix::from_host, pageable", [&] { return DeviceGridMatrix::from_host(grid, pageable.data()); });
    row("DeviceGridMatrix::from_host, page-locked", [&] { return DeviceGridMatrix::from_host(grid, pinned.data()); });
    DeviceGridMatrix A = DeviceGridMatrix::from_host(grid, pageable.data());
    solver.setup(A);
    std::size_t free_before = 0, free_after = 0, total = 0;
    check(cudaMemGetInfo(&free_before, &total), "cudaMemGetInfo");
    const double t_assign = median_seconds(repeats, [&] { A.assign_from_host(pageable.data()); });
    const double t_resetup = median_seconds(repeats, [&] {
        A.assign_from_host(pageable.data());
        solver.setup(A);
    });
    check(cudaMemGetInfo(&free_after, &total), "cudaMemGetInfo");
    std::printf("| assign_from_host, pageable (values-only) | %.3f | %.1f | %.3f |\n", 1e3 * t_assign, gigabytes / t_assign,
                1e3 * t_resetup);
    std::printf("\nvalues-only re-setups: allocation_count %d (1: nothing allocated), device memory free before %zu MiB, "
                "after %zu MiB\n",
                solver.allocation_count(), free_before >> 20, free_after >> 20);
}

std::vector<std::string> split(const std::string& text) {
    std::vector<std::string> out;
    std::size_t start = 0;
    for (std::size_t end; (end = text.find(',', start)) != std::string::npos; start = end + 1)
        out.push_back(text.substr(start, end - start));
    out.push_back(text.substr(start));
    return out;
}

}  // namespace

int main(int argc, char** argv) {
    std::vector<std::string> parts = {"solve", "matrix", "batch"};
    int level = 12, repeats = 5;
    for (int a = 1; a + 1 < argc; a += 2) {
        const std::string arg = argv[a], value = argv[a + 1];
        if (arg == "--parts") parts = split(value);
        else if (arg == "--level") level = std::atoi(value.c_str());
        else if (arg == "--repeats") repeats = std::atoi(value.c_str());
        else {
            std::fprintf(stderr, "unknown option %s; usage: device_bench [--parts solve,matrix,batch,host,phases] [--level 12] [--repeats 5]\n",
                         arg.c_str());
            return 2;
        }
    }
    try {
        Solver probe(on_gpu());
        std::printf("## Data on the GPU: %s\n", probe.device_name().c_str());
        auto wanted = [&](const char* part) { return std::find(parts.begin(), parts.end(), part) != parts.end(); };
        if (wanted("solve")) solve_part(level, repeats);
        if (wanted("matrix")) matrix_part(level, repeats);
        if (wanted("batch")) {
            std::printf("\n### Several right-hand sides in one call against single solves\n\n");
            std::printf("| case | L | right-hand sides | single solves (ms) | one call (ms) | speed-up |\n|---|---|---|---|---|---|\n");
            for (int l : {10, level}) batch_part(l, repeats, 8);
            std::printf("\n| L | 8 right-hand sides | kernels | streams | kernel time added up (ms) | some kernel running (ms) | "
                        "kernels at once (mean) | first to last kernel (ms) | of the time added up: launches of 2^18 threads "
                        "or more | 2^14 to 2^18 | fewer | the longest of 2^18 threads or more (ms, all their launches) |\n"
                        "|---|---|---|---|---|---|---|---|---|---|---|---|\n");
            for (const std::string& row : traced_rows()) std::printf("%s\n", row.c_str());
        }
        if (wanted("host")) host_part(level, repeats);
        if (wanted("phases")) phases_part(level);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "device_bench: %s\n", e.what());
        return 1;
    }
    return 0;
}

// Each backend operation on one level, timed on the GPU and set against the bytes it must move
// at least (each input read once, each output written once) and the measured copy bandwidth.
// This is where the performance notes (docs/performance.md) get their numbers.
//
//   kernel_bench [--levels 10,12] [--json FILE] [--batch]
//
// --batch times only the V-cycle of 8 right-hand sides side by side against that of one, in
// float, with several line solvers.

#include "gpu_timer.cuh"
#include "l2_window.cuh"

#include "../src/cuda/cuda_backend.cuh"

#include "../src/solver/multigrid.hpp"

#include <adimg/problems.hpp>
#include <adimg/hierarchy.hpp>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

using namespace adimg;

namespace {

struct Timing {
    std::string op;
    double ms, bytes;
};

template <class T>
std::vector<Timing> measure(CudaBackend& be, const NineBands<double>& A_host, const std::vector<double>& split) {
    const std::size_t n = A_host.rows();
    const int mx = A_host.mx, my = A_host.my, mxc = mx / 2 + 1;
    const auto A = be.make_matrix<T>(A_host);
    auto b = be.make_vector<T>(mx, my), x = be.make_vector<T>(mx, my), y = be.make_vector<T>(mx, my);
    auto coarse = be.make_vector<T>(mxc, my / 2 + 1);
    auto sx = be.make_array<T>(split.size()), sy = be.make_array<T>(split.size());
    be.upload(split, sx);
    be.upload(split, sy);
    be.fill(b, T(1));
    be.fill(x, T(0.5));
    const double w = sizeof(T);
    std::vector<Timing> out;
    auto time_on = [&](const CudaBackend& on, const std::string& op, double words, const std::function<void()>& body) {
        out.push_back({op, bench::median_ms(on.stream(), 7, 10, body), words * w * n});
    };
    auto time = [&](const std::string& op, double words, const std::function<void()>& body) { time_on(be, op, words, body); };
    // A backend with another policy, for the rows that compare a choice against the default.
    auto with = [](const std::function<void(CudaPolicy&)>& change) {
        CudaPolicy policy;
        change(policy);
        return std::make_unique<CudaBackend>(policy);
    };
    time("defect", 12, [&] { be.defect(A, b, x, y); });
    time("jacobi", 12, [&] { be.jacobi(A, b, x, y, T(0.7)); });
    // Two Jacobi steps: two launches, against one fused pass (the minimum is one pass's bytes
    // either way).
    {
        auto z = be.make_vector<T>(mx, my);
        time("jacobi, two steps (two launches)", 12, [&] {
            be.jacobi(A, b, x, z, T(0.7));
            be.jacobi(A, b, z, y, T(0.7));
        });
    }
    {
        auto z = be.make_vector<T>(mx, my);
        time("jacobi, two steps in one pass (jacobi_steps)", 12, [&] { be.jacobi_steps(A, b, y, z, T(0.7), 2); });
    }
    time("gauss_seidel (4 colours)", 12, [&] { be.gauss_seidel(A, b, x); });
    time("line_relax x-lines", 12, [&] { be.line_relax(A, b, x, y, Direction::x, T(0.7)); });
    time("line_relax y-lines", 12, [&] { be.line_relax(A, b, x, y, Direction::y, T(0.7)); });
    // The same sweeps with each level-0 staging of the cyclic reduction (the rows above use the
    // backend's choice).
    for (CrStaging staging : all_cr_stagings) {
        if (make_cr_layout(std::max(mx, my), sizeof(T), staging).words * sizeof(T) > be.launcher().shared_limit()) continue;
        const auto staged = with([&](CudaPolicy& p) { p.lines.staging = staging; });
        for (Direction d : {Direction::x, Direction::y}) {
            const std::string op = std::string("line_relax ") + (d == Direction::x ? "x" : "y") + "-lines, level 0 staged: " +
                                   to_string(staging);
            time_on(*staged, op.c_str(), 12, [&] { staged->line_relax(A, b, x, y, d, T(0.7)); });
        }
    }
    // y-lines by cyclic reduction in place, 1 to 8 adjacent lines per block, against transposing
    // the grid (the rows above use the backend's choice).
    if (my > warp_line_max) {
        for (int lines : {0, 1, 2, 4, 8}) {
            const auto grouped = with([&](CudaPolicy& p) { p.lines.y_lines_per_block = lines; });
            time_on(*grouped,
                    lines ? "line_relax y-lines, in place, " + std::to_string(grouped->lines().template y_lines_per_block<T>(my, mx)) + " per block"
                          : std::string("line_relax y-lines, transposed"),
                    12, [&] { grouped->line_relax(A, b, x, y, Direction::y, T(0.7)); });
        }
    }
    // The sweeps with their bands held in L2 between calls (an access-policy window over the
    // set-aside part of the cache), against one ADI step as the V-cycle runs it, where each
    // sweep's bands evict the other's: what a level whose matrix stays on chip could gain
    // (docs/performance.md, "Bands held in L2"). A holds the bands of the x-lines, of in-place
    // y-lines and of the restriction, A.transposed those of the transposed grid's lines.
    if (std::min(mx, my) > warp_line_max) {
        const auto in_place = with([](CudaPolicy& p) { p.lines.y_lines_per_block = 4; });
        const auto fused = with([](CudaPolicy& p) { p.fused_restriction = true; });
        auto adi_step = [&] {
            be.line_relax(A, b, x, y, Direction::x, T(0.7));
            be.line_relax(A, b, y, x, Direction::y, T(0.7));
        };
        auto in_place_step = [&] {
            in_place->line_relax(A, b, x, y, Direction::x, T(0.7));
            in_place->line_relax(A, b, y, x, Direction::y, T(0.7));
        };
        be.fill(x, T(0.5));
        time("one ADI step (x-lines, then y-lines)", 24, adi_step);
        time_on(*in_place, "one ADI step, y-lines in place, 4 per block", 24, in_place_step);
        {
            const bench::L2Window held(be.stream(), A.values.data(), A.values.size() * sizeof(T));
            const std::string note = ", bands held in L2 (" + held.describe() + ")";
            time("line_relax x-lines" + note, 12, [&] { be.line_relax(A, b, x, y, Direction::x, T(0.7)); });
            time_on(*in_place, "line_relax y-lines, in place, 4 per block" + note, 12,
                    [&] { in_place->line_relax(A, b, x, y, Direction::y, T(0.7)); });
            time_on(*fused, "restrict_defect (fused)" + note, 11.25, [&] { fused->restrict_defect(A, b, x, y, sx, sy, coarse); });
            time("one ADI step" + note + " for the x-lines", 24, adi_step);
            time_on(*in_place, "one ADI step, y-lines in place, 4 per block" + note, 24, in_place_step);
        }
        be.fill(x, T(0.5));
        {
            const bench::L2Window held(be.stream(), A.transposed.data(), A.transposed.size() * sizeof(T));
            time("line_relax y-lines, transposed, transposed bands held in L2 (" + held.describe() + ")", 12,
                 [&] { be.line_relax(A, b, x, y, Direction::y, T(0.7)); });
        }
        be.fill(x, T(0.5));
    }
    // x-lines by cyclic reduction with each level-0 staging and 64 to 512 threads per line (the
    // rows above use line_threads()).
    if (mx > warp_line_max) {
        for (CrStaging staging : all_cr_stagings) {
            if (make_cr_layout(mx, sizeof(T), staging).words * sizeof(T) > be.launcher().shared_limit()) continue;
            for (int threads : {64, 128, 256, 512}) {
                const auto v = with([&](CudaPolicy& p) {
                    p.lines.staging = staging;
                    p.lines.threads_per_line = threads;
                    p.lines.partitioned_from = 1 << 30;  // cyclic reduction only
                });
                time_on(*v, "line_relax x-lines, level 0 staged: " + std::string(to_string(staging)) + ", " +
                                std::to_string(threads) + " threads per line",
                        12, [&] { v->line_relax(A, b, x, y, Direction::x, T(0.7)); });
            }
        }
    }
    // Lines by the partition method, 64 to 256 chunks per line, one or two threads per chunk, two
    // or eight equations per lane in the warp; y-lines as
    // x-lines of the transposed grid where the grid is transposed (the rows above: cyclic reduction).
    if (mx > warp_line_max) {
        for (int slots : {2, 8}) {
            for (int chunks : {64, 128, 256}) {
                for (int threads : {chunks, 2 * chunks}) {
                    const auto v = with([&](CudaPolicy& p) {
                        p.lines.partitioned_from = 0;
                        p.lines.partition_slots = slots;
                        p.lines.partition_chunks = chunks;
                        p.lines.threads_per_line = threads;
                    });
                    for (Direction d : {Direction::x, Direction::y})
                        time_on(*v, std::string("line_relax ") + (d == Direction::x ? "x" : "y") + "-lines, partitioned, " +
                                        std::to_string(chunks) + " chunks, " + std::to_string(threads) + " threads, " +
                                        std::to_string(slots) + " slots",
                                12, [&] { v->line_relax(A, b, x, y, d, T(0.7)); });
                }
            }
        }
    }
    // Lines short enough for one warp each, against the cyclic reduction on the same lines.
    if (std::max(mx, my) <= warp_line_max) {
        for (int up_to : {warp_line_max, 0}) {
            const auto v = with([&](CudaPolicy& p) { p.lines.warp_lines_up_to = up_to; });
            for (Direction d : {Direction::x, Direction::y}) {
                const std::string op = std::string("line_relax ") + (d == Direction::x ? "x" : "y") + "-lines, " +
                                       (up_to ? "one warp per line" : "cyclic reduction");
                time_on(*v, op, 12, [&] { v->line_relax(A, b, x, y, d, T(0.7)); });
            }
        }
    }
    // A solve's transfers: b up and x down, double on the host, through the pinned staging buffers.
    std::vector<double> host(n, 1.0);
    time("upload + download (host double)", 2, [&] {
        be.upload(host, b);
        be.download(b, host);
    });
    for (std::size_t mib : {1, 4, 16, 64}) {
        const auto v = with([&](CudaPolicy& p) { p.transfer_chunk_bytes = mib << 20; });
        time_on(*v, "upload + download (host double), chunks of " + std::to_string(mib) + " MiB", 2, [&] {
            v->upload(host, b);
            v->download(b, host);
        });
    }
    // The same from and into page-locked host memory (pinned_vector), as a solve does when the
    // caller's b and x live there: one DMA each way for double, the staging pipeline for float.
    {
        pinned_vector<double> pinned_host(n, 1.0);
        time(sizeof(T) == 8 ? "upload + download (host double, pinned): one DMA each"
                            : "upload + download (host double, pinned): staged, converted to float", 2, [&] {
            be.upload(pinned_host.data(), n, b);
            be.download(b, pinned_host.data());
        });
    }
    // What bounds them: the DMA alone, from and to pinned host memory (the PCIe ceiling), and the
    // host-side copy into pinned memory alone (all host cores).
    {
        T* pinned = nullptr;
        ADIMG_CUDA_CHECK(cudaMallocHost(&pinned, n * sizeof(T)));
        time("upload + download, DMA only (pinned host buffer)", 2, [&] {
            ADIMG_CUDA_CHECK(cudaMemcpyAsync(b.data(), pinned, n * sizeof(T), cudaMemcpyHostToDevice, be.stream()));
            ADIMG_CUDA_CHECK(cudaMemcpyAsync(pinned, b.data(), n * sizeof(T), cudaMemcpyDeviceToHost, be.stream()));
        });
        time("host copy into pinned memory and back, no DMA", 2, [&] {
            HostTransfers::convert_on_host(host.data(), pinned, n);
            HostTransfers::convert_on_host(pinned, host.data(), n);
        });
        // b up without the pipeline: the host copy into pinned memory, then the DMA, with the
        // copy's stores through the caches or streaming past them (upload() streams).
        for (auto stores : {HostTransfers::HostStores::cached, HostTransfers::HostStores::streaming}) {
            const bool streaming = stores == HostTransfers::HostStores::streaming;
            time(std::string("upload: host copy (") + (streaming ? "streaming" : "cached") + " stores), then the DMA", 1, [&] {
                HostTransfers::convert_on_host(host.data(), pinned, n, stores);
                ADIMG_CUDA_CHECK(cudaMemcpyAsync(b.data(), pinned, n * sizeof(T), cudaMemcpyHostToDevice, be.stream()));
            });
        }
        ADIMG_CUDA_CHECK(cudaFreeHost(pinned));
    }
    time("restrict_to", 1.25, [&] { be.restrict_to(x, mx, my, sx, sy, coarse); });
    time("prolong_add", 2.25, [&] { be.prolong_add(coarse, sx, sy, y, mx, my); });
    // The defect restricted: fused into one pass against a defect and a restriction (the minimum
    // is that of the fused pass: bands, b and x read once, the coarse grid written).
    for (bool fused : {true, false}) {
        const auto v = with([&](CudaPolicy& p) { p.fused_restriction = fused; });
        time_on(*v, fused ? "restrict_defect (fused)" : "restrict_defect (defect, then restrict_to)", 11.25,
                [&] { v->restrict_defect(A, b, x, y, sx, sy, coarse); });
    }
    time("axpy", 3, [&] { be.axpy(0.5, x, y); });
    time("dot (with host sync)", 2, [&] { be.dot(x, y); });
    // The refinement loop's update and next defect (a float correction, as in a mixed solve):
    // fused into one pass, against the axpy, defect and norm it replaces. Minimum bytes: bands,
    // b and x read, x_next and d written (13 words), and the float correction.
    {
        auto c = be.make_vector<float>(mx, my);
        auto x_next = be.make_vector<T>(mx, my), d = be.make_vector<T>(mx, my);
        be.fill(c, 1e-3f);
        const double words = 13 + 4.0 / w;
        time("update, defect and norm (fused, with host sync)", words, [&] { be.update_defect_norm(A, b, x, 0.5, c, x_next, d); });
        time("update, defect and norm (axpy, defect, norm2)", words, [&] {
            be.axpy(0.5, c, x_next);
            be.defect(A, b, x_next, d);
            be.norm2(d);
        });
    }
    return out;
}

/// One whole V-cycle (ADI, the default options) and the refinement loop's pieces, per level,
/// against the sum of their kernels: the difference is launch and synchronisation overhead.
template <class T>
void cycle_timings(CudaBackend& be, int level, std::vector<Timing>& out) {
    SolverOptions options;
    // The cycle on a backend with another policy.
    auto cycle_with = [&](const std::string& row, const std::function<void(CudaPolicy&)>& change) {
        CudaPolicy policy;
        change(policy);
        CudaBackend v(policy);
        Multigrid<CudaBackend, T> mg(v, rediscretized_hierarchy(builtin_case("A2"), level, options.coarse_level), options);
        v.fill(mg.rhs(), T(1));
        out.push_back({row, bench::median_ms(v.stream(), 5, 5, [&] { mg.cycle(); }), 0});
    };
    const Hierarchy h = rediscretized_hierarchy(builtin_case("A2"), level, options.coarse_level);
    Multigrid<CudaBackend, T> mg(be, h, options);
    be.fill(mg.rhs(), T(1));
    out.push_back({"V-cycle (ADI, 4+4, all levels)", bench::median_ms(be.stream(), 5, 5, [&] { mg.cycle(); }), 0});
    {
        // The cycle as it was before the direct coarsest-grid solve: down to 3 x 3, PCG there.
        SolverOptions pcg = options;
        pcg.coarse_level = 1;
        pcg.coarse_solver = CoarseSolver::pcg;
        Multigrid<CudaBackend, T> deep(be, rediscretized_hierarchy(builtin_case("A2"), level, 1), pcg);
        be.fill(deep.rhs(), T(1));
        out.push_back({"V-cycle down to 3 x 3, PCG there", bench::median_ms(be.stream(), 5, 5, [&] { deep.cycle(); }), 0});
    }
    out.push_back({"V-cycle + defect norm (digits mode)", bench::median_ms(be.stream(), 5, 5, [&] { mg.cycle(); mg.defect_norm(); }), 0});
    // The same cycle recorded with plain launches: each kernel is scheduled only once the one
    // before it has finished (what programmatic dependent launch saves).
    cycle_with("V-cycle, plain launches", [](CudaPolicy& p) { p.programmatic_launch = false; });
    cycle_with("V-cycle, no graph", [](CudaPolicy& p) { p.graphs = false; });
    // Where a cycle's time goes: the same cycle on hierarchies with a coarser finest level (the
    // difference between two rows is one level's work, launches included; the first row is the
    // direct solve alone).
    auto per_level = [&](CudaBackend& on, const std::string& note) {
        if (level > 10) return;
        for (int finest = options.coarse_level; finest < level; ++finest) {
            Multigrid<CudaBackend, T> smaller(on, rediscretized_hierarchy(builtin_case("A2"), finest, options.coarse_level),
                                              options);
            on.fill(smaller.rhs(), T(1));
            out.push_back({"V-cycle, finest level " + std::to_string(finest) + note,
                           bench::median_ms(on.stream(), 5, 5, [&] { smaller.cycle(); }), 0});
        }
    };
    per_level(be, "");
    // Short lines by one warp each up to 129, 257 or 513 unknowns, or none (the rows above use
    // the backend's choice); the per-level rows again with every line by cyclic reduction.
    for (int up_to : {0, 129, 257, 513})
        cycle_with("V-cycle, one warp per line up to " + std::to_string(up_to) + " unknowns",
                   [&](CudaPolicy& p) { p.lines.warp_lines_up_to = up_to; });
    {
        CudaPolicy no_warps;
        no_warps.lines.warp_lines_up_to = 0;
        CudaBackend v(no_warps);
        per_level(v, ", every line by cyclic reduction");
    }
    // Lines of at least 257, 513, 1025 or 2049 unknowns by the partition method, or none (the
    // rows above use the backend's choice).
    for (int from : {257, 513, 1025, 2049, 1 << 30})
        cycle_with(from == 1 << 30 ? std::string("V-cycle, no line by the partition method")
                                   : "V-cycle, partitioned lines from " + std::to_string(from) + " unknowns",
                   [&](CudaPolicy& p) { p.lines.partitioned_from = from; });
    // y-lines by cyclic reduction in place, 1 to 8 per block, or by transposing the grid (0).
    for (int lines : {0, 1, 2, 4, 8})
        cycle_with(lines ? "V-cycle, y-lines in place, up to " + std::to_string(lines) + " per block"
                         : std::string("V-cycle, y-lines transposed"),
                   [&](CudaPolicy& p) { p.lines.y_lines_per_block = lines; });
    // The defect and restriction fused on every level, and on none (by default only on grids of
    // at least 2049² (float) or 4097² (double) nodes).
    for (bool fused : {true, false})
        cycle_with(fused ? "V-cycle, defect and restriction fused on every level" : "V-cycle, defect and restriction fused on none",
                   [&](CudaPolicy& p) { p.fused_restriction = fused; });
}

/// The V-cycle of a batch (8 right-hand sides side by side, Multigrid::batch) per right-hand
/// side, against the cycle of one, with the backend's line solvers and with others: what reading
/// each level's matrix once for eight saves, and whether another line solver saves more there
/// (docs/performance.md, "Several right-hand sides: one cycle for all").
template <class T>
void batch_cycle_timings(int level, std::vector<Timing>& out) {
    constexpr int columns = 8;
    SolverOptions options;
    const Hierarchy h = rediscretized_hierarchy(builtin_case("A2"), level, options.coarse_level);
    auto rows_with = [&](const std::string& name, const std::function<void(CudaPolicy&)>& change) {
        CudaPolicy policy;
        change(policy);
        CudaBackend v(policy);
        Multigrid<CudaBackend, T> mg(v, h, options);
        auto& batch = mg.batch(columns);
        v.fill(mg.rhs(), T(1));
        v.fill(mg.rhs(batch), T(1));
        const double one = bench::median_ms(v.stream(), 5, 5, [&] { mg.cycle(); });
        const double each = bench::median_ms(v.stream(), 5, 5, [&] { mg.cycle(batch); }) / columns;
        out.push_back({"V-cycle, one right-hand side" + name, one, 0});
        out.push_back({"V-cycle of " + std::to_string(columns) + " right-hand sides, per right-hand side" + name, each, 0});
    };
    rows_with("", [](CudaPolicy&) {});
    for (int chunks : {64, 128, 256})
        for (int slots : {2, 8})
            rows_with(", partition method with " + std::to_string(chunks) + " chunks, " + std::to_string(slots) + " slots",
                      [&](CudaPolicy& p) {
                          p.lines.partition_chunks = chunks;
                          p.lines.partition_slots = slots;
                      });
    rows_with(", no line by the partition method", [](CudaPolicy& p) { p.lines.partitioned_from = 1 << 30; });
    rows_with(", y-lines in place, up to 4 per block", [](CudaPolicy& p) { p.lines.y_lines_per_block = 4; });
    rows_with(", defect and restriction fused on none", [](CudaPolicy& p) { p.fused_restriction = false; });
}

}  // namespace

int main(int argc, char** argv) {
    std::string levels = "10,12", json_path;
    bool batch_only = false;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--batch")) batch_only = true;
        else if (i + 1 < argc && !std::strcmp(argv[i], "--levels")) levels = argv[++i];
        else if (i + 1 < argc && !std::strcmp(argv[i], "--json")) json_path = argv[++i];
    }
    try {
        CudaBackend be;
        const double copy_bw = bench::copy_bandwidth(be.stream());
        const bench::L2Limits l2 = bench::l2_limits();
        std::printf("# Kernels on %s\n\ncopy bandwidth (read + write): %.0f GB/s; L2 %.1f MB, of which up to %.1f MB may be set "
                    "aside for persisting lines (access-policy windows of up to %.1f MB)\n\n",
                    be.name().c_str(), copy_bw / 1e9, l2.l2_bytes / 1e6, l2.persisting_max / 1e6, l2.window_max / 1e6);
        std::printf("| L | precision | operation | ms | minimum bytes (MB) | GB/s | of copy bandwidth |\n|---|---|---|---|---|---|---|\n");
        std::string json = "[\n";
        for (const char* p = levels.c_str(); *p;) {
            const int level = std::atoi(p);
            while (*p && *p != ',') ++p;
            if (*p == ',') ++p;
            const CaseSpec spec = builtin_case("A2");
            const TensorMesh mesh = spec.mesh(level);
            const NineBands<double> A = assemble_stiffness(mesh);
            const std::vector<double> split(mesh.mx() / 2, 0.5);
            for (int precision = 0; precision < 2; ++precision) {
                std::vector<Timing> rows;
                if (batch_only) {
                    if (precision == 0) batch_cycle_timings<float>(level, rows);
                } else {
                    rows = precision ? measure<double>(be, A, split) : measure<float>(be, A, split);
                    if (precision) cycle_timings<double>(be, level, rows);
                    else cycle_timings<float>(be, level, rows);
                }
                for (const Timing& t : rows) {
                    const double gbs = t.bytes / (t.ms * 1e-3) / 1e9;
                    std::printf("| %d | %s | %s | %.4f | %.1f | %.0f | %.0f%% |\n", level, precision ? "double" : "float",
                                t.op.c_str(), t.ms, t.bytes / 1e6, gbs, 100 * gbs * 1e9 / copy_bw);
                    char row[512];
                    std::snprintf(row, sizeof row, "  {\"level\": %d, \"precision\": \"%s\", \"op\": \"%s\", \"ms\": %.6f, \"bytes\": %.0f},\n",
                                  level, precision ? "double" : "float", t.op.c_str(), t.ms, t.bytes);
                    json += row;
                }
                std::fflush(stdout);
            }
        }
        if (json.size() > 2) json.erase(json.size() - 2, 1);
        json += "]\n";
        if (!json_path.empty()) {
            FILE* f = std::fopen(json_path.c_str(), "w");
            if (f) std::fputs(json.c_str(), f), std::fclose(f);
        }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "kernel_bench: %s\n", e.what());
        return 3;
    }
    return 0;
}

// The cyclic-reduction line solver against cuSPARSE on the same batch of tridiagonal systems,
// measured side by side in one run: gtsv2StridedBatch (systems stored one after another, our
// layout) and gtsvInterleavedBatch (the other layout). Prints a Markdown table; --json FILE
// writes the numbers too.
//
// Each timed call restores the right-hand side with a device copy first (both solvers work in
// place); the copy alone is timed as well and subtracted.

#include "gpu_timer.cuh"

#include "batch_solve.cuh"

#include <cusparse.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

using namespace adimg;

namespace {

void check(cusparseStatus_t status, const char* what) {
    if (status != CUSPARSE_STATUS_SUCCESS) throw device_error(std::string(what) + " failed: " + cusparseGetErrorString(status));
}

struct Row {
    std::string precision;
    int n, batch;
    double ours_ms, strided_ms, interleaved_ms, ours_gbs, floor_ms;
    int threads;
    CrStaging staging;
    double automatic_ms;
    double partitioned_ms;  // the partition method, best chunks and threads
    int chunks, partitioned_threads;
    double partitioned_difference;  // max |x_partitioned - x_CR| / max |x_CR|
    bool partitioned_raw;           // the best staged each system by cp.async (src/lines/partition_method.hpp, RawLine)
};

int fixed_threads = 0;  // --threads: measure one block size instead of sweeping
int fixed_chunks = 0;   // --chunks: measure one chunk count of the partition method instead of sweeping

template <class T>
Row measure(CudaBackend& be, cusparseHandle_t handle, int n, int batch, double copy_bw) {
    const std::size_t total = static_cast<std::size_t>(n) * batch;
    std::vector<T> a(total), b(total), c(total), v(total);
    std::mt19937 rng(1);
    std::uniform_real_distribution<double> u(0.1, 1.0), w(-1.0, 1.0);
    for (std::size_t p = 0; p < total; ++p) {
        const int i = static_cast<int>(p % n);
        a[p] = i > 0 ? T(-u(rng)) : T(0);
        c[p] = i + 1 < n ? T(-u(rng)) : T(0);
        b[p] = -a[p] - c[p] + T(u(rng));
        v[p] = T(w(rng));
    }
    auto up = [&](const std::vector<T>& h) {
        DeviceVector<T> d(h.size());
        ADIMG_CUDA_CHECK(cudaMemcpy(d.data(), h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice));
        return d;
    };
    DeviceVector<T> da = up(a), db = up(b), dc = up(c), rhs = up(v), x(total);
    cudaStream_t s = be.stream();
    auto restore = [&] { ADIMG_CUDA_CHECK(cudaMemcpyAsync(x.data(), rhs.data(), total * sizeof(T), cudaMemcpyDeviceToDevice, s)); };
    const int samples = 7, repeats = 10;
    const double copy_ms = bench::median_ms(s, samples, repeats, restore);

    // Block size and load scheme (one pass with O_0 in shared memory, or two) are swept; the
    // fastest is reported, next to the backend's automatic choice.
    double ours = 1e30, automatic = 0;
    int best_threads = 0;
    CrStaging best_staging = CrStaging::all;
    for (CrStaging staging : all_cr_stagings) {
        if (make_cr_layout(n, sizeof(T), staging).words * sizeof(T) > be.launcher().shared_limit()) continue;
        for (int threads : {64, 128, 256, 384, 512, 768, 1024}) {
            if (fixed_threads && threads != fixed_threads) continue;
            const double ms = bench::median_ms(s, samples, repeats, [&] {
                restore();
                bench::solve_batch(be, da, db, dc, x, n, batch, {threads, staging});
            }) - copy_ms;
            std::fprintf(stderr, "  %s n=%d, %d threads per line, level 0 staged: %s: %.4f ms\n",
                         sizeof(T) == 4 ? "float" : "double", n, threads, to_string(staging), ms);
            if (ms < ours) ours = ms, best_threads = threads, best_staging = staging;
        }
    }
    automatic = bench::median_ms(s, samples, repeats, [&] {
        restore();
        bench::solve_batch(be, da, db, dc, x, n, batch);
    }) - copy_ms;
    // The partition method (src/lines/partition_method.hpp), chunks and threads swept; its solution
    // is checked against the cyclic reduction's.
    auto solution = [&] {
        std::vector<T> h(total);
        ADIMG_CUDA_CHECK(cudaStreamSynchronize(s));
        ADIMG_CUDA_CHECK(cudaMemcpy(h.data(), x.data(), total * sizeof(T), cudaMemcpyDeviceToHost));
        return h;
    };
    restore();
    bench::solve_batch(be, da, db, dc, x, n, batch);
    const std::vector<T> reference = solution();
    double scale = 0;
    for (T value : reference) scale = std::max(scale, std::abs(double(value)));
    double partitioned = 1e30, difference = 0;
    int best_chunks = 0, best_partitioned_threads = 0;
    bool best_raw = false;
    for (bool raw : {false, true})
    for (int slots : {2, 8})
    for (int chunks : {32, 64, 128, 256}) {
        if (chunks > n / 2 || make_partition_layout<T>(n, chunks, 8, raw).words() * sizeof(T) > be.launcher().shared_limit()) continue;
        if (fixed_chunks && chunks != fixed_chunks) continue;
        for (int threads : {chunks, 2 * chunks}) {
            if (threads < 64 || (fixed_threads && threads != fixed_threads)) continue;
            const double ms = bench::median_ms(s, samples, repeats, [&] {
                restore();
                bench::solve_batch(be, da, db, dc, x, n, batch, {threads, std::nullopt, chunks, slots, raw});
            }) - copy_ms;
            double diff = 0;
            const std::vector<T> mine = solution();
            for (std::size_t p = 0; p < total; ++p) diff = std::max(diff, std::abs(double(mine[p]) - double(reference[p])) / scale);
            std::fprintf(stderr, "  %s n=%d, partitioned: %d chunks, %d threads, %d slots per lane, %s: %.4f ms, difference to CR %.2e\n",
                         sizeof(T) == 4 ? "float" : "double", n, chunks, threads, slots,
                         raw ? "staged raw by cp.async" : "loaded per thread", ms, diff);
            if (diff > (sizeof(T) == 4 ? 1e-4 : 1e-12))
                throw std::runtime_error("the partitioned solve differs from cyclic reduction by " + std::to_string(diff));
            difference = std::max(difference, diff);
            if (ms < partitioned) partitioned = ms, best_chunks = chunks, best_partitioned_threads = threads, best_raw = raw;
        }
    }
    check(cusparseSetStream(handle, s), "cusparseSetStream");
    std::size_t buffer_bytes = 0;
    if constexpr (std::is_same_v<T, float>)
        check(cusparseSgtsv2StridedBatch_bufferSizeExt(handle, n, da.data(), db.data(), dc.data(), x.data(), batch, n, &buffer_bytes), "buffer size");
    else
        check(cusparseDgtsv2StridedBatch_bufferSizeExt(handle, n, da.data(), db.data(), dc.data(), x.data(), batch, n, &buffer_bytes), "buffer size");
    DeviceVector<char> buffer(buffer_bytes + 1);
    const double strided = bench::median_ms(s, samples, repeats, [&] {
        restore();
        if constexpr (std::is_same_v<T, float>)
            check(cusparseSgtsv2StridedBatch(handle, n, da.data(), db.data(), dc.data(), x.data(), batch, n, buffer.data()), "Sgtsv2StridedBatch");
        else
            check(cusparseDgtsv2StridedBatch(handle, n, da.data(), db.data(), dc.data(), x.data(), batch, n, buffer.data()), "Dgtsv2StridedBatch");
    }) - copy_ms;

    // The interleaved layout: element i of system s at i * batch + s (algorithm 0: cyclic reduction).
    std::vector<T> ai(total), bi(total), ci(total), vi(total);
    for (int sys = 0; sys < batch; ++sys)
        for (int i = 0; i < n; ++i) {
            const std::size_t from = static_cast<std::size_t>(sys) * n + i, to = static_cast<std::size_t>(i) * batch + sys;
            ai[to] = a[from], bi[to] = b[from], ci[to] = c[from], vi[to] = v[from];
        }
    DeviceVector<T> ia = up(ai), ib = up(bi), ic = up(ci), irhs = up(vi);
    auto restore_interleaved = [&] {
        ADIMG_CUDA_CHECK(cudaMemcpyAsync(x.data(), irhs.data(), total * sizeof(T), cudaMemcpyDeviceToDevice, s));
    };
    if constexpr (std::is_same_v<T, float>)
        check(cusparseSgtsvInterleavedBatch_bufferSizeExt(handle, 0, n, ia.data(), ib.data(), ic.data(), x.data(), batch, &buffer_bytes), "buffer size");
    else
        check(cusparseDgtsvInterleavedBatch_bufferSizeExt(handle, 0, n, ia.data(), ib.data(), ic.data(), x.data(), batch, &buffer_bytes), "buffer size");
    DeviceVector<char> buffer2(buffer_bytes + 1);
    const double interleaved = bench::median_ms(s, samples, repeats, [&] {
        restore_interleaved();
        if constexpr (std::is_same_v<T, float>)
            check(cusparseSgtsvInterleavedBatch(handle, 0, n, ia.data(), ib.data(), ic.data(), x.data(), batch, buffer2.data()), "SgtsvInterleavedBatch");
        else
            check(cusparseDgtsvInterleavedBatch(handle, 0, n, ia.data(), ib.data(), ic.data(), x.data(), batch, buffer2.data()), "DgtsvInterleavedBatch");
    }) - copy_ms;

    // Bytes: the four arrays read once and the solution written once.
    const double bytes = 5.0 * total * sizeof(T);
    return {sizeof(T) == 4 ? "float" : "double", n, batch, ours, strided, interleaved, bytes / (automatic * 1e-3) / 1e9,
            bytes / copy_bw * 1e3, best_threads, best_staging, automatic, partitioned, best_chunks, best_partitioned_threads,
            difference, best_raw};
}

}  // namespace

int main(int argc, char** argv) {
    std::string json_path;
    bool quick = false;
    std::string sizes;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--json") && i + 1 < argc) json_path = argv[++i];
        else if (!std::strcmp(argv[i], "--quick")) quick = true;
        else if (!std::strcmp(argv[i], "--sizes") && i + 1 < argc) sizes = argv[++i];
        else if (!std::strcmp(argv[i], "--threads") && i + 1 < argc) fixed_threads = std::atoi(argv[++i]);
        else if (!std::strcmp(argv[i], "--chunks") && i + 1 < argc) fixed_chunks = std::atoi(argv[++i]);
        else {
            std::fprintf(stderr, "usage: tridiagonal_bench [--quick] [--sizes N,N,...] [--threads T] [--chunks C] [--json FILE]\n");
            return 2;
        }
    }
    try {
        CudaBackend be;
        cusparseHandle_t handle;
        check(cusparseCreate(&handle), "cusparseCreate");
        const double copy_bw = bench::copy_bandwidth(be.stream());
        std::printf("# Cyclic reduction vs cuSPARSE on %s\n\ncopy bandwidth (read + write): %.0f GB/s\n\n", be.name().c_str(),
                    copy_bw / 1e9);
        std::printf("| precision | n | lines | best threads | best level-0 staging | adimg CR best ms | adimg ms (solver's choice) | gtsv2StridedBatch ms | "
                    "gtsvInterleavedBatch ms | gtsv2StridedBatch / adimg (solver's choice) | adimg GB/s (solver's choice) | of copy bandwidth | "
                    "partitioned best ms (chunks, threads, loads) | gtsv2StridedBatch / partitioned | partitioned of copy bandwidth | "
                    "partitioned - CR (max, relative) |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
        std::vector<Row> rows;
        std::vector<int> lengths = quick ? std::vector<int>{1025} : std::vector<int>{65, 129, 257, 513, 1025, 2049, 4097, 8193};
        if (!sizes.empty()) {
            lengths.clear();
            for (const char* p = sizes.c_str(); *p;) {
                lengths.push_back(std::atoi(p));
                while (*p && *p != ',') ++p;
                if (*p == ',') ++p;
            }
        }
        for (int n : lengths) {
            for (int precision = 0; precision < 2; ++precision) {
                if (precision == 1 && n > be.lines().longest_line<double>()) continue;
                const int batch = n;
                std::fprintf(stderr, "measuring %s n=%d ...\n", precision ? "double" : "float", n);
                const Row r = precision ? measure<double>(be, handle, n, batch, copy_bw) : measure<float>(be, handle, n, batch, copy_bw);
                rows.push_back(r);
                std::printf("| %s | %d | %d | %d | %s | %.4f | %.4f | %.4f | %.4f | %.2f | %.0f | %.0f%% | %.4f (%d, %d, %s) | %.2f | %.0f%% | %.1e |\n",
                            r.precision.c_str(), r.n, r.batch, r.threads, to_string(r.staging), r.ours_ms, r.automatic_ms, r.strided_ms,
                            r.interleaved_ms, r.strided_ms / r.automatic_ms, r.ours_gbs, 100.0 * r.ours_gbs * 1e9 / copy_bw,
                            r.partitioned_ms, r.chunks, r.partitioned_threads, r.partitioned_raw ? "raw" : "per thread", r.strided_ms / r.partitioned_ms,
                            100.0 * r.floor_ms / r.partitioned_ms, r.partitioned_difference);
                std::fflush(stdout);
            }
        }
        if (!json_path.empty()) {
            FILE* f = std::fopen(json_path.c_str(), "w");
            if (!f) throw input_error("cannot write " + json_path);
            std::fprintf(f, "{\n  \"device\": \"%s\",\n  \"copy_bandwidth_gbs\": %.1f,\n  \"rows\": [\n", be.name().c_str(), copy_bw / 1e9);
            for (std::size_t i = 0; i < rows.size(); ++i) {
                const Row& r = rows[i];
                std::fprintf(f, "    {\"precision\": \"%s\", \"n\": %d, \"lines\": %d, \"cr_ms\": %.6f, \"strided_ms\": %.6f, "
                                "\"interleaved_ms\": %.6f, \"cr_gbs\": %.1f, \"partitioned_ms\": %.6f, \"chunks\": %d, \"raw\": %s}%s\n",
                             r.precision.c_str(), r.n, r.batch, r.ours_ms, r.strided_ms, r.interleaved_ms, r.ours_gbs, r.partitioned_ms, r.chunks,
                             r.partitioned_raw ? "true" : "false", i + 1 < rows.size() ? "," : "");
            }
            std::fprintf(f, "  ]\n}\n");
            std::fclose(f);
        }
        cusparseDestroy(handle);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "tridiagonal_bench: %s\n", e.what());
        return 3;
    }
    return 0;
}

#pragma once
// The CUDA backend: the operations of the generic solver (src/solver/multigrid.hpp) as kernels on
// one stream. Only the reductions (dot, norm2) bring a scalar back to the host, because the
// control flow of PCG and of the refinement loop needs it; everything else stays on the device.

#include "device_memory.cuh"
#include "kernels.cuh"

#include <adimg/nine_bands.hpp>
#include <adimg/pinned_memory.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <initializer_list>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace adimg {

class CudaBackend {
public:
    template <class T>
    using vector = DeviceVector<T>;
    template <class T>
    using matrix = DeviceBands<T>;

    /// Selects the current device; throws device_error if none is usable.
    CudaBackend();
    ~CudaBackend();
    CudaBackend(const CudaBackend&) = delete;
    CudaBackend& operator=(const CudaBackend&) = delete;

    std::string name() const { return name_; }
    cudaStream_t stream() const { return stream_; }
    /// The largest dynamic shared memory one block may use, as the device reports it.
    std::size_t shared_bytes_per_block() const { return shared_limit_; }
    /// The longest line the cyclic-reduction kernel can solve in precision T on this device.
    template <class T>
    int longest_line() const {
        int lo = 1, hi = 1 << 16;
        while (lo + 1 < hi) {
            const int mid = (lo + hi) / 2;
            (make_cr_layout(mid, sizeof(T), CrStaging::none).block_words() * sizeof(T) <= shared_limit_ ? lo : hi) = mid;
        }
        return lo;
    }

    // --- memory ---------------------------------------------------------------------------
    template <class T>
    vector<T> make_vector(std::size_t n) { return vector<T>(n); }
    template <class T>
    matrix<T> make_matrix(const NineBands<double>& A) {
        matrix<T> M{A.mx, A.my, vector<T>(A.values.size()), {}};
        update_values(A, M);
        return M;
    }
    /// New values for a matrix of the same grid, into its existing device storage.
    template <class T>
    void update_values(const NineBands<double>& A, matrix<T>& M) {
        const std::vector<T> converted(A.values.begin(), A.values.end());
        ADIMG_CUDA_CHECK(cudaMemcpyAsync(M.values.data(), converted.data(), converted.size() * sizeof(T),
                                         cudaMemcpyHostToDevice, stream_));
        if (M.transposed.size() == M.values.size()) transpose_bands(M);
        ADIMG_CUDA_CHECK(cudaStreamSynchronize(stream_));
    }
    /// How convert_on_host() writes: through the caches, or with streaming (non-temporal) stores
    /// that bypass them. Streaming suits a staging buffer that the DMA engine reads next: it finds
    /// no dirty lines in the CPU's caches to snoop. Measured on the H200's host (kernel_bench,
    /// b2d2259: host copy of b, then the DMA): 0.232 ms cached, 0.193 ms streaming at L=10
    /// (8.4 MB); 3.12 against 3.22 ms at L=12, where the buffers outgrow the caches either way.
    enum class HostStores { cached, streaming };
    /// dst[i] = D(src[i]) for i < n, on all host cores: one core copies ~5 GB/s, a third of
    /// what PCIe carries, and made the transfers of a solve slower than the solve
    /// (bench/PERFORMANCE.md). Defined for double to float, double to double and float to double.
    template <class S, class D>
    static void convert_on_host(const S* src, D* dst, std::size_t n, HostStores stores = HostStores::cached);
    /// Host to device: n values into v (of exactly n entries). From page-locked memory (pinned_memory.hpp)
    /// in one DMA when no conversion is needed; otherwise through pinned staging buffers, in
    /// chunks, so that converting one chunk on the host overlaps the transfer of the previous one.
    template <class T>
    void upload(const double* host, std::size_t n, vector<T>& v) {
        check_transfer_size(n, v.size());
        last_transfer_direct_ = direct_transfer<T>(host);
        if (last_transfer_direct_) {
            ADIMG_CUDA_CHECK(cudaMemcpyAsync(v.data(), host, n * sizeof(T), cudaMemcpyHostToDevice, stream_));
        } else {
            const std::size_t chunk = chunk_bytes(n * sizeof(T)) / sizeof(T);
            for (std::size_t first = 0, c = 0; first < n; first += chunk, ++c) {
                const std::size_t count = std::min(chunk, n - first);
                T* stage = reinterpret_cast<T*>(staging(c));
                convert_on_host(host + first, stage, count, HostStores::streaming);
                ADIMG_CUDA_CHECK(cudaMemcpyAsync(v.data() + first, stage, count * sizeof(T), cudaMemcpyHostToDevice, stream_));
                ADIMG_CUDA_CHECK(cudaEventRecord(staged_[c % 2], stream_));
            }
        }
        ADIMG_CUDA_CHECK(cudaStreamSynchronize(stream_));
    }
    template <class T>
    void upload(const std::vector<double>& host, vector<T>& v) { upload(host.data(), host.size(), v); }
    /// The chunks of upload() and download(): about a quarter of the vector, at least 4 MiB and
    /// at most 16 MiB. Measured on the H200 (b up and x down, double; bench/PERFORMANCE.md, run
    /// at ac8c0c5): at L=12 (134 MB each way) 4 MiB chunks took 11.4 ms, 16 MiB 6.2 ms, 64 MiB
    /// 6.8 ms; at L=10 (8.4 MB) 4 MiB 0.64 ms, 1 MiB 0.71, 16 MiB 0.66: each chunk costs a wait for
    /// the buffer it reuses, yet the copy and the transfer only overlap with several chunks.
    std::size_t chunk_bytes(std::size_t total_bytes) const {
        if (forced_chunk_bytes_) return *forced_chunk_bytes_;
        return std::clamp(total_bytes / 4, min_chunk_bytes, max_chunk_bytes);
    }
    /// Benchmark knob: a fixed chunk size of at least 8 bytes (the staging buffers grow to it),
    /// or none for the rule above.
    void force_transfer_chunk_bytes(std::optional<std::size_t> bytes);
    /// Device to host: v into host memory that holds v.size() values. Into page-locked memory
    /// in one DMA when no conversion is needed; otherwise through the staging buffers, chunk by chunk.
    template <class T>
    void download(const vector<T>& v, double* host) {
        last_transfer_direct_ = direct_transfer<T>(host);
        if (last_transfer_direct_) {
            ADIMG_CUDA_CHECK(cudaMemcpyAsync(host, v.data(), v.size() * sizeof(T), cudaMemcpyDeviceToHost, stream_));
            ADIMG_CUDA_CHECK(cudaStreamSynchronize(stream_));
            return;
        }
        const std::size_t chunk = chunk_bytes(v.size() * sizeof(T)) / sizeof(T), chunks = (v.size() + chunk - 1) / chunk;
        auto enqueue = [&](std::size_t c) {
            const std::size_t first = c * chunk, count = std::min(chunk, v.size() - first);
            ADIMG_CUDA_CHECK(cudaMemcpyAsync(staging(c), v.data() + first, count * sizeof(T), cudaMemcpyDeviceToHost, stream_));
            ADIMG_CUDA_CHECK(cudaEventRecord(staged_[c % 2], stream_));
        };
        if (chunks > 0) enqueue(0);
        for (std::size_t c = 0; c < chunks; ++c) {
            ADIMG_CUDA_CHECK(cudaEventSynchronize(staged_[c % 2]));
            if (c + 1 < chunks) enqueue(c + 1);
            const std::size_t first = c * chunk, count = std::min(chunk, v.size() - first);
            convert_on_host(reinterpret_cast<const T*>(staging_[c % 2]), host + first, count);
        }
    }
    template <class T>
    void download(const vector<T>& v, std::vector<double>& host) {
        host.resize(v.size());
        download(v, host.data());
    }
    /// Benchmark knob: staging even from page-locked memory (to compare the two paths).
    void force_staged_transfers(bool staged) { force_staged_ = staged; }
    /// Whether the last upload() or download() was one DMA from or into the caller's memory.
    bool last_transfer_direct() const { return last_transfer_direct_; }
    /// Device bytes of a level's matrix: the bands, and their transposed copy once a y-sweep made it.
    template <class T>
    static std::size_t bytes(const matrix<T>& A) { return (A.values.size() + A.transposed.size()) * sizeof(T); }
    /// Device bytes the backend holds besides the levels: the transposed sweeps' scratch vectors
    /// and the per-tile sums of update_defect_norm.
    std::size_t workspace_bytes() const {
        std::size_t total = 0;
        for (const auto& v : std::get<0>(scratch_)) total += v.size() * sizeof(float);
        for (const auto& v : std::get<1>(scratch_)) total += v.size() * sizeof(double);
        return total + tile_sums_.size() * sizeof(double);
    }

    // --- stencil operations -----------------------------------------------------------------
    template <class T>
    void defect(const matrix<T>& A, const vector<T>& b, const vector<T>& x, vector<T>& d) {
        launch("defect kernel", kernels::defect<T>, tiles(A.mx, A.my), block2d(), 0, A.view(), b.data(), x.data(), d.data());
    }
    template <class T>
    void jacobi(const matrix<T>& A, const vector<T>& b, const vector<T>& x_in, vector<T>& x_out, T omega) {
        launch("jacobi kernel", kernels::jacobi<T>, tiles(A.mx, A.my), block2d(), 0, A.view(), b.data(), x_in.data(),
               x_out.data(), omega);
    }
    /// `steps` Jacobi steps from x_in into x_out (x_in is left as is): one by the plain tiled
    /// kernel, two in one pass over memory (kernels::jacobi_steps), whose bands of rows are cut
    /// so that the grid of blocks fills the device once.
    template <class T>
    void jacobi_steps(const matrix<T>& A, const vector<T>& b, const vector<T>& x_in, vector<T>& x_out, T omega,
                      int steps) {
        if (steps == 1) return jacobi(A, b, x_in, x_out, omega);
        if (steps != kernels::max_fused_jacobi_steps)
            throw std::invalid_argument("jacobi_steps: 1 or " + std::to_string(kernels::max_fused_jacobi_steps) +
                                        " steps per pass, not " + std::to_string(steps));
        constexpr int Steps = kernels::max_fused_jacobi_steps;
        const int rows = jacobi_rows_per_block<T>(A);
        launch("jacobi_steps kernel", kernels::jacobi_steps<T, Steps>, dim3(jacobi_strips(A.mx), (A.my + rows - 1) / rows),
               dim3(kernels::jacobi_stream_threads), 0, A.view(), b.data(), x_in.data(), x_out.data(), omega, rows);
    }
    /// The Jacobi steps the V-cycle hands over per call on the grid of A: two in one pass where
    /// the bands of rows are at least 8 rows long (four times the steps), so that the recomputed
    /// edge rows stay a minority; one on smaller grids, where two plain launches beat one fused
    /// pass (measured from L=9 down; bench/PERFORMANCE.md, "Jacobi steps streamed down bands of
    /// rows").
    template <class T>
    int jacobi_steps_per_pass(const matrix<T>& A) {
        constexpr int Steps = kernels::max_fused_jacobi_steps;
        return jacobi_rows_per_block<T>(A) >= 4 * Steps ? Steps : 1;
    }
    template <class T>
    void gauss_seidel(const matrix<T>& A, const vector<T>& b, vector<T>& x) {
        for (int colour = 0; colour < 4; ++colour) {
            const int ci = colour & 1, cj = colour >> 1;
            launch("gauss_seidel_colour kernel", kernels::gauss_seidel_colour<T>, tiles((A.mx + 1) / 2, (A.my + 1) / 2),
                   block2d(), 0, A.view(), b.data(), x.data(), ci, cj);
        }
    }
    /// Lines of up to warp_lines_up_to() unknowns are solved one warp each in registers, y-lines
    /// read in place. Longer x-lines run one per block (partition method or cyclic reduction in
    /// shared memory); longer y-lines either y_lines_per_block<T>() adjacent ones per block, read
    /// in place (narrow grids), or, where that is 0, as x-lines of the transposed grid: b and x_in
    /// are transposed (tiled, coalesced), swept, and the result transposed back (bench/PERFORMANCE.md).
    template <class T>
    void line_relax(const matrix<T>& A, const vector<T>& b, const vector<T>& x_in, vector<T>& x_out, Direction direction,
                    T omega) {
        if ((direction == Direction::x ? A.mx : A.my) <= warp_lines_up_to()) {
            launch_line_relax_warp(A.view(), b.data(), x_in.data(), x_out.data(), omega, direction);
            return;
        }
        if (direction == Direction::x) {
            launch_line_relax(A.view(), b.data(), x_in.data(), x_out.data(), omega, Direction::x, 1);
            return;
        }
        if (const int group = y_lines_per_block<T>(A.my, A.mx); group > 0) {
            launch_line_relax(A.view(), b.data(), x_in.data(), x_out.data(), omega, Direction::y, group);
            return;
        }
        if (A.transposed.size() != A.values.size()) transpose_bands(A);
        const std::size_t n = b.size();
        T* bt = scratch<T>(0, n);
        T* xt = scratch<T>(1, n);
        T* yt = scratch<T>(2, n);
        transpose<T>({{b.data(), bt}, {x_in.data(), xt}}, A.my, A.mx);
        launch_line_relax(A.transposed_view(), bt, xt, yt, omega, Direction::x, 1);
        transpose<T>({{yt, x_out.data()}}, A.mx, A.my);
    }

    /// Solves `batch` tridiagonal systems of n unknowns stored one after another (the layout of
    /// cuSPARSE's gtsv2StridedBatch) in place in x, one block of `threads` per system.
    /// With `chunks` > 0 the systems are solved by the partition method instead
    /// (partitioned_line_solve.hpp), that many chunks per system and `threads` (default: two per
    /// chunk) per block. With neither chunks, threads nor staging given, the method is the line
    /// sweeps' choice (partitioned()).
    template <class T>
    void solve_batch(const vector<T>& dl, const vector<T>& d, const vector<T>& du, vector<T>& x, int n, int batch,
                     int threads = 0, std::optional<CrStaging> staging = {}, int chunks = 0) {
        if (chunks == 0 && !staging && threads == 0 && partitioned<T>(n)) chunks = partition_chunks<T>(n);
        if (chunks > 0) {
            with_partition_slots([&](auto slots) {
                PartitionLayout layout = make_partition_layout<T>(n, chunks, slots, batch_staged_raw<T>());
                if (layout.words() * sizeof(T) > shared_limit_) layout = make_partition_layout<T>(n, chunks, slots);
                with_constant<false, true>(layout.raw, [&](auto raw) {
                    auto kernel = kernels::tridiagonal_batch_partitioned<T, decltype(slots)::value, decltype(raw)::value>;
                    launch("tridiagonal_batch_partitioned kernel", kernel, batch, partition_threads(layout, threads),
                           allow_shared(kernel, layout.words() * sizeof(T)), dl.data(), d.data(), du.data(), x.data(), layout);
                });
            });
            return;
        }
        // Measured fastest for the batch (bench/tridiagonal_bench): the loads are cheap here, so
        // beyond 1025 unknowns the occupancy that O_0 costs is not worth it.
        const CrLayout layout = line_layout<T>(n, staging, n <= 1025 ? CrStaging::all : CrStaging::evens);
        with_staging(layout.staging, [&](auto s) {
            auto kernel = kernels::tridiagonal_batch<T, decltype(s)::value>;
            const std::size_t bytes = allow_shared(kernel, layout.block_words() * sizeof(T));
            launch("tridiagonal_batch kernel", kernel, batch, threads > 0 ? threads : line_threads<T>(n), bytes, dl.data(),
                   d.data(), du.data(), x.data(), layout);
        });
    }

    // --- grid transfer ----------------------------------------------------------------------
    template <class T>
    void restrict_to(const vector<T>& fine, int mx_fine, int my_fine, const vector<T>& split_x, const vector<T>& split_y,
                     vector<T>& coarse) {
        launch("restrict_to kernel", kernels::restrict_to<T>, tiles(mx_fine / 2 + 1, my_fine / 2 + 1), block2d(), 0,
               fine.data(), mx_fine, my_fine, split_x.data(), split_y.data(), coarse.data());
    }
    /// coarse = R (b - A x): the defect restricted, on large grids in one fused pass
    /// (kernels::restrict_defect), else as a defect and a restriction; `d` is scratch for the
    /// latter and is left undefined. Measured on the H200 (bench/PERFORMANCE.md, run at 7c12a52):
    /// fused, float is 7% faster at 2049² and 14% at 4097², double 4% slower at 2049² and 4%
    /// faster at 4097², and both tie or lose below: a block computes four times the defects of an
    /// unfused one, and smaller grids have too few blocks to hide that.
    template <class T>
    void restrict_defect(const matrix<T>& A, const vector<T>& b, const vector<T>& x, vector<T>& d, const vector<T>& split_x,
                         const vector<T>& split_y, vector<T>& coarse) {
        if (!fused_restriction.value_or(A.mx * static_cast<std::size_t>(A.my) >= fused_restriction_from<T>)) {
            defect(A, b, x, d);
            restrict_to(d, A.mx, A.my, split_x, split_y, coarse);
            return;
        }
        launch("restrict_defect kernel", kernels::restrict_defect<T>, tiles(A.mx / 2 + 1, A.my / 2 + 1), block2d(), 0,
               A.view(), b.data(), x.data(), split_x.data(), split_y.data(), coarse.data());
    }
    /// Fine grids of at least this many nodes restrict their defect fused.
    template <class T>
    static constexpr std::size_t fused_restriction_from = sizeof(T) == 4 ? std::size_t(2049) * 2049 : std::size_t(4097) * 4097;
    /// Benchmark knob: when set, restrict_defect() runs fused (true) or unfused (false) on every grid.
    std::optional<bool> fused_restriction;
    template <class T>
    void prolong_add(const vector<T>& coarse, const vector<T>& split_x, const vector<T>& split_y, vector<T>& fine,
                     int mx_fine, int my_fine) {
        launch("prolong_add kernel", kernels::prolong_add<T>, tiles(mx_fine, my_fine), block2d(), 0, coarse.data(),
               split_x.data(), split_y.data(), fine.data(), mx_fine, my_fine);
    }

    /// x_next = x + alpha c and d = b - A x_next in one pass (the refinement loop's update and its
    /// next defect); returns ||d|| (one synchronisation). Saves the passes of an axpy and of the
    /// norm's first reduction over the separate operations.
    template <class X, class C>
    double update_defect_norm(const matrix<X>& A, const vector<X>& b, const vector<X>& x, double alpha, const vector<C>& c,
                              vector<X>& x_next, vector<X>& d) {
        const dim3 grid = tiles(A.mx, A.my);
        const int blocks = static_cast<int>(grid.x * grid.y);
        if (tile_sums_.size() < static_cast<std::size_t>(blocks)) tile_sums_ = DeviceVector<double>(blocks);
        launch("update_defect kernel", kernels::update_defect<X, C>, grid, block2d(), 0, A.view(), b.data(), x.data(), alpha,
               c.data(), x_next.data(), d.data(), tile_sums_.data());
        launch("dot_final kernel", kernels::dot_final, 1, 1024, 0, tile_sums_.data(), blocks, result_.data());
        return std::sqrt(read_result());
    }

    /// x = M b for the dense row-major n x n matrix M (the coarsest grid's inverse), n = b.size().
    template <class T>
    void dense_apply(const vector<double>& M, const vector<T>& b, vector<T>& x) {
        const int n = static_cast<int>(b.size());
        launch("dense_apply kernel", kernels::dense_apply<T>, (n + kernels::dense_rows_per_block - 1) / kernels::dense_rows_per_block,
               32 * kernels::dense_rows_per_block, 0, M.data(), b.data(), x.data(), n);
    }

    // --- vector operations ------------------------------------------------------------------
    template <class T>
    void fill(vector<T>& v, T value) {
        launch("fill kernel", kernels::fill<T>, blocks(v.size()), 256, 0, v.data(), v.size(), value);
    }
    template <class S, class T>
    void axpy(double alpha, const vector<S>& x, vector<T>& y) {
        launch("axpy kernel", kernels::axpy<S, T>, blocks(y.size()), 256, 0, alpha, x.data(), y.data(), y.size());
    }
    template <class T>
    void xpay(const vector<T>& x, double beta, vector<T>& y) {
        launch("xpay kernel", kernels::xpay<T>, blocks(y.size()), 256, 0, x.data(), beta, y.data(), y.size());
    }
    template <class S, class T>
    void scale_convert(double alpha, const vector<S>& src, vector<T>& dst) {
        launch("scale_convert kernel", kernels::scale_convert<S, T>, blocks(dst.size()), 256, 0, alpha, src.data(), dst.data(),
               dst.size());
    }
    template <class T>
    double dot(const vector<T>& x, const vector<T>& y) {
        dot(x, y, result_.data());
        return read_result();
    }
    template <class T>
    double norm2(const vector<T>& x) {
        return std::sqrt(dot(x, x));
    }

    // --- scalars that stay on the device (what keeps PCG free of host round trips) ----------
    /// *out = x·y, written on the device.
    template <class T>
    void dot(const vector<T>& x, const vector<T>& y, double* out) {
        const int count = std::min<int>(partial_count, blocks(x.size()));
        launch("dot_partial kernel", kernels::dot_partial<T>, count, kernels::reduce_threads, 0, x.data(), y.data(), x.size(),
               partial_.data());
        launch("dot_final kernel", kernels::dot_final, 1, 1024, 0, partial_.data(), count, out);
    }
    /// y += sign (num / den) x with the scalars on the device; zero if den is zero.
    template <class T>
    void axpy_ratio(const double* num, const double* den, double sign, const vector<T>& x, vector<T>& y) {
        launch("axpy_ratio kernel", kernels::axpy_ratio<T>, blocks(y.size()), 256, 0, num, den, sign, x.data(), y.data(),
               y.size());
    }
    /// y = x + ((num - num_minus) / den) y with the scalars on the device.
    template <class T>
    void xpay_ratio(const vector<T>& x, const double* num, const double* num_minus, const double* den, vector<T>& y) {
        launch("xpay_ratio kernel", kernels::xpay_ratio<T>, blocks(y.size()), 256, 0, x.data(), num, num_minus, den, y.data(),
               y.size());
    }

    /// Runs `body`, whose work goes to this backend's stream and never waits for the host. The
    /// first call runs it directly (it may allocate: scratch buffers, transposed bands); the
    /// second records it as a CUDA graph; later calls launch that graph, one launch instead of
    /// hundreds. The buffers it uses must stay the same between calls (Multigrid keeps them).
    template <class Body>
    void replay(const void* key, Body&& body) {
        Recording& r = recordings_[key];
        if (r.calls++ == 0 || !graphs_enabled_) {
            body();
            return;
        }
        if (!r.exec) {
            cudaGraph_t graph = nullptr;
            ADIMG_CUDA_CHECK(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeRelaxed));
            try {
                body();
            } catch (...) {
                cudaStreamEndCapture(stream_, &graph);
                if (graph) cudaGraphDestroy(graph);
                throw;
            }
            ADIMG_CUDA_CHECK(cudaStreamEndCapture(stream_, &graph));
            const cudaError_t status = cudaGraphInstantiate(&r.exec, graph, 0);
            cudaGraphDestroy(graph);
            ADIMG_CUDA_CHECK(status);
        }
        ADIMG_CUDA_CHECK(cudaGraphLaunch(r.exec, stream_));
    }
    /// Drops what replay() recorded for `key` (its owner is going away).
    void forget(const void* key);

    /// Layout of `lines` lines of `length` unknowns for one block; throws device_error if one
    /// line does not fit shared memory. The level-0 staging is `forced` if given, else
    /// line_tuning's, else `preferred`, else line_staging()'s; unless forced, it falls back to
    /// none where the choice does not fit.
    template <class T>
    CrLayout line_layout(int length, std::optional<CrStaging> forced = {}, std::optional<CrStaging> preferred = {},
                         int lines = 1) const {
        const CrStaging chosen = forced          ? *forced
                           : line_tuning.staging ? *line_tuning.staging
                           : preferred           ? *preferred
                                                 : line_staging<T>(length);
        CrLayout layout = make_cr_layout(length, sizeof(T), chosen, lines);
        auto bytes = [&] { return layout.block_words() * sizeof(T); };
        if (!forced && bytes() > shared_limit_) layout = make_cr_layout(length, sizeof(T), CrStaging::none, lines);
        if (bytes() > shared_limit_)
            throw device_error("a line of " + std::to_string(length) + " unknowns needs " +
                               std::to_string(bytes() / lines / 1024) + " KiB of shared memory in " +
                               (sizeof(T) == 4 ? "float" : "double") + ", but " + name_ + " gives " +
                               std::to_string(shared_limit_ / 1024) + " KiB per block: the longest line is " +
                               std::to_string(longest_line<T>()) +
                               " unknowns; use a lower level, or the jacobi or gauss-seidel smoother");
        return layout;
    }
    /// Which equations of level 0 the line kernels keep in shared memory, as measured fastest by
    /// bench/kernel_bench (ADI sweeps, L=9 to 12) on the H200: float lines only the evens from
    /// 513 unknowns on (bench/results/h200-2026-11-22/7c12a52, x-sweeps: 0.0106 ms against 0.0121
    /// with all of level 0 at L=9, 0.366 against 0.468 at L=12); double lines all of level 0
    /// wherever it fits, up to 4097 (run at 6601fcc, x-sweeps: 0.185 against 0.217 ms with the
    /// evens at L=11, 0.888 against 1.044 at L=12). Shorter float lines keep all of level 0, which
    /// the batch benchmark favours at 65 and 257. line_layout() falls back to none where the
    /// choice does not fit (double lines of 8193).
    template <class T>
    static CrStaging line_staging(int length) {
        const int all_up_to = sizeof(T) == 4 ? 257 : 4097;
        return length <= all_up_to ? CrStaging::all : CrStaging::evens;
    }
    /// Whether kernels are launched as programmatic dependent launches
    /// (kernels::follow_previous_kernel()): on by default when the device is sm_90 or newer and
    /// the kernels were compiled for it (a build for an older architecture, run through the JIT,
    /// lacks the wait); ADIMG_NO_PDL=1 turns it off. A V-cycle already recorded as a graph keeps
    /// the launches it was recorded with.
    bool programmatic_launch = false;

    /// Benchmark knobs: when set, they replace the measured choices of the line kernels.
    struct LineTuning {
        std::optional<CrStaging> staging;
        std::optional<int> warp_lines_up_to;   ///< 0: every line by cyclic reduction
        std::optional<int> y_lines_per_block;  ///< 1, 2, 4 or 8; 0: y-lines by transposing the grid
        std::optional<int> threads_per_line;   ///< a multiple of 32: instead of line_threads(), or of two per chunk
        std::optional<int> partitioned_from;   ///< lines of at least this many unknowns by the partition method
        std::optional<int> partition_chunks;   ///< chunks per line of the partition method
        std::optional<int> partition_slots;    ///< equations per lane of its warp: 2 or 8
        std::optional<bool> batch_staged_raw;  ///< solve_batch's partition method: systems staged by cp.async
    } line_tuning;
    /// Whether solve_batch's partition method stages each system as it is, by asynchronous
    /// copies, and normalises it in shared memory (partitioned_line_solve.hpp, RawLine), where
    /// that fits; otherwise each thread loads and normalises its equations one at a time.
    /// Measured in one run on the H200 at f91e8aa (bench/PERFORMANCE.md, "Systems staged raw by
    /// cp.async"): double systems gain (4097²: 0.3699 against 0.4617 ms), float ones do not
    /// (4097²: 0.1549 against 0.1540; 1025²: 0.0092 against 0.0077; 8193²: 0.8086 against
    /// 0.6408), the fourth array costing them blocks per SM.
    template <class T>
    bool batch_staged_raw() const {
        return line_tuning.batch_staged_raw.value_or(sizeof(T) == 8);
    }
    /// Adjacent y-lines of `length` unknowns, on a grid of `columns` columns, solved by one
    /// cyclic-reduction block in place; 0: the grid is transposed instead. Grids of fewer than
    /// 256 columns are launch-bound and sweep in place (one launch instead of three), float 4
    /// lines per block, double 1. Wider grids transpose: in place, the strided rows of long
    /// columns cost more than the transposes (y-sweep at L=10: 0.0505 against 0.0418 ms in
    /// float, bench/PERFORMANCE.md, "y-lines in place, several lines per block"), and since the
    /// partition method solves lines from 257 unknowns, the transposed grid's x-lines beat the
    /// in-place cyclic reduction at 257 and 513 too (V-cycles at 0cf4e1b, float: L=10 0.5026
    /// against 0.5386 ms; "Float y-lines of 257 and 513 transposed"). The count is halved until one
    /// line's buffer with no level-0 staging fits shared memory that many times.
    template <class T>
    int y_lines_per_block(int length, int columns) const {
        int lines = line_tuning.y_lines_per_block.value_or(columns < transposed_from ? (sizeof(T) == 4 ? 4 : 1) : 0);
        lines = std::min(lines, cr_max_lines_per_block);
        while (lines > 1 && make_cr_layout(length, sizeof(T), CrStaging::none, lines).block_words() * sizeof(T) > shared_limit_)
            lines /= 2;
        return lines;
    }
    /// Grids with fewer columns than this sweep their y-lines in place.
    static constexpr int transposed_from = 256;
    /// Lines up to this length are solved one warp each (warp_line_solve.hpp), longer ones by
    /// the shared-memory cyclic reduction. The default is the fastest V-cycle measured on the
    /// H200 (kernel_bench, A2, L=10, one run, bench/results/h200-2026-11-22/b2d2259): float
    /// 0.621 ms with every line by cyclic reduction, 0.610 with warps up to 129 unknowns, 0.621
    /// up to 257, 0.682 up to 513; double 0.998, 0.981, 1.006, 1.157. From 257 unknowns on, a
    /// lane's serial Thomas part and its registers cost more than the barriers saved.
    int warp_lines_up_to() const {
        return std::min(line_tuning.warp_lines_up_to.value_or(default_warp_lines_up_to), warp_line_max);
    }
    static constexpr int default_warp_lines_up_to = 129;

    /// Lines of at least this many unknowns (that fit shared memory) are solved by the partition
    /// method (partitioned_line_solve.hpp), shorter ones by cyclic reduction or one warp. Measured
    /// on the H200 (bench/PERFORMANCE.md, "Long lines by the partition method", run at 6af9f8d):
    /// faster than cyclic reduction for every line of 1025 unknowns or more in both precisions,
    /// in the batch and in both sweeps (x-sweep at L=10: float 0.0232 against 0.0285 ms, double
    /// 0.0390 against 0.0493; at L=12 0.304 against 0.362 and 0.672 against 0.888). Since its
    /// chunk loops read ahead (d0ea159), lines of 257 and 513 gain too: whole V-cycles (A2, ADI
    /// 4+4) from 257 against from 1025 (d0ea159; the double rows again at 429fc83): L=10 float
    /// 0.5421 against 0.5609 ms, double 0.7376 against 0.7828; L=11 1.3975 / 1.4159 and 2.2099 /
    /// 2.2552; L=12 4.7513 / 4.7707 and 8.8957 / 8.9425 (bench/PERFORMANCE.md, "The partition
    /// method from 257").
    template <class T>
    bool partitioned(int length) const {
        return length >= line_tuning.partitioned_from.value_or(default_partitioned_from) &&
               make_partition_layout<T>(length, partition_chunks<T>(length), partition_warp_slots()).words() * sizeof(T) <=
                   shared_limit_;
    }
    static constexpr int default_partitioned_from = 257;
    /// Chunks per line of the partition method (two threads each, partition_threads()): 128 up
    /// to 1025 unknowns (float: up to 2049), 256 beyond, the fastest sweeps of the same run.
    template <class T>
    int partition_chunks(int length) const {
        if (line_tuning.partition_chunks) return *line_tuning.partition_chunks;
        return length <= (sizeof(T) == 4 ? 2049 : 1025) ? 128 : 256;
    }

    /// Threads per line, as measured fastest by bench/tridiagonal_bench on the H200: 128 (float)
    /// or 256 (double) up to 1025 unknowns, 256 or 512 up to 2049, 512 beyond; fewer for short lines.
    template <class T>
    static int line_threads(int length) {
        const int cap = length <= 1025   ? (sizeof(T) == 4 ? 128 : 256)
                        : length <= 2049 ? (sizeof(T) == 4 ? 256 : 512)
                                         : kernels::max_line_threads;
        return std::clamp(1 << static_cast<int>(std::ceil(std::log2(std::max(length / 2, 1)))), 32, cap);
    }

private:
    /// kernel<<<grid, block, shared_bytes, stream_>>>(args...), as a programmatic dependent launch
    /// if programmatic_launch is set; launch errors are reported naming `what`.
    template <class... Params, class... Args>
    void launch(const char* what, void (*kernel)(Params...), dim3 grid, dim3 block, std::size_t shared_bytes, Args... args) {
        cudaLaunchAttribute attribute{};
        attribute.id = cudaLaunchAttributeProgrammaticStreamSerialization;
        attribute.val.programmaticStreamSerializationAllowed = 1;
        cudaLaunchConfig_t config{};
        config.gridDim = grid;
        config.blockDim = block;
        config.dynamicSmemBytes = shared_bytes;
        config.stream = stream_;
        config.attrs = &attribute;
        config.numAttrs = programmatic_launch ? 1 : 0;
        const cudaError_t status = cudaLaunchKernelEx(&config, kernel, args...);
        (void)cudaGetLastError();  // clear it here, so that no later launch reports it as its own
        cuda_check(status, what, __FILE__, __LINE__);
    }
    /// Calls f(std::integral_constant<decltype(value), c>) for the one of `Choices` that equals
    /// `value`, so that each choice is a kernel of its own (a template argument); returns false
    /// if none does.
    template <auto... Choices, class V, class F>
    static bool with_constant(V value, F&& f) {
        return ((value == Choices ? (f(std::integral_constant<decltype(Choices), Choices>{}), true) : false) || ...);
    }
    /// Strips of columns of kernels::jacobi_steps on a grid of mx columns.
    static int jacobi_strips(int mx) {
        constexpr int width = kernels::jacobi_stream_threads - 2 * kernels::max_fused_jacobi_steps;
        return (mx + width - 1) / width;
    }
    /// Rows per block of kernels::jacobi_steps: as many bands of rows as fill every SM once with
    /// the strips of columns (a block streams its rows, so one wave keeps the loads in flight).
    template <class T>
    int jacobi_rows_per_block(const matrix<T>& A) {
        const auto kernel = kernels::jacobi_steps<T, kernels::max_fused_jacobi_steps>;
        auto [known, fresh] = blocks_per_sm_.try_emplace(reinterpret_cast<const void*>(kernel), 0);
        if (fresh)
            ADIMG_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&known->second, kernel,
                                                                           kernels::jacobi_stream_threads, 0));
        const int bands = std::max(1, multiprocessors_ * std::max(known->second, 1) / jacobi_strips(A.mx));
        return (A.my + bands - 1) / bands;
    }
    /// Threads of a partition-method block: `asked`, or two per chunk (the loads and stores use
    /// them all, the chunks one each); a whole number of warps, since warp 0 solves the coupling
    /// system with all its lanes.
    static int partition_threads(const PartitionLayout& layout, int asked) {
        const int threads = asked > 0 ? asked : 2 * layout.line.count;
        return std::clamp((threads + warp_lanes - 1) / warp_lanes * warp_lanes, warp_lanes, 2 * partition_max_chunks);
    }
    /// with_constant() over the equations per lane that the partition method's warp holds.
    template <class F>
    void with_partition_slots(F&& f) const {
        const int slots = partition_warp_slots();
        if (!with_constant<2, 8>(slots, f))
            throw std::invalid_argument("partition method: 2 or 8 equations per lane, not " + std::to_string(slots));
    }
    int partition_warp_slots() const { return line_tuning.partition_slots.value_or(default_partition_slots); }
    /// Two: the coupling system by a second level in warp 0, which beat 8 slots in registers
    /// in every sweep and batch of 1025 unknowns or more (same run).
    static constexpr int default_partition_slots = 2;
    /// with_constant() over the three level-0 stagings of the cyclic reduction.
    template <class F>
    static void with_staging(CrStaging staging, F&& f) {
        with_constant<CrStaging::all, CrStaging::evens, CrStaging::none>(staging, f);
    }
    /// One line sweep on the grid of `A` by cyclic reduction, `lines` (1, 2, 4 or 8) lines per block.
    template <class T>
    void launch_line_relax(BandsView<T> A, const T* b, const T* x_in, T* x_out, T omega, Direction direction, int lines) {
        const bool along_x = direction == Direction::x;
        const int length = along_x ? A.mx : A.my, count = along_x ? A.my : A.mx;
        if (lines == 1 && partitioned<T>(length)) {
            with_partition_slots([&](auto slots) {
                const PartitionLayout layout = make_partition_layout<T>(length, partition_chunks<T>(length), slots);
                auto kernel = kernels::line_relax_partitioned<T, decltype(slots)::value>;
                launch("line_relax_partitioned kernel", kernel, count,
                       partition_threads(layout, line_tuning.threads_per_line.value_or(0)),
                       allow_shared(kernel, layout.words() * sizeof(T)), A, b, x_in, x_out, direction, omega, layout);
            });
            return;
        }
        const CrLayout layout = line_layout<T>(length, {}, {}, lines);
        const int per_line = line_tuning.threads_per_line.value_or(line_threads<T>(length));
        const int threads = std::min(per_line, kernels::max_line_threads / lines) * lines;
        with_staging(layout.staging, [&](auto s) {
            const bool launched = with_constant<1, 2, 4, 8>(lines, [&](auto g) {
                auto kernel = kernels::line_relax<T, decltype(s)::value, decltype(g)::value>;
                const std::size_t bytes = allow_shared(kernel, layout.block_words() * sizeof(T));
                launch("line_relax kernel", kernel, (count + lines - 1) / lines, threads, bytes, A, b, x_in, x_out, direction,
                       omega, layout);
            });
            if (!launched) throw std::logic_error("no line kernel for " + std::to_string(lines) + " lines per block");
        });
    }
    /// One line sweep with a warp per line, in place for either direction.
    template <class T>
    void launch_line_relax_warp(BandsView<T> A, const T* b, const T* x_in, T* x_out, T omega, Direction direction) {
        const bool along_x = direction == Direction::x;
        const int length = along_x ? A.mx : A.my, lines = along_x ? A.my : A.mx;
        const dim3 grid((lines + kernels::warps_per_line_block - 1) / kernels::warps_per_line_block);
        const dim3 block(kernels::warps_per_line_block * warp_lanes);
        auto run = [&](auto slots) {
            launch("line_relax_warp kernel", kernels::line_relax_warp<T, decltype(slots)::value>, grid, block, 0, A, b, x_in,
                   x_out, direction, omega);
        };
        if (!with_constant<1, 2, 3, 5, 9, 17>(warp_line_slots(length), run))
            throw std::logic_error("no warp line kernel for " + std::to_string(length) + " unknowns");
    }
    /// out (cols x rows) = in (rows x cols) transposed, for every (in, out) pair, in one launch.
    template <class T>
    void transpose(std::initializer_list<std::pair<const T*, T*>> arrays, int rows, int cols) {
        kernels::TransposePairs<T> pairs{};
        int count = 0;
        for (auto [in, out] : arrays) {
            pairs.in[count] = in;
            pairs.out[count++] = out;
        }
        launch("transpose kernel", kernels::transpose<T>,
               dim3((cols + kernels::tile_x - 1) / kernels::tile_x, (rows + kernels::tile_x - 1) / kernels::tile_x, count),
               block2d(), 0, pairs, rows, cols);
    }
    /// Band (dx, dy) of the grid becomes band (dy, dx) of the transposed grid.
    template <class T>
    void transpose_bands(const matrix<T>& A) {
        if (A.transposed.size() != A.values.size()) A.transposed = vector<T>(A.values.size());
        const std::size_t n = static_cast<std::size_t>(A.mx) * A.my;
        auto band = [&](int k) {
            return std::pair<const T*, T*>{A.values.data() + k * n, A.transposed.data() + band_index(band_dy(k), band_dx(k)) * n};
        };
        transpose<T>({band(0), band(1), band(2), band(3), band(4), band(5), band(6), band(7), band(8)}, A.my, A.mx);
    }
    /// Scratch vectors for the transposed sweeps, kept at the largest size asked for.
    template <class T>
    T* scratch(int slot, std::size_t n) {
        DeviceVector<T>& v = std::get<std::array<DeviceVector<T>, 3>>(scratch_)[slot];
        if (v.size() < n) v = DeviceVector<T>(n);
        return v.data();
    }

    static dim3 block2d() { return dim3(kernels::tile_x, kernels::tile_y); }
    static dim3 tiles(int nx, int ny) {
        return dim3((nx + kernels::tile_x - 1) / kernels::tile_x, (ny + kernels::tile_y - 1) / kernels::tile_y);
    }
    int blocks(std::size_t n) const { return static_cast<int>(std::clamp<std::size_t>((n + 255) / 256, 1, 4 * 1024)); }
    /// The dynamic shared memory of a cyclic-reduction launch. Above the default 48 KiB the
    /// kernel's limit must be raised first; it is raised to the device maximum once per kernel.
    /// Kernels are told apart by address, because every translation unit that launches a kernel
    /// template holds its own copy of the kernel.
    template <class Kernel>
    std::size_t allow_shared(Kernel kernel, std::size_t bytes) {
        if (bytes > 48 * 1024 && raised_.insert(reinterpret_cast<const void*>(kernel)).second)
            ADIMG_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                                  static_cast<int>(shared_limit_)));
        return bytes;
    }
    /// Brings result_ to the host: the one synchronisation of a reduction.
    double read_result();
    /// A transfer that the DMA engines can do straight from or into the caller's memory: the
    /// device holds the same type (double) and the memory is page-locked.
    template <class T>
    bool direct_transfer(const void* host) const {
        return std::is_same_v<T, double> && !force_staged_ && is_pinned(host);
    }
    static void check_transfer_size(std::size_t n, std::size_t room) {
        if (n != room)
            throw std::logic_error("upload of " + std::to_string(n) + " values into a device vector of " + std::to_string(room));
    }
    /// Staging buffer c % 2, once the transfer that last used it has finished.
    char* staging(std::size_t c) {
        ADIMG_CUDA_CHECK(cudaEventSynchronize(staged_[c % 2]));
        return staging_[c % 2];
    }

    struct Recording {
        int calls = 0;
        cudaGraphExec_t exec = nullptr;
    };
    std::map<const void*, Recording> recordings_;
    std::set<const void*> raised_;  // kernels whose shared-memory limit is raised
    std::map<const void*, int> blocks_per_sm_;  // resident blocks per SM of a kernel, by address
    bool graphs_enabled_ = true;  // ADIMG_NO_GRAPHS=1 turns replay into plain launches (for comparisons)

    static constexpr std::size_t min_chunk_bytes = std::size_t(4) << 20, max_chunk_bytes = std::size_t(16) << 20;
    std::size_t staging_bytes_ = max_chunk_bytes;  // each of the two pinned buffers
    std::optional<std::size_t> forced_chunk_bytes_;
    bool force_staged_ = false;
    bool last_transfer_direct_ = false;
    char* staging_[2] = {nullptr, nullptr};  // pinned
    cudaEvent_t staged_[2] = {nullptr, nullptr};

    static constexpr int partial_count = 1024;
    std::string name_;
    cudaStream_t stream_ = nullptr;
    std::size_t shared_limit_ = 0;
    int multiprocessors_ = 0;
    DeviceVector<double> partial_;
    DeviceVector<double> tile_sums_;  // update_defect_norm's partial sums, one per tile
    DeviceVector<double> result_;
    double* host_result_ = nullptr;  // pinned
    std::tuple<std::array<DeviceVector<float>, 3>, std::array<DeviceVector<double>, 3>> scratch_;
};

}  // namespace adimg

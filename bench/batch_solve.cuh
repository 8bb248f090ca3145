#pragma once
// A batch of independent tridiagonal systems solved by the line solvers of src/lines, for the
// comparison with cuSPARSE (tridiagonal_bench) and its correctness test: system s has its
// diagonals at offset s * n in dl, d, du and its right-hand side in x, which receives the
// solution (gtsv2StridedBatch's layout). The solver itself sweeps grid lines instead
// (src/cuda/line_sweeps.cuh); these kernels exist for the comparison alone.

#include "../src/cuda/cuda_backend.cuh"
#include "../src/cuda/kernels/line_sweeps.cuh"

#include <optional>
#include <stdexcept>
#include <string>

namespace adimg::kernels {

/// Solves a batch of independent tridiagonal systems (for the comparison with cuSPARSE):
/// system s has its diagonals at offset s * n in dl, d, du and its right-hand side in x, which
/// receives the solution (gtsv2StridedBatch's layout). In place is safe with every staging: the
/// only phase that writes x is the last, and there each thread reads (the even equation it
/// solves, without E_0) only the entry it then writes.
template <class T, CrStaging S>
__global__ void __launch_bounds__(1024)
    tridiagonal_batch(const T* __restrict__ dl, const T* __restrict__ d, const T* __restrict__ du, T* x,
                      const __grid_constant__ CrLayout layout) {
    follow_previous_kernel();
    extern __shared__ unsigned char raw_shared[];
    T* shared = reinterpret_cast<T*>(raw_shared);
    const std::size_t base = static_cast<std::size_t>(blockIdx.x) * layout.n;
    BlockPhases<1> phase;
    auto load = [&](int, int r) { return cr_normalise(dl[base + r], d[base + r], du[base + r], x[base + r]); };
    auto store = [&](int, int r, T value) { x[base + r] = value; };
    cyclic_reduction<T>(layout, std::integral_constant<CrStaging, S>{}, shared, phase, load, store);
}

/// The batch of tridiagonal_batch() by the partition method, one system per block; `Raw`: each
/// system staged as it is by cp.async (the layout must be raw), else loaded per equation. Two
/// kernels, not one with a branch: the float one loading per equation needs 32 registers alone,
/// 39 with the staging compiled in.
template <class T, int Slots, bool Raw>
__global__ void __launch_bounds__(2 * partition_max_chunks)
    tridiagonal_batch_partitioned(const T* __restrict__ dl, const T* __restrict__ d, const T* __restrict__ du, T* x,
                                  PartitionLayout layout) {
    follow_previous_kernel();
    extern __shared__ unsigned char raw_shared[];
    T* shared = reinterpret_cast<T*>(raw_shared);
    const std::size_t base = static_cast<std::size_t>(blockIdx.x) * layout.n;
    BlockPartition exec;
    auto store = [&](int r, T value) { x[base + r] = value; };
    if constexpr (Raw)
        partitioned_line_solve<Slots, T>(layout, shared, exec, RawLine<T>{dl + base, d + base, du + base, x + base}, store);
    else
        partitioned_line_solve<Slots, T>(
            layout, shared, exec, [&](int r) { return cr_normalise(dl[base + r], d[base + r], du[base + r], x[base + r]); },
            store);
}

}  // namespace adimg::kernels

namespace adimg::bench {

/// How solve_batch() solves: with nothing set, the line sweeps' choice for lines of n unknowns.
struct BatchChoice {
    int threads = 0;                   ///< threads per system (0: the sweeps' rule)
    std::optional<CrStaging> staging;  ///< cyclic reduction with this level-0 staging
    int chunks = 0;                    ///< > 0: the partition method with this many chunks per system
    int slots = 2;                     ///< the partition method's equations per lane: 2 or 8
    /// The partition method stages each system as it is by asynchronous copies and normalises it
    /// in shared memory (where that fits; else loads per equation): the default for double,
    /// whose systems gain; float ones do not, the fourth array costing them blocks per SM.
    std::optional<bool> staged_raw;
};

template <class T>
void solve_batch(CudaBackend& be, const DeviceVector<T>& dl, const DeviceVector<T>& d, const DeviceVector<T>& du,
                 DeviceVector<T>& x, int n, int batch, BatchChoice choice = {}) {
    Launcher& launch = be.launcher();
    const LineSweeps& lines = be.lines();
    if (choice.chunks == 0 && !choice.staging && choice.threads == 0 && lines.partitioned<T>(n))
        choice.chunks = lines.partition_chunks<T>(n);
    if (choice.chunks > 0) {
        const bool slots_known = Launcher::with_constant<2, 8>(choice.slots, [&](auto slots) {
            PartitionLayout layout = make_partition_layout<T>(n, choice.chunks, slots, choice.staged_raw.value_or(sizeof(T) == 8));
            if (layout.words() * sizeof(T) > launch.shared_limit()) layout = make_partition_layout<T>(n, choice.chunks, slots);
            Launcher::with_constant<false, true>(layout.raw, [&](auto raw) {
                auto kernel = kernels::tridiagonal_batch_partitioned<T, decltype(slots)::value, decltype(raw)::value>;
                launch("tridiagonal_batch_partitioned kernel", kernel, batch, LineSweeps::partition_threads(layout, choice.threads),
                       launch.allow_shared(kernel, layout.words() * sizeof(T)), dl.data(), d.data(), du.data(), x.data(), layout);
            });
        });
        if (!slots_known) throw std::invalid_argument("partition method: 2 or 8 equations per lane, not " + std::to_string(choice.slots));
        return;
    }
    // The loads are cheap here, so beyond 1025 unknowns the occupancy that all of level 0 costs
    // is not worth it.
    const CrLayout layout = lines.line_layout<T>(n, choice.staging, n <= 1025 ? CrStaging::all : CrStaging::evens);
    LineSweeps::with_staging(layout.staging, [&](auto s) {
        auto kernel = kernels::tridiagonal_batch<T, decltype(s)::value>;
        const std::size_t bytes = launch.allow_shared(kernel, layout.block_words() * sizeof(T));
        launch("tridiagonal_batch kernel", kernel, batch, choice.threads > 0 ? choice.threads : LineSweeps::line_threads<T>(n),
               bytes, dl.data(), d.data(), du.data(), x.data(), layout);
    });
}

}  // namespace adimg::bench

// The floors under any sequence of kernels on this GPU, measured in one process:
//
// - how long one pass over a given number of bytes takes at the least (a copy kernel of that
//   size, 16 bytes per load and store: the time no kernel that reads and writes as much beats),
//   for the byte counts of a line sweep at levels 8-12 in float and double;
// - what one dependent step costs, where each step reads what another block wrote in the step
//   before: as kernels launched one after another in a CUDA graph (plain, and as programmatic
//   dependent launches as the backend does), as the grid-wide barriers of one persistent
//   cooperative kernel, as cluster barriers (distributed shared memory), and as block barriers.
//
// docs/performance.md ("Mixed vs double at L=10: the latency budget") uses them to bound what a
// different design of the coarse levels (persistent or cluster kernels) could gain.
//
//   floor_bench [--steps 400]

#include "gpu_timer.cuh"

#include "../src/cuda/kernels/launch.cuh"

#include <cooperative_groups.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>
#include <vector>

namespace cg = cooperative_groups;
using namespace adimg;

namespace {

constexpr int threads = 256;

/// dst = src, n 16-byte words, every thread a strided share: the plainest pass over the bytes.
__global__ void copy_kernel(const int4* __restrict__ src, int4* __restrict__ dst, std::size_t n) {
    ADIMG_GRID_STRIDE(i, n) dst[i] = src[i];
}

/// One dependent step of a chain of kernels: block b reads the word block b+1 wrote in the step
/// before and writes its own, so every step depends on another SM's write (through L2).
__global__ void step_kernel(unsigned* words, int step) {
    kernels::follow_previous_kernel();  // as every kernel of the backend starts
    const unsigned blocks = gridDim.x, b = blockIdx.x;
    unsigned* read = words + (step & 1) * blocks;
    unsigned* write = words + ((step + 1) & 1) * blocks;
    if (threadIdx.x == 0) write[b] = read[(b + 1) % blocks] + 1;
}

/// The same chain of `steps` steps inside one cooperative kernel, a grid-wide barrier between steps.
__global__ void grid_barrier_kernel(unsigned* words, int steps) {
    cg::grid_group grid = cg::this_grid();
    const unsigned blocks = gridDim.x, b = blockIdx.x;
    for (int step = 0; step < steps; ++step) {
        volatile unsigned* read = words + (step & 1) * blocks;
        unsigned* write = words + ((step + 1) & 1) * blocks;
        if (threadIdx.x == 0) write[b] = read[(b + 1) % blocks] + 1;
        grid.sync();
    }
}

/// The chain among the blocks of each cluster: block r reads block r+1's shared word (distributed
/// shared memory), a cluster barrier between steps.
__global__ void cluster_barrier_kernel(unsigned* out, int steps) {
    __shared__ unsigned word[2];
    cg::cluster_group cluster = cg::this_cluster();
    const unsigned size = cluster.num_blocks(), rank = cluster.block_rank();
    if (threadIdx.x == 0) word[0] = word[1] = rank;
    cluster.sync();
    for (int step = 0; step < steps; ++step) {
        if (threadIdx.x == 0) {
            const unsigned* peer = cluster.map_shared_rank(word, (rank + 1) % size);
            word[(step + 1) & 1] = peer[step & 1] + 1;
        }
        cluster.sync();
    }
    if (threadIdx.x == 0) out[blockIdx.x] = word[steps & 1];
}

/// The chain among the warps of a block, a block barrier between steps.
__global__ void block_barrier_kernel(unsigned* out, int steps) {
    __shared__ unsigned word[2][threads / 32];
    const unsigned warps = blockDim.x / 32, w = threadIdx.x / 32;
    if (threadIdx.x % 32 == 0) word[0][w] = word[1][w] = w;
    __syncthreads();
    for (int step = 0; step < steps; ++step) {
        if (threadIdx.x % 32 == 0) word[(step + 1) & 1][w] = word[step & 1][(w + 1) % warps] + 1;
        __syncthreads();
    }
    if (threadIdx.x == 0) out[blockIdx.x] = word[steps & 1][0];
}

struct Row {
    std::string what;
    double us_per_step;
};

/// Microseconds per step of a graph of `steps` step_kernel launches on `blocks` blocks.
double graph_of_launches(cudaStream_t stream, unsigned* words, int blocks, int steps, bool programmatic) {
    cudaLaunchAttribute attribute{};
    attribute.id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attribute.val.programmaticStreamSerializationAllowed = 1;
    cudaLaunchConfig_t config{};
    config.gridDim = dim3(blocks);
    config.blockDim = dim3(threads);
    config.stream = stream;
    config.attrs = &attribute;
    config.numAttrs = programmatic ? 1 : 0;
    cudaGraph_t graph;
    ADIMG_CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
    for (int s = 0; s < steps; ++s) ADIMG_CUDA_CHECK(cudaLaunchKernelEx(&config, step_kernel, words, s));
    ADIMG_CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
    cudaGraphExec_t exec;
    ADIMG_CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
    const double ms = bench::median_ms(stream, 7, 5, [&] { ADIMG_CUDA_CHECK(cudaGraphLaunch(exec, stream)); });
    cudaGraphExecDestroy(exec);
    cudaGraphDestroy(graph);
    return ms * 1e3 / steps;
}

/// Microseconds per grid-wide barrier of one cooperative kernel on `blocks` blocks.
double grid_barriers(cudaStream_t stream, unsigned* words, int blocks, int steps) {
    void* args[] = {&words, &steps};
    const double ms = bench::median_ms(stream, 7, 5, [&] {
        ADIMG_CUDA_CHECK(cudaLaunchCooperativeKernel((void*)grid_barrier_kernel, dim3(blocks), dim3(threads), args, 0, stream));
    });
    return ms * 1e3 / steps;
}

/// Microseconds per cluster barrier, clusters of `size` blocks covering `blocks` blocks; 0 if the
/// device cannot hold a cluster of that size.
double cluster_barriers(cudaStream_t stream, unsigned* out, int blocks, int size, int steps) {
    ADIMG_CUDA_CHECK(cudaFuncSetAttribute(cluster_barrier_kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
    cudaLaunchAttribute attribute{};
    attribute.id = cudaLaunchAttributeClusterDimension;
    attribute.val.clusterDim.x = size;
    attribute.val.clusterDim.y = attribute.val.clusterDim.z = 1;
    cudaLaunchConfig_t config{};
    config.gridDim = dim3(blocks / size * size);
    config.blockDim = dim3(threads);
    config.stream = stream;
    config.attrs = &attribute;
    config.numAttrs = 1;
    int clusters = 0;
    if (cudaOccupancyMaxActiveClusters(&clusters, cluster_barrier_kernel, &config) != cudaSuccess || clusters == 0) {
        (void)cudaGetLastError();
        return 0.0;
    }
    const double ms = bench::median_ms(stream, 7, 5, [&] {
        ADIMG_CUDA_CHECK(cudaLaunchKernelEx(&config, cluster_barrier_kernel, out, steps));
    });
    return ms * 1e3 / steps;
}

/// Microseconds per block barrier.
double block_barriers(cudaStream_t stream, unsigned* out, int blocks, int steps) {
    const double ms = bench::median_ms(stream, 7, 5, [&] {
        block_barrier_kernel<<<blocks, threads, 0, stream>>>(out, steps);
        ADIMG_CUDA_CHECK_LAUNCH("block_barrier_kernel");
    });
    return ms * 1e3 / steps;
}

/// The benchmark; main() turns a device error into a message and exit status 3.
int run(int argc, char** argv) {
    int steps = 400;
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--steps") == 0 && i + 1 < argc) {
            steps = std::atoi(argv[++i]);
        } else {
            std::fprintf(stderr, "usage: floor_bench [--steps N]   (N dependent steps per timed sample, at least 10)\n");
            return 2;
        }
    }
    if (steps < 10) {
        std::fprintf(stderr, "floor_bench: --steps must be at least 10 (got %d)\n", steps);
        return 2;
    }
    int devices = 0, sms = 0;
    cudaDeviceProp prop{};
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
        std::fprintf(stderr, "floor_bench: no CUDA device\n");
        return 1;
    }
    ADIMG_CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
    sms = prop.multiProcessorCount;
    cudaStream_t stream;
    ADIMG_CUDA_CHECK(cudaStreamCreate(&stream));

    std::printf("# Floors on %s (sm_%d%d, %d SMs, L2 %d MB)\n\n", prop.name, prop.major, prop.minor, sms,
                prop.l2CacheSize >> 20);
    const double bandwidth = bench::copy_bandwidth(stream);
    std::printf("copy bandwidth (read + write, 1 GiB): %.0f GB/s\n\n", bandwidth * 1e-9);

    // One pass over the bytes of a line sweep (12 words per unknown), as a copy of half of them.
    int copy_blocks = 0;
    ADIMG_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&copy_blocks, copy_kernel, threads, 0));
    copy_blocks *= sms;
    std::printf("| L | precision | bytes of a line sweep (MB) | copy kernel of that size ms | of the 1 GiB copy bandwidth |\n");
    std::printf("|---|---|---|---|---|\n");
    for (int level = 8; level <= 12; ++level) {
        const double n = double((1 << level) + 1) * double((1 << level) + 1);
        for (int word : {4, 8}) {
            const std::size_t words16 = std::size_t(12 * word * n) / 32, bytes = 32 * words16;
            DeviceVector<int4> a(words16), b(words16);
            const double ms = bench::median_ms(stream, 7, 20, [&] {
                copy_kernel<<<copy_blocks, threads, 0, stream>>>(a.data(), b.data(), words16);
                ADIMG_CUDA_CHECK_LAUNCH("copy_kernel");
            });
            std::printf("| %d | %s | %.1f | %.4f | %.0f%% |\n", level, word == 4 ? "float" : "double", bytes * 1e-6, ms,
                        100.0 * bytes / (ms * 1e-3) / bandwidth);
        }
    }

    int cooperative = 0, per_sm = 0;
    ADIMG_CUDA_CHECK(cudaDeviceGetAttribute(&cooperative, cudaDevAttrCooperativeLaunch, 0));
    ADIMG_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, grid_barrier_kernel, threads, 0));
    DeviceVector<unsigned> words(2 * std::size_t(sms) * per_sm);

    std::vector<Row> rows;
    for (int blocks_per_sm : {1, per_sm}) {
        const int blocks = sms * blocks_per_sm;
        const std::string on = " (" + std::to_string(blocks) + " blocks of " + std::to_string(threads) + ")";
        rows.push_back({"kernel launches in a graph" + on, graph_of_launches(stream, words.data(), blocks, steps, false)});
        rows.push_back({"programmatic dependent launches in a graph" + on,
                        graph_of_launches(stream, words.data(), blocks, steps, true)});
        if (cooperative) rows.push_back({"grid-wide barriers, one cooperative kernel" + on, grid_barriers(stream, words.data(), blocks, steps)});
        if (blocks_per_sm == 1) {
            for (int size : {2, 4, 8, 16})  // as many whole clusters as the blocks make
                rows.push_back({"cluster barriers, clusters of " + std::to_string(size) + " (" +
                                    std::to_string(blocks / size * size) + " blocks of " + std::to_string(threads) + ")",
                                cluster_barriers(stream, words.data(), blocks, size, steps)});
            rows.push_back({"block barriers" + on, block_barriers(stream, words.data(), blocks, steps)});
        }
    }
    std::printf("\nOne dependent step (each block reads what another block wrote in the step before), %d steps per sample:\n\n", steps);
    std::printf("| step | µs per step |\n|---|---|\n");
    for (const Row& r : rows) {
        if (r.us_per_step > 0)
            std::printf("| %s | %.3f |\n", r.what.c_str(), r.us_per_step);
        else
            std::printf("| %s | does not fit on this device |\n", r.what.c_str());
    }
    ADIMG_CUDA_CHECK(cudaStreamDestroy(stream));
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    try {
        return run(argc, argv);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "floor_bench: %s\n", e.what());
        return 3;
    }
}

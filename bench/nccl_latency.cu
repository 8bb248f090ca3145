// The latency of the GPU ranks' messages (src/distributed/nccl_transport.cuh), the inputs of the
// per-V-cycle exchange model in docs/performance.md: a halo exchange of one grid row with each
// neighbour, an 8-byte all-reduce and the all-gather of a y-line sweep's coupling equations
// (6 words a line), each eager (the host enqueues every operation) and recorded in a CUDA graph,
// as a V-cycle is. Back to back, an operation finds the other rank already waiting; in a cycle it
// follows a kernel that fills the GPU on each rank, so the last rows also give what an exchange
// adds after such a kernel: (kernel + exchange) - (kernel alone), both in graphs.
//
//   mpirun -np P nccl_latency [MX ...]     (one rank a GPU; MX default 4097 8193 16385)
//
// Rank 0 prints one Markdown row per operation and size: microseconds per operation.

#include "distributed/communicator.hpp"
#include "distributed/nccl_transport.cuh"

#include "cuda/device_memory.cuh"

#include <mpi.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

namespace {

/// Occupies every SM for `microseconds` by the global timer, as a smoothing kernel of the cycle does.
__global__ void busy_kernel(unsigned long long microseconds) {
    unsigned long long start, now;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
    do asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    while (now - start < 1000 * microseconds);
}

using adimg::DeviceVector;

constexpr int repeats = 500, per_graph = 100;

/// Microseconds per operation of `op`, enqueued `repeats` times on the stream (after a warm-up),
/// either directly or as graphs of per_graph operations.
double per_operation(MPI_Comm comm, cudaStream_t stream, bool graph, const std::function<void()>& op) {
    for (int i = 0; i < 20; ++i) op();
    ADIMG_CUDA_CHECK(cudaStreamSynchronize(stream));
    cudaGraphExec_t exec = nullptr;
    if (graph) {
        cudaGraph_t g = nullptr;
        ADIMG_CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeRelaxed));
        for (int i = 0; i < per_graph; ++i) op();
        ADIMG_CUDA_CHECK(cudaStreamEndCapture(stream, &g));
        ADIMG_CUDA_CHECK(cudaGraphInstantiate(&exec, g, 0));
        cudaGraphDestroy(g);
        ADIMG_CUDA_CHECK(cudaGraphLaunch(exec, stream));  // warm-up
        ADIMG_CUDA_CHECK(cudaStreamSynchronize(stream));
    }
    MPI_Barrier(comm);
    const auto start = std::chrono::steady_clock::now();
    if (graph)
        for (int i = 0; i < repeats / per_graph; ++i) ADIMG_CUDA_CHECK(cudaGraphLaunch(exec, stream));
    else
        for (int i = 0; i < repeats; ++i) op();
    ADIMG_CUDA_CHECK(cudaStreamSynchronize(stream));
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (exec) cudaGraphExecDestroy(exec);
    double slowest = seconds;
    MPI_Allreduce(&seconds, &slowest, 1, MPI_DOUBLE, MPI_MAX, comm);
    return 1e6 * slowest / repeats;
}

}  // namespace

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    std::vector<int> widths;
    for (int a = 1; a < argc; ++a) widths.push_back(std::atoi(argv[a]));
    if (widths.empty()) widths = {4097, 8193, 16385};
    int status = 0;
    try {
        adimg::Communicator comm(MPI_COMM_WORLD);
        // The device as the GPU ranks take it: the rank within its node, modulo the node's GPUs.
        MPI_Comm node;
        MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
        int local_rank = 0, devices = 0;
        MPI_Comm_rank(node, &local_rank);
        MPI_Comm_free(&node);
        ADIMG_CUDA_CHECK(cudaGetDeviceCount(&devices));
        ADIMG_CUDA_CHECK(cudaSetDevice(local_rank % devices));
        cudaStream_t stream;
        ADIMG_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
        std::string why;
        auto nccl = adimg::NcclTransport::open(comm, &why);
        if (!nccl) throw std::runtime_error("NCCL did not start: " + why);
        if (comm.rank() == 0) {
            std::printf("NCCL %d.%d.%d, %d ranks, %d repeats (graphs of %d)\n\n", NCCL_MAJOR, NCCL_MINOR, NCCL_PATCH,
                        comm.size(), repeats, per_graph);
            std::printf("| operation | bytes | eager us | in a graph us |\n|---|---|---|---|\n");
        }
        auto row = [&](const char* what, std::size_t bytes, const std::function<void()>& op) {
            const double eager = per_operation(comm.comm(), stream, false, op);
            const double graphed = per_operation(comm.comm(), stream, true, op);
            if (comm.rank() == 0) std::printf("| %s | %zu | %.2f | %.2f |\n", what, bytes, eager, graphed);
        };
        DeviceVector<double> scalar(1);
        row("all-reduce of one double", sizeof(double), [&] { nccl->sum(scalar.data(), 1, stream); });
        for (int mx : widths) {
            DeviceVector<float> strip(static_cast<std::size_t>(mx) * 4);
            row(("halo rows, mx = " + std::to_string(mx) + " floats").c_str(), mx * sizeof(float),
                [&] { nccl->exchange_rows(strip.data(), mx, 2, stream); });
            const std::size_t words = 6 * static_cast<std::size_t>(mx);
            DeviceVector<float> ends(words), all(words * comm.size());
            row(("all-gather of y-line ends, mx = " + std::to_string(mx)).c_str(), words * sizeof(float),
                [&] { nccl->all_gather(ends.data(), all.data(), words, stream); });
        }
        // The exchange inside a cycle: after a GPU-wide kernel, against the kernel alone.
        int sms = 0;
        ADIMG_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, local_rank % devices));
        DeviceVector<float> strip(static_cast<std::size_t>(4097) * 4);
        for (unsigned long long busy : {10ull, 50ull}) {
            auto kernel = [&] { busy_kernel<<<2 * sms, 256, 0, stream>>>(busy); };
            const double alone = per_operation(comm.comm(), stream, true, kernel);
            const double with = per_operation(comm.comm(), stream, true, [&] {
                kernel();
                nccl->exchange_rows(strip.data(), 4097, 2, stream);
            });
            if (comm.rank() == 0)
                std::printf("| halo rows (mx = 4097) after a GPU-wide kernel of %llu us: kernel + exchange %.2f us, "
                            "kernel alone %.2f us | %zu | | %.2f |\n",
                            busy, with, alone, 4097 * sizeof(float), with - alone);
        }
        nccl.reset();
        cudaStreamDestroy(stream);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "nccl_latency: %s\n", e.what());
        status = 1;
    }
    MPI_Finalize();
    return status;
}

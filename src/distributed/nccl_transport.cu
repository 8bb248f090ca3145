// NcclTransport's start: a unique id from rank 0, broadcast over MPI, and ncclCommInitRank on
// every rank, agreed by all or given up by all.

#include "nccl_transport.cuh"

#include <mpi.h>

#include <cstdlib>
#include <vector>

#include "../cuda/device_memory.cuh"

namespace adimg {

void nccl_check(ncclResult_t result, const char* call) {
    if (result != ncclSuccess && result != ncclInProgress)
        throw device_error(std::string(call) + " failed: " + ncclGetErrorString(result) +
                           (result == ncclSystemError || result == ncclRemoteError ? std::string(" (") + ncclGetLastError(nullptr) + ")"
                                                                                   : std::string()));
}

namespace {

/// The stream and device buffer of NcclTransport::warm_up(), freed however it ends.
struct WarmUpSpace {
    cudaStream_t stream = nullptr;
    double* buffer = nullptr;
    ~WarmUpSpace() {
        if (buffer) cudaFree(buffer);
        if (stream) cudaStreamDestroy(stream);
    }
};

}  // namespace

std::unique_ptr<NcclTransport> NcclTransport::open(Communicator& comm, std::string* why) {
    // Both settings are read when NCCL first starts in the process; set here they take effect
    // unless something else in the process has started NCCL already (adimg-mpi sets nothing else
    // up before). NVLink multicast (NVLS) serves large collectives, which these are not; where it
    // is used it can take a shared host's GPUs out of service, so it is turned off whatever the
    // environment says.
    setenv("NCCL_NVLS_ENABLE", "0", 1);
    // NCCL connects each peer and channel at its first use by default, which put ~0.4 s into the
    // first solve on two H200s; connected here, that time is the communicator's start-up, as a
    // CUDA context's is (unless the user asks otherwise).
    setenv("NCCL_RUNTIME_CONNECT", "0", 0);
    ncclUniqueId id{};
    int ok = 1;
    std::string reason;
    if (comm.rank() == 0) {
        const ncclResult_t result = ncclGetUniqueId(&id);
        if (result != ncclSuccess) {
            ok = 0;
            reason = std::string("ncclGetUniqueId: ") + ncclGetErrorString(result);
        }
    }
    MPI_Bcast(&ok, 1, MPI_INT, 0, comm.comm());
    if (!ok) {
        if (why) *why = comm.rank() == 0 ? reason : "NCCL could not start on rank 0";
        return nullptr;
    }
    MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, comm.comm());
    // Every rank gives up together where one cannot start. (A rank that fails inside
    // ncclCommInitRank before the others have joined leaves them waiting there: NCCL's blocking
    // start has no time limit.)
    ncclComm_t nccl = nullptr;
    const ncclResult_t result = ncclCommInitRank(&nccl, comm.size(), id, comm.rank());
    const bool mine = result == ncclSuccess;
    if (comm.any(!mine)) {
        if (mine) ncclCommAbort(nccl);  // local, unlike ncclCommDestroy, which would wait for the others
        if (why) *why = mine ? "NCCL could not start on another rank" : std::string("ncclCommInitRank: ") + ncclGetErrorString(result);
        return nullptr;
    }
    std::unique_ptr<NcclTransport> transport(new NcclTransport(comm, nccl));
    WarmUpSpace space;
    const bool ready = cudaStreamCreateWithFlags(&space.stream, cudaStreamNonBlocking) == cudaSuccess &&
                       cudaMalloc(&space.buffer, warm_up_bytes(comm.size())) == cudaSuccess;
    if (!ready) (void)cudaGetLastError();
    if (comm.any(!ready)) {
        transport->abort();
        if (why) *why = ready ? "another rank had no room to start NCCL" : "no device memory to start NCCL";
        return nullptr;
    }
    transport->warm_up(space.stream, space.buffer);
    return transport;
}

std::size_t NcclTransport::warm_up_bytes(int ranks) { return 3 * warm_up_large * static_cast<std::size_t>(ranks) * sizeof(double); }

void NcclTransport::warm_up(cudaStream_t stream, double* buffer) {
    // CUDA loads a library's kernels when they are first launched, and NCCL's are many: their
    // first launches took 0.2 s of the first two-GPU solve on H200s at every level (L = 10 and
    // 13 alike). One of each operation the solver uses, in float and double, small and large,
    // moves that into the transport's start. The counts it adds are a setup's, never a solve's.
    auto operations = [&](auto* values, std::size_t count) {
        neighbour_exchange(values, values + count, values + 2 * count, values + 3 * count, count, stream);
        all_gather(values, values + count, count, stream);
        std::vector<std::size_t> offsets(comm_.size() + 1);
        for (int r = 0; r <= comm_.size(); ++r) offsets[r] = static_cast<std::size_t>(r) * count;
        all_gather_in_place(values, offsets, stream);
    };
    for (std::size_t count : {std::size_t(1), warm_up_large / 2}) {
        operations(reinterpret_cast<float*>(buffer), count);
        operations(buffer, count / 2 + 1);
        sum(buffer, count / 2 + 1, stream);
    }
    ADIMG_CUDA_CHECK(cudaStreamSynchronize(stream));
}

void NcclTransport::abort() {
    ncclCommAbort(nccl_);
    nccl_ = nullptr;
}

NcclTransport::~NcclTransport() {
    if (nccl_) ncclCommDestroy(nccl_);
}

}  // namespace adimg

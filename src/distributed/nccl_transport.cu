// NcclTransport's start: a unique id from rank 0, broadcast over MPI, and ncclCommInitRank on
// every rank, agreed by all or given up by all.

#include "nccl_transport.cuh"

#include <mpi.h>

#include <cstdlib>

namespace adimg {

void nccl_check(ncclResult_t result, const char* call) {
    if (result != ncclSuccess && result != ncclInProgress)
        throw device_error(std::string(call) + " failed: " + ncclGetErrorString(result) +
                           (result == ncclSystemError || result == ncclRemoteError ? std::string(" (") + ncclGetLastError(nullptr) + ")"
                                                                                   : std::string()));
}

std::unique_ptr<NcclTransport> NcclTransport::open(Communicator& comm, std::string* why) {
    // NVLink multicast (NVLS) serves large collectives, which these are not; where it is used it
    // can take a shared host's GPUs out of service, so it stays off whatever the environment says.
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
    ncclComm_t nccl = nullptr;
    const ncclResult_t result = ncclCommInitRank(&nccl, comm.size(), id, comm.rank());
    const bool mine = result == ncclSuccess;
    if (comm.any(!mine)) {  // every rank gives up together
        if (mine) ncclCommDestroy(nccl);
        if (why) *why = mine ? "NCCL could not start on another rank" : std::string("ncclCommInitRank: ") + ncclGetErrorString(result);
        return nullptr;
    }
    return std::unique_ptr<NcclTransport>(new NcclTransport(comm, nccl));
}

NcclTransport::~NcclTransport() { ncclCommDestroy(nccl_); }

}  // namespace adimg

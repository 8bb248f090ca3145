#pragma once
// The GPU ranks' device-resident transport: NCCL over the ranks of the solver's MPI communicator,
// every operation queued on the rank's compute stream from and into device memory, so that a
// V-cycle never waits for the host and can be captured in a CUDA graph (NCCL supports stream
// capture). Each operation is counted in the Communicator's counts, as the MPI paths are.

#include <adimg/error.hpp>

#include "communicator.hpp"

#include <cuda_runtime.h>
#include <nccl.h>

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

namespace adimg {

template <class T>
ncclDataType_t nccl_type();
template <>
inline ncclDataType_t nccl_type<float>() { return ncclFloat; }
template <>
inline ncclDataType_t nccl_type<double>() { return ncclDouble; }

/// Throws device_error naming the NCCL call and NCCL's reason.
void nccl_check(ncclResult_t result, const char* call);

class NcclTransport {
public:
    /// NCCL over `comm`'s ranks (collective over comm; each rank's device selected before). Null
    /// on every rank if NCCL could not start on one of them; `why` then says why (on that rank).
    static std::unique_ptr<NcclTransport> open(Communicator& comm, std::string* why);
    ~NcclTransport();
    NcclTransport(const NcclTransport&) = delete;
    NcclTransport& operator=(const NcclTransport&) = delete;

    /// The halo rows of a strip of `rows` rows of mx values (storage rows 1 .. rows, halos at 0
    /// and rows + 1): its first row to the rank below, its last to the rank above.
    template <class T>
    void exchange_rows(T* storage, int mx, int rows, cudaStream_t stream) {
        const std::size_t n = static_cast<std::size_t>(mx);
        neighbour_exchange(storage + n, storage + static_cast<std::size_t>(rows + 1) * n, storage + static_cast<std::size_t>(rows) * n,
                           storage, n, stream);
    }
    /// `count` values to each neighbour: to_below to the rank below, whose to_above arrives in
    /// from_below; likewise upward. A missing neighbour's receive buffer is left as it is.
    template <class T>
    void neighbour_exchange(const T* to_below, T* from_above, const T* to_above, T* from_below, std::size_t count,
                            cudaStream_t stream) {
        const int below = comm_.rank() - 1, above = comm_.rank() + 1;
        const bool has_below = below >= 0, has_above = above < comm_.size();
        if (!has_below && !has_above) return;
        nccl_check(ncclGroupStart(), "ncclGroupStart");
        if (has_below) {
            nccl_check(ncclSend(to_below, count, nccl_type<T>(), below, nccl_, stream), "ncclSend");
            nccl_check(ncclRecv(from_below, count, nccl_type<T>(), below, nccl_, stream), "ncclRecv");
        }
        if (has_above) {
            nccl_check(ncclSend(to_above, count, nccl_type<T>(), above, nccl_, stream), "ncclSend");
            nccl_check(ncclRecv(from_above, count, nccl_type<T>(), above, nccl_, stream), "ncclRecv");
        }
        nccl_check(ncclGroupEnd(), "ncclGroupEnd");
        const int sent = has_below + has_above;
        comm_.count_messages(sent, static_cast<long long>(sent) * static_cast<long long>(count * sizeof(T)));
    }
    /// values[0 .. count) summed over the ranks, in place.
    void sum(double* values, std::size_t count, cudaStream_t stream) {
        nccl_check(ncclAllReduce(values, values, count, ncclDouble, ncclSum, nccl_, stream), "ncclAllReduce");
        comm_.count_collective(static_cast<long long>(count * sizeof(double)));
    }
    /// `count` values from every rank, in rank order, into `all` (size() * count values).
    template <class T>
    void all_gather(const T* mine, T* all, std::size_t count, cudaStream_t stream) {
        nccl_check(ncclAllGather(mine, all, count, nccl_type<T>(), nccl_, stream), "ncclAllGather");
        comm_.count_collective(static_cast<long long>(count * sizeof(T)));
    }
    /// Every rank's rows of a whole level into all ranks' copies: rank r's values are
    /// whole[offsets[r] .. offsets[r + 1]), already in place on rank r (one broadcast a rank, in
    /// one group).
    template <class T>
    void all_gather_in_place(T* whole, const std::vector<std::size_t>& offsets, cudaStream_t stream) {
        nccl_check(ncclGroupStart(), "ncclGroupStart");
        for (int r = 0; r < comm_.size(); ++r) {
            T* part = whole + offsets[r];
            nccl_check(ncclBroadcast(part, part, offsets[r + 1] - offsets[r], nccl_type<T>(), r, nccl_, stream),
                       "ncclBroadcast");
        }
        nccl_check(ncclGroupEnd(), "ncclGroupEnd");
        const std::size_t mine = offsets[comm_.rank() + 1] - offsets[comm_.rank()];
        comm_.count_collective(static_cast<long long>(mine * sizeof(T)));
    }

private:
    NcclTransport(Communicator& comm, ncclComm_t nccl) : comm_(comm), nccl_(nccl) {}
    /// One of each operation, so that none is the first of its kind inside a solve, on `stream`
    /// in `buffer` (warm_up_bytes()).
    void warm_up(cudaStream_t stream, double* buffer);
    static constexpr std::size_t warm_up_large = std::size_t(1) << 17;
    static std::size_t warm_up_bytes(int ranks);
    /// Ends the communicator on this rank alone (an error path, where the others may not join).
    void abort();
    Communicator& comm_;
    ncclComm_t nccl_;
};

}  // namespace adimg

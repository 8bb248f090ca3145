#include "usable_ranks.hpp"

#include <adimg/error.hpp>

#include "rank_engines.hpp"

#include <mpi.h>

namespace adimg {
namespace {

/// The ranks that cannot run as GPU ranks, as every rank sees them: how many, the first of them
/// and its reason (sent from that rank).
struct UnusableRanks {
    int count = 0, ranks = 1, first = 0;
    std::string why;
    std::string said() const {
        return std::to_string(count) + " of " + std::to_string(ranks) + " ranks " + (count == 1 ? "has" : "have") +
               " no usable GPU (rank " + std::to_string(first) + ": " + why + ")";
    }
};

UnusableRanks unusable_ranks(Communicator& comm, bool usable, const std::string& why) {
    UnusableRanks out;
    out.ranks = comm.size();
    const int missing = usable ? 0 : 1;
    MPI_Allreduce(&missing, &out.count, 1, MPI_INT, MPI_SUM, comm.comm());
    if (out.count == 0) return out;
    const int candidate = usable ? comm.size() : comm.rank();
    MPI_Allreduce(&candidate, &out.first, 1, MPI_INT, MPI_MIN, comm.comm());
    int length = static_cast<int>(why.size());
    MPI_Bcast(&length, 1, MPI_INT, out.first, comm.comm());
    out.why = why;
    out.why.resize(length);
    MPI_Bcast(out.why.data(), length, MPI_CHAR, out.first, comm.comm());
    return out;
}

}  // namespace

bool gpu_ranks(Communicator& comm, BackendKind backend, const std::string& solver, std::string& notice) {
    std::string why;
    const bool usable = backend != BackendKind::cpu && cuda_ranks_usable(&why);
    const UnusableRanks unusable = unusable_ranks(comm, usable, why);
    if (backend == BackendKind::cuda && unusable.count > 0)
        throw device_error("backend cuda asked of " + solver + ", but " + unusable.said() +
                           "; use backend cpu, or auto to fall back to the CPU by itself");
    if (backend == BackendKind::automatic && unusable.count > 0)
        notice = "note: " + unusable.said() + "; running on CPU ranks";
    return backend != BackendKind::cpu && unusable.count == 0;
}

}  // namespace adimg

#pragma once
// The MPI operations of the distributed backend, each counted: halo rows with the neighbouring
// ranks, neighbour messages, all-gathers and all-reductions in double.

#include <adimg/distributed.hpp>

#include <mpi.h>

#include <cstddef>
#include <vector>

namespace adimg {

template <class T>
MPI_Datatype mpi_type();
template <>
inline MPI_Datatype mpi_type<float>() { return MPI_FLOAT; }
template <>
inline MPI_Datatype mpi_type<double>() { return MPI_DOUBLE; }
template <>
inline MPI_Datatype mpi_type<int>() { return MPI_INT; }

class Communicator {
public:
    explicit Communicator(MPI_Comm comm) : comm_(comm) {
        MPI_Comm_rank(comm_, &rank_);
        MPI_Comm_size(comm_, &size_);
    }

    MPI_Comm comm() const { return comm_; }
    int rank() const { return rank_; }
    int size() const { return size_; }
    int below() const { return rank_ > 0 ? rank_ - 1 : MPI_PROC_NULL; }  ///< the strip under this one
    int above() const { return rank_ + 1 < size_ ? rank_ + 1 : MPI_PROC_NULL; }

    /// The halo rows of a strip of `rows` rows of mx values (storage rows 1 .. rows, halos at
    /// rows 0 and rows + 1): its first row goes to the rank below, its last to the rank above.
    template <class T>
    void exchange_rows(T* storage, int mx, int rows) {
        neighbour_exchange(storage + static_cast<std::size_t>(mx), storage + static_cast<std::size_t>(rows + 1) * mx,
                           storage + static_cast<std::size_t>(rows) * mx, storage, mx);
    }

    /// `count` values to each neighbour: to_below goes to the rank below, whose to_above arrives
    /// in from_below; likewise upward. A missing neighbour's receive buffer is left as it is.
    template <class T>
    void neighbour_exchange(const T* to_below, T* from_above, const T* to_above, T* from_below, int count) {
        MPI_Sendrecv(to_below, count, mpi_type<T>(), below(), 0, from_above, count, mpi_type<T>(), above(), 0, comm_,
                     MPI_STATUS_IGNORE);
        MPI_Sendrecv(to_above, count, mpi_type<T>(), above(), 1, from_below, count, mpi_type<T>(), below(), 1, comm_,
                     MPI_STATUS_IGNORE);
        const int sent = (below() != MPI_PROC_NULL) + (above() != MPI_PROC_NULL);
        count_messages(sent, static_cast<long long>(sent) * count * static_cast<long long>(sizeof(T)));
    }

    /// `count` values from every rank, in rank order, into `all` (size() * count values).
    template <class T>
    void allgather(const T* mine, int count, T* all) {
        MPI_Allgather(mine, count, mpi_type<T>(), all, count, mpi_type<T>(), comm_);
        count_collective(count * static_cast<long long>(sizeof(T)));
    }

    /// counts[r] values from rank r, in rank order, into `all`.
    template <class T>
    void allgatherv(const T* mine, const std::vector<int>& counts, T* all) {
        std::vector<int> offsets(counts.size(), 0);
        for (std::size_t r = 1; r < counts.size(); ++r) offsets[r] = offsets[r - 1] + counts[r - 1];
        MPI_Allgatherv(mine, counts[rank_], mpi_type<T>(), all, counts.data(), offsets.data(), mpi_type<T>(), comm_);
        count_collective(counts[rank_] * static_cast<long long>(sizeof(T)));
    }

    /// Every rank's values into all ranks' copies of one array: rank r's are
    /// data[offsets[r] .. offsets[r + 1]), already in place on rank r.
    template <class T>
    void allgather_in_place(T* data, const std::vector<std::size_t>& offsets) {
        const int ranks = size_;
        std::vector<int> counts(ranks), displacements(ranks);
        for (int r = 0; r < ranks; ++r) {
            counts[r] = static_cast<int>(offsets[r + 1] - offsets[r]);
            displacements[r] = static_cast<int>(offsets[r] - offsets[0]);
        }
        MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, data + offsets[0], counts.data(), displacements.data(),
                       mpi_type<T>(), comm_);
        count_collective(counts[rank_] * static_cast<long long>(sizeof(T)));
    }

    double sum(double value) { return reduce(value, MPI_SUM); }
    double max(double value) { return reduce(value, MPI_MAX); }
    double min(double value) { return reduce(value, MPI_MIN); }
    bool any(bool value) { return reduce(value ? 1.0 : 0.0, MPI_MAX) != 0.0; }

    const CommunicationCounts& counts() const { return counts_; }
    void reset_counts() { counts_ = {}; }
    /// What another transport (nccl_transport.cuh) sent for this communicator's ranks, or a
    /// recorded cycle when it is replayed.
    void count_messages(int messages, long long bytes) {
        counts_.messages += messages;
        counts_.message_bytes += bytes;
    }
    void count_collective(long long bytes) {
        ++counts_.collectives;
        counts_.collective_bytes += bytes;
    }
    void count(const CommunicationCounts& more) {
        counts_.messages += more.messages;
        counts_.message_bytes += more.message_bytes;
        counts_.collectives += more.collectives;
        counts_.collective_bytes += more.collective_bytes;
    }

private:
    double reduce(double value, MPI_Op op) {
        double out = 0.0;
        MPI_Allreduce(&value, &out, 1, MPI_DOUBLE, op, comm_);
        count_collective(sizeof(double));
        return out;
    }

    MPI_Comm comm_;
    int rank_ = 0, size_ = 1;
    CommunicationCounts counts_;
};

}  // namespace adimg

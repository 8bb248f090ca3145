#pragma once
// The backend of the distributed fast direct solver's engine (BackendFastDirectEngine,
// src/fast_direct/fast_direct_engine.hpp): the distributed backend on CPU ranks, whose vectors of
// the finest grid are the ranks' strips of rows and whose norms and dot products add the ranks' sums in
// double, plus the update x += c that the loop takes and the distributed multigrid does not, and
// the ranks and rows that its transform (strip_transform.hpp) and defect (strip_defect.hpp) read.

#include <adimg/distributed.hpp>

#include "cpu_rank.hpp"
#include "distributed_backend.hpp"
#include "distributed_context.hpp"

#include <memory>
#include <utility>

namespace adimg {

class StripBackend : public DistributedBackend<CpuRank> {
public:
    /// The ranks of `context`; its layout (set by each setup) gives the strips.
    explicit StripBackend(std::shared_ptr<DistributedContext> context)
        : DistributedBackend<CpuRank>(context), context_(std::move(context)) {}

    /// y += alpha x on this rank's entries (the halos too: a cache that is refreshed before it is read).
    template <class T>
    void axpy(double alpha, const vector<T>& x, vector<T>& y) {
        rank().local().axpy(alpha, x.storage, y.storage);
    }

    Communicator& communicator() { return context_->comm; }
    /// This rank's rows of the finest grid.
    RowRange rows() const {
        const StripLevel& s = context_->layout.level(context_->layout.levels() - 1);
        return {s.first[context_->comm.rank()], s.rows(context_->comm.rank())};
    }

private:
    std::shared_ptr<DistributedContext> context_;
};

}  // namespace adimg

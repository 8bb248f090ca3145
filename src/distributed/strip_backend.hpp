#pragma once
// The backend of the distributed fast direct solver's engine (BackendFastDirectEngine,
// src/fast_direct/fast_direct_engine.hpp): the distributed backend on CPU or GPU ranks
// (cpu_rank.hpp, cuda_rank.cuh), whose vectors of the finest grid are the ranks' strips of rows
// and whose norms and dot products add the ranks' sums in double, plus the ranks and rows that
// its transform (strip_transform.hpp, cuda_strip_fast_direct.cu) and defect (strip_defect.hpp,
// the same .cu) read.

#include <adimg/distributed.hpp>

#include "distributed_backend.hpp"
#include "distributed_context.hpp"

#include <memory>
#include <utility>

namespace adimg {

template <class Rank>
class StripBackend : public DistributedBackend<Rank> {
public:
    /// The ranks of `context`; its layout (set by each setup) gives the strips.
    explicit StripBackend(std::shared_ptr<DistributedContext> context)
        : DistributedBackend<Rank>(context), context_(std::move(context)) {}

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

// The distributed engine on GPU ranks: every rank's strips on its GPU (cuda_rank.cuh).

#include "cuda_rank.cuh"
#include "distributed_backend.hpp"
#include "rank_engines.hpp"

#include "../solver/backend_contract.hpp"

#include <adimg/solver.hpp>

namespace adimg {

static_assert(check_backend_contract<DistributedBackend<CudaRank>>());

std::unique_ptr<SolverEngine> make_cuda_rank_engine(const SolverOptions& options,
                                                    std::shared_ptr<DistributedContext> context) {
    return std::make_unique<Engine<DistributedBackend<CudaRank>>>(options, std::move(context));
}

bool cuda_ranks_usable(std::string* why) { return cuda_available(why); }

}  // namespace adimg

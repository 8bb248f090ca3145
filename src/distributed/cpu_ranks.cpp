// The distributed engine on CPU ranks: every rank's strips in host memory (cpu_rank.hpp).

#include "cpu_rank.hpp"
#include "distributed_backend.hpp"
#include "rank_engines.hpp"

#include "../solver/backend_contract.hpp"

namespace adimg {

static_assert(check_backend_contract<DistributedBackend<CpuRank>>());

std::unique_ptr<SolverEngine> make_cpu_rank_engine(const SolverOptions& options,
                                                   std::shared_ptr<DistributedContext> context) {
    return std::make_unique<Engine<DistributedBackend<CpuRank>>>(options, std::move(context));
}

}  // namespace adimg

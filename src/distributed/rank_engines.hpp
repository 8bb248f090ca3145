#pragma once
// The engines of the distributed solver, one per rank-local executor: Engine<DistributedBackend<
// CpuRank>> (cpu_ranks.cpp) and Engine<DistributedBackend<CudaRank>> (cuda_ranks.cu, built when
// CUDA is; no_cuda_ranks.cpp otherwise), behind the SolverEngine interface so that
// DistributedSolver chooses at run time.

#include "../solver/engine.hpp"
#include "distributed_context.hpp"

#include <memory>
#include <string>

namespace adimg {

std::unique_ptr<SolverEngine> make_cpu_rank_engine(const SolverOptions& options,
                                                   std::shared_ptr<DistributedContext> context);
/// GPU ranks (collective: selects each rank's device). Throws device_error if this build has no
/// GPU ranks or the rank sees no device.
std::unique_ptr<SolverEngine> make_cuda_rank_engine(const SolverOptions& options,
                                                    std::shared_ptr<DistributedContext> context);
/// Whether this rank could run as a GPU rank: the build has them and a device is usable; if not,
/// `why` says why.
bool cuda_ranks_usable(std::string* why);

}  // namespace adimg

#pragma once
// The distributed fast direct solver's engines, one per rank kind, behind the FastDirectEngine
// interface so that DistributedFastDirectSolver chooses at run time: BackendFastDirectEngine on
// StripBackend<CpuRank> (distributed_fast_direct.cpp) and on StripBackend<CudaRank>
// (cuda_strip_fast_direct.cu, built with the GPU ranks; no_cuda_strip_engine.cpp otherwise).

#include "../fast_direct/fast_direct_engine.hpp"
#include "distributed_context.hpp"

#include <memory>

namespace adimg {

std::unique_ptr<fast_direct::FastDirectEngine> make_cpu_strip_engine(std::shared_ptr<DistributedContext> context);
/// GPU ranks (collective: selects each rank's device and starts the transport). Throws
/// device_error if this build has no GPU ranks or the rank sees no device.
std::unique_ptr<fast_direct::FastDirectEngine> make_cuda_strip_engine(std::shared_ptr<DistributedContext> context);

}  // namespace adimg

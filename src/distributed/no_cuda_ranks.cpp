// A distributed solver built without GPU ranks (no CUDA, or no NCCL): saying why.

#include <adimg/error.hpp>

#include "rank_engines.hpp"

namespace adimg {

std::unique_ptr<SolverEngine> make_cuda_rank_engine(const SolverOptions&, std::shared_ptr<DistributedContext>) {
    std::string why;
    cuda_ranks_usable(&why);
    throw device_error("backend cuda asked of the distributed solver, but " + why +
                       "; use backend cpu, or auto to fall back to the CPU by itself");
}

bool cuda_ranks_usable(std::string* why) {
    if (why) *why = "this build of the distributed solver has no GPU ranks (" ADIMG_NO_GPU_RANKS_REASON ")";
    return false;
}

}  // namespace adimg

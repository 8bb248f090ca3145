// The distributed fast direct solver built without GPU ranks (no CUDA, or no NCCL): saying why.

#include <adimg/error.hpp>

#include "rank_engines.hpp"
#include "strip_engines.hpp"

namespace adimg {

std::unique_ptr<fast_direct::FastDirectEngine> make_cuda_strip_engine(std::shared_ptr<DistributedContext>) {
    std::string why;
    cuda_ranks_usable(&why);
    throw device_error("backend cuda asked of the distributed fast direct solver, but " + why +
                       "; use backend cpu, or auto to fall back to the CPU by itself");
}

}  // namespace adimg

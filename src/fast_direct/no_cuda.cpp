// The fast direct solver's CUDA engine in a build without CUDA (src/cuda/fast_direct.cu otherwise).
#include <adimg/error.hpp>

#include <string>

#include "fast_direct_engine.hpp"

namespace adimg::fast_direct {

std::unique_ptr<FastDirectEngine> make_cuda_engine() {
    throw device_error(std::string("FastDirectOptions::backend = cuda, but this build of adimg has no CUDA backend: ") +
                       ADIMG_NO_CUDA_REASON + "; rebuild with the CUDA backend, or use FastDirectOptions::backend = cpu");
}

}  // namespace adimg::fast_direct

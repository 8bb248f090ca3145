// The fast direct solver's CUDA engine in a build without CUDA (src/cuda/fast_direct.cu otherwise).
#include <adimg/error.hpp>

#include "engine.hpp"

namespace adimg::fast_direct {

std::unique_ptr<Engine> make_cuda_engine(Plan, SharedBands) {
    throw device_error("FastDirectOptions::backend = cuda, but this build of adimg has no CUDA backend (no CUDA "
                       "compiler was found at configure time); rebuild with nvcc on the PATH, or use "
                       "FastDirectOptions::backend = cpu");
}

}  // namespace adimg::fast_direct

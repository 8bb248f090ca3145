// Built instead of src/cuda/ when no CUDA compiler was found.
#include <adimg/error.hpp>
#include <adimg/solver.hpp>

namespace adimg {

bool cuda_available(std::string* why) {
    if (why) *why = "this build of adimg has no CUDA backend (no CUDA compiler was found at configure time)";
    return false;
}

std::unique_ptr<SolverEngine> make_cuda_engine(const SolverOptions&) {
    throw device_error("--backend cuda: this build of adimg has no CUDA backend; rebuild with nvcc on the PATH, "
                       "or use --backend cpu");
}

}  // namespace adimg

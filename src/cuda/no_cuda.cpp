// Built instead of src/cuda/ when no CUDA compiler was found.
#include <adimg/error.hpp>
#include <adimg/pinned_memory.hpp>
#include <adimg/solver.hpp>

#include "../solver/engine.hpp"

namespace adimg {

bool cuda_available(std::string* why) {
    if (why) *why = "this build of adimg has no CUDA backend (no CUDA compiler was found at configure time)";
    return false;
}

std::unique_ptr<SolverEngine> make_cuda_engine(const SolverOptions&) {
    throw device_error("SolverOptions::backend = cuda, but this build of adimg has no CUDA backend (no CUDA "
                       "compiler was found at configure time); rebuild with nvcc on the PATH, or use "
                       "SolverOptions::backend = cpu");
}

// Without CUDA there is no pinned memory: ordinary memory serves the same calls.
void* allocate_pinned(std::size_t bytes) { return ::operator new(bytes); }
void free_pinned(void* p) noexcept { ::operator delete(p); }
bool is_pinned(const void*) noexcept { return false; }

}  // namespace adimg

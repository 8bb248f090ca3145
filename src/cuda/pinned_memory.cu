// Page-locked host memory (include/adimg/pinned_memory.hpp), with ordinary memory where the
// CUDA runtime cannot give it (no device, driver too old).
#include <adimg/pinned_memory.hpp>

#include <cuda_runtime.h>

namespace adimg {

void* allocate_pinned(std::size_t bytes) {
    void* p = nullptr;
    if (cudaHostAlloc(&p, bytes, cudaHostAllocDefault) == cudaSuccess) return p;
    cudaGetLastError();  // the failure is not the next CUDA call's error
    return ::operator new(bytes);
}

bool is_pinned(const void* p) noexcept {
    if (!p) return false;
    cudaPointerAttributes attributes{};
    if (cudaPointerGetAttributes(&attributes, p) != cudaSuccess) {
        cudaGetLastError();
        return false;
    }
    return attributes.type == cudaMemoryTypeHost;
}

void free_pinned(void* p) noexcept {
    if (!p) return;
    if (is_pinned(p))
        cudaFreeHost(p);
    else
        ::operator delete(p);
}

}  // namespace adimg

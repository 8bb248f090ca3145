// Page-locked host memory (include/adimg/pinned_memory.hpp), with ordinary memory where the
// CUDA runtime cannot give it (no device, driver too old, the page-lock limit reached).
//
// free_pinned() must know which kind it releases. Asking the driver at that point is not
// enough: after cudaDeviceReset(), after a fatal kernel error, or once the runtime is unloading
// at exit, it no longer recognises its own allocations, and handing those to operator delete
// corrupts the heap. So the pinned allocations are recorded when they are made.
#include <adimg/pinned_memory.hpp>

#include <cuda_runtime.h>

#include <mutex>
#include <unordered_set>

namespace adimg {
namespace {

struct PinnedRegistry {
    std::mutex mutex;
    std::unordered_set<void*> pointers;
};

/// Never destroyed: vectors with static storage may release their memory after every other
/// static object is gone.
PinnedRegistry& registry() {
    static PinnedRegistry* r = new PinnedRegistry;
    return *r;
}

}  // namespace

void* allocate_pinned(std::size_t bytes) {
    void* p = nullptr;
    if (bytes > 0 && cudaHostAlloc(&p, bytes, cudaHostAllocDefault) == cudaSuccess) {
        PinnedRegistry& r = registry();
        const std::lock_guard<std::mutex> lock(r.mutex);
        r.pointers.insert(p);
        return p;
    }
    cudaGetLastError();  // the failure is not the next CUDA call's error
    return ::operator new(bytes);
}

void free_pinned(void* p) noexcept {
    if (!p) return;
    bool pinned = false;
    {
        PinnedRegistry& r = registry();
        const std::lock_guard<std::mutex> lock(r.mutex);
        pinned = r.pointers.erase(p) > 0;
    }
    if (!pinned) {
        ::operator delete(p);
        return;
    }
    // Fails only where the runtime has already let go of the memory (device reset, unloading at
    // exit): nothing is left to release then, and the error must not surface elsewhere.
    if (cudaFreeHost(p) != cudaSuccess) cudaGetLastError();
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

}  // namespace adimg

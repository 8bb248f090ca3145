#pragma once
/// \file
/// Page-locked ("pinned") host memory for a solve's b and x.
///
/// A GPU solve moves b to the device and x back. From ordinary (pageable) memory every byte
/// first goes through a pinned staging buffer on the host; from pinned memory the device's DMA
/// engines read and write it directly, at the full rate of the bus, which makes the transfers of a
/// solve about a quarter faster on the H200 (docs/performance.md, "b and x in pinned memory"). The direct path serves the double and mixed precisions, whose
/// outer loop keeps b and x in double on the device; single precision converts them to float on
/// the host, through the staging buffers, wherever they live.
///
///     adimg::pinned_vector<double> b(n), x(n);
///     ... fill b ...
///     solver.solve(b.data(), x.data(), adimg::InitialGuess::zero);
///
/// Where pinned memory cannot be had (no GPU, no CUDA in this build, or the system's limit on
/// page-locked memory reached) the same calls hand out ordinary memory, so code written against
/// them runs anywhere, only with staged transfers; is_pinned() tells which you got. The first
/// allocation starts the CUDA runtime. Memory from cudaHostAlloc or cudaHostRegister elsewhere
/// in your program is pinned as well: the solver recognises it and takes the direct path.

#include <cstddef>
#include <new>
#include <vector>

namespace adimg {

/// `bytes` of page-locked host memory, or of ordinary memory when that cannot be had (see above).
/// Throws std::bad_alloc when neither can be had. Release with free_pinned().
void* allocate_pinned(std::size_t bytes);
/// Releases memory from allocate_pinned() (either kind); nullptr is ignored.
void free_pinned(void* p) noexcept;
/// Whether `p` points into page-locked host memory that the device can reach directly.
bool is_pinned(const void* p) noexcept;

/// A standard allocator over allocate_pinned(), for containers of b and x.
template <class T>
struct PinnedAllocator {
    static_assert(alignof(T) <= __STDCPP_DEFAULT_NEW_ALIGNMENT__,
                  "PinnedAllocator: the ordinary-memory fallback (operator new) aligns no further");
    using value_type = T;
    PinnedAllocator() = default;
    template <class U>
    PinnedAllocator(const PinnedAllocator<U>&) noexcept {}
    T* allocate(std::size_t n) {
        if (n > static_cast<std::size_t>(-1) / sizeof(T)) throw std::bad_array_new_length();
        return static_cast<T*>(allocate_pinned(n * sizeof(T)));
    }
    void deallocate(T* p, std::size_t) noexcept { free_pinned(p); }
    template <class U>
    bool operator==(const PinnedAllocator<U>&) const noexcept { return true; }
    template <class U>
    bool operator!=(const PinnedAllocator<U>&) const noexcept { return false; }
};

/// A std::vector in pinned memory (ordinary memory without a GPU).
template <class T>
using pinned_vector = std::vector<T, PinnedAllocator<T>>;

}  // namespace adimg

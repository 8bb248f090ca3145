#pragma once
/// \file
/// Vectors of numbers whose zeros cost no writes. Their storage comes zeroed from the C library
/// (calloc: a large block is fresh pages, which the kernel clears when they are first written),
/// and zeros<T>(n) makes n zeros without writing them, so the first loop that writes the vector
/// maps its pages: a parallel loop does that on all its threads (docs/performance.md, "CPU setup:
/// huge pages and first touch"). Otherwise a ZeroedVector is a std::vector: resize() and the
/// other members that value-initialise write their zeros as usual.

#include <cstddef>
#include <cstdlib>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

namespace adimg {

template <class T>
class ZeroedAllocator;

/// n zeros in fresh storage, written by nobody.
template <class T>
std::vector<T, ZeroedAllocator<T>> zeros(std::size_t n);

/// The allocator of ZeroedVector: calloc and free, and value-initialisation that writes nothing
/// inside zeros(), where the memory was just allocated and so holds zeros already.
template <class T>
class ZeroedAllocator {
    static_assert(std::is_arithmetic_v<T>, "ZeroedAllocator holds numbers, whose zero is all bits zero");

public:
    using value_type = T;

    ZeroedAllocator() = default;
    template <class U>
    ZeroedAllocator(const ZeroedAllocator<U>&) noexcept {}

    T* allocate(std::size_t n) {
        if (n > std::size_t(-1) / sizeof(T)) throw std::bad_array_new_length();
        if (void* p = std::calloc(n, sizeof(T))) return static_cast<T*>(p);
        throw std::bad_alloc();
    }
    void deallocate(T* p, std::size_t) noexcept { std::free(p); }

    template <class U>
    void construct(U* p) {
        if (!in_zeros()) ::new (static_cast<void*>(p)) U();
    }
    template <class U, class First, class... Rest>
    void construct(U* p, First&& first, Rest&&... rest) {
        ::new (static_cast<void*>(p)) U(std::forward<First>(first), std::forward<Rest>(rest)...);
    }

    friend bool operator==(const ZeroedAllocator&, const ZeroedAllocator&) { return true; }
    friend bool operator!=(const ZeroedAllocator&, const ZeroedAllocator&) { return false; }

private:
    friend std::vector<T, ZeroedAllocator<T>> zeros<T>(std::size_t);
    /// True while this thread runs zeros<T>().
    static bool& in_zeros() {
        thread_local bool inside = false;
        return inside;
    }
};

/// A std::vector of numbers in calloc'd storage (see the file comment).
template <class T>
using ZeroedVector = std::vector<T, ZeroedAllocator<T>>;

template <class T>
ZeroedVector<T> zeros(std::size_t n) {
    bool& inside = ZeroedAllocator<T>::in_zeros();
    inside = true;
    try {
        ZeroedVector<T> v(n);
        inside = false;
        return v;
    } catch (...) {
        inside = false;
        throw;
    }
}

}  // namespace adimg

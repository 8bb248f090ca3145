#include "transfers.cuh"

#include <cstring>
#include <map>
#include <mutex>
#include <utility>
#include <vector>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace adimg {

namespace {

/// Page-locked staging buffers kept for the process, by device and size, so that the transfers of
/// a new backend or of DeviceGridMatrix::from_host do not page-lock 2 x 16 MiB afresh (and unlock
/// them at their end). At most `kept` idle buffers per device and size stay; the process keeps
/// them until it exits (like the registry of pinned_memory.cu, the pool is never destroyed: a
/// static object's end may come after the CUDA runtime's).
class StagingPool {
public:
    static StagingPool& instance() {
        static StagingPool* pool = new StagingPool;
        return *pool;
    }

    char* take(std::size_t bytes) {
        const Key key{current_device(), bytes};
        {
            const std::lock_guard<std::mutex> lock(mutex_);
            std::vector<char*>& idle = idle_[key];
            while (!idle.empty()) {
                char* p = idle.back();
                idle.pop_back();
                if (is_pinned(p)) return p;  // else released with its context (cudaDeviceReset)
            }
        }
        char* p = nullptr;
        ADIMG_CUDA_CHECK(cudaMallocHost(&p, bytes));
        return p;
    }

    void give_back(char* p, std::size_t bytes) noexcept {
        if (!p) return;
        int device = 0;
        if (cudaGetDevice(&device) != cudaSuccess) {
            cudaGetLastError();
            return;  // the runtime is going away: nothing to keep, nothing to free
        }
        {
            const std::lock_guard<std::mutex> lock(mutex_);
            std::vector<char*>& idle = idle_[Key{device, bytes}];
            if (idle.size() < kept) {
                idle.push_back(p);
                return;
            }
        }
        if (cudaFreeHost(p) != cudaSuccess) cudaGetLastError();
    }

private:
    static constexpr std::size_t kept = 4;  // two HostTransfers' worth
    using Key = std::pair<int, std::size_t>;

    static int current_device() {
        int device = 0;
        ADIMG_CUDA_CHECK(cudaGetDevice(&device));
        return device;
    }

    std::mutex mutex_;
    std::map<Key, std::vector<char*>> idle_;
};

}  // namespace

HostTransfers::HostTransfers(cudaStream_t stream, std::optional<std::size_t> chunk_bytes, bool always_staged)
    : stream_(stream), forced_chunk_bytes_(chunk_bytes), always_staged_(always_staged) {
    if (chunk_bytes && *chunk_bytes < sizeof(double))
        throw device_error("a transfer chunk of " + std::to_string(*chunk_bytes) + " bytes holds no element; use at least 8");
    for (int i = 0; i < 2; ++i) ADIMG_CUDA_CHECK(cudaEventCreateWithFlags(&staged_[i], cudaEventDisableTiming));
}

char* HostTransfers::staging(std::size_t c) {
    // Taken at the first transfer that stages (a backend whose vectors come from page-locked
    // memory, or stay on the device, never does), from the process's pool.
    if (!staging_[0])
        for (int i = 0; i < 2; ++i) staging_[i] = StagingPool::instance().take(staging_bytes());
    ADIMG_CUDA_CHECK(cudaEventSynchronize(staged_[c % 2]));
    return staging_[c % 2];
}

HostTransfers::~HostTransfers() {
    for (int i = 0; i < 2; ++i) {
        StagingPool::instance().give_back(staging_[i], staging_bytes());
        if (staged_[i]) cudaEventDestroy(staged_[i]);
    }
}

namespace {

/// *p = value with a non-temporal store (movnti) where the host is x86-64, else a plain store.
template <class D>
void store_streaming(D* p, D value) {
#if defined(__x86_64__)
    static_assert(sizeof(D) == 4 || sizeof(D) == 8);
    if constexpr (sizeof(D) == 8) {
        long long bits;
        std::memcpy(&bits, &value, 8);
        _mm_stream_si64(reinterpret_cast<long long*>(p), bits);
    } else {
        int bits;
        std::memcpy(&bits, &value, 4);
        _mm_stream_si32(reinterpret_cast<int*>(p), bits);
    }
#else
    *p = value;
#endif
}

/// Orders this thread's streaming stores before whatever it does next (the DMA is enqueued after
/// the parallel region ends).
void fence_streaming_stores() {
#if defined(__x86_64__)
    _mm_sfence();
#endif
}

}  // namespace

template <class S, class D>
void HostTransfers::convert_on_host(const S* src, D* dst, std::size_t n, HostStores stores) {
    const auto count = static_cast<std::ptrdiff_t>(n);
    if (stores == HostStores::cached) {
#pragma omp parallel for schedule(static) if (count >= (std::ptrdiff_t(1) << 16))
        for (std::ptrdiff_t i = 0; i < count; ++i) dst[i] = static_cast<D>(src[i]);
        return;
    }
#pragma omp parallel if (count >= (std::ptrdiff_t(1) << 16))
    {
#pragma omp for schedule(static)
        for (std::ptrdiff_t i = 0; i < count; ++i) store_streaming(dst + i, static_cast<D>(src[i]));
        fence_streaming_stores();
    }
}
template void HostTransfers::convert_on_host(const double*, float*, std::size_t, HostStores);
template void HostTransfers::convert_on_host(const double*, double*, std::size_t, HostStores);
template void HostTransfers::convert_on_host(const float*, double*, std::size_t, HostStores);

}  // namespace adimg

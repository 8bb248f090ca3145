#include "transfers.cuh"

#include <cstring>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace adimg {

HostTransfers::HostTransfers(cudaStream_t stream, std::optional<std::size_t> chunk_bytes, bool always_staged)
    : stream_(stream), forced_chunk_bytes_(chunk_bytes), always_staged_(always_staged) {
    if (chunk_bytes && *chunk_bytes < sizeof(double))
        throw device_error("a transfer chunk of " + std::to_string(*chunk_bytes) + " bytes holds no element; use at least 8");
    for (int i = 0; i < 2; ++i) ADIMG_CUDA_CHECK(cudaEventCreateWithFlags(&staged_[i], cudaEventDisableTiming));
}

char* HostTransfers::staging(std::size_t c) {
    // Made at the first transfer that stages: page-locking 2 x 16 MiB pins every page of them,
    // and a backend whose vectors come from page-locked memory (or stay on the device) never
    // stages.
    if (!staging_[0]) {
        const std::size_t bytes = std::max(max_chunk_bytes, forced_chunk_bytes_.value_or(0));
        for (int i = 0; i < 2; ++i) ADIMG_CUDA_CHECK(cudaMallocHost(&staging_[i], bytes));
    }
    ADIMG_CUDA_CHECK(cudaEventSynchronize(staged_[c % 2]));
    return staging_[c % 2];
}

HostTransfers::~HostTransfers() {
    for (int i = 0; i < 2; ++i) {
        if (staging_[i]) cudaFreeHost(staging_[i]);
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

#pragma once
// Holding a range of device memory in the L2 cache between kernels: CUDA's access-policy window
// over the part of L2 set aside for persisting lines. The benchmarks use it to time a sweep whose
// bands stay on chip from one call to the next, which bounds what a level whose matrix fits in L2
// could gain from that (docs/performance.md, "Bands held in L2").

#include "../src/cuda/device_memory.cuh"

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <string>

namespace adimg::bench {

/// The device's L2 and the limits of its persisting set-aside, as it reports them.
struct L2Limits {
    std::size_t l2_bytes = 0;          ///< the whole L2 cache
    std::size_t persisting_max = 0;    ///< the most that may be set aside for persisting lines
    std::size_t window_max = 0;        ///< the largest access-policy window
};

inline L2Limits l2_limits() {
    int device = 0;
    ADIMG_CUDA_CHECK(cudaGetDevice(&device));
    cudaDeviceProp p{};
    ADIMG_CUDA_CHECK(cudaGetDeviceProperties(&p, device));
    return {static_cast<std::size_t>(p.l2CacheSize), static_cast<std::size_t>(p.persistingL2CacheMaxSize),
            static_cast<std::size_t>(p.accessPolicyMaxWindowSize)};
}

/// While it lives, the kernels of `stream` treat [base, base + bytes) as persisting in L2: the
/// whole set-aside is reserved, and where the range is larger than it, a fraction of the range's
/// lines (set-aside / bytes, the window's hit ratio) is chosen to persist so that they fit.
class L2Window {
public:
    L2Window(cudaStream_t stream, const void* base, std::size_t bytes) : stream_(stream) {
        const L2Limits limits = l2_limits();
        if (limits.persisting_max == 0 || limits.window_max == 0) return;  // no set-aside on this device
        if (const cudaError_t status = cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, limits.persisting_max);
            status != cudaSuccess) {  // e.g. under MPS: the rows say so instead of ending the run
            (void)cudaGetLastError();
            refused_ = cudaGetErrorString(status);
            return;
        }
        window_bytes_ = std::min(bytes, limits.window_max);
        hit_ratio_ = std::min(1.0, static_cast<double>(limits.persisting_max) / static_cast<double>(window_bytes_));
        set(base, window_bytes_, static_cast<float>(hit_ratio_));
    }
    ~L2Window() {
        if (window_bytes_ == 0) return;
        set(nullptr, 0, 0.0f);
        cudaCtxResetPersistingL2Cache();
        cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, 0);
    }
    L2Window(const L2Window&) = delete;
    L2Window& operator=(const L2Window&) = delete;

    /// "38 MB, hit ratio 0.99", or "no set-aside" where the device has none.
    std::string describe() const {
        if (!refused_.empty()) return "set-aside refused: " + refused_;
        if (window_bytes_ == 0) return "no set-aside";
        char text[64];
        std::snprintf(text, sizeof text, "%.1f MB, hit ratio %.2f", window_bytes_ / 1e6, hit_ratio_);
        return text;
    }

private:
    void set(const void* base, std::size_t bytes, float hit_ratio) {
        cudaStreamAttrValue value{};
        value.accessPolicyWindow.base_ptr = const_cast<void*>(base);
        value.accessPolicyWindow.num_bytes = bytes;
        value.accessPolicyWindow.hitRatio = hit_ratio;
        value.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
        value.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
        ADIMG_CUDA_CHECK(cudaStreamSetAttribute(stream_, cudaStreamAttributeAccessPolicyWindow, &value));
    }

    cudaStream_t stream_;
    std::size_t window_bytes_ = 0;
    double hit_ratio_ = 0;
    std::string refused_;
};

}  // namespace adimg::bench

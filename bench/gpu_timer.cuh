#pragma once
// Timing on the device: CUDA events around a repeated region, median of several samples.

#include "../src/cuda/device_memory.cuh"

#include <algorithm>
#include <vector>

namespace adimg::bench {

/// Median milliseconds per call of `body` (which enqueues work on `stream`): `samples` samples of
/// `repeats` calls each, after one warm-up sample.
template <class Body>
double median_ms(cudaStream_t stream, int samples, int repeats, Body&& body) {
    cudaEvent_t start, stop;
    ADIMG_CUDA_CHECK(cudaEventCreate(&start));
    ADIMG_CUDA_CHECK(cudaEventCreate(&stop));
    std::vector<double> times;
    for (int s = 0; s <= samples; ++s) {
        ADIMG_CUDA_CHECK(cudaEventRecord(start, stream));
        for (int r = 0; r < repeats; ++r) body();
        ADIMG_CUDA_CHECK(cudaEventRecord(stop, stream));
        ADIMG_CUDA_CHECK(cudaEventSynchronize(stop));
        float ms = 0;
        ADIMG_CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
        if (s > 0) times.push_back(ms / repeats);
    }
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    std::sort(times.begin(), times.end());
    return times[times.size() / 2];
}

/// Device-to-device copy bandwidth in bytes per second (bytes read + bytes written), measured
/// on a buffer far larger than the L2 cache.
inline double copy_bandwidth(cudaStream_t stream) {
    const std::size_t bytes = std::size_t(1) << 30;
    DeviceVector<char> a(bytes), b(bytes);
    const double ms = median_ms(stream, 5, 5, [&] {
        ADIMG_CUDA_CHECK(cudaMemcpyAsync(b.data(), a.data(), bytes, cudaMemcpyDeviceToDevice, stream));
    });
    return 2.0 * bytes / (ms * 1e-3);
}

}  // namespace adimg::bench

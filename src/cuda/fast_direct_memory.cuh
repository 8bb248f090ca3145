#pragma once
// Setup's copies of the fast direct solver's host arrays (coefficients, widths, eigenvectors) to
// the device.

#include "device_memory.cuh"

#include <cuda_runtime.h>

#include <vector>

namespace adimg::fast_direct {

/// A copy of `host` on the device, complete when this returns.
template <class T>
DeviceVector<T> host_to_device(const std::vector<T>& host, cudaStream_t stream) {
    DeviceVector<T> v(host.size(), Uninitialised{});
    if (!host.empty())
        ADIMG_CUDA_CHECK(cudaMemcpyAsync(v.data(), host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice, stream));
    ADIMG_CUDA_CHECK(cudaStreamSynchronize(stream));
    return v;
}

}  // namespace adimg::fast_direct

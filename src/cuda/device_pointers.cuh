#pragma once
// What a caller's device pointer must be: memory of the current GPU, aligned for doubles. The
// checks before any kernel reads it, so that host memory or another GPU's gets a clear
// input_error instead of a fault.

#include <adimg/device.hpp>

#include <cuda_runtime.h>

namespace adimg {

/// Throws input_error unless `p` points to memory that kernels on the current device may read and
/// write (cudaMalloc'd on it, or managed memory), aligned for a double. `call` and `name` name the
/// call and the argument in the message.
void check_device_pointer(const void* p, const char* call, const char* name);

/// Throws input_error unless `p` is memory the host may read: not null, not memory of a GPU
/// alone (managed memory is both). `call` and `name` name the call and the argument.
void check_host_pointer(const void* p, const char* call, const char* name);

/// The caller's stream as the CUDA runtime takes it (nullptr: the legacy default stream).
inline cudaStream_t as_cuda_stream(DeviceStream stream) { return stream ? stream : cudaStreamLegacy; }

}  // namespace adimg

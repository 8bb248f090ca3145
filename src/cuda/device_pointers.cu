#include "device_pointers.cuh"

#include "device_memory.cuh"

#include <adimg/error.hpp>

#include <cstdint>
#include <string>

namespace adimg {

void check_device_pointer(const void* p, const char* call, const char* name) {
    const std::string what = std::string(call) + ": " + name;
    const char* const advice = "; pass an array in the memory of the solver's GPU (cudaMalloc, CuPy, PyTorch, JAX)";
    if (!p) throw input_error(what + " is a null pointer" + advice);
    cudaPointerAttributes attributes{};
    const cudaError_t status = cudaPointerGetAttributes(&attributes, p);
    if (status != cudaSuccess) {
        (void)cudaGetLastError();
        throw input_error(what + " is no memory the CUDA runtime knows (" + cudaGetErrorString(status) + ")" + advice);
    }
    if (attributes.type == cudaMemoryTypeUnregistered || attributes.type == cudaMemoryTypeHost)
        throw input_error(what + " points to host memory" +
                          std::string(attributes.type == cudaMemoryTypeHost ? " (page-locked)" : "") + advice +
                          ", or the host call (solve, precondition, GridMatrix) for host arrays");
    int device = 0;
    cuda_check(cudaGetDevice(&device), "cudaGetDevice", __FILE__, __LINE__);
    if (attributes.type == cudaMemoryTypeDevice && attributes.device != device)
        throw input_error(what + " is memory of GPU " + std::to_string(attributes.device) + ", but the solver runs on GPU " +
                          std::to_string(device) + "; make the arrays there, or select that device before creating the solver");
    if (reinterpret_cast<std::uintptr_t>(p) % alignof(double) != 0)
        throw input_error(what + " is not aligned for doubles (an address that is a multiple of 8); pass a float64 array "
                                 "of its own, not a view at an odd byte offset");
}

void check_host_pointer(const void* p, const char* call, const char* name) {
    const std::string what = std::string(call) + ": " + name;
    if (!p) throw input_error(what + " is a null pointer; pass the bands in host memory");
    cudaPointerAttributes attributes{};
    if (cudaPointerGetAttributes(&attributes, p) != cudaSuccess) {
        (void)cudaGetLastError();
        return;  // unknown to the CUDA runtime: ordinary host memory
    }
    if (attributes.type == cudaMemoryTypeDevice)
        throw input_error(what + " points to memory of GPU " + std::to_string(attributes.device) +
                          ", not host memory; pass device arrays to the DeviceGridMatrix constructor or assign()");
}

double* allocate_device_doubles(std::size_t n) {
    double* p = nullptr;
    if (n == 0) return p;
    const cudaError_t status = cudaMalloc(&p, n * sizeof(double));
    if (status == cudaErrorMemoryAllocation) {
        (void)cudaGetLastError();
        throw device_error("out of device memory: " + std::to_string(n * sizeof(double) >> 20) +
                           " MiB for a result were not available; free arrays or use a smaller grid");
    }
    ADIMG_CUDA_CHECK(status);
    return p;
}

void free_device_doubles(double* p) noexcept { cudaFree(p); }

void copy_device_doubles(double* to, const double* from, std::size_t n, DeviceStream stream) {
    ADIMG_CUDA_CHECK(cudaMemcpyAsync(to, from, n * sizeof(double), cudaMemcpyDeviceToDevice, as_cuda_stream(stream)));
}

}  // namespace adimg

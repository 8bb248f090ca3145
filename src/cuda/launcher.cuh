#pragma once
// The device and its stream: every kernel of the CUDA backend is launched here, as a programmatic
// dependent launch where the device allows, with its errors named.

#include "device_memory.cuh"

#include <cuda_runtime.h>

#include <cstddef>
#include <map>
#include <set>
#include <string>
#include <type_traits>

namespace adimg {

class Launcher {
public:
    /// Selects the current device and makes a stream; throws device_error if no device is usable.
    /// Programmatic launches are used if `programmatic` and the device and build support them.
    explicit Launcher(bool programmatic);
    ~Launcher();
    Launcher(const Launcher&) = delete;
    Launcher& operator=(const Launcher&) = delete;

    cudaStream_t stream() const { return stream_; }
    const std::string& device_name() const { return name_; }
    /// The largest dynamic shared memory one block may use.
    std::size_t shared_limit() const { return shared_limit_; }
    int multiprocessors() const { return multiprocessors_; }
    /// Whether kernels are launched as programmatic dependent launches
    /// (kernels::follow_previous_kernel()).
    bool programmatic() const { return programmatic_; }

    /// kernel<<<grid, block, shared_bytes, stream>>>(args...); launch errors are reported naming
    /// `what`.
    template <class... Params, class... Args>
    void operator()(const char* what, void (*kernel)(Params...), dim3 grid, dim3 block, std::size_t shared_bytes,
                    Args... args) {
        cudaLaunchAttribute attribute{};
        attribute.id = cudaLaunchAttributeProgrammaticStreamSerialization;
        attribute.val.programmaticStreamSerializationAllowed = 1;
        cudaLaunchConfig_t config{};
        config.gridDim = grid;
        config.blockDim = block;
        config.dynamicSmemBytes = shared_bytes;
        config.stream = stream_;
        config.attrs = &attribute;
        config.numAttrs = programmatic_ ? 1 : 0;
        const cudaError_t status = cudaLaunchKernelEx(&config, kernel, args...);
        (void)cudaGetLastError();  // clear it here, so that no later launch reports it as its own
        cuda_check(status, what, __FILE__, __LINE__);
    }

    /// The dynamic shared memory of a launch. Above the default 48 KiB the kernel's limit must be
    /// raised first; it is raised to the device maximum once per kernel. Kernels are told apart by
    /// address, because every translation unit that launches a kernel template holds its own copy.
    template <class Kernel>
    std::size_t allow_shared(Kernel kernel, std::size_t bytes) {
        if (bytes > 48 * 1024 && raised_.insert(reinterpret_cast<const void*>(kernel)).second)
            ADIMG_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                                  static_cast<int>(shared_limit_)));
        return bytes;
    }

    /// Resident blocks per SM of `kernel` with `threads` threads, asked of the device once.
    template <class Kernel>
    int blocks_per_sm(Kernel kernel, int threads) {
        auto [known, fresh] = blocks_per_sm_.try_emplace(reinterpret_cast<const void*>(kernel), 0);
        if (fresh) ADIMG_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&known->second, kernel, threads, 0));
        return std::max(known->second, 1);
    }

    /// Calls f(std::integral_constant<decltype(value), c>) for the one of `Choices` that equals
    /// `value`, so that each choice is a kernel of its own (a template argument); returns false
    /// if none does.
    template <auto... Choices, class V, class F>
    static bool with_constant(V value, F&& f) {
        return ((value == Choices ? (f(std::integral_constant<decltype(Choices), Choices>{}), true) : false) || ...);
    }

private:
    std::string name_;
    cudaStream_t stream_ = nullptr;
    std::size_t shared_limit_ = 0;
    int multiprocessors_ = 0;
    bool programmatic_ = false;
    std::set<const void*> raised_;              // kernels whose shared-memory limit is raised
    std::map<const void*, int> blocks_per_sm_;  // resident blocks per SM of a kernel, by address
};

}  // namespace adimg

#pragma once
// Owning device buffers and the error check every CUDA call goes through.

#include <adimg/error.hpp>
#include <adimg/nine_bands.hpp>

#include "../solver/bands_view.hpp"

#include <cuda_runtime.h>

#include <cstddef>
#include <string>
#include <utility>

namespace adimg {

/// Throws device_error naming the failed call, the file and line, and CUDA's message.
inline void cuda_check(cudaError_t status, const char* call, const char* file, int line) {
    if (status == cudaSuccess) return;
    std::string message = std::string(call) + " failed at " + file + ":" + std::to_string(line) + ": " +
                          cudaGetErrorString(status);
    if (status == cudaErrorMemoryAllocation) message += " (out of device memory: use a lower level or another GPU)";
    throw device_error(message);
}
#define ADIMG_CUDA_CHECK(call) ::adimg::cuda_check((call), #call, __FILE__, __LINE__)
/// After a kernel launch: launch-configuration errors surface here without a synchronisation.
#define ADIMG_CUDA_CHECK_LAUNCH(name) ::adimg::cuda_check(cudaGetLastError(), name, __FILE__, __LINE__)

/// Asks DeviceVector for storage that the caller overwrites whole before reading it.
struct Uninitialised {};

/// A stream of this host thread's own that zeroes new device memory: not the legacy default
/// stream, which CUDA refuses to touch while a blocking stream of another thread is capturing a
/// graph (right-hand sides solved side by side in lanes: one lane's first solve allocates while
/// another lane records its cycle).
inline cudaStream_t zeroing_stream() {
    thread_local struct Stream {
        cudaStream_t stream = nullptr;
        Stream() { ADIMG_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking)); }
        ~Stream() { cudaStreamDestroy(stream); }
    } own;
    return own.stream;
}

/// A device array of n elements, zero-initialised unless asked otherwise; move-only. A borrowed
/// one (borrow()) is a view of memory that another owns: it frees nothing.
template <class T>
class DeviceVector {
public:
    DeviceVector() = default;
    /// Zeroed before this returns, so that any stream may read it next.
    explicit DeviceVector(std::size_t n) : DeviceVector(n, Uninitialised{}) {
        if (n == 0) return;
        ADIMG_CUDA_CHECK(cudaMemsetAsync(data_, 0, n * sizeof(T), zeroing_stream()));
        ADIMG_CUDA_CHECK(cudaStreamSynchronize(zeroing_stream()));
    }
    DeviceVector(std::size_t n, Uninitialised) : n_(n) {
        if (n == 0) return;
        const cudaError_t status = cudaMalloc(&data_, n * sizeof(T));
        if (status == cudaErrorMemoryAllocation) {
            (void)cudaGetLastError();
            std::size_t free_bytes = 0, total = 0;
            cudaMemGetInfo(&free_bytes, &total);
            throw device_error("out of device memory: needed " + std::to_string(n * sizeof(T) >> 20) +
                               " MiB more, " + std::to_string(free_bytes >> 20) + " MiB of " +
                               std::to_string(total >> 20) + " MiB free; use a lower level");
        }
        ADIMG_CUDA_CHECK(status);
    }
    /// The n elements at `data`, which stay the owner's (one right-hand side of a batch's vectors).
    static DeviceVector borrow(T* data, std::size_t n) {
        DeviceVector v;
        v.data_ = data;
        v.n_ = n;
        v.owned_ = false;
        return v;
    }
    ~DeviceVector() {
        if (data_ && owned_) cudaFree(data_);
    }
    DeviceVector(DeviceVector&& other) noexcept
        : data_(std::exchange(other.data_, nullptr)), n_(std::exchange(other.n_, 0)), owned_(std::exchange(other.owned_, true)) {}
    DeviceVector& operator=(DeviceVector&& other) noexcept {
        std::swap(data_, other.data_);
        std::swap(n_, other.n_);
        std::swap(owned_, other.owned_);
        return *this;
    }
    DeviceVector(const DeviceVector&) = delete;
    DeviceVector& operator=(const DeviceVector&) = delete;

    T* data() { return data_; }
    const T* data() const { return data_; }
    std::size_t size() const { return n_; }

private:
    T* data_ = nullptr;
    std::size_t n_ = 0;
    bool owned_ = true;
};

/// Nine bands in device memory (band-major, as on the host). `transposed` holds the bands of
/// the transposed grid (x and y swapped), made on the first y-line sweep: on it the y-lines are
/// x-lines, whose loads coalesce.
template <class T>
struct DeviceBands {
    int mx = 0, my = 0;
    DeviceVector<T> values;
    mutable DeviceVector<T> transposed;
    NaturalEdges natural;  ///< the grid edges whose nodes are unknowns (nine_bands.hpp)

    BandsView<T> view() const { return {values.data(), mx, my}; }
    BandsView<T> transposed_view() const { return {transposed.data(), my, mx}; }
};

}  // namespace adimg

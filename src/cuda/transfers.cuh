#pragma once
// Vectors between host memory (always double) and the device (float or double), and the bands of
// DeviceGridMatrix::from_host (device_grid_matrix.cu): one DMA from or into page-locked memory
// where no conversion is needed, otherwise through two page-locked staging buffers in chunks, so
// that converting one chunk on the host overlaps the transfer of the previous one
// (docs/performance.md, "Host copies on all cores", "Staging chunk sizes", "b staged with
// streaming stores").

#include "device_memory.cuh"

#include <adimg/pinned_memory.hpp>

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace adimg {

class HostTransfers {
public:
    /// Transfers on `stream`; `chunk_bytes` replaces the measured chunk rule, and `always_staged`
    /// stages even from page-locked memory (both for comparisons).
    HostTransfers(cudaStream_t stream, std::optional<std::size_t> chunk_bytes, bool always_staged);
    ~HostTransfers();
    HostTransfers(const HostTransfers&) = delete;
    HostTransfers& operator=(const HostTransfers&) = delete;

    /// How convert_on_host() writes: through the caches, or with streaming (non-temporal) stores
    /// that bypass them. Streaming suits a staging buffer that the DMA engine reads next: it finds
    /// no dirty lines in the CPU's caches to snoop.
    enum class HostStores { cached, streaming };
    /// dst[i] = D(src[i]) for i < n, on all host cores: one core copies about a third of what
    /// PCIe carries. Defined for double to float, double to double and float to double.
    template <class S, class D>
    static void convert_on_host(const S* src, D* dst, std::size_t n, HostStores stores = HostStores::cached);

    /// Host to device: n values into v (of exactly n entries).
    template <class T>
    void upload(const double* host, std::size_t n, DeviceVector<T>& v) {
        if (n != v.size())
            throw std::logic_error("upload of " + std::to_string(n) + " values into a device vector of " +
                                   std::to_string(v.size()));
        last_direct_ = direct<T>(host);
        if (last_direct_) {
            ADIMG_CUDA_CHECK(cudaMemcpyAsync(v.data(), host, n * sizeof(T), cudaMemcpyHostToDevice, stream_));
        } else {
            const std::size_t chunk = chunk_bytes(n * sizeof(T)) / sizeof(T);
            for (std::size_t first = 0, c = 0; first < n; first += chunk, ++c) {
                const std::size_t count = std::min(chunk, n - first);
                T* stage = reinterpret_cast<T*>(staging(c));
                convert_on_host(host + first, stage, count, HostStores::streaming);
                ADIMG_CUDA_CHECK(cudaMemcpyAsync(v.data() + first, stage, count * sizeof(T), cudaMemcpyHostToDevice, stream_));
                ADIMG_CUDA_CHECK(cudaEventRecord(staged_[c % 2], stream_));
            }
        }
        ADIMG_CUDA_CHECK(cudaStreamSynchronize(stream_));
    }

    /// Device to host: v into host memory that holds v.size() values.
    template <class T>
    void download(const DeviceVector<T>& v, double* host) {
        last_direct_ = direct<T>(host);
        if (last_direct_) {
            ADIMG_CUDA_CHECK(cudaMemcpyAsync(host, v.data(), v.size() * sizeof(T), cudaMemcpyDeviceToHost, stream_));
            ADIMG_CUDA_CHECK(cudaStreamSynchronize(stream_));
            return;
        }
        const std::size_t chunk = chunk_bytes(v.size() * sizeof(T)) / sizeof(T), chunks = (v.size() + chunk - 1) / chunk;
        auto enqueue = [&](std::size_t c) {
            const std::size_t first = c * chunk, count = std::min(chunk, v.size() - first);
            ADIMG_CUDA_CHECK(cudaMemcpyAsync(staging(c), v.data() + first, count * sizeof(T), cudaMemcpyDeviceToHost, stream_));
            ADIMG_CUDA_CHECK(cudaEventRecord(staged_[c % 2], stream_));
        };
        if (chunks > 0) enqueue(0);
        for (std::size_t c = 0; c < chunks; ++c) {
            ADIMG_CUDA_CHECK(cudaEventSynchronize(staged_[c % 2]));
            if (c + 1 < chunks) enqueue(c + 1);
            const std::size_t first = c * chunk, count = std::min(chunk, v.size() - first);
            convert_on_host(reinterpret_cast<const T*>(staging_[c % 2]), host + first, count);
        }
    }

    /// The stream of the transfers from now on (each upload() and download() has finished on the
    /// previous one when it returns).
    void use_stream(cudaStream_t stream) { stream_ = stream; }

    /// Whether the last upload() or download() was one DMA from or into the caller's memory.
    bool last_direct() const { return last_direct_; }

private:
    /// The chunks: about a quarter of the vector, at least 4 MiB and at most 16 MiB. Each chunk
    /// costs a wait for the buffer it reuses, yet the copy and the transfer only overlap with
    /// several chunks.
    std::size_t chunk_bytes(std::size_t total_bytes) const {
        if (forced_chunk_bytes_) return *forced_chunk_bytes_;
        return std::clamp(total_bytes / 4, min_chunk_bytes, max_chunk_bytes);
    }
    /// One DMA straight from or into the caller's memory: the device holds the same type
    /// (double) and the memory is page-locked.
    template <class T>
    bool direct(const void* host) const {
        return std::is_same_v<T, double> && !always_staged_ && is_pinned(host);
    }
    /// Staging buffer c % 2, once the transfer that last used it has finished (both buffers are
    /// taken from the process's pool of page-locked buffers at the first call, and go back to it
    /// with this object).
    char* staging(std::size_t c);
    std::size_t staging_bytes() const { return std::max(max_chunk_bytes, forced_chunk_bytes_.value_or(0)); }

    static constexpr std::size_t min_chunk_bytes = std::size_t(4) << 20, max_chunk_bytes = std::size_t(16) << 20;
    cudaStream_t stream_;
    std::optional<std::size_t> forced_chunk_bytes_;
    bool always_staged_;
    bool last_direct_ = false;
    char* staging_[2] = {nullptr, nullptr};  // page-locked, each as large as the largest chunk; taken when first staged
    cudaEvent_t staged_[2] = {nullptr, nullptr};
};

}  // namespace adimg

#include "cuda_backend.cuh"

#include <cstddef>
#include <cstdlib>
#include <cstring>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "../solver/engine.hpp"

namespace adimg {

namespace kernels {
__global__ void dot_final(const double* partial, int count, double* result) {
    follow_previous_kernel();
    __shared__ double sums[1024];
    double sum = 0.0;
    for (int i = threadIdx.x; i < count; i += blockDim.x) sum += partial[i];
    sum = block_sum(sum, sums, threadIdx.x, blockDim.x);
    if (threadIdx.x == 0) *result = sum;
}
}  // namespace kernels

bool cuda_available(std::string* why) {
    int count = 0;
    const cudaError_t status = cudaGetDeviceCount(&count);
    if (status != cudaSuccess || count == 0) {
        if (why) *why = status != cudaSuccess ? std::string("CUDA reports: ") + cudaGetErrorString(status) : "no CUDA device found";
        (void)cudaGetLastError();
        return false;
    }
    return true;
}

CudaBackend::CudaBackend() {
    std::string why;
    if (!cuda_available(&why)) throw device_error("--backend cuda: " + why + "; use --backend cpu or auto");
    int device = 0;
    ADIMG_CUDA_CHECK(cudaGetDevice(&device));
    cudaDeviceProp props{};
    ADIMG_CUDA_CHECK(cudaGetDeviceProperties(&props, device));
    int optin = 0;
    ADIMG_CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
    shared_limit_ = static_cast<std::size_t>(optin);
    multiprocessors_ = props.multiProcessorCount;
    name_ = std::string(props.name) + " (sm_" + std::to_string(props.major) + std::to_string(props.minor) + ", " +
            std::to_string(props.totalGlobalMem >> 30) + " GiB)";
    // A blocking stream: it waits for work on the legacy default stream, where cudaMalloc'd
    // buffers are zeroed (cudaMemset) and the hierarchy is uploaded, so no kernel can see a
    // buffer before those finish.
    ADIMG_CUDA_CHECK(cudaStreamCreate(&stream_));
    const char* no_graphs = std::getenv("ADIMG_NO_GRAPHS");
    graphs_enabled_ = !(no_graphs && std::string(no_graphs) == "1");
    const char* no_pdl = std::getenv("ADIMG_NO_PDL");
    cudaFuncAttributes compiled{};
    ADIMG_CUDA_CHECK(cudaFuncGetAttributes(&compiled, kernels::dot_final));
    programmatic_launch = props.major >= 9 && compiled.ptxVersion >= 90 && !(no_pdl && std::string(no_pdl) == "1");
    partial_ = DeviceVector<double>(partial_count);
    result_ = DeviceVector<double>(1);
    ADIMG_CUDA_CHECK(cudaMallocHost(&host_result_, sizeof(double)));
    for (int i = 0; i < 2; ++i) {
        ADIMG_CUDA_CHECK(cudaMallocHost(&staging_[i], staging_bytes_));
        ADIMG_CUDA_CHECK(cudaEventCreateWithFlags(&staged_[i], cudaEventDisableTiming));
    }
}

void CudaBackend::forget(const void* key) {
    const auto it = recordings_.find(key);
    if (it == recordings_.end()) return;
    if (it->second.exec) cudaGraphExecDestroy(it->second.exec);
    recordings_.erase(it);
}

CudaBackend::~CudaBackend() {
    for (auto& [key, recording] : recordings_)
        if (recording.exec) cudaGraphExecDestroy(recording.exec);
    for (int i = 0; i < 2; ++i) {
        if (staging_[i]) cudaFreeHost(staging_[i]);
        if (staged_[i]) cudaEventDestroy(staged_[i]);
    }
    if (host_result_) cudaFreeHost(host_result_);
    if (stream_) cudaStreamDestroy(stream_);
}

void CudaBackend::force_transfer_chunk_bytes(std::optional<std::size_t> bytes) {
    if (bytes && *bytes < sizeof(double))
        throw device_error("a transfer chunk of " + std::to_string(*bytes) + " bytes holds no element; use at least 8");
    if (bytes && *bytes > staging_bytes_) {
        ADIMG_CUDA_CHECK(cudaStreamSynchronize(stream_));  // no transfer may still use the old buffers
        char* grown[2] = {nullptr, nullptr};
        for (char*& buffer : grown) {
            if (cudaMallocHost(&buffer, *bytes) != cudaSuccess) {
                (void)cudaGetLastError();
                for (char* b : grown)
                    if (b) cudaFreeHost(b);
                throw device_error("cannot pin " + std::to_string(*bytes >> 20) + " MiB of host memory for transfers");
            }
        }
        for (int i = 0; i < 2; ++i) {
            cudaFreeHost(staging_[i]);
            staging_[i] = grown[i];
        }
        staging_bytes_ = *bytes;
    }
    forced_chunk_bytes_ = bytes;
}

double CudaBackend::read_result() {
    ADIMG_CUDA_CHECK(cudaMemcpyAsync(host_result_, result_.data(), sizeof(double), cudaMemcpyDeviceToHost, stream_));
    ADIMG_CUDA_CHECK(cudaStreamSynchronize(stream_));
    return *host_result_;
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
void CudaBackend::convert_on_host(const S* src, D* dst, std::size_t n, HostStores stores) {
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
template void CudaBackend::convert_on_host(const double*, float*, std::size_t, HostStores);
template void CudaBackend::convert_on_host(const double*, double*, std::size_t, HostStores);
template void CudaBackend::convert_on_host(const float*, double*, std::size_t, HostStores);

std::unique_ptr<SolverEngine> make_cuda_engine(const SolverOptions& options) {
    return std::make_unique<Engine<CudaBackend>>(options);
}

}  // namespace adimg

#include "cuda_backend.cuh"

#include "../solver/engine.hpp"
#include "../solver/backend_contract.hpp"

namespace adimg {

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

MemoryBudget cuda_device_memory() {
    std::size_t free_bytes = 0, total = 0;
    ADIMG_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total));
    return {static_cast<double>(total), "the GPU has"};  // all of it: a new setup may reuse a previous one's storage
}

static_assert(check_backend_contract<CudaBackend>());

namespace {
/// Throws device_error saying why no device is usable.
void check_device() {
    std::string why;
    if (!cuda_available(&why))
        throw device_error("SolverOptions::backend = cuda, but no usable GPU or driver was found (" + why +
                           "); use SolverOptions::backend = cpu, or auto to fall back to the CPU by itself");
}
}  // namespace

CudaBackend::CudaBackend(const CudaPolicy& policy)
    : launch_((check_device(), policy.programmatic_launch)),
      transfers_(launch_.stream(), policy.transfer_chunk_bytes, policy.staged_transfers),
      lines_(launch_, policy.lines),
      fused_restriction_(policy.fused_restriction),
      graphs_(policy.graphs),
      partial_(partial_count),
      result_(1) {
    ADIMG_CUDA_CHECK(cudaMallocHost(&host_result_, sizeof(double)));
}

CudaBackend::~CudaBackend() {
    if (host_result_) cudaFreeHost(host_result_);
}

double CudaBackend::read_result() {
    ADIMG_CUDA_CHECK(cudaMemcpyAsync(host_result_, result_.data(), sizeof(double), cudaMemcpyDeviceToHost, stream()));
    ADIMG_CUDA_CHECK(cudaStreamSynchronize(stream()));
    return *host_result_;
}

}  // namespace adimg

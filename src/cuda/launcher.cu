#include "launcher.cuh"

#include "kernels/launch.cuh"

#include <map>
#include <mutex>

namespace adimg {

namespace {
/// A kernel compiled into this library, whose PTX version tells which architecture the build
/// targeted (a build for an older one, run through the JIT, lacks the programmatic wait).
__global__ void probe() {}

/// The properties of `device`, asked of the runtime once per process: cudaGetDeviceProperties
/// fills every field, some through the driver, and every backend (each Solver, each lane of a
/// batch) starts a Launcher.
const cudaDeviceProp& device_properties(int device) {
    static std::mutex mutex;
    static std::map<int, cudaDeviceProp> known;
    const std::lock_guard<std::mutex> lock(mutex);
    auto it = known.find(device);
    if (it == known.end()) {
        cudaDeviceProp props{};
        ADIMG_CUDA_CHECK(cudaGetDeviceProperties(&props, device));
        it = known.emplace(device, props).first;
    }
    return it->second;
}
}  // namespace

Launcher::Launcher(bool programmatic) {
    int device = 0;
    ADIMG_CUDA_CHECK(cudaGetDevice(&device));
    const cudaDeviceProp& props = device_properties(device);
    int optin = 0;
    ADIMG_CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
    shared_limit_ = static_cast<std::size_t>(optin);
    multiprocessors_ = props.multiProcessorCount;
    name_ = std::string(props.name) + " (sm_" + std::to_string(props.major) + std::to_string(props.minor) + ", " +
            std::to_string(props.totalGlobalMem >> 30) + " GiB)";
    cudaFuncAttributes compiled{};
    ADIMG_CUDA_CHECK(cudaFuncGetAttributes(&compiled, probe));
    programmatic_ = programmatic && props.major >= 9 && compiled.ptxVersion >= 90;
    // A blocking stream: it waits for work on the legacy default stream, where cudaMalloc'd
    // buffers are zeroed (cudaMemset), so no kernel can see a buffer before that finishes.
    ADIMG_CUDA_CHECK(cudaStreamCreate(&stream_));
}

Launcher::~Launcher() {
    if (stream_) cudaStreamDestroy(stream_);
}

}  // namespace adimg

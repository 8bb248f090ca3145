// Built instead of src/cuda/ when the build has no CUDA backend; ADIMG_NO_CUDA_REASON (from
// cmake/cuda_backend.cmake) says why: no compiler, no toolkit, or ADIMG_ENABLE_CUDA=OFF.
#include <adimg/device.hpp>
#include <adimg/error.hpp>
#include <adimg/pinned_memory.hpp>
#include <adimg/solver.hpp>

#include <string>

#include "../solver/engine.hpp"

namespace adimg {

bool cuda_available(std::string* why) {
    if (why) *why = std::string("this build of adimg has no CUDA backend: ") + ADIMG_NO_CUDA_REASON;
    return false;
}

std::unique_ptr<SolverEngine> make_cuda_engine(const SolverOptions&) {
    throw device_error(std::string("SolverOptions::backend = cuda, but this build of adimg has no CUDA backend: ") +
                       ADIMG_NO_CUDA_REASON + "; rebuild with the CUDA backend, or use SolverOptions::backend = cpu");
}

MemoryBudget cuda_device_memory() {
    throw device_error(std::string("the GPU's memory was asked for, but this build of adimg has no CUDA backend: ") +
                       ADIMG_NO_CUDA_REASON);
}

// Without CUDA there is no device memory: a DeviceGridMatrix cannot be made.
struct DeviceGridMatrix::Storage {};
DeviceGridMatrix::DeviceGridMatrix(Grid grid, const MatrixChecks& checks) : grid_(std::move(grid)), checks_(checks) {
    throw device_error(std::string("DeviceGridMatrix: this build of adimg has no CUDA backend: ") + ADIMG_NO_CUDA_REASON +
                       "; use GridMatrix with host arrays");
}
DeviceGridMatrix::DeviceGridMatrix(Grid grid, const double*, const MatrixChecks& checks, DeviceStream)
    : DeviceGridMatrix(std::move(grid), checks) {}
DeviceGridMatrix DeviceGridMatrix::from_host(Grid grid, const double*, const MatrixChecks& checks, DeviceStream) {
    return DeviceGridMatrix(std::move(grid), checks);
}
DeviceGridMatrix::~DeviceGridMatrix() = default;
DeviceGridMatrix::DeviceGridMatrix(DeviceGridMatrix&&) noexcept = default;
DeviceGridMatrix& DeviceGridMatrix::operator=(DeviceGridMatrix&&) noexcept = default;
double* allocate_device_doubles(std::size_t) {
    throw device_error(std::string("device memory: this build of adimg has no CUDA backend: ") + ADIMG_NO_CUDA_REASON);
}
void free_device_doubles(double*) noexcept {}
void copy_device_doubles(double*, const double*, std::size_t, DeviceStream) {
    throw device_error(std::string("device memory: this build of adimg has no CUDA backend: ") + ADIMG_NO_CUDA_REASON);
}
// Unreachable: without CUDA the constructor throws, so no DeviceGridMatrix exists.
void DeviceGridMatrix::assign(const double*, DeviceStream) {}
void DeviceGridMatrix::assign_from_host(const double*, DeviceStream) {}
const double* DeviceGridMatrix::values() const { return nullptr; }

// Without CUDA there is no pinned memory: ordinary memory serves the same calls.
void* allocate_pinned(std::size_t bytes) { return ::operator new(bytes); }
void free_pinned(void* p) noexcept { ::operator delete(p); }
bool is_pinned(const void*) noexcept { return false; }

}  // namespace adimg

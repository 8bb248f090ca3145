#include "../solver/engine.hpp"
#include "cpu_backend.hpp"

#include <thread>

#ifdef _OPENMP
#include <omp.h>
#endif

namespace adimg {

std::string CpuBackend::name() const {
#ifdef _OPENMP
    return "CPU, " + std::to_string(omp_get_max_threads()) + " OpenMP threads";
#else
    return "CPU, 1 thread (built without OpenMP)";
#endif
}

std::unique_ptr<SolverEngine> make_cpu_engine(const SolverOptions& options) {
    return std::make_unique<Engine<CpuBackend>>(options);
}

}  // namespace adimg

#include "../solver/engine.hpp"
#include "cpu_backend.hpp"

#include <cstdlib>
#include <thread>

#ifdef _OPENMP
#include <omp.h>
#endif

namespace adimg {

namespace {

/// The library's default wait policy for OpenMP (include/adimg/solver.hpp): passive, unless the
/// environment says otherwise. Waiting threads that spin (the runtimes' default) take the cores
/// that the working threads need as soon as another process is busy on the machine: A2 at L=8
/// on two cores then ran 15-20 times slower. GNU OpenMP reads OMP_WAIT_POLICY and GOMP_SPINCOUNT
/// once, in a constructor of libgomp that runs before any constructor of the program, so the
/// setting is made from the program's .preinit_array, which the dynamic loader runs before the
/// constructors of every shared library. This object is linked into every program that can
/// create a CPU engine.
void default_passive_wait_policy(int, char**, char**) {
    if (!std::getenv("OMP_WAIT_POLICY") && !std::getenv("GOMP_SPINCOUNT")) setenv("OMP_WAIT_POLICY", "passive", 0);
}

#if defined(__linux__) && defined(__GNUC__)
[[gnu::section(".preinit_array"), gnu::used]] void (*const set_default_wait_policy)(int, char**, char**) =
    default_passive_wait_policy;
#endif

}  // namespace

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

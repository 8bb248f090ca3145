#include "../solver/engine.hpp"
#include "../solver/backend_contract.hpp"
#include "cpu_backend.hpp"

#include <cstdlib>
#include <thread>

#ifdef _OPENMP
#include <omp.h>
#endif

namespace adimg {

static_assert(check_backend_contract<CpuBackend>());

namespace {

/// The library's default wait policy for OpenMP (include/adimg/solver.hpp): passive, unless the
/// environment says otherwise. Waiting threads that spin (the runtimes' default) take the cores
/// that the working threads need as soon as another process is busy on the machine: A2 at L=8
/// on two cores then ran 15-20 times slower. Runtimes that read the environment at their first
/// parallel region (LLVM's libomp, Intel's) take the setting made here, before main(); GNU
/// OpenMP (libgomp) reads it while the program is loaded, before any code of the program runs
/// (even a .preinit_array entry, whose environment the C library replaces afterwards), so the
/// adimg tool sets it and restarts itself (src/cli/main.cpp), and a program of your own sets
/// OMP_WAIT_POLICY=passive in its environment. This object is linked into every program that can
/// create a CPU engine.
[[gnu::constructor]] void default_passive_wait_policy() {
    if (!std::getenv("OMP_WAIT_POLICY") && !std::getenv("GOMP_SPINCOUNT")) setenv("OMP_WAIT_POLICY", "passive", 0);
}

}  // namespace

std::string CpuBackend::name() const {
#ifdef _OPENMP
    const int threads = omp_get_max_threads();
    return "CPU, " + std::to_string(threads) + " OpenMP thread" + (threads == 1 ? "" : "s");
#else
    return "CPU, 1 thread (built without OpenMP)";
#endif
}

std::unique_ptr<SolverEngine> make_cpu_engine(const SolverOptions& options) {
    return std::make_unique<Engine<CpuBackend>>(options);
}

}  // namespace adimg

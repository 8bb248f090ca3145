#pragma once
// cuBLAS and cuFFT, loaded the first time the fast direct solver needs them instead of when the
// program starts. Linked the usual way, every program that uses adimg paid for both at start-up
// whether it used them or not: loading libcublas (with libcublasLt) took a process 0.05-0.26 s
// and 0.16 GiB of host memory on the H200 machine, libcufft 0.004-0.045 s
// (bench/results/h200/startup/library-load.txt); the multigrid solver needs neither.
//
// Each library is one table of the entry points adimg calls, resolved by name (dlsym) from the
// library the CUDA toolkit installed, opened by its soname (from the headers this build used).
// Only the fast direct solver's GPU code calls cuBLAS and cuFFT, and only through these tables.

#include <cublas_v2.h>
#include <cufft.h>

#include <string>

namespace adimg::cuda_libraries {

struct Cublas {
    decltype(&cublasCreate_v2) create;
    decltype(&cublasDestroy_v2) destroy;
    decltype(&cublasSetStream_v2) set_stream;
    decltype(&cublasDgemm_v2) dgemm;
    decltype(&cublasGetStatusString) status_string;
};

struct Cufft {
    decltype(&cufftCreate) create;
    decltype(&cufftSetAutoAllocation) set_auto_allocation;
    decltype(&cufftMakePlanMany) make_plan_many;
    decltype(&cufftSetWorkArea) set_work_area;
    decltype(&cufftSetStream) set_stream;
    decltype(&cufftExecD2Z) exec_d2z;
    decltype(&cufftDestroy) destroy;
};

/// The tables, loaded at the first call (thread-safe); the libraries stay loaded for the rest of
/// the process. Throw device_error naming the library, the places tried and what to do if it
/// cannot be loaded or lacks an entry point; a later call tries again.
const Cublas& cublas();
const Cufft& cufft();

/// The sonames the tables are loaded from ("libcublas.so.13", "libcufft.so.12").
std::string cublas_soname();
std::string cufft_soname();

/// dlopen of `soname`: by the dynamic loader's search (LD_LIBRARY_PATH, the RUNPATH of the
/// program or library adimg is in, the loader's cache), then from the toolkit this build used.
/// Throws device_error naming `soname` if neither finds it. The handle is never closed.
void* open_library(const std::string& soname);

}  // namespace adimg::cuda_libraries

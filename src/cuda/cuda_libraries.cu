#include "cuda_libraries.cuh"

#include <adimg/error.hpp>

#include <dlfcn.h>

#include <string>

#ifndef ADIMG_CUDA_LIBRARY_DIR
#error "ADIMG_CUDA_LIBRARY_DIR (the CUDA toolkit's library folder) is set by src/cuda/CMakeLists.txt"
#endif

namespace adimg::cuda_libraries {
namespace {

#define ADIMG_SONAME_STRING(x) #x
#define ADIMG_SONAME_VERSION(x) ADIMG_SONAME_STRING(x)

/// dlerror()'s message, or a placeholder when it has none.
std::string last_dl_error() {
    const char* message = dlerror();
    return message ? message : "no message from the dynamic loader";
}

/// Fills `entry` with the symbol `name` of the library `handle`, or throws.
template <class Function>
void resolve(void* handle, const std::string& soname, const char* name, Function& entry) {
    entry = reinterpret_cast<Function>(dlsym(handle, name));
    if (!entry)
        throw device_error(soname + " lacks " + name + " (" + last_dl_error() + "): it is older than the CUDA toolkit "
                           "adimg was built with; install the toolkit's library or put its folder on LD_LIBRARY_PATH");
}

Cublas load_cublas() {
    const std::string soname = cublas_soname();
    void* handle = open_library(soname);
    Cublas t{};
    resolve(handle, soname, "cublasCreate_v2", t.create);
    resolve(handle, soname, "cublasDestroy_v2", t.destroy);
    resolve(handle, soname, "cublasSetStream_v2", t.set_stream);
    resolve(handle, soname, "cublasDgemm_v2", t.dgemm);
    resolve(handle, soname, "cublasGetStatusString", t.status_string);
    return t;
}

Cufft load_cufft() {
    const std::string soname = cufft_soname();
    void* handle = open_library(soname);
    Cufft t{};
    resolve(handle, soname, "cufftCreate", t.create);
    resolve(handle, soname, "cufftSetAutoAllocation", t.set_auto_allocation);
    resolve(handle, soname, "cufftMakePlanMany", t.make_plan_many);
    resolve(handle, soname, "cufftSetWorkArea", t.set_work_area);
    resolve(handle, soname, "cufftSetStream", t.set_stream);
    resolve(handle, soname, "cufftExecD2Z", t.exec_d2z);
    resolve(handle, soname, "cufftDestroy", t.destroy);
    return t;
}

}  // namespace

std::string cublas_soname() { return "libcublas.so." ADIMG_SONAME_VERSION(CUBLAS_VER_MAJOR); }
std::string cufft_soname() { return "libcufft.so." ADIMG_SONAME_VERSION(CUFFT_VER_MAJOR); }

void* open_library(const std::string& soname) {
    if (void* handle = dlopen(soname.c_str(), RTLD_NOW | RTLD_LOCAL)) return handle;
    const std::string first_error = last_dl_error();
    const std::string in_toolkit = std::string(ADIMG_CUDA_LIBRARY_DIR) + "/" + soname;
    if (void* handle = dlopen(in_toolkit.c_str(), RTLD_NOW | RTLD_LOCAL)) return handle;
    throw device_error("the fast direct solver on the GPU needs " + soname + " (CUDA toolkit), which could not be "
                       "loaded (" + first_error + "; nor from " + in_toolkit + ": " + last_dl_error() +
                       "): install the toolkit's library or put its folder on LD_LIBRARY_PATH, or solve with "
                       "multigrid, which does not need it");
}

// A function-local static is initialised once, under the C++ runtime's lock; a load that throws
// leaves it uninitialised, and the next call tries again.
const Cublas& cublas() {
    static const Cublas table = load_cublas();
    return table;
}

const Cufft& cufft() {
    static const Cufft table = load_cufft();
    return table;
}

}  // namespace adimg::cuda_libraries

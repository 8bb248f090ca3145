// mpi_cuda_aware(): the MPI library's own answer. The symbol is looked up at run time rather than
// linked, because the binary may run with another build of the same ABI (the GPU machine's Open
// MPI, not the one it was compiled against) that may or may not export it; the compile-time
// MPIX_CUDA_AWARE_SUPPORT of the headers says nothing about that library.

#include "cuda_aware_mpi.hpp"

#include <dlfcn.h>

namespace adimg {

bool mpi_cuda_aware() {
    using Query = int (*)();
    const auto query = reinterpret_cast<Query>(dlsym(RTLD_DEFAULT, "MPIX_Query_cuda_support"));
    return query != nullptr && query() == 1;
}

}  // namespace adimg

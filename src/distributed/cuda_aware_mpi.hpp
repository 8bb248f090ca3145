#pragma once
// Whether the MPI library the program runs with passes device memory itself (CUDA-aware), asked
// of that library at run time, never assumed from the headers it was built against.

namespace adimg {

/// True if the running MPI library has MPIX_Query_cuda_support (Open MPI's extension) and it
/// answers 1; false otherwise, including for MPI libraries without the extension.
bool mpi_cuda_aware();

}  // namespace adimg

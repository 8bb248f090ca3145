// The GPU ranks' test program: the MPI test program (main.cpp) with its check that every rank
// has a usable device, skipping the run (exit 77) where one has none.
#define ADIMG_MPI_TESTS_NEED_GPU
#include "main.cpp"

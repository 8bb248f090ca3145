// The MPI test program: Catch2 on every rank, rank 0's report printed, the exit status the same
// on every rank (a failure on any rank fails the run). Built with ADIMG_MPI_TESTS_NEED_GPU
// (gpu_main.cpp, the GPU ranks' tests), every rank reports the run skipped (exit code 77, which
// ctest shows as "Skipped") where a rank sees no usable CUDA device.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <mpi.h>

#ifdef ADIMG_MPI_TESTS_NEED_GPU
#include <adimg/solver.hpp>

#include <iostream>
#include <string>

/// Whether every rank has a usable device; rank 0 says why not.
static bool every_rank_has_a_gpu(int rank) {
    std::string why;
    int usable = adimg::cuda_available(&why) ? 1 : 0, everywhere = 0;
    MPI_Allreduce(&usable, &everywhere, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!everywhere && rank == 0)
        std::cout << "GPU rank tests skipped: " << (usable ? "a rank has no usable GPU" : why) << "\n";
    return everywhere;
}
#endif

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
#ifdef ADIMG_MPI_TESTS_NEED_GPU
    if (!every_rank_has_a_gpu(rank)) {
        MPI_Finalize();
        return 77;
    }
#endif
    Catch::Session session;
    int status = session.applyCommandLine(argc, argv);
    if (status == 0) {
        if (rank != 0) session.configData().outputFilename = "/dev/null";
        status = session.run();
    }
    int worst = 0;
    MPI_Allreduce(&status, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MPI_Finalize();
    return worst;
}

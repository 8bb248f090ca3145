// The GPU ranks' test program: like main.cpp, but every rank reports the run skipped (exit code
// 77, which ctest shows as "Skipped") where a rank sees no usable CUDA device.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <adimg/solver.hpp>

#include <mpi.h>

#include <iostream>
#include <string>

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    std::string why;
    int usable = adimg::cuda_available(&why) ? 1 : 0, everywhere = 0;
    MPI_Allreduce(&usable, &everywhere, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!everywhere) {
        if (rank == 0) std::cout << "GPU rank tests skipped: " << (usable ? "a rank has no usable GPU" : why) << "\n";
        MPI_Finalize();
        return 77;
    }
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

// The MPI test program: Catch2 on every rank, rank 0's report printed, the exit status the same
// on every rank (a failure on any rank fails the run).
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <mpi.h>

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
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

#pragma once
// What the distributed backend and adimg::DistributedSolver share: the ranks, the strips of the
// levels of the current setup, the y-line method asked for and what each level chose.

#include <adimg/distributed.hpp>

#include "communicator.hpp"
#include "strip_layout.hpp"

#include <mpi.h>

#include <string>
#include <vector>

namespace adimg {

/// What the backend and the DistributedSolver share: the ranks, the strips of the levels of the
/// current setup, the y-line method asked for and what each level chose.
struct DistributedContext {
    explicit DistributedContext(MPI_Comm comm, DistributedLines lines_) : comm(comm), lines(lines_) {}
    Communicator comm;
    StripLayout layout;
    int coarsest_level = 0;  ///< the refinement level of the layout's level 0
    DistributedLines lines;
    std::vector<LineSolveInfo> line_solves;  ///< per level and precision, as the matrices were made
    std::string transport;                   ///< what the ranks' messages travel by (the backend's choice)
};

}  // namespace adimg

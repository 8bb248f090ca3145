#pragma once
// `adimg-mpi solve --solver fast-direct`: the distributed fast direct solve of a case
// (adimg::DistributedFastDirectSolver), the command-line side; adimg_mpi.cpp parses the options
// and calls it.

#include <adimg/options.hpp>
#include <adimg/problems.hpp>

#include <boost/program_options.hpp>

#include <string>

namespace adimg::cli {

/// Solves `problem` on `level` on every rank of MPI_COMM_WORLD; rank 0 prints and writes `out_path`
/// (if not empty). Of the solver options only --backend (cpu or auto: CPU ranks) and --digits
/// apply; --lines and any other given (`given` is the parsed command line) is an input_error,
/// as `adimg solve --solver fast-direct` refuses them. Returns 0 if the solve converged, else 1.
int solve_fast_direct(const CaseSpec& problem, int level, const SolverOptions& options,
                      const boost::program_options::variables_map& given, const std::string& out_path, int rank);

}  // namespace adimg::cli

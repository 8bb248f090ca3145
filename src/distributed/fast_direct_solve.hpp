#pragma once
// `adimg-mpi solve --solver fast-direct`: the distributed fast direct solve of a case
// (adimg::DistributedFastDirectSolver), the command-line side; adimg_mpi.cpp parses the options
// and calls it.

#include <adimg/distributed_fast_direct.hpp>
#include <adimg/options.hpp>
#include <adimg/problems.hpp>

#include <boost/program_options.hpp>

#include <functional>
#include <memory>
#include <string>

namespace adimg::cli {

/// Solves `problem` on `level` on every rank of MPI_COMM_WORLD; rank 0 prints and writes `out_path`
/// (if not empty). Of the solver options only --backend (cuda: GPU ranks; cpu: CPU ranks; auto:
/// GPU ranks where every rank has a GPU) and --digits apply; --lines and any other given
/// (`given` is the parsed command line) is an input_error, as `adimg solve --solver fast-direct`
/// refuses them; `min_refinements` is FastDirectOptions::min_refinements (--min-refinements).
/// `start` makes the solver on every rank (adimg_mpi.cpp: a device error shared by every rank is
/// printed once). Returns 0 if the solve converged, else 1.
int solve_fast_direct(const CaseSpec& problem, int level, const SolverOptions& options, int min_refinements,
                      const std::function<std::unique_ptr<DistributedFastDirectSolver>(const FastDirectOptions&)>& start,
                      const boost::program_options::variables_map& given, const std::string& out_path, int rank);

}  // namespace adimg::cli

#pragma once
// What differs between the programs that run the one `solve` command (command_solve.cpp): `adimg
// solve` in this process (serial_solve.hpp) and `mpirun -np P adimg-mpi solve` over MPI ranks
// (src/distributed/adimg_mpi.cpp). The options, the checks, the report and --json are the
// command's; a front end adds its own options, says which process reports and writes, and makes
// the multigrid executor.

#include "cli_options.hpp"
#include "multigrid_executor.hpp"

#include <adimg/options.hpp>
#include <adimg/problems.hpp>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace adimg::cli {

/// The solvers of --solver.
enum class Method { multigrid, direct, fast_direct };
inline const Choices<Method> methods = {
    {"multigrid", Method::multigrid}, {"direct", Method::direct}, {"fast-direct", Method::fast_direct}};

class SolveFrontEnd {
public:
    virtual ~SolveFrontEnd() = default;

    /// How messages name the command: "adimg solve", "adimg-mpi solve".
    virtual std::string command() const = 0;
    /// The usage lines that --help prints above the options.
    virtual std::string usage() const = 0;
    /// Adds the options of this front end alone (adimg-mpi: --lines).
    virtual void add_options(po::options_description&) {}
    /// Throws input_error for what this front end does not run (adimg-mpi: --solver direct).
    virtual void refuse(Method, const po::variables_map&) const {}
    /// Whether this process prints the report and writes the files (adimg-mpi: rank 0 alone).
    virtual bool reports() const { return true; }
    /// Runs `check` of the output files where they are written, and throws its input_error in
    /// every process of the command (adimg-mpi: on rank 0, then on every rank).
    virtual void check_outputs(const std::function<void()>& check) const { check(); }
    /// Before the problem is loaded: throws device_error if options.backend is cuda and no GPU can
    /// be had, saying why (adimg-mpi leaves it to its solver's constructor, a collective check).
    virtual void check_device(const SolverOptions&) const {}
    /// The multigrid solver with these options (the effective ones: what runs is what is printed).
    virtual std::unique_ptr<MultigridExecutor> multigrid(const SolverOptions& options) const = 0;
    /// adimg-mpi's fast direct solve of the case (src/distributed/fast_direct_solve.cpp), which
    /// prints its own report and returns the exit status; nothing where the command's own fast
    /// direct solve runs.
    virtual std::optional<int> fast_direct(const ProblemOptions&, const SolverOptions&, const po::variables_map&,
                                           const std::string& /*out_path*/) const {
        return std::nullopt;
    }
};

/// The solve command on `args` (after "solve"), run by `front`. Returns the exit status: 0
/// success, 1 a solve that did not converge; throws input_error, device_error, write_error.
int run_solve(const std::vector<std::string>& args, SolveFrontEnd& front);

}  // namespace adimg::cli

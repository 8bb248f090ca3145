#pragma once
// The command-line options, each registered once with its name, help and default (the AmgX
// habit), and turned into the library's structs here.

#include <adimg/problems.hpp>
#include <adimg/options.hpp>

#include <boost/program_options.hpp>

#include <string>
#include <vector>

namespace adimg::cli {

namespace po = boost::program_options;

/// Which problem: a built-in case or a case file, on a refinement level.
struct ProblemOptions {
    std::string case_name;
    std::string case_file;
    int level = 8;
};
void add_problem_options(po::options_description& desc, ProblemOptions& problem, int default_level);
/// The case named by --case or --case-file (exactly one). Throws input_error.
CaseSpec resolve_case(const ProblemOptions& problem);
/// Throws input_error if the level is out of range or the problem would not fit in memory.
void check_level(int level, std::size_t bytes_per_node, const char* what);

/// Checks, before any work, that each non-empty path can be written: its directory exists and
/// it is not a directory itself. Throws input_error naming the path.
void check_output_paths(const std::vector<std::string>& paths);

/// Solver settings as the CLI spells them.
struct SolverOptionStrings {
    std::string backend = "auto", precision = "mixed", smoother = "adi", inner = "digits:2",
                coarse_solver = "direct", coarse_preconditioner = "jacobi";
    SolverOptions numbers;
};
void add_solver_options(po::options_description& desc, SolverOptionStrings& solver);
/// Parses the names and validates every field. Throws input_error.
SolverOptions resolve_solver_options(const SolverOptionStrings& solver);

/// Parses `args` against `desc`; returns false if --help was given (the help has been printed).
/// Throws input_error for unknown options, missing values and wrong types.
bool parse_command_line(const std::vector<std::string>& args, const po::options_description& desc,
                        const std::string& usage);

}  // namespace adimg::cli

#pragma once
// The command-line options, each registered once with its name, help and default (the AmgX
// habit): the problem options here, the solver options from the library's option table.

#include <adimg/error.hpp>
#include <adimg/problems.hpp>
#include <adimg/options.hpp>

#include <boost/program_options.hpp>

#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace adimg::cli {

namespace po = boost::program_options;

/// Which problem: a built-in case or a case file, on a refinement level, stacked in y.
struct ProblemOptions {
    std::string case_name;
    std::string case_file;
    static constexpr int level_not_given = std::numeric_limits<int>::min();
    int level = level_not_given;  ///< until given or set by resolve_level()
    int default_level = 8;   ///< the level without --level and without element counts
    std::string elements;    ///< --elements NXxNY, or empty
    std::string stack = "1";  ///< copies of the case: P in y, or QxP (adimg::stacked(), for weak scaling)
};
void add_problem_options(po::options_description& desc, ProblemOptions& problem, int default_level);
/// The case named by --case or --case-file (exactly one), stacked as --stack says, on the
/// elements of --elements if given (else of the case file's `elements`, if any). Throws input_error.
CaseSpec resolve_case(const ProblemOptions& problem);
/// Sets the level where --level was not given: the finest level of the case's element counts,
/// else the command's default. Throws input_error where the case cannot be read.
void resolve_level(ProblemOptions& problem);
/// Throws input_error if the level is out of range or the case's grid on it would not fit in memory.
void check_level(const CaseSpec& spec, int level, std::size_t bytes_per_node, const char* what);

/// Checks, before any work, that each non-empty path can be written: its directory exists and
/// takes new files, and it is not a directory itself. Throws input_error naming the path.
void check_output_paths(const std::vector<std::string>& paths);

/// A file option as given: its flag ("out") and its path ("" if not given).
struct FileOption {
    const char* flag;
    std::string path;
};
/// Throws input_error naming both options if an output names the same file as another output
/// or as an input (by name, or as the same file on disk): one output would replace the other,
/// or the input it was made from.
void check_distinct_files(const std::vector<FileOption>& outputs, const std::vector<FileOption>& inputs);

/// Whether the command line gave option `name` (not just its default).
bool given(const po::variables_map& vm, const std::string& name);

/// The fields of the option table ("pre_smooth") whose flags the command line gave, for
/// check_given_options() (adimg/options.hpp).
std::vector<std::string> given_fields(const po::variables_map& vm);

/// Registers every option of the option table (adimg/options.hpp) under its flag, with its help,
/// what it allows and its default. Parsing sets the fields of `options`; a bad value is an
/// input_error naming the field (with_flags() respells it).
void add_solver_options(po::options_description& desc, SolverOptions& options);

/// An enum option of the CLI alone, taken by name (`--solver direct`): its names in the order of
/// the enum's values.
template <class Enum>
using Choices = std::vector<std::pair<std::string, Enum>>;
/// The name of `value` in `choices`.
template <class Enum>
std::string name_of(const Choices<Enum>& choices, Enum value) {
    for (const auto& [name, v] : choices)
        if (v == value) return name;
    return "?";
}
/// The value of such an option, for desc.add_options(): `target` keeps its value unless the
/// option is given, and a name not in `choices` is an input_error that lists them.
template <class Enum>
po::typed_value<std::string>* named_choice(Enum& target, const std::string& flag, const Choices<Enum>& choices) {
    auto choose = [&target, flag, choices](const std::string& text) {
        std::string names;
        for (const auto& [name, value] : choices) {
            if (text == name) {
                target = value;
                return;
            }
            names += (names.empty() ? "" : ", ") + name;
        }
        throw input_error("--" + flag + " '" + text + "' is not allowed; use one of " + names);
    };
    return po::value<std::string>()->default_value(name_of(choices, target))->notifier(choose);
}

/// Parses `args` against `desc`; returns false if --help was given (the help has been printed).
/// Throws input_error for unknown options, missing or empty values and wrong types. `parsed`,
/// if given, receives what the command line set (for given()).
bool parse_command_line(const std::vector<std::string>& args, const po::options_description& desc,
                        const std::string& usage, po::variables_map* parsed = nullptr);

}  // namespace adimg::cli

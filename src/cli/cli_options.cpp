#include "cli_options.hpp"
#include "flag_spelling.hpp"

#include <adimg/error.hpp>
#include <adimg/io.hpp>

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <filesystem>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <limits>
#include <sstream>
#include <system_error>

namespace adimg::cli {

void add_problem_options(po::options_description& desc, ProblemOptions& problem, int default_level) {
    problem.default_level = default_level;
    desc.add_options()
        ("case", po::value(&problem.case_name), "built-in case: U1 U2 U3 A1 A2 A3 A4 A5")
        ("case-file", po::value(&problem.case_file), "your own case file (see cases/*.cfg for the keys)")
        ("level", po::value(&problem.level),
         ("refinement level L: (2^L+1)^2 nodes (default " + std::to_string(default_level) +
          "); with --elements, a level of their mesh's hierarchy (default its finest)")
             .c_str())
        ("elements", po::value(&problem.elements),
         "the finest mesh by its elements NXxNY, any counts (e.g. 1000x600), graded as the case's levels; its levels "
         "are numbered as a matrix's grid of that size (docs/usage.md)")
        ("stack", po::value(&problem.stack)->default_value("1"),
         "the case P times in y, or QxP: Q times in x and P in y, for weak scaling: (Q 2^L+1) x (P 2^L+1) nodes, "
         "each copy meshed (graded) as the case, its layers on the domain's edges up to two copies a direction");
}

CaseSpec resolve_case(const ProblemOptions& problem) {
    if (!problem.case_name.empty() && !problem.case_file.empty())
        throw input_error("give either --case or --case-file, not both");
    // P copies in y, or QxP: Q in x and P in y.
    const auto copies = problem.stack.find_first_of("xX") == std::string::npos ? parse_sizes("1x" + problem.stack)
                                                                                : parse_sizes(problem.stack);
    if (!copies || copies->first > max_stack || copies->second > max_stack)
        throw input_error("--stack '" + problem.stack + "' is not allowed; give the copies of the case in y (P) or in x " +
                          "and y (QxP), each in 1.." + std::to_string(max_stack));
    if (problem.case_file.empty() && problem.case_name.empty())
        throw input_error("no problem given: use --case U1 (or U2 U3 A1..A5) or --case-file FILE");
    CaseSpec spec = stacked(problem.case_file.empty() ? builtin_case(problem.case_name) : read_case_file(problem.case_file),
                            copies->first, copies->second);
    if (!problem.elements.empty()) {
        const auto counts = parse_sizes(problem.elements);
        if (!counts)
            throw input_error("--elements '" + problem.elements +
                              "' is not allowed; give the elements in x and y as NXxNY, e.g. 1000x600");
        spec = with_elements(spec, counts->first, counts->second);
    }
    return spec;
}

void resolve_level(ProblemOptions& problem) {
    if (problem.level != ProblemOptions::level_not_given) return;
    const bool has_case = !problem.case_name.empty() || !problem.case_file.empty();
    const CaseSpec spec = has_case ? resolve_case(problem) : CaseSpec{};
    problem.level = spec.has_elements() ? spec.finest_level() : problem.default_level;
}

void check_level(const CaseSpec& spec, int level, std::size_t bytes_per_node, const char* what) {
    const MemoryBudget memory = host_memory();
    // A mesh of element counts has its own levels (CaseSpec::mesh() checks the range); their nodes count.
    if (!spec.has_elements()) adimg::check_level(level, static_cast<double>(bytes_per_node), what, memory, "--level");
    // A stacked case has its copies' nodes, more than the level's square grid that check_level() counts.
    if (spec.x.copies > 1 || spec.y.copies > 1 || spec.has_elements())
        check_memory(spec.nodes(level), static_cast<double>(bytes_per_node),
                     "--level " + std::to_string(level) + " of case " + spec.name + ": " + what, memory,
                     "use a lower --level, fewer --elements or a smaller --stack");
}

void check_output_paths(const std::vector<std::string>& paths) {
    namespace fs = std::filesystem;
    for (const std::string& path : paths) {
        if (path.empty()) continue;
        const fs::path p(path);
        std::error_code ec;
        if (fs::is_directory(p, ec)) throw input_error("cannot write '" + path + "': it is a directory");
        // A file is written beside its target and renamed into place (adimg::OutputFile), so its
        // directory must take new files; a device or a pipe is written in place.
        if (fs::exists(p, ec) && !fs::is_regular_file(p, ec)) continue;
        const fs::path file = link_destination(p);  // where OutputFile writes
        if (file.empty())
            throw input_error("cannot write '" + path + "': its symbolic links form a loop; check where they point");
        const std::string through = file == p ? "" : " (its symbolic link ends at '" + file.string() + "')";
        const fs::path dir = file.has_parent_path() ? file.parent_path() : fs::path(".");
        if (!fs::is_directory(dir, ec))
            throw input_error("cannot write '" + path + "'" + through + ": the directory '" + dir.string() +
                              "' does not exist");
        if (::access(dir.c_str(), W_OK | X_OK) != 0)
            throw input_error("cannot write '" + path + "'" + through + ": the directory '" + dir.string() +
                              "' does not allow new files (" + std::generic_category().message(errno) + ")");
    }
}

namespace {

/// Whether two paths name one file: the same text, the same path once normalised, or (when both
/// exist) the same file on disk, through links included.
bool same_file(const std::string& a, const std::string& b) {
    if (a == b) return true;
    std::error_code ec1, ec2;
    const auto ca = std::filesystem::weakly_canonical(a, ec1), cb = std::filesystem::weakly_canonical(b, ec2);
    if (!ec1 && !ec2 && ca == cb) return true;
    std::error_code ec;
    return std::filesystem::exists(a, ec) && std::filesystem::exists(b, ec) && std::filesystem::equivalent(a, b, ec);
}

}  // namespace

void check_distinct_files(const std::vector<FileOption>& outputs, const std::vector<FileOption>& inputs) {
    for (std::size_t k = 0; k < outputs.size(); ++k) {
        const FileOption& out = outputs[k];
        if (out.path.empty()) continue;
        for (std::size_t m = k + 1; m < outputs.size(); ++m)
            if (!outputs[m].path.empty() && same_file(out.path, outputs[m].path))
                throw input_error(std::string("--") + out.flag + " and --" + outputs[m].flag + " name the same file '" +
                                  outputs[m].path + "'; one would replace the other: give each output a file of its own");
        for (const FileOption& in : inputs)
            if (!in.path.empty() && same_file(out.path, in.path))
                throw input_error(std::string("--") + out.flag + " names the file that --" + in.flag + " reads ('" +
                                  out.path + "'); writing it would replace the input: choose another file for --" +
                                  out.flag);
    }
}

bool given(const po::variables_map& vm, const std::string& name) { return vm.count(name) && !vm[name].defaulted(); }

std::vector<std::string> given_fields(const po::variables_map& vm) {
    std::vector<std::string> fields;
    for (const OptionSpec& spec : option_table())
        if (given(vm, spec.flag)) fields.push_back(spec.field);
    return fields;
}

void add_solver_options(po::options_description& desc, SolverOptions& options) {
    for (const OptionSpec& spec : option_table()) {
        if (spec.type() == OptionType::boolean) {
            auto given = [&options, &spec](bool on) {
                if (on) spec.set(options, switch_text(spec));
            };
            const std::string help = std::string(spec.switch_sets ? "turn on: " : "turn off: ") + spec.help;
            desc.add_options()(spec.flag, po::bool_switch()->notifier(given), help.c_str());
            continue;
        }
        // Every value goes to the table as the text given; check_value() has checked its type.
        auto assign = [&options, &spec](const std::string& text) { spec.set(options, text); };
        const bool number = spec.type() == OptionType::integer || spec.type() == OptionType::real;
        const std::string help = spec.help + std::string(number ? ", in " : "; ") + spec.allowed();
        desc.add_options()(spec.flag, po::value<std::string>()->default_value(spec.default_text())->notifier(assign),
                           help.c_str());
    }
}

namespace {

/// What an option's value must be, from its registered type or the option table ("" for text).
std::string expected_type(const po::option_description* option) {
    if (!option) return "";
    const po::value_semantic* semantic = option->semantic().get();
    if (dynamic_cast<const po::typed_value<int>*>(semantic)) return "an integer";
    if (dynamic_cast<const po::typed_value<bool>*>(semantic)) return "no value";
    // The solver options take text, which the option table reads by its type.
    const OptionSpec* spec = option_by_flag(option->long_name());
    if (spec && spec->type() == OptionType::integer) return "an integer";
    if (spec && spec->type() == OptionType::real) return "a number";
    return "";
}

/// Rejects a value that does not convert to the option's type, naming the option and the type.
void check_value(const std::string& name, const std::string& value, const po::option_description* option) {
    const std::string type = expected_type(option);
    const std::string said = "--" + name + " '" + value + "': expected ";
    const char* begin = value.c_str();
    char* end = nullptr;
    errno = 0;
    if (type == "an integer") {
        const long long v = std::strtoll(begin, &end, 10);
        if (end == begin || end != begin + value.size() || std::isspace(static_cast<unsigned char>(value[0])))
            throw input_error(said + "an integer, e.g. --" + name + " 3");
        if (errno == ERANGE || v < std::numeric_limits<int>::min() || v > std::numeric_limits<int>::max())
            throw input_error(said + "an integer within the 32-bit range");
    } else if (type == "a number") {
        const double v = std::strtod(begin, &end);
        if (end == begin || end != begin + value.size() || std::isspace(static_cast<unsigned char>(value[0])) ||
            value.find_first_of("xX") != std::string::npos)
            throw input_error(said + "a number, e.g. --" + name + " 0.5");
        if (!std::isfinite(v) || (errno == ERANGE && std::abs(v) > 1.0)) throw input_error(said + "a finite number");
    }
}

std::size_t edit_distance(const std::string& a, const std::string& b) {
    std::vector<std::size_t> row(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
        std::size_t diagonal = row[0];
        row[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j) {
            const std::size_t up = row[j];
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
            diagonal = up;
        }
    }
    return row[b.size()];
}

/// "; did you mean --level?" for a misspelt option, or "".
std::string suggestion(const std::string& token, const po::options_description& all) {
    std::string name = token.substr(0, token.find('='));
    name.erase(0, name.find_first_not_of('-'));
    std::string best;
    std::size_t best_distance = std::max<std::size_t>(2, name.size() / 3) + 1;
    for (const auto& option : all.options()) {
        const std::size_t d = edit_distance(name, option->long_name());
        if (d < best_distance) {
            best_distance = d;
            best = option->long_name();
        }
    }
    return best.empty() ? "" : "; did you mean --" + best + "?";
}

}  // namespace

bool parse_command_line(const std::vector<std::string>& args, const po::options_description& desc,
                        const std::string& usage, po::variables_map* parsed_map) {
    po::options_description all;
    all.add_options()("help,h", "show this help");
    all.add(desc);
    po::variables_map vm;
    try {
        const po::parsed_options parsed = po::command_line_parser(args).options(all).run();
        for (const po::basic_option<char>& option : parsed.options) {
            if (option.string_key.empty() || option.position_key >= 0) {
                const std::string token = option.original_tokens.empty() ? "" : option.original_tokens.front();
                throw input_error("unexpected argument '" + token + "': options are written --name value (see --help)");
            }
            const po::option_description* known = all.find_nothrow(option.string_key, false);
            for (const std::string& value : option.value) {
                if (value.empty()) {  // `--out ""`: no option takes an empty value
                    const std::string type = expected_type(known);
                    throw input_error("--" + option.string_key + " is given an empty value; it needs " +
                                      (type.empty() ? "a value" : type) + " (see --help)");
                }
                check_value(option.string_key, value, known);
            }
        }
        po::store(parsed, vm);
        if (vm.count("help")) {
            std::cout << usage << "\n\n" << all << "\n";
            return false;
        }
        po::notify(vm);
        if (parsed_map) *parsed_map = vm;
    } catch (const po::unknown_option& e) {
        throw input_error("unknown option '" + e.get_option_name() + "'" + suggestion(e.get_option_name(), all) +
                          " (see --help for the options)");
    } catch (const po::invalid_command_line_syntax& e) {
        const std::string name = e.get_option_name();
        if (e.kind() == po::invalid_syntax::missing_parameter || e.kind() == po::invalid_syntax::empty_adjacent_parameter) {
            std::string key = name;
            key.erase(0, key.find_first_not_of('-'));
            const std::string type = expected_type(all.find_nothrow(key, false));
            throw input_error(name + " needs a value" + (type.empty() ? "" : ": " + type) + " (see --help)");
        }
        throw input_error(std::string(e.what()) + " (see --help)");
    } catch (const po::multiple_occurrences& e) {
        throw input_error(e.get_option_name() + " is given more than once; give it once");
    } catch (const po::validation_error& e) {
        if (e.kind() == po::validation_error::invalid_option_value) {
            std::string key = e.get_option_name();
            key.erase(0, key.find_first_not_of('-'));
            const std::string type = expected_type(all.find_nothrow(key, false));
            if (!type.empty()) throw input_error(e.get_option_name() + ": the value is not " + type + " (see --help)");
        }
        throw input_error(std::string(e.what()) + " (see --help)");
    } catch (const po::error& e) {
        throw input_error(std::string(e.what()) + " (see --help)");
    }
    return true;
}

}  // namespace adimg::cli

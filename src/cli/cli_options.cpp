#include "cli_options.hpp"

#include <adimg/error.hpp>

#include <unistd.h>

#include <cmath>
#include <iostream>
#include <sstream>

namespace adimg::cli {

void add_problem_options(po::options_description& desc, ProblemOptions& problem, int default_level) {
    problem.level = default_level;
    desc.add_options()
        ("case", po::value(&problem.case_name), "built-in case: U1 U2 U3 A1 A2 A3 A4 A5")
        ("case-file", po::value(&problem.case_file), "your own case file (see cases/*.cfg for the keys)")
        ("level", po::value(&problem.level)->default_value(default_level), "refinement level L: (2^L+1)^2 nodes");
}

CaseSpec resolve_case(const ProblemOptions& problem) {
    if (!problem.case_name.empty() && !problem.case_file.empty())
        throw input_error("give either --case or --case-file, not both");
    if (!problem.case_file.empty()) return read_case_file(problem.case_file);
    if (problem.case_name.empty()) throw input_error("no problem given: use --case U1 (or U2 U3 A1..A5) or --case-file FILE");
    return builtin_case(problem.case_name);
}

void check_level(int level, std::size_t bytes_per_node, const char* what) {
    if (level < 1 || level > 15)
        throw input_error("--level " + std::to_string(level) + " is outside 1..15");
    const double nodes = std::pow(std::ldexp(1.0, level) + 1.0, 2.0);
    const double needed = nodes * static_cast<double>(bytes_per_node);
    const double available = static_cast<double>(sysconf(_SC_PHYS_PAGES)) * static_cast<double>(sysconf(_SC_PAGESIZE));
    if (needed > 0.9 * available) {
        std::ostringstream msg;
        msg.precision(3);
        msg << "--level " << level << ": " << what << " needs about " << needed / (1 << 30) << " GiB of host memory, "
            << "but this machine has " << available / (1 << 30) << " GiB; use a lower level";
        throw input_error(msg.str());
    }
}

void add_solver_options(po::options_description& desc, SolverOptionStrings& s) {
    SolverOptions& o = s.numbers;
    desc.add_options()
        ("backend", po::value(&s.backend)->default_value(s.backend), "auto, cpu or cuda")
        ("precision", po::value(&s.precision)->default_value(s.precision), "double, single or mixed")
        ("smoother", po::value(&s.smoother)->default_value(s.smoother), "jacobi, gauss-seidel or adi")
        ("omega", po::value(&o.omega)->default_value(o.omega), "Jacobi damping in (0, 1]")
        ("line-omega", po::value(&o.line_omega)->default_value(o.line_omega), "ADI line-sweep damping in (0, 1]")
        ("pre-smooth", po::value(&o.pre_smooth)->default_value(o.pre_smooth), "pre-smoothing steps (ADI counts two)")
        ("post-smooth", po::value(&o.post_smooth)->default_value(o.post_smooth), "post-smoothing steps (ADI counts two)")
        ("inner", po::value(&s.inner)->default_value(s.inner), "mixed precision inner stop: cycles:N or digits:N")
        ("inner-max-cycles", po::value(&o.inner_max_cycles)->default_value(o.inner_max_cycles), "cap on inner cycles in digits mode")
        ("coarse-level", po::value(&o.coarse_level)->default_value(o.coarse_level), "level of the coarsest grid")
        ("coarse-preconditioner", po::value(&s.coarse_preconditioner)->default_value(s.coarse_preconditioner), "jacobi or adi")
        ("coarse-digits", po::value(&o.coarse_digits)->default_value(o.coarse_digits), "digits the coarse PCG gains")
        ("digits", po::value(&o.digits)->default_value(o.digits), "stop when the defect has dropped by this many digits")
        ("max-iterations", po::value(&o.max_iterations)->default_value(o.max_iterations), "outer iterations before giving up")
        ("stall-steps", po::value(&o.stall_steps)->default_value(o.stall_steps), "outer steps without progress that mean stagnation")
        ("no-fallback", po::bool_switch()->notifier([&o](bool off) { o.fallback_to_double = !off; }),
         "do not switch to double inner cycles when mixed precision stalls");
}

SolverOptions resolve_solver_options(const SolverOptionStrings& s) {
    SolverOptions o = s.numbers;
    o.backend = parse_backend(s.backend);
    o.precision = parse_precision(s.precision);
    o.smoother = parse_smoother(s.smoother);
    o.inner = parse_inner_stop(s.inner);
    o.coarse_preconditioner = parse_coarse_preconditioner(s.coarse_preconditioner);
    validate(o);
    return o;
}

bool parse_command_line(const std::vector<std::string>& args, const po::options_description& desc,
                        const std::string& usage) {
    po::options_description all;
    all.add_options()("help,h", "show this help");
    all.add(desc);
    po::variables_map vm;
    try {
        po::store(po::command_line_parser(args).options(all).run(), vm);
        if (vm.count("help")) {
            std::cout << usage << "\n\n" << all << "\n";
            return false;
        }
        po::notify(vm);
    } catch (const po::error& e) {
        throw input_error(std::string(e.what()) + " (see --help)");
    }
    return true;
}

}  // namespace adimg::cli

#include <adimg/error.hpp>
#include <adimg/options.hpp>
#include <adimg/report.hpp>

#include <cmath>
#include <cstdio>
#include <string>

namespace adimg {
namespace {

template <class Enum, std::size_t N>
Enum parse_name(const std::string& text, const char* option, const std::pair<const char*, Enum> (&names)[N]) {
    std::string allowed;
    for (const auto& [name, value] : names) {
        if (text == name) return value;
        allowed += (allowed.empty() ? "" : ", ") + std::string(name);
    }
    throw input_error("--" + std::string(option) + " '" + text + "' is not allowed; use one of " + allowed);
}

constexpr std::pair<const char*, Smoother> smoother_names[] = {
    {"jacobi", Smoother::jacobi}, {"gauss-seidel", Smoother::gauss_seidel}, {"adi", Smoother::adi}};
constexpr std::pair<const char*, Precision> precision_names[] = {
    {"double", Precision::double_}, {"single", Precision::single}, {"mixed", Precision::mixed}};
constexpr std::pair<const char*, CoarseSolver> coarse_solver_names[] = {
    {"direct", CoarseSolver::direct}, {"pcg", CoarseSolver::pcg}};
constexpr std::pair<const char*, CoarsePreconditioner> coarse_names[] = {
    {"jacobi", CoarsePreconditioner::jacobi}, {"adi", CoarsePreconditioner::adi}};
constexpr std::pair<const char*, BackendKind> backend_names[] = {
    {"auto", BackendKind::automatic}, {"cpu", BackendKind::cpu}, {"cuda", BackendKind::cuda}};

template <class Enum, std::size_t N>
std::string name_of(Enum value, const std::pair<const char*, Enum> (&names)[N]) {
    for (const auto& [name, v] : names)
        if (v == value) return name;
    return "?";
}

}  // namespace

Smoother parse_smoother(const std::string& text) { return parse_name(text, "smoother", smoother_names); }
Precision parse_precision(const std::string& text) { return parse_name(text, "precision", precision_names); }
CoarseSolver parse_coarse_solver(const std::string& text) {
    return parse_name(text, "coarse-solver", coarse_solver_names);
}
CoarsePreconditioner parse_coarse_preconditioner(const std::string& text) {
    return parse_name(text, "coarse-preconditioner", coarse_names);
}
BackendKind parse_backend(const std::string& text) { return parse_name(text, "backend", backend_names); }
std::string to_string(Smoother s) { return name_of(s, smoother_names); }
std::string to_string(Precision p) { return name_of(p, precision_names); }
std::string to_string(CoarseSolver s) { return name_of(s, coarse_solver_names); }
std::string to_string(CoarsePreconditioner p) { return name_of(p, coarse_names); }
std::string to_string(BackendKind b) { return name_of(b, backend_names); }

InnerStop parse_inner_stop(const std::string& text) {
    const auto colon = text.find(':');
    const std::string kind = text.substr(0, colon);
    InnerStop inner;
    if (colon == std::string::npos || (kind != "cycles" && kind != "digits"))
        throw input_error("--inner '" + text + "' is not allowed; use cycles:N or digits:N, e.g. digits:2");
    inner.kind = kind == "cycles" ? InnerStop::Kind::cycles : InnerStop::Kind::digits;
    try {
        std::size_t used = 0;
        inner.count = std::stoi(text.substr(colon + 1), &used);
        if (used != text.size() - colon - 1) throw std::invalid_argument("trailing text");
    } catch (const std::exception&) {
        throw input_error("--inner '" + text + "': the count after ':' must be a whole number, e.g. digits:2");
    }
    return inner;
}

std::string to_string(const InnerStop& inner) {
    return (inner.kind == InnerStop::Kind::cycles ? "cycles:" : "digits:") + std::to_string(inner.count);
}

void validate(const SolverOptions& o) {
    auto fail = [](const std::string& what) { throw input_error(what); };
    auto num = [](double v) {
        char buffer[32];
        std::snprintf(buffer, sizeof buffer, "%.6g", v);
        return std::string(buffer);
    };
    if (!(o.omega > 0.0 && o.omega <= 1.0))
        fail("--omega " + num(o.omega) + " is outside (0, 1]: the Jacobi damping must be positive and at most 1 (default 0.7)");
    if (!(o.line_omega > 0.0 && o.line_omega <= 1.0))
        fail("--line-omega " + num(o.line_omega) +
             " is outside (0, 1]: the ADI line damping must be positive and at most 1 (default 0.7)");
    if (o.pre_smooth < 0 || o.pre_smooth > 64) fail("--pre-smooth " + std::to_string(o.pre_smooth) + " is outside 0..64");
    if (o.post_smooth < 0 || o.post_smooth > 64) fail("--post-smooth " + std::to_string(o.post_smooth) + " is outside 0..64");
    if (o.coarse_level < 0 || o.coarse_level > 15)
        fail("--coarse-level " + std::to_string(o.coarse_level) + " is outside 0..15 (it is capped at the --level of the solve)");
    if (o.coarse_iterations < 1 || o.coarse_iterations > 10000)
        fail("--coarse-iterations " + std::to_string(o.coarse_iterations) + " is outside 1..10000");
    if (o.inner.kind == InnerStop::Kind::cycles && (o.inner.count < 1 || o.inner.count > 32))
        fail("--inner cycles:" + std::to_string(o.inner.count) + ": the cycle count must be in 1..32");
    if (o.inner.kind == InnerStop::Kind::digits && (o.inner.count < 1 || o.inner.count > 6))
        fail("--inner digits:" + std::to_string(o.inner.count) + ": the digit count must be in 1..6 (float resolves ~7)");
    if (o.inner_max_cycles < 1 || o.inner_max_cycles > 1000)
        fail("--inner-max-cycles " + std::to_string(o.inner_max_cycles) + " is outside 1..1000");
    if (!(o.digits > 0.0 && o.digits <= 15.0))
        fail("--digits " + num(o.digits) + " is outside (0, 15]: double resolves about 16 digits");
    if (o.max_iterations < 1 || o.max_iterations > 1000000)
        fail("--max-iterations " + std::to_string(o.max_iterations) + " is outside 1..1000000");
    if (o.stall_steps < 1 || o.stall_steps > 1000)
        fail("--stall-steps " + std::to_string(o.stall_steps) + " is outside 1..1000");
    if (!(o.divergence_factor > 1.0) || !std::isfinite(o.divergence_factor))
        fail("the divergence factor " + num(o.divergence_factor) + " must be a finite number greater than 1");
}

std::string to_string(SolveStatus s) {
    switch (s) {
    case SolveStatus::converged: return "converged";
    case SolveStatus::diverged: return "diverged";
    case SolveStatus::stagnated: return "stagnated";
    case SolveStatus::non_finite: return "non-finite";
    case SolveStatus::max_iterations: return "max-iterations";
    }
    return "?";
}

double SolveReport::digits_gained() const {
    return final_defect > 0.0 ? std::log10(initial_defect / final_defect) : INFINITY;
}

double SolveReport::rate_per_cycle() const {
    if (inner_cycles == 0 || initial_defect == 0.0) return 0.0;
    return std::pow(final_defect / initial_defect, 1.0 / inner_cycles);
}

}  // namespace adimg

#include <adimg/error.hpp>
#include <adimg/options.hpp>
#include <adimg/report.hpp>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

namespace adimg {
namespace {

/// The shortest text that reads back as v: 0.7, not 0.69999999999999996.
std::string shortest(double v) {
    char buffer[32];
    for (int digits = 1; digits <= 17; ++digits) {
        std::snprintf(buffer, sizeof buffer, "%.*g", digits, v);
        if (std::strtod(buffer, nullptr) == v) break;
    }
    return buffer;
}

bool contains(const Range& r, double v) {
    return (r.min_open ? v > r.min : v >= r.min) && (r.max_open ? v < r.max : v <= r.max);
}

/// "0..64" for whole numbers, "(0, 1]" for reals.
std::string range_text(const Range& r, bool whole) {
    if (whole) return std::to_string(std::lround(r.min)) + ".." + std::to_string(std::lround(r.max));
    std::string text = r.min_open ? "(" : "[";
    return text + shortest(r.min) + ", " + shortest(r.max) + (r.max_open ? ")" : "]");
}

std::string joined(const std::vector<std::string>& parts, const std::string& separator) {
    std::string text;
    for (const std::string& part : parts) text += (text.empty() ? "" : separator) + part;
    return text;
}

[[noreturn]] void refuse(const OptionSpec& spec, const std::string& what) {
    throw input_error(spec.reference() + " = " + what);
}

[[noreturn]] void refuse_range(const OptionSpec& spec, const std::string& text) {
    refuse(spec, text + " is outside " + spec.allowed() + ": " + spec.help + "; default " + spec.default_text());
}

/// `text` as a number (whole if `whole`; out of long long's range as an infinity); false if it
/// is not one: empty, leading space, trailing text or hexadecimal.
bool read_number(const std::string& text, bool whole, double& v) {
    if (text.empty() || std::isspace(static_cast<unsigned char>(text[0])) || text.find_first_of("xX") != std::string::npos)
        return false;
    char* end = nullptr;
    errno = 0;
    if (whole) {
        const long long n = std::strtoll(text.c_str(), &end, 10);
        v = errno == ERANGE ? std::copysign(INFINITY, static_cast<double>(n)) : static_cast<double>(n);
    } else {
        v = std::strtod(text.c_str(), &end);
    }
    return end == text.c_str() + text.size();
}

double checked_number(const OptionSpec& spec, const std::string& text, bool whole) {
    double v = 0.0;
    if (!read_number(text, whole, v)) refuse(spec, "'" + text + "' is not " + (whole ? "a whole number" : "a number"));
    if (!contains(spec.ranges.front(), v)) refuse_range(spec, text);
    return v;
}

int checked_choice(const OptionSpec& spec, const std::string& text) {
    for (std::size_t i = 0; i < spec.choices.size(); ++i)
        if (text == spec.choices[i]) return static_cast<int>(i);
    refuse(spec, "'" + text + "' is not allowed; use " + spec.allowed());
}

bool checked_boolean(const OptionSpec& spec, const std::string& text) {
    if (text != "true" && text != "false") refuse(spec, "'" + text + "' is not allowed; use " + spec.allowed());
    return text == "true";
}

/// "digits:2": the kind is the index of its name in `choices`, the count within its range.
InnerStop checked_inner(const OptionSpec& spec, const std::string& text) {
    const auto colon = text.find(':');
    const auto kind = std::find(spec.choices.begin(), spec.choices.end(), text.substr(0, colon));
    if (colon == std::string::npos || kind == spec.choices.end())
        refuse(spec, "'" + text + "' is not allowed; use " + joined(spec.choices, ":N or ") + ":N, e.g. " +
                         spec.default_text());
    double count = 0.0;
    if (!read_number(text.substr(colon + 1), true, count))
        refuse(spec, "'" + text + "': the count after ':' must be a whole number, e.g. " + spec.default_text());
    const auto k = static_cast<std::size_t>(kind - spec.choices.begin());
    if (!contains(spec.ranges[k], count)) refuse_range(spec, text);
    return {static_cast<InnerStop::Kind>(k), static_cast<int>(count)};
}

/// An enum member of SolverOptions as OptionSpec reaches it: by the index of its value.
template <auto member>
OptionSpec::EnumField enum_field() {
    using Enum = std::remove_reference_t<decltype(std::declval<SolverOptions&>().*member)>;
    return {[](const SolverOptions& o) { return static_cast<int>(o.*member); },
            [](SolverOptions& o, int i) { o.*member = static_cast<Enum>(i); }};
}

template <OptionType type, class Member>
constexpr bool field_of =
    std::is_same_v<std::variant_alternative_t<static_cast<std::size_t>(type), OptionSpec::Field>, Member>;
static_assert(field_of<OptionType::choice, OptionSpec::EnumField> && field_of<OptionType::integer, int SolverOptions::*> &&
              field_of<OptionType::real, double SolverOptions::*> &&
              field_of<OptionType::inner_stop, InnerStop SolverOptions::*> &&
              field_of<OptionType::boolean, bool SolverOptions::*>);

constexpr Range closed(double min, double max) { return {min, max, false, false}; }
constexpr Range left_open(double min, double max) { return {min, max, true, false}; }
constexpr Range open_range(double min, double max) { return {min, max, true, true}; }

const OptionSpec& entry(const char* field) {
    const OptionSpec* spec = find_option(field);
    if (!spec) throw std::logic_error(std::string("no option ") + field + " in the option table");
    return *spec;
}

/// The value that `text` sets `member` to, through the table's entry for `field`.
template <class T>
T parsed(const char* field, T SolverOptions::*member, const std::string& text) {
    SolverOptions options;
    entry(field).set(options, text);
    return options.*member;
}

/// The table's text for `value` of `member`.
template <class T>
std::string named(const char* field, T SolverOptions::*member, const T& value) {
    SolverOptions options;
    options.*member = value;
    return entry(field).get(options);
}

}  // namespace

const std::vector<OptionSpec>& option_table() {
    static const std::vector<OptionSpec> table = {
        {.field = "backend", .flag = "backend", .member = enum_field<&SolverOptions::backend>(),
         .choices = {"auto", "cpu", "cuda"},
         .help = "where the solve runs: auto takes the GPU when one is usable, else the CPU"},
        {.field = "precision", .flag = "precision", .member = enum_field<&SolverOptions::precision>(),
         .choices = {"double", "single", "mixed"},
         .help = "arithmetic of the solve: mixed runs float V-cycles inside a double outer iteration"},
        {.field = "outer", .flag = "outer", .member = enum_field<&SolverOptions::outer>(),
         .choices = {"refinement", "cg"},
         .help = "outer iteration: iterative refinement, or flexible conjugate gradients preconditioned by the "
                 "V-cycles (precision single always refines)"},
        {.field = "smoother", .flag = "smoother", .member = enum_field<&SolverOptions::smoother>(),
         .choices = {"jacobi", "gauss-seidel", "adi"}, .help = "multigrid smoother"},
        {.field = "omega", .flag = "omega", .member = &SolverOptions::omega, .ranges = {left_open(0.0, 1.0)},
         .help = "Jacobi damping"},
        {.field = "line_omega", .flag = "line-omega", .member = &SolverOptions::line_omega,
         .ranges = {left_open(0.0, 1.0)}, .help = "ADI line-sweep damping"},
        {.field = "pre_smooth", .flag = "pre-smooth", .member = &SolverOptions::pre_smooth, .ranges = {closed(0, 64)},
         .help = "pre-smoothing steps (one ADI application counts two)"},
        {.field = "post_smooth", .flag = "post-smooth", .member = &SolverOptions::post_smooth, .ranges = {closed(0, 64)},
         .help = "post-smoothing steps (one ADI application counts two)"},
        {.field = "coarse_level", .flag = "coarse-level", .member = &SolverOptions::coarse_level,
         .ranges = {closed(0, 15)}, .help = "refinement level of the coarsest grid (capped at the level of the solve)"},
        {.field = "coarse_solver", .flag = "coarse-solver", .member = enum_field<&SolverOptions::coarse_solver>(),
         .choices = {"direct", "pcg"},
         .help = "solve on the coarsest grid: direct by its inverse, computed at setup (grids up to 65x65; larger "
                 "ones use pcg), or pcg"},
        {.field = "coarse_preconditioner", .flag = "coarse-preconditioner",
         .member = enum_field<&SolverOptions::coarse_preconditioner>(), .choices = {"jacobi", "adi"},
         .help = "preconditioner of pcg on the coarsest grid"},
        {.field = "coarse_iterations", .flag = "coarse-iterations", .member = &SolverOptions::coarse_iterations,
         .ranges = {closed(1, 10000)},
         .help = "pcg iterations on the coarsest grid, at most (fewer if it has fewer unknowns: then the solve is exact)"},
        {.field = "inner", .flag = "inner", .member = &SolverOptions::inner, .choices = {"cycles", "digits"},
         .ranges = {closed(1, 32), closed(1, 6)},
         .help = "inner stop of mixed precision: float cycles per outer step, or digits to gain (float resolves about 7)"},
        {.field = "full_multigrid", .flag = "no-full-multigrid", .member = &SolverOptions::full_multigrid,
         .switch_sets = false,
         .help = "start a solve with a full multigrid cycle (b restricted to every level, solved upward) in place of "
                 "its first V-cycle"},
        {.field = "inner_max_cycles", .flag = "inner-max-cycles", .member = &SolverOptions::inner_max_cycles,
         .ranges = {closed(1, 1000)}, .help = "cap on inner cycles per outer step in digits mode"},
        {.field = "stop", .flag = "stop", .member = enum_field<&SolverOptions::stop>(),
         .choices = {"relative", "absolute"},
         .help = "outer stop: the defect relative to the initial one (digits), or its norm (absolute-defect)"},
        {.field = "digits", .flag = "digits", .member = &SolverOptions::digits, .ranges = {left_open(0.0, 15.0)},
         .help = "stop = relative: stop when the defect has dropped by this many digits (double resolves about 16)"},
        {.field = "absolute_defect", .flag = "absolute-defect", .member = &SolverOptions::absolute_defect,
         .ranges = {open_range(0.0, INFINITY)}, .help = "stop = absolute: stop when ||b - A x|| is at most this"},
        {.field = "max_iterations", .flag = "max-iterations", .member = &SolverOptions::max_iterations,
         .ranges = {closed(1, 1e6)}, .help = "outer iterations before giving up"},
        {.field = "stall_steps", .flag = "stall-steps", .member = &SolverOptions::stall_steps, .ranges = {closed(1, 1000)},
         .help = "outer steps without 1% progress that mean stagnation"},
        {.field = "divergence_factor", .flag = "divergence-factor", .member = &SolverOptions::divergence_factor,
         .ranges = {open_range(1.0, INFINITY)}, .help = "a defect this many times the initial one means divergence"},
        {.field = "fallback_to_double", .flag = "no-fallback", .member = &SolverOptions::fallback_to_double,
         .switch_sets = false,
         .help = "when the float inner solve of mixed precision stalls, continue with double inner cycles"},
    };
    return table;
}

const OptionSpec* find_option(const std::string& field) {
    for (const OptionSpec& spec : option_table())
        if (field == spec.field) return &spec;
    return nullptr;
}

std::string OptionSpec::allowed() const {
    switch (type()) {
    case OptionType::choice: return "one of " + joined(choices, ", ");
    case OptionType::integer: return range_text(ranges.front(), true);
    case OptionType::real: return range_text(ranges.front(), false);
    case OptionType::inner_stop: {
        std::vector<std::string> kinds;
        for (std::size_t k = 0; k < choices.size(); ++k) kinds.push_back(choices[k] + ":" + range_text(ranges[k], true));
        return joined(kinds, " or ");
    }
    case OptionType::boolean: return "true or false";
    }
    return "?";
}

std::string OptionSpec::get(const SolverOptions& options) const {
    return std::visit(
        [&](auto member) -> std::string {
            if constexpr (std::is_same_v<decltype(member), EnumField>) {
                const int i = member.get(options);
                return i >= 0 && i < static_cast<int>(choices.size()) ? choices[i] : std::to_string(i);
            } else {
                const auto& v = options.*member;
                using T = std::decay_t<decltype(v)>;
                if constexpr (std::is_same_v<T, int>)
                    return std::to_string(v);
                else if constexpr (std::is_same_v<T, double>)
                    return shortest(v);
                else if constexpr (std::is_same_v<T, bool>)
                    return v ? "true" : "false";
                else
                    return choices.at(static_cast<std::size_t>(v.kind)) + ":" + std::to_string(v.count);
            }
        },
        member);
}

void OptionSpec::set(SolverOptions& options, const std::string& text) const {
    std::visit(
        [&](auto member) {
            if constexpr (std::is_same_v<decltype(member), EnumField>) {
                member.set(options, checked_choice(*this, text));
            } else {
                auto& v = options.*member;
                using T = std::decay_t<decltype(v)>;
                if constexpr (std::is_same_v<T, int>)
                    v = static_cast<int>(checked_number(*this, text, true));
                else if constexpr (std::is_same_v<T, double>)
                    v = checked_number(*this, text, false);
                else if constexpr (std::is_same_v<T, bool>)
                    v = checked_boolean(*this, text);
                else
                    v = checked_inner(*this, text);
            }
        },
        member);
}

void validate(const SolverOptions& options) {
    for (const OptionSpec& spec : option_table()) {
        SolverOptions scratch;
        spec.set(scratch, spec.get(options));
    }
}

namespace {

/// Fields that have no effect with, or are ruled out by, the value of another field: the message
/// reads "<field> <clash> <other> = <value><after>; drop <field>, or <remedy>".
struct Conflict {
    std::vector<const char*> fields;  ///< the fields the user may have given
    /// Whether the other options leave them without effect, on a coarsest grid of that many nodes.
    bool (*applies)(const SolverOptions&, long long coarsest_nodes);
    const char* clash;
    const char* other;  ///< the field whose value decides
    const char* after;
    const char* remedy;
};

const Conflict conflicts[] = {
    {{"omega"}, [](const SolverOptions& o, long long) { return o.smoother != Smoother::jacobi; },
     "damps the Jacobi smoother and has no effect with", "smoother", "",
     "use SolverOptions::smoother = jacobi (SolverOptions::line_omega damps the ADI sweeps)"},
    {{"line_omega"}, [](const SolverOptions& o, long long) { return o.smoother != Smoother::adi; },
     "damps the ADI line sweeps and has no effect with", "smoother", "",
     "use SolverOptions::smoother = adi (SolverOptions::omega damps Jacobi)"},
    {{"inner", "inner_max_cycles", "fallback_to_double"},
     [](const SolverOptions& o, long long) { return o.precision != Precision::mixed; },
     "applies to the float inner cycles of mixed precision and has no effect with", "precision",
     " (one V-cycle per outer step)", "use SolverOptions::precision = mixed"},
    {{"inner_max_cycles"}, [](const SolverOptions& o, long long) { return o.inner.kind == InnerStop::Kind::cycles; },
     "caps SolverOptions::inner = digits:N and has no effect with", "inner", "", "use SolverOptions::inner = digits:N"},
    {{"digits"}, [](const SolverOptions& o, long long) { return o.stop == StopRule::absolute; },
     "sets the relative stop and has no effect with", "stop", "",
     "use SolverOptions::stop = relative (SolverOptions::absolute_defect sets the absolute one)"},
    {{"absolute_defect"}, [](const SolverOptions& o, long long) { return o.stop == StopRule::relative; },
     "sets the absolute stop and has no effect with", "stop", "",
     "use SolverOptions::stop = absolute (SolverOptions::digits sets the relative one)"},
    {{"outer"},
     [](const SolverOptions& o, long long) { return o.outer == OuterMethod::cg && o.precision == Precision::single; },
     "does not run with", "precision",
     ", which always refines (flexible CG's float recurrences would overflow or lose their directions)",
     "use SolverOptions::precision = mixed or double"},
    // Larger coarsest grids fall back to pcg, which these options set: judged by the grid that the
    // solve's coarsest level has (a matrix's or a stacked case's is not the square of coarse_level).
    {{"coarse_preconditioner", "coarse_iterations"},
     [](const SolverOptions& o, long long coarsest_nodes) {
         return o.coarse_solver == CoarseSolver::direct && coarsest_nodes <= max_direct_coarse_unknowns;
     },
     "sets the conjugate gradients on the coarsest grid and has no effect with", "coarse_solver",
     ", which solves this coarsest grid exactly (grids of up to 65 x 65 nodes)", "use SolverOptions::coarse_solver = pcg"},
};

/// "SolverOptions::smoother = adi" for an option with a name as its value, else "SolverOptions::omega".
std::string as_given(const OptionSpec& spec, const SolverOptions& options) {
    return spec.reference() + (spec.type() == OptionType::choice ? " = " + spec.get(options) : "");
}

}  // namespace

void check_given_options(const SolverOptions& options, const std::vector<std::string>& given,
                         std::optional<long long> coarsest_nodes) {
    const long long nodes = coarsest_nodes.value_or(
        static_cast<long long>(std::pow(std::ldexp(1.0, std::clamp(options.coarse_level, 0, 30)) + 1.0, 2.0)));
    for (const Conflict& c : conflicts)
        for (const char* field : c.fields) {
            if (std::find(given.begin(), given.end(), field) == given.end() || !c.applies(options, nodes)) continue;
            const OptionSpec &spec = entry(field), &other = entry(c.other);
            throw input_error(as_given(spec, options) + " " + c.clash + " " + other.reference() + " = " +
                              other.get(options) + c.after + "; drop " + spec.reference() + ", or " + c.remedy);
        }
}

SolverOptions effective_options(SolverOptions options) {
    if (options.precision != Precision::mixed) options.inner = {InnerStop::Kind::cycles, 1};
    if (options.precision == Precision::single) options.outer = OuterMethod::refinement;
    return options;
}

InnerStop parse_inner_stop(const std::string& text) { return parsed("inner", &SolverOptions::inner, text); }
Smoother parse_smoother(const std::string& text) { return parsed("smoother", &SolverOptions::smoother, text); }
Precision parse_precision(const std::string& text) { return parsed("precision", &SolverOptions::precision, text); }
OuterMethod parse_outer(const std::string& text) { return parsed("outer", &SolverOptions::outer, text); }
StopRule parse_stop(const std::string& text) { return parsed("stop", &SolverOptions::stop, text); }
CoarseSolver parse_coarse_solver(const std::string& text) {
    return parsed("coarse_solver", &SolverOptions::coarse_solver, text);
}
BackendKind parse_backend(const std::string& text) { return parsed("backend", &SolverOptions::backend, text); }
std::string to_string(const InnerStop& inner) { return named("inner", &SolverOptions::inner, inner); }
std::string to_string(Smoother s) { return named("smoother", &SolverOptions::smoother, s); }
std::string to_string(Precision p) { return named("precision", &SolverOptions::precision, p); }
std::string to_string(OuterMethod m) { return named("outer", &SolverOptions::outer, m); }
std::string to_string(StopRule r) { return named("stop", &SolverOptions::stop, r); }
std::string to_string(CoarseSolver s) { return named("coarse_solver", &SolverOptions::coarse_solver, s); }
std::string to_string(BackendKind b) { return named("backend", &SolverOptions::backend, b); }

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

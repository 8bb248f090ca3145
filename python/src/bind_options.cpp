// The option table in Python: keyword arguments are the fields of SolverOptions, read by the
// table's own parser, so names, choices and ranges exist once, in the library.
#include "bindings.hpp"

#include <adimg/error.hpp>
#include <adimg/options.hpp>

#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <string>

namespace nb = nanobind;

namespace adimg::python {
namespace {

const char* type_name(OptionType type) {
    switch (type) {
    case OptionType::choice: return "choice";
    case OptionType::integer: return "integer";
    case OptionType::real: return "real";
    case OptionType::inner_stop: return "inner_stop";
    case OptionType::boolean: return "boolean";
    }
    return "";
}

std::string option_names() {
    std::string names;
    for (const OptionSpec& spec : option_table()) names += (names.empty() ? "" : ", ") + std::string(spec.field);
    return names;
}

/// A keyword's value as the text the option table reads: True and False as "true" and "false",
/// anything else as str() gives it ("adi", 4, 0.7, "digits:2").
std::string option_text(const nb::handle& value) {
    if (nb::isinstance<nb::bool_>(value)) return nb::cast<bool>(value) ? "true" : "false";
    return nb::cast<std::string>(nb::str(value));
}

/// "did you mean 'smoother'? " for a keyword close to an option's name (Python's difflib judges
/// closeness), or "".
std::string suggestion(const std::string& name) {
    nb::list names;
    for (const OptionSpec& spec : option_table()) names.append(spec.field);
    const auto close = nb::cast<nb::list>(nb::module_::import_("difflib").attr("get_close_matches")(name, names, 1));
    return close.size() == 0 ? "" : "did you mean '" + nb::cast<std::string>(close[0]) + "'? ";
}

bool not_jacobi(const SolverOptions& o) { return o.smoother != Smoother::jacobi; }
bool not_adi(const SolverOptions& o) { return o.smoother != Smoother::adi; }
bool not_mixed(const SolverOptions& o) { return o.precision != Precision::mixed; }
bool counted_cycles(const SolverOptions& o) { return o.inner.kind == InnerStop::Kind::cycles; }

/// An option that `does` something which other options can switch off: while `ignored` holds,
/// giving it has no effect, and it is refused (naming the option `cause`), as `adimg solve`
/// refuses it (src/cli/command_solve.cpp).
struct WithoutEffect {
    const char* field;
    const char* does;
    const char* cause;
    bool (*ignored)(const SolverOptions&);
    const char* fix;
};

const WithoutEffect without_effect[] = {
    {"omega", "damps the Jacobi smoother", "smoother", not_jacobi,
     "use smoother='jacobi' (line_omega damps the ADI sweeps)"},
    {"line_omega", "damps the ADI line sweeps", "smoother", not_adi, "use smoother='adi' (omega damps Jacobi)"},
    {"inner", "sets the float inner cycles of precision='mixed'", "precision", not_mixed, "use precision='mixed'"},
    {"inner_max_cycles", "caps the float inner cycles of precision='mixed'", "precision", not_mixed,
     "use precision='mixed'"},
    {"fallback_to_double", "applies to the float inner cycles of precision='mixed'", "precision", not_mixed,
     "use precision='mixed'"},
    {"inner_max_cycles", "caps inner='digits:N'", "inner", counted_cycles, "use inner='digits:N'"},
};

/// Throws input_error for the first keyword given that the other options leave without effect.
void refuse_without_effect(const SolverOptions& options, const nb::kwargs& kwargs) {
    for (const WithoutEffect& rule : without_effect)
        if (kwargs.contains(rule.field) && rule.ignored(options))
            throw input_error(std::string(rule.field) + "=" + nb::cast<std::string>(nb::repr(kwargs[rule.field])) +
                              " " + rule.does + " and has no effect with " + rule.cause + "='" +
                              find_option(rule.cause)->get(options) + "'; " + rule.fix);
}

void replace_all(std::string& text, const std::string& from, const std::string& to) {
    for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
        text.replace(at, from.size(), to);
}

}  // namespace

std::string python_spelling(std::string message) {
    replace_all(message, "SolverOptions::", "");
    replace_all(message, "MatrixChecks::", "");
    return message;
}

SolverOptions options_from_kwargs(const nb::kwargs& kwargs) {
    SolverOptions options;
    for (const auto& [key, value] : kwargs) {
        const std::string name = nb::cast<std::string>(key);
        const OptionSpec* spec = find_option(name);
        if (!spec)
            throw input_error("unknown option '" + name + "'; " + suggestion(name) + "the options are " +
                              option_names());
        spec->set(options, option_text(value));
    }
    validate(options);
    refuse_without_effect(options, kwargs);
    return options;
}

void bind_options(nb::module_& m) {
    m.def(
        "option_table",
        [] {
            nb::list table;
            for (const OptionSpec& spec : option_table()) {
                nb::dict entry;
                entry["name"] = spec.field;
                entry["type"] = type_name(spec.type());
                entry["choices"] = spec.choices;
                entry["allowed"] = spec.allowed();
                entry["default"] = spec.default_text();
                entry["help"] = spec.help;
                table.append(entry);
            }
            return table;
        },
        "Every solver option, in the library's order: name, type, choices, allowed values, default and help.");
}

}  // namespace adimg::python

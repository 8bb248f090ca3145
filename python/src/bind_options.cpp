// The option table in Python: keyword arguments are the fields of SolverOptions, read by the
// table's own parser, so names, choices and ranges exist once, in the library.
#include "bindings.hpp"

#include <adimg/error.hpp>
#include <adimg/options.hpp>

#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <string>
#include <vector>

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
    std::vector<std::string> given;
    for (const auto& [key, value] : kwargs) {
        const std::string name = nb::cast<std::string>(key);
        given.push_back(name);
        const OptionSpec* spec = find_option(name);
        if (!spec)
            throw input_error("unknown option '" + name + "'; " + suggestion(name) + "the options are " +
                              option_names());
        spec->set(options, option_text(value));
    }
    validate(options);
    check_given_options(options, given);  // an option given that the others leave without effect
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

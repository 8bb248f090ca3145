#pragma once
// The option table as the command line spells it: a solver option's flag, and library messages
// with their field references (SolverOptions::pre_smooth) turned into flags (--pre-smooth).

#include <adimg/options.hpp>

#include <algorithm>
#include <string>

namespace adimg::cli {

/// The entry of the option table whose flag is `flag` ("pre-smooth"), or nullptr.
inline const OptionSpec* option_by_flag(const std::string& flag) {
    for (const OptionSpec& spec : option_table())
        if (flag == spec.flag) return &spec;
    return nullptr;
}

/// The text of the value that a switch (a boolean option) gives its field: "false" for --no-fallback.
inline std::string switch_text(const OptionSpec& spec) { return spec.switch_sets ? "true" : "false"; }

/// `message` with every field reference in the notation of OptionSpec respelt for the command
/// line: "SolverOptions::smoother = adi" becomes "--smoother adi", "SolverOptions::pre_smooth"
/// "--pre-smooth", and "set SolverOptions::fallback_to_double = true" "drop --no-fallback" (or
/// "give --no-fallback" for the value that the switch sets). Other text stays as it is.
inline std::string with_flags(const std::string& message) {
    static const std::string prefix = "SolverOptions::", set = "set ", equals = " = ";
    std::string out;
    std::size_t at = 0;
    for (std::size_t ref; (ref = message.find(prefix, at)) != std::string::npos;) {
        const std::size_t name = ref + prefix.size();
        const std::size_t end =
            std::min(message.find_first_not_of("abcdefghijklmnopqrstuvwxyz_0123456789", name), message.size());
        out += message.substr(at, ref - at);
        const OptionSpec* spec = find_option(message.substr(name, end - name));
        if (!spec) {  // not a field of the table: left as written
            out += prefix;
            at = name;
            continue;
        }
        at = end;
        if (spec->type() == OptionType::boolean) {
            // "set <field> = true|false" is the switch given or dropped.
            for (const bool value : {true, false}) {
                const std::string assignment = equals + (value ? "true" : "false");
                if (out.ends_with(set) && message.compare(at, assignment.size(), assignment) == 0) {
                    out.replace(out.size() - set.size(), set.size(), value == spec->switch_sets ? "give " : "drop ");
                    at += assignment.size();
                }
            }
        } else if (message.compare(at, equals.size(), equals) == 0) {
            out += std::string("--") + spec->flag + " ";
            at += equals.size();
            continue;
        }
        out += std::string("--") + spec->flag;
    }
    return out + message.substr(at);
}

}  // namespace adimg::cli

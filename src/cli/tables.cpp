#include "tables.hpp"
#include "flag_spelling.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace adimg::cli {

std::string format_bytes(double bytes) {
    const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int u = 0;
    while (bytes >= 1024.0 && u < 4) {
        bytes /= 1024.0;
        ++u;
    }
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.1f %s", bytes, units[u]);
    return buffer;
}

std::string describe(const SolverOptions& o) {
    std::size_t width = 0;
    for (const OptionSpec& spec : option_table()) width = std::max(width, std::strlen(spec.flag));
    std::string text = "options:";
    for (const OptionSpec& spec : option_table()) {
        std::string value = spec.get(o);
        if (spec.type() == OptionType::boolean) value = value == switch_text(spec) ? "given" : "not given";  // a switch
        text += "\n  --" + std::string(spec.flag) + std::string(width + 2 - std::strlen(spec.flag), ' ') + value;
    }
    return text;
}

void print_levels(std::FILE* out, const std::vector<LevelInfo>& levels) {
    std::fprintf(out, "  %5s  %13s  %12s  %12s\n", "level", "grid", "unknowns", "memory");
    double total = 0.0;
    for (const LevelInfo& l : levels) {
        const std::string grid = std::to_string(l.mx) + "x" + std::to_string(l.my);
        std::fprintf(out, "  %5d  %13s  %12lld  %12s\n", l.level, grid.c_str(), static_cast<long long>(l.mx) * l.my,
                     format_bytes(static_cast<double>(l.bytes)).c_str());
        total += static_cast<double>(l.bytes);
    }
    std::fprintf(out, "  %5s  %13s  %12s  %12s\n", "total", "", "", format_bytes(total).c_str());
}

namespace {

void print_history_header(std::FILE* out, double initial_defect) {
    std::fprintf(out, "  %5s  %5s  %12s  %9s  %s\n", "outer", "inner", "defect", "rate", "inner defects (relative)");
    std::fprintf(out, "  %5d  %5s  %12.4e  %9s\n", 0, "-", initial_defect, "-");
}

void print_history_row(std::FILE* out, int outer, const OuterStep& step) {
    std::string inner;
    for (double d : step.inner_defects) {
        char b[16];
        std::snprintf(b, sizeof b, " %.1e", d);
        inner += b;
    }
    std::fprintf(out, "  %5d  %5d  %12.4e  %9.3e %s%s%s\n", outer, step.inner_cycles, step.defect, step.rate,
                 step.full_multigrid ? " [full multigrid]" : "", step.double_inner ? " [double inner]" : "", inner.c_str());
    std::fflush(out);
}

}  // namespace

StepCallback history_printer(std::FILE* out) {
    return [out, outer = 0](const OuterStep& step) mutable {
        if (outer == 0) print_history_header(out, step.defect / step.rate);
        print_history_row(out, ++outer, step);
    };
}

void print_outcome(std::FILE* out, const SolveReport& report) {
    std::fprintf(out, "status %s%s%s\n", to_string(report.status).c_str(), report.message.empty() ? "" : ": ",
                 with_flags(report.message).c_str());
    // Digits and rate only where the defects give them: no "nan digits".
    char digits[64] = "no digits (the defect is not finite)";
    const double gained = report.digits_gained(), rate = report.rate_per_cycle();
    if (report.initial_defect == 0.0)
        std::snprintf(digits, sizeof digits, "the initial defect is zero");
    else if (std::isfinite(gained))
        std::snprintf(digits, sizeof digits, "%.2f digits", gained);
    else if (report.final_defect == 0.0)
        std::snprintf(digits, sizeof digits, "the defect is exactly zero");
    char per_cycle[32] = "";
    if (std::isfinite(rate) && report.inner_cycles > 0) std::snprintf(per_cycle, sizeof per_cycle, ", %.3e per cycle", rate);
    std::fprintf(out, "iterations %s (outer:inner), %s%s\n", report.iterations().c_str(), digits, per_cycle);
    if (report.stop_rule == StopRule::absolute)
        std::fprintf(out, "stop: absolute, defect %.3e against %.3e\n", report.final_defect, report.target_defect);
}

}  // namespace adimg::cli

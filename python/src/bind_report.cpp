// What a solve reports, as read-only Python attributes.
#include "bindings.hpp"

#include <adimg/report.hpp>

#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstdio>
#include <string>
#include <vector>

namespace nb = nanobind;

namespace adimg::python {
namespace {

std::string short_number(const char* format, double value) {
    char text[32];
    std::snprintf(text, sizeof text, format, value);
    return text;
}

std::string report_repr(const SolveReport& r) {
    std::string text = "SolveReport(status='" + to_string(r.status) + "', iterations='" + r.iterations() +
                       "', defect " + short_number("%.3g", r.initial_defect) + " -> " +
                       short_number("%.3g", r.final_defect) + " (" + short_number("%.1f", r.digits_gained()) +
                       " digits), solve " + short_number("%.3g", r.solve_seconds) + " s";
    if (r.fell_back_to_double) text += ", fell back to double";
    if (!r.message.empty()) text += ", message='" + python_spelling(r.message) + "'";
    return text + ")";
}

}  // namespace

void bind_report(nb::module_& m) {
    nb::class_<OuterStep>(m, "OuterStep", "One outer step of the refinement loop.")
        .def_ro("inner_cycles", &OuterStep::inner_cycles, "V-cycles of the inner solver in this step")
        .def_ro("defect", &OuterStep::defect, "||b - A x|| in double after the step")
        .def_ro("rate", &OuterStep::rate, "defect after / defect before")
        .def_ro("inner_defects", &OuterStep::inner_defects, "relative inner defect after each cycle (digits mode)")
        .def_ro("double_inner", &OuterStep::double_inner, "the inner cycles ran in double (after a fallback)")
        .def("__repr__", [](const OuterStep& s) {
            return "OuterStep(inner_cycles=" + std::to_string(s.inner_cycles) + ", defect=" +
                   short_number("%.3g", s.defect) + ", rate=" + short_number("%.3g", s.rate) + ")";
        });

    nb::class_<SolveReport>(m, "SolveReport", "How a solve ended, its iterations, defects and times (seconds).")
        .def_prop_ro("status", [](const SolveReport& r) { return to_string(r.status); },
                     "'converged', 'diverged', 'stagnated', 'non-finite' or 'max-iterations'")
        .def_prop_ro("ok", &SolveReport::ok, "True if the solve converged")
        .def_prop_ro("message", [](const SolveReport& r) { return python_spelling(r.message); },
                     "empty on success, else what went wrong and what to try")
        .def_prop_ro("iterations", &SolveReport::iterations, "'a:b': outer iterations : total inner V-cycles")
        .def_ro("outer_iterations", &SolveReport::outer_iterations)
        .def_ro("inner_cycles", &SolveReport::inner_cycles, "total inner V-cycles")
        .def_ro("initial_defect", &SolveReport::initial_defect, "||b - A x0||")
        .def_ro("final_defect", &SolveReport::final_defect, "||b - A x|| of the x returned")
        .def_ro("rhs_norm", &SolveReport::rhs_norm, "||b||: the relative stop asks for final_defect <= 10^-digits ||b||")
        .def_prop_ro("stop_rule", [](const SolveReport& r) { return to_string(r.stop_rule); },
                     "'relative' or 'absolute': which defect the stop compared (option stop)")
        .def_ro("target_defect", &SolveReport::target_defect, "the defect the solve had to reach under that rule")
        .def_prop_ro("defects",
                     [](const SolveReport& r) {
                         std::vector<double> defects{r.initial_defect};
                         for (const OuterStep& step : r.history) defects.push_back(step.defect);
                         return defects;
                     },
                     "||b - A x|| before the first outer step and after each")
        .def_prop_ro("digits_gained", &SolveReport::digits_gained, "log10(initial / final defect)")
        .def_prop_ro("digits_reached", &SolveReport::digits_reached,
                     "log10(||b|| / final defect): what the relative stop measures (digits_gained from a zero guess)")
        .def_prop_ro("rate_per_cycle", &SolveReport::rate_per_cycle, "mean defect reduction per inner V-cycle")
        .def_ro("fell_back_to_double", &SolveReport::fell_back_to_double)
        .def_ro("history", &SolveReport::history, "the outer steps (OuterStep)")
        .def_ro("solve_seconds", &SolveReport::solve_seconds, "wall-clock time of the solve, transfers included")
        .def_ro("upload_seconds", &SolveReport::upload_seconds, "of solve_seconds: b (and x0) to the device")
        .def_ro("download_seconds", &SolveReport::download_seconds, "of solve_seconds: x back to the caller")
        .def("__repr__", &report_repr);
}

}  // namespace adimg::python

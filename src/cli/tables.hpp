#pragma once
// Human-readable tables of a solve: options, levels, convergence history.

#include <adimg/options.hpp>
#include <adimg/report.hpp>
#include <adimg/solver.hpp>

#include <cstdio>
#include <string>
#include <vector>

namespace adimg::cli {

std::string format_bytes(double bytes);
/// Every option of the option table with its value, one aligned "--flag value" line each.
std::string describe(const SolverOptions& options);
void print_levels(std::FILE* out, const std::vector<LevelInfo>& levels);
/// A step callback that prints the convergence history as it comes.
StepCallback history_printer(std::FILE* out);
/// The status (with its message, options respelt as flags) and the iteration count of a finished solve.
void print_outcome(std::FILE* out, const SolveReport& report);

}  // namespace adimg::cli

#pragma once
// Human-readable tables of a solve: configuration, levels, convergence history.

#include <adimg/options.hpp>
#include <adimg/report.hpp>

#include <cstdio>
#include <string>
#include <vector>

namespace adimg::cli {

std::string format_bytes(double bytes);
std::string describe(const SolverOptions& options);
void print_levels(std::FILE* out, const std::vector<LevelInfo>& levels);
void print_history_header(std::FILE* out, double initial_defect);
void print_history_row(std::FILE* out, int outer, const OuterStep& step);

}  // namespace adimg::cli

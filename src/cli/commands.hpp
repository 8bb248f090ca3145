#pragma once
// The subcommands of the adimg tool. Each returns the process exit status:
// 0 success, 1 a solve that did not converge, 2 bad input, 3 a device fault or resource limit.

#include <string>
#include <vector>

namespace adimg::cli {

int run_info(const std::vector<std::string>& args);
int run_assemble(const std::vector<std::string>& args);
int run_solve(const std::vector<std::string>& args);

}  // namespace adimg::cli

// The sizes a setup can take: 32-bit node indices and the memory of the machine or GPU, checked
// before anything is allocated (include/adimg/problems.hpp).
#include <adimg/error.hpp>
#include <adimg/problems.hpp>

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>

namespace adimg {

namespace {

std::string gib(double bytes) {
    std::ostringstream text;
    text.precision(3);
    text << bytes / double(1 << 30) << " GiB";
    return text.str();
}

/// A memory limit in bytes from a cgroup file ("max" or a number), or 0 if there is none.
double cgroup_limit(const char* path) {
    std::ifstream in(path);
    std::string text;
    if (!(in >> text) || text == "max") return 0.0;
    char* end = nullptr;
    const double v = std::strtod(text.c_str(), &end);
    return end != text.c_str() && v > 0.0 ? v : 0.0;
}

}  // namespace

MemoryBudget host_memory() {
    MemoryBudget memory{static_cast<double>(sysconf(_SC_PHYS_PAGES)) * static_cast<double>(sysconf(_SC_PAGESIZE)),
                        "this machine has"};
    for (const char* path : {"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"}) {
        const double limit = cgroup_limit(path);
        if (limit > 0.0 && limit < memory.bytes) memory = {limit, "this container may use"};
    }
    return memory;
}

void check_memory(double nodes, double bytes_per_node, const std::string& what, const MemoryBudget& memory,
                  const std::string& remedy) {
    const double needed = nodes * bytes_per_node;
    if (needed <= 0.9 * memory.bytes) return;
    throw input_error(what + " needs about " + gib(needed) + " of memory, but " + memory.where + " " +
                      gib(memory.bytes) + "; " + remedy);
}

void check_level(int level, double bytes_per_node, const std::string& what, const MemoryBudget& memory,
                 const std::string& name) {
    const double nodes = std::pow(std::ldexp(1.0, std::clamp(level, 0, 62)) + 1.0, 2.0);
    const std::string given = name + " " + std::to_string(level);
    if (level < 1) throw input_error(given + " is outside 1.." + std::to_string(max_level) + " (level 1 is a 3x3 grid)");
    if (level > max_level) {
        std::ostringstream msg;
        msg.precision(3);
        msg << given << " is outside 1.." << max_level << ": its (2^" << level << "+1)^2 = " << nodes
            << " nodes exceed the 32-bit node indices (and " << what << " would need about "
            << gib(nodes * bytes_per_node) << " of memory)";
        throw input_error(msg.str());
    }
    check_memory(nodes, bytes_per_node, given + ": " + what, memory, "use a lower level");
}

}  // namespace adimg

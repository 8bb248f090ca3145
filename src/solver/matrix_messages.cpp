#include "matrix_messages.hpp"

#include <cstdio>
#include <sstream>

namespace adimg::matrix_messages {

std::string format(double v) {
    std::ostringstream out;
    out.precision(17);
    out << v;
    return out.str();
}

std::string Describer::node(long long i, long long j) const {
    std::ostringstream out;
    out << '(' << i << ", " << j << ')';
    return out.str();
}

std::string Describer::row(std::size_t p) const {
    const long long i = static_cast<long long>(p % mx), j = static_cast<long long>(p / mx);
    return "row " + std::to_string(p) + " (node " + node(i, j) + ", Matrix Market row " + std::to_string(p + 1) +
           ")";
}

std::string Describer::entry(std::size_t p, int k) const {
    const long long i = static_cast<long long>(p % mx) + band_dx(k),
                    j = static_cast<long long>(p / mx) + band_dy(k);
    const long long q = j * mx + i;
    return "band " + std::string(band_names[k]) + ", column " + std::to_string(q) + " = node " + node(i, j) +
           ", Matrix Market entry (" + std::to_string(p + 1) + ", " + std::to_string(q + 1) + ")";
}

std::string Describer::more(long long rows) const {
    return rows > 1 ? " (" + std::to_string(rows - 1) + " more row" + (rows > 2 ? "s" : "") + " like it)" : "";
}

std::string removed_component_note(double component) {
    char size[32];
    std::snprintf(size, sizeof size, "%.3g", component);
    return std::string("note: the matrix is pure Neumann (constant null space) and b had a component along the "
                       "constant of ") +
           size + " of ||b||, more than rounding; it was removed, so x solves the compatible system (sum of b zero) "
                  "and has zero mean";
}

}  // namespace adimg::matrix_messages

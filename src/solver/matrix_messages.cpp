#include "matrix_messages.hpp"

#include <adimg/error.hpp>

#include <algorithm>
#include <cmath>
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

void throw_first_offence(const Offences& found, int mx, int my, double symmetry_tolerance, const EntryReader& A) {
    using namespace matrix_rules;
    const Describer d{mx, my};
    if (const Offence f = found[not_finite]; f.rows)
        throw input_error("matrix: " + d.row(f.p) + ", band " + band_names[f.k] + ": the entry is " + format(A(f.k, f.p)) +
                          "; every entry must be finite" + d.more(f.rows));

    if (const Offence f = found[off_grid]; f.rows) {
        const int i = static_cast<int>(f.p % mx) + band_dx(f.k), j = static_cast<int>(f.p / mx) + band_dy(f.k);
        throw input_error("matrix: " + d.row(f.p) + ", band " + band_names[f.k] + " holds " + format(A(f.k, f.p)) +
                          ", a coupling with node " + d.node(i, j) + ", which is outside the " + std::to_string(mx) +
                          "x" + std::to_string(my) +
                          " grid; band entries that reach off the grid must be zero (band k = "
                          "3 (dy + 1) + (dx + 1) couples node (i, j) with (i + dx, j + dy), row p = j * mx + i)" +
                          d.more(f.rows));
    }

    if (const Offence f = found[not_positive]; f.rows)
        throw input_error("matrix: " + d.row(f.p) + ": the diagonal entry is " + format(A(C, f.p)) +
                          "; every diagonal entry must be positive (multigrid needs a symmetric positive definite "
                          "matrix)" +
                          d.more(f.rows));

    if (const Offence f = found[asymmetric]; f.rows) {
        const std::size_t q = neighbour(f.p, f.k, mx);
        const double apq = A(f.k, f.p), aqp = A(8 - f.k, q);
        std::ostringstream rel;
        rel.precision(3);
        rel << std::abs(apq - aqp) / std::max(std::abs(apq), std::abs(aqp)) << " exceeds the tolerance "
            << symmetry_tolerance;
        throw input_error("matrix: not symmetric: " + d.row(f.p) + " has " + format(apq) + " (" + d.entry(f.p, f.k) +
                          "), but row " + std::to_string(q) + " has " + format(aqp) +
                          " in the transposed position (band " + band_names[8 - f.k] + "); the relative difference " +
                          rel.str() +
                          " (MatrixChecks::symmetry_tolerance). adimg's multigrid needs a symmetric positive definite "
                          "matrix; only a coupling into a row that holds nothing but its diagonal (a Dirichlet row "
                          "enforced on the row alone) may be one-sided. " +
                          edge_contract + d.more(f.rows));
    }
}

std::string removed_component_note(double component) {
    char size[32];
    std::snprintf(size, sizeof size, "%.3g", component);
    return std::string("note: the matrix is pure Neumann (constant null space) and b had a component along the "
                       "constant of ") +
           size + " of ||b||, more than rounding; it was removed, so x solves the compatible system (sum of b zero) "
                  "and has zero mean";
}

void add_removed_component_note(std::string& message, double component) {
    if (component == 0.0) return;
    const std::string note = removed_component_note(component);
    message = message.empty() ? note : message + "; " + note;
}

}  // namespace adimg::matrix_messages

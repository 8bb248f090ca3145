#pragma once
// How the checks of a user's matrix (grid.cpp, matrix_definiteness.cpp) name what they reject:
// numbers in full, rows, nodes and entries with their Matrix Market positions, and the contract
// on the grid's edges.

#include <adimg/nine_bands.hpp>

#include "matrix_rules.hpp"

#include <array>
#include <cstddef>
#include <functional>
#include <string>

namespace adimg::matrix_messages {

inline constexpr const char* band_names[9] = {"SW", "S", "SE", "W", "C", "E", "NW", "N", "NE"};

/// A number with all its digits.
std::string format(double v);

/// Names rows, nodes and bands in messages, and counts how many rows break a rule.
struct Describer {
    int mx, my;

    std::string node(long long i, long long j) const;
    /// "row p (node (i, j), Matrix Market row p + 1)".
    std::string row(std::size_t p) const;
    /// "band NE, column q = node (i, j)" for an on-grid neighbour.
    std::string entry(std::size_t p, int k) const;
    /// " (n more rows like it)" for `rows` rows that break a rule, the first of them named.
    std::string more(long long rows) const;
};

/// The contract on the edges, for the messages that need it.
inline const char* const edge_contract =
    "adimg takes each edge of the grid as a Dirichlet edge (every row on it holds only its diagonal, a_qq x_q = "
    "a_qq g_q, and no row couples into it: eliminate g_q from the other equations, b_p -= a_pq g_q, or leave the "
    "coupling and adimg eliminates it) or as a natural edge (Neumann or Robin: its rows are equations like the "
    "interior ones, symmetric)";

/// The first row that breaks a check of matrix_rules (its first offending band k) and how many
/// rows break it.
struct Offence {
    long long rows = 0;
    std::size_t p = 0;
    int k = 0;
};
using Offences = std::array<Offence, matrix_rules::check_count>;
/// Reads entry (band k, row p) of the matrix checked, wherever it is held.
using EntryReader = std::function<double(int k, std::size_t p)>;

/// Throws input_error for the first check of `found` that a row breaks (not finite, off the grid,
/// diagonal not positive, not symmetric; row-only couplings are no error), naming its first row,
/// the entries involved and how many rows break it: the one wording of the host and device checks.
void throw_first_offence(const Offences& found, int mx, int my, double symmetry_tolerance, const EntryReader& entry);

/// The note of a solve whose pure Neumann b lost a component of size `component` (relative to
/// ||b||, as RightHandSideMap::apply() returns it) along the constant null vector.
std::string removed_component_note(double component);
/// That note after whatever `message` says already (nothing where `component` is 0).
void add_removed_component_note(std::string& message, double component);

}  // namespace adimg::matrix_messages

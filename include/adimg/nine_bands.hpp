#pragma once
/// \file
/// Nine-band matrices of Q1 elements on an mx x my tensor-product grid (docs/design.md §2).
///
/// Node (i, j) has index p = j * mx + i. Band k = 3 (dy + 1) + (dx + 1) holds the coupling of
/// row p with node (i + dx, j + dy), in the order SW S SE W C E NW N NE. The bands are stored as
/// a structure of arrays: value(k, p) = values[k * n + p]. Entries reaching outside the grid are 0.

#include <adimg/zeroed_vector.hpp>

#include <cstddef>

namespace adimg {

/// Band numbers, in storage order.
enum Band : int { SW = 0, S = 1, SE = 2, W = 3, C = 4, E = 5, NW = 6, N = 7, NE = 8 };

/// The band that couples node (i, j) with (i + dx, j + dy).
constexpr int band_index(int dx, int dy) { return 3 * (dy + 1) + (dx + 1); }
/// The x offset of band k.
constexpr int band_dx(int k) { return k % 3 - 1; }
/// The y offset of band k.
constexpr int band_dy(int k) { return k / 3 - 1; }

/// Which edges of the grid are natural (docs/design.md §2, §3): their nodes are unknowns like
/// interior nodes, and the grid transfers interpolate along them. An edge that is not natural is
/// Dirichlet: its rows are identity rows that no other row couples into, and the coarse-grid
/// correction is zero on it. A node on two edges (a corner) is Dirichlet if either edge is.
/// All false (the default) is the all-Dirichlet matrix of the built-in problems.
///
/// An edge may also border an eliminated boundary: the matrix is the interior of a grid whose
/// Dirichlet nodes beyond that edge were removed from the system (scikit-fem's condense()). Such
/// an edge is natural (its nodes are unknowns), and the grid coarsens as the interior of the
/// grid with that node line put back does, with zero at the eliminated nodes (coarsening.hpp).
struct NaturalEdges {
    bool west = false, east = false, south = false, north = false;
    /// Which natural edges border an eliminated Dirichlet boundary (GridMatrix reads them from the
    /// matrix; docs/design.md §3).
    bool eliminated_west = false, eliminated_east = false, eliminated_south = false, eliminated_north = false;

    constexpr bool any() const { return west || east || south || north; }
    constexpr bool all() const { return west && east && south && north; }
    /// True if node (i, j) of an mx x my grid lies on a Dirichlet edge.
    constexpr bool dirichlet_node(int i, int j, int mx, int my) const {
        return (i == 0 && !west) || (i == mx - 1 && !east) || (j == 0 && !south) || (j == my - 1 && !north);
    }
};

/// A nine-band matrix held in host memory.
template <class T>
struct NineBands {
    int mx = 0;
    int my = 0;
    /// 9 * mx * my entries, band-major. A new matrix's zeros are not written (ZeroedVector): the
    /// loop that assembles it maps its memory.
    ZeroedVector<T> values;
    NaturalEdges natural;   ///< the grid edges whose nodes are unknowns (none: all Dirichlet)

    NineBands() = default;
    NineBands(int mx_, int my_) : mx(mx_), my(my_), values(zeros<T>(9 * rows())) {}

    std::size_t rows() const { return static_cast<std::size_t>(mx) * static_cast<std::size_t>(my); }
    T& operator()(int k, std::size_t p) { return values[k * rows() + p]; }
    const T& operator()(int k, std::size_t p) const { return values[k * rows() + p]; }
    const T* band(int k) const { return values.data() + k * rows(); }
};

}  // namespace adimg

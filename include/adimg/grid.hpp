#pragma once
/// \file
/// Your own nine-band matrix on a tensor-product grid: the grid, and the matrix checked against
/// the contract below. adimg::Solver (solver.hpp) sets it up and solves with it.
///
/// Three steps:
///
/// 1. describe the grid: `Grid grid(257, 257);` (no node positions: bilinear prolongation), or
///    `Grid::from_widths(hx, hy)` / `Grid::from_coordinates(x, y)` (exact Q1 prolongation on a
///    rectilinear mesh);
/// 2. hand over the matrix: `GridMatrix A = GridMatrix::from_eigen(grid, sparse);` (or nine bands
///    as host arrays). The constructor checks the matrix and throws input_error naming the first
///    offending row or entry;
/// 3. `Solver solver(options); solver.setup(A);` builds the coarse levels as Galerkin products
///    R A P and hands them to the backend once; then `solver.solve(b, x)` as often as needed.
///
/// The contract on the matrix (what the checks enforce):
/// - node (i, j) is row p = j * mx + i (x fastest); row p couples only with its eight grid
///   neighbours (nine bands, docs/design.md §2);
/// - every entry is finite and every diagonal entry is positive;
/// - the matrix is symmetric up to a relative tolerance (MatrixChecks::symmetry_tolerance);
/// - every node on the edge of the grid (i = 0, j = 0, i = mx - 1 or j = my - 1) is a Dirichlet
///   node: its row has no entry but the diagonal, and no interior row couples into it. The
///   solver's grid transfers keep the coarse-grid correction at zero on edge nodes, so the edge
///   values must come from the edge rows alone. Eliminate a known boundary value g_q from the
///   interior equations (b_p -= a_pq g_q, then a_pq = 0) and write its row as a_qq x_q = a_qq g_q.
///   A diagonal a_qq other than 1 is fine: the row is scaled to the identity, and b_q with it at
///   every solve.

#include <adimg/nine_bands.hpp>
#include <adimg/problems.hpp>

#include <Eigen/SparseCore>

#include <array>
#include <cstddef>
#include <utility>
#include <vector>

namespace adimg {

/// A tensor-product grid of mx x my nodes, optionally with the positions of its nodes.
///
/// Multigrid halves the grid in both directions at once, so both sizes must be
/// `c * 2^k + 1` with k >= 1 (257 = 2^8 + 1, 193 = 3 * 2^6 + 1, 7 = 3 * 2 + 1). Coarsening stops
/// at the grid on SolverOptions::coarse_level, or earlier where a direction would drop below
/// three nodes (one interior node).
///
/// Levels are numbered like the built-in cases: the finest grid is level L, where L is the
/// smaller of the exponents k of mx - 1 and my - 1, and level l has
/// `(mx - 1) / 2^(L - l) + 1` by `(my - 1) / 2^(L - l) + 1` nodes. For a (2^L + 1)^2 grid,
/// level 1 is the 3 x 3 grid, as for the built-in cases.
///
/// Without positions the prolongation is bilinear in the grid's index space (every coarse
/// element is split at t = 1/2), which is the right choice for curvilinear (deformed) meshes and
/// for matrices that do not come from a rectilinear mesh. With positions (a rectilinear mesh:
/// node (i, j) at (x_i, y_j)) the prolongation is the exact Q1 embedding, split position
/// t = h_{2I} / (h_{2I} + h_{2I+1}) from the fine element widths, and for the Q1 Laplacian the
/// Galerkin coarse matrices then equal the rediscretized ones (docs/design.md §3).
class Grid {
public:
    /// An mx x my grid without node positions (bilinear prolongation, t = 1/2).
    /// Throws input_error if a size cannot be coarsened (see the class comment).
    Grid(int mx, int my);

    /// A rectilinear grid from its element widths, left to right and bottom to top:
    /// `hx.size() + 1` by `hy.size() + 1` nodes. Every width must be finite and positive.
    /// Widths keep graded meshes exact where coordinates cannot (docs/design.md §1).
    static Grid from_widths(std::vector<double> hx, std::vector<double> hy);
    /// A rectilinear grid from its node coordinates (strictly increasing); the widths are their
    /// differences.
    static Grid from_coordinates(const std::vector<double>& x, const std::vector<double>& y);
    /// The grid of a tensor-product mesh (its widths).
    static Grid from_mesh(const TensorMesh& mesh);

    int mx() const { return mx_; }
    int my() const { return my_; }
    std::size_t nodes() const { return static_cast<std::size_t>(mx_) * static_cast<std::size_t>(my_); }
    /// True if the grid has node positions (exact Q1 prolongation), false for t = 1/2.
    bool has_positions() const { return !hx_.empty(); }
    /// The element widths in x (empty without positions).
    const std::vector<double>& widths_x() const { return hx_; }
    /// The element widths in y (empty without positions).
    const std::vector<double>& widths_y() const { return hy_; }

    /// L: the level of this (the finest) grid.
    int finest_level() const { return finest_level_; }
    /// The lowest level whose grid still has at least three nodes in each direction.
    int coarsest_level() const { return coarsest_level_; }
    /// Nodes in x and y on level l (coarsest_level() <= l <= finest_level()).
    int mx_on_level(int level) const;
    int my_on_level(int level) const;

    /// The split positions of every coarsening from level `coarse` up to the finest, as
    /// galerkin_hierarchy() takes them: entry 0 splits level `coarse` into level `coarse + 1`.
    /// t = 1/2 without positions, from the widths with them.
    std::pair<std::vector<std::vector<double>>, std::vector<std::vector<double>>> split_positions_from(
        int coarse) const;

private:
    void set_levels();

    int mx_ = 0, my_ = 0;
    std::vector<double> hx_, hy_;
    int finest_level_ = 0, coarsest_level_ = 0;
};

/// How strictly a GridMatrix checks the matrix it is given.
struct MatrixChecks {
    /// Largest accepted |a_pq - a_qp| relative to max(|a_pq|, |a_qp|). Differences below
    /// 64 eps sqrt(a_pp a_qq), rounding at the scale of the two diagonals, are always accepted,
    /// so an entry that cancels to rounding noise one way and to zero the other is not an error.
    double symmetry_tolerance = 1e-10;
};

/// A checked nine-band matrix on a Grid: what Solver::setup takes.
///
/// Constructing one copies the values, checks them against the contract in the file comment
/// (sizes, finite entries, couplings that stay on the grid, positive diagonal, Dirichlet edge
/// rows, no coupling into edge nodes, symmetry) and throws input_error naming the first row or
/// entry that breaks it, how many rows break it in all, and what is allowed. Rows are numbered
/// from 0 (p = j * mx + i); the messages also give the node (i, j) and the band name
/// (SW S SE W C E NW N NE), and the 1-based Matrix Market row and column.
///
/// Edge rows whose only entry is a diagonal a != 1 are scaled to the identity; bands() holds the
/// scaled matrix, and Solver::solve scales b on those rows by 1/a, so x solves the system
/// as given.
class GridMatrix {
public:
    /// From nine bands (band k, row p at values[k * n + p], as NineBands stores them).
    /// `bands.mx` and `bands.my` must match the grid.
    GridMatrix(Grid grid, NineBands<double> bands, const MatrixChecks& checks = {});

    /// From one band-major array of 9 * mx * my values: band k of row p at values[k * n + p].
    static GridMatrix from_band_major(Grid grid, const double* values, const MatrixChecks& checks = {});
    /// From nine arrays of mx * my values each, in band order SW S SE W C E NW N NE
    /// (band k = 3 (dy + 1) + (dx + 1) couples row p with node (i + dx, j + dy)).
    static GridMatrix from_bands(Grid grid, const std::array<const double*, 9>& bands, const MatrixChecks& checks = {});
    /// From an Eigen sparse matrix with row and column p = j * mx + i (x fastest). Duplicate entries
    /// are summed; an entry that couples two nodes that are not grid neighbours is an input_error
    /// naming it, which also says whether the matrix fits y-fastest numbering (p = i * my + j) and
    /// how to renumber. fits_grid() (io.hpp) checks a numbering without throwing.
    static GridMatrix from_eigen(Grid grid, const Eigen::SparseMatrix<double>& A, const MatrixChecks& checks = {});

    const Grid& grid() const { return grid_; }
    /// The matrix as the solver sees it: edge rows scaled to the identity.
    const NineBands<double>& bands() const { return bands_; }
    /// Edge rows that were scaled: (row p, its diagonal a_pp as given), in increasing p.
    const std::vector<std::pair<std::size_t, double>>& scaled_rows() const { return scaled_rows_; }

    /// The right-hand side the solver sees: a copy of b with each scaled row divided by its
    /// diagonal (Solver::solve does this itself, and skips the copy when no row was scaled).
    std::vector<double> solver_rhs(const std::vector<double>& b) const;
    /// y = A x with the matrix as given (edge rows unscaled).
    std::vector<double> multiply(const std::vector<double>& x) const;
    /// ||b - A x||_2 with the matrix as given.
    double defect_norm(const std::vector<double>& b, const std::vector<double>& x) const;

private:
    void check_and_scale(const MatrixChecks& checks);

    Grid grid_;
    NineBands<double> bands_;
    std::vector<std::pair<std::size_t, double>> scaled_rows_;
};

}  // namespace adimg

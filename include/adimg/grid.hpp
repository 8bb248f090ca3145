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
/// - each edge of the grid (west i = 0, east i = mx - 1, south j = 0, north j = my - 1) is either
///   - a Dirichlet edge: every row on it holds only its diagonal, a_qq x_q = a_qq g_q, and no other
///     row couples into it. The grid transfers keep the coarse-grid correction at zero there. A
///     diagonal a_qq other than 1 is fine: the row is scaled to the identity, and b_q with it at
///     every solve. Eliminate g_q from the other equations (b_p -= a_pq g_q, then a_pq = 0), or
///     leave a_pq in the matrix (row-only enforcement, as scikit-fem's `enforce` does): GridMatrix
///     then removes the coupling and lifts b at every solve (eliminated());
///   - or a natural edge (Neumann, Robin): some row on it holds more than its diagonal. Its nodes
///     are unknowns like the interior ones, their rows symmetric equations that may couple along
///     the edge and inward. A node on it whose row holds only its diagonal (a Dirichlet point, say)
///     is solved as such. A corner belongs to both its edges.
///   Which edges are natural is read from the matrix (natural_edges());
/// - with every edge natural the matrix may be singular with the constant null space (a pure
///   Neumann problem): constant_null_space() says so, every solve removes b's component along the
///   constant (the report's message says so when it was more than rounding) and returns the
///   solution of zero mean, the minimum-norm solution (docs/design.md §2).

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
/// Any size of at least 3 nodes per direction coarsens (docs/design.md §3): a direction of m
/// nodes to the nodes at its even indices and its last node, m / 2 + 1 (2^k + 1 -> 2^(k-1) + 1,
/// 1000 -> 501), each direction on its own until it has three nodes (semi-coarsening where one
/// runs out first). A matrix whose Dirichlet boundary was eliminated (condensed: 2^k - 1 interior
/// nodes) coarsens as the interior of the grid with that boundary put back, 2^(k-1) - 1; GridMatrix
/// reads which edges are such from the matrix. Coarsening stops at the grid on
/// SolverOptions::coarse_level.
///
/// Levels are numbered from the coarsest grid, where neither direction halves any more, as
/// level 1, to the finest, level L, so that level l has about 2^l + 1 nodes in its longer
/// direction: for a (2^L + 1)^2 grid, level 1 is the 3 x 3 grid, as for the built-in cases.
///
/// Without positions the prolongation is bilinear in the grid's index space (every coarse
/// element is split at t = 1/2), which is the right choice for curvilinear (deformed) meshes and
/// for matrices that do not come from a rectilinear mesh. With positions (a rectilinear mesh:
/// node (i, j) at (x_i, y_j)) the prolongation is the exact Q1 embedding, split position
/// t = h_{2I} / (h_{2I} + h_{2I+1}) from the fine element widths, and for the Q1 Laplacian the
/// Galerkin coarse matrices then equal the rediscretized ones (docs/design.md §3). A coarse
/// element one fine element wide (the last one of an even size) has t = 1. An eliminated
/// boundary's element is taken as wide as its neighbour.
class Grid {
public:
    /// An mx x my grid without node positions (bilinear prolongation, t = 1/2).
    /// Throws input_error if a size is below 3.
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
    /// The lowest level: 1, the grid where neither direction halves any more.
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
    friend class GridMatrix;  // sets the eliminated edges it reads from the matrix
    void set_levels();
    /// The edges whose Dirichlet boundary was eliminated (NaturalEdges::eliminated_west ...).
    void set_eliminated(NaturalEdges edges);

    int mx_ = 0, my_ = 0;
    std::vector<double> hx_, hy_;
    NaturalEdges eliminated_;
    std::vector<int> sizes_x_, sizes_y_;  ///< nodes per level, finest first
    int finest_level_ = 0, coarsest_level_ = 0;
};

/// How strictly a GridMatrix checks the matrix it is given.
struct MatrixChecks {
    /// Largest accepted |a_pq - a_qp| relative to max(|a_pq|, |a_qp|). Differences below
    /// 64 eps sqrt(a_pp a_qq), rounding at the scale of the two diagonals, are always accepted,
    /// so an entry that cancels to rounding noise one way and to zero the other is not an error.
    double symmetry_tolerance = 1e-10;
};

/// A coupling a_pq into a Dirichlet row q that GridMatrix removed from the matrix (row-only
/// Dirichlet enforcement): at every solve b_p -= a_pq g_q with g_q = b_q / a_qq.
struct EliminatedCoupling {
    std::size_t row = 0;     ///< p
    std::size_t column = 0;  ///< q, a row that holds only its diagonal
    double value = 0.0;      ///< a_pq as given
    double diagonal = 0.0;   ///< a_qq as given
};

/// What turns b of the system as given into the right-hand side the solver sees: the lift of the
/// eliminated couplings, the scaling of Dirichlet edge rows to the identity, and for a pure Neumann
/// matrix the removal of b's component along the constant null vector. Linear in b.
struct RightHandSideMap {
    std::vector<std::pair<std::size_t, double>> scaled_rows;  ///< (row p, a_pp as given)
    std::vector<EliminatedCoupling> eliminated;
    /// Every edge row that holds only its diagonal, an identity row once scaled: the solution
    /// there is the mapped b, which a solve sets exactly (no other row couples into it).
    std::vector<std::size_t> dirichlet_rows;
    bool constant_null_space = false;

    /// False if apply() leaves every b as it is.
    bool changes_b() const;
    /// Applies the map to the n values of b in place. Returns the size of the component along the
    /// constant null vector that was removed, relative to ||b||, where it exceeded the rounding
    /// of b's sum; 0 otherwise (and always without a null space).
    double apply(double* b, std::size_t n) const;
    /// x_p = b_p on the Dirichlet rows, b mapped by apply(): the identity rows' exact solution.
    void set_dirichlet_values(const double* mapped_b, double* x) const;
};

/// x -= mean(x) over its n values: the zero-mean (minimum-norm) representative of a pure Neumann
/// solution.
void remove_mean(double* x, std::size_t n);

/// A checked nine-band matrix on a Grid: what Solver::setup takes.
///
/// Constructing one copies the values, checks them against the contract in the file comment
/// (sizes, finite entries, couplings that stay on the grid, positive diagonal, symmetry except for
/// couplings into Dirichlet rows, positive definite or pure Neumann), throws input_error naming the
/// first row or entry that breaks it, how many rows break it in all, and what is allowed, and
/// finds the natural edges. Rows are numbered from 0 (p = j * mx + i); the messages also give the
/// node (i, j) and the band name (SW S SE W C E NW N NE), and the 1-based Matrix Market row and
/// column.
///
/// Edge rows whose only entry is a diagonal a != 1 are scaled to the identity, and couplings
/// into rows that hold only their diagonal are removed; bands() holds the matrix so changed, and
/// Solver::solve maps b accordingly (rhs_map()), so x solves the system as given.
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
    /// The matrix as the solver sees it: Dirichlet edge rows scaled to the identity, couplings into
    /// Dirichlet rows removed; bands().natural are its natural edges.
    const NineBands<double>& bands() const { return bands_; }
    /// The edges whose nodes are unknowns (Neumann, Robin); the others are Dirichlet edges.
    NaturalEdges natural_edges() const { return bands_.natural; }
    /// True for a pure Neumann matrix: every edge natural, and the constant vector a null vector.
    bool constant_null_space() const { return rhs_.constant_null_space; }
    /// Edge rows that were scaled: (row p, its diagonal a_pp as given), in increasing p.
    const std::vector<std::pair<std::size_t, double>>& scaled_rows() const { return rhs_.scaled_rows; }
    /// Couplings into Dirichlet rows that were removed (row-only enforcement), in increasing row.
    const std::vector<EliminatedCoupling>& eliminated() const { return rhs_.eliminated; }
    /// How b becomes the solver's right-hand side (Solver::solve applies it).
    const RightHandSideMap& rhs_map() const { return rhs_; }

    /// The right-hand side the solver sees: a copy of b mapped by rhs_map() (Solver::solve does
    /// this itself, and skips the copy where the map changes nothing).
    std::vector<double> solver_rhs(const std::vector<double>& b) const;
    /// y = A x with the matrix as given (edge rows unscaled, removed couplings included).
    std::vector<double> multiply(const std::vector<double>& x) const;
    /// ||b - A x||_2 with the matrix as given.
    double defect_norm(const std::vector<double>& b, const std::vector<double>& x) const;

private:
    void check_and_scale(const MatrixChecks& checks);

    Grid grid_;
    NineBands<double> bands_;
    RightHandSideMap rhs_;
};

}  // namespace adimg

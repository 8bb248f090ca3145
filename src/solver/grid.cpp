#include <adimg/error.hpp>
#include <adimg/grid.hpp>
#include <adimg/io.hpp>

#include "bands_view.hpp"
#include "coarsening.hpp"
#include "compensated_sum.hpp"
#include "difference_form.hpp"
#include "matrix_definiteness.hpp"
#include "matrix_messages.hpp"
#include "matrix_rules.hpp"
#include "null_space.hpp"
#include "stencil.hpp"

#include <algorithm>
#include <array>
#include <climits>
#include <cmath>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include <omp.h>

namespace adimg {

using matrix_messages::band_names;
using matrix_messages::format;
using matrix_rules::diagonal_only;

namespace {

void check_size(int m, const char* name) {
    if (m < 3) {
        std::ostringstream msg;
        msg << "grid: " << name << " = " << m << " nodes; a grid needs at least 3 nodes in each direction";
        throw input_error(msg.str());
    }
}

/// Validates widths or coordinates: finite and positive.
void check_widths(const std::vector<double>& h, const char* direction, const char* source) {
    for (std::size_t e = 0; e < h.size(); ++e)
        if (!std::isfinite(h[e]) || !(h[e] > 0.0)) {
            std::ostringstream msg;
            msg << "grid: element " << e << " in " << direction << " has width " << format(h[e]) << source
                << "; every element width must be finite and positive";
            throw input_error(msg.str());
        }
}

/// The widths of one direction with its eliminated ends put back: each end element as wide as
/// its neighbour (the matrix does not say how far the eliminated node lay).
std::vector<double> full_widths(const std::vector<double>& h, bool eliminated_low, bool eliminated_high) {
    if (h.empty()) return h;
    std::vector<double> full;
    full.reserve(h.size() + 2);
    if (eliminated_low) full.push_back(h.front());
    full.insert(full.end(), h.begin(), h.end());
    if (eliminated_high) full.push_back(h.back());
    return full;
}

/// The split positions in index space (no node positions): t = 1/2, and 1 for a last coarse
/// element that is one fine element wide (a direction of `full` nodes, eliminated ends included).
std::vector<double> index_split_positions(int full) {
    std::vector<double> t(static_cast<std::size_t>(full / 2), 0.5);
    if (full % 2 == 0) t.back() = 1.0;
    return t;
}

}  // namespace

// --- Grid --------------------------------------------------------------------------------------

Grid::Grid(int mx, int my) : mx_(mx), my_(my) {
    check_size(mx, "Mx");
    check_size(my, "My");
    if (static_cast<long long>(mx) * my > INT_MAX)
        throw input_error("grid: " + std::to_string(mx) + "x" + std::to_string(my) + " has more than 2^31 - 1 nodes");
    set_levels();
}

void Grid::set_levels() {
    sizes_x_ = level_sizes(mx_, eliminated_.eliminated_west, eliminated_.eliminated_east);
    sizes_y_ = level_sizes(my_, eliminated_.eliminated_south, eliminated_.eliminated_north);
    const std::size_t levels = std::max(sizes_x_.size(), sizes_y_.size());
    sizes_x_.resize(levels, sizes_x_.back());
    sizes_y_.resize(levels, sizes_y_.back());
    // The coarsest grid, where neither direction halves any more, is level 1.
    coarsest_level_ = 1;
    finest_level_ = static_cast<int>(levels);
}

void Grid::set_eliminated(NaturalEdges edges) {
    eliminated_ = edges;
    set_levels();
}

Grid Grid::from_widths(std::vector<double> hx, std::vector<double> hy) {
    check_widths(hx, "x", "");
    check_widths(hy, "y", "");
    Grid g(static_cast<int>(hx.size()) + 1, static_cast<int>(hy.size()) + 1);
    g.hx_ = std::move(hx);
    g.hy_ = std::move(hy);
    return g;
}

Grid Grid::from_coordinates(const std::vector<double>& x, const std::vector<double>& y) {
    auto widths = [](const std::vector<double>& c, const char* direction) {
        std::vector<double> h(c.size() > 0 ? c.size() - 1 : 0);
        for (std::size_t i = 0; i < c.size(); ++i)
            if (!std::isfinite(c[i]))
                throw input_error(std::string("grid: the ") + direction + " coordinate of node " + std::to_string(i) +
                                  " is " + format(c[i]) + "; coordinates must be finite");
        for (std::size_t e = 0; e < h.size(); ++e) h[e] = c[e + 1] - c[e];
        check_widths(h, direction, " (coordinates must be strictly increasing)");
        return h;
    };
    return from_widths(widths(x, "x"), widths(y, "y"));
}

Grid Grid::from_mesh(const TensorMesh& mesh) { return from_widths(mesh.x.widths, mesh.y.widths); }

int Grid::mx_on_level(int level) const { return sizes_x_[finest_level_ - level]; }
int Grid::my_on_level(int level) const { return sizes_y_[finest_level_ - level]; }

std::pair<std::vector<std::vector<double>>, std::vector<std::vector<double>>> Grid::split_positions_from(
    int coarse) const {
    if (coarse < coarsest_level_ || coarse > finest_level_)
        throw input_error("grid: level " + std::to_string(coarse) + " is outside the grid's levels " +
                          std::to_string(coarsest_level_) + ".." + std::to_string(finest_level_));
    const int count = finest_level_ - coarse;
    // One direction: t of each coarsening, finest first, from the widths with the eliminated
    // ends put back (or t = 1/2 in index space without positions).
    auto direction = [&](const std::vector<int>& sizes, const std::vector<double>& h, bool low, bool high) {
        std::vector<std::vector<double>> t(count);
        Mesh1D full{full_widths(h, low, high)};
        for (int s = 0; s < count; ++s) {
            const Axis a = make_axis(sizes[s], low, high);
            if (!a.halves) continue;
            if (h.empty()) {
                t[count - 1 - s] = index_split_positions(a.full());
            } else {
                t[count - 1 - s] = split_positions(full);
                full = coarsened(full);
            }
        }
        return t;
    };
    const NaturalEdges& e = eliminated_;
    return {direction(sizes_x_, hx_, e.eliminated_west, e.eliminated_east),
            direction(sizes_y_, hy_, e.eliminated_south, e.eliminated_north)};
}

// --- GridMatrix --------------------------------------------------------------------------------

namespace {

/// Which edges are natural: those with a row that holds more than its diagonal. (After the
/// elimination of row-only Dirichlet couplings, no row couples into a row that holds only its
/// diagonal, so an edge of such rows is a Dirichlet edge.)
NaturalEdges find_natural_edges(const NineBands<double>& A) {
    const int mx = A.mx, my = A.my;
    auto coupled = [&](int i, int j) { return !diagonal_only(A, static_cast<std::size_t>(j) * mx + i); };
    NaturalEdges out;
    for (int j = 0; j < my; ++j) {
        out.west = out.west || coupled(0, j);
        out.east = out.east || coupled(mx - 1, j);
    }
    for (int i = 0; i < mx; ++i) {
        out.south = out.south || coupled(i, 0);
        out.north = out.north || coupled(i, my - 1);
    }
    return out;
}

/// Which natural edges border an eliminated Dirichlet boundary (a condensed matrix): on every row
/// along the edge (corners aside) the row sum is positive and at least a quarter of the sum of
/// the couplings inward (it lost as much outward: a Q1 row's couplings sum to zero, and its
/// outward ones are as strong as its inward ones on an even mesh), while the row next inward
/// sums to less than a quarter of it (so a reaction term, which makes every row sum positive,
/// does not count). A Neumann or Robin edge fails the test and coarsens as it is. Grids of fewer
/// than 5 nodes in a direction are read as they are.
NaturalEdges find_eliminated_edges(const NineBands<double>& A, NaturalEdges natural) {
    const int mx = A.mx, my = A.my;
    auto row_sum = [&](int i, int j) {
        double band[9];
        for (int k = 0; k < 9; ++k) band[k] = A(k, static_cast<std::size_t>(j) * mx + i);
        return compensated_row_sum(band, mx, my, i, j);
    };
    // The edge through (i0, j0), along (di, dj) for `count` nodes, inward (dx, dy).
    auto eliminated = [&](int i0, int j0, int di, int dj, int count, int dx, int dy) {
        if (mx < 5 || my < 5) return false;
        for (int c = 1; c + 1 < count; ++c) {
            const int i = i0 + c * di, j = j0 + c * dj;
            const std::size_t p = static_cast<std::size_t>(j) * mx + i;
            double inward = 0.0;
            for (int k = 0; k < 9; ++k)
                if ((dx != 0 && band_dx(k) == dx) || (dy != 0 && band_dy(k) == dy)) inward += A(k, p);
            const double sum = row_sum(i, j);
            if (!(sum > 0.25 * std::abs(inward) && std::abs(row_sum(i + dx, j + dy)) < 0.25 * sum)) return false;
        }
        return true;
    };
    NaturalEdges out = natural;
    out.eliminated_west = natural.west && eliminated(0, 0, 0, 1, my, 1, 0);
    out.eliminated_east = natural.east && eliminated(mx - 1, 0, 0, 1, my, -1, 0);
    out.eliminated_south = natural.south && eliminated(0, 0, 1, 0, mx, 0, 1);
    out.eliminated_north = natural.north && eliminated(0, my - 1, 1, 0, mx, 0, -1);
    return out;
}

/// Removes every coupling into a row that holds only its diagonal (a Dirichlet row whose column
/// the caller left in the matrix, as scikit-fem's row-only enforcement does) and returns them in
/// increasing row order, for the lift of b at each solve.
std::vector<EliminatedCoupling> eliminate_row_only_dirichlet(NineBands<double>& A) {
    const int mx = A.mx, my = A.my;
    const std::size_t n = A.rows();
    std::vector<unsigned char> dirichlet(n);
#pragma omp parallel for schedule(static)
    for (std::ptrdiff_t p = 0; p < static_cast<std::ptrdiff_t>(n); ++p)
        dirichlet[static_cast<std::size_t>(p)] = diagonal_only(A, static_cast<std::size_t>(p));
    std::vector<std::vector<EliminatedCoupling>> found(static_cast<std::size_t>(omp_get_max_threads()));
#pragma omp parallel
    {
        const std::size_t t = static_cast<std::size_t>(omp_get_thread_num()), count = omp_get_num_threads();
        for (std::size_t p = n * t / count; p < n * (t + 1) / count; ++p) {
            const int i = static_cast<int>(p % mx), j = static_cast<int>(p / mx);
            for (int k = 0; k < 9; ++k) {
                const int qi = i + band_dx(k), qj = j + band_dy(k);
                if (k == C || qi < 0 || qi >= mx || qj < 0 || qj >= my || A(k, p) == 0.0) continue;
                const std::size_t q = static_cast<std::size_t>(qj) * mx + qi;
                if (!dirichlet[q]) continue;
                found[t].push_back({p, q, A(k, p), A(C, q)});
                A(k, p) = 0.0;
            }
        }
    }
    std::vector<EliminatedCoupling> all;
    for (const auto& part : found) all.insert(all.end(), part.begin(), part.end());
    return all;
}

}  // namespace

GridMatrix::GridMatrix(Grid grid, NineBands<double> bands, const MatrixChecks& checks)
    : grid_(std::move(grid)), bands_(std::move(bands)) {
    if (bands_.mx != grid_.mx() || bands_.my != grid_.my())
        throw input_error("matrix: the bands are for a " + std::to_string(bands_.mx) + "x" + std::to_string(bands_.my) +
                          " grid, but the grid is " + std::to_string(grid_.mx()) + "x" + std::to_string(grid_.my()));
    if (bands_.values.size() != 9 * grid_.nodes())
        throw input_error("matrix: the bands hold " + std::to_string(bands_.values.size()) +
                          " values, but nine bands of a " + std::to_string(grid_.mx()) + "x" +
                          std::to_string(grid_.my()) + " grid need 9 * " + std::to_string(grid_.nodes()) + " = " +
                          std::to_string(9 * grid_.nodes()));
    check_and_scale(checks);
}

GridMatrix GridMatrix::from_band_major(Grid grid, const double* values, const MatrixChecks& checks) {
    if (!values) throw input_error("matrix: the band array is a null pointer");
    NineBands<double> bands;
    bands.mx = grid.mx();
    bands.my = grid.my();
    bands.values.assign(values, values + 9 * grid.nodes());
    return GridMatrix(std::move(grid), std::move(bands), checks);
}

GridMatrix GridMatrix::from_bands(Grid grid, const std::array<const double*, 9>& arrays, const MatrixChecks& checks) {
    NineBands<double> bands(grid.mx(), grid.my());
    const std::size_t n = grid.nodes();
    for (int k = 0; k < 9; ++k) {
        if (!arrays[k])
            throw input_error("matrix: band " + std::string(band_names[k]) + " (k = " + std::to_string(k) +
                              ") is a null pointer");
        std::copy(arrays[k], arrays[k] + n, bands.values.begin() + static_cast<std::ptrdiff_t>(k * n));
    }
    return GridMatrix(std::move(grid), std::move(bands), checks);
}

GridMatrix GridMatrix::from_eigen(Grid grid, const Eigen::SparseMatrix<double>& A, const MatrixChecks& checks) {
    NineBands<double> bands;
    try {
        bands = adimg::from_eigen(A, grid.mx(), grid.my());
    } catch (const input_error& e) {
        throw input_error(std::string("matrix: ") + e.what());
    }
    return GridMatrix(std::move(grid), std::move(bands), checks);
}

void GridMatrix::check_and_scale(const MatrixChecks& checks) {
    const int mx = grid_.mx(), my = grid_.my();
    const std::size_t n = grid_.nodes();
    const NineBands<double>& A = bands_;
    const double tol = checks.symmetry_tolerance;
    using matrix_messages::Offences;
    // Each check (matrix_rules::Check) finds the first offending row and counts all of them, in one
    // pass over the rows, one contiguous range of rows per thread: a check's first offending row is
    // the first of the lowest range that has one, so each message names the same row as a serial
    // scan. (Six serial passes took 1.7-3.4 s for a 4097 x 4097 matrix on the 2-core machine.)
    auto scan_all = [&] {
        std::vector<Offences> found(static_cast<std::size_t>(omp_get_max_threads()));
#pragma omp parallel
        {
            const std::size_t t = static_cast<std::size_t>(omp_get_thread_num()), count = omp_get_num_threads();
            Offences& mine = found[t];
            for (std::size_t p = n * t / count; p < n * (t + 1) / count; ++p) {
                const int i = static_cast<int>(p % mx), j = static_cast<int>(p / mx);
                for (int c = 0; c < matrix_rules::check_count; ++c)
                    for (int k = 0; k < 9; ++k)
                        if (matrix_rules::breaks(c, A, p, i, j, k, tol)) {
                            if (mine[c].rows++ == 0) {
                                mine[c].p = p;
                                mine[c].k = k;
                            }
                            break;
                        }
            }
        }
        Offences all{};
        for (const auto& mine : found)
            for (int c = 0; c < matrix_rules::check_count; ++c) {
                if (mine[c].rows && all[c].rows == 0) {
                    all[c].p = mine[c].p;
                    all[c].k = mine[c].k;
                }
                all[c].rows += mine[c].rows;
            }
        return all;
    };
    // Whether any entry breaks a check, band by band along each row: the common valid matrix is
    // read once in this order, and only a matrix with offenders (or row-only couplings) is scanned
    // again row by row for the first of each kind and their counts.
    auto any_breaks = [&] {
        long long broken = 0;
#pragma omp parallel for schedule(static) reduction(+ : broken)
        for (int j = 0; j < my; ++j)
            for (int k = 0; k < 9; ++k) {
                const double* a = &A(k, static_cast<std::size_t>(j) * mx);
                // Along the row, band k reaches the grid for i in lo..hi (none if its row is off).
                const bool row_on = j + band_dy(k) >= 0 && j + band_dy(k) < my;
                const int lo = row_on ? std::max(0, -band_dx(k)) : mx, hi = row_on ? std::min(mx - 1, mx - 1 - band_dx(k)) : mx - 1;
                for (int i = 0; i < mx; ++i) broken += !std::isfinite(a[i]);
                for (int i = 0; i < lo; ++i) broken += a[i] != 0.0;
                for (int i = hi + 1; i < mx; ++i) broken += a[i] != 0.0;
                if (k == C)
                    for (int i = 0; i < mx; ++i) broken += !(a[i] > 0.0);
                if (k > C && row_on) {
                    const std::size_t q0 = matrix_rules::neighbour(static_cast<std::size_t>(j) * mx, k, mx);
                    const double *transposed = &A(8 - k, q0), *diagonal = &A(C, static_cast<std::size_t>(j) * mx),
                                 *diagonal_q = &A(C, q0);
                    for (int i = lo; i <= hi; ++i)
                        broken += matrix_rules::pair_differs(a[i], transposed[i], diagonal[i], diagonal_q[i], tol);
                }
            }
        return broken != 0;
    };
    const Offences found = any_breaks() ? scan_all() : Offences{};
    matrix_messages::throw_first_offence(found, mx, my, tol, [&](int k, std::size_t p) { return A(k, p); });

    // Row-only Dirichlet rows: their columns are eliminated here and b is lifted at each solve.
    if (found[matrix_rules::row_only].rows) rhs_.eliminated = eliminate_row_only_dirichlet(bands_);
    bands_.natural = find_eliminated_edges(A, find_natural_edges(A));
    grid_.set_eliminated(bands_.natural);
    rhs_.constant_null_space = check_positive_definite(A);

    // Dirichlet rows on the edge, a x_p = a g_p, become identity rows; solve() scales b with them.
    for (int j = 0; j < my; ++j)
        for (int i = 0; i < mx; i += (j == 0 || j == my - 1 || i == mx - 1) ? 1 : mx - 1) {  // the edge nodes
            const std::size_t p = static_cast<std::size_t>(j) * mx + i;
            if (!diagonal_only(A, p)) continue;
            rhs_.dirichlet_rows.push_back(p);
            if (bands_(C, p) != 1.0) {
                rhs_.scaled_rows.emplace_back(p, bands_(C, p));
                bands_(C, p) = 1.0;
            }
        }
}

void RightHandSideMap::set_dirichlet_values(const double* mapped_b, double* x) const {
    for (std::size_t p : dirichlet_rows) x[p] = mapped_b[p];
}

bool RightHandSideMap::changes_b() const { return !scaled_rows.empty() || !eliminated.empty() || constant_null_space; }

double RightHandSideMap::apply(double* b, std::size_t n) const {
    // The lift first, from the values as given: g_q = b_q / a_qq; then the scaled rows.
    for (const EliminatedCoupling& e : eliminated) b[e.row] -= e.value * (b[e.column] / e.diagonal);
    for (const auto& [p, a] : scaled_rows) b[p] /= a;
    if (!constant_null_space || n == 0) return 0.0;
    CompensatedSum sum, magnitude, squares;
    for (std::size_t p = 0; p < n; ++p) {
        sum.add(b[p]);
        magnitude.add(std::abs(b[p]));
        squares.add(b[p] * b[p]);
    }
    const double mean = sum.value() / static_cast<double>(n);
#pragma omp parallel for schedule(static) if (n >= 16384)
    for (std::ptrdiff_t p = 0; p < static_cast<std::ptrdiff_t>(n); ++p) b[p] -= mean;
    return null_component(sum.value(), magnitude.value(), squares.value(), n);
}

void remove_mean(double* x, std::size_t n) {
    if (n == 0) return;
    CompensatedSum sum;
    for (std::size_t p = 0; p < n; ++p) sum.add(x[p]);
    const double mean = sum.value() / static_cast<double>(n);
#pragma omp parallel for schedule(static) if (n >= 16384)
    for (std::ptrdiff_t p = 0; p < static_cast<std::ptrdiff_t>(n); ++p) x[p] -= mean;
}

std::vector<double> GridMatrix::solver_rhs(const std::vector<double>& b) const {
    if (b.size() != grid_.nodes())
        throw input_error("right-hand side: " + std::to_string(b.size()) + " entries, but the matrix has " +
                          std::to_string(grid_.nodes()) + " rows");
    std::vector<double> out = b;
    rhs_.apply(out.data(), out.size());
    return out;
}

std::vector<double> GridMatrix::multiply(const std::vector<double>& x) const {
    if (x.size() != grid_.nodes())
        throw input_error("multiply: x has " + std::to_string(x.size()) + " entries, but the matrix has " +
                          std::to_string(grid_.nodes()) + " columns");
    const BandsView<double> A = view(bands_);
    std::vector<double> y(x.size());
    const int mx = grid_.mx(), my = grid_.my();
#pragma omp parallel for schedule(static)
    for (int j = 0; j < my; ++j)
        for (int i = 0; i < mx; ++i) y[static_cast<std::size_t>(j) * mx + i] = row_product<double>(A, x.data(), i, j);
    for (const auto& [p, a] : rhs_.scaled_rows) y[p] *= a;
    for (const EliminatedCoupling& e : rhs_.eliminated) y[e.row] += e.value * x[e.column];
    return y;
}

double GridMatrix::defect_norm(const std::vector<double>& b, const std::vector<double>& x) const {
    const std::vector<double> Ax = multiply(x);
    if (b.size() != Ax.size())
        throw input_error("defect: b has " + std::to_string(b.size()) + " entries, but the matrix has " +
                          std::to_string(Ax.size()) + " rows");
    double sum = 0.0;
    for (std::size_t p = 0; p < b.size(); ++p) sum += (b[p] - Ax[p]) * (b[p] - Ax[p]);
    return std::sqrt(sum);
}

}  // namespace adimg

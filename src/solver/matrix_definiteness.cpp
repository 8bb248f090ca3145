#include "matrix_definiteness.hpp"

#include <adimg/error.hpp>

#include "compensated_sum.hpp"
#include "matrix_messages.hpp"
#include "matrix_rules.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include <omp.h>

namespace adimg {

using matrix_messages::Describer;
using matrix_messages::format;

bool check_positive_definite(const NineBands<double>& A) {
    const int mx = A.mx, my = A.my;
    // The unknowns: i in i0..i1, j in j0..j1.
    const Unknowns u(A.natural, mx, my);
    const int i0 = u.i0, i1 = u.i1, j0 = u.j0, j1 = u.j1;
    // The 2 x 2 minor of unknowns p and q = p + (dx, dy), for the couplings k > C (east and the row
    // above), from sqrt(a_pp) of rows j and j + 1.
    auto minor_fails = [&](const double* roots, const double* roots_above, const double* a, int k, int i) {
        const double* roots_q = band_dy(k) == 0 ? roots : roots_above;
        return matrix_rules::minor_fails(a[i], roots[i], roots_q[i + band_dx(k)]);
    };
    // One pass over the rows of unknowns, one contiguous range of rows per thread, band by band
    // along each row: each thread counts the failing minors and sums each band's couplings among
    // the unknowns for the sign patterns below (v_p v_q depends only on the band: (-1)^dx for
    // v = (-1)^i, ...), in four interleaved sums per band.
    constexpr int lanes = 4;
    struct Part {
        long long minors = 0;
        CompensatedSum band_sums[9][lanes];
        double magnitude[lanes] = {};
    };
    std::vector<Part> parts(static_cast<std::size_t>(omp_get_max_threads()));
    auto roots_of_row = [&](int j, std::vector<double>& roots) {
        for (int i = 0; i < mx; ++i) roots[i] = std::sqrt(A(C, static_cast<std::size_t>(j) * mx + i));
    };
#pragma omp parallel
    {
        Part& part = parts[static_cast<std::size_t>(omp_get_thread_num())];
        std::vector<double> roots(mx), roots_above(mx);
        int previous = -2;
#pragma omp for schedule(static)
        for (int j = j0; j <= j1; ++j) {
            if (previous == j - 1) std::swap(roots, roots_above);  // row j's roots, made as the row above
            else roots_of_row(j, roots);
            if (j < j1) roots_of_row(j + 1, roots_above);
            previous = j;
            for (int k = 0; k < 9; ++k) {
                if (j + band_dy(k) < j0 || j + band_dy(k) > j1) continue;
                const int lo = std::max(i0, i0 - band_dx(k)), hi = std::min(i1, i1 - band_dx(k));
                const double* a = &A(k, static_cast<std::size_t>(j) * mx);
                CompensatedSum* sums = part.band_sums[k];
                int i = lo;
                for (; i + lanes - 1 <= hi; i += lanes)
                    for (int l = 0; l < lanes; ++l) {
                        sums[l].add(a[i + l]);
                        part.magnitude[l] += std::abs(a[i + l]);
                    }
                for (; i <= hi; ++i) {
                    sums[0].add(a[i]);
                    part.magnitude[0] += std::abs(a[i]);
                }
                if (k > C)
                    for (i = lo; i <= hi; ++i) part.minors += minor_fails(roots.data(), roots_above.data(), a, k, i);
            }
        }
    }
    DefinitenessSums sums;
    CompensatedSum band_sums[9];
    for (const Part& part : parts) {
        sums.minors += part.minors;
        for (int k = 0; k < 9; ++k)
            for (const CompensatedSum& lane : part.band_sums[k]) {
                band_sums[k].add(lane.sum);
                band_sums[k].add(lane.correction);
            }
        for (double m : part.magnitude) sums.magnitude += m;
    }
    for (int k = 0; k < 9; ++k) sums.band_sums[k] = band_sums[k].value();
    if (sums.minors) {
        // The first failing pair in row order, found again serially: this is the error path.
        bool found = false;
        std::vector<double> roots(mx), roots_above(mx);
        for (int j = j0; j <= j1 && !found; ++j) {
            roots_of_row(j, roots);
            if (j < j1) roots_of_row(j + 1, roots_above);
            const std::size_t row = static_cast<std::size_t>(j) * mx;
            for (int i = i0; i <= i1 && !found; ++i)
                for (int k = C + 1; k < 9; ++k) {
                    if (!u.contain(i + band_dx(k), j + band_dy(k)) ||
                        !minor_fails(roots.data(), roots_above.data(), &A(k, row), k, i))
                        continue;
                    sums.first_p = row + i;
                    sums.first_k = k;
                    found = true;
                    break;
                }
        }
    }
    return judge_positive_definite(sums, A.natural, mx, my, [&](int k, std::size_t p) { return A(k, p); });
}

bool judge_positive_definite(const DefinitenessSums& sums, NaturalEdges natural, int mx, int my,
                             const matrix_messages::EntryReader& A) {
    const Describer d{mx, my};
    const double eps = std::numeric_limits<double>::epsilon();
    const char* const contract =
        "adimg's multigrid needs a symmetric positive definite matrix (a stiffness matrix with Dirichlet "
        "nodes, or with natural edges plus a Robin or mass term), or a pure Neumann matrix whose only null "
        "vector is the constant; check the signs of the entries, a shift (A - s M with s > 0 is indefinite) "
        "and that every interior equation keeps its coupling to the eliminated Dirichlet values";
    if (const long long minors = sums.minors) {
        const std::size_t first_p = sums.first_p;
        const int first_k = sums.first_k;
        const std::size_t q = matrix_rules::neighbour(first_p, first_k, mx);
        throw input_error("matrix: not positive definite (indefinite or singular): " + d.row(first_p) + " and row " +
                          std::to_string(q) + " couple with " + format(A(first_k, first_p)) + " (" +
                          d.entry(first_p, first_k) + "), but their diagonals are " + format(A(C, first_p)) + " and " +
                          format(A(C, q)) + "; |a_pq| >= sqrt(a_pp a_qq) makes the 2 x 2 submatrix of the two rows, "
                          "and so the matrix, indefinite or singular. " +
                          contract + (minors > 1 ? " (" + std::to_string(minors - 1) + " more such pairs)" : ""));
    }

    struct Pattern {
        const char* name;
        bool flip_x, flip_y;  ///< v changes sign from node to node in x, in y
    };
    const Pattern patterns[] = {{"v = 1", false, false},
                                {"v = (-1)^i", true, false},
                                {"v = (-1)^j", false, true},
                                {"v = (-1)^(i+j)", true, true}};
    const double scale = sums.magnitude;
    bool singular = false;
    for (const Pattern& pattern : patterns) {
        CompensatedSum form;
        for (int k = 0; k < 9; ++k) {
            const bool negative = (pattern.flip_x && band_dx(k) != 0) != (pattern.flip_y && band_dy(k) != 0);
            form.add(negative ? -sums.band_sums[k] : sums.band_sums[k]);
        }
        const double value = form.value();
        std::ostringstream relative;
        relative.precision(3);
        relative << value / scale;
        const std::string nodes = natural.any() ? "the unknowns" : "the interior nodes";
        if (value < -16.0 * eps * scale)
            throw input_error("matrix: indefinite: for the sign pattern " + std::string(pattern.name) + " on " + nodes +
                              (natural.any() ? " (0 on the Dirichlet edges)" : " (0 on the edge)") + ", v^T A v = " + format(value) + " < 0 (" + relative.str() +
                              " of the sum of |a_pq|), which a positive definite matrix does not allow. " + contract);
        if (!pattern.flip_x && !pattern.flip_y && std::abs(value) <= 16.0 * eps * scale) {
            if (natural.all()) {
                singular = true;
                continue;
            }
            throw input_error("matrix: singular: the constant vector on " + nodes + " is a null vector (every "
                              "row there sums to zero to rounding: v^T A v = " + format(value) + " against a sum of "
                              "|a_pq| of " + format(scale) + "), as in a pure Neumann problem, which adimg accepts only "
                              "with every edge natural (no Dirichlet edge). " + contract);
        }
    }
    return singular;
}

}  // namespace adimg

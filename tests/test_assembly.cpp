// Assembly: the element matrix, symmetry, row sums, and the tensor-product identity.

#include <adimg/problems.hpp>
#include <adimg/io.hpp>
#include <problems/q1_element.hpp>
#include <solver/difference_form.hpp>
#include <solver/stencil.hpp>

#include <catch2/catch.hpp>

#include <Eigen/Dense>
#include <cmath>
#include <random>

using namespace adimg;

TEST_CASE("Q1 element matrix matches hand-computed values", "[assembly]") {
    // Unit square: diagonal 2/3, edge neighbours -1/6, diagonal neighbour -1/3.
    CHECK(q1_stiffness(1, 1, 0, 0, 0, 0) == Approx(2.0 / 3.0));
    CHECK(q1_stiffness(1, 1, 0, 0, 1, 0) == Approx(-1.0 / 6.0));
    CHECK(q1_stiffness(1, 1, 0, 0, 0, 1) == Approx(-1.0 / 6.0));
    CHECK(q1_stiffness(1, 1, 0, 0, 1, 1) == Approx(-1.0 / 3.0));
    // hx = 2, hy = 1: (hy/hx) K1⊗M1 + (hx/hy) M1⊗K1. Diagonal: 1/2·1/3 + 2·1/3 = 5/6.
    CHECK(q1_stiffness(2, 1, 0, 0, 0, 0) == Approx(5.0 / 6.0));
    // x-neighbour: 1/2·(-1)·1/3 + 2·1/6·1 = 1/6;  y-neighbour: 1/2·1·1/6 + 2·1/3·(-1) = -7/12.
    CHECK(q1_stiffness(2, 1, 0, 0, 1, 0) == Approx(1.0 / 6.0));
    CHECK(q1_stiffness(2, 1, 0, 0, 0, 1) == Approx(-7.0 / 12.0));
    // diagonal neighbour: 1/2·(-1)·1/6 + 2·1/6·(-1) = -5/12.
    CHECK(q1_stiffness(2, 1, 0, 0, 1, 1) == Approx(-5.0 / 12.0));
    // Rows of the element matrix sum to zero (constants are in its kernel).
    for (int a = 0; a < 2; ++a)
        for (int b = 0; b < 2; ++b) {
            double sum = 0;
            for (int c = 0; c < 2; ++c)
                for (int d = 0; d < 2; ++d) sum += q1_stiffness(0.3, 1.7, a, b, c, d);
            CHECK(std::abs(sum) < 1e-14);
        }
}

namespace {

/// max over interior rows of |row sum| / max |entry in row|, and whether A is exactly symmetric.
void check_symmetric_zero_row_sums(const NineBands<double>& A, double tolerance) {
    double worst = 0.0;
    bool symmetric = true;
    for (int j = 1; j < A.my - 1; ++j)
        for (int i = 1; i < A.mx - 1; ++i) {
            const std::size_t p = static_cast<std::size_t>(j) * A.mx + i;
            double sum = 0.0, largest = 0.0;
            for (int k = 0; k < 9; ++k) {
                REQUIRE(std::isfinite(A(k, p)));
                sum += A(k, p);
                largest = std::max(largest, std::abs(A(k, p)));
                const int qi = i + band_dx(k), qj = j + band_dy(k);
                const std::size_t q = static_cast<std::size_t>(qj) * A.mx + qi;
                if (A(k, p) != A(8 - k, q)) symmetric = false;
            }
            // Rows next to the boundary lose their couplings into it, so only rows with all
            // neighbours interior have a zero sum.
            if (i > 1 && i < A.mx - 2 && j > 1 && j < A.my - 2) worst = std::max(worst, std::abs(sum) / largest);
        }
    CHECK(symmetric);
    CHECK(worst < tolerance);
}

}  // namespace

TEST_CASE("matrix is exactly symmetric with zero interior row sums", "[assembly]") {
    for (const std::string name : {"U1", "U3", "A2", "A5"}) {
        INFO("case " << name << " level 6");
        check_symmetric_zero_row_sums(assemble_stiffness(builtin_case(name).mesh(6)), 1e-13);
    }
}

TEST_CASE("A5 assembles at level 10: finite, symmetric, zero row sums (the paper could not)", "[assembly]") {
    const TensorMesh mesh = builtin_case("A5").mesh(10);
    CHECK(mesh.smallest_width() == Approx(std::pow(0.03125 / 2, 10)).epsilon(1e-12));
    check_symmetric_zero_row_sums(assemble_stiffness(mesh), 1e-12);
}

TEST_CASE("A = Kx⊗My + Mx⊗Ky on small non-square grids", "[assembly]") {
    std::mt19937 rng(42);
    std::uniform_real_distribution<double> width(0.05, 2.0);
    for (auto [ex, ey] : {std::pair{4, 2}, std::pair{3, 7}, std::pair{8, 5}}) {
        TensorMesh mesh;
        for (int e = 0; e < ex; ++e) mesh.x.widths.push_back(width(rng));
        for (int e = 0; e < ey; ++e) mesh.y.widths.push_back(width(rng));
        auto one_d = [](const Mesh1D& m, bool stiffness) {
            Eigen::MatrixXd out = Eigen::MatrixXd::Zero(m.nodes(), m.nodes());
            for (int e = 0; e < m.elements(); ++e) {
                const double h = m.widths[e];
                Eigen::Matrix2d local;
                if (stiffness) local << 1 / h, -1 / h, -1 / h, 1 / h;
                else local << h / 3, h / 6, h / 6, h / 3;
                out.block(e, e, 2, 2) += local;
            }
            return out;
        };
        const Eigen::MatrixXd Kx = one_d(mesh.x, true), Mx = one_d(mesh.x, false);
        const Eigen::MatrixXd Ky = one_d(mesh.y, true), My = one_d(mesh.y, false);
        // Node p = j*mx + i: y is the slow index, so the y factor comes first in Eigen's kron order.
        const int mx = mesh.mx(), my = mesh.my(), n = mx * my;
        Eigen::MatrixXd full(n, n);
        for (int j = 0; j < my; ++j)
            for (int i = 0; i < mx; ++i)
                for (int l = 0; l < my; ++l)
                    for (int k = 0; k < mx; ++k)
                        full(j * mx + i, l * mx + k) = Kx(i, k) * My(j, l) + Mx(i, k) * Ky(j, l);
        const Eigen::MatrixXd A = Eigen::MatrixXd(to_eigen(assemble_stiffness(mesh)));
        double worst = 0.0;
        for (int p = 0; p < n; ++p)
            for (int q = 0; q < n; ++q) {
                const bool interior = !on_boundary(p % mx, p / mx, mx, my) && !on_boundary(q % mx, q / mx, mx, my);
                const double expected = interior ? full(p, q) : (p == q && !interior ? 1.0 : 0.0);
                if (!interior && p != q) continue;  // couplings into boundary rows are zero (checked below)
                worst = std::max(worst, std::abs(A(p, q) - expected));
            }
        INFO(ex << "x" << ey << " elements");
        CHECK(worst < 1e-12);
        for (int p = 0; p < n; ++p)
            for (int q = 0; q < n; ++q)
                if (p != q && (on_boundary(p % mx, p / mx, mx, my) || on_boundary(q % mx, q / mx, mx, my)))
                    REQUIRE(A(p, q) == 0.0);
    }
}

TEST_CASE("load vector is the exact consistent load ∫ f φ_i", "[assembly]") {
    // On U1 level 1 the single interior node has the load ∫ f φ_center, known in closed form.
    const TensorMesh mesh = builtin_case("U1").mesh(1);
    const std::vector<double> b = assemble_load(mesh, {1.0, 1.0});
    // ∫∫ (2y(1-y) + 2x(1-x)) φ(x)φ(y), φ the hat on [0,1] peaking at 1/2: ∫ 2x(1-x) φ = 5/24, ∫ φ = 1/2.
    CHECK(b[4] == Approx(2 * (5.0 / 24.0) * 0.5).epsilon(1e-14));
    for (int p : {0, 1, 2, 3, 5, 6, 7, 8}) CHECK(b[p] == 0.0);
}

TEST_CASE("The outer iteration's product in difference form rounds far below the plain one on a smooth x", "[assembly]") {
    // (A x)_p against a long double sum of the same stored entries, x the exact solution at the
    // nodes: the plain products round by eps |A| |x|, the differences of a smooth x by about h
    // times that (src/solver/difference_form.hpp), which is what lets a converged solve stay
    // near the discrete solution on fine grids. The reference is the operator the difference
    // form defines: the stored entries with the row sums of operator_row_sum(), which are zero
    // away from the Dirichlet edges (their entries' rounding leaves them within a few ulp) and
    // the stored rows' own sums beside them.
    for (const char* name : {"U1", "A2"}) {
        const TensorMesh mesh = builtin_case(name).mesh(9);
        const NineBands<double> A = assemble_stiffness(mesh);
        const PolynomialProblem problem{};  // the unit square's
        std::vector<double> x(A.rows());
        std::vector<double> from_low(A.mx, 0.0), from_high(A.mx, 0.0), y_low(A.my, 0.0), y_high(A.my, 0.0);
        for (int i = 1; i < A.mx; ++i) from_low[i] = from_low[i - 1] + mesh.x.widths[i - 1];
        for (int i = A.mx - 2; i >= 0; --i) from_high[i] = from_high[i + 1] + mesh.x.widths[i];
        for (int j = 1; j < A.my; ++j) y_low[j] = y_low[j - 1] + mesh.y.widths[j - 1];
        for (int j = A.my - 2; j >= 0; --j) y_high[j] = y_high[j + 1] + mesh.y.widths[j];
        for (int j = 0; j < A.my; ++j)
            for (int i = 0; i < A.mx; ++i)
                x[static_cast<std::size_t>(j) * A.mx + i] = problem.u0(from_low[i], from_high[i], y_low[j], y_high[j]);
        const BandsView<double> Av = view(A);
        double plain = 0.0, difference = 0.0, scale = 0.0;
        int zero_sums = 0, interior = 0, kept_sums = 0, by_edge = 0;
        for (int j = 0; j < A.my; ++j)
            for (int i = 0; i < A.mx; ++i) {
                const long long p = static_cast<long long>(j) * A.mx + i;
                double band[9];
                for (int k = 0; k < 9; ++k) band[k] = A(k, p);
                const double row_sum = operator_row_sum(band, A.mx, A.my, i, j);
                const bool inside = i >= 2 && j >= 2 && i + 2 < A.mx && j + 2 < A.my;
                const bool next_to_edge = (i == 1 || j == 1 || i + 2 == A.mx || j + 2 == A.my) && i > 0 && j > 0 &&
                                          i + 1 < A.mx && j + 1 < A.my;
                interior += inside;
                zero_sums += inside && row_sum == 0.0;
                by_edge += next_to_edge;
                kept_sums += next_to_edge && row_sum == compensated_row_sum(band, A.mx, A.my, i, j) && row_sum > 0.0;
                const long double exact =
                    nine_point_product<long double>(A.mx, A.my, i, j, [&](int k) { return band[k]; },
                                                    [&](int dx, int dy) { return x[p + dy * A.mx + dx] - x[p]; }) +
                    static_cast<long double>(row_sum) * x[p];
                plain = std::max(plain, static_cast<double>(std::abs(row_product<double>(Av, x.data(), i, j) - exact)));
                difference =
                    std::max(difference, static_cast<double>(std::abs(outer_product<double>(Av, x.data(), i, j) - exact)));
                scale = std::max(scale, static_cast<double>(std::abs(exact)));
            }
        INFO(name << ": largest error of the plain product " << plain << ", of the difference form " << difference
                  << ", largest |(A x)_p| " << scale);
        CHECK(difference * 30 < plain);
        CHECK(difference < 1e-13 * scale);  // the plain product's error is above this
        CHECK(plain > 1e-13 * scale);
        CHECK(zero_sums == interior);
        CHECK(kept_sums == by_edge);
    }
}

#pragma once
// The CPU backend: the operations of the backend contract (src/solver/backend.hpp) on host
// memory, parallelised with OpenMP. It is the reference every CUDA kernel is tested against, so each
// operation computes the shared formula of src/solver/stencil.hpp node by node; the loops around it
// are laid out for a core (each_node below; the line sweeps in line_sweeps.hpp).

#include <adimg/nine_bands.hpp>
#include <adimg/problems.hpp>

#include "../solver/backend.hpp"
#include "../solver/coarse_factor.hpp"
#include "../solver/difference_form.hpp"
#include "../solver/galerkin.hpp"
#include "../solver/stencil.hpp"
#include "line_sweeps.hpp"

#include "../solver/scalar_ratio.hpp"

#include "../common/scaled_norm.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#ifdef _OPENMP
#include <omp.h>
#endif

namespace adimg {

class CpuBackend {
public:
    /// Loops over fewer points than this run on one thread: on the coarse levels starting a
    /// parallel region costs more than the loop, and waiting threads spin on shared cores.
    static bool parallel_worth(std::size_t points) { return points >= 16384; }

    /// Vectors and matrices live in calloc'd storage that nothing writes before the operations
    /// do (ZeroedVector), so that the parallel loops map their pages on every thread.
    template <class T>
    using vector = ZeroedVector<T>;
    template <class T>
    using matrix = NineBands<T>;

    std::string name() const;

    // --- memory ---------------------------------------------------------------------------
    template <class T>
    vector<T> make_vector(int mx, int my) { return zeros<T>(static_cast<std::size_t>(mx) * my); }
    template <class T>
    vector<T> make_array(std::size_t n) { return zeros<T>(n); }
    template <class T>
    matrix<T> make_matrix(const NineBands<double>& A) {
        matrix<T> out(A.mx, A.my);
        update_values(A, out);
        return out;
    }
    /// New values for a matrix of the same grid, into its existing storage.
    template <class T>
    void update_values(const NineBands<double>& host, matrix<T>& A) {
        scaled_copy(1.0, host.values.data(), host.values.size(), A.values.data());
        A.natural = host.natural;
    }
    /// The stiffness matrix of a built-in problem's mesh, assembled (in parallel) on the host.
    template <class T>
    matrix<T> make_matrix(const TensorMesh& mesh) {
        if constexpr (std::is_same_v<T, double>)
            return assemble_stiffness(mesh);
        else
            return make_matrix<T>(assemble_stiffness(mesh));
    }
    template <class T>
    void update_values(const TensorMesh& mesh, matrix<T>& A) {
        update_values(assemble_stiffness(mesh), A);
    }
    /// n values from host memory into v (sized to n); the vector form for the hierarchy's arrays.
    template <class T>
    void upload(const double* host, std::size_t n, vector<T>& v) {
        if (v.size() != n) v = zeros<T>(n);
        scaled_copy(1.0, host, n, v.data());
    }
    template <class T>
    void upload(const std::vector<double>& host, vector<T>& v) { upload(host.data(), host.size(), v); }
    /// v into host memory that holds v.size() values.
    template <class T>
    void download(const vector<T>& v, double* host) { scaled_copy(1.0, v.data(), v.size(), host); }
    template <class T>
    void download(const vector<T>& v, std::vector<double>& host) {
        host.resize(v.size());
        download(v, host.data());
    }
    template <class T>
    static std::size_t bytes(const matrix<T>& A) { return A.values.size() * sizeof(T); }
    /// Bytes the backend holds besides the levels: the y-line sweeps' ratios c' (one value per
    /// node of the largest grid swept, kept from sweep to sweep).
    std::size_t workspace_bytes() const {
        return float_lines_.size() * sizeof(float) + double_lines_.size() * sizeof(double);
    }

    // --- a user's matrix and the built-in problems where the solve runs (engine.hpp) ---------
    /// An mx x my matrix of zeros, for a Galerkin level.
    template <class T>
    matrix<T> make_matrix(int mx, int my) { return matrix<T>(mx, my); }
    /// coarse = R fine P (galerkin_row.hpp), into coarse's storage.
    void galerkin_coarse(const matrix<double>& fine, const vector<double>& split_x, const vector<double>& split_y,
                         matrix<double>& coarse) {
        adimg::galerkin_coarse(fine, {split_x.begin(), split_x.end()}, {split_y.begin(), split_y.end()}, coarse);
    }
    void download(const matrix<double>& A, NineBands<double>& host) { host = A; }
    /// b = the load vector of the problem on `mesh`.
    template <class T>
    void assemble_load(const TensorMesh& mesh, const PolynomialProblem& problem, vector<T>& b) {
        if constexpr (std::is_same_v<T, double>) {
            adimg::assemble_load(mesh, problem, b.data());
        } else {
            const std::vector<double> load = adimg::assemble_load(mesh, problem);
            scaled_copy(1.0, load.data(), load.size(), b.data());
        }
    }
    /// The relative L2 error of the nodal values x against the problem's exact solution.
    template <class T>
    double relative_l2_error(const TensorMesh& mesh, const PolynomialProblem& problem, const vector<T>& x) {
        if constexpr (std::is_same_v<T, double>)
            return adimg::relative_l2_error(mesh, problem, x.data());
        else
            return adimg::relative_l2_error(mesh, problem, std::vector<double>(x.begin(), x.end()));
    }

    // --- stencil operations -----------------------------------------------------------------
    /// d = b - A x
    template <class T>
    void defect(const matrix<T>& A, const vector<T>& b, const vector<T>& x, vector<T>& d) {
        const BandsView<T> Av = view(A);
        each_node(A, [&](int i, int j, long long p, auto interior) { d[p] = b[p] - outer<T>(Av, x.data(), i, j, p, interior); });
    }

    /// x_out = x_in + omega D^-1 (b - A x_in)
    template <class T>
    void jacobi(const matrix<T>& A, const vector<T>& b, const vector<T>& x_in, vector<T>& x_out, T omega) {
        const BandsView<T> Av = view(A);
        each_node(A, [&](int i, int j, long long p, auto interior) {
            x_out[p] = jacobi_update(x_in[p], b[p], product<T>(Av, x_in.data(), i, j, p, interior), Av(C, p), omega);
        });
    }

    /// y = A x
    template <class T>
    void multiply(const matrix<T>& A, const vector<T>& x, vector<T>& y) {
        const BandsView<T> Av = view(A);
        each_node(A, [&](int i, int j, long long p, auto interior) { y[p] = outer<T>(Av, x.data(), i, j, p, interior); });
    }

    /// `steps` Jacobi steps on x in place, one pass over memory each, alternating with work.
    template <class T>
    void jacobi_steps(const matrix<T>& A, const vector<T>& b, vector<T>& x, vector<T>& work, T omega, int steps) {
        in_place_passes(x, work, steps, [&](int, const vector<T>& from, vector<T>& to) { jacobi(A, b, from, to, omega); },
                        [&](const vector<T>& from, vector<T>& to) { copy(from, to); });
    }

    /// One four-colour Gauss–Seidel sweep in place, colours in `order` (stencil.hpp); nodes of
    /// one colour do not couple, so each colour is a parallel update.
    template <class T>
    void gauss_seidel(const matrix<T>& A, const vector<T>& b, vector<T>& x, SweepOrder order = SweepOrder::forward) {
        const BandsView<T> Av = view(A);
        for (int step = 0; step < 4; ++step) {
            const int colour = colour_at(step, order), ci = colour & 1, cj = colour >> 1;
#pragma omp parallel for schedule(static) if(parallel_worth(A.rows()))
            for (int j = cj; j < A.my; j += 2)
                for (int i = ci; i < A.mx; i += 2) {
                    const std::size_t p = static_cast<std::size_t>(j) * A.mx + i;
                    x[p] = jacobi_update(x[p], b[p], row_product<T>(Av, x.data(), i, j), Av(C, p), T(1));
                }
        }
    }

    /// One ADI half-step: for every grid line in `direction`, solve the tridiagonal system of its
    /// in-line couplings with right-hand side b - (off-line couplings) x_in, by the Thomas
    /// algorithm, and write x_in + omega (solution - x_in) to x_out (line_sweeps.hpp).
    template <class T>
    void line_relax(const matrix<T>& A, const vector<T>& b, const vector<T>& x_in, vector<T>& x_out, Direction direction,
                    T omega) {
        const BandsView<T> Av = view(A);
        [[maybe_unused]] const bool parallel = parallel_worth(A.rows());
#ifdef _OPENMP
        const int threads = parallel ? omp_get_max_threads() : 1;
#else
        const int threads = 1;  // a caller compiled without OpenMP runs the loops below serially
#endif
        if (direction == Direction::x) {
            // Rows in groups (one when there are too few rows to give every thread a group).
            const int group = A.my >= cpu::x_line_group * threads ? cpu::x_line_group : 1;
            const int spacing = (A.my + group - 1) / group;
#pragma omp parallel if(parallel)
            {
                std::vector<T> c_prime(static_cast<std::size_t>(A.mx) * cpu::x_line_group);
#pragma omp for schedule(static)
                for (int first = 0; first < spacing; ++first)
                    cpu::x_line_group_sweep(Av, b.data(), x_in.data(), x_out.data(), omega, first, spacing,
                                            (A.my - first + spacing - 1) / spacing, c_prime.data());
            }
            return;
        }
        const int width = cpu::y_block_width(A.mx, threads);
        // The c' of block `first` occupy the block's own columns' share of one grid's worth of
        // values, in a buffer kept from sweep to sweep (a fresh one per sweep costs the kernel's
        // clearing of its pages every time).
        auto& c_prime = y_line_ratios<T>();
        if (c_prime.size() < A.rows()) c_prime = zeros<T>(A.rows());
#pragma omp parallel if(parallel)
        {
            std::vector<T> carry(2 * static_cast<std::size_t>(width));
#pragma omp for schedule(static)
            for (int first = 0; first < A.mx; first += width)
                cpu::y_line_block(Av, b.data(), x_in.data(), x_out.data(), omega, first, std::min(width, A.mx - first),
                                  c_prime.data() + static_cast<std::size_t>(first) * A.my, carry.data());
        }
    }

    // --- grid transfer ----------------------------------------------------------------------
    /// coarse = R fine (R = P^T); coarse nodes on a Dirichlet edge get 0 (stencil.hpp).
    template <class T>
    void restrict_to(const vector<T>& fine, int mx_fine, int my_fine, const vector<T>& split_x,
                     const vector<T>& split_y, vector<T>& coarse, NaturalEdges natural = {}) {
        const int mxc = x_axis(mx_fine, natural).coarse, myc = y_axis(my_fine, natural).coarse;
#pragma omp parallel for schedule(static) if(parallel_worth(fine.size()))
        for (int J = 0; J < myc; ++J)
            for (int I = 0; I < mxc; ++I)
                coarse[static_cast<std::size_t>(J) * mxc + I] =
                    restrict_value(fine.data(), mx_fine, my_fine, split_x.data(), split_y.data(), I, J, natural);
    }

    /// coarse = R (b - A x), through the scratch vector d; R with the natural edges of A.
    template <class T>
    void restrict_defect(const matrix<T>& A, const vector<T>& b, const vector<T>& x, vector<T>& d, const vector<T>& split_x,
                         const vector<T>& split_y, vector<T>& coarse) {
        defect(A, b, x, d);
        restrict_to(d, A.mx, A.my, split_x, split_y, coarse, A.natural);
    }

    /// fine += P coarse, on every fine node that is not on a Dirichlet edge.
    template <class T>
    void prolong_add(const vector<T>& coarse, const vector<T>& split_x, const vector<T>& split_y, vector<T>& fine,
                     int mx_fine, int my_fine, NaturalEdges natural = {}) {
        const Axis ax = x_axis(mx_fine, natural), ay = y_axis(my_fine, natural);
#pragma omp parallel for schedule(static) if(parallel_worth(fine.size()))
        for (int j = 0; j < my_fine; ++j) {
            int i0, i1;
            prolonged_range(j, mx_fine, my_fine, natural, i0, i1);
            for (int i = i0; i <= i1; ++i)
                fine[static_cast<std::size_t>(j) * mx_fine + i] +=
                    prolong_value(coarse.data(), ax, ay, split_x.data(), split_y.data(), i, j);
        }
    }

    /// x_next = x + alpha c and d = b - A x_next in one pass (the refinement loop's update and its
    /// next defect); returns ||d||.
    template <class X, class C>
    double update_defect_norm(const matrix<X>& A, const vector<X>& b, const vector<X>& x, double alpha, const vector<C>& c,
                              vector<X>& x_next, vector<X>& d) {
        const BandsView<X> Av = view(A);
        const Corrected<X, C> corrected{x.data(), c.data(), alpha};
        each_node(A, [&](int i, int j, long long p, auto interior) {
            x_next[p] = corrected[p];
            d[p] = b[p] - outer<X>(Av, corrected, i, j, p, interior);
        });
        return norm2(d);
    }

    /// The coarsest grid's exact solve: its sparse factor, applied as it is (two triangular
    /// solves, far cheaper here than a product with the dense inverse).
    struct DirectSolve {
        CoarseFactor factor;
        mutable std::vector<double> in, out;
        long long bytes() const { return factor.bytes(); }
    };
    DirectSolve make_direct_solve(const NineBands<double>& A) { return {CoarseFactor(A), std::vector<double>(A.rows()), std::vector<double>(A.rows())}; }
    void update_direct_solve(const NineBands<double>& A, DirectSolve& s) { s.factor.refactor(A); }
    /// x = A^-1 b, in double whatever T is.
    template <class T>
    void direct_solve(const DirectSolve& s, const vector<T>& b, vector<T>& x) {
        std::copy(b.begin(), b.end(), s.in.begin());
        s.factor.solve(s.in.data(), s.out.data());
        std::copy(s.out.begin(), s.out.end(), x.begin());
    }

    // --- vector operations ------------------------------------------------------------------
    template <class T>
    void fill(vector<T>& v, T value) {
        const std::ptrdiff_t n = static_cast<std::ptrdiff_t>(v.size());
#pragma omp parallel for schedule(static) if(parallel_worth(v.size()))
        for (std::ptrdiff_t p = 0; p < n; ++p) v[p] = value;
    }
    template <class T>
    void copy(const vector<T>& src, vector<T>& dst) {
        scaled_copy(1.0, src.data(), src.size(), dst.data());
    }
    /// y += alpha x, converting x to y's precision.
    template <class S, class T>
    void axpy(double alpha, const vector<S>& x, vector<T>& y) {
        const std::ptrdiff_t n = static_cast<std::ptrdiff_t>(y.size());
#pragma omp parallel for schedule(static) if(parallel_worth(y.size()))
        for (std::ptrdiff_t p = 0; p < n; ++p) y[p] = T(y[p] + alpha * x[p]);
    }
    /// y = x + beta y
    template <class T>
    void xpay(const vector<T>& x, double beta, vector<T>& y) {
        const std::ptrdiff_t n = static_cast<std::ptrdiff_t>(y.size());
#pragma omp parallel for schedule(static) if(parallel_worth(y.size()))
        for (std::ptrdiff_t p = 0; p < n; ++p) y[p] = T(x[p] + beta * y[p]);
    }
    /// dst = alpha src, converting to dst's precision (the scaling keeps float in range).
    template <class S, class T>
    void scale_convert(double alpha, const vector<S>& src, vector<T>& dst) {
        scaled_copy(alpha, src.data(), dst.size(), dst.data());
    }
    /// x·y accumulated in double, whatever T is (float sums of A5 defects would overflow).
    template <class T>
    double dot(const vector<T>& x, const vector<T>& y) {
        const std::ptrdiff_t n = static_cast<std::ptrdiff_t>(x.size());
        double sum = 0.0;
#pragma omp parallel for schedule(static) reduction(+ : sum) if(parallel_worth(x.size()))
        for (std::ptrdiff_t p = 0; p < n; ++p) sum += double(x[p]) * double(y[p]);
        return sum;
    }
    /// ||x||, without overflow or underflow for finite x: the plain sum of squares where it is
    /// exact enough, else two scaled passes (common/scaled_norm.hpp).
    template <class T>
    double norm2(const vector<T>& x) {
        return norm_from_sum_of_squares(dot(x, x), x.data(), x.size());
    }

    // --- scalars that stay in the backend's memory (what keeps PCG free of host round trips) --
    /// *out = x·y
    template <class T>
    void dot(const vector<T>& x, const vector<T>& y, double* out) {
        *out = dot(x, y);
    }
    /// y += sign (num / den) x; zero if den is zero (an exactly solved system).
    template <class T>
    void axpy_ratio(const double* num, const double* den, double sign, const vector<T>& x, vector<T>& y) {
        axpy(scalar_ratio(*num, 0.0, *den) * sign, x, y);
    }
    /// y = x + ((num - num_minus) / den) y; zero ratio if den is zero.
    template <class T>
    void xpay_ratio(const vector<T>& x, const double* num, const double* num_minus, const double* den, vector<T>& y) {
        xpay(x, scalar_ratio(*num, *num_minus, *den), y);
    }

    /// to[p] = alpha from[p] for p < n, converting to To's precision (alpha = 1: a copy, exact
    /// where To holds From).
    template <class From, class To>
    static void scaled_copy(double alpha, const From* from, std::size_t n, To* to) {
        const std::ptrdiff_t count = static_cast<std::ptrdiff_t>(n);
#pragma omp parallel for schedule(static) if(parallel_worth(n))
        for (std::ptrdiff_t p = 0; p < count; ++p) to[p] = To(alpha * from[p]);
    }

    /// Nothing to record: replay() runs the body.
    struct Recording {};
    template <class Body>
    void replay(Recording&, Body&& body) {
        body();
    }

private:
    /// node(i, j, p, interior) for every node (i, j) of A's grid, p = j mx + i, grid rows spread
    /// over the threads, each row's interior vectorised (cpu::row_nodes).
    template <class T, class Node>
    static void each_node(const matrix<T>& A, Node&& node) {
#pragma omp parallel for schedule(static) if(parallel_worth(A.rows()))
        for (int j = 0; j < A.my; ++j) {
            const long long row = static_cast<long long>(j) * A.mx;
            cpu::row_nodes(A.mx, A.my, j, 0, A.mx, [&](int i, auto interior) { node(i, j, row + i, interior); });
        }
    }
    /// (A x)_p by the formula for an interior node or for any node, as each_node says.
    template <class Acc, class T, class V, bool interior>
    static Acc product(const BandsView<T>& A, const V& x, int i, int j, long long p, std::bool_constant<interior>) {
        if constexpr (interior)
            return row_product_interior<Acc>(A, x, p);
        else
            return row_product<Acc>(A, x, i, j);
    }
    /// (A x)_p of the outer iteration's defects and products: outer_product (difference form) in
    /// double, else as product.
    template <class T, class V, bool interior>
    static T outer(const BandsView<T>& A, const V& x, int i, int j, long long p, std::bool_constant<interior> where) {
        if constexpr (std::is_same_v<T, double>)
            return outer_product<T>(A, x, i, j);
        else
            return product<T>(A, x, i, j, p, where);
    }

    vector<float> float_lines_;
    vector<double> double_lines_;
    template <class T>
    vector<T>& y_line_ratios() {
        if constexpr (std::is_same_v<T, float>)
            return float_lines_;
        else
            return double_lines_;
    }
};

}  // namespace adimg

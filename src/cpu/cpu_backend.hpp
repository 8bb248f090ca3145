#pragma once
// The CPU backend: the operations of the backend contract (src/solver/backend.hpp) on host
// memory, parallelised with OpenMP. It is the reference every CUDA kernel is tested against, so each
// operation is the plain loop around the shared formula in <adimg/stencil.hpp>.

#include <adimg/nine_bands.hpp>
#include <adimg/problems.hpp>

#include "../solver/backend.hpp"
#include "../solver/coarse_factor.hpp"
#include "../solver/galerkin.hpp"
#include "../solver/stencil.hpp"

#include "../solver/scalar_ratio.hpp"

#include "../common/scaled_norm.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

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
    vector<T> make_vector(std::size_t n) { return zeros<T>(n); }
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
    /// Bytes the backend holds besides the levels: none (the line sweeps allocate their small
    /// per-thread buffers for the duration of a sweep).
    std::size_t workspace_bytes() const { return 0; }

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
#pragma omp parallel for schedule(static) if(parallel_worth(A.rows()))
        for (int j = 0; j < A.my; ++j)
            for (int i = 0; i < A.mx; ++i) {
                const std::size_t p = static_cast<std::size_t>(j) * A.mx + i;
                d[p] = b[p] - row_product<T>(Av, x.data(), i, j);
            }
    }

    /// x_out = x_in + omega D^-1 (b - A x_in)
    template <class T>
    void jacobi(const matrix<T>& A, const vector<T>& b, const vector<T>& x_in, vector<T>& x_out, T omega) {
        const BandsView<T> Av = view(A);
#pragma omp parallel for schedule(static) if(parallel_worth(A.rows()))
        for (int j = 0; j < A.my; ++j)
            for (int i = 0; i < A.mx; ++i) {
                const std::size_t p = static_cast<std::size_t>(j) * A.mx + i;
                x_out[p] = jacobi_update(x_in[p], b[p], row_product<T>(Av, x_in.data(), i, j), Av(C, p), omega);
            }
    }

    /// y = A x
    template <class T>
    void multiply(const matrix<T>& A, const vector<T>& x, vector<T>& y) {
        const BandsView<T> Av = view(A);
#pragma omp parallel for schedule(static) if(parallel_worth(A.rows()))
        for (int j = 0; j < A.my; ++j)
            for (int i = 0; i < A.mx; ++i)
                y[static_cast<std::size_t>(j) * A.mx + i] = row_product<T>(Av, x.data(), i, j);
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
    /// algorithm, and write x_in + omega (solution - x_in) to x_out. Lines are solved a block at
    /// a time: x-lines one by one, y-lines 64 side by side so that the sweep along j streams whole
    /// rows.
    template <class T>
    void line_relax(const matrix<T>& A, const vector<T>& b, const vector<T>& x_in, vector<T>& x_out, Direction direction,
                    T omega) {
        const BandsView<T> Av = view(A);
        const int mx = A.mx, my = A.my;
        const bool along_x = direction == Direction::x;
        const int lines = along_x ? my : mx, length = along_x ? mx : my;
        const int block = along_x ? 1 : 64;  // lines solved together
        const std::size_t row_stride = along_x ? 1 : mx;
#pragma omp parallel if(parallel_worth(A.rows()))
        {
            std::vector<T> c_prime(static_cast<std::size_t>(length) * block), next(block);
#pragma omp for schedule(static)
            for (int first = 0; first < lines; first += block) {
                const int count = std::min(block, lines - first);
                // Node r of line `first + s`, as (i, j) and its index (no division by mx).
                auto node = [&](int r, int s, int& i, int& j) {
                    i = along_x ? r : first + s;
                    j = along_x ? first + s : r;
                    return static_cast<std::size_t>(j) * mx + i;
                };
                // Forward elimination, right-hand side formed on the fly; d' goes to x_out.
                for (int r = 0; r < length; ++r) {
                    T* const cp = c_prime.data() + static_cast<std::size_t>(r) * block;
                    const T* const cp_prev = cp - block;
                    for (int s = 0; s < count; ++s) {
                        int i, j;
                        const std::size_t p = node(r, s, i, j);
                        const LineRow<T> row = line_row(Av, p, direction);
                        const T rhs = b[p] - off_line_product(Av, x_in.data(), i, j, direction);
                        if (r == 0) {
                            cp[s] = row.upper / row.diag;
                            x_out[p] = rhs / row.diag;
                        } else {
                            const T pivot = row.diag - row.lower * cp_prev[s];
                            cp[s] = row.upper / pivot;
                            x_out[p] = (rhs - row.lower * x_out[p - row_stride]) / pivot;
                        }
                    }
                }
                // Back substitution; `next` holds the undamped solution of the node after.
                for (int r = length - 1; r >= 0; --r) {
                    const T* const cp = c_prime.data() + static_cast<std::size_t>(r) * block;
                    for (int s = 0; s < count; ++s) {
                        int i, j;
                        const std::size_t p = node(r, s, i, j);
                        const T solution = r == length - 1 ? x_out[p] : x_out[p] - cp[s] * next[s];
                        next[s] = solution;
                        x_out[p] = relax(x_in[p], solution, omega);
                    }
                }
            }
        }
    }

    // --- grid transfer ----------------------------------------------------------------------
    /// The transfers take the natural edges of the level (multigrid.hpp); without them a level is
    /// all Dirichlet.
    static constexpr bool natural_edges = true;

    /// coarse = R fine (R = P^T); coarse nodes on a Dirichlet edge get 0 (stencil.hpp).
    template <class T>
    void restrict_to(const vector<T>& fine, int mx_fine, int my_fine, const vector<T>& split_x,
                     const vector<T>& split_y, vector<T>& coarse, NaturalEdges natural = {}) {
        const int mxc = mx_fine / 2 + 1, myc = my_fine / 2 + 1;
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
        const int mxc = mx_fine / 2 + 1;
#pragma omp parallel for schedule(static) if(parallel_worth(fine.size()))
        for (int j = 0; j < my_fine; ++j) {
            int i0, i1;
            prolonged_range(j, mx_fine, my_fine, natural, i0, i1);
            for (int i = i0; i <= i1; ++i)
                fine[static_cast<std::size_t>(j) * mx_fine + i] +=
                    prolong_value(coarse.data(), mxc, split_x.data(), split_y.data(), i, j);
        }
    }

    /// x_next = x + alpha c and d = b - A x_next in one pass (the refinement loop's update and its
    /// next defect); returns ||d||.
    template <class X, class C>
    double update_defect_norm(const matrix<X>& A, const vector<X>& b, const vector<X>& x, double alpha, const vector<C>& c,
                              vector<X>& x_next, vector<X>& d) {
        const BandsView<X> Av = view(A);
        const Corrected<X, C> corrected{x.data(), c.data(), alpha};
#pragma omp parallel for schedule(static) if(parallel_worth(A.rows()))
        for (int j = 0; j < A.my; ++j)
            for (int i = 0; i < A.mx; ++i) {
                const std::size_t p = static_cast<std::size_t>(j) * A.mx + i;
                x_next[p] = corrected[p];
                d[p] = b[p] - row_product<X>(Av, corrected, i, j);
            }
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
    void update_direct_solve(const NineBands<double>& A, DirectSolve& s) { s.factor = CoarseFactor(A); }
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
};

}  // namespace adimg

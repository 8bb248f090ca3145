#pragma once
// The distributed backend: the operations of the backend contract (src/solver/backend.hpp) on
// a rank's strips of every level (strip_storage.hpp), so that Engine<DistributedBackend> runs
// the V-cycle, the refinement loop and its stop criterion of src/solver unchanged. Each stencil
// operation refreshes the halo rows it reads from the neighbouring ranks and then runs the CPU
// backend's operation on the strip (whose halo rows are identity rows of the matrix); dot
// products and norms add the ranks' sums in double; the y-lines of ADI, which cross the ranks,
// are solved by the partition method (distributed_lines.hpp); the coarsest grid is solved on
// every rank from its whole right-hand side, gathered.

#include <adimg/distributed.hpp>
#include <adimg/nine_bands.hpp>
#include <adimg/problems.hpp>

#include "../common/scaled_norm.hpp"
#include "../problems/q1_element.hpp"
#include "../cpu/cpu_backend.hpp"
#include "../solver/backend.hpp"
#include "../solver/coarse_factor.hpp"
#include "../solver/galerkin.hpp"
#include "../solver/stencil.hpp"
#include "communicator.hpp"
#include "distributed_lines.hpp"
#include "strip_layout.hpp"
#include "strip_storage.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace adimg {

/// What the backend and the DistributedSolver share: the ranks, the strips of the levels of the
/// current setup, the y-line method asked for and what each level chose.
struct DistributedContext {
    explicit DistributedContext(MPI_Comm comm, DistributedLines lines_) : comm(comm), lines(lines_) {}
    Communicator comm;
    StripLayout layout;
    int coarsest_level = 0;  ///< the refinement level of the layout's level 0
    DistributedLines lines;
    std::vector<LineSolveInfo> line_solves;  ///< per level and precision, as the matrices were made
};

class DistributedBackend {
public:
    template <class T>
    using vector = StripVector<T>;
    template <class T>
    using matrix = StripMatrix<T>;

    explicit DistributedBackend(std::shared_ptr<DistributedContext> context) : context_(std::move(context)) {}

    std::string name() const {
        return "MPI, " + std::to_string(comm().size()) + " ranks of " + cpu_.name();
    }

    // --- memory ---------------------------------------------------------------------------
    /// A strip of the level whose vectors have n entries (all its nodes, or this rank's rows: a
    /// vector made like another from its size()), or an array of n values every rank holds whole.
    template <class T>
    vector<T> make_vector(std::size_t n) {
        vector<T> v;
        const int l = layout().level_of(n, comm().rank());
        if (l < 0) {
            v.storage.assign(n, T(0));
            return v;
        }
        const StripLevel& s = layout().level(l);
        v.level = l;
        v.mx = s.mx;
        v.first_row = s.first[comm().rank()];
        v.rows = s.rows(comm().rank());
        v.storage.assign(static_cast<std::size_t>(v.rows + 2) * v.mx, T(0));
        return v;
    }

    /// This rank's strip of a whole matrix that every rank holds, or a strip in another precision.
    template <class T>
    matrix<T> make_matrix(const NineBands<double>& A) {
        return strip_copy<T>(A);
    }
    template <class T>
    matrix<T> make_matrix(const matrix<double>& A) {
        return strip_copy<T>(A);
    }
    /// The strip of a built-in problem's stiffness matrix, its rows assembled on this rank only.
    template <class T>
    matrix<T> make_matrix(const TensorMesh& mesh) {
        matrix<T> M = empty_matrix<T>(mesh.mx(), mesh.my());
        update_values(mesh, M);
        return M;
    }
    /// An mx x my matrix of zeros (identity rows on the halos), for a Galerkin level.
    template <class T>
    matrix<T> make_matrix(int mx, int my) {
        return empty_matrix<T>(mx, my);
    }
    template <class T>
    void update_values(const NineBands<double>& A, matrix<T>& M) {
        check_grid(A.mx, A.my, M);
        for (int k = 0; k < 9; ++k)
            for (std::size_t q = 0; q < M.owned_values(); ++q)
                M.local(k, q + M.mx) = T(A(k, static_cast<std::size_t>(M.first_row) * M.mx + q));
        classify_lines(M);
    }
    /// The owned rows by the Q1 row formula (q1_element.hpp), the bits of assemble_stiffness().
    template <class T>
    void update_values(const TensorMesh& mesh, matrix<T>& M) {
        check_grid(mesh.mx(), mesh.my(), M);
        const std::size_t n = M.local.rows();
#pragma omp parallel for schedule(static) if(CpuBackend::parallel_worth(M.owned_values()))
        for (int r = 1; r <= M.rows; ++r)
            for (int i = 0; i < M.mx; ++i) {
                double band[9];
                q1_stiffness_row(mesh.x.widths.data(), mesh.y.widths.data(), M.mx, M.my, i, M.first_row + r - 1, band);
                for (int k = 0; k < 9; ++k) M.local.values[k * n + static_cast<std::size_t>(r) * M.mx + i] = T(band[k]);
            }
        classify_lines(M);
    }
    template <class T>
    void update_values(const matrix<double>& A, matrix<T>& M) {
        check_grid(A.mx, A.my, M);
        std::copy(A.local.values.begin(), A.local.values.end(), M.local.values.begin());
        classify_lines(M);
    }

    /// n values of this rank's rows (or the whole array) from host memory into v.
    template <class T>
    void upload(const double* host, std::size_t n, vector<T>& v) {
        if (!v.strip()) {
            v.storage.assign(host, host + n);
            return;
        }
        if (n != v.size())
            throw std::logic_error("DistributedBackend::upload: " + std::to_string(n) + " values for a strip of " +
                                   std::to_string(v.size()));
        std::copy(host, host + n, v.data());
    }
    template <class T>
    void upload(const std::vector<double>& host, vector<T>& v) {
        upload(host.data(), host.size(), v);
    }
    /// This rank's values of v into host memory that holds v.size() values.
    template <class T>
    void download(const vector<T>& v, double* host) {
        std::copy(v.data(), v.data() + v.size(), host);
    }
    template <class T>
    void download(const vector<T>& v, std::vector<double>& host) {
        host.resize(v.size());
        download(v, host.data());
    }
    /// The whole matrix, gathered from every rank's strip.
    void download(const matrix<double>& A, NineBands<double>& host) {
        host = NineBands<double>(A.mx, A.my);
        for (int k = 0; k < 9; ++k)
            gather_rows(A.level, A.local.values.data() + k * A.local.rows() + A.mx, host.values.data() + k * host.rows());
    }
    template <class T>
    static std::size_t bytes(const matrix<T>& A) {
        return A.local.values.size() * sizeof(T);
    }
    std::size_t workspace_bytes() const { return float_lines_.bytes() + double_lines_.bytes(); }

    // --- a user's matrix and the built-in problems (engine.hpp) ----------------------------
    /// coarse = R fine P: formed on every rank from the gathered fine matrix (setup only).
    void galerkin_coarse(const matrix<double>& fine, const vector<double>& split_x, const vector<double>& split_y,
                         matrix<double>& coarse) {
        NineBands<double> whole;
        download(fine, whole);
        update_values(adimg::galerkin_coarse(whole, split_x.storage, split_y.storage), coarse);
    }
    /// b = this rank's rows of the problem's load vector.
    template <class T>
    void assemble_load(const TensorMesh& mesh, const PolynomialProblem& problem, vector<T>& b) {
        const std::vector<double> load = adimg::assemble_load(mesh, problem);
        upload(load.data() + static_cast<std::size_t>(b.first_row) * b.mx, b.size(), b);
    }
    /// The relative L2 error of the nodal values, gathered from every rank.
    template <class T>
    double relative_l2_error(const TensorMesh& mesh, const PolynomialProblem& problem, const vector<T>& x) {
        std::vector<double> whole(layout().level(x.level).nodes());
        gather_rows(x.level, x.data(), whole.data());
        return adimg::relative_l2_error(mesh, problem, whole);
    }

    // --- stencil operations -----------------------------------------------------------------
    template <class T>
    void defect(const matrix<T>& A, const vector<T>& b, const vector<T>& x, vector<T>& d) {
        refresh_halos(x);
        cpu_.defect(A.local, b.storage, x.storage, d.storage);
    }
    template <class T>
    void multiply(const matrix<T>& A, const vector<T>& x, vector<T>& y) {
        refresh_halos(x);
        cpu_.multiply(A.local, x.storage, y.storage);
    }
    template <class T>
    void jacobi(const matrix<T>& A, const vector<T>& b, const vector<T>& x_in, vector<T>& x_out, T omega) {
        refresh_halos(x_in);
        cpu_.jacobi(A.local, b.storage, x_in.storage, x_out.storage, omega);
    }
    template <class T>
    void jacobi_steps(const matrix<T>& A, const vector<T>& b, vector<T>& x, vector<T>& work, T omega, int steps) {
        in_place_passes(x, work, steps, [&](int, const vector<T>& from, vector<T>& to) { jacobi(A, b, from, to, omega); },
                        [&](const vector<T>& from, vector<T>& to) { copy(from, to); });
    }
    /// One four-colour sweep, colours by the parity of the whole grid's (i, j); the halos are
    /// refreshed before each colour, which reads the colours updated before it.
    template <class T>
    void gauss_seidel(const matrix<T>& A, const vector<T>& b, vector<T>& x, SweepOrder order = SweepOrder::forward) {
        const BandsView<T> Av = view(A.local);
        for (int step = 0; step < 4; ++step) {
            const int colour = colour_at(step, order), ci = colour & 1, cj = colour >> 1;
            refresh_halos(x);
            const int first = 1 + ((A.first_row + cj) & 1);  // storage row of the colour's first grid row
#pragma omp parallel for schedule(static) if(CpuBackend::parallel_worth(A.owned_values()))
            for (int r = first; r <= A.rows; r += 2)
                for (int i = ci; i < A.mx; i += 2) {
                    const std::size_t p = static_cast<std::size_t>(r) * A.mx + i;
                    x.storage[p] = jacobi_update(x.storage[p], b.storage[p], row_product<T>(Av, x.storage.data(), i, r),
                                                 Av(C, p), T(1));
                }
        }
    }
    /// One damped ADI half-step: x-lines on each rank's own rows by the CPU backend's line
    /// solver, y-lines across the ranks by the partition method.
    template <class T>
    void line_relax(const matrix<T>& A, const vector<T>& b, const vector<T>& x_in, vector<T>& x_out, Direction direction,
                    T omega) {
        refresh_halos(x_in);
        if (direction == Direction::x)
            cpu_.line_relax(A.local, b.storage, x_in.storage, x_out.storage, direction, omega);
        else
            distributed_y_lines(comm(), A, b, x_in, x_out, omega, A.pdd, line_work<T>());
    }

    // --- grid transfer ----------------------------------------------------------------------
    /// coarse = R fine: the fine row below the strip from the rank below, and the restriction
    /// of the coarse rows this rank owns (coarse row J gathers fine rows 2J - 1 .. 2J + 1, and
    /// this rank owns the fine rows from 2 first_row of its coarse strip on).
    template <class T>
    void restrict_to(const vector<T>& fine, int mx_fine, int my_fine, const vector<T>& split_x,
                     const vector<T>& split_y, vector<T>& coarse) {
        refresh_halos(fine);
        const int mxc = mx_fine / 2 + 1, myc = my_fine / 2 + 1, first = fine.first_row;
        auto at = [&](int i, int j) { return fine.storage[static_cast<std::size_t>(j - first + 1) * mx_fine + i]; };
#pragma omp parallel for schedule(static) if(CpuBackend::parallel_worth(fine.size()))
        for (int r = 1; r <= coarse.rows; ++r)
            for (int I = 0; I < mxc; ++I)
                coarse.storage[static_cast<std::size_t>(r) * mxc + I] = restrict_from<T>(
                    at, mxc, myc, split_x.storage.data(), split_y.storage.data(), I, coarse.first_row + r - 1);
    }
    /// coarse = R (b - A x), through the defect d.
    template <class T>
    void restrict_defect(const matrix<T>& A, const vector<T>& b, const vector<T>& x, vector<T>& d,
                         const vector<T>& split_x, const vector<T>& split_y, vector<T>& coarse) {
        defect(A, b, x, d);
        restrict_to(d, A.mx, A.my, split_x, split_y, coarse);
    }
    /// fine += P coarse on the interior rows of this rank's fine strip, which read the coarse
    /// row above the coarse strip.
    template <class T>
    void prolong_add(const vector<T>& coarse, const vector<T>& split_x, const vector<T>& split_y, vector<T>& fine,
                     int mx_fine, int my_fine) {
        refresh_halos(coarse);
        const int mxc = mx_fine / 2 + 1, shift = 2 * coarse.first_row;  // fine row j is row j - shift of the strip pair
        const T* coarse_rows = coarse.storage.data() + mxc;            // from coarse row first_row on
        const T* ty = split_y.storage.data() + coarse.first_row;
#pragma omp parallel for schedule(static) if(CpuBackend::parallel_worth(fine.size()))
        for (int r = 1; r <= fine.rows; ++r) {
            const int j = fine.first_row + r - 1;
            if (j == 0 || j == my_fine - 1) continue;
            for (int i = 1; i < mx_fine - 1; ++i)
                fine.storage[static_cast<std::size_t>(r) * mx_fine + i] +=
                    prolong_value(coarse_rows, mxc, split_x.storage.data(), ty, i, j - shift);
        }
    }

    /// x_next = x + alpha c, d = b - A x_next (the CPU backend's one pass on the strip); ||d||.
    template <class X, class C_>
    double update_defect_norm(const matrix<X>& A, const vector<X>& b, const vector<X>& x, double alpha,
                              const vector<C_>& c, vector<X>& x_next, vector<X>& d) {
        refresh_halos(x);
        refresh_halos(c);
        cpu_.update_defect_norm(A.local, b.storage, x.storage, alpha, c.storage, x_next.storage, d.storage);
        return norm2(d);
    }

    /// The coarsest grid's exact solve, the same on every rank: its sparse factor, applied to the
    /// whole right-hand side gathered from the ranks (the coarsest grid is small: 33 x 33 by
    /// default), each rank keeping its rows.
    struct DirectSolve {
        CoarseFactor factor;
        int level = 0;
        mutable std::vector<double> in, out;
        long long bytes() const { return factor.bytes(); }
    };
    DirectSolve make_direct_solve(const NineBands<double>& A) {
        const int level = layout().level_of(A.rows(), comm().rank());
        if (level < 0) throw std::logic_error("DistributedBackend: the coarsest matrix is no level of the layout");
        return {CoarseFactor(A), level, std::vector<double>(A.rows()), std::vector<double>(A.rows())};
    }
    void update_direct_solve(const NineBands<double>& A, DirectSolve& s) { s.factor = CoarseFactor(A); }
    template <class T>
    void direct_solve(const DirectSolve& s, const vector<T>& b, vector<T>& x) {
        gather_rows(s.level, b.data(), s.in.data());
        s.factor.solve(s.in.data(), s.out.data());
        upload(s.out.data() + static_cast<std::size_t>(x.first_row) * x.mx, x.size(), x);
    }

    // --- vector operations ------------------------------------------------------------------
    template <class T>
    void fill(vector<T>& v, T value) {
        std::fill(v.storage.begin(), v.storage.end(), value);
    }
    template <class T>
    void copy(const vector<T>& src, vector<T>& dst) {
        cpu_.copy(src.storage, dst.storage);
    }
    template <class S, class T>
    void scale_convert(double alpha, const vector<S>& src, vector<T>& dst) {
        cpu_.scale_convert(alpha, src.storage, dst.storage);
    }
    /// x·y over the entries of every rank, accumulated in double.
    template <class T>
    double dot(const vector<T>& x, const vector<T>& y) {
        return comm().sum(local_dot(x, y));
    }
    /// ||x|| over every rank without overflow or underflow for finite x: the plain sum of
    /// squares where it is exact enough, else the largest magnitude and the scaled sum.
    template <class T>
    double norm2(const vector<T>& x) {
        const double sum = dot(x, x);
        if (plain_sum_usable(sum) || std::isnan(sum)) return std::sqrt(sum);
        const T* v = x.data();
        double largest = 0.0;
        for (std::size_t p = 0; p < x.size(); ++p) largest = std::max(largest, std::abs(double(v[p])));
        largest = comm().max(largest);
        if (largest == 0.0 || !std::isfinite(largest)) return largest;
        double scaled = 0.0;
        for (std::size_t p = 0; p < x.size(); ++p) scaled += (double(v[p]) / largest) * (double(v[p]) / largest);
        return largest * std::sqrt(comm().sum(scaled));
    }
    template <class T>
    void dot(const vector<T>& x, const vector<T>& y, double* out) {
        *out = dot(x, y);
    }
    template <class T>
    void axpy_ratio(const double* num, const double* den, double sign, const vector<T>& x, vector<T>& y) {
        cpu_.axpy_ratio(num, den, sign, x.storage, y.storage);
    }
    template <class T>
    void xpay_ratio(const vector<T>& x, const double* num, const double* num_minus, const double* den, vector<T>& y) {
        cpu_.xpay_ratio(x.storage, num, num_minus, den, y.storage);
    }

    /// Nothing to record: replay() runs the body.
    struct Recording {};
    template <class Body>
    void replay(Recording&, Body&& body) {
        body();
    }

    /// Refreshes a strip's halo rows from the neighbouring ranks (a whole array has none).
    template <class T>
    void refresh_halos(const vector<T>& v) {
        if (v.strip()) comm().exchange_rows(v.storage.data(), v.mx, v.rows);
    }

    /// counts[r] owned values of rank r on a level, and this rank's owned values of a strip of
    /// that level gathered into `whole` (all ranks, in double).
    template <class T>
    void gather_rows(int level, const T* owned, double* whole) {
        const StripLevel& s = layout().level(level);
        std::vector<int> counts(comm().size());
        for (int r = 0; r < comm().size(); ++r) counts[r] = s.rows(r) * s.mx;
        const std::vector<double> mine(owned, owned + counts[comm().rank()]);
        comm().allgatherv(mine.data(), counts, whole);
    }

private:
    Communicator& comm() const { return context_->comm; }
    const StripLayout& layout() const { return context_->layout; }

    template <class T>
    matrix<T> empty_matrix(int mx, int my) {
        const int l = layout().level_of(static_cast<std::size_t>(mx) * my, comm().rank());
        if (l < 0)
            throw std::logic_error("DistributedBackend: a " + std::to_string(mx) + " x " + std::to_string(my) +
                                   " matrix is no level of the layout");
        const StripLevel& s = layout().level(l);
        matrix<T> M;
        M.mx = mx;
        M.my = my;
        M.level = l;
        M.first_row = s.first[comm().rank()];
        M.rows = s.rows(comm().rank());
        M.local = NineBands<T>(mx, M.rows + 2);
        for (int i = 0; i < mx; ++i) {  // the halo rows: identity rows
            M.local(C, static_cast<std::size_t>(i)) = T(1);
            M.local(C, static_cast<std::size_t>(M.rows + 1) * mx + i) = T(1);
        }
        return M;
    }
    template <class T, class Source>
    matrix<T> strip_copy(const Source& A) {
        matrix<T> M = empty_matrix<T>(A.mx, A.my);
        update_values(A, M);
        return M;
    }
    template <class T>
    static void check_grid(int mx, int my, const matrix<T>& M) {
        if (mx != M.mx || my != M.my)
            throw std::logic_error("DistributedBackend::update_values: a " + std::to_string(mx) + " x " +
                                   std::to_string(my) + " matrix for a " + std::to_string(M.mx) + " x " +
                                   std::to_string(M.my) + " one");
    }

    /// Whether M's y-lines take PDD: asked for, and the couplings it drops (pdd_bound) below
    /// the rounding of T. Recorded for line_solves().
    template <class T>
    void classify_lines(matrix<T>& M) {
        const StripLevel& s = layout().level(M.level);
        int fewest = s.my;
        for (int r = 0; r < comm().size(); ++r) fewest = std::min(fewest, s.rows(r));
        LineSolveInfo info;
        info.level = context_->coarsest_level + M.level;
        info.mx = M.mx;
        info.my = M.my;
        info.dominance = y_line_dominance(comm(), M);
        info.rows_per_rank = fewest;
        info.pdd_bound = pdd_bound(info.dominance, fewest);
        info.pdd = context_->lines == DistributedLines::pdd &&
                   info.pdd_bound <= std::numeric_limits<T>::epsilon() / 2;
        info.single = std::is_same_v<T, float>;
        M.pdd = info.pdd;
        auto& all = context_->line_solves;
        all.erase(std::remove_if(all.begin(), all.end(),
                                 [&](const LineSolveInfo& o) { return o.level == info.level && o.single == info.single; }),
                  all.end());
        all.push_back(info);
    }

    template <class T>
    YLineWork<T>& line_work() {
        if constexpr (std::is_same_v<T, float>)
            return float_lines_;
        else
            return double_lines_;
    }

    std::shared_ptr<DistributedContext> context_;
    CpuBackend cpu_;
    YLineWork<float> float_lines_;
    YLineWork<double> double_lines_;

    /// x·y over this rank's entries, in double.
    template <class T>
    double local_dot(const vector<T>& x, const vector<T>& y) {
        const T* a = x.data();
        const T* b = y.data();
        const std::ptrdiff_t n = static_cast<std::ptrdiff_t>(x.size());
        double sum = 0.0;
#pragma omp parallel for schedule(static) reduction(+ : sum) if(CpuBackend::parallel_worth(x.size()))
        for (std::ptrdiff_t p = 0; p < n; ++p) sum += double(a[p]) * double(b[p]);
        return sum;
    }
};

}  // namespace adimg

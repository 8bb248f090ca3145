#pragma once
// The rank-local operations of the distributed backend on the host: the CPU backend for what it
// computes on a whole strip, and the loops over a strip's owned rows that the distributed backend
// needs besides (a colour of Gauss–Seidel, the grid transfers with the strip's row offset, the
// rank's part of the y-lines, sums over the owned entries). GPU ranks do the same on the device
// (cuda_rank.cuh); both loop around the formulas of strip_formulas.hpp.

#include <adimg/nine_bands.hpp>

#include "../cpu/cpu_backend.hpp"
#include "../problems/node_distances.hpp"
#include "../problems/q1_element.hpp"
#include "communicator.hpp"
#include "distributed_lines.hpp"
#include "strip_formulas.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <initializer_list>
#include <limits>
#include <string>
#include <utility>
#include <tuple>
#include <type_traits>
#include <vector>

namespace adimg {

class CpuRank {
public:
    using Local = CpuBackend;
    template <class T>
    using vector = Local::vector<T>;
    template <class T>
    using matrix = Local::matrix<T>;
    /// Nothing to record: a cycle waits for the neighbours' messages.
    struct Recording {};

    explicit CpuRank(Communicator&) {}

    Local& local() { return cpu_; }
    std::string name() const { return cpu_.name(); }
    std::string transport() const { return "MPI, host memory"; }

    // --- between host arrays of doubles and part of a vector --------------------------------
    template <class T>
    void from_host(const double* host, std::size_t n, vector<T>& v, std::size_t offset) {
        std::copy(host, host + n, v.begin() + offset);
    }
    template <class T>
    void to_host(const vector<T>& v, std::size_t offset, std::size_t n, double* host) {
        std::copy(v.begin() + offset, v.begin() + offset + n, host);
    }
    /// n values of src from src_offset on into dst from dst_offset on.
    template <class T>
    void copy_part(const vector<T>& src, std::size_t src_offset, vector<T>& dst, std::size_t dst_offset, std::size_t n) {
        std::copy(src.begin() + src_offset, src.begin() + src_offset + n, dst.begin() + dst_offset);
    }
    // --- setup of a strip (storage row r + 1 is grid row first_row + r) ------------------------
    /// An mx x (rows + 2) matrix of zeros with identity rows on its halos (rows 0 and rows + 1).
    template <class T>
    matrix<T> strip_matrix(int mx, int rows) {
        matrix<T> M(mx, rows + 2);
        for (int i = 0; i < mx; ++i) {
            M(C, static_cast<std::size_t>(i)) = T(1);
            M(C, static_cast<std::size_t>(rows + 1) * mx + i) = T(1);
        }
        return M;
    }
    /// The strip's rows of the mesh's stiffness matrix by the Q1 row formula (q1_element.hpp).
    template <class T>
    void assemble_rows(const TensorMesh& mesh, int first_row, int rows, matrix<T>& M) {
        const std::size_t n = M.rows();
#pragma omp parallel for schedule(static) if(CpuBackend::parallel_worth(static_cast<std::size_t>(rows) * M.mx))
        for (int r = 1; r <= rows; ++r)
            for (int i = 0; i < M.mx; ++i) {
                double band[9];
                q1_stiffness_row(mesh.x.widths.data(), mesh.y.widths.data(), mesh.mx(), mesh.my(), i, first_row + r - 1, band);
                for (int k = 0; k < 9; ++k) M.values[k * n + static_cast<std::size_t>(r) * M.mx + i] = T(band[k]);
            }
    }
    /// The strip's rows of the problem's load vector.
    template <class T>
    void assemble_load_rows(const TensorMesh& mesh, const PolynomialProblem& problem, int first_row, int rows,
                            vector<T>& b) {
        const NodeDistances dx(mesh.x), dy(mesh.y);
        const int mx = mesh.mx();
        auto f = [&](double x, double xr, double y, double yr) { return problem.f(x, xr, y, yr); };
#pragma omp parallel for schedule(static) if(CpuBackend::parallel_worth(static_cast<std::size_t>(rows) * mx))
        for (int r = 0; r < rows; ++r)
            for (int i = 0; i < mx; ++i)
                b[static_cast<std::size_t>(r + 1) * mx + i] = T(q1_load(mesh.x.widths.data(), mesh.y.widths.data(),
                                                                        dx.view(), dy.view(), mx, mesh.my(), i, first_row + r, f));
    }
    /// The squared L2 error and squared norm of the elements of rows first_row .. first_row +
    /// rows - 1 (q1_error_parts), u a strip whose halo above is current.
    template <class T>
    std::pair<double, double> l2_error_parts(const TensorMesh& mesh, const PolynomialProblem& problem, int first_row,
                                             int rows, const vector<T>& u) {
        const NodeDistances dx(mesh.x), dy(mesh.y);
        double error = 0.0, norm = 0.0;
#pragma omp parallel for schedule(static) reduction(+ : error, norm) if(CpuBackend::parallel_worth(static_cast<std::size_t>(rows) * mesh.mx()))
        for (int ej = first_row; ej < first_row + rows; ++ej)
            for (int ei = 0; ei < mesh.x.elements(); ++ei) {
                const L2Parts parts = q1_error_parts(mesh.x.widths.data(), mesh.y.widths.data(), dx.view(), dy.view(),
                                                     mesh.mx(), ei, ej, u.data() + mesh.mx(), problem, first_row);
                error += parts.error;
                norm += parts.norm;
            }
        return {error, norm};
    }
    /// min over the strip's owned rows of y_line_row_dominance<T> (coupling_formulas.hpp).
    template <class T, class S>
    double y_line_dominance(const matrix<S>& A) {
        const BandsView<S> Av = view(A);
        double dominance = std::numeric_limits<double>::infinity();
        for (std::size_t p = static_cast<std::size_t>(A.mx); p < static_cast<std::size_t>(A.my - 1) * A.mx; ++p)
            dominance = std::min(dominance, y_line_row_dominance<T>(Av, p));
        return dominance;
    }

    /// A matrix's values on the host (setup only): the matrix itself.
    template <class T>
    const NineBands<T>& host_bands(const matrix<T>& M) {
        return M;
    }
    /// *where = value, where in the backend's memory (a PCG scalar).
    void set_scalar(double* where, double value) { *where = value; }

    template <class Body>
    void replay(Recording&, Body&& body) {
        body();
    }

    /// The halo rows of a strip of `rows` rows of mx values from the neighbouring ranks.
    template <class T>
    void exchange_rows(Communicator& comm, vector<T>& storage, int mx, int rows) {
        comm.exchange_rows(storage.data(), mx, rows);
    }

    // --- sums over the n owned entries from `offset` on, in double ---------------------------
    /// x·y over the owned entries of every rank.
    template <class T>
    double sum_dot(Communicator& comm, const vector<T>& x, const vector<T>& y, std::size_t offset, std::size_t n) {
        return comm.sum(local_dot(x, y, offset, n));
    }
    template <class T>
    void sum_dot(Communicator& comm, const vector<T>& x, const vector<T>& y, std::size_t offset, std::size_t n,
                 double* out) {
        *out = sum_dot(comm, x, y, offset, n);
    }
    /// x·y over this rank's entries alone (a level every rank holds whole).
    template <class T>
    void owned_dot(const vector<T>& x, const vector<T>& y, std::size_t offset, std::size_t n, double* out) {
        *out = local_dot(x, y, offset, n);
    }
    template <class T>
    double local_dot(const vector<T>& x, const vector<T>& y, std::size_t offset, std::size_t n) {
        const T* a = x.data() + offset;
        const T* b = y.data() + offset;
        double sum = 0.0;
#pragma omp parallel for schedule(static) reduction(+ : sum) if(CpuBackend::parallel_worth(n))
        for (std::ptrdiff_t p = 0; p < static_cast<std::ptrdiff_t>(n); ++p) sum += double(a[p]) * double(b[p]);
        return sum;
    }
    template <class T>
    double owned_max_abs(const vector<T>& x, std::size_t offset, std::size_t n) {
        double largest = 0.0;
        for (std::size_t p = offset; p < offset + n; ++p) largest = std::max(largest, std::abs(double(x[p])));
        return largest;
    }
    template <class T>
    double owned_scaled_squares(const vector<T>& x, std::size_t offset, std::size_t n, double scale) {
        double sum = 0.0;
        for (std::size_t p = offset; p < offset + n; ++p) sum += (double(x[p]) / scale) * (double(x[p]) / scale);
        return sum;
    }

    // --- stencil work on a strip (storage row r + 1 is grid row first_row + r) ---------------
    /// The nodes (i, j) with i % 2 == ci on the strip's owned rows of parity cj of the grid, one
    /// Gauss–Seidel colour; the halos must be current.
    template <class T>
    void gauss_seidel_colour(const matrix<T>& A, const vector<T>& b, vector<T>& x, int first_row, int ci, int cj) {
        const BandsView<T> Av = view(A);
        const int rows = A.my - 2, first = 1 + ((first_row + cj) & 1);
#pragma omp parallel for schedule(static) if(CpuBackend::parallel_worth(static_cast<std::size_t>(rows) * A.mx))
        for (int r = first; r <= rows; r += 2)
            for (int i = ci; i < A.mx; i += 2) {
                const std::size_t p = static_cast<std::size_t>(r) * A.mx + i;
                x[p] = jacobi_update(x[p], b[p], row_product<T>(Av, x.data(), i, r), Av(C, p), T(1));
            }
    }
    /// The coarse rows coarse_first .. coarse_first + coarse_rows - 1 of R fine, from
    /// coarse_offset on in coarse's storage (its storage row 1 onwards), the fine strip from grid
    /// row fine_first with its halos current.
    template <class T>
    void restrict_rows(const vector<T>& fine, int mx_fine, int my_fine, int fine_first, const vector<T>& tx,
                       const vector<T>& ty, vector<T>& coarse, std::size_t coarse_offset, int coarse_first,
                       int coarse_rows) {
        const int mxc = mx_fine / 2 + 1, myc = my_fine / 2 + 1;
#pragma omp parallel for schedule(static) if(CpuBackend::parallel_worth(fine.size()))
        for (int r = 0; r < coarse_rows; ++r)
            for (int I = 0; I < mxc; ++I)
                coarse[coarse_offset + static_cast<std::size_t>(r + 1) * mxc + I] = strip_restrict_value(
                    fine.data(), mx_fine, fine_first, mxc, myc, tx.data(), ty.data(), I, coarse_first + r);
    }
    /// fine += P coarse on the interior nodes of the fine strip's owned rows (fine_rows from grid
    /// row fine_first), the coarse strip from grid row coarse_first with its halo above current.
    template <class T>
    void prolong_rows(const vector<T>& coarse, int coarse_first, const vector<T>& tx, const vector<T>& ty,
                      vector<T>& fine, int mx_fine, int my_fine, int fine_first, int fine_rows) {
        const int mxc = mx_fine / 2 + 1;
#pragma omp parallel for schedule(static) if(CpuBackend::parallel_worth(fine.size()))
        for (int r = 0; r < fine_rows; ++r) {
            const int j = fine_first + r;
            if (j == 0 || j == my_fine - 1) continue;
            for (int i = 1; i < mx_fine - 1; ++i)
                fine[static_cast<std::size_t>(r + 1) * mx_fine + i] +=
                    strip_prolong_value(coarse.data(), mxc, coarse_first, tx.data(), ty.data(), i, j);
        }
    }

    // --- the y-lines across the ranks (distributed_lines.hpp, strip_formulas.hpp) -------------
    /// One damped half-step of the y-lines: this rank's parts reduced to their coupling
    /// equations, those solved across the ranks (PPT or PDD), the parts filled in. x_in's halos
    /// must be current.
    template <class T>
    void y_lines(Communicator& comm, const matrix<T>& A, const vector<T>& b, const vector<T>& x_in, vector<T>& x_out,
                 T omega, bool pdd) {
        CouplingWork<T>& w = std::get<CouplingWork<T>>(couplings_);
        w.ends.resize(static_cast<std::size_t>(y_line_end_words) * A.mx);
        y_lines_reduce(A, b, x_in, w.ends.data());
        solve_couplings(comm, A.mx, pdd, w);
        y_lines_finish(comm, A.mx, A.my - 2, w, x_in, x_out, omega);
    }
    /// Every rank's values of v into all ranks' v: rank r's are v[offsets[r] .. offsets[r + 1]),
    /// already in place on rank r.
    template <class T>
    void gather_in_place(Communicator& comm, vector<T>& v, const std::vector<std::size_t>& offsets) {
        comm.allgather_in_place(v.data(), offsets);
    }

    std::size_t workspace_bytes() const {
        return std::get<0>(parts_).bytes() + std::get<1>(parts_).bytes() + std::get<0>(couplings_).bytes() +
               std::get<1>(couplings_).bytes();
    }

private:
    /// Every y-line's part on the strip's m owned rows reduced to its two coupling equations,
    /// into `ends` (host, y_line_end_words per line); the reduced parts are kept for
    /// y_lines_finish. One chunk per part: the parallelism is across the lines. x_in's halos
    /// must be current.
    template <class T>
    void y_lines_reduce(const matrix<T>& A, const vector<T>& b, const vector<T>& x_in, T* ends) {
        const int mx = A.mx, m = A.my - 2;
        LineParts<T>& w = parts<T>(mx, m);
        const BandsView<T> Av = view(A);
#pragma omp parallel for schedule(static) if(CpuBackend::parallel_worth(w.a.size()))
        for (int i = 0; i < mx; ++i) {
            y_chunk_reduce(Av, b.data(), x_in.data(), w.a.data(), w.c.data(), w.v.data(), w.ra.data(), w.rc.data(),
                           w.rv.data(), m, 1, i, 0);
            y_line_reduce(w.ra.data(), w.rc.data(), w.rv.data(), mx, 1, i, ends);
        }
    }
    /// x_out on the owned rows from the solved ends (`solved`: first and last of line i at 2 i,
    /// 2 i + 1) and the parts y_lines_reduce kept, and on the halo rows from the neighbours' ends.
    template <class T>
    void y_lines_finish(const Communicator& comm, int mx, int m, const CouplingWork<T>& couplings, const vector<T>& x_in,
                        vector<T>& x_out, T omega) {
        LineParts<T>& w = parts<T>(mx, m);
        const T* const solved = couplings.solved.data();
        const bool below = comm.below() != MPI_PROC_NULL, above = comm.above() != MPI_PROC_NULL;
#pragma omp parallel for schedule(static) if(CpuBackend::parallel_worth(w.a.size()))
        for (int i = 0; i < mx; ++i) {
            y_line_fill(w.ra.data(), w.rc.data(), w.rv.data(), mx, 1, i, solved[2 * i], solved[2 * i + 1]);
            y_chunk_finish(w.a.data(), w.c.data(), w.v.data(), w.rv.data(), mx, m, 1, i, 0, x_in.data(), x_out.data(),
                           omega);
            y_halo_finish(couplings.beside.data(), mx, m, i, below, above, x_in.data(), x_out.data(), omega);
        }
    }

    /// A strip's y-line parts in forward form (a, c, v at r * mx + i) and their reduced equations
    /// (two per line), kept at the size of the last sweep.
    template <class T>
    struct LineParts {
        std::vector<T> a, c, v, ra, rc, rv;
        std::size_t bytes() const {
            return (a.size() + c.size() + v.size() + ra.size() + rc.size() + rv.size()) * sizeof(T);
        }
    };
    template <class T>
    LineParts<T>& parts(int mx, int m) {
        LineParts<T>& w = std::get<LineParts<T>>(parts_);
        for (std::vector<T>* part : {&w.a, &w.c, &w.v}) part->resize(static_cast<std::size_t>(m) * mx);
        for (std::vector<T>* part : {&w.ra, &w.rc, &w.rv}) part->resize(2 * static_cast<std::size_t>(mx));
        return w;
    }

    CpuBackend cpu_;
    std::tuple<LineParts<float>, LineParts<double>> parts_;
    std::tuple<CouplingWork<float>, CouplingWork<double>> couplings_;
};

}  // namespace adimg

#pragma once
// The y-lines of an ADI half-step when they cross the ranks: Sun's partition methods on the
// project's partition machinery (src/lines/partition_method.hpp). Each rank's part of a line is
// one chunk: partition_eliminate reduces it to two coupling equations (its first and last row),
// the coupling equations are solved, and partition_substitute fills in the chunk.
//  - PPT (exact): one all-gather gives every rank the 2P coupling equations of every line,
//    which form a tridiagonal system (first(0), last(0), first(1), ...); each rank solves all of
//    them by Thomas and keeps its own two unknowns.
//  - PDD: the coupling of a chunk's first row to its own last (and back) is dropped, which
//    leaves independent 2 x 2 systems of last(r) and first(r + 1): one exchange with each
//    neighbour. The dropped coefficients are at most q^(m-1) / (1 - q) for chunks of m rows and
//    line rows with |a| + |c| <= q |b| (pdd_bound), so PDD is exact where that is below rounding.

#include "../lines/partition_method.hpp"
#include "../lines/warp_line_solve.hpp"
#include "../solver/stencil.hpp"
#include "communicator.hpp"
#include "strip_storage.hpp"

#include <array>
#include <cmath>
#include <cstddef>
#include <limits>
#include <vector>

namespace adimg {

/// Thomas on n unit-diagonal equations in place: on return eq[k].v holds x_k.
template <class T>
void solve_unit_tridiagonal(CrEquation<T>* eq, int n) {
    for (int k = 1; k < n; ++k) eq[k] = cr_eliminate_lower(eq[k - 1], eq[k]);
    for (int k = n - 2; k >= 0; --k) eq[k].v = cr_substitute(eq[k], T(0), eq[k + 1].v);
}

/// The bound on the couplings that PDD drops, for chunks of m rows and line rows with
/// |b| >= dominance (|a| + |c|): q^(m-1) / (1 - q) with q = 1 / dominance; infinite if q >= 1.
inline double pdd_bound(double dominance, int m) {
    const double q = 1.0 / dominance;
    if (!(q < 1.0)) return std::numeric_limits<double>::infinity();
    return std::pow(q, m - 1) / (1.0 - q);
}

/// min over the strip's rows of |b| / (|a| + |c|) of its y-line rows, over all ranks (rows
/// without in-line couplings, the edge rows, count as infinitely dominant).
template <class T>
double y_line_dominance(Communicator& comm, const StripMatrix<T>& A) {
    const BandsView<T> Av = view(A.local);
    double dominance = std::numeric_limits<double>::infinity();
    for (int r = 1; r <= A.rows; ++r)
        for (int i = 0; i < A.mx; ++i) {
            const LineRow<T> row = line_row(Av, static_cast<std::size_t>(r) * A.mx + i, Direction::y);
            const double off = std::abs(double(row.lower)) + std::abs(double(row.upper));
            if (off > 0.0) dominance = std::min(dominance, std::abs(double(row.diag)) / off);
        }
    return comm.min(dominance);
}

/// Buffers of the y-line solve, kept between sweeps.
template <class T>
struct YLineWork {
    std::vector<T> a, c, v;       ///< the strip's equations, row r of line i at r * mx + i
    std::vector<T> ends, all;     ///< PPT: the coupling equations, this rank's and every rank's
    std::vector<T> firsts, lasts, below_last, above_first;  ///< PDD: 3 words per line each
    std::size_t bytes() const {
        return (a.size() + c.size() + v.size() + ends.size() + all.size() + firsts.size() + lasts.size() +
                below_last.size() + above_first.size()) *
               sizeof(T);
    }
};

/// One damped y-line half-step on a strip: x_out = x_in + omega (x~ - x_in) on the owned rows,
/// x~ the exact solution of every y-line (PPT), or PDD's. x_in's halos must be current.
template <class T>
void distributed_y_lines(Communicator& comm, const StripMatrix<T>& A, const StripVector<T>& b,
                         const StripVector<T>& x_in, StripVector<T>& x_out, T omega, bool pdd, YLineWork<T>& w) {
    const int mx = A.mx, m = A.rows, ranks = comm.size(), rank = comm.rank();
    const std::size_t values = static_cast<std::size_t>(m) * mx;
    const BandsView<T> Av = view(A.local);
    w.a.resize(values);
    w.c.resize(values);
    w.v.resize(values);
    const bool parallel = values >= 16384;
    // The strip's equations, normalised; storage row r + 1 is the chunk's row r.
#pragma omp parallel for schedule(static) if(parallel)
    for (int r = 0; r < m; ++r)
        for (int i = 0; i < mx; ++i) {
            const std::size_t p = static_cast<std::size_t>(r + 1) * mx + i, q = static_cast<std::size_t>(r) * mx + i;
            const LineRow<T> row = line_row(Av, p, Direction::y);
            const CrEquation<T> e = cr_normalise(
                row.lower, row.diag, row.upper, b.storage[p] - off_line_product(Av, x_in.storage.data(), i, r + 1, Direction::y));
            w.a[q] = e.a;
            w.c[q] = e.c;
            w.v[q] = e.v;
        }
    auto line = [mx](int i) { return [mx, i](int r) { return r * mx + i; }; };
#pragma omp parallel for schedule(static) if(parallel)
    for (int i = 0; i < mx; ++i) partition_eliminate(w.a.data(), w.c.data(), w.v.data(), line(i), 0, m);
    auto equation = [&](int r, int i) {
        const std::size_t q = static_cast<std::size_t>(r) * mx + i;
        return CrEquation<T>{w.a[q], w.c[q], w.v[q]};
    };
    auto put = [](T* to, const CrEquation<T>& e) {
        to[0] = e.a;
        to[1] = e.c;
        to[2] = e.v;
    };
    auto get = [](const T* from) { return CrEquation<T>{from[0], from[1], from[2]}; };
    std::vector<T> first(mx), last(mx);  // the solution at the chunk's ends
    if (!pdd) {
        w.ends.resize(static_cast<std::size_t>(6) * mx);
        w.all.resize(static_cast<std::size_t>(6) * mx * ranks);
        for (int i = 0; i < mx; ++i) {
            put(&w.ends[6 * static_cast<std::size_t>(i)], equation(0, i));
            put(&w.ends[6 * static_cast<std::size_t>(i) + 3], equation(m - 1, i));
        }
        comm.allgather(w.ends.data(), 6 * mx, w.all.data());
#pragma omp parallel if(parallel)
        {
            std::vector<CrEquation<T>> reduced(2 * static_cast<std::size_t>(ranks));
#pragma omp for schedule(static)
            for (int i = 0; i < mx; ++i) {
                for (int t = 0; t < ranks; ++t) {
                    const T* from = &w.all[(static_cast<std::size_t>(t) * mx + i) * 6];
                    reduced[2 * t] = get(from);
                    reduced[2 * t + 1] = get(from + 3);
                }
                solve_unit_tridiagonal(reduced.data(), 2 * ranks);
                first[i] = reduced[2 * rank].v;
                last[i] = reduced[2 * rank + 1].v;
            }
        }
    } else {
        const std::size_t words = static_cast<std::size_t>(3) * mx;
        w.firsts.resize(words);
        w.lasts.resize(words);
        w.below_last.assign(words, T(0));
        w.above_first.assign(words, T(0));
        for (int i = 0; i < mx; ++i) {
            put(&w.firsts[3 * static_cast<std::size_t>(i)], equation(0, i));
            put(&w.lasts[3 * static_cast<std::size_t>(i)], equation(m - 1, i));
        }
        comm.neighbour_exchange(w.firsts.data(), w.above_first.data(), w.lasts.data(), w.below_last.data(), 3 * mx);
        // The 2 x 2 system of last(r) and first(r + 1) without the dropped couplings. At the
        // grid's edges a chunk's end has no neighbour: its equation alone, with the dropped
        // coupling (zero there, the edge rows being identity rows).
        auto pair_solve = [](CrEquation<T> lower_last, CrEquation<T> upper_first) {
            std::array<CrEquation<T>, 2> pair{{{T(0), lower_last.c, lower_last.v}, {upper_first.a, T(0), upper_first.v}}};
            solve_unit_tridiagonal(pair.data(), 2);
            return pair;
        };
        for (int i = 0; i < mx; ++i) {
            const std::size_t at = 3 * static_cast<std::size_t>(i);
            const CrEquation<T> mine_first = get(&w.firsts[at]), mine_last = get(&w.lasts[at]);
            first[i] = comm.below() == MPI_PROC_NULL ? mine_first.v
                                                     : pair_solve(get(&w.below_last[at]), mine_first)[1].v;
            last[i] = comm.above() == MPI_PROC_NULL ? mine_last.v : pair_solve(mine_last, get(&w.above_first[at]))[0].v;
        }
    }
#pragma omp parallel for schedule(static) if(parallel)
    for (int i = 0; i < mx; ++i) {
        w.v[i] = first[i];
        w.v[static_cast<std::size_t>(m - 1) * mx + i] = last[i];
        partition_substitute(w.a.data(), w.c.data(), w.v.data(), line(i), 0, m);
    }
#pragma omp parallel for schedule(static) if(parallel)
    for (std::size_t q = 0; q < values; ++q) {
        const std::size_t p = q + static_cast<std::size_t>(mx);
        x_out.storage[p] = relax(x_in.storage[p], w.v[q], omega);
    }
}

}  // namespace adimg

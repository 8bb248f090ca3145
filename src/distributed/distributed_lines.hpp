#pragma once
// The y-lines of an ADI half-step when they cross the ranks: Sun's partition methods on the
// project's partition machinery (src/lines/partition_method.hpp). Each rank's part of a line is
// one chunk of the method across the ranks: the rank-local executor reduces it to two coupling
// equations, its first and last row (strip_formulas.hpp: in chunks of its own on a GPU), the
// coupling equations are solved here on the host, and the rank-local executor fills in the part.
//  - PPT (exact): one all-gather gives every rank the 2P coupling equations of every line,
//    which form a tridiagonal system (first(0), last(0), first(1), ...); each rank solves all of
//    them by Thomas and keeps its own two unknowns.
//  - PDD: the coupling of a chunk's first row to its own last (and back) is dropped, which
//    leaves independent 2 x 2 systems of last(r) and first(r + 1): one exchange with each
//    neighbour. The dropped coefficients are at most q^(m-1) / (1 - q) for chunks of m rows and
//    line rows with |a| + |c| <= q |b| (pdd_bound), so PDD is exact where that is below rounding.

#include <adimg/nine_bands.hpp>

#include "../lines/cyclic_reduction.hpp"
#include "../solver/stencil.hpp"
#include "communicator.hpp"
#include "strip_formulas.hpp"

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

/// min over a strip's owned rows (storage rows 1 .. rows of `strip`, its values rounded to T) of
/// |b| / (|a| + |c|) of its y-line rows, over all ranks (rows without in-line couplings, the edge
/// rows, count as infinitely dominant).
template <class T>
double y_line_dominance(Communicator& comm, const NineBands<double>& strip) {
    const BandsView<double> Av = view(strip);
    double dominance = std::numeric_limits<double>::infinity();
    for (int r = 1; r + 1 < strip.my; ++r)
        for (int i = 0; i < strip.mx; ++i) {
            const LineRow<double> row = line_row(Av, static_cast<std::size_t>(r) * strip.mx + i, Direction::y);
            const double off = std::abs(double(T(row.lower))) + std::abs(double(T(row.upper)));
            if (off > 0.0) dominance = std::min(dominance, std::abs(double(T(row.diag))) / off);
        }
    return comm.min(dominance);
}

/// The host side of the y-lines of a level: the coupling equations of this rank's parts
/// (`ends`, y_line_end_words per line) and the solution at the parts' ends (`solved`: first
/// and last of line i at 2 i and 2 i + 1); the rest are the exchanges' buffers, kept between
/// sweeps.
template <class T>
struct CouplingWork {
    std::vector<T> ends, solved;
    std::vector<T> all;                                     ///< PPT: every rank's ends
    std::vector<T> firsts, lasts, below_last, above_first;  ///< PDD: 3 words per line each
    std::size_t bytes() const {
        return (ends.size() + solved.size() + all.size() + firsts.size() + lasts.size() + below_last.size() +
                above_first.size()) *
               sizeof(T);
    }
};

/// From the coupling equations of every line's part on this rank (w.ends, mx lines), the
/// solution at the part's ends (w.solved), by PPT (exact) or PDD.
template <class T>
void solve_couplings(Communicator& comm, int mx, bool pdd, CouplingWork<T>& w) {
    const int ranks = comm.size(), rank = comm.rank();
    w.solved.resize(2 * static_cast<std::size_t>(mx));
    auto get = [](const T* from) { return CrEquation<T>{from[0], from[1], from[2]}; };
    if (!pdd) {
        w.all.resize(static_cast<std::size_t>(y_line_end_words) * mx * ranks);
        comm.allgather(w.ends.data(), y_line_end_words * mx, w.all.data());
#pragma omp parallel if(static_cast<std::size_t>(mx) * ranks >= 4096)
        {
            std::vector<CrEquation<T>> reduced(2 * static_cast<std::size_t>(ranks));
#pragma omp for schedule(static)
            for (int i = 0; i < mx; ++i) {
                for (int t = 0; t < ranks; ++t) {
                    const T* from = &w.all[(static_cast<std::size_t>(t) * mx + i) * y_line_end_words];
                    reduced[2 * t] = get(from);
                    reduced[2 * t + 1] = get(from + 3);
                }
                solve_unit_tridiagonal(reduced.data(), 2 * ranks);
                w.solved[2 * static_cast<std::size_t>(i)] = reduced[2 * rank].v;
                w.solved[2 * static_cast<std::size_t>(i) + 1] = reduced[2 * rank + 1].v;
            }
        }
        return;
    }
    const std::size_t words = static_cast<std::size_t>(3) * mx;
    w.firsts.resize(words);
    w.lasts.resize(words);
    w.below_last.assign(words, T(0));
    w.above_first.assign(words, T(0));
    for (std::size_t i = 0; i < static_cast<std::size_t>(mx); ++i)
        for (int k = 0; k < 3; ++k) {
            w.firsts[3 * i + k] = w.ends[y_line_end_words * i + k];
            w.lasts[3 * i + k] = w.ends[y_line_end_words * i + 3 + k];
        }
    comm.neighbour_exchange(w.firsts.data(), w.above_first.data(), w.lasts.data(), w.below_last.data(), 3 * mx);
    // The 2 x 2 system of last(r) and first(r + 1) without the dropped couplings. At the grid's
    // edges a chunk's end has no neighbour: its equation alone, with the dropped coupling (zero
    // there, the edge rows being identity rows).
    auto pair_solve = [](CrEquation<T> lower_last, CrEquation<T> upper_first) {
        std::array<CrEquation<T>, 2> pair{{{T(0), lower_last.c, lower_last.v}, {upper_first.a, T(0), upper_first.v}}};
        solve_unit_tridiagonal(pair.data(), 2);
        return pair;
    };
    for (int i = 0; i < mx; ++i) {
        const std::size_t at = 3 * static_cast<std::size_t>(i);
        const CrEquation<T> mine_first = get(&w.firsts[at]), mine_last = get(&w.lasts[at]);
        w.solved[2 * static_cast<std::size_t>(i)] =
            comm.below() == MPI_PROC_NULL ? mine_first.v : pair_solve(get(&w.below_last[at]), mine_first)[1].v;
        w.solved[2 * static_cast<std::size_t>(i) + 1] =
            comm.above() == MPI_PROC_NULL ? mine_last.v : pair_solve(mine_last, get(&w.above_first[at]))[0].v;
    }
}

}  // namespace adimg

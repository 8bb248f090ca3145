#pragma once
// The y-lines of an ADI half-step when they cross the ranks: Sun's partition methods on the
// project's partition machinery (src/lines/partition_method.hpp). Each rank's part of a line is
// one chunk of the method across the ranks: the rank-local executor reduces it to two coupling
// equations, its first and last row (strip_formulas.hpp: in chunks of its own on a GPU), every
// rank solves the coupling equations (coupling_formulas.hpp: here on the host for the CPU ranks
// and for GPU ranks without NCCL; on the device for GPU ranks on NCCL, cuda_rank.cuh), and the
// rank-local executor fills in the part.
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
#include "coupling_formulas.hpp"
#include "strip_formulas.hpp"

#include <cmath>
#include <cstddef>
#include <limits>
#include <vector>

namespace adimg {

/// The bound on the couplings that PDD drops, for chunks of m rows and line rows with
/// |b| >= dominance (|a| + |c|): q^(m-1) / (1 - q) with q = 1 / dominance; infinite if q >= 1.
inline double pdd_bound(double dominance, int m) {
    const double q = 1.0 / dominance;
    if (!(q < 1.0)) return std::numeric_limits<double>::infinity();
    return std::pow(q, m - 1) / (1.0 - q);
}

/// The host side of the y-lines of a level: the coupling equations of this rank's parts
/// (`ends`, y_line_end_words per line) and the solution at the parts' ends (`solved`: first
/// and last of line i at 2 i and 2 i + 1), the neighbouring ranks' unknowns next to them
/// (`beside`: the last of the rank below and the first of the rank above, likewise; what the
/// halo rows of the sweep's result hold); the rest are the exchanges' buffers, kept between
/// sweeps.
template <class T>
struct CouplingWork {
    std::vector<T> ends, solved, beside;
    std::vector<T> all;           ///< PPT: every rank's ends
    std::vector<T> below, above;  ///< PDD: the neighbouring ranks' ends
    std::size_t bytes() const {
        return (ends.size() + solved.size() + beside.size() + all.size() + below.size() + above.size()) * sizeof(T);
    }
};

/// From the coupling equations of every line's part on this rank (w.ends, mx lines), the
/// solution at the part's ends (w.solved) and the neighbours' next to them (w.beside), by PPT
/// (exact) or PDD, on the host.
template <class T>
void solve_couplings(Communicator& comm, int mx, bool pdd, CouplingWork<T>& w) {
    const int ranks = comm.size(), rank = comm.rank();
    const std::size_t words = static_cast<std::size_t>(y_line_end_words) * mx;
    w.solved.resize(2 * static_cast<std::size_t>(mx));
    w.beside.resize(2 * static_cast<std::size_t>(mx));
    if (!pdd) {
        w.all.resize(words * ranks);
        comm.allgather(w.ends.data(), static_cast<int>(words), w.all.data());
#pragma omp parallel if(static_cast<std::size_t>(mx) * ranks >= 4096)
        {
            std::vector<CrEquation<T>> reduced(2 * static_cast<std::size_t>(ranks));
#pragma omp for schedule(static)
            for (int i = 0; i < mx; ++i)
                ppt_line_ends(w.all.data(), mx, ranks, rank, i, reduced.data(), &w.solved[2 * static_cast<std::size_t>(i)],
                              &w.beside[2 * static_cast<std::size_t>(i)]);
        }
        return;
    }
    w.below.resize(words);
    w.above.resize(words);
    comm.neighbour_exchange(w.ends.data(), w.above.data(), w.ends.data(), w.below.data(), static_cast<int>(words));
    const bool has_below = comm.below() != MPI_PROC_NULL, has_above = comm.above() != MPI_PROC_NULL;
    for (int i = 0; i < mx; ++i) {
        const std::size_t at = static_cast<std::size_t>(y_line_end_words) * i;
        pdd_line_ends(&w.ends[at], has_below ? &w.below[at] : nullptr, has_above ? &w.above[at] : nullptr,
                      &w.solved[2 * static_cast<std::size_t>(i)], &w.beside[2 * static_cast<std::size_t>(i)]);
    }
}

}  // namespace adimg

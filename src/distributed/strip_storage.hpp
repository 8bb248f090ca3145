#pragma once
// A rank's part of a level: its strip of rows with one halo row on each side, as vectors and
// nine-band matrices of the distributed backend, held in the memory of the rank-local backend
// (`Local`: CpuBackend on the host, CudaBackend on the rank's GPU).

#include <adimg/nine_bands.hpp>

#include <cstddef>

namespace adimg {

/// A vector of the distributed backend: a strip of a level's grid, or a small array that every
/// rank holds whole (split positions, the scalars of PCG).
///
/// A strip keeps rows 0 .. rows + 1 of mx values in `storage`: row r >= 1 is row
/// first_row + r - 1 of the grid, rows 0 and rows + 1 are halos, copies of the neighbouring
/// ranks' rows (zero or stale beyond the grid's edge, where no coupling reads them). The halos
/// are no part of the vector's value, only a cache of other ranks' values that an operation
/// refreshes before it reads them; hence mutable: an operation that takes a vector as input may
/// refresh them.
///
/// Some operations leave the halos current (a y-line sweep computes the neighbours' end rows,
/// a fill writes what every rank writes): they stamp `halos_current` with the backend's epoch,
/// and the next reader skips its exchange. Every other write clears the stamp: code that writes
/// `storage` outside the backend's operations calls DistributedBackend::written.
template <class Local, class T>
struct StripVector {
    using value_type = T;
    mutable typename Local::template vector<T> storage;
    mutable unsigned long long halos_current = 0;  ///< the epoch in which the halos were last made current; 0: stale
    int level = -1;  ///< the strip's level in the layout; -1 for a whole array
    int mx = 0;
    int first_row = 0;
    int rows = 0;

    bool strip() const { return level >= 0; }
    /// The entries this rank owns: its rows, or the whole array.
    std::size_t size() const { return strip() ? static_cast<std::size_t>(rows) * mx : storage.size(); }
    /// Where the owned entries start in `storage`.
    std::size_t offset() const { return strip() ? static_cast<std::size_t>(mx) : 0; }
    T* data() { return storage.data() + offset(); }
    const T* data() const { return storage.data() + offset(); }
};

/// A nine-band matrix of the distributed backend: the rows of a rank's strip, with the halo rows
/// as identity rows, so that a rank-local backend's operation on the strip computes the owned
/// rows exactly as on the whole grid and harmless values on the halo rows. mx and my are the
/// whole grid's.
template <class Local, class T>
struct StripMatrix {
    int mx = 0;
    int my = 0;
    int level = -1;
    int first_row = 0;
    int rows = 0;
    typename Local::template matrix<T> local;  ///< mx x (rows + 2)
    bool pdd = false;                          ///< its y-lines by PDD (distributed_lines.hpp), else by PPT
    NaturalEdges natural;  ///< none: the distributed solver takes Dirichlet edges only (setup refuses others)

    std::size_t owned_values() const { return static_cast<std::size_t>(rows) * mx; }
};

}  // namespace adimg

#pragma once
// Which rows of every level each rank owns: the grid is cut into strips of whole rows (y), and
// the same cut serves every level, so that restriction and prolongation need only one halo row.
// Small levels below the finest are replicated instead: every rank holds and computes them whole.

#include <cstddef>
#include <utility>
#include <vector>

namespace adimg {

/// The rows of one level that each rank owns: rank r owns rows first[r] .. first[r + 1] - 1. A
/// replicated level is held whole by every rank; its cut then says which of its rows a rank
/// computes when restricting into it from the distributed level above (those of the fine rows
/// it owns), before the ranks gather them.
struct StripLevel {
    int mx = 0;
    int my = 0;
    std::vector<int> first;   ///< ranks + 1 entries, first[0] = 0, first[ranks] = my
    bool replicated = false;  ///< every rank holds the whole level

    std::size_t nodes() const { return static_cast<std::size_t>(mx) * static_cast<std::size_t>(my); }
    int rows(int rank) const { return first[rank + 1] - first[rank]; }
    /// The rows `rank` holds: its strip, or the whole level.
    int held_first(int rank) const { return replicated ? 0 : first[rank]; }
    int held_rows(int rank) const { return replicated ? my : rows(rank); }
};

/// The levels below the finest with at most this many nodes are replicated: on them a V-cycle's
/// ~15 exchanges a level cost more than computing the whole level on every rank (a 513 x 513
/// level's ADI sweep on an H200 is bound by its launches' latency, as its half would be), and
/// the coarse part of a cycle becomes one gather on the way down.
inline constexpr std::size_t replicated_nodes = 513 * 513;

/// The strips of all levels of a hierarchy over `ranks` ranks. The levels below the finest with at
/// most `replicate_up_to` nodes are replicated. The cut is made on the coarsest distributed level,
/// r (my_d - 1) / ranks rounded down for rank r, and doubled on each finer level, so that coarse
/// row J belongs to the rank of fine row 2J: restriction then needs the fine row below a strip
/// and prolongation the coarse row above it, one halo row each; a replicated level's cut gives
/// rank r the rows J with 2J in its fine strip. Every rank owns at least two rows of every
/// distributed level, which the partition method of the y-lines needs.
/// The first level of `grids` (coarsest first) that is not the level below halved exactly in
/// both directions (c 2^k + 1 nodes, no eliminated boundary), or -1 if none: StripLayout cuts only
/// grids without one.
int first_uneven_level(const std::vector<std::pair<int, int>>& grids);

class StripLayout {
public:
    StripLayout() = default;
    /// `grids` (mx, my) of the levels, coarsest first, each twice the previous one's elements in
    /// x and y. Throws input_error if one is not (first_uneven_level), or if the coarsest
    /// distributed level has fewer than two rows per rank.
    StripLayout(const std::vector<std::pair<int, int>>& grids, int ranks, std::size_t replicate_up_to = replicated_nodes);

    int levels() const { return static_cast<int>(levels_.size()); }
    const StripLevel& level(int l) const { return levels_[l]; }
    /// The level of the mx x my grid; -1 if no level has that grid.
    int level_with(int mx, int my) const;

private:
    std::vector<StripLevel> levels_;
};

}  // namespace adimg

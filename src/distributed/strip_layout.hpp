#pragma once
// Which rows of every level each rank owns: the grid is cut into strips of whole rows (y), and
// the same cut serves every level, so that restriction and prolongation need only one halo row.

#include <cstddef>
#include <utility>
#include <vector>

namespace adimg {

/// The rows of one level that each rank owns: rank r owns rows first[r] .. first[r + 1] - 1.
struct StripLevel {
    int mx = 0;
    int my = 0;
    std::vector<int> first;  ///< ranks + 1 entries, first[0] = 0, first[ranks] = my

    std::size_t nodes() const { return static_cast<std::size_t>(mx) * static_cast<std::size_t>(my); }
    int rows(int rank) const { return first[rank + 1] - first[rank]; }
};

/// The strips of all levels of a hierarchy over `ranks` ranks. The cut is made on the coarsest
/// level, r (my_c - 1) / ranks rounded down for rank r, and doubled on each finer level, so that
/// coarse row J belongs to the rank of fine row 2J: restriction then needs the fine row below a
/// strip and prolongation the coarse row above it, one halo row each. Every rank owns at least
/// two rows of every level, which the partition method of the y-lines needs.
class StripLayout {
public:
    StripLayout() = default;
    /// `grids` (mx, my) of the levels, coarsest first, each twice the previous one's elements in
    /// y. Throws input_error if the coarsest level has fewer than two rows per rank.
    StripLayout(const std::vector<std::pair<int, int>>& grids, int ranks);

    int levels() const { return static_cast<int>(levels_.size()); }
    const StripLevel& level(int l) const { return levels_[l]; }
    /// The level of the mx x my grid; -1 if no level has that grid.
    int level_with(int mx, int my) const;

private:
    std::vector<StripLevel> levels_;
};

}  // namespace adimg

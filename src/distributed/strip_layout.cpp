#include "strip_layout.hpp"

#include <adimg/error.hpp>

#include <algorithm>
#include <stdexcept>
#include <string>

namespace adimg {

int first_uneven_level(const std::vector<std::pair<int, int>>& grids) {
    for (std::size_t l = 1; l < grids.size(); ++l)
        if (grids[l].first - 1 != 2 * (grids[l - 1].first - 1) || grids[l].second - 1 != 2 * (grids[l - 1].second - 1))
            return static_cast<int>(l);
    return -1;
}

StripLayout::StripLayout(const std::vector<std::pair<int, int>>& grids, int ranks, std::size_t replicate_up_to) {
    if (grids.empty()) throw std::logic_error("StripLayout: no levels");
    const int levels = static_cast<int>(grids.size());
    if (const int l = first_uneven_level(grids); l >= 0)
        throw input_error("the distributed solver needs grids that halve exactly on every level (c 2^k + 1 nodes "
                          "in each direction, no eliminated boundary), but its level " + std::to_string(l) + " has " +
                          std::to_string(grids[l].first) + " x " + std::to_string(grids[l].second) +
                          " nodes and the level below " + std::to_string(grids[l - 1].first) + " x " +
                          std::to_string(grids[l - 1].second) +
                          ": solve this grid with the single-process solver (adimg solve, adimg::Solver), which "
                          "coarsens any size, or give the distributed solver c 2^k + 1 nodes per direction");
    int distributed = 0;  // the coarsest distributed level
    while (distributed + 1 < levels &&
           static_cast<std::size_t>(grids[distributed].first) * grids[distributed].second <= replicate_up_to)
        ++distributed;
    const int cut_elements = grids[distributed].second - 1;
    if (cut_elements < 2 * ranks)
        throw input_error("the distributed solver needs at least two rows of its coarsest distributed grid per rank, and "
                          "that grid (" + std::to_string(grids[distributed].first) + " x " +
                          std::to_string(grids[distributed].second) + " nodes) has " + std::to_string(cut_elements + 1) +
                          " rows for " + std::to_string(ranks) + " ranks: use at most " + std::to_string(cut_elements / 2) +
                          " ranks, or a finer level");
    for (int l = 0; l < levels; ++l)
        levels_.push_back(StripLevel{grids[l].first, grids[l].second, std::vector<int>(ranks + 1), l < distributed});
    for (int l = distributed; l < levels; ++l)
        for (int r = 0; r < ranks; ++r)
            levels_[l].first[r] = static_cast<int>(static_cast<long long>(r) * cut_elements / ranks) << (l - distributed);
    for (int l = distributed - 1; l >= 0; --l)  // coarse row J with the rank of fine row 2J
        for (int r = 0; r < ranks; ++r) levels_[l].first[r] = (levels_[l + 1].first[r] + 1) / 2;
    for (StripLevel& level : levels_) level.first[ranks] = level.my;
}

int StripLayout::level_with(int mx, int my) const {
    for (int l = 0; l < levels(); ++l)
        if (levels_[l].mx == mx && levels_[l].my == my) return l;
    return -1;
}

}  // namespace adimg

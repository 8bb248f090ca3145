#include "strip_layout.hpp"

#include <adimg/error.hpp>

#include <algorithm>
#include <stdexcept>
#include <string>

namespace adimg {

StripLayout::StripLayout(const std::vector<std::pair<int, int>>& grids, int ranks) {
    if (grids.empty()) throw std::logic_error("StripLayout: no levels");
    const int coarse_elements = grids.front().second - 1;
    if (coarse_elements < 2 * ranks)
        throw input_error("the distributed solver needs at least two rows of the coarsest grid per rank, and that grid (" +
                          std::to_string(grids.front().first) + " x " + std::to_string(grids.front().second) +
                          " nodes) has " + std::to_string(coarse_elements + 1) + " rows for " + std::to_string(ranks) +
                          " ranks: use at most " + std::to_string(coarse_elements / 2) +
                          " ranks, or a finer coarsest level (SolverOptions::coarse_level)");
    for (std::size_t l = 0; l < grids.size(); ++l) {
        const auto [mx, my] = grids[l];
        if (my - 1 != coarse_elements << l)
            throw std::logic_error("StripLayout: level " + std::to_string(l) + " has " + std::to_string(my) +
                                   " rows, not twice the elements of the level below");
        StripLevel level{mx, my, std::vector<int>(ranks + 1)};
        for (int r = 0; r < ranks; ++r)
            level.first[r] = static_cast<int>(static_cast<long long>(r) * coarse_elements / ranks) << l;
        level.first[ranks] = my;
        levels_.push_back(std::move(level));
    }
}

int StripLayout::level_with(int mx, int my) const {
    for (int l = 0; l < levels(); ++l)
        if (levels_[l].mx == mx && levels_[l].my == my) return l;
    return -1;
}

}  // namespace adimg

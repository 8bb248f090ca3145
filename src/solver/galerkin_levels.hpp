#pragma once
// A user's matrix as the engine sets it up: its finest bands and the split positions of every
// coarser level, from which the backend forms the Galerkin products R A P where the solve runs
// (on the device for CUDA), and the levels that result, in double in the backend's memory, as the
// V-cycle of each precision is made from them.

#include <adimg/nine_bands.hpp>

#include <utility>
#include <vector>

namespace adimg {

/// The finest matrix and the split positions toward each finer level, coarsest level first.
struct GalerkinSource {
    const NineBands<double>* finest = nullptr;
    int coarsest_level = 0;
    std::vector<std::vector<double>> split_x, split_y;  ///< one per level below the finest
    std::vector<std::pair<int, int>> grids;             ///< nodes in x and y of each level below the finest

    int levels() const { return static_cast<int>(split_x.size()) + 1; }
};

/// One level of the Galerkin hierarchy in the backend's memory, as Multigrid takes it: the
/// matrix (double) and the split positions toward the next finer level (empty on the finest).
/// The coarsest level also carries its matrix on the host, for the coarse solve's factor.
template <class Matrix>
struct BackendLevel {
    int level = 0;
    const Matrix* A = nullptr;
    std::vector<double> split_x, split_y;
    NineBands<double> host;  ///< the coarsest level only
};

template <class Matrix>
struct BackendLevels {
    std::vector<BackendLevel<Matrix>> levels;
    const BackendLevel<Matrix>& finest() const { return levels.back(); }
};

template <class Matrix>
const Matrix& matrix_source(const BackendLevel<Matrix>& level) {
    return *level.A;
}
template <class Matrix>
const NineBands<double>& coarsest_matrix(const BackendLevel<Matrix>& level) {
    return level.host;
}
template <class Matrix>
std::pair<int, int> grid_of(const BackendLevel<Matrix>& level) {
    return {level.A->mx, level.A->my};
}

}  // namespace adimg

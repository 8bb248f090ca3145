#pragma once
// The levels of a case before assembly: each level's mesh (its element widths) and the positions
// at which its elements split into the next finer level. A backend assembles the matrices from
// it where the solve runs (on the device for CUDA), so the host never holds them.

#include <adimg/problems.hpp>

#include <vector>

namespace adimg {

struct MeshLevel {
    int level = 0;
    TensorMesh mesh;
    std::vector<double> split_x, split_y;  ///< toward the next finer level (empty on the finest)
};

/// Levels from coarsest to finest.
struct MeshHierarchy {
    std::vector<MeshLevel> levels;
    const MeshLevel& finest() const { return levels.back(); }
};

/// The case's meshes on levels coarse_level..level (coarse_level capped at level).
MeshHierarchy mesh_hierarchy(const CaseSpec& spec, int level, int coarse_level);

}  // namespace adimg

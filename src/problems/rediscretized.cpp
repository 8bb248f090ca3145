#include <adimg/hierarchy.hpp>
#include <adimg/problems.hpp>

#include "mesh_hierarchy.hpp"

#include <algorithm>
#include <utility>

namespace adimg {

MeshHierarchy mesh_hierarchy(const CaseSpec& spec, int level, int coarse_level) {
    MeshHierarchy h;
    // Level 1 is the coarsest a V-cycle reaches: there no direction halves any more (3 nodes).
    const int coarsest = std::min(std::max(coarse_level, 1), level);
    // A direction that did not halve (a mesh of any size, semi-coarsened) has no split positions.
    auto splits = [](const Mesh1D& coarse, const Mesh1D& fine) {
        return coarse.elements() == fine.elements() ? std::vector<double>() : split_positions(fine);
    };
    TensorMesh coarse = spec.mesh(coarsest);
    for (int l = coarsest; l <= level; ++l) {
        MeshLevel m;
        m.level = l;
        if (l < level) {
            TensorMesh fine = spec.mesh(l + 1);
            m.split_x = splits(coarse.x, fine.x);
            m.split_y = splits(coarse.y, fine.y);
            m.mesh = std::exchange(coarse, std::move(fine));
        } else {
            m.mesh = std::move(coarse);
        }
        h.levels.push_back(std::move(m));
    }
    return h;
}

Hierarchy rediscretized_hierarchy(const CaseSpec& spec, int level, int coarse_level) {
    Hierarchy h;
    for (MeshLevel& m : mesh_hierarchy(spec, level, coarse_level).levels)
        h.levels.push_back({m.level, assemble_stiffness(m.mesh), std::move(m.split_x), std::move(m.split_y)});
    return h;
}

}  // namespace adimg

#include <adimg/hierarchy.hpp>
#include <adimg/problems.hpp>

#include "mesh_hierarchy.hpp"

#include <algorithm>
#include <utility>

namespace adimg {

MeshHierarchy mesh_hierarchy(const CaseSpec& spec, int level, int coarse_level) {
    MeshHierarchy h;
    TensorMesh coarse = spec.mesh(std::min(coarse_level, level));
    for (int l = std::min(coarse_level, level); l <= level; ++l) {
        MeshLevel m;
        m.level = l;
        if (l < level) {
            TensorMesh fine = spec.mesh(l + 1);
            m.split_x = split_positions(coarse.x, fine.x);
            m.split_y = split_positions(coarse.y, fine.y);
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

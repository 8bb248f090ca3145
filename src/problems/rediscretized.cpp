#include <adimg/hierarchy.hpp>
#include <adimg/problems.hpp>

#include <utility>

namespace adimg {

Hierarchy rediscretized_hierarchy(const CaseSpec& spec, int level, int coarse_level) {
    if (coarse_level > level) coarse_level = level;
    Hierarchy h;
    TensorMesh coarse = spec.mesh(coarse_level);
    for (int l = coarse_level; l <= level; ++l) {
        HostLevel host;
        host.level = l;
        host.A = assemble_stiffness(coarse);
        if (l < level) {
            TensorMesh fine = spec.mesh(l + 1);
            host.split_x = split_positions(coarse.x, fine.x);
            host.split_y = split_positions(coarse.y, fine.y);
            coarse = std::move(fine);
        }
        h.levels.push_back(std::move(host));
    }
    return h;
}

}  // namespace adimg

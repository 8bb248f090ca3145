// Coarsest-grid matrices of every kind the direct coarse solve factors, for the tests of its
// inverse (test_coarse_factor.cpp on the host, gpu/test_cuda_backend.cu on the device): a graded
// case's own level, a pure Neumann matrix (pinned and projected), and a user's Galerkin coarse
// matrices, one with mixed edges and one pure Neumann.
#pragma once

#include <adimg/grid.hpp>
#include <adimg/hierarchy.hpp>
#include <adimg/problems.hpp>

#include "boundary_problems.hpp"

#include <string>
#include <utility>
#include <vector>

namespace adimg_test {

inline std::vector<std::pair<std::string, adimg::NineBands<double>>> coarse_matrices() {
    using adimg::GridMatrix;
    constexpr EdgeCondition Dr = EdgeCondition::dirichlet, Nm = EdgeCondition::neumann, Rb = EdgeCondition::robin;
    auto galerkin_coarsest = [](const FemMesh& mesh, const EdgeConditions& edges) {
        return adimg::galerkin_hierarchy(GridMatrix::from_eigen(mesh.grid, assemble(mesh, edges).A), 5).levels.front().A;
    };
    return {{"A5 at L = 5 (33 x 33)", adimg::assemble_stiffness(adimg::builtin_case("A5").mesh(5))},
            {"pure Neumann, deformed 17 x 17", GridMatrix::from_eigen(deformed_mesh(4).grid, assemble(deformed_mesh(4), {Nm, Nm, Nm, Nm}).A).bands()},
            {"Galerkin 33 x 33 of a graded 129 x 129 matrix, Dirichlet, Neumann and Robin edges",
             galerkin_coarsest(graded_mesh(7), {Dr, Nm, Dr, Rb})},
            {"Galerkin 33 x 33 of a pure Neumann deformed 65 x 65 matrix", galerkin_coarsest(deformed_mesh(6), {Nm, Nm, Nm, Nm})}};
}

}  // namespace adimg_test

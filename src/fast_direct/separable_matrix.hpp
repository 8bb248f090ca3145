#pragma once
// The Q1 stiffness matrix of a mesh with Neumann edges, as the fast direct solver takes it: on the
// unknown nodes A = Kx ⊗ My + Mx ⊗ Ky from the two 1D pencils (the same sums of element
// contributions as assemble_stiffness() makes, in another order), identity rows on the nodes of
// Dirichlet edges and no couplings into them. Exactly symmetric: a_pq and a_qp are the same
// products of the same pencil entries.

#include <adimg/fast_direct.hpp>
#include <adimg/nine_bands.hpp>
#include <adimg/problems.hpp>

namespace adimg::fast_direct {

NineBands<double> separable_matrix(const TensorMesh& mesh, const FastDirectEdges& edges);

}  // namespace adimg::fast_direct

// Meshes of any size for the tests of issue 43: a case's widths (U1 uniform, A2 graded) on any
// number of elements (refine_to), their stiffness matrices, and a matrix's condensed interior (the
// Dirichlet boundary eliminated, as scikit-fem's condense() leaves it).
#pragma once

#include <adimg/grid.hpp>
#include <adimg/problems.hpp>

#include <string>

namespace adimg_test {

/// The mesh of an mx x my grid with the widths of case `name` (its rules, on any element count).
inline adimg::TensorMesh case_mesh(const std::string& name, int mx, int my) {
    const adimg::CaseSpec spec = adimg::builtin_case(name);
    return {adimg::refine_to(spec.x, mx - 1), adimg::refine_to(spec.y, my - 1)};
}

/// The rows and columns of the interior nodes of A (every edge node removed).
inline adimg::NineBands<double> interior_of(const adimg::NineBands<double>& A) {
    adimg::NineBands<double> in(A.mx - 2, A.my - 2);
    for (int k = 0; k < 9; ++k)
        for (int j = 0; j < in.my; ++j)
            for (int i = 0; i < in.mx; ++i) {
                const int qi = i + adimg::band_dx(k), qj = j + adimg::band_dy(k);
                const bool inside = qi >= 0 && qi < in.mx && qj >= 0 && qj < in.my;
                in(k, static_cast<std::size_t>(j) * in.mx + i) =
                    inside ? A(k, static_cast<std::size_t>(j + 1) * A.mx + i + 1) : 0.0;
            }
    return in;
}

/// The entries of the interior nodes of a vector on an mx x my grid.
inline std::vector<double> interior_of(const std::vector<double>& v, int mx, int my) {
    std::vector<double> in;
    for (int j = 1; j + 1 < my; ++j)
        for (int i = 1; i + 1 < mx; ++i) in.push_back(v[static_cast<std::size_t>(j) * mx + i]);
    return in;
}

/// The grid of the interior nodes of `mesh`, with the widths between them.
inline adimg::Grid interior_grid(const adimg::TensorMesh& mesh) {
    auto inner = [](const std::vector<double>& h) { return std::vector<double>(h.begin() + 1, h.end() - 1); };
    return adimg::Grid::from_widths(inner(mesh.x.widths), inner(mesh.y.widths));
}

}  // namespace adimg_test

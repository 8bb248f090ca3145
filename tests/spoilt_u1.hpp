// The U1 matrix on the 33 x 33 grid with its interior rows spoilt (shifted, sign-flipped), for the
// tests of what a GridMatrix refuses (test_host_edges.cpp) and of what a solve on a matrix the
// checks let through reports (test_solver_edges.cpp).
#pragma once

#include <adimg/grid.hpp>
#include <adimg/io.hpp>
#include <adimg/problems.hpp>

#include <cstddef>
#include <utility>

namespace adimg_test {

/// The U1 matrix on the 33 x 33 grid after `spoil`, handed over as a user's matrix.
inline adimg::GridMatrix u1_with(void (*spoil)(adimg::NineBands<double>&)) {
    const adimg::TensorMesh mesh = adimg::builtin_case("U1").mesh(5);
    adimg::NineBands<double> bands = adimg::assemble_stiffness(mesh);
    spoil(bands);
    return adimg::GridMatrix(adimg::Grid::from_mesh(mesh), std::move(bands));
}

/// Whether row p is off the edges of the grid.
inline bool interior(const adimg::NineBands<double>& A, std::size_t p) {
    const int i = static_cast<int>(p % A.mx), j = static_cast<int>(p / A.mx);
    return i > 0 && j > 0 && i < A.mx - 1 && j < A.my - 1;
}

/// A - s I on the interior rows.
inline void shift(adimg::NineBands<double>& A, double s) {
    for (std::size_t p = 0; p < A.rows(); ++p)
        if (interior(A, p)) A(adimg::C, p) -= s;
}

}  // namespace adimg_test

#pragma once
// The refinement's defect d = b - A x on the device without the matrix: each thread forms its
// row from the element widths (q1_stiffness_row(), the bits the host and device assemblies
// give) and its compensated sum, and takes the difference form of difference_defect.hpp. It
// reads b and x and writes d, where the stored nine bands would add nine reads per node, and
// setup assembles nothing.

#include "fast_direct_memory.cuh"
#include "launcher.cuh"
#include "kernels/launch.cuh"
#include "kernels/stencil.cuh"

#include "../fast_direct/difference_defect.hpp"
#include "../problems/q1_element.hpp"

#include <adimg/problems.hpp>

#include <vector>

namespace adimg::fast_direct {

/// d = b - A x on grid rows first_row .. first_row + rows - 1, whose values lie from storage row
/// `halo` on (b, x and d hold rows + 2 halo rows: the whole grid with halo 0, a rank's strip with
/// its halo rows with halo 1). A row's couplings out of the grid are zero entries, so a halo row
/// beyond the grid's edge adds nothing.
static __global__ void q1_difference_defects(const double* __restrict__ hx, const double* __restrict__ hy, int mx, int my,
                                             int first_row, int rows, int halo, const double* __restrict__ b,
                                             const double* __restrict__ x, double* __restrict__ d) {
    kernels::follow_previous_kernel();
    const int i = blockIdx.x * kernels::tile_x + threadIdx.x, r = blockIdx.y * kernels::tile_y + threadIdx.y;
    if (i >= mx || r >= rows) return;
    const int j = first_row + r, stored = r + halo;
    double band[9];
    q1_stiffness_row(hx, hy, mx, my, i, j, band);
    const double row_sum = operator_row_sum(band, mx, my, i, j);
    d[static_cast<std::size_t>(stored) * mx + i] = difference_defect(band, row_sum, mx, rows + 2 * halo, b, x, i, stored);
}

/// d = b - A x for the Q1 matrix of a mesh with Dirichlet edges (assemble_stiffness()).
class Q1Defect {
public:
    Q1Defect(const TensorMesh& mesh, cudaStream_t stream)
        : mx_(mesh.mx()), my_(mesh.my()), hx_(host_to_device(mesh.x.widths, stream)), hy_(host_to_device(mesh.y.widths, stream)) {}

    /// On the whole grid.
    void operator()(Launcher& launch, const double* b, const double* x, double* d) { strip(launch, 0, my_, 0, b, x, d); }
    /// On grid rows first_row .. first_row + rows - 1 held from storage row `halo` on
    /// (q1_difference_defects).
    void strip(Launcher& launch, int first_row, int rows, int halo, const double* b, const double* x, double* d) {
        const dim3 tiles((mx_ + kernels::tile_x - 1) / kernels::tile_x, (rows + kernels::tile_y - 1) / kernels::tile_y);
        launch("q1_difference_defects kernel", q1_difference_defects, tiles, dim3(kernels::tile_x, kernels::tile_y), 0,
               hx_.data(), hy_.data(), mx_, my_, first_row, rows, halo, b, x, d);
    }

private:
    int mx_, my_;
    DeviceVector<double> hx_, hy_;
};

}  // namespace adimg::fast_direct

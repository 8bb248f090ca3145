#include "strip_defect.hpp"

#include "../fast_direct/difference_defect.hpp"
#include "../problems/q1_element.hpp"

#include <cstddef>

namespace adimg {

StripDefect::StripDefect(StripBackend<CpuRank>& be, const TensorMesh& mesh, const fast_direct::SharedBands& A)
    : be_(be),
      mx_(mesh.mx()),
      first_row_(be.rows().first),
      rows_(be.rows().count),
      bands_(mesh.mx(), rows_),
      row_sums_(bands_.rows()) {
    const int my = mesh.my();
#pragma omp parallel for schedule(static)
    for (int r = 0; r < rows_; ++r)
        for (int i = 0; i < mx_; ++i) {
            const int j = first_row_ + r;
            const std::size_t q = static_cast<std::size_t>(r) * mx_ + i, p = static_cast<std::size_t>(j) * mx_ + i;
            double band[9];
            if (A)
                for (int k = 0; k < 9; ++k) band[k] = (*A)(k, p);
            else
                q1_stiffness_row(mesh.x.widths.data(), mesh.y.widths.data(), mx_, my, i, j, band);
            for (int k = 0; k < 9; ++k) bands_(k, q) = band[k];
            row_sums_[q] = operator_row_sum(band, mx_, my, i, j);
        }
}

void StripDefect::operator()(const Vector& b, const Vector& x, Vector& d) {
    be_.refresh_halos(x);
    be_.written(d);
    // In the strip's storage (rows 0 .. rows + 1, owned row r at r + 1): every neighbour of an
    // owned node is there, and the couplings out of the grid, which the serial defect skips, are
    // zero entries here (edge rows are identity rows, and Neumann rows have none), each adding
    // 0 (x_q - x_p) = 0 to the same sum.
    const int strip_rows = rows_ + 2;
#pragma omp parallel for schedule(static)
    for (int r = 0; r < rows_; ++r)
        for (int i = 0; i < mx_; ++i) {
            const std::size_t q = static_cast<std::size_t>(r) * mx_ + i;
            double band[9];
            for (int k = 0; k < 9; ++k) band[k] = bands_(k, q);
            d.storage[q + mx_] = fast_direct::difference_defect(band, row_sums_[q], mx_, strip_rows, b.storage.data(),
                                                                x.storage.data(), i, r + 1);
        }
}

}  // namespace adimg

#include "separable_matrix.hpp"

#include "pencil.hpp"

namespace adimg::fast_direct {
namespace {

/// Entries (i, i + d), d in -1..1, of a pencil's K and M by node index; 0 where either node is
/// not an unknown.
struct Entries {
    const Pencil& p;
    bool unknown(int i) const { return i >= p.first && i - p.first < p.size(); }
    double k(int i, int d) const { return pick(p.k_diag, p.k_off, i, d); }
    double m(int i, int d) const { return pick(p.m_diag, p.m_off, i, d); }

private:
    double pick(const std::vector<double>& diag, const std::vector<double>& off, int i, int d) const {
        if (!unknown(i) || !unknown(i + d)) return 0.0;
        const int r = i - p.first;
        return d == 0 ? diag[r] : off[d > 0 ? r : r - 1];
    }
};

}  // namespace

NineBands<double> separable_matrix(const TensorMesh& mesh, const FastDirectEdges& edges) {
    const Pencil px = Pencil::from_widths(mesh.x.widths, edges.x_low, edges.x_high);
    const Pencil py = Pencil::from_widths(mesh.y.widths, edges.y_low, edges.y_high);
    const Entries x{px}, y{py};
    NineBands<double> A(mesh.mx(), mesh.my());
#pragma omp parallel for schedule(static)
    for (int j = 0; j < A.my; ++j)
        for (int i = 0; i < A.mx; ++i) {
            const std::size_t p = static_cast<std::size_t>(j) * A.mx + i;
            if (!x.unknown(i) || !y.unknown(j)) {
                A(band_index(0, 0), p) = 1.0;
                continue;
            }
            for (int k = 0; k < 9; ++k) {
                const int dx = band_dx(k), dy = band_dy(k);
                A(k, p) = x.k(i, dx) * y.m(j, dy) + x.m(i, dx) * y.k(j, dy);
            }
        }
    return A;
}

}  // namespace adimg::fast_direct

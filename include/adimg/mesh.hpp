#pragma once
/// \file
/// One-dimensional meshes stored as element widths, and the tensor-product meshes built from them.
///
/// Widths, never coordinates: for A4/A5 at high levels the nodes next to x = 1 are not
/// representable in double (1 - 1e-19 == 1), so coordinates lose the smallest elements entirely.
/// Every quantity adimg needs (element matrices, quadrature points, prolongation weights) is
/// computed from widths and from partial sums measured from the nearer end of the interval.

#include <vector>

namespace adimg {

/// Where a 1D refinement grades towards a boundary layer.
enum class Layer {
    none,  ///< uniform refinement: every element is split at its midpoint
    low,   ///< the first element (next to 0) is split so that its new first piece has nu/2 of its width
    high,  ///< the last element (next to the length) is split so that its new last piece has nu/2 of its width
};

/// How a 1D mesh is refined from a single element of the given length.
struct Mesh1DRule {
    double length = 1.0;  ///< the interval is [0, length]
    double nu = 1.0;      ///< anisotropy factor in (0, 1]; 1 means uniform even with a layer
    Layer layer = Layer::none;
};

/// A 1D mesh: the widths of its elements, left to right.
struct Mesh1D {
    std::vector<double> widths;

    int elements() const { return static_cast<int>(widths.size()); }
    int nodes() const { return elements() + 1; }
    double smallest_width() const;
    double largest_width() const;
};

/// The mesh after `level` refinements of one element (2^level elements).
Mesh1D refine(const Mesh1DRule& rule, int level);

/// The relative position t at which each coarse element is split in the next finer mesh:
/// fine node 2I+1 lies at x_I + t_I (x_{I+1} - x_I). Computed from the fine widths, so it is
/// exact for any nested pair of meshes (t = 1/2 uniformly, nu/2 or 1 - nu/2 in the layers).
/// Throws input_error if `fine` does not have twice the elements of `coarse`.
std::vector<double> split_positions(const Mesh1D& coarse, const Mesh1D& fine);

/// A tensor-product mesh: x varies fastest in the node numbering p = j * mx + i.
struct TensorMesh {
    Mesh1D x;
    Mesh1D y;

    int mx() const { return x.nodes(); }
    int my() const { return y.nodes(); }
    long long nodes() const { return static_cast<long long>(mx()) * my(); }
    double smallest_width() const;
    /// The largest element aspect ratio max(hx/hy, hy/hx) over all elements.
    double largest_aspect_ratio() const;
};

}  // namespace adimg

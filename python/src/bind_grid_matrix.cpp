// Grids and checked matrices from numpy arrays: nine bands, or the compressed columns of a
// scipy.sparse matrix. The library checks them (GridMatrix); this file only checks that the
// arrays describe a matrix at all.
#include "bindings.hpp"

#include <adimg/error.hpp>
#include <adimg/grid.hpp>
#include <adimg/io.hpp>

#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <Eigen/SparseCore>

#include <cstdint>
#include <string>
#include <vector>

namespace nb = nanobind;

namespace adimg::python {
namespace {

using Indices = nb::ndarray<const std::int32_t, nb::ndim<1>, nb::c_contig, nb::device::cpu>;
using Values = nb::ndarray<const double, nb::ndim<1>, nb::c_contig, nb::device::cpu>;
using Bands = nb::ndarray<const double, nb::ndim<2>, nb::c_contig, nb::device::cpu>;

/// The n x n matrix held as compressed columns (scipy.sparse.csc_matrix's indptr, indices, data),
/// copied into Eigen. Throws input_error if the arrays do not describe one.
Eigen::SparseMatrix<double> from_compressed_columns(long long n, const Indices& indptr, const Indices& indices,
                                                    const Values& data) {
    if (static_cast<long long>(indptr.shape(0)) != n + 1)
        throw input_error("matrix: indptr has " + std::to_string(indptr.shape(0)) + " entries, but a matrix of " +
                          std::to_string(n) + " columns needs " + std::to_string(n + 1));
    const std::int32_t* start = indptr.data();
    const long long entries = start[n];
    if (start[0] != 0 || static_cast<long long>(indices.shape(0)) < entries ||
        static_cast<long long>(data.shape(0)) < entries)
        throw input_error("matrix: indptr, indices and data are not compressed columns of one matrix");
    for (long long col = 0; col < n; ++col)
        if (start[col + 1] < start[col]) throw input_error("matrix: indptr decreases at column " + std::to_string(col));
    for (long long e = 0; e < entries; ++e)
        if (indices.data()[e] < 0 || indices.data()[e] >= n)
            throw input_error("matrix: row index " + std::to_string(indices.data()[e]) + " is outside 0.." +
                              std::to_string(n - 1));
    const Eigen::Map<const Eigen::SparseMatrix<double, Eigen::ColMajor, std::int32_t>> map(
        n, n, entries, start, indices.data(), data.data());
    return map;
}

MatrixChecks checks_with(double symmetry_tolerance) {
    MatrixChecks checks;
    checks.symmetry_tolerance = symmetry_tolerance;
    return checks;
}

}  // namespace

void bind_grid_matrix(nb::module_& m) {
    nb::class_<Grid>(m, "Grid", "A tensor-product grid of mx x my nodes, optionally with node positions.")
        .def(nb::init<int, int>(), nb::arg("mx"), nb::arg("my"))
        .def_static("from_widths", &Grid::from_widths, nb::arg("hx"), nb::arg("hy"))
        .def_static("from_coordinates", &Grid::from_coordinates, nb::arg("x"), nb::arg("y"))
        .def_prop_ro("mx", &Grid::mx)
        .def_prop_ro("my", &Grid::my)
        .def_prop_ro("has_positions", &Grid::has_positions)
        .def_prop_ro("finest_level", &Grid::finest_level);

    nb::class_<GridMatrix>(m, "GridMatrix", "A nine-band matrix on a Grid, checked against adimg's contract.")
        .def_prop_ro("grid", &GridMatrix::grid)
        .def("multiply",
             [](const GridMatrix& A, const Values& x) {
                 return A.multiply(std::vector<double>(x.data(), x.data() + x.shape(0)));
             },
             nb::arg("x"), "A x with the matrix as given (a list)");

    m.def(
        "matrix_from_csc",
        [](const Grid& grid, const Indices& indptr, const Indices& indices, const Values& data,
           double symmetry_tolerance) {
            const Eigen::SparseMatrix<double> S =
                from_compressed_columns(static_cast<long long>(grid.nodes()), indptr, indices, data);
            nb::gil_scoped_release unlocked;
            return GridMatrix::from_eigen(grid, S, checks_with(symmetry_tolerance));
        },
        nb::arg("grid"), nb::arg("indptr"), nb::arg("indices"), nb::arg("data"), nb::arg("symmetry_tolerance"),
        "The matrix given as compressed columns, nodes numbered x-fastest on the grid.");

    m.def(
        "matrix_from_bands",
        [](const Grid& grid, const Bands& bands, double symmetry_tolerance) {
            if (bands.shape(0) != 9 || bands.shape(1) != grid.nodes())
                throw input_error("bands: the array is " + std::to_string(bands.shape(0)) + " x " +
                                  std::to_string(bands.shape(1)) + ", but nine bands of a " +
                                  std::to_string(grid.mx()) + "x" + std::to_string(grid.my()) + " grid are 9 x " +
                                  std::to_string(grid.nodes()));
            nb::gil_scoped_release unlocked;
            return GridMatrix::from_band_major(grid, bands.data(), checks_with(symmetry_tolerance));
        },
        nb::arg("grid"), nb::arg("bands"), nb::arg("symmetry_tolerance"),
        "The matrix given as nine bands, band k of row p at bands[k, p].");

    m.def(
        "fits_grid",
        [](int mx, int my, const Indices& indptr, const Indices& indices, const Values& data) {
            const long long n = static_cast<long long>(mx) * my;
            return fits_grid(from_compressed_columns(n, indptr, indices, data), mx, my);
        },
        nb::arg("mx"), nb::arg("my"), nb::arg("indptr"), nb::arg("indices"), nb::arg("data"),
        "True if the matrix is nine-band on the mx x my grid numbered x-fastest.");
}

}  // namespace adimg::python

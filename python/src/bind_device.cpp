// Arrays in GPU memory (CuPy, PyTorch, JAX) through DLPack: solves, preconditioning and matrices
// whose data stays on the device (include/adimg/device.hpp). Any array is taken as it comes and
// checked here, so that a wrong device, dtype, shape or layout is an InputError naming it rather
// than nanobind's TypeError; results are new device arrays that Python hands back to the caller's
// library (adimg/device_arrays.py).
#include "bindings.hpp"

#include <adimg/device.hpp>
#include <adimg/error.hpp>
#include <adimg/solver.hpp>

#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

namespace nb = nanobind;

namespace adimg::python {
namespace {

using AnyArray = nb::ndarray<nb::ro>;
using DeviceResult = nb::ndarray<double, nb::device::cuda>;

/// The caller's stream (an integer: cupy's Stream.ptr, torch's cuda_stream; 0 the legacy default).
DeviceStream stream_of(std::uintptr_t stream) { return reinterpret_cast<DeviceStream>(stream); }

std::string shape_of(const AnyArray& a) {
    std::string out = "(";
    for (std::size_t d = 0; d < a.ndim(); ++d) out += (d ? ", " : "") + std::to_string(a.shape(d));
    return out + (a.ndim() == 1 ? ",)" : ")");
}

/// Throws input_error unless `a` is a C-contiguous float64 array in CUDA memory of shape (n,), or
/// with `batch` also (k, n), n = rows. Returns k (1 for a vector).
std::size_t check_device_vectors(const AnyArray& a, const char* name, std::size_t rows, bool batch) {
    const std::string what = std::string(name) + " ";
    if (a.device_type() != nb::device::cuda::value && a.device_type() != nb::device::cuda_managed::value)
        throw input_error(what + "is not in GPU memory (DLPack device type " + std::to_string(a.device_type()) +
                          "); pass host arrays as NumPy arrays, or move it to the GPU");
    if (a.dtype() != nb::dtype<double>())
        throw input_error(what + "has " + std::to_string(a.dtype().bits) + "-bit values of DLPack type code " +
                          std::to_string(a.dtype().code) +
                          ", but adimg solves in float64: convert it (b.astype('float64'), b.double(); JAX: enable "
                          "jax_enable_x64)");
    const bool vector = a.ndim() == 1 && a.shape(0) == rows;
    const bool vectors = batch && a.ndim() == 2 && a.shape(1) == rows;
    if (!vector && !vectors)
        throw input_error(what + "has shape " + shape_of(a) + ", but the matrix has " + std::to_string(rows) +
                          " rows: give (" + std::to_string(rows) + ",)" +
                          (batch ? ", or (k, " + std::to_string(rows) + ") for k right-hand sides" : std::string()));
    const bool contiguous = vector ? a.stride(0) == 1 : a.stride(1) == 1 && a.stride(0) == static_cast<std::int64_t>(rows);
    if (!contiguous)
        throw input_error(what + "is not contiguous (strides of a strided view or a transpose); pass a contiguous copy "
                                 "(cupy.ascontiguousarray(b), b.contiguous())");
    return vector ? 1 : a.shape(0);
}

/// A new device array of `shape`, owning its memory (freed with the array, also if a call throws).
DeviceResult new_device_array(const std::vector<std::size_t>& shape, int device) {
    std::size_t n = 1;
    for (std::size_t s : shape) n *= s;
    double* values = allocate_device_doubles(n);
    nb::capsule owner(values, [](void* p) noexcept { free_device_doubles(static_cast<double*>(p)); });
    return DeviceResult(values, shape.size(), shape.data(), owner, nullptr, nb::dtype<double>(), nb::device::cuda::value,
                        device);
}

std::vector<std::size_t> shape_vector(const AnyArray& a) {
    std::vector<std::size_t> out;
    for (std::size_t d = 0; d < a.ndim(); ++d) out.push_back(a.shape(d));
    return out;
}

std::tuple<DeviceResult, std::vector<SolveReport>> solve_device(Solver& solver, const AnyArray& b,
                                                                 const std::optional<AnyArray>& x0, std::uintptr_t stream) {
    if (solver.rows() == 0) throw input_error("the solver has no matrix; call setup(A) first");
    const std::size_t count = check_device_vectors(b, "b", solver.rows(), true);
    if (x0 && (check_device_vectors(*x0, "x0", solver.rows(), true) != count || x0->ndim() != b.ndim()))
        throw input_error("x0 has shape " + shape_of(*x0) + ", but b has shape " + shape_of(b) + "; give one guess per right-hand side");
    DeviceResult x = new_device_array(shape_vector(b), b.device_id());
    std::vector<SolveReport> reports;
    {
        nb::gil_scoped_release unlocked;
        if (x0) copy_device_doubles(x.data(), static_cast<const double*>(x0->data()), count * solver.rows(), stream_of(stream));
        reports = solver.solve_device_batch(static_cast<const double*>(b.data()), x.data(), static_cast<int>(count),
                                            x0 ? InitialGuess::given : InitialGuess::zero, stream_of(stream));
    }
    return {x, reports};
}

DeviceResult precondition_device(Solver& solver, const AnyArray& r, std::uintptr_t stream) {
    if (solver.rows() == 0) throw input_error("the solver has no matrix; call setup(A) first");
    check_device_vectors(r, "r", solver.rows(), false);
    DeviceResult z = new_device_array(shape_vector(r), r.device_id());
    {
        nb::gil_scoped_release unlocked;
        solver.precondition_device(static_cast<const double*>(r.data()), z.data(), stream_of(stream));
    }
    return z;
}

DeviceGridMatrix device_matrix_from_bands(const Grid& grid, const AnyArray& bands, double symmetry_tolerance,
                                          std::uintptr_t stream) {
    const std::size_t n = grid.nodes();
    if (bands.ndim() != 2 || bands.shape(0) != 9 || bands.shape(1) != n)
        throw input_error("bands: the array has shape " + shape_of(bands) + ", but nine bands of a " +
                          std::to_string(grid.mx()) + "x" + std::to_string(grid.my()) + " grid are (9, " +
                          std::to_string(n) + ")");
    if (bands.device_type() != nb::device::cuda::value && bands.device_type() != nb::device::cuda_managed::value)
        throw input_error("bands: not in GPU memory; pass host bands as a NumPy array");
    if (bands.dtype() != nb::dtype<double>())
        throw input_error("bands: adimg takes float64 values; convert them (astype('float64'), double())");
    if (bands.stride(1) != 1 || bands.stride(0) != static_cast<std::int64_t>(n))
        throw input_error("bands: not contiguous; pass a contiguous copy");
    MatrixChecks checks;
    checks.symmetry_tolerance = symmetry_tolerance;
    nb::gil_scoped_release unlocked;
    return DeviceGridMatrix(grid, static_cast<const double*>(bands.data()), checks, stream_of(stream));
}

}  // namespace

void bind_device(nb::module_& m) {
    nb::class_<DeviceGridMatrix>(m, "DeviceGridMatrix",
                                 "A nine-band matrix in GPU memory, checked on the GPU against adimg's contract.")
        .def_prop_ro("grid", &DeviceGridMatrix::grid);
    m.def("device_matrix_from_bands", &device_matrix_from_bands, nb::arg("grid"), nb::arg("bands"),
          nb::arg("symmetry_tolerance"), nb::arg("stream") = 0,
          "The matrix given as nine bands in GPU memory (shape (9, n), float64), checked on the GPU.");
    m.def(
        "setup_device",
        [](Solver& solver, const DeviceGridMatrix& A) {
            nb::gil_scoped_release unlocked;
            solver.setup(A);
        },
        nb::arg("solver"), nb::arg("A"));
    m.def("solve_device", &solve_device, nb::arg("solver"), nb::arg("b"), nb::arg("x0").none() = nb::none(),
          nb::arg("stream") = 0,
          "(x, reports): A x = b for b of shape (n,) or (k, n) in GPU memory; x a new GPU array of b's shape");
    m.def("precondition_device", &precondition_device, nb::arg("solver"), nb::arg("r"), nb::arg("stream") = 0,
          "z = M r for r of shape (n,) in GPU memory; z a new GPU array");
}

}  // namespace adimg::python

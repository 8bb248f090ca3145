// The solver: options as keyword arguments, setup with a GridMatrix, solve on numpy vectors.
// Setup and solve release the GIL, so other Python threads run meanwhile.
#include "bindings.hpp"

#include <adimg/error.hpp>
#include <adimg/solver.hpp>

#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <optional>
#include <string>
#include <tuple>

namespace nb = nanobind;

namespace adimg::python {
namespace {

using Vector = nb::ndarray<const double, nb::ndim<1>, nb::c_contig, nb::device::cpu>;
using Solution = nb::ndarray<nb::numpy, double, nb::ndim<1>>;

/// Throws input_error before setup(): until then the solver has no matrix, vectors or levels.
void require_setup(const Solver& solver) {
    if (solver.rows() == 0) throw input_error("the solver has no matrix; call setup(A) first");
}

void check_length(const Vector& v, const char* name, std::size_t rows) {
    if (v.shape(0) != rows)
        throw input_error(std::string(name) + " has " + std::to_string(v.shape(0)) +
                          " entries, but the matrix has " + std::to_string(rows) + " rows");
}

/// A numpy array of `size` values that owns them (freed with the array, also if a call throws).
Solution new_vector(std::size_t size) {
    double* values = new double[size]();
    nb::capsule owner(values, [](void* p) noexcept { delete[] static_cast<double*>(p); });
    return Solution(values, {size}, owner);
}

std::tuple<Solution, SolveReport> solve(Solver& solver, const Vector& b, const std::optional<Vector>& x0) {
    require_setup(solver);
    const std::size_t rows = solver.rows();
    check_length(b, "b", rows);
    if (x0) check_length(*x0, "x0", rows);
    Solution x = new_vector(rows);
    if (x0) std::copy(x0->data(), x0->data() + rows, x.data());
    SolveReport report;
    {
        nb::gil_scoped_release unlocked;
        report = solver.solve(b.data(), x.data(), x0 ? InitialGuess::given : InitialGuess::zero);
    }
    return {x, report};
}

Solution precondition(Solver& solver, const Vector& r) {
    require_setup(solver);
    check_length(r, "r", solver.rows());
    Solution z = new_vector(solver.rows());
    {
        nb::gil_scoped_release unlocked;
        solver.precondition(r.data(), z.data());
    }
    return z;
}

}  // namespace

void bind_solver(nb::module_& m) {
    nb::class_<Solver>(m, "Solver", "adimg::Solver: set up once with a GridMatrix, then solve.")
        .def("__init__",
             [](Solver* self, const nb::kwargs& options) { new (self) Solver(options_from_kwargs(options)); })
        .def(
            "setup",
            [](Solver& solver, const GridMatrix& A) {
                nb::gil_scoped_release unlocked;
                solver.setup(A);
            },
            nb::arg("A"))
        .def("solve", &solve, nb::arg("b"), nb::arg("x0").none() = nb::none(),
             "(x, report): the solution of A x = b from x0 (zero if None)")
        .def("precondition", &precondition, nb::arg("r"), "z = M r: one V-cycle from zero on r")
        .def_prop_ro("rows", &Solver::rows)
        .def_prop_ro("backend", [](const Solver& s) { return to_string(s.backend()); })
        .def_prop_ro("device_name", &Solver::device_name)
        .def_prop_ro("notice", &Solver::notice)
        .def_prop_ro("setup_seconds", &Solver::setup_seconds)
        .def_prop_ro("levels",
                     [](const Solver& s) {
                         require_setup(s);
                         std::vector<std::tuple<int, int, int>> levels;
                         for (const LevelInfo& level : s.levels()) levels.emplace_back(level.level, level.mx, level.my);
                         return levels;
                     },
                     "(level, mx, my) of each level, coarsest first")
        .def_prop_ro("options", [](const Solver& s) {
            nb::dict options;
            for (const OptionSpec& spec : option_table()) options[spec.field] = spec.get(s.options());
            return options;
        }, "every option's value as text, by name");
}

}  // namespace adimg::python

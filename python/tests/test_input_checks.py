"""What the Python module accepts and refuses (issue 40): complex numbers refused, column vectors
accepted, every scipy.sparse format read, the grid and the tolerance checked, sizes checked before
any conversion, no crash before setup, option typos and ineffective options named. Each table has
one row per way the module used to fail."""

import io
import subprocess
import sys
import unittest
from unittest import mock

import numpy as np
import scipy.io
import scipy.sparse as sp
from fem_problems import assemble, eliminated, tensor_mesh

import adimg
import adimg.solver

M = 33  # a 33 x 33 grid: small, and its 1089 rows split into 3 x 3 blocks for BSR
N = M * M
OPTIONS = dict(backend="cpu", digits=10)


def poisson():
    """Poisson with zero boundary values on the M x M mesh of the unit square (CSR)."""
    mesh = tensor_mesh(np.linspace(0, 1, M), np.linspace(0, 1, M))
    A, b, D = assemble(mesh, lambda p: 1.0 + 0 * p[0], lambda p: 1.0 + 0 * p[0])
    return eliminated(A, b, D, np.zeros(A.shape[0]))


def with_stored_zeros(A):
    """A (COO) with two stored zeros far outside the nine bands, at (0, n - 1) and (n - 1, 0)."""
    coo, last = A.tocoo(), A.shape[0] - 1
    return sp.coo_matrix((np.r_[coo.data, 0.0, 0.0], (np.r_[coo.row, 0, last], np.r_[coo.col, last, 0])), A.shape)


def unconverted(shape, nnz):
    """An empty COO matrix of `shape` that claims `nnz` stored entries and fails the test if it is
    converted: a matrix too large for this machine, without allocating it."""

    class Unconverted(sp.coo_matrix):
        @property
        def nnz(self):
            return nnz

        def _refuse(self, *args, **kwargs):
            raise AssertionError("the matrix was converted before its size was checked")

        tocsc = tocsr = asformat = tobsr = todense = toarray = _refuse

    A = sp.coo_matrix(shape)
    A.__class__ = Unconverted  # after construction, whose own checks count the entries
    return A


class Fixture(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.A, cls.b = poisson()
        cls.solver = adimg.Solver(cls.A, (M, M), **OPTIONS)
        cls.x, _ = cls.solver.solve(cls.b)


class ComplexInputIsRefused(Fixture):
    """Finding 5: a complex matrix or vector lost its imaginary part with only a NumPy warning."""

    def test_complex_values_are_refused(self):
        complex_A = self.A.astype(np.complex128) * (1 + 0.5j)
        complex_b = self.b * (1 + 0.5j)
        rows = [
            ("sparse A", lambda: adimg.Solver(complex_A, (M, M), **OPTIONS), "A"),
            ("band array A", lambda: adimg.Solver(np.zeros((9, N), np.complex128), (M, M), **OPTIONS), "A"),
            ("b", lambda: self.solver.solve(complex_b), "b"),
            ("x0", lambda: self.solver.solve(self.b, x0=complex_b), "x0"),
            ("r of precondition", lambda: self.solver.precondition(complex_b), "r"),
        ]
        for label, call, name in rows:
            with self.subTest(label):
                with self.assertRaisesRegex(adimg.InputError, f"^{name} has complex values, but adimg solves real"):
                    call()


class ColumnVectors(Fixture):
    """Finding 5: b of shape (n, 1), as scipy.io.mmread returns it and as LinearOperator's
    matmat passes it, failed with a binding signature dump."""

    def test_a_column_is_solved_and_comes_back_as_a_column(self):
        column = self.b.reshape(N, 1)
        rows = [
            ("(n,)", lambda: self.solver.solve(self.b)[0], (N,)),
            ("(n, 1)", lambda: self.solver.solve(column)[0], (N, 1)),
            ("(n, 1) with x0 (n, 1)", lambda: self.solver.solve(column, x0=np.zeros((N, 1)))[0], (N, 1)),
            ("list", lambda: self.solver.solve(list(self.b))[0], (N,)),
        ]
        for label, call, shape in rows:
            with self.subTest(label):
                x = call()
                self.assertEqual(x.shape, shape)
                np.testing.assert_allclose(x.ravel(), self.x, rtol=0, atol=1e-12 * np.abs(self.x).max())

    def test_what_mmread_returns_and_linear_operator_products(self):
        file = io.BytesIO()
        scipy.io.mmwrite(file, self.b.reshape(N, 1))
        file.seek(0)
        read = scipy.io.mmread(file)
        M_ = self.solver.aslinearoperator()
        three = np.stack([self.b, 2 * self.b, -self.b], axis=1)
        rows = [
            ("mmread's b", lambda: self.solver.solve(read)[0].ravel(), self.x),
            ("M @ X, X of one column", lambda: (M_ @ self.b.reshape(N, 1)).ravel(), self.solver.precondition(self.b)),
            ("M @ X, X of three columns", lambda: (M_ @ three)[:, 1], 2 * self.solver.precondition(self.b)),
        ]
        for label, call, expected in rows:
            with self.subTest(label):
                np.testing.assert_allclose(call(), expected, rtol=1e-12, atol=1e-14 * np.abs(expected).max())

    def test_shapes_that_are_no_vectors_are_refused(self):
        rows = [
            ("(n, 2)", lambda: self.solver.solve(np.ones((N, 2))), r"b has shape \(1089, 2\)"),
            ("(n, 1, 1)", lambda: self.solver.solve(np.ones((N, 1, 1))), r"b has shape \(1089, 1, 1\)"),
            ("x0 (n, 2)", lambda: self.solver.solve(self.b, x0=np.ones((N, 2))), r"x0 has shape \(1089, 2\)"),
        ]
        for label, call, message in rows:
            with self.subTest(label):
                with self.assertRaisesRegex(adimg.InputError, message + r".*\(k, n\) for k right-hand sides, n = 1089"):
                    call()
        with self.assertRaisesRegex(adimg.InputError, r"x0 has shape \(1089,\), but b has shape \(2, 1089\)"):
            self.solver.solve(np.ones((2, N)), x0=self.b)

    def test_several_right_hand_sides_in_one_call(self):
        stacked = np.stack([self.b, 2 * self.b, -self.b])
        for label, b in [("(k, n)", stacked), ("list", list(stacked))]:
            with self.subTest(label):
                x, reports = self.solver.solve(b)
                self.assertEqual(x.shape, (3, N))
                self.assertEqual(len(reports), 3)
                np.testing.assert_allclose(x[1], 2 * x[0], rtol=1e-12, atol=1e-14 * np.abs(x[0]).max())
                np.testing.assert_allclose(x[0], self.solver.solve(self.b)[0], rtol=0, atol=0)
        x, reports = self.solver.solve(np.ones((1, N)))
        self.assertEqual((x.shape, len(reports)), ((1, N), 1))


class LevelsBeforeSetup(unittest.TestCase):
    """Finding 6: adimg._adimg.Solver().levels died of SIGBUS."""

    def test_no_crash_before_setup(self):
        rows = [("levels", "adimg._adimg.Solver(backend='cpu').levels", "call setup\\(A\\) first")]
        for label, expression, message in rows:
            with self.subTest(label):
                run = subprocess.run([sys.executable, "-c", f"import adimg\n{expression}"], capture_output=True,
                                     text=True, timeout=60)
                self.assertEqual(run.returncode, 1, f"{expression} ended with {run.returncode}: {run.stderr}")
                self.assertRegex(run.stderr, "adimg.InputError: .*" + message)


class BandArrays(Fixture):
    """Band arrays of other than two or three dimensions failed with a binding signature dump."""

    def test_band_arrays_of_another_shape_are_refused(self):
        rows = [
            ("flat", np.zeros(9 * N), f"the array is {9 * N}, but"),
            ("four dimensions", np.zeros((9, M, M, 1)), f"the array is 9 x {M} x {M} x 1, but"),
            ("a full matrix", self.A.toarray(), f"the array is {N} x {N}, but"),
        ]
        for label, bands, message in rows:
            with self.subTest(label):
                with self.assertRaisesRegex(adimg.InputError, f"^bands: {message} nine bands .* 9 x {N}.*csr_matrix"):
                    adimg.Solver(bands, (M, M), **OPTIONS)


class SparseFormats(Fixture):
    """Finding 8: BSR (and other formats that store zeros) was refused with "check nodes"."""

    def test_every_format_solves_as_csr(self):
        rows = [
            ("bsr", self.A.tobsr(blocksize=(3, 3))),
            ("coo", self.A.tocoo()),
            ("dia", self.A.todia()),
            ("lil", self.A.tolil()),
            ("dok", self.A.todok()),
            ("csr_array", sp.csr_array(self.A)),
            ("csr with stored zeros outside the bands", with_stored_zeros(self.A).tocsr()),
        ]
        for label, A in rows:
            with self.subTest(label):
                x, _ = adimg.Solver(A, (M, M), **OPTIONS).solve(self.b)
                np.testing.assert_allclose(x, self.x, rtol=0, atol=1e-12 * np.abs(self.x).max())

    def test_the_callers_matrix_is_left_alone(self):
        rows = [("csc", with_stored_zeros(self.A).tocsc()), ("csr", with_stored_zeros(self.A).tocsr())]
        for label, A in rows:
            with self.subTest(label):
                stored = A.nnz
                adimg.Solver(A, (M, M), **OPTIONS)
                self.assertEqual(A.nnz, stored)


class GridAndToleranceArguments(Fixture):
    """Finding 12: nodes and symmetry_tolerance were taken without checks."""

    def test_nodes(self):
        rows = [
            ("floats", (17.9, 17.2), "nodes=\\(17.9, 17.2\\): give whole numbers"),
            ("one float", 33.0, "nodes=33.0: give whole numbers"),
            ("one number", (33,), "nodes=\\(33,\\): give \\(mx, my\\)"),
            ("three numbers", (33, 33, 1), "nodes=\\(33, 33, 1\\): give \\(mx, my\\)"),
            ("text", "33", "nodes='33': give \\(mx, my\\)"),
            ("booleans", (True, 33), "nodes=\\(True, 33\\): give whole numbers"),
        ]
        for label, nodes, message in rows:
            with self.subTest(label):
                with self.assertRaisesRegex(adimg.InputError, message):
                    adimg.Solver(self.A, nodes, **OPTIONS)

    def test_one_number_is_a_square_grid(self):
        widths = (np.full(M - 1, 1 / (M - 1)),) * 2
        rows = [("int", M, {}), ("numpy integer", np.int64(M), {}), ("int with widths", M, dict(widths=widths))]
        for label, nodes, grid in rows:
            with self.subTest(label):
                solver = adimg.Solver(self.A, nodes, **grid, **OPTIONS)
                self.assertEqual(solver.nodes, (M, M))

    def test_symmetry_tolerance(self):
        rows = [("negative", -1), ("NaN", float("nan")), ("text", "1e-8")]
        for label, tolerance in rows:
            with self.subTest(label):
                with self.assertRaisesRegex(adimg.InputError, "^symmetry_tolerance=.*: give a number >= 0"):
                    adimg.Solver(self.A, (M, M), symmetry_tolerance=tolerance, **OPTIONS)

    def test_sizes_are_checked_before_any_conversion(self):
        big = 32769  # 2^15 + 1: a grid of 1.07e9 nodes
        rows = [
            ("1.07e9 rows", unconverted((big * big,) * 2, big * big), (big, big), "needs about .* GiB"),
            ("2^31 stored entries", unconverted((N, N), 2**31), (M, M), "more than the 2\\^31 - 1"),
        ]
        with mock.patch.object(adimg.solver, "_host_memory", lambda: 16 * 2**30, create=True):
            for label, A, nodes, message in rows:
                with self.subTest(label):
                    with self.assertRaisesRegex(adimg.InputError, message):
                        adimg.Solver(A, nodes, **OPTIONS)


class OptionChecks(Fixture):
    """The small items: __version__, a typo's suggestion, and options that have no effect."""

    def test_version(self):
        self.assertRegex(adimg.__version__, r"^\d+\.\d+\.\d+$")

    def test_typos_get_a_suggestion(self):
        rows = [("smoter", "smoother"), ("pre_smoth", "pre_smooth"), ("omgea", "omega")]
        for typo, meant in rows:
            with self.subTest(typo):
                message = f"unknown option '{typo}'; did you mean '{meant}'\\? the options are backend"
                with self.assertRaisesRegex(adimg.InputError, message):
                    adimg.Solver(self.A, (M, M), **{typo: 1}, **OPTIONS)

    def test_options_without_effect_are_refused(self):
        # The library's check_given_options() decides; these rows check that every keyword given
        # reaches it (OPTIONS gives digits=10, which the absolute stop leaves without effect).
        rows = [
            (dict(omega=0.5), "^omega damps the Jacobi smoother and has no effect with smoother = adi; drop omega"),
            (dict(omega=0.5, smoother="gauss-seidel"), "^omega .* no effect with smoother = gauss-seidel"),
            (dict(line_omega=0.5, smoother="jacobi"), "^line_omega .* no effect with smoother = jacobi"),
            (dict(inner="digits:2", precision="double"), "^inner .* no effect with precision = double"),
            (dict(fallback_to_double=False, precision="single"), "^fallback_to_double .* precision = single"),
            (dict(inner_max_cycles=8), "^inner_max_cycles .* no effect with inner = cycles:1"),
            (dict(stop="absolute"), "^digits .* no effect with stop = absolute"),
        ]
        for given, message in rows:
            with self.subTest(**given):
                with self.assertRaisesRegex(adimg.InputError, message):
                    adimg.Solver(self.A, (M, M), **given, **OPTIONS)

    def test_options_with_effect_pass(self):
        solver = adimg.Solver(self.A, (M, M), smoother="jacobi", omega=0.6, inner="digits:2", inner_max_cycles=8,
                              fallback_to_double=False, **OPTIONS)
        self.assertEqual(solver.options["omega"], "0.6")


class GpuEntryPointsRefuseHostArrays(Fixture):
    """The entry points for GPU arrays check what they are given before any device is touched: a
    NumPy array is no GPU array, whatever the backend."""

    def test_host_arrays_are_refused(self):
        rows = [
            ("solve", lambda: adimg._adimg.solve_device(self.solver._solver, self.b), "b is not in GPU memory"),
            ("precondition", lambda: adimg._adimg.precondition_device(self.solver._solver, self.b),
             "r is not in GPU memory"),
            ("bands", lambda: adimg._adimg.device_matrix_from_bands(adimg._adimg.Grid(M, M), np.ones((9, N)), 1e-10),
             "bands: not in GPU memory"),
            ("bands of another shape", lambda: adimg._adimg.device_matrix_from_bands(adimg._adimg.Grid(M, M),
                                                                                      np.ones((9, N - 1)), 1e-10),
             rf"shape \(9, {N - 1}\), but nine bands of a {M}x{M} grid are \(9, {N}\)"),
        ]
        for label, call, message in rows:
            with self.subTest(label):
                with self.assertRaisesRegex(adimg.InputError, message):
                    call()


if __name__ == "__main__":
    unittest.main()

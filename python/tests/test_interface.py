"""The Python interface: node orders found or refused with the library's message, nine band
arrays, options from the library's table, errors as exceptions, reports as objects."""

import unittest

import numpy as np
import scipy.sparse as sp
from fem_problems import assemble, eliminated, tensor_mesh

import adimg

MX, MY = 33, 65  # a grid that is not square, so that only one node order fits


def poisson_y_fastest():
    """Poisson on the MX x MY mesh of [0, 1] x [0, 2] in scikit-fem's numbering (y fastest)."""
    mesh = tensor_mesh(np.linspace(0, 1, MX), np.linspace(0, 2, MY))
    A, b, D = assemble(mesh, lambda p: 1.0 + 0 * p[0], lambda p: 1.0 + 0 * p[0])
    return eliminated(A, b, D, np.zeros(A.shape[0]))


def x_fastest_permutation():
    """perm[p] = y-fastest number of the node that is p = j*MX + i x-fastest."""
    i, j = np.meshgrid(np.arange(MX), np.arange(MY))
    return (i * MY + j).ravel()


def nine_bands(A):
    """The nine bands of an x-fastest matrix: band 3 (dy + 1) + (dx + 1) of row p at [k, p]."""
    coo = A.tocoo()
    dx, dy = coo.col % MX - coo.row % MX, coo.col // MX - coo.row // MX
    bands = np.zeros((9, MX * MY))
    np.add.at(bands, (3 * (dy + 1) + (dx + 1), coo.row), coo.data)
    return bands


class NodeOrder(unittest.TestCase):
    def setUp(self):
        self.A, self.b = poisson_y_fastest()
        perm = x_fastest_permutation()
        self.A_x, self.b_x = self.A[perm][:, perm], self.b[perm]
        self.perm = perm

    def test_auto_names_the_order_it_found(self):
        self.assertEqual(adimg.Solver(self.A, (MX, MY), backend="cpu").order, "y-fastest")
        self.assertEqual(adimg.Solver(self.A_x, (MX, MY), backend="cpu").order, "x-fastest")

    def test_both_orders_give_the_same_solution(self):
        x_y, _ = adimg.Solver(self.A, (MX, MY), order="y-fastest", backend="cpu", digits=10).solve(self.b)
        x_x, _ = adimg.Solver(self.A_x, (MX, MY), order="x-fastest", backend="cpu", digits=10).solve(self.b_x)
        np.testing.assert_allclose(x_y[self.perm], x_x, rtol=0, atol=1e-10 * np.abs(x_x).max())

    def test_wrong_order_says_how_to_renumber(self):
        with self.assertRaises(adimg.InputError) as caught:
            adimg.Solver(self.A, (MX, MY), order="x-fastest", backend="cpu")
        message = str(caught.exception)
        self.assertIn("not a neighbour", message)
        self.assertIn("x-fastest: node (i, j) is row p = j*mx + i", message)
        self.assertIn("fits y-fastest numbering (p = i*my + j", message)

    def test_a_matrix_of_neither_order_is_refused(self):
        scrambled = np.random.default_rng(1).permutation(MX * MY)
        with self.assertRaisesRegex(adimg.InputError, "not nine-band .* in either node order"):
            adimg.Solver(self.A[scrambled][:, scrambled], (MX, MY), backend="cpu")

    def test_nine_band_arrays(self):
        bands = nine_bands(sp.csr_matrix(self.A_x))
        x_bands, _ = adimg.Solver(bands.reshape(9, MY, MX), (MX, MY), backend="cpu", digits=10).solve(self.b_x)
        x_sparse, _ = adimg.Solver(self.A_x, (MX, MY), backend="cpu", digits=10).solve(self.b_x)
        np.testing.assert_array_equal(x_bands, x_sparse)
        with self.assertRaisesRegex(adimg.InputError, "9 x 2145"):
            adimg.Solver(bands[:8], (MX, MY), backend="cpu")


class OptionsReportsErrors(unittest.TestCase):
    def setUp(self):
        self.A, self.b = poisson_y_fastest()

    def test_options_come_from_the_library_table(self):
        names = [option["name"] for option in adimg.option_table()]
        self.assertIn("smoother", names)
        self.assertIn("smoother", adimg.Solver.__doc__)
        solver = adimg.Solver(self.A, (MX, MY), backend="cpu", smoother="jacobi", pre_smooth=2,
                              inner="cycles:1", fallback_to_double=False)
        self.assertEqual(solver.options["smoother"], "jacobi")
        self.assertEqual(solver.options["pre_smooth"], "2")
        self.assertEqual(solver.options["fallback_to_double"], "false")

    def test_absolute_stop(self):
        _, report = adimg.Solver(self.A, (MX, MY), backend="cpu", stop="absolute",
                                 absolute_defect=1e-11).solve(self.b)
        self.assertEqual(report.stop_rule, "absolute")
        self.assertEqual(report.target_defect, 1e-11)
        self.assertLessEqual(report.final_defect, 1e-11)

    def test_bad_options_name_the_option_and_what_it_allows(self):
        with self.assertRaisesRegex(adimg.InputError, "unknown option 'smooth'; did you mean 'smoother'\\?"):
            adimg.Solver(self.A, (MX, MY), smooth="adi")
        with self.assertRaisesRegex(ValueError, "smoother .*one of jacobi, gauss-seidel, adi"):
            adimg.Solver(self.A, (MX, MY), smoother="sor")
        with self.assertRaisesRegex(ValueError, "pre_smooth = -1 is outside"):
            adimg.Solver(self.A, (MX, MY), pre_smooth=-1)

    def test_bad_matrices_and_vectors_are_named(self):
        with self.assertRaisesRegex(adimg.InputError, "the matrix is 2145x2145, but the grid has 1089 nodes"):
            adimg.Solver(self.A, (MX, 33))
        solver = adimg.Solver(self.A, (MX, MY), backend="cpu")
        with self.assertRaisesRegex(adimg.InputError, "b has 3 entries, but the matrix has 2145 rows"):
            solver.solve(np.ones(3))
        unsymmetric = self.A.tolil()
        unsymmetric[MY + 1, MY + 2] *= 2
        with self.assertRaisesRegex(adimg.InputError, "not symmetric"):
            adimg.Solver(unsymmetric.tocsr(), (MX, MY), backend="cpu")

    def test_report_attributes(self):
        x, report = adimg.Solver(self.A, (MX, MY), backend="cpu").solve(self.b, x0=np.zeros(MX * MY))
        self.assertEqual(report.status, "converged")
        self.assertEqual(report.iterations, f"{report.outer_iterations}:{report.inner_cycles}")
        self.assertEqual(len(report.defects), report.outer_iterations + 1)
        self.assertEqual(report.stop_rule, "relative")
        self.assertAlmostEqual(report.target_defect / report.initial_defect, 1e-8, delta=1e-22)
        self.assertLessEqual(report.final_defect, report.target_defect)
        self.assertGreater(report.solve_seconds, 0.0)
        self.assertIn("status='converged'", repr(report))
        self.assertLess(np.linalg.norm(self.A @ x - self.b), 1e-7 * np.linalg.norm(self.b))

    def test_a_failed_solve_raises_with_its_report(self):
        # Coarsened to 3 x 5: one step of the cycle cannot gain 12 digits (on the grid's own
        # coarsest level alone it would be the exact solve).
        solver = adimg.Solver(self.A, (MX, MY), backend="cpu", max_iterations=1, digits=12, coarse_level=1)
        with self.assertRaises(adimg.SolveError) as caught:
            solver.solve(self.b)
        self.assertEqual(caught.exception.report.status, "max-iterations")
        self.assertEqual(caught.exception.x.shape, (MX * MY,))
        self.assertNotIn("SolverOptions::", str(caught.exception))


class WarmStarts(unittest.TestCase):
    """A second solve from the first's answer (time stepping, Newton) comes back at once with x
    as given; from a guess good to 5 digits it converges; never worse than the guess."""

    @classmethod
    def setUpClass(cls):
        # 257 x 257 nodes graded towards x = 1 and y = 0 (element aspect ratios up to 1e4).
        t = np.linspace(0.0, 1.0, 257)
        cls.coordinates = (1.0 - (1.0 - t) ** 3, t**3)
        mesh = tensor_mesh(*cls.coordinates)
        A, b, D = assemble(mesh, lambda p: 1.0 + 0 * p[0], lambda p: 1.0 + 0 * p[0])
        cls.A, cls.b = eliminated(A, b, D, np.zeros(A.shape[0]))

    def test_guesses(self):
        for precision in ("mixed", "double"):
            for outer in ("cg", "refinement"):
                solver = adimg.Solver(self.A, coordinates=self.coordinates, order="y-fastest", backend="cpu",
                                      precision=precision, outer=outer)
                x, _ = solver.solve(self.b)
                noise = np.random.default_rng(5).uniform(-1.0, 1.0, x.shape)
                for name, guess in (("converged", x), ("5 digits", x * (1.0 + 1e-5 * noise))):
                    with self.subTest(precision=precision, outer=outer, guess=name):
                        before = np.linalg.norm(self.b - self.A @ guess)
                        y, report = solver.solve(self.b, x0=guess.copy())
                        after = np.linalg.norm(self.b - self.A @ y)
                        self.assertEqual(report.status, "converged")
                        self.assertLessEqual(after, 1.000001 * before)
                        self.assertLessEqual(after, 1.0001e-8 * np.linalg.norm(self.b))
                        self.assertAlmostEqual(report.final_defect / after, 1.0, delta=1e-4)
                        if name == "converged":
                            self.assertEqual(report.outer_iterations, 0)
                            self.assertTrue(np.array_equal(y, guess))


if __name__ == "__main__":
    unittest.main()

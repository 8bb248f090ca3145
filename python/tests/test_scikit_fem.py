"""adimg against scipy's direct solve on Q1 problems assembled by scikit-fem: Poisson on a uniform
mesh, a jumping coefficient with non-zero boundary values, a graded rectilinear mesh and a
deformed (curvilinear) one. Each must agree with spsolve to 1e-8 relative."""

import unittest

import numpy as np
import scipy.sparse.linalg as spl
from fem_problems import assemble, eliminated, reference, tensor_mesh

import adimg

TOLERANCE = 1e-8
OPTIONS = dict(backend="cpu", digits=10)


def relative_difference(x, reference_x):
    return np.linalg.norm(x - reference_x) / np.linalg.norm(reference_x)


def sine_source(x):
    return 2 * np.pi**2 * np.sin(np.pi * x[0]) * np.sin(np.pi * x[1])


class ScikitFemProblems(unittest.TestCase):
    def check(self, mesh, coefficient, source, boundary, **grid):
        """Solves the problem with adimg in scikit-fem's node order and compares with spsolve."""
        A, b, D = assemble(mesh, coefficient, source)
        g = boundary(mesh.p)
        A_full, b_full = eliminated(A, b, D, g)
        solver = adimg.Solver(A_full, **grid, **OPTIONS)
        x, report = solver.solve(b_full)
        difference = relative_difference(x, reference(A, b, D, g))
        self.assertTrue(report.ok, report)
        self.assertEqual(solver.order, "y-fastest", "scikit-fem numbers the nodes of init_tensor y-fastest")
        self.assertLess(difference, TOLERANCE, f"adimg against spsolve: {difference:.2e} ({report})")
        return solver, report

    def test_poisson_on_a_uniform_mesh(self):
        x, y = np.linspace(0, 1, 129), np.linspace(0, 0.5, 65)
        self.check(tensor_mesh(x, y), lambda p: 1.0 + 0 * p[0], sine_source, lambda p: 0 * p[0], nodes=(129, 65))

    def test_jumping_coefficient_with_boundary_values(self):
        # k = 1 left of x = 0.5 and 1000 right of it (along a mesh line); u = 1 + x + 2y on the edge.
        x, y = np.linspace(0, 1, 65), np.linspace(0, 1, 129)
        self.check(tensor_mesh(x, y), lambda p: np.where(p[0] < 0.5, 1.0, 1000.0), lambda p: 1.0 + 0 * p[0],
                   lambda p: 1.0 + p[0] + 2.0 * p[1], nodes=(65, 129))

    def test_graded_rectilinear_mesh(self):
        # Layers at x = 1 and y = 0 (the coordinates graded quadratically); the exact Q1 prolongation.
        s, t = np.linspace(0, 1, 129), np.linspace(0, 1, 65)
        x, y = 1 - (1 - s) ** 2, t**2
        solver, report = self.check(tensor_mesh(x, y), lambda p: 1.0 + p[0] * p[1], sine_source,
                                    lambda p: 0 * p[0], coordinates=(x, y), order="y-fastest")
        self.assertEqual(solver.nodes, (129, 65))

    def test_deformed_mesh(self):
        # Nodes moved by a smooth map that keeps the boundary in place: a curvilinear mesh, solved
        # with the bilinear (index-space) prolongation.
        def deform(p):
            bump = np.sin(np.pi * p[0]) * np.sin(np.pi * p[1])
            return np.vstack([p[0] + 0.06 * bump * np.cos(3 * p[1]), p[1] + 0.06 * bump * np.sin(2 * p[0])])

        x, y = np.linspace(0, 1, 97), np.linspace(0, 1, 193)
        self.check(tensor_mesh(x, y, deform), lambda p: 2.0 + np.sin(3 * p[0] + p[1]), sine_source,
                   lambda p: 0 * p[0], nodes=(97, 193))

    def test_one_cycle_as_the_preconditioner_of_scipys_cg(self):
        # The jumping coefficient of above on a graded mesh: scipy's plain CG with one double
        # V-cycle as M needs about as many iterations as adimg's own solve needs cycles (measured:
        # 8 against 7; CG without M needs 22488).
        s, t = np.linspace(0, 1, 129), np.linspace(0, 1, 65)
        x, y = s**2, 1 - (1 - t) ** 2
        mesh = tensor_mesh(x, y)
        A, b, D = assemble(mesh, lambda p: np.where(p[0] < 0.5, 1.0, 1000.0), sine_source)
        g = np.zeros(A.shape[0])
        A_full, b_full = eliminated(A, b, D, g)
        solver = adimg.Solver(A_full, coordinates=(x, y), order="y-fastest", backend="cpu", precision="double",
                              digits=10)
        _, report = solver.solve(b_full)
        iterations = []
        u, info = spl.cg(A_full, b_full, M=solver.aslinearoperator(), rtol=1e-10,
                         callback=lambda _: iterations.append(1))
        self.assertEqual(info, 0, "scipy's CG with adimg's cycle did not converge")
        self.assertLessEqual(len(iterations), 2 * report.inner_cycles)
        self.assertLess(relative_difference(u, reference(A, b, D, g)), TOLERANCE)

        # M is symmetric: v'Mu = u'Mv to rounding.
        rng = np.random.default_rng(7)
        u_, v_ = rng.standard_normal(A.shape[0]), rng.standard_normal(A.shape[0])
        vMu, uMv = v_ @ solver.precondition(u_), u_ @ solver.precondition(v_)
        self.assertLess(abs(vMu - uMv) / abs(vMu), 1e-12)

    def test_enforced_rows_made_symmetric_for_scipy_cg(self):
        # scikit-fem's enforce() replaces the Dirichlet rows and keeps their columns: not symmetric,
        # and plain CG on it stalls. symmetric_dirichlet() gives the symmetric system (the known
        # values eliminated), which SciPy's CG solves with adimg's V-cycle as M to spsolve's
        # solution; and the system of two right-hand sides at once.
        from skfem import enforce

        x, y = np.linspace(0, 1, 65), np.linspace(0, 0.5, 33)
        mesh = tensor_mesh(x, y)
        A, b, D = assemble(mesh, lambda p: 1.0 + p[0], sine_source)
        g = 1.0 + mesh.p[0] + 2.0 * mesh.p[1]
        A_enforced, b_enforced = enforce(A, b, x=g, D=D)
        self.assertGreater(abs(A_enforced - A_enforced.T).max(), 0.1)
        A_sym, b_sym = adimg.symmetric_dirichlet(A_enforced, b_enforced)
        self.assertEqual(abs(A_sym - A_sym.T).max(), 0.0)
        solver = adimg.Solver(A_sym, nodes=(65, 33), backend="cpu", precision="double", digits=10)
        u, info = spl.cg(A_sym, b_sym, M=solver.aslinearoperator(), rtol=1e-10, maxiter=100)
        self.assertEqual(info, 0, "scipy's CG with adimg's cycle did not converge on the symmetric form")
        self.assertLess(relative_difference(u, reference(A, b, D, g)), TOLERANCE)
        _, both = adimg.symmetric_dirichlet(A_enforced, np.stack([b_enforced, 2 * b_enforced], axis=1))
        np.testing.assert_allclose(both[:, 1], 2 * b_sym, rtol=1e-14, atol=1e-14)
        # A symmetric matrix comes back as it is; a matrix that is not square is an InputError.
        A_same, b_same = adimg.symmetric_dirichlet(A_sym, b_sym)
        self.assertEqual(abs(A_same - A_sym).max(), 0.0)
        with self.assertRaises(adimg.InputError):
            adimg.symmetric_dirichlet(A_sym[:-1], b_sym[:-1])


if __name__ == "__main__":
    unittest.main()

"""adimg on scikit-fem problems with natural boundaries (issue 27), against scipy's spsolve: a
Robin problem on a deformed mesh (A plus a boundary mass matrix, no Dirichlet row), a mixed
problem whose Dirichlet edge scikit-fem enforces on the rows alone (enforce(): identity rows, the
columns kept), and a pure Neumann problem (singular: compared after removing the mean). Each must
agree with spsolve to 1e-8 relative."""

import unittest

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spl
from fem_problems import assemble, tensor_mesh
from skfem import BilinearForm, ElementQuad1, FacetBasis, LinearForm, enforce

import adimg

TOLERANCE = 1e-8
OPTIONS = dict(backend="cpu", digits=10)
ALPHA = 2.0


def relative_difference(x, reference_x):
    return np.linalg.norm(x - reference_x) / np.linalg.norm(reference_x)


def boundary_terms(mesh, robin, flux):
    """The boundary mass matrix alpha u v (if `robin`) and the load of the flux g on every edge of
    the mesh: the terms of k du/dn + alpha u = g (Robin) or k du/dn = g (Neumann)."""

    @BilinearForm
    def mass(u, v, w):
        return ALPHA * u * v

    @LinearForm
    def data(v, w):
        return flux(w.x) * v

    facets = FacetBasis(mesh, ElementQuad1())
    n = mesh.p.shape[1]
    M = mass.assemble(facets) if robin else sp.csr_matrix((n, n))
    return M, data.assemble(facets)


def deformed(p):
    bump = np.sin(np.pi * p[0]) * np.sin(np.pi * p[1])
    return np.vstack([p[0] + 0.05 * bump + 0.03 * np.sin(2 * p[1]), p[1] + 0.05 * bump * np.cos(p[0])])


def coefficient(p):
    return 1.0 + 0.9 * np.sin(3 * p[0] + 1) * np.cos(2 * p[1])


def source(p):
    return 1.0 + np.cos(2 * p[0]) * p[1]


def flux(p):
    return 0.5 * np.cos(3 * p[0] + p[1])


class NaturalBoundaries(unittest.TestCase):
    def solve(self, A, b, nodes, **extra):
        solver = adimg.Solver(sp.csr_matrix(A), nodes=nodes, **OPTIONS, **extra)
        x, report = solver.solve(b)
        self.assertTrue(report.ok, report)
        return x, report

    def test_robin_on_a_deformed_mesh(self):
        mesh = tensor_mesh(np.linspace(0, 1, 129), np.linspace(0, 1, 65), deformed)
        A, b, _ = assemble(mesh, coefficient, source)
        M, g = boundary_terms(mesh, True, flux)
        x, report = self.solve(A + M, b + g, (129, 65))
        difference = relative_difference(x, spl.spsolve((A + M).tocsc(), b + g))
        self.assertLess(difference, TOLERANCE, f"adimg against spsolve: {difference:.2e} ({report})")

    def test_mixed_with_dirichlet_rows_enforced_by_scikit_fem(self):
        # u = 1 + x + 2y on the west edge by skfem.enforce (rows only), Neumann elsewhere.
        s, t = np.linspace(0, 1, 65), np.linspace(0, 1, 129)
        mesh = tensor_mesh(1 - (1 - s) ** 2, t**2)
        A, b, _ = assemble(mesh, coefficient, source)
        _, g = boundary_terms(mesh, False, flux)
        D = np.flatnonzero(np.isclose(mesh.p[0], 0.0))
        values = 1.0 + mesh.p[0] + 2.0 * mesh.p[1]
        A_enforced, b_enforced = enforce(A, b + g, D=D, x=values)
        x, report = self.solve(A_enforced, b_enforced, (65, 129), coordinates=(1 - (1 - s) ** 2, t**2))
        expected = spl.spsolve(A_enforced.tocsc(), b_enforced)
        difference = relative_difference(x, expected)
        self.assertLess(difference, TOLERANCE, f"adimg against spsolve: {difference:.2e} ({report})")
        self.assertTrue(np.allclose(x[D], values[D], rtol=1e-12))

    def test_pure_neumann(self):
        mesh = tensor_mesh(np.linspace(0, 1, 97), np.linspace(0, 1, 97), deformed)
        A, b, _ = assemble(mesh, coefficient, source)
        _, g = boundary_terms(mesh, False, flux)
        rhs = b + g
        x, report = self.solve(A, rhs, (97, 97))
        self.assertIn("pure Neumann", report.message)  # b was not compatible: its mean was removed
        # spsolve of the compatible system with node 0 pinned, then the mean removed.
        compatible = rhs - rhs.mean()
        pinned = sp.lil_matrix(A)
        pinned[0, :] = 0.0
        pinned[:, 0] = 0.0
        pinned[0, 0] = 1.0
        compatible[0] = 0.0
        expected = spl.spsolve(pinned.tocsc(), compatible)
        expected -= expected.mean()
        self.assertLess(abs(x.mean()), 1e-12 * np.linalg.norm(x))
        difference = relative_difference(x, expected)
        self.assertLess(difference, TOLERANCE, f"adimg against spsolve: {difference:.2e} ({report})")


if __name__ == "__main__":
    unittest.main()

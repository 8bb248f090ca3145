"""Q1 problems assembled with scikit-fem on tensor-product meshes, in the form adimg takes, and
their reference solutions by scipy's sparse direct solve."""

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spl
from skfem import Basis, BilinearForm, ElementQuad1, LinearForm, MeshQuad, condense
from skfem.helpers import dot, grad


def assemble(mesh, coefficient, source):
    """Stiffness matrix, load vector and boundary nodes of -div(k grad u) = f with k =
    coefficient(x) and f = source(x) at the quadrature points, nodes numbered as scikit-fem
    numbers them (MeshQuad.init_tensor: y fastest)."""

    @BilinearForm
    def diffusion(u, v, w):
        return coefficient(w.x) * dot(grad(u), grad(v))

    @LinearForm
    def load(v, w):
        return source(w.x) * v

    basis = Basis(mesh, ElementQuad1())
    return diffusion.assemble(basis), load.assemble(basis), basis.get_dofs().all()


def eliminated(A, b, D, g):
    """The Dirichlet problem u = g on the nodes D in adimg's form: the boundary values eliminated
    from the interior equations (what scikit-fem's condense() gives, b_I - A_ID g_D), kept on the
    full grid with identity rows for the nodes of D. Symmetric, unlike scikit-fem's enforce(),
    which replaces the rows only."""
    interior = np.ones(A.shape[0])
    interior[D] = 0.0
    keep = sp.diags(interior)
    g_on_D = np.where(interior == 0.0, g, 0.0)
    A_full = (keep @ A @ keep + sp.diags(1.0 - interior)).tocsr()
    b_full = interior * (b - A @ g_on_D) + g_on_D
    return A_full, b_full


def reference(A, b, D, g):
    """The solution on every node by scipy's spsolve of scikit-fem's condensed system."""
    A_II, b_I, x, I = condense(A, b, x=g.copy(), D=D)
    x[I] = spl.spsolve(A_II.tocsc(), b_I)
    return x


def tensor_mesh(x, y, deform=None):
    """MeshQuad.init_tensor(x, y), its nodes moved by deform(p) if given (a curvilinear mesh)."""
    mesh = MeshQuad.init_tensor(x, y)
    return mesh if deform is None else MeshQuad(deform(mesh.p.copy()), mesh.t)

"""Dirichlet rows made symmetric, for a Krylov method of your own.

scikit-fem's enforce() (and other codes' "row replacement") imposes u = g by replacing a node's
row with the identity row and its entry of b with g, keeping the node's column in the other rows:
the matrix is no longer symmetric, and plain CG on it (scipy.sparse.linalg.cg, with or without
adimg's V-cycle as M) stalls. adimg.Solver.solve takes such a matrix itself (it lifts b at every
solve); for your own CG, symmetric_dirichlet() gives the same system in symmetric form: the known
values eliminated from the other rows, as scikit-fem's condense() does, on the full grid.
"""

import numpy as np

from ._adimg import InputError


def symmetric_dirichlet(A, b):
    """(A_sym, b_sym): the system A x = b with its Dirichlet rows' columns eliminated.

    A Dirichlet row is a row whose only non-zero is its diagonal d (enforce() writes 1) while other
    rows couple to its node; its value is x_D = b_D / d. Then, with P the 0/1 diagonal of the other
    nodes,

        A_sym = P A P + (I - P) diag(A),   b_sym = P (b - A x_D) + (I - P) b,

    symmetric wherever A is symmetric on the other nodes, with the same solution as A x = b. A
    without such rows comes back as it is (in CSR). b may be a vector or an (n, k) array.

    Raises adimg.InputError if A is not square, b does not match it, or a Dirichlet row's
    diagonal is zero.
    """
    import scipy.sparse as sp

    A = sp.csr_matrix(A, dtype=float, copy=True)
    b = np.asarray(b, dtype=float)
    n = A.shape[0]
    if A.shape[1] != n:
        raise InputError(f"symmetric_dirichlet: A is {A.shape[0]} x {A.shape[1]}; give a square matrix")
    if b.shape[0] != n:
        raise InputError(f"symmetric_dirichlet: b has {b.shape[0]} rows and A {n}; give one entry of b per row")
    A.eliminate_zeros()  # stored zeros are no couplings
    diagonal = A.diagonal()
    only_diagonal = np.diff(A.indptr) == (diagonal != 0)  # the diagonal alone, or nothing
    coupled = np.asarray(abs(A - sp.diags(diagonal)).sum(axis=0)).ravel() > 0  # other rows reach the node
    dirichlet = only_diagonal & coupled
    if not dirichlet.any():
        return A, b
    if np.any(diagonal[dirichlet] == 0):
        row = int(np.flatnonzero(dirichlet & (diagonal == 0))[0])
        raise InputError(f"symmetric_dirichlet: row {row} is empty but other rows couple to its node; give it "
                         "its Dirichlet row (a non-zero diagonal)")
    column = (-1,) + (1,) * (b.ndim - 1)  # b's rows, for a vector or several columns
    known = np.zeros_like(b)
    known[dirichlet] = b[dirichlet] / diagonal[dirichlet].reshape(column)
    free = (~dirichlet).astype(float)
    keep = sp.diags(free)
    A_sym = (keep @ A @ keep + sp.diags((1.0 - free) * diagonal)).tocsr()
    b_sym = np.where(dirichlet.reshape(column), b, b - A @ known)
    return A_sym, b_sym

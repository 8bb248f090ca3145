"""The Solver class: a matrix on a grid in, solutions out (the C++ adimg::Solver underneath)."""

import numbers
import os

import numpy as np

from . import _adimg, device_arrays
from ._adimg import InputError

ORDERS = ("auto", "x-fastest", "y-fastest")
INT32_MAX = 2**31 - 1  # the largest index of the compressed columns the module hands the library


class SolveError(RuntimeError):
    """A solve that did not converge. `report` says how it ended and `x` holds the last iterate."""

    def __init__(self, report, x):
        super().__init__(f"adimg: the solve {report.status}: {report.message or repr(report)}")
        self.report = report
        self.x = x


class Solver:
    """Geometric multigrid for a nine-band matrix on an mx x my tensor-product grid.

    Solver(A, nodes=None, *, widths=None, coordinates=None, order="auto",
           symmetry_tolerance=1e-10, **options)

    A       a real scipy.sparse matrix of mx*my rows (any format), or the nine bands as a numpy array
            of shape (9, mx*my) or (9, my, mx): band k = 3 (dy + 1) + (dx + 1) (SW S SE W C E NW N
            NE) of row p = j*mx + i couples node (i, j) with (i + dx, j + dy).
    nodes   (mx, my): nodes in x and in y, or m for m x m: any sizes of at least 3 (each coarsens
            to m/2 + 1; a condensed interior, its Dirichlet boundary eliminated, as the full grid's).
    widths  (hx, hy): the element widths of a rectilinear mesh, or
    coordinates (x, y): its node coordinates; either gives the grid (nodes is then optional) and
            the exact Q1 prolongation. Without them the prolongation is bilinear in index space,
            the choice for deformed (curvilinear) meshes.
    order   the numbering of the nodes in a sparse A and in b and x: "x-fastest" (node (i, j) is
            p = j*mx + i, adimg's own), "y-fastest" (p = i*my + j, as scikit-fem's
            MeshQuad.init_tensor numbers them) or "auto": whichever the sparsity pattern fits;
            `solver.order` says which was found. On a square grid both fit and "auto" takes
            x-fastest; the solution is the same either way, but with widths or coordinates pass
            the order, so that the prolongation uses the right widths in each direction. Band
            arrays are always x-fastest.
    symmetry_tolerance  the largest accepted |a_pq - a_qp| / max(|a_pq|, |a_qp|), a number >= 0.

    Data on the GPU: the bands may be a CuPy array, a PyTorch CUDA tensor or a JAX array on the
    GPU (float64, contiguous), checked there; solve() and precondition() take such arrays and
    return the same kind on the same device without a copy through the host (backend "cuda").

    The matrix must be symmetric, positive definite or pure Neumann (singular with the constant
    null vector: solve() then returns the solution of zero mean). Each edge is a Dirichlet edge
    (its rows hold only their diagonal; interior rows may still couple into them, as scikit-fem's
    enforce() leaves them, and b is lifted at each solve) or a natural edge (Neumann, Robin: its
    nodes are unknowns), read from the matrix. Bad input raises InputError (a ValueError) naming
    the first offending row and what to do.

    Options are keyword arguments, named and checked by the library's option table
    (adimg.option_table()):
"""

    def __init__(self, A, nodes=None, *, widths=None, coordinates=None, order="auto", symmetry_tolerance=1e-10,
                 **options):
        if order not in ORDERS:
            raise InputError(f"order={order!r}: use one of {', '.join(map(repr, ORDERS))}")
        if not (isinstance(symmetry_tolerance, numbers.Real) and symmetry_tolerance >= 0):
            raise InputError(f"symmetry_tolerance={symmetry_tolerance!r}: give a number >= 0, the largest accepted "
                             f"|a_pq - a_qp| / max(|a_pq|, |a_qp|) (0 asks for exact symmetry)")
        grid_args = _grid_arguments(nodes, widths, coordinates)
        mx, my = grid_args[1]
        _grid(*grid_args, "x-fastest")  # the library's check of the grid, before any copy of the matrix
        self.nodes = (mx, my)
        if device_arrays.on_gpu(A):
            if order == "y-fastest":
                raise InputError("order='y-fastest': band arrays are in adimg's numbering (x-fastest, p = j*mx + i)")
            self.order = "x-fastest"
            bands = A.reshape(9, -1) if len(A.shape) == 3 and tuple(A.shape) == (9, my, mx) else A
            self._solver = _adimg.Solver(**options)  # the device, before the matrix is checked on it
            matrix = _adimg.device_matrix_from_bands(_grid(*grid_args, self.order), bands, symmetry_tolerance,
                                                     device_arrays.stream_of(A))
            _adimg.setup_device(self._solver, matrix)
            return
        _refuse_complex(A, "A", "a complex matrix needs a complex solver; if its imaginary part is zero, pass A.real")
        if _is_sparse(A):
            columns = _compressed_columns(A, mx * my)
            self.order = _resolve_order(order, mx, my, columns)
            matrix = _adimg.matrix_from_csc(_grid(*grid_args, self.order), *columns, symmetry_tolerance)
        else:
            if order == "y-fastest":
                raise InputError("order='y-fastest': band arrays are in adimg's numbering (x-fastest, "
                                 "p = j*mx + i); give a sparse matrix to use another numbering")
            self.order = "x-fastest"
            _check_memory(mx * my, 72 * mx * my)  # the bands as one float64 array
            bands = np.ascontiguousarray(A, dtype=np.float64)
            if bands.shape not in ((9, mx * my), (9, my, mx)):
                raise InputError(f"bands: the array is {' x '.join(map(str, bands.shape))}, but nine bands of a "
                                 f"{mx}x{my} grid are 9 x {mx * my} or 9 x {my} x {mx} (band, j, i); give a full "
                                 f"matrix as scipy.sparse.csr_matrix(A)")
            bands = bands.reshape(9, -1)
            matrix = _adimg.matrix_from_bands(_grid(*grid_args, self.order), bands, symmetry_tolerance)
        self._solver = _adimg.Solver(**options)
        self._solver.setup(matrix)

    def solve(self, b, x0=None):
        """(x, report): the solution of A x = b, from x0 (zero if None), in the matrix's node order.

        b and x0 are vectors of shape (n,) or columns of shape (n, 1), as scipy.io.mmread returns them;
        x has the shape of b. Several right-hand sides at once: b of shape (k, n), or a list of k
        vectors; then x is (k, n) and the reports a list, the levels set up once for all. On the GPU
        (CuPy, PyTorch CUDA, JAX arrays; backend "cuda") b and x0 stay there and x is an array of the
        same library on the same device. Raises SolveError (with .report and .x) if a solve does not
        converge."""
        if device_arrays.on_gpu(b) or (isinstance(b, (list, tuple)) and b and device_arrays.on_gpu(b[0])):
            b, shape = device_arrays.flat(b, "b")
            if x0 is not None:
                x0, _ = device_arrays.flat(x0, "x0")
            x, reports = _adimg.solve_device(self._solver, b, x0, device_arrays.stream_of(b))
            x = device_arrays.like(x, b).reshape(shape)
        else:
            rows = self._solver.rows
            b, shape = _vectors(b, "b", rows)
            if x0 is not None:
                x0, x0_shape = _vectors(x0, "x0", rows)
                if x0.shape != b.shape:
                    raise InputError(f"x0 has shape {x0_shape}, but b has shape {shape}: give one guess per right-hand side")
            x = np.empty_like(b)
            reports = []
            for k in range(b.shape[0]):
                x[k], report = self._solver.solve(b[k], None if x0 is None else x0[k])
                reports.append(report)
            x = x.reshape(shape)
        for report in reports:
            if not report.ok:
                raise SolveError(report, x)
        return x, (reports if len(shape) == 2 and shape[1] != 1 else reports[0])

    def precondition(self, r):
        """z = M r: one V-cycle from zero on r (adimg::Solver::precondition), for a Krylov method of
        your own. With pre_smooth == post_smooth, the direct coarse solve (the defaults) and
        precision="double", M is symmetric positive definite to rounding, so plain CG may use it;
        a float cycle (precision="mixed") is symmetric to float rounding only. z has the shape of r,
        (n,) or (n, 1)."""
        if device_arrays.on_gpu(r):
            r, shape = device_arrays.flat(r, "r")
            z = _adimg.precondition_device(self._solver, r, device_arrays.stream_of(r))
            return device_arrays.like(z, r).reshape(shape)
        r, shape = _vectors(r, "r", self._solver.rows, several=False)
        return self._solver.precondition(r[0]).reshape(shape)

    def aslinearoperator(self):
        """M as a scipy.sparse.linalg.LinearOperator, e.g. scipy.sparse.linalg.cg(A, b, M=...)."""
        from scipy.sparse.linalg import LinearOperator

        n = self._solver.rows
        return LinearOperator((n, n), matvec=self.precondition, dtype=np.float64)

    def ascupyoperator(self):
        """M as a cupyx.scipy.sparse.linalg.LinearOperator on CuPy arrays, which stay on the GPU,
        e.g. cupyx.scipy.sparse.linalg.cg(A, b, M=...). Needs CuPy and the backend "cuda"."""
        import cupy
        from cupyx.scipy.sparse.linalg import LinearOperator

        n = self._solver.rows
        return LinearOperator((n, n), matvec=self.precondition, dtype=cupy.float64)

    def _of_the_solver(name, doc):
        """A read-only attribute of the C++ solver."""
        return property(lambda self: getattr(self._solver, name), doc=doc)

    backend = _of_the_solver("backend", "'cpu' or 'cuda': where the solves run.")
    notice = _of_the_solver("notice", "Why backend='auto' chose the CPU, or empty.")
    levels = _of_the_solver("levels", "(level, mx, my) of each multigrid level, coarsest first.")
    setup_seconds = _of_the_solver("setup_seconds", "Seconds the setup took (the Galerkin levels, the backend's copy).")
    options = _of_the_solver("options", "Every option's value as text, by name.")
    del _of_the_solver

    def __repr__(self):
        mx, my = self.nodes
        return (f"adimg.Solver({mx}x{my} nodes, order='{self.order}', backend='{self.backend}', "
                f"{len(self.levels)} levels, smoother='{self.options['smoother']}', "
                f"precision='{self.options['precision']}')")


def _is_sparse(A):
    try:
        import scipy.sparse
    except ImportError:
        return False
    return scipy.sparse.issparse(A)


def _grid_arguments(nodes, widths, coordinates):
    """('nodes' | 'widths' | 'coordinates', (mx, my), the arrays) from the arguments given."""
    if widths is not None and coordinates is not None:
        raise InputError("give widths=(hx, hy) or coordinates=(x, y), not both")
    if widths is not None or coordinates is not None:
        kind, (u, v) = ("widths", widths) if widths is not None else ("coordinates", coordinates)
        u, v = np.asarray(u, dtype=np.float64).ravel(), np.asarray(v, dtype=np.float64).ravel()
        size = (len(u) + 1, len(v) + 1) if kind == "widths" else (len(u), len(v))
        if nodes is not None and _node_counts(nodes) != size:
            raise InputError(f"nodes={nodes!r}, but the {kind} give a {size[0]}x{size[1]} grid")
        return kind, size, (u, v)
    if nodes is None:
        raise InputError("give the grid: nodes=(mx, my), widths=(hx, hy) or coordinates=(x, y)")
    return "nodes", _node_counts(nodes), None


def _node_counts(nodes):
    """(mx, my) from nodes=(mx, my), or from nodes=m for an m x m grid; only whole numbers."""
    def whole(n):
        return isinstance(n, numbers.Integral) and not isinstance(n, bool)

    counts = ((nodes, nodes) if isinstance(nodes, numbers.Number)
              else tuple(nodes) if isinstance(nodes, (tuple, list, np.ndarray)) else ())
    if len(counts) != 2:
        raise InputError(f"nodes={nodes!r}: give (mx, my), the nodes in x and in y (or m for an m x m grid)")
    if not all(whole(n) for n in counts):
        raise InputError(f"nodes={nodes!r}: give whole numbers of nodes, e.g. nodes=(129, 65)")
    return int(counts[0]), int(counts[1])


def _grid(kind, size, arrays, order):
    """The adimg grid for the node order: y-fastest numbering on mx x my nodes is x-fastest
    numbering on the my x mx grid with x and y exchanged, so no vector is ever renumbered."""
    swap = order == "y-fastest"
    if kind == "nodes":
        mx, my = size
        return _adimg.Grid(my, mx) if swap else _adimg.Grid(mx, my)
    u, v = arrays
    if swap:
        u, v = v, u
    return _adimg.Grid.from_widths(u, v) if kind == "widths" else _adimg.Grid.from_coordinates(u, v)


def _compressed_columns(A, n):
    """(indptr, indices, data) of the sparse matrix A in compressed columns, from any scipy.sparse
    format, without its stored zeros (which BSR blocks and DIA diagonals hold outside the nine
    bands); the sizes are checked first, before any conversion."""
    if A.shape != (n, n):
        raise InputError(f"the matrix is {A.shape[0]}x{A.shape[1]}, but the grid has {n} nodes")
    if A.nnz > INT32_MAX:
        raise InputError(f"the matrix stores {A.nnz} entries, more than the 2^31 - 1 that adimg's 32-bit indices "
                         f"hold; remove its stored zeros (A.eliminate_zeros()) or use a smaller grid")
    _check_memory(n, 2 * (12 * A.nnz + 4 * n))  # the compressed columns, and the library's copy of them
    C = A.tocsc()
    if not C.data.all():
        if C is A:  # A was compressed columns already: leave the caller's matrix as it is
            C = C.copy()
        C.eliminate_zeros()
    return (C.indptr.astype(np.int32, copy=False), C.indices.astype(np.int32, copy=False),
            np.ascontiguousarray(C.data, dtype=np.float64))


def _host_memory():
    """Bytes of memory this process may use: the physical memory, or less where a cgroup (a
    container) limits it."""
    memory = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    try:
        with open("/sys/fs/cgroup/memory.max") as limit:
            return min(memory, int(limit.read()))
    except (OSError, ValueError):  # no cgroup v2 limit, or "max"
        return memory


def _check_memory(n, copy_bytes):
    """Refuses a matrix of n rows whose copies (copy_bytes) and checked nine bands (72 bytes a row)
    would not fit in memory, before making any (as the command line refuses a --level)."""
    needed, available = copy_bytes + 72 * n, _host_memory()
    if needed > 0.9 * available:
        raise InputError(f"the matrix has {n} rows: reading it needs about {needed / 2**30:.3g} GiB, but this "
                         f"process may use {available / 2**30:.3g} GiB; use a smaller grid")


def _refuse_complex(values, name, advice):
    """Refuses complex values, whose imaginary parts a conversion to float64 would drop."""
    if np.iscomplexobj(values):
        raise InputError(f"{name} has complex values, but adimg solves real systems and would drop their imaginary "
                         f"parts; {advice}")


def _vectors(v, name, rows, several=True):
    """(v as a contiguous float64 array of shape (k, n), the shape to give a result): v of shape
    (n,), a column (n, 1), dense or sparse, or with `several` (k, n) or a list of k vectors, n the
    matrix's rows."""
    if _is_sparse(v):
        v = v.toarray()
    if several and isinstance(v, (list, tuple)) and v and not isinstance(v[0], numbers.Number):
        v = np.stack([np.asarray(u).reshape(-1) for u in v])
    _refuse_complex(v, name, "A is real, so take the real and imaginary parts apart, e.g. "
                             "x = solve(b.real)[0] + 1j * solve(b.imag)[0]")
    v = np.ascontiguousarray(v, dtype=np.float64)
    if v.ndim == 1 or (v.ndim == 2 and v.shape[1] == 1):
        return v.reshape(1, -1), v.shape
    if v.ndim != 2 or v.shape[1] != rows or not several:
        raise InputError(f"{name} has shape {v.shape}: give a vector of shape (n,) or (n, 1)" +
                         (", or (k, n) for k right-hand sides" if several else "") + f", n = {rows} the matrix's rows")
    return v, v.shape


def _resolve_order(order, mx, my, columns):
    """The node order: the one asked for, or for "auto" the one whose grid the pattern fits."""
    if order != "auto":
        return order
    if _adimg.fits_grid(mx, my, *columns):
        return "x-fastest"
    if _adimg.fits_grid(my, mx, *columns):
        return "y-fastest"
    raise InputError(f"order='auto': the matrix is not nine-band on the {mx}x{my} grid in either node order "
                     f"(x-fastest, p = j*mx + i, or y-fastest, p = i*my + j); check nodes=(mx, my) and that the "
                     f"matrix has one row per grid node")


def _options_help():
    lines = []
    for option in _adimg.option_table():
        lines.append(f"    {option['name']:<22} {option['allowed']}; default {option['default']}: {option['help']}")
    return "\n".join(lines) + "\n"


Solver.__doc__ += _options_help()

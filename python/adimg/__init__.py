"""adimg: mixed-precision geometric multigrid for the nine-band systems of bilinear (Q1) finite
elements on tensor-product 2D grids.

    import adimg
    solver = adimg.Solver(A, nodes=(mx, my), smoother="adi")   # A: scipy.sparse, or nine bands
    x, report = solver.solve(b)                                 # raises SolveError if it fails
    print(report)          # SolveReport(status='converged', iterations='3:6', ...)

See help(adimg.Solver) for the matrix, the node order and the options.
"""

from ._adimg import DeviceError, InputError, OuterStep, SolveReport, __version__, option_table
from .dirichlet import symmetric_dirichlet
from .solver import SolveError, Solver

__all__ = ["Solver", "SolveError", "SolveReport", "OuterStep", "InputError", "DeviceError", "option_table",
           "symmetric_dirichlet", "__version__"]

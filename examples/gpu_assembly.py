"""Assembly and solve on the GPU, nothing through the host: -div(k grad u) = 1 on the unit square with
u = 0 on the boundary, bilinear (Q1) elements on a graded tensor-product mesh and a coefficient k
per element, assembled as nine bands by CuPy array operations and handed to adimg as GPU arrays.

The element matrix on an hx x hy rectangle is exact, K_e = k (hy/hx K1 (x) M1 + hx/hy M1 (x) K1)
(docs/design.md section 1), and the load of f = 1 is hx hy / 4 per corner. Dirichlet rows are
identity rows that no other row couples into. The program checks ||b - A x|| on the GPU (with the
bands it assembled) and solves two more load cases in one call.

    python3 examples/gpu_assembly.py [level (default 10)]

Needs CuPy and adimg built with its CUDA backend (PYTHONPATH=build/python). Exit status 0 if the
defect dropped by 8 digits for every load case, 1 otherwise.
"""

import sys

import cupy as cp

import adimg


def graded_widths(n, ratio):
    """n element widths on [0, 1], growing geometrically by `ratio`."""
    h = ratio ** cp.arange(n, dtype=cp.float64)
    return h / h.sum()


def assemble(hx, hy, k):
    """The nine bands (9, my, mx) of the Q1 stiffness matrix with coefficient k[ey, ex] per element,
    band 3 (dy + 1) + (dx + 1) coupling node (i, j) with (i + dx, j + dy); boundary rows identity."""
    nx, ny = hx.size, hy.size
    bands = cp.zeros((9, ny + 1, nx + 1))
    K1 = cp.array([[1.0, -1.0], [-1.0, 1.0]])
    M1 = cp.array([[1 / 3, 1 / 6], [1 / 6, 1 / 3]])
    ax, ay = hy[:, None] / hx[None, :], hx[None, :] / hy[:, None]  # (ny, nx) per element
    for a in range(2):  # corner (a, c) of an element couples with corner (b, d)
        for c in range(2):
            for b in range(2):
                for d in range(2):
                    entry = k * (ax * K1[a, b] * M1[c, d] + ay * M1[a, b] * K1[c, d])
                    band = 3 * (d - c + 1) + (b - a + 1)
                    bands[band, c:c + ny, a:a + nx] += entry
    interior = cp.zeros((ny + 1, nx + 1))
    interior[1:-1, 1:-1] = 1.0
    for band in range(9):  # Dirichlet rows hold only their diagonal; no row couples into them
        dx, dy = band % 3 - 1, band // 3 - 1
        into = cp.zeros_like(interior)
        into[max(0, -dy):ny + 1 - max(0, dy), max(0, -dx):nx + 1 - max(0, dx)] = \
            interior[max(0, dy):ny + 1 + min(0, dy), max(0, dx):nx + 1 + min(0, dx)]
        bands[band] *= interior * into
    bands[4] += 1.0 - interior
    return bands


def multiply(bands, x):
    """A x with the nine bands, on the GPU."""
    _, my, mx = bands.shape
    u = cp.pad(x.reshape(my, mx), 1)
    return sum(bands[3 * (dy + 1) + dx + 1] * u[1 + dy:1 + dy + my, 1 + dx:1 + dx + mx]
               for dy in (-1, 0, 1) for dx in (-1, 0, 1)).reshape(-1)


def main():
    level = int(sys.argv[1]) if len(sys.argv) > 1 else 10
    n = 2**level
    hx, hy = graded_widths(n, 1.0 + 4.0 / n), graded_widths(n, 1.0 - 2.0 / n)
    centres_x, centres_y = cp.cumsum(hx) - hx / 2, cp.cumsum(hy) - hy / 2
    k = 1.0 + 0.9 * cp.sin(6.0 * centres_x[None, :]) * cp.cos(4.0 * centres_y[:, None])
    bands = assemble(hx, hy, k)
    load = cp.zeros((n + 1, n + 1))
    area = hy[:, None] * hx[None, :] / 4
    for c in range(2):
        for a in range(2):
            load[c:c + n, a:a + n] += area
    load[[0, -1], :] = load[:, [0, -1]] = 0.0
    b = load.reshape(-1)

    solver = adimg.Solver(bands, widths=(cp.asnumpy(hx), cp.asnumpy(hy)), backend="cuda")  # the bands stay on the GPU
    x, report = solver.solve(b)
    print(f"{n + 1} x {n + 1} nodes, assembled and solved on the GPU: {report}")
    ok = report.ok and float(cp.linalg.norm(b - multiply(bands, x))) <= 1e-8 * float(cp.linalg.norm(b))
    # Two more load cases in one call: the levels and buffers are shared.
    more = cp.stack([2.0 * b, b * cp.asarray(cp.random.default_rng(1).random(b.size))])
    xs, reports = solver.solve(more)
    for case, (rhs, solution, r) in enumerate(zip(more, xs, reports)):
        defect = float(cp.linalg.norm(rhs - multiply(bands, solution))) / float(cp.linalg.norm(rhs))
        print(f"load case {case + 2}: {r.iterations} iterations, ||b - A x|| / ||b|| = {defect:.2e}")
        ok = ok and r.ok and defect <= 1e-8
    print("all defects dropped by 8 digits" if ok else "FAILED: a defect did not drop by 8 digits")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

"""Arrays on the GPU (CuPy, PyTorch, JAX): a scikit-fem problem moved to the GPU, solved there to
1e-8 of SciPy's spsolve with b and x never converted to host arrays; several right-hand sides in
one call; preconditioning and CuPy's CG; bands on the GPU; bad device input as InputError. Each
library's tests are skipped without a usable GPU or without that library."""

import importlib.util
import inspect
import unittest
from unittest import mock

import numpy as np
from fem_problems import assemble, eliminated, reference, tensor_mesh
from usable_gpu import NO_GPU

import adimg
from adimg import solver as solver_module

TOLERANCE = 1e-8
OPTIONS = dict(backend="cuda", digits=10)




def _libraries():
    """name -> (to_gpu(numpy array), to_host(GPU array)) for each library installed here."""
    out = {}
    if importlib.util.find_spec("cupy"):
        import cupy

        out["cupy"] = (cupy.asarray, cupy.asnumpy)
    if importlib.util.find_spec("torch"):
        import torch

        if torch.cuda.is_available():
            out["torch"] = (lambda a: torch.as_tensor(a, device="cuda"), lambda t: t.cpu().numpy())
    if importlib.util.find_spec("jax"):
        import jax

        jax.config.update("jax_enable_x64", True)
        if any(d.platform == "gpu" for d in jax.devices()):
            out["jax"] = (lambda a: jax.device_put(a, jax.devices("gpu")[0]), np.asarray)
    return out


LIBRARIES = {} if NO_GPU else _libraries()


def sine_source(x):
    return 2 * np.pi**2 * np.sin(np.pi * x[0]) * np.sin(np.pi * x[1])


def relative_difference(x, reference_x):
    return np.linalg.norm(x - reference_x) / np.linalg.norm(reference_x)


@unittest.skipIf(NO_GPU or not LIBRARIES, NO_GPU or "none of CuPy, PyTorch (CUDA) and JAX (GPU) is installed")
class DeviceArrays(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        # A jumping coefficient with boundary values (test_scikit_fem.py), in scikit-fem's numbering.
        x, y = np.linspace(0, 1, 65), np.linspace(0, 1, 129)
        mesh = tensor_mesh(x, y)
        A, b, D = assemble(mesh, lambda p: np.where(p[0] < 0.5, 1.0, 1000.0), lambda p: 1.0 + 0 * p[0])
        g = 1.0 + mesh.p[0] + 2.0 * mesh.p[1]
        cls.A, cls.b = eliminated(A, b, D, g)
        cls.x = reference(A, b, D, g)
        cls.solver = adimg.Solver(cls.A, nodes=(65, 129), **OPTIONS)

    def each_library(self):
        for name, (to_gpu, to_host) in LIBRARIES.items():
            with self.subTest(name):
                yield name, to_gpu, to_host

    def no_host_path(self):
        """Fails the test if the solve converts b or x to host arrays (the NumPy path)."""
        return mock.patch.object(solver_module, "_vectors", side_effect=AssertionError("b went to the host"))

    def test_round_trip_to_spsolve(self):
        for name, to_gpu, to_host in self.each_library():
            b = to_gpu(self.b)
            with self.no_host_path():
                x, report = self.solver.solve(b)
            self.assertTrue(report.ok, report)
            self.assertIs(type(x), type(b), f"{name}: the solution is an array of the caller's library")
            self.assertEqual(x.__dlpack_device__(), b.__dlpack_device__())
            self.assertEqual(tuple(x.shape), (self.A.shape[0],))
            difference = relative_difference(to_host(x), self.x)
            self.assertLess(difference, TOLERANCE, f"{name} against spsolve: {difference:.2e} ({report})")
            np.testing.assert_array_equal(to_host(b), self.b)  # b stays as given

    def test_several_right_hand_sides_in_one_call(self):
        stacked = np.stack([self.b, 2 * self.b, np.roll(self.b, 7)])
        for name, to_gpu, to_host in self.each_library():
            with self.no_host_path():
                x, reports = self.solver.solve(to_gpu(stacked))
                x_list, _ = self.solver.solve([to_gpu(row) for row in stacked])
            self.assertEqual(len(reports), 3)
            for k in range(3):
                single, _ = self.solver.solve(to_gpu(stacked[k]))
                np.testing.assert_array_equal(to_host(x)[k], to_host(single))
                np.testing.assert_array_equal(to_host(x_list)[k], to_host(single))

    def test_precondition_and_initial_guess(self):
        z_host = self.solver.precondition(self.b)
        for name, to_gpu, to_host in self.each_library():
            with self.no_host_path():
                z = self.solver.precondition(to_gpu(self.b))
                x, report = self.solver.solve(to_gpu(self.b), x0=to_gpu(0.5 * self.x))
            np.testing.assert_allclose(to_host(z), z_host, rtol=1e-12, atol=1e-14 * np.abs(z_host).max())
            self.assertTrue(report.ok, report)
            self.assertLess(relative_difference(to_host(x), self.x), TOLERANCE)

    def test_bands_on_the_gpu(self):
        mx, my = 129, 65  # scikit-fem's y-fastest numbering is x-fastest on the transposed grid
        bands = _bands_of(self.A, mx, my)
        host_solver = adimg.Solver(bands, nodes=(mx, my), **OPTIONS)
        expected, _ = host_solver.solve(self.b)
        for name, to_gpu, to_host in self.each_library():
            solver = adimg.Solver(to_gpu(bands.reshape(9, my, mx)), nodes=(mx, my), **OPTIONS)
            x, report = solver.solve(to_gpu(self.b))
            self.assertTrue(report.ok, report)
            np.testing.assert_allclose(to_host(x), expected, rtol=0, atol=1e-12 * np.abs(expected).max())

    def test_cupy_cg_with_the_cycle(self):
        if "cupy" not in LIBRARIES:
            self.skipTest("CuPy is not installed")
        import cupy
        import cupyx.scipy.sparse as csp
        import cupyx.scipy.sparse.linalg as cspl

        solver = adimg.Solver(self.A, nodes=(65, 129), precision="double", **{k: v for k, v in OPTIONS.items() if k != "digits"})
        A = csp.csr_matrix(self.A)
        tolerance = "rtol" if "rtol" in inspect.signature(cspl.cg).parameters else "tol"  # CuPy renamed it
        x, info = cspl.cg(A, cupy.asarray(self.b), M=solver.ascupyoperator(), maxiter=100, **{tolerance: 1e-12})
        self.assertEqual(info, 0)
        self.assertLess(relative_difference(cupy.asnumpy(x), self.x), TOLERANCE)

    def test_bad_device_input(self):
        n = self.A.shape[0]
        for name, to_gpu, to_host in self.each_library():
            rows = [
                ("float32", lambda: self.solver.solve(to_gpu(self.b.astype(np.float32))), "float64"),
                ("strided", lambda: self.solver.solve(to_gpu(np.repeat(self.b, 2))[::2]), "not contiguous"),
                ("short", lambda: self.solver.solve(to_gpu(self.b[:-1])), rf"shape \({n - 1},\).*{n} rows"),
                ("bands float32", lambda: adimg.Solver(to_gpu(np.ones((9, 9), dtype=np.float32)), nodes=3, **OPTIONS),
                 "float64"),
            ]
            for label, call, message in rows:
                if name == "jax" and label == "strided":
                    continue  # JAX hands over contiguous copies of its slices
                with self.subTest(f"{name}: {label}"):
                    with self.assertRaisesRegex(adimg.InputError, message):
                        call()


def _bands_of(A, mx, my):
    """The nine bands (9, mx*my) of the sparse matrix A, x-fastest on the mx x my grid."""
    C = A.tocoo()
    bands = np.zeros((9, mx * my))
    dx, dy = C.col % mx - C.row % mx, C.col // mx - C.row // mx
    bands[3 * (dy + 1) + (dx + 1), C.row] = C.data
    return bands


if __name__ == "__main__":
    unittest.main()

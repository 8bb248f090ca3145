"""Runs the Python tests (CTest's python_tests): exits 77, which CTest counts as skipped, when
numpy, scipy or scikit-fem is missing from this interpreter, naming what to install; otherwise the
tests' own result. The adimg package must be importable (CTest puts the build's on PYTHONPATH)."""

import importlib.util
import os
import sys
import unittest

missing = [name for name in ("numpy", "scipy", "skfem") if importlib.util.find_spec(name) is None]
if missing:
    print(f"python tests skipped: {sys.executable} lacks {', '.join(missing)} "
          f"(pip install numpy scipy scikit-fem, or run scripts/install-deps and configure again)")
    sys.exit(77)

suite = unittest.defaultTestLoader.discover(os.path.dirname(os.path.abspath(__file__)), pattern="test_*.py")
result = unittest.TextTestRunner(verbosity=2).run(suite)
sys.exit(0 if result.wasSuccessful() else 1)

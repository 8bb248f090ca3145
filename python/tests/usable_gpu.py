"""Whether the tests that need a GPU can run here: NO_GPU is None where the CUDA backend starts,
else why it does not (the reason a skipped test gives)."""

import adimg


def _why_not():
    try:
        adimg._adimg.Solver(backend="cuda")
    except adimg.DeviceError as e:
        return f"no usable GPU: {e}"
    return None


NO_GPU = _why_not()

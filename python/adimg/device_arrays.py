"""Arrays in GPU memory from CuPy, PyTorch and JAX, handed to the library through DLPack: which
arrays are on the GPU, the stream their library enqueues work on, and a result handed back as an
array of the caller's library that shares the result's memory (no copy, no trip through the host).
None of the libraries is needed: a module is imported only when an array of it is passed."""

from ._adimg import InputError

_CUDA_DEVICE_TYPES = (2, 13)  # DLPack's kDLCUDA and kDLCUDAManaged


def on_gpu(v):
    """True for an array in CUDA memory that speaks DLPack (a CuPy array, a PyTorch CUDA tensor, a
    JAX array on a GPU); False for host arrays (NumPy, CPU tensors) and anything else."""
    device = getattr(v, "__dlpack_device__", None)
    if device is None or isinstance(v, type):
        return False
    try:
        kind, _ = device()
    except (TypeError, ValueError, RuntimeError):
        return False
    return int(kind) in _CUDA_DEVICE_TYPES


def _library(v):
    """'cupy', 'torch', 'jax' or None: the library of the array v."""
    root = type(v).__module__.split(".")[0]
    return {"cupy": "cupy", "torch": "torch", "jax": "jax", "jaxlib": "jax"}.get(root)


def stream_of(v):
    """The CUDA stream (as an integer; 0 for the legacy default) after whose work the library may
    read v: CuPy's and PyTorch's current stream. JAX names none: its computation of v is waited for."""
    library = _library(v)
    if library == "cupy":
        import cupy

        return cupy.cuda.get_current_stream().ptr
    if library == "torch":
        import torch

        return torch.cuda.current_stream(v.device).cuda_stream
    if library == "jax":
        v.block_until_ready()
    return 0


def like(result, v):
    """The library's GPU array `result` as an array of v's library (CuPy, PyTorch, JAX) sharing its
    memory; for another library's v, the DLPack array itself."""
    library = _library(v)
    if library == "cupy":
        import cupy

        return cupy.from_dlpack(result)
    if library == "torch":
        import torch

        return torch.from_dlpack(result)
    if library == "jax":
        import jax.dlpack

        return jax.dlpack.from_dlpack(_Exported(result, v.__dlpack_device__()))
    return result


class _Exported:
    """A result as DLPack's protocol object (__dlpack__ and __dlpack_device__), which JAX asks for
    where CuPy and PyTorch also take the library's array as it is. The call that made the result
    has finished with it when it returns, so no stream needs waiting for."""

    def __init__(self, result, device):
        self._result, self._device = result, device

    def __dlpack__(self, *args, **kwargs):
        export = getattr(self._result, "__dlpack__", None)
        return export() if export else self._result  # a capsule is its own export

    def __dlpack_device__(self):
        return self._device


def flat(v, name):
    """(v as one vector or a (k, n) stack, the shape to give a result): a column (n, 1) becomes (n,);
    a list of GPU vectors is stacked by their library."""
    if isinstance(v, (list, tuple)):
        if not v or not all(on_gpu(u) for u in v):
            raise InputError(f"{name}: a list of right-hand sides must hold GPU arrays only (or host arrays only)")
        library = _library(v[0])
        if library == "cupy":
            import cupy as xp
        elif library == "torch":
            import torch as xp
        elif library == "jax":
            import jax.numpy as xp
        else:
            raise InputError(f"{name}: a list of GPU arrays of an unknown library; stack them into one (k, n) array")
        v = xp.stack(list(v))
    if len(v.shape) == 2 and v.shape[1] == 1:
        return v.reshape(-1), tuple(v.shape)
    return v, tuple(v.shape)

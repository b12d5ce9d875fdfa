"""numba.cuda's names for kernels written for smsim: ``from smsim import cuda``.

A kernel is plain Python in the numba.cuda style. Nothing here runs per simulated thread: the compiler
(:mod:`isa.compiler`) reads the kernel's source and resolves these names (``cuda.threadIdx.x``,
``cuda.shared.array``, ``cuda.atomic.add`` ...) by name, so ``from numba import cuda`` works the same.
Outside a kernel the intrinsics raise a clear error. Dtype names are numpy's scalar types, so
``cuda.float32``, ``numba.float32`` and ``np.float32`` all mean the same thing to the compiler.

    @cuda.jit
    def saxpy(y, x, a, n):
        i = cuda.grid(1)
        if i < n:
            y[i] = a * x[i] + y[i]

    saxpy[blocks, threads](y, x, np.float32(2), n)      # smsim.launch with its defaults; results in y
    smsim.launch(saxpy, blocks, threads, (y, x, np.float32(2), n), timing=False)   # functional run only
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, NoReturn

import numpy as np

if TYPE_CHECKING:
    from .launch import LaunchResult

float32, float64 = np.float32, np.float64
int8, int16, int32, int64 = np.int8, np.int16, np.int32, np.int64
uint8, uint16, uint32, uint64 = np.uint8, np.uint16, np.uint32, np.uint64
boolean = bool_ = np.bool_
f4, f8, i4, i8, u4, u8 = float32, float64, int32, int64, uint32, uint64
warpsize = 32


class Dispatcher:
    """What ``@cuda.jit`` returns: the Python function plus compiled ISA kernels cached per argument types.

    ``kernel[grid, block](*args)`` (or ``[grid, block, stream, shared_bytes]``) launches it like numba's
    launch syntax, through :func:`smsim.launch` with its defaults (timed on the default config; the stream
    is ignored) and returns the result; :func:`smsim.launch` itself takes every option (``timing=False``
    for a functional run only).
    """

    def __init__(self, py_func: Callable, device: bool = False, options: dict | None = None):
        self.py_func, self.device, self.options = py_func, device, dict(options or {})
        self.__name__ = getattr(py_func, "__name__", "kernel")
        self.__doc__ = py_func.__doc__
        self.__wrapped__ = py_func
        self.compiled: dict = {}

    def __getitem__(self, config):
        if self.device:
            raise TypeError(f"{self.__name__} is a device function (device=True); only kernels are launched")
        if not isinstance(config, tuple) or not 2 <= len(config) <= 4:
            raise TypeError("launch configuration is kernel[grid, block] or kernel[grid, block, stream, shared_bytes]")
        grid, block = config[0], config[1]
        shared = config[3] if len(config) > 3 else 0

        def launch(*args: Any) -> LaunchResult:
            from .launch import launch as _launch
            return _launch(self, grid, block, args, shared_bytes=shared)
        return launch

    def __call__(self, *args: Any, **kwargs: Any) -> NoReturn:
        raise TypeError(f"{self.__name__} is a GPU {'device function' if self.device else 'kernel'}: it runs "
                        f"only inside a kernel compiled by smsim (launch with smsim.launch(...) or "
                        f"{self.__name__}[grid, block](...))")

    def __repr__(self):
        return f"<smsim.cuda {'device function' if self.device else 'kernel'} {self.__name__}>"


def jit(func: Any = None, device: bool = False,
        **options: Any) -> Dispatcher | Callable[[Callable[..., Any]], Dispatcher]:
    """``@cuda.jit``, ``@cuda.jit(device=True)`` or ``@cuda.jit("void(float32[:])")`` (signatures are
    accepted and ignored: types come from the launch arguments)."""
    if callable(func) and not isinstance(func, (str, tuple, list)):
        return Dispatcher(func, device, options)
    return lambda f: Dispatcher(f, device, options)


def _outside(name):
    def intrinsic(*args: Any, **kwargs: Any) -> NoReturn:
        raise TypeError(f"cuda.{name} can only be used inside a kernel compiled by smsim")
    intrinsic.__name__ = name
    return intrinsic


class _Namespace:
    """A group of intrinsics (``cuda.atomic``, ``cuda.shared`` ...) for name resolution and errors."""

    def __init__(self, prefix: str, names):
        self._prefix = prefix
        for n in names:
            setattr(self, n, _outside(f"{prefix}.{n}" if prefix else n))

    def __repr__(self):
        return f"<smsim.cuda.{self._prefix}>"


class _Dim3:
    def __init__(self, name):
        self._name = name

    def __getattr__(self, axis):
        raise TypeError(f"cuda.{self._name}.{axis} can only be used inside a kernel compiled by smsim")


threadIdx, blockIdx, blockDim, gridDim = (_Dim3(n) for n in ("threadIdx", "blockIdx", "blockDim", "gridDim"))
laneid = _Dim3("laneid")
shared = _Namespace("shared", ["array"])
local = _Namespace("local", ["array"])
const = _Namespace("const", ["array_like"])
atomic = _Namespace("atomic", ["add", "sub", "max", "min", "exch", "inc", "dec", "compare_and_swap", "cas",
                               "and_", "or_", "xor"])
_INTRINSICS = ["grid", "gridsize", "syncthreads", "syncthreads_count", "syncthreads_and", "syncthreads_or",
               "syncwarp", "threadfence", "threadfence_block", "threadfence_system", "shfl_sync", "shfl_up_sync",
               "shfl_down_sync", "shfl_xor_sync", "ballot_sync", "all_sync", "any_sync", "eq_sync",
               "activemask", "lanemask_lt", "popc", "brev", "clz", "ffs", "fma", "selp"]
for _n in _INTRINSICS:
    globals()[_n] = _outside(_n)
del _n

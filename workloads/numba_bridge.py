"""Run a workload kernel under real numba.cuda (on a GPU, or numba's CPU simulator).

Workload kernels are written against ``from smsim import cuda``; numba needs its own ``cuda`` module in
the function's globals. :func:`to_numba` rebuilds the Python function with every global that is the
``smsim.cuda`` module (or a name taken from it) replaced by numba.cuda's, and device functions
converted recursively, then jit-compiles it with ``numba.cuda.jit``. Source and bytecode are unchanged:
the GPU runs exactly the kernel smsim compiles. Used by ``benchmarks/ncu_measure.py`` on the device and
by tests with ``NUMBA_ENABLE_CUDASIM=1``.
"""
from __future__ import annotations

import types

_converted: dict = {}


def to_numba(kernel, device: bool | None = None):
    """``numba.cuda.jit`` of ``kernel`` (an ``smsim.cuda.jit`` dispatcher or a plain function)."""
    from numba import cuda as ncuda

    import smsim.cuda as scuda
    py = getattr(kernel, "py_func", kernel)
    if device is None:
        device = bool(getattr(kernel, "device", False))
    key = (py, device)
    if key in _converted:
        return _converted[key]
    g = dict(py.__globals__)
    for name in _names(py.__code__):
        if name not in py.__globals__:
            continue
        value = py.__globals__[name]
        if value is scuda:
            g[name] = ncuda
        elif isinstance(value, scuda.Dispatcher):
            g[name] = to_numba(value)
        elif isinstance(value, types.FunctionType) and value.__module__ == "smsim.cuda":
            g[name] = getattr(ncuda, value.__name__)
    fn = types.FunctionType(py.__code__, g, py.__name__, py.__defaults__, py.__closure__)
    fn.__kwdefaults__ = py.__kwdefaults__
    out = _converted[key] = ncuda.jit(device=True)(fn) if device else ncuda.jit(fn)
    return out


def _names(code) -> set:
    """Global names a function's code (and its nested code objects) refers to."""
    out = set(code.co_names)
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            out |= _names(c)
    return out

"""Run a workload kernel under real numba.cuda (on a GPU, or numba's CPU simulator).

Workload kernels are written against ``from smsim import cuda``; numba needs its own ``cuda`` module in
the function's globals. :func:`to_numba` (which lives in :mod:`smsim.numba_front`, smsim's "numba"
compiler front end, and is re-exported here) rebuilds the Python function with every global that is the
``smsim.cuda`` module (or a name taken from it) replaced by numba.cuda's, and device functions converted
recursively, then jit-compiles it with ``numba.cuda.jit``. Source and bytecode are unchanged: the GPU
runs exactly the kernel smsim compiles. Used by ``benchmarks/ncu_measure.py`` on the device, by tests with
``NUMBA_ENABLE_CUDASIM=1`` and by ``smsim.launch(..., compiler="numba")``.
"""
from __future__ import annotations

from smsim.numba_front import to_numba

__all__ = ["to_numba"]

"""The kernels of ``benchmarks/fp64_chain_hw.py``: dependent chains of float64 operations, one warp, so that each
step waits for the one before (the latency, not the throughput, of the FP64 pipe and of libdevice's float64
division, square root and exponential), with a float32 FMA chain beside them as the known reference
(``chains.fma``: 4.5 cycles a step on the H200).

Written against ``smsim.cuda`` so that smsim simulates exactly the source the H200 runs
(``workloads.numba_bridge.to_numba`` on the device). Each ``k(out, a, b, n)`` runs ``8 n`` steps on
``x = out[lane]`` (eight a loop iteration, written out: the loop's own instructions a small part) and writes
``x`` back:

* ``dfma``: ``x = x * a + b`` (one ``DFMA`` a step);
* ``dadd``: ``x = x + b`` (``DADD``);
* ``ddiv``: ``x = a / (x + b)`` (``MUFU.RCP64H`` and ``DFMA`` Newton steps, and the slow path's test);
* ``dsqrt``: ``x = sqrt(x + b)`` (``MUFU.RSQ64H`` and ``DFMA`` steps);
* ``dexp``: ``x = exp(x * a)`` (libdevice's float64 ``exp``: a polynomial of ``DFMA`` and integer work);
* ``ffma``: ``dfma`` on float32 (``FFMA``).
"""
import math

import numpy as np

from smsim import cuda


@cuda.jit
def dfma(out, a, b, n):
    i = cuda.threadIdx.x
    x = out[i]
    for _ in range(n):
        x = x * a + b
        x = x * a + b
        x = x * a + b
        x = x * a + b
        x = x * a + b
        x = x * a + b
        x = x * a + b
        x = x * a + b
    out[i] = x


@cuda.jit
def dadd(out, a, b, n):
    i = cuda.threadIdx.x
    x = out[i]
    for _ in range(n):
        x = x + b
        x = x + b
        x = x + b
        x = x + b
        x = x + b
        x = x + b
        x = x + b
        x = x + b
    out[i] = x


@cuda.jit
def ddiv(out, a, b, n):
    i = cuda.threadIdx.x
    x = out[i]
    for _ in range(n):
        x = a / (x + b)
        x = a / (x + b)
        x = a / (x + b)
        x = a / (x + b)
        x = a / (x + b)
        x = a / (x + b)
        x = a / (x + b)
        x = a / (x + b)
    out[i] = x


@cuda.jit
def dsqrt(out, a, b, n):
    i = cuda.threadIdx.x
    x = out[i]
    for _ in range(n):
        x = math.sqrt(x + b)
        x = math.sqrt(x + b)
        x = math.sqrt(x + b)
        x = math.sqrt(x + b)
        x = math.sqrt(x + b)
        x = math.sqrt(x + b)
        x = math.sqrt(x + b)
        x = math.sqrt(x + b)
    out[i] = x


@cuda.jit
def dexp(out, a, b, n):
    i = cuda.threadIdx.x
    x = out[i]
    for _ in range(n):
        x = math.exp(x * a)
        x = math.exp(x * a)
        x = math.exp(x * a)
        x = math.exp(x * a)
        x = math.exp(x * a)
        x = math.exp(x * a)
        x = math.exp(x * a)
        x = math.exp(x * a)
    out[i] = x


KERNELS = {"dfma": dfma, "dadd": dadd, "ddiv": ddiv, "dsqrt": dsqrt, "dexp": dexp, "ffma": dfma}
DTYPES = {"ffma": np.float32}        # the rest float64 (the same source, ``dfma``, typed by its arguments)

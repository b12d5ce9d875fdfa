"""The kernels of ``benchmarks/cold_rows_hw.py``: ``course.prefix_row32``'s walk (thread ``t`` owns a 128-byte
row and walks it once, a warp's request 32 sectors in 32 lines) over rows no cache holds yet, taken apart:

* ``raw``: ``acc += a[t, c]; a[t, c] = acc`` (``prefix_row32`` itself: loads, and stores into what they read);
* ``split``: ``acc += a[t, c]; b[t, c] = acc`` (the same traffic, stores into another array);
* ``load``: ``acc += a[t, c]``, one store of the sum at the end;
* ``store``: ``a[t, c] = c`` (the stores alone);
* ``raw2``: ``raw`` twice over the row (the second pass finds the row in L1: the difference with ``raw`` is what
  the walk takes without its cold misses); the second pass indexes row ``t + z`` (``z`` is 0 at run time, but the
  compiler cannot forward the first pass's stores to its loads).

Written against ``smsim.cuda`` so that smsim simulates exactly the source the H200 runs
(``workloads.numba_bridge.to_numba`` on the device).
"""
import numpy as np

from smsim import cuda

ROW = 32                       # floats in a thread's row (one 128-byte line)


@cuda.jit
def raw(a, b, z):
    t = cuda.grid(1)
    acc = np.float32(0.0)
    for c in range(ROW):
        acc += a[t, c]
        a[t, c] = acc


@cuda.jit
def split(a, b, z):
    t = cuda.grid(1)
    acc = np.float32(0.0)
    for c in range(ROW):
        acc += a[t, c]
        b[t, c] = acc


@cuda.jit
def load(a, b, z):
    t = cuda.grid(1)
    acc = np.float32(0.0)
    for c in range(ROW):
        acc += a[t, c]
    b[t, 0] = acc


@cuda.jit
def store(a, b, z):
    t = cuda.grid(1)
    for c in range(ROW):
        a[t, c] = np.float32(c)


@cuda.jit
def raw2(a, b, z):
    t = cuda.grid(1)
    acc = np.float32(0.0)
    for c in range(ROW):
        acc += a[t, c]
        a[t, c] = acc
    for c in range(ROW):
        acc += a[t + z, c]
        a[t + z, c] = acc


KERNELS = {f.__name__: f for f in (raw, split, load, store, raw2)}

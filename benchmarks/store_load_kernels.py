"""The kernels of ``benchmarks/store_load_hw.py``: a loop whose load reads what the store of the iteration before
wrote (or its sector, or its line), beside the same loop reading another array, so that the difference is what a
load pays for following a store into the same place.

Written against ``smsim.cuda`` so that smsim simulates exactly the source the H200 runs
(``workloads.numba_bridge.to_numba`` on the device). Each ``k(a, b, n, z)`` runs ``n`` iterations of
``acc += <load>; <store> = acc`` in every thread ``t`` (``z`` is 0 at run time: ``c & z`` is always 0, but
the compiler cannot keep the word in a register):

* ``row_raw``: thread ``t`` owns row ``t`` of 32 floats (a line) and walks it, loading ``a[t, c % 32]`` and
  storing it: each load is in the sector the store before wrote, but for one iteration in eight
  (``course.prefix_row32``'s loop): a warp's request is 32 sectors in 32 lines;
* ``row_split``: the same, loading ``b[t, c % 32]`` (another array): no load follows a store into its sector;
* ``row_word``: loading and storing ``a[t, c & z]``: every load the word the store before wrote;
* ``row_line``: loading ``a[t, 8 + c % 8]``, storing ``a[t, c % 8]``: the load in the line, not the sector,
  the stores write;
* ``coal_raw``: coalesced, ``a[t // 32 + (c & z), t % 32]``: the warp's line, every load after the store
  into it (a request of 4 sectors in one line);
* ``coal_split``: the same loading ``b``.
"""
import numpy as np

from smsim import cuda

ROW = 32                       # floats in a thread's row (one 128-byte line)


@cuda.jit
def row_raw(a, b, n, z):
    t = cuda.grid(1)
    acc = np.float32(0.0)
    for c in range(n):
        acc += a[t, c % ROW]
        a[t, c % ROW] = acc


@cuda.jit
def row_split(a, b, n, z):
    t = cuda.grid(1)
    acc = np.float32(0.0)
    for c in range(n):
        acc += b[t, c % ROW]
        a[t, c % ROW] = acc


@cuda.jit
def row_word(a, b, n, z):
    t = cuda.grid(1)
    acc = np.float32(0.0)
    for c in range(n):
        acc += a[t, c & z]
        a[t, c & z] = acc


@cuda.jit
def row_line(a, b, n, z):
    t = cuda.grid(1)
    acc = np.float32(0.0)
    for c in range(n):
        acc += a[t, 8 + c % 8]
        a[t, c % 8] = acc


@cuda.jit
def coal_raw(a, b, n, z):
    t = cuda.grid(1)
    acc = np.float32(0.0)
    for c in range(n):
        acc += a[t // ROW + (c & z), t % ROW]
        a[t // ROW + (c & z), t % ROW] = acc


@cuda.jit
def coal_split(a, b, n, z):
    t = cuda.grid(1)
    acc = np.float32(0.0)
    for c in range(n):
        acc += b[t // ROW + (c & z), t % ROW]
        a[t // ROW + (c & z), t % ROW] = acc


KERNELS = {f.__name__: f for f in (row_raw, row_split, row_word, row_line, coal_raw, coal_split)}

"""The kernels of ``benchmarks/store_port_hw.py``: every warp stores, ``n`` times, one request of a given
shape into lines no store touched before (each iteration moves on by the whole block's span), so that the
cycles an iteration at one SM is what the SM's way out to L2 takes for that shape. Thread ``t`` (``w = t //
32`` its warp, ``l = t % 32`` its lane), iteration ``i``, ``T`` threads:

* ``line1``: a word in each of 32 lines (lanes 128 bytes apart): 32 lines, 32 sectors, each in part;
* ``line2``: a word in each of two sectors of 16 lines (lanes 64 bytes apart): 16 lines, 32 sectors in part;
* ``sector1``: a word in each of 32 sectors (lanes 32 bytes apart): 8 lines, 32 sectors in part;
* ``coal``: consecutive float32 (one whole line, 4 sectors);
* ``coal2``: consecutive float2 as two float32 words a lane (two whole lines, 8 sectors, one store each word:
  two requests of 8 sectors in part that L1 merges);
* ``coal4``: consecutive float64 (two whole lines, 8 sectors);
* ``same_word``: ``line1``'s request into the same words every iteration (``i & (n >> 40)``, 0 at run time);
* ``same_line``: ``line1``'s shape, the thread's word ``i % 32`` of its own line: the same 32 lines over and over;
* ``hit_fresh``: a load from the thread's own line (an L1 hit past the first pass) then ``line1``'s store into
  fresh lines; ``hit_same``: the same, storing into a second line of the thread's own, over and over
  (``store_load_hw``'s ``row_split``).

Written against ``smsim.cuda`` so that smsim simulates exactly the source the H200 runs.
"""
import numpy as np

from smsim import cuda


@cuda.jit
def line1(a, n):
    t = cuda.grid(1)
    T = cuda.gridsize(1)
    for i in range(n):
        a[(i * T + t) * 32] = np.float32(i)


@cuda.jit
def line2(a, n):
    t = cuda.grid(1)
    T = cuda.gridsize(1)
    for i in range(n):
        a[(i * T + t) * 16] = np.float32(i)


@cuda.jit
def sector1(a, n):
    t = cuda.grid(1)
    T = cuda.gridsize(1)
    for i in range(n):
        a[(i * T + t) * 8] = np.float32(i)


@cuda.jit
def coal(a, n):
    t = cuda.grid(1)
    T = cuda.gridsize(1)
    for i in range(n):
        a[i * T + t] = np.float32(i)


@cuda.jit
def coal2(a, n):
    t = cuda.grid(1)
    T = cuda.gridsize(1)
    for i in range(n):
        a[2 * (i * T + t)] = np.float32(i)
        a[2 * (i * T + t) + 1] = np.float32(i)


@cuda.jit
def coal4(a, n):
    t = cuda.grid(1)
    T = cuda.gridsize(1)
    for i in range(n):
        a[i * T + t] = np.float64(i)


@cuda.jit
def same_word(a, n):
    t = cuda.grid(1)
    z = n >> 40                        # 0 at run time, which the compiler cannot know: every store is kept
    for i in range(n):
        a[t * 32 + (i & z)] = np.float32(i)


@cuda.jit
def same_line(a, n):
    t = cuda.grid(1)
    for i in range(n):
        a[t * 32 + i % 32] = np.float32(i)


@cuda.jit
def hit_fresh(a, n):
    t = cuda.grid(1)
    T = cuda.gridsize(1)
    acc = np.float32(0.0)
    for i in range(n):
        acc += a[t * 32 + i % 32]
        a[T * 32 + (i * T + t) * 32] = acc


@cuda.jit
def hit_same(a, n):
    t = cuda.grid(1)
    T = cuda.gridsize(1)
    acc = np.float32(0.0)
    for i in range(n):
        acc += a[t * 32 + i % 32]
        a[T * 32 + t * 32 + i % 32] = acc


#: kernel -> (its array's dtype, float32 words a thread's iteration spans)
KERNELS = {"line1": (line1, np.float32, 32), "line2": (line2, np.float32, 16), "sector1": (sector1, np.float32, 8),
           "coal": (coal, np.float32, 1), "coal2": (coal2, np.float32, 2), "coal4": (coal4, np.float64, 1),
           "same_word": (same_word, np.float32, 32), "same_line": (same_line, np.float32, 32),
           "hit_fresh": (hit_fresh, np.float32, 34), "hit_same": (hit_same, np.float32, 34)}

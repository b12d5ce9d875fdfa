"""Chains: dependent instruction chains written as a numba user writes them, to time one step of each.

What the family teaches: how long one dependent step takes when nothing else can run beside it, and how much
of that step is the instruction the user meant and how much the compiler's index arithmetic. The
microbenchmarks (:mod:`workloads.microbench`) pin the raw latencies with carefully typed code (unsigned
32-bit indices, eight FMAs per iteration); these kernels are the plain versions:

* ``fma``: one thread, ``x = x * a + b`` with ``a``, ``b`` and ``x`` float32 read from an array: one FMA per
  loop iteration, so the loop's own instructions sit beside the chain;
* ``shared_chase``: the block copies a 16 KB int32 array into shared memory, then thread 0 chases
  ``j = buf[j]`` with ``j`` a Python int (numba's int64): every step pays the negative-index wraparound
  and 64-bit address arithmetic before the shared load;
* ``l1_chase``: the block first reads every word of an 8 KB int32 array (so its lines sit in L1), then
  thread 0 chases ``j = a[j]`` through global memory, the same plain indexing: L1-hit latency plus index math;
* ``shared_chase_u32`` / ``l1_chase_u32``: the microbenchmarks' chases (unsigned 32-bit indices), for the
  difference.

Each case runs ``n`` steps (``test``: 512, ``full``: 4096), so the time of one step is the difference of the
two sizes' durations over the 3584 extra steps, with the launch and the warm-up cancelled: ``smsim
validate`` times both sizes, and ``tests/test_chains.py`` compares the per-step cycles with the H200's.

Life of a case: ``build(n, rng)`` makes the chain (a permutation with a 128-byte stride for the chases,
float32 constants for the FMA chain), the expected final values (numpy: the chase's end, the warm-up sums,
and ``x = 0.5 n``, exact in float32 with or without FMA contraction since ``a = 1``) and a launch of one
block.
"""
import numpy as np

from smsim import cuda
from smsim.case import Case, Setup

from .microbench import chase_shared as chase_shared_u32
from .microbench import chase_warm as chase_warm_u32
from .microbench import ref_chase, ref_chase_warm

WORDS = 4096            # 16 KB shared chase array
L1_WORDS = 2048         # 8 KB global chase array: fits L1
STRIDE = 32             # words: one 128-byte line per step
BLOCK = 256             # threads that fill / warm
SIZES = {"test": 512, "full": 4096}


@cuda.jit
def fma(vals, out, iters):
    """x = x * a + b, ``iters`` times, one thread: a float32 FMA chain beside its loop counter."""
    x = vals[0]
    a = vals[1]
    b = vals[2]
    for _ in range(iters):
        x = x * a + b
    out[0] = x


@cuda.jit
def shared_chase(a, out, iters):
    """Fill a 16 KB shared int32 array, then thread 0 chases j = buf[j] with a plain (int64) index."""
    buf = cuda.shared.array(WORDS, np.int32)
    for k in range(cuda.threadIdx.x, WORDS, cuda.blockDim.x):
        buf[k] = a[k]
    cuda.syncthreads()
    if cuda.threadIdx.x == 0:
        j = 0
        for _ in range(iters):
            j = buf[j]
        out[0] = j


@cuda.jit
def l1_chase(a, out, iters):
    """Every thread reads its words of ``a`` (the lines land in L1), then thread 0 chases j = a[j]."""
    acc = 0
    for k in range(cuda.threadIdx.x, a.shape[0], cuda.blockDim.x):
        acc += a[k]
    out[1 + cuda.threadIdx.x] = acc
    cuda.syncthreads()
    if cuda.threadIdx.x == 0:
        j = 0
        for _ in range(iters):
            j = a[j]
        out[0] = j


def _chain(words, dtype):
    return ((np.arange(words, dtype=np.int64) + STRIDE) % words).astype(dtype)


def _build_fma(n, rng):
    vals = np.array([0.0, 1.0, 0.5], np.float32)          # x_k = 0.5 k: exact in float32 for these n
    out = np.full(1, -1, np.float32)
    want = np.float32(0.0)
    for _ in range(n):
        want = np.float32(want * np.float32(1.0) + np.float32(0.5))
    return Setup((1,), (1,), (vals, out, np.int32(n)), expected={1: np.array([want], np.float32)},
                 rtol=0.0, atol=0.0)


def _build_shared(n, rng):
    a = _chain(WORDS, np.int32)
    out = np.full(1, -1, np.int32)
    return Setup((1,), (BLOCK,), (a, out, np.int32(n)), expected={1: ref_chase(a, n).astype(np.int32)})


def _build_l1(n, rng):
    a = _chain(L1_WORDS, np.int32)
    out = np.full(1 + BLOCK, -1, np.int64)
    sums = [int(a[t::BLOCK].sum()) for t in range(BLOCK)]
    return Setup((1,), (BLOCK,), (a, out, np.int32(n)),
                 expected={1: np.array([int(ref_chase(a, n)[0])] + sums, np.int64)})


def _build_shared_u32(n, rng):
    a = _chain(WORDS, np.uint32)
    out = np.full(1, 0xFFFFFFFF, np.uint32)
    return Setup((1,), (BLOCK,), (a, out, np.int32(n)), expected={1: ref_chase(a, n)})


def _build_l1_u32(n, rng):
    a = _chain(L1_WORDS, np.uint32)
    out = np.full(1 + BLOCK, 0xFFFFFFFF, np.uint32)
    return Setup((1,), (BLOCK,), (a, out, np.int32(n), np.int32(STRIDE)),
                 expected={1: ref_chase_warm(a, n, STRIDE, BLOCK)})


CASES = [
    Case("chains", "fma", fma, _build_fma, SIZES,
         "one thread, n dependent float32 x = x*a + b (one FMA per iteration, beside the loop counter)"),
    Case("chains", "shared_chase", shared_chase, _build_shared, SIZES,
         "one thread chases j = buf[j] n times in 16 KB of shared int32, plain int64 index"),
    Case("chains", "l1_chase", l1_chase, _build_l1, SIZES,
         "the block reads an 8 KB int32 array, then one thread chases j = a[j] n times (128 B stride): L1"),
    Case("chains", "shared_chase_u32", chase_shared_u32, _build_shared_u32, SIZES,
         "the microbenchmark's shared chase (unsigned 32-bit index), n steps"),
    Case("chains", "l1_chase_u32", chase_warm_u32, _build_l1_u32, SIZES,
         "the microbenchmark's warmed L1 chase (unsigned 32-bit index, 128 B stride), n steps"),
]

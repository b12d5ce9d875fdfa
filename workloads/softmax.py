"""Row-wise softmax of a (rows, cols) float32 matrix: ``out[r, c] = exp(x[r, c] - max_r) / sum_c exp(x[r, c] - max_r)``.

What the family teaches: softmax is two reductions (max, then sum of exponentials) and an elementwise pass per
row, so it is memory bound once the reductions are parallel. One thread per row makes every warp load 32
different rows (32 sectors per request, uncoalesced) and leaves most of the GPU idle; one block per row with
thread 0 alone finding the max and the sum is coalesced only in the final pass and serializes 2*cols dependent
steps on one thread while the block waits at a barrier; the optimized kernel gives each row a block, reduces
per thread over a strided (coalesced) column loop, then across the warp with ``shfl_xor_sync`` and across the
warps through a small shared array.

Life of a case: ``build(n, rng)`` makes an ``n x min(1024, 32 n)`` matrix of standard-normal float32 values
(test 8 x 256, full 8192 x 1024), launches 256-thread blocks (one block per row, or one thread per row), and
expects the numpy softmax (computed in float64) in ``out`` within rtol 1e-5: the kernels use float32
``math.exp`` and sum in their own order.
"""
import math

import numpy as np

from smsim import cuda
from smsim.case import Case, Setup


MAX_COLS = 1024             # columns at full size; small matrices have 32 columns per row
BLOCK = 256
MAX_WARPS = 32               # shared slots for per-warp partials (blocks of up to 1024 threads)
FULL_MASK = 0xFFFFFFFF


@cuda.jit
def softmax_thread_per_row(x, out):
    """One thread per row: lanes of a warp read 32 different rows (stride cols*4 bytes), 32 sectors per request."""
    row = cuda.grid(1)
    if row < x.shape[0]:
        cols = x.shape[1]
        m = x[row, 0]
        for c in range(1, cols):
            m = max(m, x[row, c])
        s = np.float32(0)
        for c in range(cols):
            s += math.exp(x[row, c] - m)
        for c in range(cols):
            out[row, c] = math.exp(x[row, c] - m) / s


@cuda.jit
def softmax_block_naive(x, out):
    """One block per row, thread 0 alone finds max and sum (serial, one lane busy); final pass coalesced."""
    stats = cuda.shared.array(2, np.float32)
    row = cuda.blockIdx.x
    tid = cuda.threadIdx.x
    cols = x.shape[1]
    if tid == 0:
        m = x[row, 0]
        for c in range(1, cols):
            m = max(m, x[row, c])
        s = np.float32(0)
        for c in range(cols):
            s += math.exp(x[row, c] - m)
        stats[0] = m
        stats[1] = s
    cuda.syncthreads()
    row_max = stats[0]
    row_sum = stats[1]
    for c in range(tid, cols, cuda.blockDim.x):
        out[row, c] = math.exp(x[row, c] - row_max) / row_sum


@cuda.jit(device=True)
def warp_max(v):
    """Butterfly max over the warp: every lane gets the result."""
    off = 16
    while off > 0:
        v = max(v, cuda.shfl_xor_sync(FULL_MASK, v, off))
        off //= 2
    return v


@cuda.jit(device=True)
def warp_sum(v):
    """Butterfly sum over the warp: every lane gets the result."""
    off = 16
    while off > 0:
        v += cuda.shfl_xor_sync(FULL_MASK, v, off)
        off //= 2
    return v


@cuda.jit
def softmax_warp_shuffle(x, out):
    """One block per row: coalesced strided column loops, shuffle reductions, per-warp partials in shared memory."""
    part_max = cuda.shared.array(MAX_WARPS, np.float32)
    part_sum = cuda.shared.array(MAX_WARPS, np.float32)
    row = cuda.blockIdx.x
    tid = cuda.threadIdx.x
    lane = tid % 32
    warp = tid // 32
    nwarps = (cuda.blockDim.x + 31) // 32
    cols = x.shape[1]

    m = x[row, 0]                            # a valid start for every thread: max is idempotent
    for c in range(tid, cols, cuda.blockDim.x):
        m = max(m, x[row, c])
    m = warp_max(m)
    if lane == 0:
        part_max[warp] = m
    cuda.syncthreads()
    if warp == 0:
        m = part_max[0]
        if lane < nwarps:
            m = part_max[lane]
        m = warp_max(m)
        if lane == 0:
            part_max[0] = m
    cuda.syncthreads()
    row_max = part_max[0]

    s = np.float32(0)
    for c in range(tid, cols, cuda.blockDim.x):
        s += math.exp(x[row, c] - row_max)
    s = warp_sum(s)
    if lane == 0:
        part_sum[warp] = s
    cuda.syncthreads()
    if warp == 0:
        s = np.float32(0)
        if lane < nwarps:
            s = part_sum[lane]
        s = warp_sum(s)
        if lane == 0:
            part_sum[0] = s
    cuda.syncthreads()
    row_sum = part_sum[0]

    for c in range(tid, cols, cuda.blockDim.x):
        out[row, c] = math.exp(x[row, c] - row_max) / row_sum


def ref_softmax(x):
    """Row-wise softmax in float64, rounded to float32."""
    x64 = x.astype(np.float64)
    e = np.exp(x64 - x64.max(axis=1, keepdims=True))
    return (e / e.sum(axis=1, keepdims=True)).astype(np.float32)


ref_softmax_thread_per_row = ref_softmax
ref_softmax_block_naive = ref_softmax
ref_softmax_warp_shuffle = ref_softmax


def _builder(ref, thread_per_row):
    def build(n, rng):
        cols = min(MAX_COLS, 32 * n)
        x = rng.standard_normal((n, cols), dtype=np.float32)
        out = np.zeros((n, cols), np.float32)
        grid = (-(-n // BLOCK),) if thread_per_row else (n,)
        return Setup(grid=grid, block=(BLOCK,), args=(x, out), expected={1: ref(x)}, rtol=1e-5, atol=1e-9)
    return build


SIZES = {"test": 8, "full": 8192}

CASES = [
    Case("softmax", "thread_per_row", softmax_thread_per_row, _builder(ref_softmax_thread_per_row, True), SIZES,
         "row softmax of n x min(1024, 32n) float32, one thread per row: uncoalesced (32 rows per load), few threads"),
    Case("softmax", "block_naive", softmax_block_naive, _builder(ref_softmax_block_naive, False), SIZES,
         "row softmax of n x min(1024, 32n) float32, one block per row, thread 0 alone finds max and sum"),
    Case("softmax", "warp_shuffle", softmax_warp_shuffle, _builder(ref_softmax_warp_shuffle, False), SIZES,
         "row softmax of n x min(1024, 32n) float32, one block per row, shuffle max/sum + shared cross-warp step"),
]

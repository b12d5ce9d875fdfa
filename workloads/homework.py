"""Homework kernels: a thirteenth out-of-sample check of the timing model, written after ``workshop``.

What the family is for: like ``workshop`` before it, these kernels were written after every model change of
their day had landed (2026-11-30, the session after one L1TEX data stage was modelled), with smsim's
predictions written down before the H200 ran them (``docs/hardware/validate_hw.md``), and compared before
anything changed for them (``docs/timing_model.md``). They are what a course's homework sheets ask for, in
patterns no family used before: shared-memory bank strides as a runtime argument, a local array indexed by
data, a memory fence a thread, ``syncthreads_count`` and ``any_sync``, a float atomic max, a float64 logarithm, a
16-block grid-stride stream, stores 16 bytes apart, a 2-D table gathered at random from L2, 64-thread blocks
a row reduced in shared memory:

* ``shared_stride1``, ``shared_stride4``, ``shared_stride8``: each block stages 1024 floats in shared
  memory, then each thread sums 16 of them at ``(t s + 32 k) mod 1024`` (``s`` 1, 4, 8: no conflict, 4-way and
  8-way bank conflicts);
* ``local_dyn_index``: eight floats a thread copied into a local array, two read back at data-dependent
  indices (the array lives in local memory);
* ``fence_store``: ``out = 2 a``, then ``threadfence`` and one flag a block;
* ``pow_erf``: ``out = a ** 1.5 + erf(a)`` (libdevice's long paths);
* ``divmod_runtime``: int32 quotient and remainder by a divisor passed at run time;
* ``atomic_max_f32``: float32 values into 64 bins by ``atomic.max``;
* ``few_blocks_stream``: ``out = 2 a`` by a grid-stride loop on a fixed grid of 16 blocks (most SMs idle);
* ``store_stride4``: ``out[4 i] = a[i]``, one word in each 16 bytes written;
* ``gradient_u8``: the gradient magnitude of an 8-bit image into float32, 32x8 blocks;
* ``copy_pitched``: a 960-column window from column 3 of a 1000-column matrix, 32x4 blocks;
* ``count_above_block``: how many of a block's values pass a threshold, by ``syncthreads_count``;
* ``lut2d_gather``: ``out = lut[a, b]`` from a 256x256 float32 table (256 KB: L2, not L1) at random bytes;
* ``log_f64``: ``log(1 + a a)`` in float64;
* ``any_negative_warp``: a flag a warp, whether any of its 32 values is negative, by ``any_sync``;
* ``rowdot64``: the dot products of 64-float rows, a 64-thread block a row, summed by a shared tree.

Life of a case: ``build(n, rng)`` draws the inputs (``n`` elements, or an image or matrix of about ``n``),
computes the expected output with numpy (integer-valued floats where sums are taken, so they are exact in any
order) and returns the launch.
"""
import math

import numpy as np

from smsim import cuda
from smsim.case import Case, Setup
from workloads.plain import _blocks, _grid2, _side   # the launch-shape helpers
from workloads.seminar import _small_ints         # floats holding small integers: exact sums in any order

STAGE = 1024              # shared_stride*'s staged floats a block (256 threads, four each)
READS = 16                # shared_stride*'s reads a thread
LOCAL = 8                 # local_dyn_index's local array
BINS = 64                 # atomic_max_f32's bins
FEW = 16                  # few_blocks_stream's blocks
SPACING = 4               # store_stride4's words between stores
PITCH = 1000              # copy_pitched's source columns
WIDTH = 960               # its window's columns
FIRST = 3                 # its window's first column
LUT = 256                 # lut2d_gather's table side
ROW = 64                  # rowdot64's row (and block)
SIZES = {"test": 1 << 15, "full": 1 << 24}


@cuda.jit
def shared_stride(a, s, out):
    """out[i] = the sum over k < 16 of the block's staged a at (t s + 32 k) mod 1024."""
    sh = cuda.shared.array(STAGE, np.float32)
    t = cuda.threadIdx.x
    base = cuda.blockIdx.x * STAGE
    for j in range(t, STAGE, 256):
        sh[j] = a[base + j]
    cuda.syncthreads()
    acc = np.float32(0.0)
    for k in range(READS):
        acc += sh[(t * s + 32 * k) & (STAGE - 1)]
    out[cuda.grid(1)] = acc


@cuda.jit
def local_dyn_index(a, idx, out):
    """out[i] = loc[idx[i]] + loc[(idx[i] + 3) mod 8], loc = a[8 i: 8 i + 8] in a local array."""
    i = cuda.grid(1)
    if i < out.shape[0]:
        loc = cuda.local.array(LOCAL, np.float32)
        for k in range(LOCAL):
            loc[k] = a[LOCAL * i + k]
        j = idx[i]
        out[i] = loc[j] + loc[(j + 3) & (LOCAL - 1)]


@cuda.jit
def fence_store(a, out, flags):
    """out = 2 a; each thread fences its store; thread 0 of each block then sets the block's flag."""
    i = cuda.grid(1)
    if i < a.shape[0]:
        out[i] = np.float32(2.0) * a[i]
    cuda.threadfence()
    if cuda.threadIdx.x == 0:
        flags[cuda.blockIdx.x] = 1


@cuda.jit
def pow_erf(a, out):
    """out = a ** 1.5 + erf(a)."""
    i = cuda.grid(1)
    if i < a.shape[0]:
        x = a[i]
        out[i] = math.pow(x, np.float32(1.5)) + math.erf(x)


@cuda.jit
def divmod_runtime(a, d, q, r):
    """q = a // d, r = a % d (int32, d given at run time)."""
    i = cuda.grid(1)
    if i < a.shape[0]:
        v = a[i]
        q[i] = v // d
        r[i] = v % d


@cuda.jit
def atomic_max_f32(v, idx, bins):
    """bins[idx[i]] = max(bins[idx[i]], v[i])."""
    i = cuda.grid(1)
    if i < v.shape[0]:
        cuda.atomic.max(bins, idx[i], v[i])


@cuda.jit
def few_blocks_stream(a, out):
    """out = 2 a by a grid-stride loop (launched on 16 blocks)."""
    start = cuda.grid(1)
    step = cuda.gridsize(1)
    for i in range(start, a.shape[0], step):
        out[i] = np.float32(2.0) * a[i]


@cuda.jit
def store_stride4(a, out):
    """out[4 i] = a[i]."""
    i = cuda.grid(1)
    if i < a.shape[0]:
        out[SPACING * i] = a[i]


@cuda.jit
def gradient_u8(img, out):
    """out = |grad img| by central differences inside the border, 0 on it."""
    x, y = cuda.grid(2)
    h, w = img.shape
    if y < h and x < w:
        g = np.float32(0.0)
        if x > 0 and x < w - 1 and y > 0 and y < h - 1:
            gx = np.float32(img[y, x + 1]) - np.float32(img[y, x - 1])
            gy = np.float32(img[y + 1, x]) - np.float32(img[y - 1, x])
            g = math.sqrt(gx * gx + gy * gy)
        out[y, x] = g


@cuda.jit
def copy_pitched(src, c0, dst):
    """dst[r, c] = src[r, c0 + c]."""
    c, r = cuda.grid(2)
    if r < dst.shape[0] and c < dst.shape[1]:
        dst[r, c] = src[r, c0 + c]


@cuda.jit
def count_above_block(a, thr, out):
    """out[b] = how many of block b's values are above thr."""
    i = cuda.grid(1)
    p = 0
    if i < a.shape[0] and a[i] > thr:
        p = 1
    c = cuda.syncthreads_count(p)
    if cuda.threadIdx.x == 0:
        out[cuda.blockIdx.x] = c


@cuda.jit
def lut2d_gather(lut, a, b, out):
    """out[i] = lut[a[i], b[i]]."""
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = lut[a[i], b[i]]


@cuda.jit
def log_f64(a, out):
    """out = log(1 + a a), float64."""
    i = cuda.grid(1)
    if i < a.shape[0]:
        x = a[i]
        out[i] = math.log(1.0 + x * x)


@cuda.jit
def any_negative_warp(a, out):
    """out[w] = 1 if any of warp w's 32 values is negative, else 0."""
    i = cuda.grid(1)
    neg = a[i] < np.float32(0.0)
    f = cuda.any_sync(0xFFFFFFFF, neg)
    if cuda.laneid == 0:
        out[i // 32] = 1 if f else 0


@cuda.jit
def rowdot64(a, b, out):
    """out[r] = the dot product of a[r] and b[r] (64 floats), a 64-thread block a row."""
    part = cuda.shared.array(ROW, np.float32)
    r = cuda.blockIdx.x
    t = cuda.threadIdx.x
    part[t] = a[r, t] * b[r, t]
    cuda.syncthreads()
    s = ROW // 2
    while s > 0:
        if t < s:
            part[t] += part[t + s]
        cuda.syncthreads()
        s //= 2
    if t == 0:
        out[r] = part[0]


def _build_shared_stride(stride):
    def build(n, rng):
        n = max(STAGE, n // STAGE * STAGE)
        a = _small_ints(n, rng)
        blocks = a.reshape(-1, STAGE).astype(np.float64)
        t = np.arange(256)
        cols = (t[:, None] * stride + 32 * np.arange(READS)[None, :]) & (STAGE - 1)
        want = blocks[:, cols].sum(axis=2).astype(np.float32).ravel()
        return Setup((n // STAGE,), (256,), (a, np.int32(stride), np.zeros(n // 4, np.float32)),
                     expected={2: want}, rtol=0.0, atol=0.0)
    return build


def _build_local(n, rng):
    a = rng.random(LOCAL * n, dtype=np.float32)
    idx = rng.integers(0, LOCAL, n).astype(np.int32)
    m = a.reshape(n, LOCAL)
    rows = np.arange(n)
    want = m[rows, idx] + m[rows, (idx + 3) & (LOCAL - 1)]
    return Setup(_blocks(n), (256,), (a, idx, np.zeros(n, np.float32)), expected={2: want}, rtol=0.0, atol=0.0)


def _build_fence(n, rng):
    a = rng.random(n, dtype=np.float32)
    grid = _blocks(n)
    return Setup(grid, (256,), (a, np.zeros(n, np.float32), np.zeros(grid[0], np.int32)),
                 expected={1: np.float32(2.0) * a, 2: np.ones(grid[0], np.int32)}, rtol=0.0, atol=0.0)


def _build_pow_erf(n, rng):
    a = (rng.random(n, dtype=np.float32) * np.float32(4.0)).astype(np.float32)
    x = a.astype(np.float64)
    want = (x ** 1.5 + np.vectorize(math.erf)(x)).astype(np.float32)
    return Setup(_blocks(n), (256,), (a, np.zeros(n, np.float32)), expected={1: want}, rtol=1e-5, atol=1e-6)


def _build_divmod(n, rng):
    a = rng.integers(0, 1 << 30, n).astype(np.int32)
    d = np.int32(7919)
    return Setup(_blocks(n), (256,), (a, d, np.zeros(n, np.int32), np.zeros(n, np.int32)),
                 expected={2: a // d, 3: a % d}, rtol=0.0, atol=0.0)


def _build_atomic_max(n, rng):
    v = rng.random(n, dtype=np.float32)
    idx = rng.integers(0, BINS, n).astype(np.int32)
    want = np.full(BINS, -np.inf, np.float32)
    np.maximum.at(want, idx, v)
    return Setup(_blocks(n), (256,), (v, idx, np.full(BINS, -np.inf, np.float32)), expected={2: want},
                 rtol=0.0, atol=0.0)


def _build_few_blocks(n, rng):
    a = rng.random(n, dtype=np.float32)
    return Setup((FEW,), (256,), (a, np.zeros(n, np.float32)), expected={1: np.float32(2.0) * a}, rtol=0.0,
                 atol=0.0)


def _build_store_stride(n, rng):
    m = max(1, n // SPACING)
    a = rng.random(m, dtype=np.float32)
    want = np.zeros(SPACING * m, np.float32)
    want[::SPACING] = a
    return Setup(_blocks(m), (256,), (a, np.zeros(SPACING * m, np.float32)), expected={1: want}, rtol=0.0,
                 atol=0.0)


def _build_gradient(n, rng):
    side = _side(n)
    img = rng.integers(0, 256, (side, side)).astype(np.uint8)
    f = img.astype(np.float64)
    want = np.zeros((side, side))
    gx = f[1:-1, 2:] - f[1:-1, :-2]
    gy = f[2:, 1:-1] - f[:-2, 1:-1]
    want[1:-1, 1:-1] = np.sqrt(gx * gx + gy * gy)
    return Setup(_grid2(side, side, 32, 8), (32, 8), (img, np.zeros((side, side), np.float32)),
                 expected={1: want.astype(np.float32)}, rtol=1e-6, atol=1e-6)


def _build_pitched(n, rng):
    rows = max(4, n // PITCH)
    src = rng.random((rows, PITCH), dtype=np.float32)
    return Setup(_grid2(WIDTH, rows, 32, 4), (32, 4), (src, np.int32(FIRST), np.zeros((rows, WIDTH), np.float32)),
                 expected={2: src[:, FIRST:FIRST + WIDTH].copy()}, rtol=0.0, atol=0.0)


def _build_count(n, rng):
    a = rng.random(n, dtype=np.float32)
    thr = np.float32(0.3)
    grid = _blocks(n)
    want = np.add.reduceat((a > thr).astype(np.int32), np.arange(0, n, 256)).astype(np.int32)
    return Setup(grid, (256,), (a, thr, np.zeros(grid[0], np.int32)), expected={2: want}, rtol=0.0, atol=0.0)


def _build_lut(n, rng):
    lut = rng.random((LUT, LUT), dtype=np.float32)
    a = rng.integers(0, LUT, n).astype(np.uint8)
    b = rng.integers(0, LUT, n).astype(np.uint8)
    return Setup(_blocks(n), (256,), (lut, a, b, np.zeros(n, np.float32)), expected={3: lut[a, b]}, rtol=0.0,
                 atol=0.0)


def _build_log(n, rng):
    a = rng.random(n) * 20.0 - 10.0
    return Setup(_blocks(n), (256,), (a, np.zeros(n, np.float64)), expected={1: np.log(1.0 + a * a)},
                 rtol=1e-12, atol=1e-14)


def _build_any(n, rng):
    n = max(256, n // 256 * 256)
    a = np.ones(n, np.float32)
    a[rng.random(n) < 0.005] = np.float32(-1.0)    # a warp holds a negative value about 15% of the time
    want = (a.reshape(-1, 32) < 0).any(axis=1).astype(np.int32)
    return Setup((n // 256,), (256,), (a, np.zeros(n // 32, np.int32)), expected={1: want}, rtol=0.0, atol=0.0)


def _build_rowdot(n, rng):
    rows = max(1, n // ROW)
    a = _small_ints(rows * ROW, rng).reshape(rows, ROW)
    b = _small_ints(rows * ROW, rng).reshape(rows, ROW)
    want = (a.astype(np.float64) * b).sum(axis=1).astype(np.float32)
    return Setup((rows,), (ROW,), (a, b, np.zeros(rows, np.float32)), expected={2: want}, rtol=0.0, atol=0.0)


CASES = [
    Case("homework", "shared_stride1", shared_stride, _build_shared_stride(1), SIZES,
         "1024 floats staged in shared memory, 16 read a thread at stride 1 (no bank conflict)"),
    Case("homework", "shared_stride4", shared_stride, _build_shared_stride(4), SIZES,
         "1024 floats staged in shared memory, 16 read a thread at stride 4 (4-way bank conflicts)"),
    Case("homework", "shared_stride8", shared_stride, _build_shared_stride(8), SIZES,
         "1024 floats staged in shared memory, 16 read a thread at stride 8 (8-way bank conflicts)"),
    Case("homework", "local_dyn_index", local_dyn_index, _build_local, SIZES,
         "eight floats a thread in a local array, two read back at data-dependent indices"),
    Case("homework", "fence_store", fence_store, _build_fence, SIZES, "2 a, a threadfence a thread, a flag a block"),
    Case("homework", "pow_erf", pow_erf, _build_pow_erf, SIZES, "a ** 1.5 + erf(a), float32"),
    Case("homework", "divmod_runtime", divmod_runtime, _build_divmod, SIZES,
         "int32 quotient and remainder by a divisor given at run time"),
    Case("homework", "atomic_max_f32", atomic_max_f32, _build_atomic_max, SIZES,
         "float32 values into 64 bins by atomic max"),
    Case("homework", "few_blocks_stream", few_blocks_stream, _build_few_blocks, SIZES,
         "2 a by a grid-stride loop on 16 blocks"),
    Case("homework", "store_stride4", store_stride4, _build_store_stride, SIZES,
         "one word stored in each 16 bytes"),
    Case("homework", "gradient_u8", gradient_u8, _build_gradient, SIZES,
         "gradient magnitude of an 8-bit image into float32, 32x8 blocks"),
    Case("homework", "copy_pitched", copy_pitched, _build_pitched, SIZES,
         "a 960-column window from column 3 of a 1000-column matrix, 32x4 blocks"),
    Case("homework", "count_above_block", count_above_block, _build_count, SIZES,
         "values above a threshold counted a block by syncthreads_count"),
    Case("homework", "lut2d_gather", lut2d_gather, _build_lut, SIZES,
         "a 256x256 float32 table gathered at random byte pairs"),
    Case("homework", "log_f64", log_f64, _build_log, SIZES, "log(1 + a a), float64"),
    Case("homework", "any_negative_warp", any_negative_warp, _build_any, SIZES,
         "a flag a warp, whether any of its values is negative, by any_sync"),
    Case("homework", "rowdot64", rowdot64, _build_rowdot, SIZES,
         "dot products of 64-float rows, a 64-thread block a row, a shared tree"),
]

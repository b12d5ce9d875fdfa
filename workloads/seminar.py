"""Seminar kernels: a tenth out-of-sample check of the timing model, written after ``exercises``.

What the family is for: like ``exercises`` before it, these kernels were written after every model change of
their day had landed (2026-11-29, the session after an in-place swap's slow stores were pinned down), measured
once on the H200 (``docs/hardware/validate_hw.md``) and compared before anything changed for them
(``docs/timing_model.md``). Where earlier families took one shape per idea, these are the variants a seminar
compares side by side, at launch shapes the others do not use (16x16 blocks, blocks of 32, 128, 512 and 1024
threads), so that the variant ratios the issue asks for are tried on kernels the model was not fitted on:

* ``transpose16_naive``, ``transpose16_tiled``, ``transpose16_padded``: a float32 transpose in 16x16 blocks,
  straight, through a 16x16 shared tile (column reads two ways in conflict) and through a 16x17 one;
* ``reduce_seq512``, ``reduce_seq128``: sequential-addressing block reductions, two elements a thread added
  on load, one partial sum a block, in blocks of 512 and of 128 threads;
* ``reduce_warp_atomic``: a warp sum by ``shfl_down_sync``, lane 0 adding it into one float (every warp's
  atomic on the same address);
* ``dot_block_shared``: a dot product, the block's products summed in shared memory, one atomic a block;
* ``hist_shared8``: an 8-bin histogram in shared memory (32 lanes on 8 words), merged with 8 global atomics
  a block;
* ``copy_b32``, ``copy_b1024``: a copy in blocks of 32 and of 1024 threads;
* ``stencil5_shared16``: a 5-point Laplacian through a 16x16 tile with its halo in shared memory (edge
  threads load the halo), edges clamped;
* ``deinterleave_shared``: complex numbers to real and imaginary planes, staged in shared memory (reads two
  words apart: two-way bank conflicts);
* ``scatter_atomic_f32``: ``out[idx[i]] += val[i]`` by float atomics at random bins (a quarter as many bins
  as values);
* ``row_sum_warp``: a warp a 1024-float row, a strided loop then a shuffle reduction;
* ``box9_rows``: a horizontal 9-tap box filter from global memory (eight of nine loads L1 hits), edges
  clamped;
* ``rotate_rows``: each row rotated by a runtime shift (``(x + shift) % w``: a division by a runtime width,
  stores one sector off their lines).

Life of a case: ``build(n, rng)`` draws the inputs (``n`` elements, or an image of about ``n``), computes the
expected output with numpy (integer-valued floats where atomics add in any order, so the sums are exact) and
returns the launch.
"""
import numpy as np

from smsim import cuda
from smsim.case import Case, Setup
from workloads.plain import _blocks, _grid2, _side   # the launch-shape helpers

BIG = 512                 # reduce_seq512's block
SMALL = 128               # reduce_seq128's block
DOT = 256                 # dot_block_shared's block
NBINS = 8                 # hist_shared8's bins
ROWLEN = 1024             # row_sum_warp's row
SHIFT = 37                # rotate_rows' shift
SIZES = {"test": 1 << 15, "full": 1 << 24}


@cuda.jit
def transpose16_naive(a, out):
    """out = a^T, 16x16 blocks."""
    x, y = cuda.grid(2)
    if y < a.shape[0] and x < a.shape[1]:
        out[x, y] = a[y, x]


@cuda.jit
def transpose16_tiled(a, out):
    """out = a^T through a 16x16 shared tile."""
    tile = cuda.shared.array((16, 16), np.float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    x = cuda.blockIdx.x * 16 + tx
    y = cuda.blockIdx.y * 16 + ty
    if y < a.shape[0] and x < a.shape[1]:
        tile[ty, tx] = a[y, x]
    cuda.syncthreads()
    x = cuda.blockIdx.y * 16 + tx
    y = cuda.blockIdx.x * 16 + ty
    if y < out.shape[0] and x < out.shape[1]:
        out[y, x] = tile[tx, ty]


@cuda.jit
def transpose16_padded(a, out):
    """out = a^T through a 16x17 shared tile."""
    tile = cuda.shared.array((16, 17), np.float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    x = cuda.blockIdx.x * 16 + tx
    y = cuda.blockIdx.y * 16 + ty
    if y < a.shape[0] and x < a.shape[1]:
        tile[ty, tx] = a[y, x]
    cuda.syncthreads()
    x = cuda.blockIdx.y * 16 + tx
    y = cuda.blockIdx.x * 16 + ty
    if y < out.shape[0] and x < out.shape[1]:
        out[y, x] = tile[tx, ty]


@cuda.jit
def reduce_seq512(a, partial):
    """partial[b] = the sum of a[1024 b: 1024 b + 1024], 512 threads a block."""
    s = cuda.shared.array(BIG, np.float32)
    t = cuda.threadIdx.x
    i = cuda.blockIdx.x * (2 * BIG) + t
    v = np.float32(0.0)
    if i < a.shape[0]:
        v = a[i]
    if i + BIG < a.shape[0]:
        v += a[i + BIG]
    s[t] = v
    cuda.syncthreads()
    step = BIG // 2
    while step > 0:
        if t < step:
            s[t] += s[t + step]
        cuda.syncthreads()
        step //= 2
    if t == 0:
        partial[cuda.blockIdx.x] = s[0]


@cuda.jit
def reduce_seq128(a, partial):
    """partial[b] = the sum of a[256 b: 256 b + 256], 128 threads a block."""
    s = cuda.shared.array(SMALL, np.float32)
    t = cuda.threadIdx.x
    i = cuda.blockIdx.x * (2 * SMALL) + t
    v = np.float32(0.0)
    if i < a.shape[0]:
        v = a[i]
    if i + SMALL < a.shape[0]:
        v += a[i + SMALL]
    s[t] = v
    cuda.syncthreads()
    step = SMALL // 2
    while step > 0:
        if t < step:
            s[t] += s[t + step]
        cuda.syncthreads()
        step //= 2
    if t == 0:
        partial[cuda.blockIdx.x] = s[0]


@cuda.jit
def reduce_warp_atomic(a, total):
    """total[0] += each warp's sum of a (by shfl_down_sync), one atomic a warp."""
    i = cuda.grid(1)
    v = np.float32(0.0)
    if i < a.shape[0]:
        v = a[i]
    off = 16
    while off > 0:
        v += cuda.shfl_down_sync(0xFFFFFFFF, v, off)
        off //= 2
    if cuda.laneid == 0:
        cuda.atomic.add(total, 0, v)


@cuda.jit
def dot_block_shared(a, b, total):
    """total[0] += each block's sum of a * b, summed in shared memory."""
    s = cuda.shared.array(DOT, np.float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    v = np.float32(0.0)
    if i < a.shape[0]:
        v = a[i] * b[i]
    s[t] = v
    cuda.syncthreads()
    step = DOT // 2
    while step > 0:
        if t < step:
            s[t] += s[t + step]
        cuda.syncthreads()
        step //= 2
    if t == 0:
        cuda.atomic.add(total, 0, s[0])


@cuda.jit
def hist_shared8(data, bins):
    """bins[v & 7] += 1 for each v of data, counted in shared memory a block, then merged."""
    h = cuda.shared.array(NBINS, np.int32)
    t = cuda.threadIdx.x
    if t < NBINS:
        h[t] = 0
    cuda.syncthreads()
    i = cuda.grid(1)
    if i < data.shape[0]:
        cuda.atomic.add(h, data[i] & (NBINS - 1), 1)
    cuda.syncthreads()
    if t < NBINS:
        cuda.atomic.add(bins, t, h[t])


@cuda.jit
def copy_b32(a, out):
    """out = a, blocks of 32 threads."""
    i = cuda.grid(1)
    if i < a.shape[0]:
        out[i] = a[i]


@cuda.jit
def copy_b1024(a, out):
    """out = a, blocks of 1024 threads."""
    i = cuda.grid(1)
    if i < a.shape[0]:
        out[i] = a[i]


@cuda.jit
def stencil5_shared16(a, out):
    """out = 4 a - (its four neighbours), edges clamped, through an 18x18 shared tile."""
    s = cuda.shared.array((18, 18), np.float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    h = a.shape[0]
    w = a.shape[1]
    x = cuda.blockIdx.x * 16 + tx
    y = cuda.blockIdx.y * 16 + ty
    xc = min(x, w - 1)
    yc = min(y, h - 1)
    s[ty + 1, tx + 1] = a[yc, xc]
    if tx == 0:
        s[ty + 1, 0] = a[yc, max(xc - 1, 0)]
    if tx == 15:
        s[ty + 1, 17] = a[yc, min(xc + 1, w - 1)]
    if ty == 0:
        s[0, tx + 1] = a[max(yc - 1, 0), xc]
    if ty == 15:
        s[17, tx + 1] = a[min(yc + 1, h - 1), xc]
    cuda.syncthreads()
    if x < w and y < h:
        out[y, x] = (np.float32(4.0) * s[ty + 1, tx + 1] - s[ty, tx + 1] - s[ty + 2, tx + 1]
                     - s[ty + 1, tx] - s[ty + 1, tx + 2])


@cuda.jit
def deinterleave_shared(z, re, im):
    """re[i] = z[2 i], im[i] = z[2 i + 1], staged 512 floats a block in shared memory."""
    s = cuda.shared.array(512, np.float32)
    t = cuda.threadIdx.x
    base = cuda.blockIdx.x * 512
    s[t] = z[base + t]
    s[t + 256] = z[base + t + 256]
    cuda.syncthreads()
    i = cuda.blockIdx.x * 256 + t
    re[i] = s[2 * t]
    im[i] = s[2 * t + 1]


@cuda.jit
def scatter_atomic_f32(idx, val, out):
    """out[idx[i]] += val[i] by float atomics."""
    i = cuda.grid(1)
    if i < idx.shape[0]:
        cuda.atomic.add(out, idx[i], val[i])


@cuda.jit
def row_sum_warp(m, out):
    """out[r] = the sum of row r of m, a warp a row."""
    r = cuda.grid(1) // 32
    lane = cuda.laneid
    if r < m.shape[0]:
        acc = np.float32(0.0)
        for c in range(lane, ROWLEN, 32):
            acc += m[r, c]
        off = 16
        while off > 0:
            acc += cuda.shfl_down_sync(0xFFFFFFFF, acc, off)
            off //= 2
        if lane == 0:
            out[r] = acc


@cuda.jit
def box9_rows(a, out):
    """out[y, x] = the mean of a[y, x - 4: x + 5], edges clamped."""
    x, y = cuda.grid(2)
    h = a.shape[0]
    w = a.shape[1]
    if y < h and x < w:
        acc = np.float32(0.0)
        for d in range(-4, 5):
            acc += a[y, min(max(x + d, 0), w - 1)]
        out[y, x] = acc * np.float32(1.0 / 9.0)


@cuda.jit
def rotate_rows(a, shift, out):
    """out[y, (x + shift) % w] = a[y, x]."""
    x, y = cuda.grid(2)
    h = a.shape[0]
    w = a.shape[1]
    if y < h and x < w:
        out[y, (x + shift) % w] = a[y, x]


def _build_transpose(n, rng):
    side = _side(n) // 16 * 16
    a = rng.random((side, side), dtype=np.float32)
    return Setup(_grid2(side, side, 16, 16), (16, 16), (a, np.zeros_like(a)), expected={1: a.T.copy()},
                 rtol=0.0, atol=0.0)


def _small_ints(n, rng):
    """Floats holding small integers: their sums are exact in float32 whatever the order."""
    return rng.integers(0, 4, n).astype(np.float32)


def _build_reduce(block):
    def build(n, rng):
        a = _small_ints(n, rng)
        per = 2 * block
        blocks = (n + per - 1) // per
        want = np.add.reduceat(a, np.arange(0, n, per)).astype(np.float32)
        return Setup((blocks,), (block,), (a, np.zeros(blocks, np.float32)), expected={1: want}, rtol=0.0,
                     atol=0.0)
    return build


def _build_warp_atomic(n, rng):
    a = _small_ints(n, rng)
    # a warp's sum is exact; their running total is exact in float32 below 2^24 and rounded above it
    return Setup(_blocks(n), (256,), (a, np.zeros(1, np.float32)),
                 expected={1: np.array([a.astype(np.float64).sum()], np.float32)}, rtol=1e-4, atol=0.0)


def _build_dot(n, rng):
    a = _small_ints(n, rng)
    b = _small_ints(n, rng)
    want = np.array([(a.astype(np.float64) * b).sum()], np.float32)
    return Setup(_blocks(n, DOT), (DOT,), (a, b, np.zeros(1, np.float32)), expected={2: want}, rtol=1e-4,
                 atol=0.0)


def _build_hist(n, rng):
    data = rng.integers(0, 1 << 20, n).astype(np.int32)
    want = np.bincount(data & (NBINS - 1), minlength=NBINS).astype(np.int32)
    return Setup(_blocks(n), (256,), (data, np.zeros(NBINS, np.int32)), expected={1: want}, rtol=0.0, atol=0.0)


def _build_copy(block):
    def build(n, rng):
        a = rng.random(n, dtype=np.float32)
        return Setup(_blocks(n, block), (block,), (a, np.zeros_like(a)), expected={1: a.copy()}, rtol=0.0,
                     atol=0.0)
    return build


def _build_stencil(n, rng):
    side = _side(n)
    a = rng.random((side, side - 3), dtype=np.float32)        # not a multiple of 16 either way
    p = np.pad(a, 1, mode="edge")
    want = 4 * p[1:-1, 1:-1] - p[:-2, 1:-1] - p[2:, 1:-1] - p[1:-1, :-2] - p[1:-1, 2:]
    h, w = a.shape
    return Setup(_grid2(w, h, 16, 16), (16, 16), (a, np.zeros_like(a)), expected={1: want}, rtol=1e-6,
                 atol=1e-6)


def _build_deinterleave(n, rng):
    n = n // 512 * 512
    z = rng.random(2 * n, dtype=np.float32)
    return Setup((n // 256,), (256,), (z, np.zeros(n, np.float32), np.zeros(n, np.float32)),
                 expected={1: z[0::2].copy(), 2: z[1::2].copy()}, rtol=0.0, atol=0.0)


def _build_scatter(n, rng):
    bins = max(1, n // 4)
    idx = rng.integers(0, bins, n).astype(np.int32)
    val = _small_ints(n, rng)
    want = np.zeros(bins, np.float64)
    np.add.at(want, idx, val)
    return Setup(_blocks(n), (256,), (idx, val, np.zeros(bins, np.float32)), expected={2: want.astype(np.float32)},
                 rtol=0.0, atol=0.0)


def _build_row_sum(n, rng):
    rows = max(1, n // ROWLEN)
    m = _small_ints(rows * ROWLEN, rng).reshape(rows, ROWLEN)
    return Setup(_blocks(32 * rows), (256,), (m, np.zeros(rows, np.float32)),
                 expected={1: m.sum(axis=1, dtype=np.float64).astype(np.float32)}, rtol=0.0, atol=0.0)


def _build_box(n, rng):
    side = _side(n)
    a = rng.random((side, side), dtype=np.float32)
    p = np.pad(a.astype(np.float64), ((0, 0), (4, 4)), mode="edge")
    want = sum(p[:, d:d + side] for d in range(9)) / 9.0
    return Setup(_grid2(side, side, 32, 8), (32, 8), (a, np.zeros_like(a)), expected={1: want.astype(np.float32)},
                 rtol=1e-5, atol=1e-6)


def _build_rotate(n, rng):
    side = _side(n)
    a = rng.random((side, side), dtype=np.float32)
    return Setup(_grid2(side, side, 32, 8), (32, 8), (a, np.int32(SHIFT), np.zeros_like(a)),
                 expected={2: np.roll(a, SHIFT, axis=1)}, rtol=0.0, atol=0.0)


CASES = [
    Case("seminar", "transpose16_naive", transpose16_naive, _build_transpose, SIZES,
         "float32 transpose, 16x16 blocks"),
    Case("seminar", "transpose16_tiled", transpose16_tiled, _build_transpose, SIZES,
         "float32 transpose through a 16x16 shared tile"),
    Case("seminar", "transpose16_padded", transpose16_padded, _build_transpose, SIZES,
         "float32 transpose through a 16x17 shared tile"),
    Case("seminar", "reduce_seq512", reduce_seq512, _build_reduce(BIG), SIZES,
         "sequential-addressing block reduction, 512 threads, two elements a thread"),
    Case("seminar", "reduce_seq128", reduce_seq128, _build_reduce(SMALL), SIZES,
         "sequential-addressing block reduction, 128 threads, two elements a thread"),
    Case("seminar", "reduce_warp_atomic", reduce_warp_atomic, _build_warp_atomic, SIZES,
         "warp sums by shfl_down_sync, one float atomic a warp into one address"),
    Case("seminar", "dot_block_shared", dot_block_shared, _build_dot, SIZES,
         "dot product, a block's sum in shared memory, one atomic a block"),
    Case("seminar", "hist_shared8", hist_shared8, _build_hist, SIZES,
         "8-bin histogram in shared memory, merged by global atomics"),
    Case("seminar", "copy_b32", copy_b32, _build_copy(32), SIZES, "copy in blocks of 32 threads"),
    Case("seminar", "copy_b1024", copy_b1024, _build_copy(1024), SIZES, "copy in blocks of 1024 threads"),
    Case("seminar", "stencil5_shared16", stencil5_shared16, _build_stencil, SIZES,
         "5-point Laplacian through a 16x16 shared tile with its halo, edges clamped"),
    Case("seminar", "deinterleave_shared", deinterleave_shared, _build_deinterleave, SIZES,
         "complex to real and imaginary planes through shared memory"),
    Case("seminar", "scatter_atomic_f32", scatter_atomic_f32, _build_scatter, SIZES,
         "float atomics at random bins, a quarter as many bins as values"),
    Case("seminar", "row_sum_warp", row_sum_warp, _build_row_sum, SIZES, "1024-float rows summed, a warp a row"),
    Case("seminar", "box9_rows", box9_rows, _build_box, SIZES, "horizontal 9-tap box filter, edges clamped"),
    Case("seminar", "rotate_rows", rotate_rows, _build_rotate, SIZES, "each row rotated by a runtime shift"),
]

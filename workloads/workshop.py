"""Workshop kernels: a twelfth out-of-sample check of the timing model, written after ``tutorial``.

What the family is for: like ``tutorial`` before it, these kernels were written after every model change of
their day had landed (2026-11-30, the session after HBM's loaded waits became draws), with smsim's
predictions written down before the H200 ran them (``docs/hardware/validate_hw.md``), and compared before
anything changed for them (``docs/timing_model.md``). They are what a GPU workshop's hands-on part has people
write, in patterns no family used before: a data-dependent ``while`` loop, register blocking, an in-place
square transpose, a warp a row with two shuffle passes, a full bitonic sort in shared memory, float64 atomics,
blocks of 640 and of 64 threads, a fixed 2-D grid-stride grid:

* ``searchsorted``: a binary search of each query in a sorted table of 4096 floats (a ``while`` loop whose
  trip count and loads depend on the data);
* ``gemm_reg4``: ``C = A B`` through 32x32 shared tiles, 32x8 threads, four outputs a thread (register
  blocking);
* ``transpose_inplace``: a square float32 matrix transposed in place, each thread above the diagonal swapping
  its element with its mirror (32x8 blocks, half the threads idle);
* ``layernorm_warp``: each 1024-float row normalized to zero mean and unit variance, a warp a row (shuffle
  sums for the mean and the variance, 128-thread blocks);
* ``conv1d_shared_k15``: a 15-tap 1-D convolution through a shared tile with a halo of 7, 128-thread blocks,
  the taps read from global memory;
* ``radix_count16``: counts of a 4-bit digit of 32-bit keys, 16 shared counters a block merged into 16 global
  ones by atomics (every block adds into the same 16 words);
* ``bitonic_shared256``: each 256-float block sorted in shared memory by a full bitonic network (36
  barrier-separated steps);
* ``mask_select``: ``out = a`` where a byte mask is set, else 0;
* ``index_cols``: ``out[r, c] = a[r, idx[c]]``, the columns of a 256-wide matrix permuted (32x8 blocks);
* ``vadd_b640``: ``c = a + b`` in blocks of 640 threads (20 warps: three blocks fill 60 of an SM's 64);
* ``batched_mat8``: a batch of 8x8 matrix products, a 64-thread block a product;
* ``rk4_pendulum``: eight RK4 steps of a pendulum (``theta'' = -sin(theta)``), a thread a pendulum;
* ``atomic_f64_bins``: float64 values added into 256 bins by global atomics;
* ``grid_stride_2d``: ``out = 2 a + 1`` over an image by a 2-D grid-stride loop on a fixed 16x16 grid of 32x8
  blocks;
* ``dot4_i8``: ``out[i] = sum_k a[4 i + k] b[4 i + k]`` of int8 vectors into int32 (four one-byte loads of
  each a thread);
* ``colmean_tile``: the column sums of a 1024-column matrix, a 32x8 block a 32x64 tile, eight partial sums a
  column in shared memory, one global atomic a column a block.

Life of a case: ``build(n, rng)`` draws the inputs (``n`` elements, or an image or matrix of about ``n``),
computes the expected output with numpy (integer-valued floats or integers where atomics add in any order, so
the sums are exact) and returns the launch.
"""
import math

import numpy as np

from smsim import cuda
from smsim.case import Case, Setup
from workloads.plain import _blocks, _grid2, _side   # the launch-shape helpers
from workloads.seminar import _small_ints         # floats holding small integers: exact sums in any order

TABLE = 4096              # searchsorted's sorted table
TILE = 32                 # gemm_reg4's tile side
ROWS_A_THREAD = 4         # gemm_reg4's outputs a thread (TILE / its 8 thread rows)
ROW = 1024                # layernorm_warp's row; colmean_tile's columns
TAPS = 15                 # conv1d_shared_k15's taps
HALO = TAPS // 2
CONV_BLOCK = 128
CONV_TILE = CONV_BLOCK + 2 * HALO     # numba sizes a shared array by a constant
DIGITS = 16               # radix_count16's counters
SORT = 256                # bitonic_shared256's block
COLS = 256                # index_cols' columns
MAT = 8                   # batched_mat8's side
STEPS = 8                 # rk4_pendulum's steps
DT = 0.05
BINS = 256                # atomic_f64_bins' bins
GS_GRID = (16, 16)        # grid_stride_2d's grid of 32x8 blocks
TILE_ROWS = 64            # colmean_tile's rows a block
SIZES = {"test": 1 << 15, "full": 1 << 24}
RK4_SIZES = {"test": 1 << 13, "full": 1 << 22}   # eight steps of four sines a thread: a quarter the elements


@cuda.jit
def searchsorted(table, q, out):
    """out[i] = the first position of the sorted table whose value is not below q[i]."""
    i = cuda.grid(1)
    if i < q.shape[0]:
        v = q[i]
        lo = 0
        hi = table.shape[0]
        while lo < hi:
            mid = (lo + hi) // 2
            if table[mid] < v:
                lo = mid + 1
            else:
                hi = mid
        out[i] = lo


@cuda.jit
def gemm_reg4(a, b, c):
    """c = a b (square, a multiple of 32), 32x32 shared tiles, 32x8 threads, rows ty, ty + 8, ... a thread."""
    sa = cuda.shared.array((TILE, TILE), np.float32)
    sb = cuda.shared.array((TILE, TILE), np.float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    col = cuda.blockIdx.x * TILE + tx
    row0 = cuda.blockIdx.y * TILE
    n = a.shape[0]
    acc0 = np.float32(0.0)
    acc1 = np.float32(0.0)
    acc2 = np.float32(0.0)
    acc3 = np.float32(0.0)
    for t in range(0, n, TILE):
        for r in range(ty, TILE, 8):
            sa[r, tx] = a[row0 + r, t + tx]
            sb[r, tx] = b[t + r, col]
        cuda.syncthreads()
        for k in range(TILE):
            bk = sb[k, tx]
            acc0 += sa[ty, k] * bk
            acc1 += sa[ty + 8, k] * bk
            acc2 += sa[ty + 16, k] * bk
            acc3 += sa[ty + 24, k] * bk
        cuda.syncthreads()
    c[row0 + ty, col] = acc0
    c[row0 + ty + 8, col] = acc1
    c[row0 + ty + 16, col] = acc2
    c[row0 + ty + 24, col] = acc3


@cuda.jit
def transpose_inplace(a):
    """a = a^T in place: the thread at (y, x) above the diagonal swaps a[y, x] and a[x, y]."""
    x, y = cuda.grid(2)
    if y < a.shape[0] and x < a.shape[1] and x > y:
        t = a[y, x]
        a[y, x] = a[x, y]
        a[x, y] = t


@cuda.jit
def layernorm_warp(a, out):
    """Each row of a to zero mean and unit variance, a warp a row."""
    row = cuda.grid(1) // 32
    lane = cuda.threadIdx.x % 32
    if row < a.shape[0]:
        s = np.float32(0.0)
        for j in range(lane, ROW, 32):
            s += a[row, j]
        for d in (16, 8, 4, 2, 1):
            s += cuda.shfl_xor_sync(0xFFFFFFFF, s, d)
        mean = s / np.float32(ROW)
        v = np.float32(0.0)
        for j in range(lane, ROW, 32):
            e = a[row, j] - mean
            v += e * e
        for d in (16, 8, 4, 2, 1):
            v += cuda.shfl_xor_sync(0xFFFFFFFF, v, d)
        inv = np.float32(1.0) / math.sqrt(v / np.float32(ROW) + np.float32(1e-5))
        for j in range(lane, ROW, 32):
            out[row, j] = (a[row, j] - mean) * inv


@cuda.jit
def conv1d_shared_k15(a, w, out):
    """out[i] = sum over k of w[k] a[i + k - 7] (a taken as 0 outside), through a shared tile with its halo."""
    tile = cuda.shared.array(CONV_TILE, np.float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    n = a.shape[0]
    base = cuda.blockIdx.x * CONV_BLOCK - HALO
    for j in range(t, CONV_TILE, CONV_BLOCK):
        g = base + j
        tile[j] = a[g] if g >= 0 and g < n else np.float32(0.0)
    cuda.syncthreads()
    if i < n:
        acc = np.float32(0.0)
        for k in range(TAPS):
            acc += w[k] * tile[t + k]
        out[i] = acc


@cuda.jit
def radix_count16(keys, shift, counts):
    """counts[d] += how many keys have (key >> shift) & 15 == d, through 16 shared counters a block."""
    local = cuda.shared.array(DIGITS, np.int32)
    t = cuda.threadIdx.x
    if t < DIGITS:
        local[t] = 0
    cuda.syncthreads()
    i = cuda.grid(1)
    if i < keys.shape[0]:
        cuda.atomic.add(local, (keys[i] >> shift) & 15, 1)
    cuda.syncthreads()
    if t < DIGITS:
        cuda.atomic.add(counts, t, local[t])


@cuda.jit
def bitonic_shared256(a):
    """Each 256-element block of a sorted ascending in place, by a bitonic network in shared memory."""
    s = cuda.shared.array(SORT, np.float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    s[t] = a[i]
    cuda.syncthreads()
    k = 2
    while k <= SORT:
        j = k // 2
        while j > 0:
            p = t ^ j
            if p > t:
                x = s[t]
                y = s[p]
                if ((t & k) == 0 and x > y) or ((t & k) != 0 and x < y):
                    s[t] = y
                    s[p] = x
            cuda.syncthreads()
            j //= 2
        k *= 2
    a[i] = s[t]


@cuda.jit
def mask_select(a, m, out):
    """out = a where the byte mask m is set, else 0."""
    i = cuda.grid(1)
    if i < a.shape[0]:
        out[i] = a[i] if m[i] != 0 else np.float32(0.0)


@cuda.jit
def index_cols(a, idx, out):
    """out[r, c] = a[r, idx[c]]."""
    c, r = cuda.grid(2)
    if r < out.shape[0] and c < out.shape[1]:
        out[r, c] = a[r, idx[c]]


@cuda.jit
def vadd_b640(a, b, c):
    """c = a + b, blocks of 640 threads."""
    i = cuda.grid(1)
    if i < c.shape[0]:
        c[i] = a[i] + b[i]


@cuda.jit
def batched_mat8(a, b, c):
    """c[m] = a[m] b[m] for a batch of 8x8 matrices, a 64-thread block a product."""
    m = cuda.blockIdx.x
    r = cuda.threadIdx.x // MAT
    col = cuda.threadIdx.x % MAT
    if m < c.shape[0]:
        acc = np.float32(0.0)
        for k in range(MAT):
            acc += a[m, r, k] * b[m, k, col]
        c[m, r, col] = acc


@cuda.jit
def rk4_pendulum(theta, omega):
    """Eight RK4 steps of theta'' = -sin(theta), in place."""
    i = cuda.grid(1)
    if i < theta.shape[0]:
        th = theta[i]
        om = omega[i]
        h = np.float32(DT)
        half = np.float32(0.5) * h
        for _ in range(STEPS):
            k1t = om
            k1o = -math.sin(th)
            k2t = om + half * k1o
            k2o = -math.sin(th + half * k1t)
            k3t = om + half * k2o
            k3o = -math.sin(th + half * k2t)
            k4t = om + h * k3o
            k4o = -math.sin(th + h * k3t)
            th += h / np.float32(6.0) * (k1t + np.float32(2.0) * k2t + np.float32(2.0) * k3t + k4t)
            om += h / np.float32(6.0) * (k1o + np.float32(2.0) * k2o + np.float32(2.0) * k3o + k4o)
        theta[i] = th
        omega[i] = om


@cuda.jit
def atomic_f64_bins(v, idx, bins):
    """bins[idx[i]] += v[i], float64 atomics."""
    i = cuda.grid(1)
    if i < v.shape[0]:
        cuda.atomic.add(bins, idx[i], v[i])


@cuda.jit
def grid_stride_2d(a, out):
    """out = 2 a + 1 by a 2-D grid-stride loop."""
    x0, y0 = cuda.grid(2)
    sx, sy = cuda.gridsize(2)
    for y in range(y0, a.shape[0], sy):
        for x in range(x0, a.shape[1], sx):
            out[y, x] = np.float32(2.0) * a[y, x] + np.float32(1.0)


@cuda.jit
def dot4_i8(a, b, out):
    """out[i] = the dot of a[4 i: 4 i + 4] and b[4 i: 4 i + 4], int8 into int32."""
    i = cuda.grid(1)
    if i < out.shape[0]:
        acc = 0
        for k in range(4):
            acc += np.int32(a[4 * i + k]) * np.int32(b[4 * i + k])
        out[i] = acc


@cuda.jit
def colmean_tile(a, out):
    """out[c] += the sum of column c over the block's 64 rows (eight partial sums a column in shared)."""
    part = cuda.shared.array((8, 32), np.float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    c = cuda.blockIdx.x * 32 + tx
    r0 = cuda.blockIdx.y * TILE_ROWS
    s = np.float32(0.0)
    for r in range(r0 + ty, r0 + TILE_ROWS, 8):
        if r < a.shape[0]:
            s += a[r, c]
    part[ty, tx] = s
    cuda.syncthreads()
    if ty == 0:
        for k in range(1, 8):
            s += part[k, tx]
        cuda.atomic.add(out, c, s)


def _floats(n, rng):
    return rng.random(n, dtype=np.float32)


def _build_searchsorted(n, rng):
    table = np.sort(_floats(TABLE, rng))
    q = _floats(n, rng)
    want = np.searchsorted(table, q, side="left").astype(np.int32)
    return Setup(_blocks(n), (256,), (table, q, np.zeros(n, np.int32)), expected={2: want}, rtol=0.0, atol=0.0)


def _build_gemm(n, rng):
    side = max(64, _side(n) // 4 // TILE * TILE)
    a = _small_ints(side * side, rng).reshape(side, side)
    b = _small_ints(side * side, rng).reshape(side, side)
    want = (a.astype(np.float64) @ b).astype(np.float32)
    return Setup(_grid2(side, side, TILE, TILE), (TILE, 8), (a, b, np.zeros_like(a)), expected={2: want},
                 rtol=0.0, atol=0.0)


def _build_transpose_inplace(n, rng):
    side = _side(n) // 32 * 32
    a = rng.random((side, side), dtype=np.float32)
    return Setup(_grid2(side, side, 32, 8), (32, 8), (a.copy(),), expected={0: a.T.copy()}, rtol=0.0, atol=0.0)


def _build_layernorm(n, rng):
    rows = max(4, n // ROW)
    a = rng.standard_normal((rows, ROW), dtype=np.float32) * np.float32(2.0) + np.float32(1.0)
    a64 = a.astype(np.float64)
    mean = a64.mean(axis=1, keepdims=True)
    want = (a64 - mean) / np.sqrt(((a64 - mean) ** 2).mean(axis=1, keepdims=True) + 1e-5)
    return Setup(_blocks(32 * rows, 128), (128,), (a, np.zeros_like(a)), expected={1: want.astype(np.float32)},
                 rtol=1e-4, atol=1e-4)


def _build_conv1d(n, rng):
    a = _small_ints(n, rng)
    w = _small_ints(TAPS, rng)
    p = np.pad(a.astype(np.float64), HALO)
    want = sum(w[k] * p[k:k + n] for k in range(TAPS)).astype(np.float32)
    return Setup(_blocks(n, CONV_BLOCK), (CONV_BLOCK,), (a, w, np.zeros(n, np.float32)), expected={2: want},
                 rtol=0.0, atol=0.0)


def _build_radix(n, rng):
    keys = rng.integers(0, 1 << 32, n, dtype=np.uint64).astype(np.uint32)
    shift = 8
    want = np.bincount((keys >> shift) & 15, minlength=DIGITS).astype(np.int32)
    return Setup(_blocks(n), (256,), (keys, np.uint32(shift), np.zeros(DIGITS, np.int32)), expected={2: want},
                 rtol=0.0, atol=0.0)


def _build_bitonic(n, rng):
    n = max(SORT, n // SORT * SORT)
    a = _floats(n, rng)
    want = np.sort(a.reshape(-1, SORT), axis=1).ravel()
    return Setup((n // SORT,), (SORT,), (a.copy(),), expected={0: want}, rtol=0.0, atol=0.0)


def _build_mask(n, rng):
    a = _floats(n, rng)
    m = (rng.random(n) < 0.5).astype(np.uint8)
    return Setup(_blocks(n), (256,), (a, m, np.zeros(n, np.float32)),
                 expected={2: np.where(m != 0, a, np.float32(0.0))}, rtol=0.0, atol=0.0)


def _build_index_cols(n, rng):
    rows = max(8, n // COLS)
    a = _floats(rows * COLS, rng).reshape(rows, COLS)
    idx = rng.permutation(COLS).astype(np.int32)
    return Setup(_grid2(COLS, rows, 32, 8), (32, 8), (a, idx, np.zeros_like(a)), expected={2: a[:, idx]},
                 rtol=0.0, atol=0.0)


def _build_vadd(n, rng):
    a = _floats(n, rng)
    b = _floats(n, rng)
    return Setup(_blocks(n, 640), (640,), (a, b, np.zeros(n, np.float32)), expected={2: a + b}, rtol=0.0,
                 atol=0.0)


def _build_batched(n, rng):
    m = max(1, n // (MAT * MAT))
    a = _small_ints(m * MAT * MAT, rng).reshape(m, MAT, MAT)
    b = _small_ints(m * MAT * MAT, rng).reshape(m, MAT, MAT)
    want = np.matmul(a.astype(np.float64), b).astype(np.float32)
    return Setup((m,), (MAT * MAT,), (a, b, np.zeros_like(a)), expected={2: want}, rtol=0.0, atol=0.0)


def _build_rk4(n, rng):
    th = (rng.random(n) * 2.0 - 1.0).astype(np.float32)
    om = (rng.random(n) * 2.0 - 1.0).astype(np.float32)
    t, o = th.astype(np.float64), om.astype(np.float64)
    h = DT
    for _ in range(STEPS):
        k1t, k1o = o, -np.sin(t)
        k2t, k2o = o + h / 2 * k1o, -np.sin(t + h / 2 * k1t)
        k3t, k3o = o + h / 2 * k2o, -np.sin(t + h / 2 * k2t)
        k4t, k4o = o + h * k3o, -np.sin(t + h * k3t)
        t = t + h / 6 * (k1t + 2 * k2t + 2 * k3t + k4t)
        o = o + h / 6 * (k1o + 2 * k2o + 2 * k3o + k4o)
    return Setup(_blocks(n), (256,), (th.copy(), om.copy()),
                 expected={0: t.astype(np.float32), 1: o.astype(np.float32)}, rtol=1e-4, atol=1e-5)


def _build_atomic_f64(n, rng):
    v = rng.integers(0, 4, n).astype(np.float64)
    idx = rng.integers(0, BINS, n).astype(np.int32)
    want = np.bincount(idx, weights=v, minlength=BINS)
    return Setup(_blocks(n), (256,), (v, idx, np.zeros(BINS, np.float64)), expected={2: want}, rtol=0.0,
                 atol=0.0)


def _build_grid_stride_2d(n, rng):
    side = _side(n)
    a = rng.random((side, side), dtype=np.float32)
    return Setup(GS_GRID, (32, 8), (a, np.zeros_like(a)), expected={1: np.float32(2.0) * a + np.float32(1.0)},
                 rtol=0.0, atol=0.0)


def _build_dot4(n, rng):
    a = rng.integers(-128, 128, 4 * n).astype(np.int8)
    b = rng.integers(-128, 128, 4 * n).astype(np.int8)
    want = (a.astype(np.int32) * b.astype(np.int32)).reshape(n, 4).sum(axis=1).astype(np.int32)
    return Setup(_blocks(n), (256,), (a, b, np.zeros(n, np.int32)), expected={2: want}, rtol=0.0, atol=0.0)


def _build_colmean(n, rng):
    rows = max(TILE_ROWS, n // ROW // TILE_ROWS * TILE_ROWS)
    a = _small_ints(rows * ROW, rng).reshape(rows, ROW)
    want = a.astype(np.float64).sum(axis=0).astype(np.float32)
    return Setup((ROW // 32, rows // TILE_ROWS), (32, 8), (a, np.zeros(ROW, np.float32)), expected={1: want},
                 rtol=0.0, atol=0.0)


CASES = [
    Case("workshop", "searchsorted", searchsorted, _build_searchsorted, SIZES,
         "binary search of each query in a sorted table of 4096 floats (a data-dependent while loop)"),
    Case("workshop", "gemm_reg4", gemm_reg4, _build_gemm, SIZES,
         "matrix product through 32x32 shared tiles, 32x8 threads, four outputs a thread"),
    Case("workshop", "transpose_inplace", transpose_inplace, _build_transpose_inplace, SIZES,
         "square float32 transpose in place, a thread above the diagonal a swap"),
    Case("workshop", "layernorm_warp", layernorm_warp, _build_layernorm, SIZES,
         "1024-float rows to zero mean and unit variance, a warp a row"),
    Case("workshop", "conv1d_shared_k15", conv1d_shared_k15, _build_conv1d, SIZES,
         "15-tap 1-D convolution through a shared tile with its halo, 128-thread blocks"),
    Case("workshop", "radix_count16", radix_count16, _build_radix, SIZES,
         "counts of a 4-bit digit: 16 shared counters a block, merged by global atomics"),
    Case("workshop", "bitonic_shared256", bitonic_shared256, _build_bitonic, SIZES,
         "256-float blocks sorted by a bitonic network in shared memory"),
    Case("workshop", "mask_select", mask_select, _build_mask, SIZES, "values where a byte mask is set, else 0"),
    Case("workshop", "index_cols", index_cols, _build_index_cols, SIZES,
         "the columns of a 256-wide matrix permuted, 32x8 blocks"),
    Case("workshop", "vadd_b640", vadd_b640, _build_vadd, SIZES, "vector add in blocks of 640 threads"),
    Case("workshop", "batched_mat8", batched_mat8, _build_batched, SIZES,
         "a batch of 8x8 matrix products, a 64-thread block a product"),
    Case("workshop", "rk4_pendulum", rk4_pendulum, _build_rk4, RK4_SIZES, "eight RK4 steps of a pendulum a thread"),
    Case("workshop", "atomic_f64_bins", atomic_f64_bins, _build_atomic_f64, SIZES,
         "float64 values added into 256 bins by global atomics"),
    Case("workshop", "grid_stride_2d", grid_stride_2d, _build_grid_stride_2d, SIZES,
         "2 a + 1 by a 2-D grid-stride loop on a fixed 16x16 grid of 32x8 blocks"),
    Case("workshop", "dot4_i8", dot4_i8, _build_dot4, SIZES, "int8 dot products of four into int32"),
    Case("workshop", "colmean_tile", colmean_tile, _build_colmean, SIZES,
         "column sums of a 1024-column matrix, a 32x64 tile a block, one atomic a column a block"),
]

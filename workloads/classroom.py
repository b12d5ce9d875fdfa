"""Classroom kernels: a fifteenth out-of-sample check of the timing model, written after ``bootcamp``.

What the family is for: like ``bootcamp`` before it, these kernels were written after every model change of
their day had landed (2026-12-01, the session that measured a sector's parts stored apart in time), with
smsim's predictions written down before the H200 ran them (``docs/hardware/validate_hw.md``), and compared
before anything changed for them (``docs/timing_model.md``). They are what a course's lab sheets have people
write, in patterns no family used before: blocks of a warp or two, a gather by a multiplicative index, a
stream updated in place, bytes stored down columns, float64 stored every other word, float64 streams with
blocks of 128 and 512 threads, a float64 exponential, a float64 block sum added atomically, a shared tile with
a halo of three, a thread a row summing 128 floats, a thread a column summing 256 rows, a product with an
inner dimension of 16, float64 shared memory read two words apart, adds into a thousand bins, and two arrays
interleaved:

* ``gather_mul7_b64``: ``out[i] = a[(7 i) mod n]`` (64-thread blocks; each warp's loads 28 bytes apart);
* ``axpy_inplace_b32``: ``y[i] = 2 x[i] + y[i]`` in place, blocks of one warp;
* ``transpose_u8``: a byte image transposed naively in 32x8 blocks (a byte a lane stored down a column);
* ``store_every2_f64``: ``out[2 i] = a[i]`` in float64 (the other words untouched);
* ``clamp_f64_b128``: ``out = min(max(a, -0.5), 0.5)`` in float64, 128-thread blocks;
* ``exp_f64``: ``out = exp(a)`` in float64 (numba's ``math.exp``);
* ``vadd_b512``: ``c = a + b``, 512-thread blocks;
* ``block_sum_f64``: a float64 sum, a shared tree a block, one float64 atomic add a block into one word;
* ``stencil7_shared``: ``out[i] = sum of a[i-3 .. i+3]`` through a shared tile with a halo of three, 128-thread
  blocks (the ends clamped);
* ``row_sum128``: ``out[r] = sum of row r`` of a 128-column matrix, a thread a row;
* ``col_sum256``: ``out[c] = sum of column c`` of a 256-row matrix, a thread a column (coalesced);
* ``gemm_k16``: ``C = A B`` for an inner dimension of 16, a thread an element of C (16x16 blocks);
* ``shared_stride2_f64``: float64 words staged in shared memory and read back two words apart (a two-way bank
  conflict on 8-byte words);
* ``hist1024_i32``: int32 values counted into 1024 bins by global atomics;
* ``interleave2``: ``out[2 i] = re[i], out[2 i + 1] = im[i]`` (two stores a thread, each of every other word);
* ``poly_loop_i``: ``out[i] = sum over k < 24 of (i + k) mod 13 times a[i]``, integer index arithmetic in a loop.

Life of a case: ``build(n, rng)`` draws the inputs (``n`` elements, or a matrix of about ``n``), computes the
expected output with numpy (integer-valued floats where sums are reordered, so they are exact) and returns the
launch.
"""
import math

import numpy as np

from smsim import cuda
from smsim.case import Case, Setup
from workloads.plain import _blocks, _grid2, _side   # the launch-shape helpers
from workloads.seminar import _small_ints         # floats holding small integers: exact sums in any order

TILE = 128                # stencil7_shared's block and tile
HALO = 3                  # ... and its halo
TILE_H = TILE + 2 * HALO  # ... its shared tile (a module constant: numba needs a literal shape)
ROW = 128                 # row_sum128's row
COLS_ROWS = 256           # col_sum256's rows
K = 16                    # gemm_k16's inner dimension
SH = 256                  # shared_stride2_f64's block and shared words
BINS = 1024               # hist1024_i32's bins
POLY = 24                 # poly_loop_i's trips
SIZES = {"test": 1 << 15, "full": 1 << 24}


@cuda.jit
def gather_mul7_b64(a, out):
    """out[i] = a[(7 i) mod n]."""
    i = cuda.grid(1)
    n = a.shape[0]
    if i < n:
        out[i] = a[(7 * i) % n]


@cuda.jit
def axpy_inplace_b32(x, y):
    """y = 2 x + y, in place."""
    i = cuda.grid(1)
    if i < y.shape[0]:
        y[i] = np.float32(2.0) * x[i] + y[i]


@cuda.jit
def transpose_u8(img, out):
    """out[x, y] = img[y, x] for a uint8 image."""
    x, y = cuda.grid(2)
    if y < img.shape[0] and x < img.shape[1]:
        out[x, y] = img[y, x]


@cuda.jit
def store_every2_f64(a, out):
    """out[2 i] = a[i]."""
    i = cuda.grid(1)
    if i < a.shape[0]:
        out[2 * i] = a[i]


@cuda.jit
def clamp_f64_b128(a, out):
    """out = min(max(a, -0.5), 0.5)."""
    i = cuda.grid(1)
    if i < a.shape[0]:
        out[i] = min(max(a[i], -0.5), 0.5)


@cuda.jit
def exp_f64(a, out):
    """out = exp(a), float64."""
    i = cuda.grid(1)
    if i < a.shape[0]:
        out[i] = math.exp(a[i])


@cuda.jit
def vadd_b512(a, b, c):
    """c = a + b."""
    i = cuda.grid(1)
    if i < c.shape[0]:
        c[i] = a[i] + b[i]


@cuda.jit
def block_sum_f64(a, total):
    """total[0] += the sum of a, a shared tree a block, one float64 atomic a block."""
    s = cuda.shared.array(256, np.float64)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    s[t] = a[i] if i < a.shape[0] else 0.0
    cuda.syncthreads()
    step = 128
    while step > 0:
        if t < step:
            s[t] += s[t + step]
        cuda.syncthreads()
        step //= 2
    if t == 0:
        cuda.atomic.add(total, 0, s[0])


@cuda.jit
def stencil7_shared(a, out):
    """out[i] = a[i-3] + ... + a[i+3], the ends clamped, through a shared tile with a halo of three."""
    tile = cuda.shared.array(TILE_H, np.float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    n = a.shape[0]
    tile[t + HALO] = a[min(i, n - 1)]
    if t < HALO:
        tile[t] = a[max(i - HALO, 0)]
        tile[t + TILE + HALO] = a[min(i + TILE, n - 1)]
    cuda.syncthreads()
    if i < n:
        s = np.float32(0.0)
        for k in range(2 * HALO + 1):
            s += tile[t + k]
        out[i] = s


@cuda.jit
def row_sum128(m, out):
    """out[r] = the sum of row r, a thread a row."""
    r = cuda.grid(1)
    if r < m.shape[0]:
        s = np.float32(0.0)
        for c in range(ROW):
            s += m[r, c]
        out[r] = s


@cuda.jit
def col_sum256(m, out):
    """out[c] = the sum of column c, a thread a column."""
    c = cuda.grid(1)
    if c < m.shape[1]:
        s = np.float32(0.0)
        for r in range(COLS_ROWS):
            s += m[r, c]
        out[c] = s


@cuda.jit
def gemm_k16(a, b, c):
    """c = a b with an inner dimension of 16, a thread an element."""
    col, row = cuda.grid(2)
    if row < c.shape[0] and col < c.shape[1]:
        s = np.float32(0.0)
        for k in range(K):
            s += a[row, k] * b[k, col]
        c[row, col] = s


@cuda.jit
def shared_stride2_f64(a, out):
    """out[i] = a[i] + the block's word two places on (mod 256), read from shared memory."""
    s = cuda.shared.array(SH, np.float64)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    s[t] = a[i]
    cuda.syncthreads()
    out[i] = a[i] + s[(2 * t) % SH]


@cuda.jit
def hist1024_i32(v, bins):
    """bins[v[i] mod 1024] += 1."""
    i = cuda.grid(1)
    if i < v.shape[0]:
        cuda.atomic.add(bins, v[i] % BINS, 1)


@cuda.jit
def interleave2(re, im, out):
    """out[2 i] = re[i], out[2 i + 1] = im[i]."""
    i = cuda.grid(1)
    if i < re.shape[0]:
        out[2 * i] = re[i]
        out[2 * i + 1] = im[i]


@cuda.jit
def poly_loop_i(a, out):
    """out[i] = sum over k < 24 of ((i + k) mod 13) a[i]."""
    i = cuda.grid(1)
    if i < a.shape[0]:
        s = np.float32(0.0)
        x = a[i]
        for k in range(POLY):
            s += np.float32((i + k) % 13) * x
        out[i] = s


def _build_gather(n, rng):
    a = rng.random(n, dtype=np.float32)
    want = a[(7 * np.arange(n, dtype=np.int64)) % n]
    return Setup(_blocks(n, 64), (64,), (a, np.zeros(n, np.float32)), expected={1: want}, rtol=0.0, atol=0.0)


def _build_axpy(n, rng):
    x = _small_ints(n, rng)
    y = _small_ints(n, rng)
    return Setup(_blocks(n, 32), (32,), (x, y.copy()), expected={1: np.float32(2.0) * x + y}, rtol=0.0, atol=0.0)


def _build_transpose(n, rng):
    side = _side(n) // 32 * 32
    img = rng.integers(0, 256, (side, side)).astype(np.uint8)
    return Setup(_grid2(side, side, 32, 8), (32, 8), (img, np.zeros((side, side), np.uint8)),
                 expected={1: img.T.copy()}, rtol=0.0, atol=0.0)


def _build_every2(n, rng):
    n = n // 2
    a = rng.random(n)
    out = np.full(2 * n, -1.0)
    want = out.copy()
    want[::2] = a
    return Setup(_blocks(n), (256,), (a, out), expected={1: want}, rtol=0.0, atol=0.0)


def _build_clamp(n, rng):
    a = rng.random(n) * 2.0 - 1.0
    return Setup(_blocks(n, 128), (128,), (a, np.zeros(n)), expected={1: np.clip(a, -0.5, 0.5)}, rtol=0.0, atol=0.0)


def _build_exp(n, rng):
    a = rng.random(n) * 4.0 - 2.0
    return Setup(_blocks(n), (256,), (a, np.zeros(n)), expected={1: np.exp(a)}, rtol=1e-14, atol=0.0)


def _build_vadd(n, rng):
    a = rng.random(n, dtype=np.float32)
    b = rng.random(n, dtype=np.float32)
    return Setup(_blocks(n, 512), (512,), (a, b, np.zeros(n, np.float32)), expected={2: a + b}, rtol=0.0, atol=0.0)


def _build_block_sum(n, rng):
    a = rng.integers(-100, 101, n).astype(np.float64)
    return Setup(_blocks(n), (256,), (a, np.zeros(1)), expected={1: np.array([a.sum()])}, rtol=0.0, atol=0.0)


def _build_stencil(n, rng):
    a = _small_ints(n, rng)
    idx = np.clip(np.arange(n)[:, None] + np.arange(-HALO, HALO + 1)[None, :], 0, n - 1)
    want = a.astype(np.float64)[idx].sum(axis=1).astype(np.float32)
    return Setup(_blocks(n, TILE), (TILE,), (a, np.zeros(n, np.float32)), expected={1: want}, rtol=0.0, atol=0.0)


def _build_row_sum(n, rng):
    rows = max(32, n // ROW)
    m = _small_ints(rows * ROW, rng).reshape(rows, ROW)
    want = m.astype(np.float64).sum(axis=1).astype(np.float32)
    return Setup(_blocks(rows), (256,), (m, np.zeros(rows, np.float32)), expected={1: want}, rtol=0.0, atol=0.0)


def _build_col_sum(n, rng):
    cols = max(32, n // COLS_ROWS)
    m = _small_ints(COLS_ROWS * cols, rng).reshape(COLS_ROWS, cols)
    want = m.astype(np.float64).sum(axis=0).astype(np.float32)
    return Setup(_blocks(cols), (256,), (m, np.zeros(cols, np.float32)), expected={1: want}, rtol=0.0, atol=0.0)


def _build_gemm(n, rng):
    side = max(16, _side(n) // 16 * 16)
    a = _small_ints(side * K, rng).reshape(side, K)
    b = _small_ints(K * side, rng).reshape(K, side)
    want = (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float32)
    return Setup(_grid2(side, side, 16, 16), (16, 16), (a, b, np.zeros((side, side), np.float32)),
                 expected={2: want}, rtol=0.0, atol=0.0)


def _build_shared(n, rng):
    n = max(SH, n // SH * SH)
    a = rng.random(n)
    blocks = a.reshape(-1, SH)
    want = (blocks + blocks[:, (2 * np.arange(SH)) % SH]).ravel()
    return Setup(_blocks(n), (SH,), (a, np.zeros(n)), expected={1: want}, rtol=0.0, atol=0.0)


def _build_hist(n, rng):
    v = rng.integers(0, 1 << 20, n).astype(np.int32)
    want = np.bincount(v % BINS, minlength=BINS).astype(np.int32)
    return Setup(_blocks(n), (256,), (v, np.zeros(BINS, np.int32)), expected={1: want}, rtol=0.0, atol=0.0)


def _build_interleave(n, rng):
    n = n // 2
    re = rng.random(n, dtype=np.float32)
    im = rng.random(n, dtype=np.float32)
    want = np.empty(2 * n, np.float32)
    want[0::2], want[1::2] = re, im
    return Setup(_blocks(n), (256,), (re, im, np.zeros(2 * n, np.float32)), expected={2: want}, rtol=0.0, atol=0.0)


def _build_poly(n, rng):
    a = _small_ints(n, rng)
    i = np.arange(n, dtype=np.int64)
    coef = sum(((i + k) % 13) for k in range(POLY)).astype(np.float64)
    return Setup(_blocks(n), (256,), (a, np.zeros(n, np.float32)), expected={1: (coef * a).astype(np.float32)},
                 rtol=0.0, atol=0.0)


CASES = [
    Case("classroom", "gather_mul7_b64", gather_mul7_b64, _build_gather, SIZES,
         "out[i] = a[(7 i) mod n], 64-thread blocks"),
    Case("classroom", "axpy_inplace_b32", axpy_inplace_b32, _build_axpy, SIZES,
         "y = 2 x + y in place, blocks of one warp"),
    Case("classroom", "transpose_u8", transpose_u8, _build_transpose, SIZES,
         "a byte image transposed naively in 32x8 blocks"),
    Case("classroom", "store_every2_f64", store_every2_f64, _build_every2, SIZES,
         "out[2 i] = a[i] in float64"),
    Case("classroom", "clamp_f64_b128", clamp_f64_b128, _build_clamp, SIZES,
         "float64 clamp to [-0.5, 0.5], 128-thread blocks"),
    Case("classroom", "exp_f64", exp_f64, _build_exp, SIZES, "float64 exp"),
    Case("classroom", "vadd_b512", vadd_b512, _build_vadd, SIZES, "c = a + b, 512-thread blocks"),
    Case("classroom", "block_sum_f64", block_sum_f64, _build_block_sum, SIZES,
         "a float64 sum, a shared tree a block, one float64 atomic a block"),
    Case("classroom", "stencil7_shared", stencil7_shared, _build_stencil, SIZES,
         "a 7-point 1-D sum through a shared tile with a halo of three"),
    Case("classroom", "row_sum128", row_sum128, _build_row_sum, SIZES,
         "row sums of a 128-column matrix, a thread a row"),
    Case("classroom", "col_sum256", col_sum256, _build_col_sum, SIZES,
         "column sums of a 256-row matrix, a thread a column"),
    Case("classroom", "gemm_k16", gemm_k16, _build_gemm, SIZES,
         "C = A B with an inner dimension of 16, a thread an element"),
    Case("classroom", "shared_stride2_f64", shared_stride2_f64, _build_shared, SIZES,
         "float64 words in shared memory read back two words apart"),
    Case("classroom", "hist1024_i32", hist1024_i32, _build_hist, SIZES,
         "int32 values counted into 1024 bins by global atomics"),
    Case("classroom", "interleave2", interleave2, _build_interleave, SIZES,
         "two arrays interleaved, two stores a thread of every other word"),
    Case("classroom", "poly_loop_i", poly_loop_i, _build_poly, SIZES,
         "24 loop trips of integer index arithmetic a thread"),
]

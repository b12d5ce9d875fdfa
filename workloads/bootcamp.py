"""Bootcamp kernels: a fourteenth out-of-sample check of the timing model, written after ``homework``.

What the family is for: like ``homework`` before it, these kernels were written after every model change of
their day had landed (2026-12-01, the session after strong loads took their L2 slices' time and atomics left
their lines dirty), with smsim's predictions written down before the H200 ran them
(``docs/hardware/validate_hw.md``), and compared before anything changed for them (``docs/timing_model.md``).
They are what a GPU bootcamp's first week has people write, in patterns no family used before: a sparse
matrix a warp a row, a loop whose trip count grows with the lane, a rotation by three elements, sixteen loads
in flight a thread, a search that breaks out of its loop, a 3-D grid over a batch of 100-column images,
per-warp histograms in shared memory, 64-bit integer atomics, a diagonal touched in place, a column-wise
softmax, bit interleaving, a warp a float64 row, a sliding maximum, every lane of a warp adding into one word:

* ``csr_warp_row``: ``y = A x`` for a CSR matrix of 0-63 entries a row, a warp a row (lanes stride the row,
  a shuffle tree), 128-thread blocks;
* ``tri_scan_naive``: each thread sums its warp's values up to its own lane (a loop of lane + 1 trips: the
  warp runs 32, its lanes dropping out one by one; every load a broadcast);
* ``roll3``: ``out[(i + 3) % n] = a[i]`` (stores 12 bytes off the loads, an int64 modulo);
* ``ilp16_pairs``: ``out[i] = sum_k a[k m + i] a[((k + 1) mod 16) m + i]`` (sixteen coalesced loads a thread,
  all in flight);
* ``find_first_neg``: a thread a 64-float row, the position of its first negative value (a loop that breaks:
  uncoalesced loads, a warp done when its last lane is);
* ``batch_affine_w100``: ``out[b, r, c] = a[b, r, c] s[b] + t[c]`` over a batch of 64x100 images, a 3-D grid
  of 32x8 blocks (rows of 400 bytes: four blocks across, the last one 4/32 busy);
* ``warp_hist64``: byte values counted into 64 bins, a shared histogram a warp (shared atomics), merged into
  the global bins by one atomic a bin a block;
* ``transpose16_f64``: a float64 matrix transposed naively in 16x16 blocks;
* ``sumsq_i64``: the sum of squares of int32 values as int64, a shared tree a block, one 64-bit atomic a
  block into one word;
* ``cross3_aos``: cross products of float32 3-vectors stored as (n, 3) arrays;
* ``diag_add``: ``m[i, i] += s`` in place (one word a row of a square matrix: a short kernel);
* ``col_softmax64``: softmax down each column of a 64-row matrix, a thread a column (three passes);
* ``morton2d``: 2-D Morton codes of 16-bit coordinates (shifts and masks);
* ``matvec_f64_warp``: ``y = A x`` in float64 for 256-column rows, a warp a row, a shuffle tree;
* ``window_max8``: ``out[i] = max(a[i..i+7])`` (the end clamped);
* ``warp_atomic_same``: every lane of a warp adds its value into the warp's one word of 1024 by a global
  atomic (32 adds to one address an instruction).

Life of a case: ``build(n, rng)`` draws the inputs (``n`` elements, or a matrix of about ``n``), computes the
expected output with numpy (integer-valued floats or integers where sums are reordered, so they are exact) and
returns the launch.
"""
import math

import numpy as np

from smsim import cuda
from smsim.case import Case, Setup
from workloads.plain import _blocks, _grid2, _side   # the launch-shape helpers
from workloads.seminar import _small_ints         # floats holding small integers: exact sums in any order

X_COLS = 4096             # csr_warp_row's x
MAX_ROW = 64              # csr_warp_row's entries a row are 0..MAX_ROW-1
PAIRS = 16                # ilp16_pairs' loads a thread
FIND = 64                 # find_first_neg's row
IMG_ROWS = 64             # batch_affine_w100's image rows
IMG_COLS = 100            # ... and columns
BINS = 64                 # warp_hist64's bins
WARPS = 8                 # warp_hist64's warps a block
SOFT_ROWS = 64            # col_softmax64's rows
F64_COLS = 256            # matvec_f64_warp's row
WINDOW = 8                # window_max8's window
WORDS = 1024              # warp_atomic_same's words
SIZES = {"test": 1 << 15, "full": 1 << 24}


@cuda.jit
def csr_warp_row(rowptr, cols, vals, x, y):
    """y[r] = sum over row r's entries of vals x[cols], a warp a row."""
    row = cuda.grid(1) // 32
    lane = cuda.threadIdx.x % 32
    if row < y.shape[0]:
        s = np.float32(0.0)
        for k in range(rowptr[row] + lane, rowptr[row + 1], 32):
            s += vals[k] * x[cols[k]]
        for d in (16, 8, 4, 2, 1):
            s += cuda.shfl_down_sync(0xFFFFFFFF, s, d)
        if lane == 0:
            y[row] = s


@cuda.jit
def tri_scan_naive(a, out):
    """out[i] = the sum of a over i's warp from its first lane up to i's lane."""
    i = cuda.grid(1)
    if i < a.shape[0]:
        base = i - i % 32
        s = np.float32(0.0)
        for j in range(i % 32 + 1):
            s += a[base + j]
        out[i] = s


@cuda.jit
def roll3(a, out):
    """out[(i + 3) mod n] = a[i]."""
    i = cuda.grid(1)
    n = a.shape[0]
    if i < n:
        out[(i + 3) % n] = a[i]


@cuda.jit
def ilp16_pairs(a, out):
    """out[i] = sum over k < 16 of a[k m + i] a[((k + 1) mod 16) m + i], m = len(out)."""
    i = cuda.grid(1)
    m = out.shape[0]
    if i < m:
        s = np.float32(0.0)
        for k in range(PAIRS):
            s += a[k * m + i] * a[((k + 1) % PAIRS) * m + i]
        out[i] = s


@cuda.jit
def find_first_neg(a, out):
    """out[r] = the first column of row r holding a negative value, 64 if none."""
    r = cuda.grid(1)
    if r < a.shape[0]:
        pos = FIND
        for j in range(FIND):
            if a[r, j] < np.float32(0.0):
                pos = j
                break
        out[r] = pos


@cuda.jit
def batch_affine_w100(a, s, t, out):
    """out[b, r, c] = a[b, r, c] s[b] + t[c]."""
    c = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x
    r = cuda.blockIdx.y * cuda.blockDim.y + cuda.threadIdx.y
    b = cuda.blockIdx.z
    if c < a.shape[2] and r < a.shape[1]:
        out[b, r, c] = a[b, r, c] * s[b] + t[c]


@cuda.jit
def warp_hist64(v, bins):
    """bins[k] += how many of v are k mod 64, through a shared histogram a warp."""
    h = cuda.shared.array((WARPS, BINS), np.int32)
    t = cuda.threadIdx.x
    w = t // 32
    for k in range(t, WARPS * BINS, 256):
        h[k // BINS, k % BINS] = 0
    cuda.syncthreads()
    i = cuda.grid(1)
    if i < v.shape[0]:
        cuda.atomic.add(h, (w, v[i] % BINS), 1)
    cuda.syncthreads()
    if t < BINS:
        c = 0
        for k in range(WARPS):
            c += h[k, t]
        cuda.atomic.add(bins, t, c)


@cuda.jit
def transpose16_f64(a, out):
    """out[x, y] = a[y, x], float64, 16x16 blocks."""
    x, y = cuda.grid(2)
    if y < a.shape[0] and x < a.shape[1]:
        out[x, y] = a[y, x]


@cuda.jit
def sumsq_i64(a, out):
    """out[0] += the sum of a a as int64, a shared tree a block, one atomic a block."""
    part = cuda.shared.array(256, np.int64)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    v = np.int64(0)
    if i < a.shape[0]:
        v = np.int64(a[i])
    part[t] = v * v
    cuda.syncthreads()
    s = 128
    while s > 0:
        if t < s:
            part[t] += part[t + s]
        cuda.syncthreads()
        s //= 2
    if t == 0:
        cuda.atomic.add(out, 0, part[0])


@cuda.jit
def cross3_aos(a, b, out):
    """out[i] = a[i] x b[i] for (n, 3) float32 arrays."""
    i = cuda.grid(1)
    if i < a.shape[0]:
        ax = a[i, 0]
        ay = a[i, 1]
        az = a[i, 2]
        bx = b[i, 0]
        by = b[i, 1]
        bz = b[i, 2]
        out[i, 0] = ay * bz - az * by
        out[i, 1] = az * bx - ax * bz
        out[i, 2] = ax * by - ay * bx


@cuda.jit
def diag_add(m, s):
    """m[i, i] += s."""
    i = cuda.grid(1)
    if i < m.shape[0]:
        m[i, i] += s


@cuda.jit
def col_softmax64(a, out):
    """Each column of a (64 rows) to its softmax, a thread a column."""
    c = cuda.grid(1)
    if c < a.shape[1]:
        mx = a[0, c]
        for r in range(1, SOFT_ROWS):
            mx = max(mx, a[r, c])
        s = np.float32(0.0)
        for r in range(SOFT_ROWS):
            s += math.exp(a[r, c] - mx)
        inv = np.float32(1.0) / s
        for r in range(SOFT_ROWS):
            out[r, c] = math.exp(a[r, c] - mx) * inv


@cuda.jit
def morton2d(x, y, out):
    """out[i] = the bits of x[i] and y[i] (16-bit) interleaved, x in the even bits."""
    i = cuda.grid(1)
    if i < out.shape[0]:
        u = np.uint32(x[i])
        u = (u | (u << np.uint32(8))) & np.uint32(0x00FF00FF)
        u = (u | (u << np.uint32(4))) & np.uint32(0x0F0F0F0F)
        u = (u | (u << np.uint32(2))) & np.uint32(0x33333333)
        u = (u | (u << np.uint32(1))) & np.uint32(0x55555555)
        v = np.uint32(y[i])
        v = (v | (v << np.uint32(8))) & np.uint32(0x00FF00FF)
        v = (v | (v << np.uint32(4))) & np.uint32(0x0F0F0F0F)
        v = (v | (v << np.uint32(2))) & np.uint32(0x33333333)
        v = (v | (v << np.uint32(1))) & np.uint32(0x55555555)
        out[i] = u | (v << np.uint32(1))


@cuda.jit
def matvec_f64_warp(a, x, y):
    """y[r] = a[r] . x in float64 (256 columns), a warp a row."""
    row = cuda.grid(1) // 32
    lane = cuda.threadIdx.x % 32
    if row < a.shape[0]:
        s = 0.0
        for k in range(lane, F64_COLS, 32):
            s += a[row, k] * x[k]
        for d in (16, 8, 4, 2, 1):
            s += cuda.shfl_down_sync(0xFFFFFFFF, s, d)
        if lane == 0:
            y[row] = s


@cuda.jit
def window_max8(a, out):
    """out[i] = max(a[i], ..., a[i + 7]), indices past the end clamped to the last."""
    i = cuda.grid(1)
    n = a.shape[0]
    if i < n:
        m = a[i]
        for k in range(1, WINDOW):
            m = max(m, a[min(i + k, n - 1)])
        out[i] = m


@cuda.jit
def warp_atomic_same(a, words):
    """words[(i // 32) mod 1024] += a[i]: a warp's 32 lanes add into one word."""
    i = cuda.grid(1)
    if i < a.shape[0]:
        cuda.atomic.add(words, (i // 32) % WORDS, a[i])


def _build_csr(n, rng):
    rows = max(4, n // 32)
    lens = rng.integers(0, MAX_ROW, rows)
    rowptr = np.zeros(rows + 1, np.int32)
    rowptr[1:] = np.cumsum(lens)
    nnz = int(rowptr[-1])
    cols = rng.integers(0, X_COLS, nnz).astype(np.int32)
    vals = _small_ints(nnz, rng)
    x = _small_ints(X_COLS, rng)
    prod = vals.astype(np.float64) * x[cols]
    want = np.add.reduceat(np.append(prod, 0.0), rowptr[:-1])
    want[lens == 0] = 0.0
    return Setup(_blocks(32 * rows, 128), (128,), (rowptr, cols, vals, x, np.zeros(rows, np.float32)),
                 expected={4: want.astype(np.float32)}, rtol=0.0, atol=0.0)


def _build_tri(n, rng):
    n = max(32, n // 32 * 32)
    a = _small_ints(n, rng)
    want = np.cumsum(a.astype(np.float64).reshape(-1, 32), axis=1).ravel().astype(np.float32)
    return Setup(_blocks(n), (256,), (a, np.zeros(n, np.float32)), expected={1: want}, rtol=0.0, atol=0.0)


def _build_roll(n, rng):
    a = rng.random(n, dtype=np.float32)
    return Setup(_blocks(n), (256,), (a, np.zeros(n, np.float32)), expected={1: np.roll(a, 3)}, rtol=0.0,
                 atol=0.0)


def _build_ilp(n, rng):
    m = max(256, n // PAIRS)
    a = _small_ints(PAIRS * m, rng).reshape(PAIRS, m)
    f = a.astype(np.float64)
    want = (f * np.roll(f, -1, axis=0)).sum(axis=0).astype(np.float32)
    return Setup(_blocks(m), (256,), (a.ravel(), np.zeros(m, np.float32)), expected={1: want}, rtol=0.0,
                 atol=0.0)


def _build_find(n, rng):
    rows = max(32, n // FIND)
    a = rng.random((rows, FIND), dtype=np.float32)
    first = rng.integers(0, FIND + FIND // 4, rows)        # a fifth of the rows hold no negative value
    hit = first < FIND
    a[np.nonzero(hit)[0], first[hit]] = np.float32(-1.0)
    later = rng.random((rows, FIND)) < 0.02                 # more negatives after the first do not count
    later &= np.arange(FIND)[None, :] > first[:, None]
    a[later] = np.float32(-2.0)
    want = np.where(hit, first, FIND).astype(np.int32)
    return Setup(_blocks(rows), (256,), (a, np.zeros(rows, np.int32)), expected={1: want}, rtol=0.0, atol=0.0)


def _build_affine(n, rng):
    batch = max(1, n // (IMG_ROWS * IMG_COLS))
    a = rng.random((batch, IMG_ROWS, IMG_COLS), dtype=np.float32)
    s = rng.random(batch, dtype=np.float32)
    t = rng.random(IMG_COLS, dtype=np.float32)
    want = a * s[:, None, None] + t[None, None, :]
    grid = _grid2(IMG_COLS, IMG_ROWS, 32, 8) + (batch,)
    return Setup(grid, (32, 8), (a, s, t, np.zeros_like(a)), expected={3: want}, rtol=1e-6, atol=1e-6)


def _build_hist(n, rng):
    v = np.minimum(rng.binomial(255, 0.3, n), 255).astype(np.uint8)
    want = np.bincount(v % BINS, minlength=BINS).astype(np.int32)
    return Setup(_blocks(n), (256,), (v, np.zeros(BINS, np.int32)), expected={1: want}, rtol=0.0, atol=0.0)


def _build_transpose(n, rng):
    side = _side(n)
    a = rng.random((side, side))
    return Setup(_grid2(side, side, 16, 16), (16, 16), (a, np.zeros((side, side))),
                 expected={1: a.T.copy()}, rtol=0.0, atol=0.0)


def _build_sumsq(n, rng):
    a = rng.integers(-50000, 50000, n).astype(np.int32)
    want = np.array([int((a.astype(np.int64) ** 2).sum())], np.int64)
    return Setup(_blocks(n), (256,), (a, np.zeros(1, np.int64)), expected={1: want}, rtol=0.0, atol=0.0)


def _build_cross(n, rng):
    a = rng.random((n, 3), dtype=np.float32)
    b = rng.random((n, 3), dtype=np.float32)
    return Setup(_blocks(n), (256,), (a, b, np.zeros((n, 3), np.float32)),
                 expected={2: np.cross(a, b).astype(np.float32)}, rtol=1e-5, atol=1e-6)


def _build_diag(n, rng):
    side = min(2 * _side(n), 4096)
    m = rng.random((side, side), dtype=np.float32)
    s = np.float32(1.5)
    want = m.copy()
    want[np.arange(side), np.arange(side)] += s
    return Setup(_blocks(side), (256,), (m, s), expected={0: want}, rtol=0.0, atol=0.0)


def _build_softmax(n, rng):
    cols = max(32, n // SOFT_ROWS)
    a = (rng.random((SOFT_ROWS, cols), dtype=np.float32) * np.float32(8.0)).astype(np.float32)
    e = np.exp(a.astype(np.float64) - a.max(axis=0))
    want = (e / e.sum(axis=0)).astype(np.float32)
    return Setup(_blocks(cols), (256,), (a, np.zeros_like(a)), expected={1: want}, rtol=1e-5, atol=1e-7)


def _spread(v):
    v = v.astype(np.uint32)
    for shift, mask in ((8, 0x00FF00FF), (4, 0x0F0F0F0F), (2, 0x33333333), (1, 0x55555555)):
        v = (v | (v << np.uint32(shift))) & np.uint32(mask)
    return v


def _build_morton(n, rng):
    x = rng.integers(0, 1 << 16, n).astype(np.uint16)
    y = rng.integers(0, 1 << 16, n).astype(np.uint16)
    want = _spread(x) | (_spread(y) << np.uint32(1))
    return Setup(_blocks(n), (256,), (x, y, np.zeros(n, np.uint32)), expected={2: want}, rtol=0.0, atol=0.0)


def _build_matvec(n, rng):
    rows = max(8, n // F64_COLS)
    a = rng.integers(-8, 9, (rows, F64_COLS)).astype(np.float64)
    x = rng.integers(-8, 9, F64_COLS).astype(np.float64)
    return Setup(_blocks(32 * rows), (256,), (a, x, np.zeros(rows)), expected={2: a @ x}, rtol=0.0, atol=0.0)


def _build_window(n, rng):
    a = rng.random(n, dtype=np.float32)
    padded = np.concatenate([a, np.full(WINDOW - 1, a[-1], np.float32)])
    want = a.copy()
    for k in range(1, WINDOW):
        np.maximum(want, padded[k:k + n], out=want)
    return Setup(_blocks(n), (256,), (a, np.zeros(n, np.float32)), expected={1: want}, rtol=0.0, atol=0.0)


def _build_same(n, rng):
    n = max(32, n // 32 * 32)
    a = _small_ints(n, rng)
    want = np.zeros(WORDS)
    np.add.at(want, (np.arange(n) // 32) % WORDS, a.astype(np.float64))
    return Setup(_blocks(n), (256,), (a, np.zeros(WORDS, np.float32)), expected={1: want.astype(np.float32)},
                 rtol=0.0, atol=0.0)


CASES = [
    Case("bootcamp", "csr_warp_row", csr_warp_row, _build_csr, SIZES,
         "CSR y = A x, 0-63 entries a row, a warp a row, a shuffle tree"),
    Case("bootcamp", "tri_scan_naive", tri_scan_naive, _build_tri, SIZES,
         "a warp's values summed up to each lane by a loop of lane + 1 trips"),
    Case("bootcamp", "roll3", roll3, _build_roll, SIZES, "out[(i + 3) mod n] = a[i]"),
    Case("bootcamp", "ilp16_pairs", ilp16_pairs, _build_ilp, SIZES,
         "sixteen coalesced loads a thread, products of neighbouring pairs summed"),
    Case("bootcamp", "find_first_neg", find_first_neg, _build_find, SIZES,
         "a thread a 64-float row, the first negative value's position (a loop that breaks)"),
    Case("bootcamp", "batch_affine_w100", batch_affine_w100, _build_affine, SIZES,
         "a s[b] + t[c] over a batch of 64x100 images, a 3-D grid of 32x8 blocks"),
    Case("bootcamp", "warp_hist64", warp_hist64, _build_hist, SIZES,
         "bytes counted into 64 bins, a shared histogram a warp, one global atomic a bin a block"),
    Case("bootcamp", "transpose16_f64", transpose16_f64, _build_transpose, SIZES,
         "a float64 matrix transposed naively in 16x16 blocks"),
    Case("bootcamp", "sumsq_i64", sumsq_i64, _build_sumsq, SIZES,
         "the int64 sum of squares, a shared tree a block, one 64-bit atomic a block"),
    Case("bootcamp", "cross3_aos", cross3_aos, _build_cross, SIZES, "cross products of (n, 3) float32 vectors"),
    Case("bootcamp", "diag_add", diag_add, _build_diag, SIZES, "m[i, i] += s in place (a short kernel)"),
    Case("bootcamp", "col_softmax64", col_softmax64, _build_softmax, SIZES,
         "softmax down each column of a 64-row matrix, a thread a column"),
    Case("bootcamp", "morton2d", morton2d, _build_morton, SIZES, "Morton codes of 16-bit coordinate pairs"),
    Case("bootcamp", "matvec_f64_warp", matvec_f64_warp, _build_matvec, SIZES,
         "float64 y = A x for 256-column rows, a warp a row, a shuffle tree"),
    Case("bootcamp", "window_max8", window_max8, _build_window, SIZES,
         "the maximum of each 8-element window"),
    Case("bootcamp", "warp_atomic_same", warp_atomic_same, _build_same, SIZES,
         "a warp's 32 values added into one of 1024 words by global atomics"),
]

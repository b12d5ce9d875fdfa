"""Lesson kernels: a sixth out-of-sample check of the timing model, written and measured after ``course``.

What the family is for: like ``course`` before it, these kernels were written after every model change of
their day had landed (2026-11-28, the session after ``course``'s two fixes), measured once on the H200
(``docs/hardware/validate_hw.md``) and compared before anything in ``configs/`` was touched for them; the
first comparison is recorded in ``docs/timing_model.md``. They take what a course teaches next (float64
arithmetic, warp intrinsics, atomics other than add, odd shapes and reversed or broadcast indexing) and
mix it in ways the other families do not:

* ``reverse_global``: ``out[n - 1 - i] = a[i]`` (lanes write downwards);
* ``flip_rows``: an image mirrored left to right (32x8 blocks, reads reversed within each row);
* ``stride3_gather``: ``out[i] = a[3 i]`` (an odd stride: every third word, sectors shared by lanes);
* ``upsample2x``: nearest-neighbour 2x upsampling (16x16 blocks, each input read by four threads);
* ``copy_odd_width``: a 2D copy of rows 3 words short of a multiple of 32 (rows start off their sectors);
* ``heat5_f64``: one Jacobi step of the 5-point heat stencil in float64 (32x8 blocks);
* ``horner8_f64``: a degree-8 polynomial in float64 by Horner's rule (a DFMA chain);
* ``sigmoid_f64``: the logistic function in float64 (``exp``: libdevice's float64 code on the FP64 pipe);
* ``popc_clz``: ``popc(a) * 32 + clz(a)`` of uint32 words (integer intrinsics);
* ``shfl_xor_center``: each element minus its warp's mean, the sum by a ``shfl_xor_sync`` butterfly;
* ``ballot_count``: how many elements exceed 0.5: ``ballot_sync`` and ``popc`` a warp, one atomic add a warp
  to one counter;
* ``atomic_max64``: ``atomic.max`` of int32 values into 64 bins;
* ``row_normalize``: one 256-thread block per 1024-element row: its sum by a shared tree, then the row
  divided by it (the row read twice);
* ``diag_extract``: a matrix's diagonal copied out, one thread a row (a few blocks: launch costs dominate);
* ``saxpy_ilp4``: saxpy with four elements a thread, a quarter of the array apart;
* ``dgemm_tiled16``: a float64 matrix product with 16x16 shared tiles;
* ``transpose_f64_tiled``: a float64 transpose through a 32x33 shared tile (32x8 blocks);
* ``bias_relu_2d``: ``max(a[y, x] + b[x], 0)`` (a row vector broadcast down the rows).

Life of a case: ``build(n, rng)`` draws the inputs (``n`` elements, or an image or matrix of about ``n``),
computes the expected output with numpy (tolerances allow FMA contraction, float32 rounding and the
transcendental functions' few ulps) and returns the launch.
"""
import math

import numpy as np

from smsim import cuda
from smsim.case import Case, Setup
from workloads.plain import _blocks, _grid2, _side   # the launch-shape helpers (256-thread blocks there too)

BLOCK = 256
ROWLEN = 1024              # row_normalize's row length
ODD = 3                    # copy_odd_width's rows are this many words short of a multiple of 32
TILE = 16                  # dgemm_tiled16's tile
TT = 32                    # transpose_f64_tiled's tile
TT1 = TT + 1               # its padded row (a module constant: numba needs a literal shape)
BINS = 64                  # atomic_max64's bins
SIZES = {"test": 1 << 15, "full": 1 << 24}
GEMM_SIZES = {"test": 64 * 64, "full": 512 * 512}   # dgemm's matrix side 64 and 512 (512^3 multiply-adds)
POLY = (0.5, -1.25, 0.75, 0.3125, -0.125, 0.0625, -0.03125, 0.015625, -0.0078125)   # horner8's, from x^0


@cuda.jit
def reverse_global(a, out):
    """out[n - 1 - i] = a[i]."""
    i = cuda.grid(1)
    n = a.shape[0]
    if i < n:
        out[n - 1 - i] = a[i]


@cuda.jit
def flip_rows(img, out):
    """out[y, x] = img[y, w - 1 - x]."""
    x, y = cuda.grid(2)
    w = img.shape[1]
    if y < img.shape[0] and x < w:
        out[y, x] = img[y, w - 1 - x]


@cuda.jit
def stride3_gather(a, out):
    """out[i] = a[3 i]."""
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = a[3 * i]


@cuda.jit
def upsample2x(img, out):
    """out[y, x] = img[y // 2, x // 2]."""
    x, y = cuda.grid(2)
    if y < out.shape[0] and x < out.shape[1]:
        out[y, x] = img[y // 2, x // 2]


@cuda.jit
def copy_odd_width(a, out):
    """out = a, 2D, rows ODD words short of a multiple of 32."""
    x, y = cuda.grid(2)
    if y < a.shape[0] and x < a.shape[1]:
        out[y, x] = a[y, x]


@cuda.jit
def heat5_f64(u, out):
    """out = u + 0.2 (the 5-point Laplacian of u) inside; the border is left as it was (zeros)."""
    x, y = cuda.grid(2)
    if 0 < y < u.shape[0] - 1 and 0 < x < u.shape[1] - 1:
        lap = u[y - 1, x] + u[y + 1, x] + u[y, x - 1] + u[y, x + 1] - 4.0 * u[y, x]
        out[y, x] = u[y, x] + 0.2 * lap


@cuda.jit
def horner8_f64(a, out):
    """out = POLY(a) by Horner's rule, float64."""
    i = cuda.grid(1)
    if i < a.shape[0]:
        x = a[i]
        p = -0.0078125
        p = p * x + 0.015625
        p = p * x - 0.03125
        p = p * x + 0.0625
        p = p * x - 0.125
        p = p * x + 0.3125
        p = p * x + 0.75
        p = p * x - 1.25
        p = p * x + 0.5
        out[i] = p


@cuda.jit
def sigmoid_f64(a, out):
    """out = 1 / (1 + exp(-a)), float64."""
    i = cuda.grid(1)
    if i < a.shape[0]:
        out[i] = 1.0 / (1.0 + math.exp(-a[i]))


@cuda.jit
def popc_clz(a, out):
    """out = popc(a) * 32 + clz(a)."""
    i = cuda.grid(1)
    if i < a.shape[0]:
        v = a[i]
        out[i] = cuda.popc(v) * 32 + cuda.clz(v)


@cuda.jit
def shfl_xor_center(a, out):
    """out[i] = a[i] - the mean of a over i's warp (every lane active: n is a multiple of the block)."""
    i = cuda.grid(1)
    v = a[i]
    s = v
    k = 16
    while k > 0:
        s += cuda.shfl_xor_sync(0xFFFFFFFF, s, k)
        k //= 2
    out[i] = v - s * np.float32(1.0 / 32.0)


@cuda.jit
def ballot_count(a, count):
    """count[0] += how many elements exceed 0.5 (n is a multiple of the block)."""
    i = cuda.grid(1)
    b = cuda.ballot_sync(0xFFFFFFFF, a[i] > np.float32(0.5))
    if cuda.laneid == 0:
        cuda.atomic.add(count, 0, cuda.popc(b))


@cuda.jit
def atomic_max64(key, val, bins):
    """bins[b] = the maximum val[i] with key[i] % BINS == b."""
    i = cuda.grid(1)
    if i < key.shape[0]:
        cuda.atomic.max(bins, key[i] % BINS, val[i])


@cuda.jit
def row_normalize(a, out):
    """out[r] = a[r] / sum(a[r]), one block a row."""
    s = cuda.shared.array(BLOCK, np.float32)
    r = cuda.blockIdx.x
    t = cuda.threadIdx.x
    acc = np.float32(0.0)
    c = t
    while c < a.shape[1]:
        acc += a[r, c]
        c += BLOCK
    s[t] = acc
    cuda.syncthreads()
    h = BLOCK // 2
    while h > 0:
        if t < h:
            s[t] += s[t + h]
        cuda.syncthreads()
        h //= 2
    inv = np.float32(1.0) / s[0]
    c = t
    while c < a.shape[1]:
        out[r, c] = a[r, c] * inv
        c += BLOCK


@cuda.jit
def diag_extract(a, out):
    """out[i] = a[i, i]."""
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = a[i, i]


@cuda.jit
def saxpy_ilp4(alpha, x, y):
    """y = alpha x + y, thread i handling i, i + q, i + 2q, i + 3q (q = n / 4)."""
    i = cuda.grid(1)
    q = x.shape[0] // 4
    if i < q:
        for k in range(4):
            j = i + k * q
            y[j] = alpha * x[j] + y[j]


@cuda.jit
def dgemm_tiled16(a, b, c):
    """c = a b, float64, square, the side a multiple of TILE."""
    sa = cuda.shared.array((TILE, TILE), np.float64)
    sb = cuda.shared.array((TILE, TILE), np.float64)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    col = cuda.blockIdx.x * TILE + tx
    row = cuda.blockIdx.y * TILE + ty
    acc = 0.0
    for t in range(a.shape[1] // TILE):
        sa[ty, tx] = a[row, t * TILE + tx]
        sb[ty, tx] = b[t * TILE + ty, col]
        cuda.syncthreads()
        for k in range(TILE):
            acc += sa[ty, k] * sb[k, tx]
        cuda.syncthreads()
    c[row, col] = acc


@cuda.jit
def transpose_f64_tiled(a, out):
    """out = a^T, float64, through a TT x (TT + 1) shared tile, 32x8 blocks (4 rows a thread)."""
    tile = cuda.shared.array((TT, TT1), np.float64)
    bx = cuda.blockIdx.x * TT
    by = cuda.blockIdx.y * TT
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    for k in range(0, TT, 8):
        y = by + ty + k
        if y < a.shape[0] and bx + tx < a.shape[1]:
            tile[ty + k, tx] = a[y, bx + tx]
    cuda.syncthreads()
    for k in range(0, TT, 8):
        y = bx + ty + k
        if y < a.shape[1] and by + tx < a.shape[0]:
            out[y, by + tx] = tile[tx, ty + k]


@cuda.jit
def bias_relu_2d(a, b, out):
    """out[y, x] = max(a[y, x] + b[x], 0)."""
    x, y = cuda.grid(2)
    if y < a.shape[0] and x < a.shape[1]:
        out[y, x] = max(a[y, x] + b[x], np.float32(0.0))


def _build_reverse(n, rng):
    a = rng.random(n, dtype=np.float32)
    return Setup(_blocks(n), (BLOCK,), (a, np.zeros(n, np.float32)), expected={1: a[::-1].copy()}, rtol=0.0,
                 atol=0.0)


def _build_flip(n, rng):
    side = _side(n)
    img = rng.random((side, side), dtype=np.float32)
    return Setup(_grid2(side, side, 32, 8), (32, 8), (img, np.zeros((side, side), np.float32)),
                 expected={1: img[:, ::-1].copy()}, rtol=0.0, atol=0.0)


def _build_stride3(n, rng):
    m = n // 3
    a = rng.random(3 * m, dtype=np.float32)
    return Setup(_blocks(m), (BLOCK,), (a, np.zeros(m, np.float32)), expected={1: a[0::3].copy()}, rtol=0.0,
                 atol=0.0)


def _build_upsample(n, rng):
    half = _side(n) // 2
    img = rng.random((half, half), dtype=np.float32)
    want = np.repeat(np.repeat(img, 2, axis=0), 2, axis=1)
    return Setup(_grid2(2 * half, 2 * half, 16, 16), (16, 16), (img, np.zeros((2 * half, 2 * half), np.float32)),
                 expected={1: want}, rtol=0.0, atol=0.0)


def _build_odd(n, rng):
    w = _side(n) // 32 * 32 - ODD
    h = n // w
    a = rng.random((h, w), dtype=np.float32)
    return Setup(_grid2(w, h, 32, 8), (32, 8), (a, np.zeros((h, w), np.float32)), expected={1: a.copy()},
                 rtol=0.0, atol=0.0)


def _build_heat(n, rng):
    side = _side(n)
    u = rng.random((side, side))
    want = np.zeros_like(u)
    c = u[1:-1, 1:-1]
    lap = u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:] - 4.0 * c
    want[1:-1, 1:-1] = c + 0.2 * lap
    return Setup(_grid2(side, side, 32, 8), (32, 8), (u, np.zeros((side, side))), expected={1: want},
                 rtol=1e-12, atol=1e-14)


def _build_horner(n, rng):
    a = rng.standard_normal(n)
    want = np.polynomial.polynomial.polyval(a, POLY)
    return Setup(_blocks(n), (BLOCK,), (a, np.zeros(n)), expected={1: want}, rtol=1e-12, atol=1e-12)


def _build_sigmoid(n, rng):
    a = rng.standard_normal(n) * 4.0
    return Setup(_blocks(n), (BLOCK,), (a, np.zeros(n)), expected={1: 1.0 / (1.0 + np.exp(-a))}, rtol=1e-13,
                 atol=0.0)


def _popc(v):
    v = v.astype(np.uint64)
    c = np.zeros(v.shape, np.int64)
    for b in range(32):
        c += ((v >> np.uint64(b)) & np.uint64(1)).astype(np.int64)
    return c


def _clz(v):
    v = v.astype(np.uint64)
    c = np.full(v.shape, 32, np.int64)
    for b in range(32):
        c = np.where((v >> np.uint64(b)) != 0, 31 - b, c)
    return c


def _build_popc(n, rng):
    a = (rng.integers(0, 1 << 32, n, dtype=np.uint64) >> rng.integers(0, 32, n).astype(np.uint64)).astype(np.uint32)
    want = (_popc(a) * 32 + _clz(a)).astype(np.int32)
    return Setup(_blocks(n), (BLOCK,), (a, np.zeros(n, np.int32)), expected={1: want}, rtol=0.0, atol=0.0)


def _build_center(n, rng):
    a = rng.random(n, dtype=np.float32)
    mean = a.astype(np.float64).reshape(-1, 32).mean(axis=1)
    want = (a.astype(np.float64).reshape(-1, 32) - mean[:, None]).reshape(-1)
    return Setup(_blocks(n), (BLOCK,), (a, np.zeros(n, np.float32)), expected={1: want.astype(np.float32)},
                 rtol=0.0, atol=1e-6)


def _build_ballot(n, rng):
    a = rng.random(n, dtype=np.float32)
    return Setup(_blocks(n), (BLOCK,), (a, np.zeros(1, np.int32)),
                 expected={1: np.array([np.count_nonzero(a > np.float32(0.5))], np.int32)}, rtol=0.0, atol=0.0)


def _build_atomic_max(n, rng):
    key = rng.integers(0, 1 << 20, n).astype(np.int32)
    val = rng.integers(-(1 << 30), 1 << 30, n).astype(np.int32)
    want = np.full(BINS, np.iinfo(np.int32).min, np.int64)
    np.maximum.at(want, key % BINS, val.astype(np.int64))
    bins = np.full(BINS, np.iinfo(np.int32).min, np.int32)
    return Setup(_blocks(n), (BLOCK,), (key, val, bins), expected={2: want.astype(np.int32)}, rtol=0.0, atol=0.0)


def _build_rownorm(n, rng):
    rows = max(1, n // ROWLEN)
    a = (rng.random((rows, ROWLEN), dtype=np.float32) + np.float32(0.5)).astype(np.float32)
    want = a.astype(np.float64) / a.astype(np.float64).sum(axis=1, keepdims=True)
    return Setup((rows,), (BLOCK,), (a, np.zeros((rows, ROWLEN), np.float32)), expected={1: want.astype(np.float32)},
                 rtol=1e-5, atol=1e-9)


def _build_diag(n, rng):
    side = _side(n)
    a = rng.random((side, side), dtype=np.float32)
    return Setup(_blocks(side), (BLOCK,), (a, np.zeros(side, np.float32)), expected={1: np.diag(a).copy()},
                 rtol=0.0, atol=0.0)


def _build_saxpy4(n, rng):
    x, y = (rng.random(n, dtype=np.float32) for _ in range(2))
    alpha = np.float32(1.5)
    want = alpha * x.astype(np.float64) + y
    return Setup(_blocks(n // 4), (BLOCK,), (alpha, x, y), expected={2: want.astype(np.float32)}, rtol=1e-6,
                 atol=1e-6)


def _build_dgemm(n, rng):
    side = _side(n) // TILE * TILE
    a, b = (rng.random((side, side)) for _ in range(2))
    return Setup((side // TILE, side // TILE), (TILE, TILE), (a, b, np.zeros((side, side))), expected={2: a @ b},
                 rtol=1e-12, atol=1e-12)


def _build_transpose_tiled(n, rng):
    side = _side(n)
    a = rng.random((side, side))
    return Setup(_grid2(side, side, TT, TT), (TT, 8), (a, np.zeros((side, side))), expected={1: a.T.copy()},
                 rtol=0.0, atol=0.0)


def _build_bias(n, rng):
    side = _side(n)
    a = rng.standard_normal((side, side), dtype=np.float32)
    b = rng.standard_normal(side, dtype=np.float32)
    return Setup(_grid2(side, side, 32, 8), (32, 8), (a, b, np.zeros((side, side), np.float32)),
                 expected={2: np.maximum(a + b[None, :], np.float32(0.0))}, rtol=0.0, atol=0.0)


CASES = [
    Case("lessons", "reverse_global", reverse_global, _build_reverse, SIZES, "an array reversed: out[n-1-i] = a[i]"),
    Case("lessons", "flip_rows", flip_rows, _build_flip, SIZES, "an image mirrored left to right, 32x8 blocks"),
    Case("lessons", "stride3_gather", stride3_gather, _build_stride3, SIZES, "every third word gathered"),
    Case("lessons", "upsample2x", upsample2x, _build_upsample, SIZES, "nearest-neighbour 2x upsampling, 16x16"),
    Case("lessons", "copy_odd_width", copy_odd_width, _build_odd, SIZES,
         "2D copy, rows 3 words short of a multiple of 32"),
    Case("lessons", "heat5_f64", heat5_f64, _build_heat, SIZES, "a float64 5-point heat step, 32x8 blocks"),
    Case("lessons", "horner8_f64", horner8_f64, _build_horner, SIZES, "a degree-8 float64 polynomial (Horner)"),
    Case("lessons", "sigmoid_f64", sigmoid_f64, _build_sigmoid, SIZES, "the float64 logistic function (exp)"),
    Case("lessons", "popc_clz", popc_clz, _build_popc, SIZES, "popc and clz of uint32 words"),
    Case("lessons", "shfl_xor_center", shfl_xor_center, _build_center, SIZES,
         "each element minus its warp's mean (shfl_xor butterfly)"),
    Case("lessons", "ballot_count", ballot_count, _build_ballot, SIZES,
         "a count by ballot and popc, one atomic a warp to one counter"),
    Case("lessons", "atomic_max64", atomic_max64, _build_atomic_max, SIZES, "int32 atomic max into 64 bins"),
    Case("lessons", "row_normalize", row_normalize, _build_rownorm, SIZES,
         "each 1024-element row divided by its sum, one block a row"),
    Case("lessons", "diag_extract", diag_extract, _build_diag, SIZES, "a matrix's diagonal, one thread a row"),
    Case("lessons", "saxpy_ilp4", saxpy_ilp4, _build_saxpy4, SIZES, "saxpy, four elements a thread, n/4 apart"),
    Case("lessons", "dgemm_tiled16", dgemm_tiled16, _build_dgemm, GEMM_SIZES,
         "float64 matrix product, 16x16 shared tiles"),
    Case("lessons", "transpose_f64_tiled", transpose_f64_tiled, _build_transpose_tiled, SIZES,
         "float64 transpose through a 32x33 shared tile"),
    Case("lessons", "bias_relu_2d", bias_relu_2d, _build_bias, SIZES, "a row vector added down the rows, then relu"),
]

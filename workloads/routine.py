"""Routine kernels: a fourth out-of-sample check of the timing model, written and measured after ``plain``.

What the family is for: ``ordinary``, ``everyday`` and ``plain`` were each measured only after the model's
mechanisms of their day were in place, but parts of the model were refitted after each was compared, so none
is fully out of sample any more. These kernels were written later still (2026-11-28), measured once on the
H200 (``docs/hardware/validate_hw.md``) and compared before anything in ``configs/`` was touched for them;
the first comparison is recorded in ``docs/timing_model.md``. They are what a numba user writes in a course
or a first project, chosen to mix mechanisms in ways the other families do not:

* ``spmv_csr``: a CSR sparse matrix times a vector, one thread per row, 4-12 nonzeros a row (a loop of
  data-dependent trip count, a gather of ``x`` through the column indices);
* ``blur_tile16``: a 3x3 box blur through an 18x18 shared tile with its halo, loaded by a loop that splits a
  flat index by ``//`` and ``%`` and clamps it at the image's border (16x16 blocks);
* ``sort4_local``: each thread sorts its 4 consecutive elements by insertion in a ``cuda.local.array``
  (local memory: the sort indexes it by a run-time value);
* ``scatter_perm``: ``out[perm[i]] = a[i]``, ``perm`` a random permutation within each 1024 elements
  (scattered stores, every sector written whole in the end);
* ``warp_sum_atomic``: a grid-stride sum, a ``shfl_down_sync`` tree per warp, one float atomic per warp on
  one address;
* ``where_u8``: ``out = a if mask else b`` with a byte mask (1- and 4-byte loads);
* ``int_divmod``: ``(i // 7) * 3 + i % 13`` of the thread index (64-bit division by constants);
* ``complex_mul``: an element-wise product of two interleaved complex float32 arrays (every load and store
  touches every other word);
* ``rownorm_warp``: one warp per 256-element row scales it to unit length (a strided loop, a
  ``shfl_xor_sync`` tree, the row read twice);
* ``divergent_quarter``: a lane whose index is a multiple of 4 runs a 32-step multiply-add loop, the others
  one add (a warp runs the loop with a quarter of its lanes);
* ``bilinear2x``: a bilinear 2x upsampling of an image (float coordinates floored to indices, clamped, four
  gathers);
* ``triad4``: ``a = b + s c + d`` (three streams read, one written);
* ``scale_u16``: ``out = min(3 a, 65535)`` over uint16 (2-byte accesses);
* ``scale_b32``: ``out = 2 a`` with 32-thread blocks (one warp a block: the SM's block limit caps the warps).

Life of a case: ``build(n, rng)`` draws the inputs (``n`` elements, or an image or matrix of about ``n``),
computes the expected output with numpy (tolerances allow FMA contraction and float32 rounding) and returns
the launch.
"""
import math

import numpy as np

from smsim import cuda
from smsim.case import Case, Setup

BLOCK = 256
TILE = 16                    # blur_tile16's tile side
HALO = TILE + 2
NNZ_LO, NNZ_HI = 4, 12       # spmv_csr's nonzeros per row (mean 8)
PERM = 1024                  # scatter_perm's window
SORT = 4                     # sort4_local's elements per thread
ROW = 256                    # rownorm_warp's row length
LOOP = 32                    # divergent_quarter's loop steps
WARPS_GRID = 1024            # warp_sum_atomic's blocks at the full size (a grid-stride loop)
SIZES = {"test": 1 << 15, "full": 1 << 24}


@cuda.jit
def spmv_csr(indptr, cols, vals, x, y):
    """y[r] = sum of vals[j] x[cols[j]] over row r's nonzeros."""
    r = cuda.grid(1)
    if r < y.shape[0]:
        acc = np.float32(0.0)
        for j in range(indptr[r], indptr[r + 1]):
            acc += vals[j] * x[cols[j]]
        y[r] = acc


@cuda.jit
def blur_tile16(img, out):
    """out = the mean of each pixel's 3x3 neighbourhood (the border clamped), through a shared tile."""
    s = cuda.shared.array((HALO, HALO), np.float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    h, w = img.shape
    x0 = cuda.blockIdx.x * TILE - 1
    y0 = cuda.blockIdx.y * TILE - 1
    k = ty * TILE + tx
    while k < HALO * HALO:
        ly = k // HALO
        lx = k % HALO
        gy = min(max(y0 + ly, 0), h - 1)
        gx = min(max(x0 + lx, 0), w - 1)
        s[ly, lx] = img[gy, gx]
        k += TILE * TILE
    cuda.syncthreads()
    x = x0 + 1 + tx
    y = y0 + 1 + ty
    if y < h and x < w:
        acc = np.float32(0.0)
        for dy in range(3):
            for dx in range(3):
                acc += s[ty + dy, tx + dx]
        out[y, x] = acc / np.float32(9.0)


@cuda.jit
def sort4_local(a, out):
    """Each thread's 4 consecutive elements sorted ascending (insertion sort in a local array)."""
    i = cuda.grid(1)
    if SORT * i + SORT - 1 < a.shape[0]:
        v = cuda.local.array(SORT, np.float32)
        for k in range(SORT):
            v[k] = a[SORT * i + k]
        for k in range(1, SORT):
            x = v[k]
            j = k - 1
            while j >= 0 and v[j] > x:
                v[j + 1] = v[j]
                j -= 1
            v[j + 1] = x
        for k in range(SORT):
            out[SORT * i + k] = v[k]


@cuda.jit
def scatter_perm(a, perm, out):
    """out[perm[i]] = a[i]."""
    i = cuda.grid(1)
    if i < a.shape[0]:
        out[perm[i]] = a[i]


@cuda.jit
def warp_sum_atomic(a, out):
    """out[0] += the sum of a: a grid-stride loop, a shuffle tree per warp, one atomic per warp."""
    i = cuda.grid(1)
    stride = cuda.gridsize(1)
    acc = np.float32(0.0)
    while i < a.shape[0]:
        acc += a[i]
        i += stride
    off = 16
    while off > 0:
        acc += cuda.shfl_down_sync(0xFFFFFFFF, acc, off)
        off //= 2
    if cuda.threadIdx.x % 32 == 0:
        cuda.atomic.add(out, 0, acc)


@cuda.jit
def where_u8(mask, a, b, out):
    """out[i] = a[i] where mask[i] else b[i]."""
    i = cuda.grid(1)
    if i < out.shape[0]:
        if mask[i]:
            out[i] = a[i]
        else:
            out[i] = b[i]


@cuda.jit
def int_divmod(out):
    """out[i] = (i // 7) * 3 + i % 13."""
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = (i // 7) * 3 + i % 13


@cuda.jit
def complex_mul(x, y, out):
    """out = x y, element-wise, of complex numbers stored as interleaved (re, im) float32 pairs."""
    i = cuda.grid(1)
    if 2 * i + 1 < out.shape[0]:
        xr = x[2 * i]
        xi = x[2 * i + 1]
        yr = y[2 * i]
        yi = y[2 * i + 1]
        out[2 * i] = xr * yr - xi * yi
        out[2 * i + 1] = xr * yi + xi * yr


@cuda.jit
def rownorm_warp(a, out):
    """Each row of a (ROW columns) divided by its Euclidean norm, one warp a row."""
    r = cuda.grid(1) // 32
    lane = cuda.threadIdx.x % 32
    if r < a.shape[0]:
        ss = np.float32(0.0)
        for c in range(lane, ROW, 32):
            v = a[r, c]
            ss += v * v
        m = 16
        while m > 0:
            ss += cuda.shfl_xor_sync(0xFFFFFFFF, ss, m)
            m //= 2
        inv = np.float32(1.0) / math.sqrt(ss)
        for c in range(lane, ROW, 32):
            out[r, c] = a[r, c] * inv


@cuda.jit
def divergent_quarter(a, out):
    """out[i] = a[i] iterated LOOP times through v = v * 0.5 + 1 where i % 4 == 0, else a[i] + 1."""
    i = cuda.grid(1)
    if i < a.shape[0]:
        v = a[i]
        if i % 4 == 0:
            for _ in range(LOOP):
                v = v * np.float32(0.5) + np.float32(1.0)
        else:
            v += np.float32(1.0)
        out[i] = v


@cuda.jit
def bilinear2x(img, out):
    """out (twice img's size) sampled from img by bilinear interpolation, pixel centres aligned."""
    x, y = cuda.grid(2)
    oh, ow = out.shape
    h, w = img.shape
    if y < oh and x < ow:
        sx = (x + np.float32(0.5)) * np.float32(0.5) - np.float32(0.5)
        sy = (y + np.float32(0.5)) * np.float32(0.5) - np.float32(0.5)
        fx0 = math.floor(sx)
        fy0 = math.floor(sy)
        fx = sx - fx0
        fy = sy - fy0
        x0 = max(int(fx0), 0)
        y0 = max(int(fy0), 0)
        x1 = min(int(fx0) + 1, w - 1)
        y1 = min(int(fy0) + 1, h - 1)
        top = (np.float32(1.0) - fx) * img[y0, x0] + fx * img[y0, x1]
        bot = (np.float32(1.0) - fx) * img[y1, x0] + fx * img[y1, x1]
        out[y, x] = (np.float32(1.0) - fy) * top + fy * bot


@cuda.jit
def triad4(a, b, c, d, s):
    """a = b + s c + d."""
    i = cuda.grid(1)
    if i < a.shape[0]:
        a[i] = b[i] + s * c[i] + d[i]


@cuda.jit
def scale_u16(a, out):
    """out = min(3 a, 65535) over uint16."""
    i = cuda.grid(1)
    if i < a.shape[0]:
        out[i] = min(a[i] * 3, 65535)


@cuda.jit
def scale_b32(a, out):
    """out = 2 a (launched with 32-thread blocks)."""
    i = cuda.grid(1)
    if i < a.shape[0]:
        out[i] = np.float32(2.0) * a[i]


def _blocks(n, block=BLOCK):
    return ((n + block - 1) // block,)


def _side(n):
    return int(math.isqrt(n))


def _build_spmv(n, rng):
    rows = n // 8
    counts = rng.integers(NNZ_LO, NNZ_HI + 1, rows)
    indptr = np.zeros(rows + 1, np.int32)
    indptr[1:] = np.cumsum(counts)
    nnz = int(indptr[-1])
    cols = rng.integers(0, rows, nnz).astype(np.int32)
    vals = rng.random(nnz, dtype=np.float32)
    x = rng.random(rows, dtype=np.float32)
    want = np.add.reduceat((vals.astype(np.float64) * x[cols]), indptr[:-1]).astype(np.float32)
    return Setup(_blocks(rows), (BLOCK,), (indptr, cols, vals, x, np.zeros(rows, np.float32)),
                 expected={4: want}, rtol=1e-5, atol=1e-5)


def _build_blur(n, rng):
    side = _side(n)
    img = rng.random((side, side), dtype=np.float32)
    p = np.pad(img.astype(np.float64), 1, mode="edge")
    want = sum(p[dy:dy + side, dx:dx + side] for dy in range(3) for dx in range(3)) / 9.0
    grid = ((side + TILE - 1) // TILE, (side + TILE - 1) // TILE)
    return Setup(grid, (TILE, TILE), (img, np.zeros_like(img)), expected={1: want.astype(np.float32)},
                 rtol=1e-5, atol=1e-6)


def _build_sort4(n, rng):
    a = rng.random(n, dtype=np.float32)
    want = np.sort(a.reshape(-1, SORT), axis=1).reshape(-1)
    return Setup(_blocks(n // SORT), (BLOCK,), (a, np.zeros(n, np.float32)), expected={1: want}, rtol=0.0,
                 atol=0.0)


def _build_scatter(n, rng):
    a = rng.random(n, dtype=np.float32)
    perm = (np.argsort(rng.random((n // PERM, PERM)), axis=1) + np.arange(0, n, PERM)[:, None]).reshape(-1)
    perm = perm.astype(np.int32)
    want = np.zeros(n, np.float32)
    want[perm] = a
    return Setup(_blocks(n), (BLOCK,), (a, perm, np.zeros(n, np.float32)), expected={2: want}, rtol=0.0,
                 atol=0.0)


def _build_warp_sum(n, rng):
    # 0s and 1s: every partial sum and the total (< 2^24) are exact in float32 whatever the atomics' order
    a = rng.integers(0, 2, n).astype(np.float32)
    blocks = min(WARPS_GRID, _blocks(n)[0])
    return Setup((blocks,), (BLOCK,), (a, np.zeros(1, np.float32)), expected={1: np.array([a.sum()], np.float32)},
                 rtol=0.0, atol=0.0)


def _build_where(n, rng):
    mask = rng.integers(0, 2, n).astype(np.uint8)
    a = rng.random(n, dtype=np.float32)
    b = rng.random(n, dtype=np.float32)
    return Setup(_blocks(n), (BLOCK,), (mask, a, b, np.zeros(n, np.float32)),
                 expected={3: np.where(mask != 0, a, b)}, rtol=0.0, atol=0.0)


def _build_divmod(n, rng):
    i = np.arange(n, dtype=np.int64)
    return Setup(_blocks(n), (BLOCK,), (np.zeros(n, np.int32),), expected={0: ((i // 7) * 3 + i % 13).astype(np.int32)},
                 rtol=0.0, atol=0.0)


def _build_complex(n, rng):
    x = rng.standard_normal(2 * n, dtype=np.float32)
    y = rng.standard_normal(2 * n, dtype=np.float32)
    z = (x[0::2] + 1j * x[1::2].astype(np.float64)) * (y[0::2] + 1j * y[1::2].astype(np.float64))
    want = np.empty(2 * n, np.float32)
    want[0::2], want[1::2] = z.real, z.imag
    return Setup(_blocks(n), (BLOCK,), (x, y, np.zeros(2 * n, np.float32)), expected={2: want}, rtol=1e-4,
                 atol=1e-5)


def _build_rownorm(n, rng):
    rows = n // ROW
    a = (rng.random((rows, ROW), dtype=np.float32) + np.float32(0.1)).astype(np.float32)
    want = a / np.sqrt((a.astype(np.float64) ** 2).sum(axis=1, keepdims=True))
    return Setup(_blocks(rows * 32), (BLOCK,), (a, np.zeros_like(a)), expected={1: want.astype(np.float32)},
                 rtol=1e-5, atol=1e-6)


def _build_divergent(n, rng):
    a = rng.random(n, dtype=np.float32)
    v = a.astype(np.float64)
    heavy = v.copy()
    for _ in range(LOOP):
        heavy = heavy * 0.5 + 1.0
    want = np.where(np.arange(n) % 4 == 0, heavy, v + 1.0).astype(np.float32)
    return Setup(_blocks(n), (BLOCK,), (a, np.zeros(n, np.float32)), expected={1: want}, rtol=1e-6, atol=1e-6)


def _build_bilinear(n, rng):
    side = _side(n) // 2
    img = rng.random((side, side), dtype=np.float32)
    o = 2 * side
    s = (np.arange(o) + 0.5) * 0.5 - 0.5
    f0 = np.floor(s)
    f = s - f0
    i0 = np.maximum(f0.astype(np.int64), 0)
    i1 = np.minimum(f0.astype(np.int64) + 1, side - 1)
    im = img.astype(np.float64)
    top = (1 - f)[None, :] * im[i0][:, i0] + f[None, :] * im[i0][:, i1]
    bot = (1 - f)[None, :] * im[i1][:, i0] + f[None, :] * im[i1][:, i1]
    want = (1 - f)[:, None] * top + f[:, None] * bot
    grid = ((o + 31) // 32, (o + 7) // 8)
    return Setup(grid, (32, 8), (img, np.zeros((o, o), np.float32)), expected={1: want.astype(np.float32)},
                 rtol=1e-5, atol=1e-6)


def _build_triad(n, rng):
    b, c, d = (rng.random(n, dtype=np.float32) for _ in range(3))
    s = np.float32(0.75)
    want = (b.astype(np.float64) + 0.75 * c + d).astype(np.float32)
    return Setup(_blocks(n), (BLOCK,), (np.zeros(n, np.float32), b, c, d, s), expected={0: want}, rtol=1e-6,
                 atol=1e-6)


def _build_u16(n, rng):
    a = rng.integers(0, 65536, n).astype(np.uint16)
    want = np.minimum(a.astype(np.int64) * 3, 65535).astype(np.uint16)
    return Setup(_blocks(n), (BLOCK,), (a, np.zeros(n, np.uint16)), expected={1: want}, rtol=0.0, atol=0.0)


def _build_b32(n, rng):
    a = rng.random(n, dtype=np.float32)
    return Setup(_blocks(n, 32), (32,), (a, np.zeros(n, np.float32)), expected={1: np.float32(2.0) * a},
                 rtol=0.0, atol=0.0)


CASES = [
    Case("routine", "spmv_csr", spmv_csr, _build_spmv, SIZES,
         "CSR sparse matrix-vector product, one thread per row, 4-12 nonzeros a row"),
    Case("routine", "blur_tile16", blur_tile16, _build_blur, SIZES,
         "3x3 box blur through an 18x18 shared tile with its halo"),
    Case("routine", "sort4_local", sort4_local, _build_sort4, SIZES,
         "each thread insertion-sorts 4 elements in a local array"),
    Case("routine", "scatter_perm", scatter_perm, _build_scatter, SIZES,
         "out[perm[i]] = a[i], perm random within each 1024 elements"),
    Case("routine", "warp_sum_atomic", warp_sum_atomic, _build_warp_sum, SIZES,
         "grid-stride sum, shuffle tree per warp, one float atomic per warp"),
    Case("routine", "where_u8", where_u8, _build_where, SIZES, "out = a where a byte mask is set, else b"),
    Case("routine", "int_divmod", int_divmod, _build_divmod, SIZES, "(i // 7) * 3 + i % 13 of the thread index"),
    Case("routine", "complex_mul", complex_mul, _build_complex, SIZES,
         "element-wise product of interleaved complex float32 arrays"),
    Case("routine", "rownorm_warp", rownorm_warp, _build_rownorm, SIZES,
         "each 256-element row scaled to unit length, one warp a row"),
    Case("routine", "divergent_quarter", divergent_quarter, _build_divergent, SIZES,
         "a 32-step loop on every fourth lane, one add on the others"),
    Case("routine", "bilinear2x", bilinear2x, _build_bilinear, SIZES, "bilinear 2x upsampling of an image"),
    Case("routine", "triad4", triad4, _build_triad, SIZES, "a = b + s c + d: three streams read, one written"),
    Case("routine", "scale_u16", scale_u16, _build_u16, SIZES, "out = min(3 a, 65535) over uint16"),
    Case("routine", "scale_b32", scale_b32, _build_b32, SIZES, "out = 2 a with 32-thread blocks"),
]

"""Plain kernels: a third out-of-sample check of the timing model, written and measured after ``everyday``.

What the family is for: ``ordinary`` and ``everyday`` were measured only after the model's mechanisms were in
place, but parts of the model were refitted after each was compared, so neither is fully out of sample any
more. These kernels were written later still (2026-11-25), measured once on the H200
(``docs/hardware/validate_hw.md``) and compared before anything in ``configs/`` was touched for them; the
first comparison is recorded in ``docs/timing_model.md``. They are what a numba user writes, chosen to mix
mechanisms in ways the other families do not:

* ``matadd_2d16``: ``out = a + b`` over a 2-D grid of 16x16 blocks (each block row half a 128-byte line);
* ``transpose_add16``: ``out[y, x] = a[y, x] + b[x, y]`` (16x16 blocks: one read coalesced, one strided);
* ``colsum64``: each thread sums one column of a 64-row matrix (coalesced loads in a loop);
* ``unravel3d``: a flat index split into ``x, y, z`` by ``%`` and ``//`` by run-time sizes (64-bit integer
  division, as numba's Python ints make it), then a scale;
* ``ratio_div``: ``a / b + sqrt(a) / (1 + b)`` in float32 (IEEE divisions and a square root);
* ``hist64_shared``: a 64-bin histogram per block in shared memory (shared atomics), merged with one global
  atomic per bin and block;
* ``warp_scan``: an inclusive scan of each warp's 32 values with ``shfl_up_sync`` (5 steps);
* ``stencil3d7``: a 7-point 3-D stencil, 32x8 blocks over ``x, y`` each looping over ``z``;
* ``gather_perm4k``: ``out[i] = a[idx[i]]`` with ``idx`` a random permutation within each 4096 elements;
* ``saxpy_gs512``: ``out = a x + y`` by a grid-stride loop over 512 blocks (less than a wave);
* ``dot_f64``: a float64 dot product: a shared-memory tree per block, one float64 global atomic per block;
* ``count_above``: how many elements exceed a threshold: one shared counter per block (every lane's atomic on
  one shared address), then one global atomic per block.

Life of a case: ``build(n, rng)`` draws the inputs (``n`` elements, or an image/volume/matrix of about ``n``),
computes the expected output with numpy (tolerances allow FMA contraction and float32 rounding) and returns
the launch.
"""
import math

import numpy as np

from smsim import cuda
from smsim.case import Case, Setup

BLOCK = 256
TILE = 16
ROWS = 64                    # colsum64's rows
PERM = 4096                  # gather_perm4k's window
GS_BLOCKS = 512              # saxpy_gs512's grid
SIZES = {"test": 1 << 15, "full": 1 << 24}
VOLUME = {"test": 32, "full": 256}       # stencil3d7's edge: 32^3 and 256^3 points


@cuda.jit
def matadd_2d(a, b, out):
    """out[y, x] = a[y, x] + b[y, x]."""
    x, y = cuda.grid(2)
    if y < out.shape[0] and x < out.shape[1]:
        out[y, x] = a[y, x] + b[y, x]


@cuda.jit
def transpose_add(a, b, out):
    """out[y, x] = a[y, x] + b[x, y] over a square matrix."""
    x, y = cuda.grid(2)
    n = out.shape[0]
    if y < n and x < n:
        out[y, x] = a[y, x] + b[x, y]


@cuda.jit
def colsum(m, out):
    """out[j] = sum over the rows of m[i, j], one column per thread."""
    j = cuda.grid(1)
    if j < m.shape[1]:
        acc = np.float32(0.0)
        for i in range(m.shape[0]):
            acc += m[i, j]
        out[j] = acc


@cuda.jit
def unravel3d(a, out, nx, ny):
    """out[i] = a[i] (x + 2 y + 3 z) where i = x + nx (y + ny z)."""
    i = cuda.grid(1)
    if i < a.shape[0]:
        x = i % nx
        y = (i // nx) % ny
        z = i // (nx * ny)
        out[i] = a[i] * np.float32(x + 2 * y + 3 * z)


@cuda.jit
def ratio_div(a, b, out):
    """out = a / b + sqrt(a) / (1 + b)."""
    i = cuda.grid(1)
    if i < a.shape[0]:
        out[i] = a[i] / b[i] + math.sqrt(a[i]) / (np.float32(1.0) + b[i])


@cuda.jit
def hist64_shared(data, bins):
    """bins[v & 63] += 1 for every v in data: a shared histogram per block, merged into bins."""
    h = cuda.shared.array(64, np.int32)
    t = cuda.threadIdx.x
    if t < 64:
        h[t] = 0
    cuda.syncthreads()
    i = cuda.grid(1)
    if i < data.shape[0]:
        cuda.atomic.add(h, data[i] & 63, 1)
    cuda.syncthreads()
    if t < 64:
        cuda.atomic.add(bins, t, h[t])


@cuda.jit
def warp_scan(a, out):
    """out = the inclusive prefix sum of each warp's 32 consecutive elements."""
    i = cuda.grid(1)
    lane = cuda.threadIdx.x % 32
    v = np.float32(0.0)
    if i < a.shape[0]:
        v = a[i]
    for k in range(5):
        d = 1 << k
        up = cuda.shfl_up_sync(0xFFFFFFFF, v, d)
        if lane >= d:
            v += up
    if i < a.shape[0]:
        out[i] = v


@cuda.jit
def stencil3d7(u, out):
    """out = the 7-point Laplacian of u at interior points (x, y per thread, a loop over z)."""
    x, y = cuda.grid(2)
    nz, ny, nx = u.shape
    if x > 0 and x < nx - 1 and y > 0 and y < ny - 1:
        for z in range(1, nz - 1):
            out[z, y, x] = (u[z, y, x - 1] + u[z, y, x + 1] + u[z, y - 1, x] + u[z, y + 1, x]
                            + u[z - 1, y, x] + u[z + 1, y, x] - np.float32(6.0) * u[z, y, x])


@cuda.jit
def gather(a, idx, out):
    """out[i] = a[idx[i]]."""
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = a[idx[i]]


@cuda.jit
def saxpy_gs(a, x, y, out):
    """out = a x + y by a grid-stride loop."""
    start = cuda.grid(1)
    stride = cuda.gridsize(1)
    for i in range(start, x.shape[0], stride):
        out[i] = a * x[i] + y[i]


@cuda.jit
def dot_f64(a, b, out):
    """out[0] += sum a b in float64: a shared-memory tree per block, then one atomic."""
    s = cuda.shared.array(256, np.float64)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    v = 0.0
    if i < a.shape[0]:
        v = a[i] * b[i]
    s[t] = v
    cuda.syncthreads()
    step = 128
    while step > 0:
        if t < step:
            s[t] += s[t + step]
        cuda.syncthreads()
        step //= 2
    if t == 0:
        cuda.atomic.add(out, 0, s[0])


@cuda.jit
def count_above(a, thresh, count):
    """count[0] += the elements of a above thresh: a shared counter per block, then one global atomic."""
    c = cuda.shared.array(1, np.int32)
    if cuda.threadIdx.x == 0:
        c[0] = 0
    cuda.syncthreads()
    i = cuda.grid(1)
    if i < a.shape[0] and a[i] > thresh:
        cuda.atomic.add(c, 0, 1)
    cuda.syncthreads()
    if cuda.threadIdx.x == 0:
        cuda.atomic.add(count, 0, c[0])


def _blocks(n, block=BLOCK):
    return ((n + block - 1) // block,)


def _side(n):
    return int(math.isqrt(n))


def _grid2(w, h, bx, by):
    return ((w + bx - 1) // bx, (h + by - 1) // by)


def _build_matadd(n, rng):
    side = _side(n)
    a = rng.random((side, side), dtype=np.float32)
    b = rng.random((side, side), dtype=np.float32)
    return Setup(_grid2(side, side, TILE, TILE), (TILE, TILE), (a, b, np.zeros_like(a)), expected={2: a + b},
                 rtol=0.0, atol=0.0)


def _build_transpose_add(n, rng):
    side = _side(n)
    a = rng.random((side, side), dtype=np.float32)
    b = rng.random((side, side), dtype=np.float32)
    return Setup(_grid2(side, side, TILE, TILE), (TILE, TILE), (a, b, np.zeros_like(a)),
                 expected={2: a + b.T}, rtol=0.0, atol=0.0)


def _build_colsum(n, rng):
    cols = max(1, n // ROWS)
    m = rng.random((ROWS, cols), dtype=np.float32)
    return Setup(_blocks(cols), (BLOCK,), (m, np.zeros(cols, np.float32)),
                 expected={1: m.astype(np.float64).sum(axis=0).astype(np.float32)}, rtol=1e-5, atol=1e-5)


def _build_unravel(n, rng):
    nx, ny = 100, 60                        # not powers of two: real divisions
    a = rng.random(n, dtype=np.float32)
    i = np.arange(n, dtype=np.int64)
    w = (i % nx + 2 * ((i // nx) % ny) + 3 * (i // (nx * ny))).astype(np.float32)
    return Setup(_blocks(n), (BLOCK,), (a, np.zeros(n, np.float32), np.int32(nx), np.int32(ny)),
                 expected={1: a * w}, rtol=1e-6, atol=0.0)


def _build_ratio(n, rng):
    a = (rng.random(n, dtype=np.float32) + np.float32(0.5)).astype(np.float32)
    b = (rng.random(n, dtype=np.float32) + np.float32(0.5)).astype(np.float32)
    want = (a / b + np.sqrt(a) / (np.float32(1.0) + b)).astype(np.float32)
    return Setup(_blocks(n), (BLOCK,), (a, b, np.zeros(n, np.float32)), expected={2: want}, rtol=1e-6, atol=0.0)


def _build_hist(n, rng):
    data = rng.integers(0, 1 << 20, n).astype(np.int32)
    want = np.bincount(data & 63, minlength=64).astype(np.int32)
    return Setup(_blocks(n), (BLOCK,), (data, np.zeros(64, np.int32)), expected={1: want}, rtol=0.0, atol=0.0)


def _build_scan(n, rng):
    a = rng.integers(0, 16, n).astype(np.float32)
    want = np.cumsum(a.reshape(-1, 32), axis=1).reshape(-1).astype(np.float32)
    return Setup(_blocks(n), (BLOCK,), (a, np.zeros(n, np.float32)), expected={1: want}, rtol=0.0, atol=0.0)


def _build_stencil3d(e, rng):
    u = rng.random((e, e, e), dtype=np.float32)
    want = np.zeros_like(u)
    c = u[1:-1, 1:-1, 1:-1]
    want[1:-1, 1:-1, 1:-1] = (u[1:-1, 1:-1, :-2] + u[1:-1, 1:-1, 2:] + u[1:-1, :-2, 1:-1] + u[1:-1, 2:, 1:-1]
                              + u[:-2, 1:-1, 1:-1] + u[2:, 1:-1, 1:-1] - np.float32(6.0) * c)
    return Setup(_grid2(e, e, 32, 8), (32, 8), (u, np.zeros_like(u)), expected={1: want}, rtol=1e-5, atol=1e-5)


def _build_gather(n, rng):
    a = rng.random(n, dtype=np.float32)
    idx = np.concatenate([w + rng.permutation(min(PERM, n - w)) for w in range(0, n, PERM)]).astype(np.int32)
    return Setup(_blocks(n), (BLOCK,), (a, idx, np.zeros(n, np.float32)), expected={2: a[idx]},
                 rtol=0.0, atol=0.0)


def _build_saxpy_gs(n, rng):
    x = rng.random(n, dtype=np.float32)
    y = rng.random(n, dtype=np.float32)
    a = np.float32(2.5)
    return Setup((GS_BLOCKS,), (BLOCK,), (a, x, y, np.zeros(n, np.float32)), expected={3: a * x + y},
                 rtol=1e-6, atol=0.0)


def _build_dot_f64(n, rng):
    # 0s and 1s: every partial sum is exact in float64 whatever order the atomics land in
    a = rng.integers(0, 2, n).astype(np.float64)
    b = rng.integers(0, 2, n).astype(np.float64)
    return Setup(_blocks(n), (BLOCK,), (a, b, np.zeros(1, np.float64)), expected={2: np.array([a @ b])},
                 rtol=0.0, atol=0.0)


def _build_count(n, rng):
    a = rng.random(n, dtype=np.float32)
    t = np.float32(0.75)
    return Setup(_blocks(n), (BLOCK,), (a, t, np.zeros(1, np.int32)),
                 expected={2: np.array([(a > t).sum()], np.int32)}, rtol=0.0, atol=0.0)


CASES = [
    Case("plain", "matadd_2d16", matadd_2d, _build_matadd, SIZES, "out = a + b, 16x16 blocks over a matrix"),
    Case("plain", "transpose_add16", transpose_add, _build_transpose_add, SIZES,
         "out[y, x] = a[y, x] + b[x, y], 16x16 blocks: one coalesced read, one strided"),
    Case("plain", "colsum64", colsum, _build_colsum, SIZES,
         "each thread sums one column of a 64-row matrix: coalesced loads in a loop"),
    Case("plain", "unravel3d", unravel3d, _build_unravel, SIZES,
         "a flat index split by % and // by run-time sizes (64-bit divisions), then a scale"),
    Case("plain", "ratio_div", ratio_div, _build_ratio, SIZES, "a / b + sqrt(a) / (1 + b) in float32"),
    Case("plain", "hist64_shared", hist64_shared, _build_hist, SIZES,
         "64-bin histogram: shared atomics per block, one global atomic per bin and block"),
    Case("plain", "warp_scan", warp_scan, _build_scan, SIZES, "inclusive scan of each warp's 32 values by shfl_up"),
    Case("plain", "stencil3d7", stencil3d7, _build_stencil3d, VOLUME,
         "7-point 3-D stencil: 32x8 blocks over x, y, a loop over z"),
    Case("plain", "gather_perm4k", gather, _build_gather, SIZES,
         "out[i] = a[idx[i]], idx a random permutation within each 4096 elements"),
    Case("plain", "saxpy_gs512", saxpy_gs, _build_saxpy_gs, SIZES, "out = a x + y, grid-stride loop over 512 blocks"),
    Case("plain", "dot_f64", dot_f64, _build_dot_f64, SIZES,
         "float64 dot product: shared-memory tree per block, one float64 atomic per block"),
    Case("plain", "count_above", count_above, _build_count, SIZES,
         "count of elements above a threshold: every lane's atomic on one shared counter, one global per block"),
]

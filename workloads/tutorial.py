"""Tutorial kernels: an eleventh out-of-sample check of the timing model, written after ``seminar``.

What the family is for: like ``seminar`` before it, these kernels were written after every model change of
their day had landed (2026-11-30, the session that made a parameter's constant-cache miss grow with the SMs
missing together and the lines missed), measured once on the H200 (``docs/hardware/validate_hw.md``) and
compared before anything changed for them (``docs/timing_model.md``). They are what a tutorial's exercises
look like at launch shapes no family used before: blocks of 96, 192 and 384 threads (not powers of two), 2-D
blocks of 8x32 and 64x4, a 3-D grid of 8x8x4 blocks, a fixed grid-stride grid of two blocks an SM:

* ``vadd_b96``: ``c = a + b`` in blocks of 96 threads (three warps);
* ``saxpy_gs384``: ``y = a x + y`` by a grid-stride loop, 264 blocks of 384 threads;
* ``store_stride3``: ``out[3 i] = a[i]`` (a warp's stores 12 bytes apart: every sector written in part);
* ``sum_stride3``: ``out[i] = a[3 i] + a[3 i + 1] + a[3 i + 2]`` (three loads 12 bytes apart a lane);
* ``transpose_8x32``: a naive float32 transpose in blocks of 8x32 threads (a warp spans four rows);
* ``transpose_tile64``: a float32 transpose through a 64x65 shared tile, 64x4 threads, 16 rows a thread;
* ``add3d_8x8x4``: ``c = a + b`` over a 3-D volume in 8x8x4 blocks (a warp four rows of 32 bytes);
* ``matvec_shared_x``: ``y = A x``, a thread a row of 256 (its loads 1 KB apart from lane to lane), ``x``
  staged in shared memory;
* ``tril_zero``: the strict upper triangle of a square matrix zeroed in place (stores only, half the threads
  idle, 32x8 blocks);
* ``scan_hillis``: an inclusive scan of each 256-element block by Hillis-Steele steps in two shared buffers;
* ``hist2d_shared``: a 16x16-bin histogram of byte pairs in shared memory, merged by global atomics;
* ``poly_runtime``: a polynomial by Horner's rule, its degree (12) and coefficients read at run time;
* ``clamp_f64_b192``: float64 values clamped in place, 192-thread blocks;
* ``gather_rows_warp``: ``out[r] = a[idx[r]]``, a warp a 256-float row;
* ``box3_f64``: a 3x3 mean of a float64 image from global memory, 16x16 blocks, edges clamped;
* ``count_shared_atomic``: elements above a threshold counted by shared-memory atomics, one global atomic a
  block;
* ``interleave_u8x4``: four byte planes interleaved into RGBA bytes (four one-byte stores a thread).

Life of a case: ``build(n, rng)`` draws the inputs (``n`` elements, or an image of about ``n``), computes the
expected output with numpy (integer-valued floats or integers where atomics add in any order, so the sums are
exact) and returns the launch.
"""
import numpy as np

from smsim import cuda
from smsim.case import Case, Setup
from workloads.plain import _blocks, _grid2, _side   # the launch-shape helpers
from workloads.seminar import _small_ints         # floats holding small integers: exact sums in any order

GS_BLOCKS = 264           # saxpy_gs384's grid: two blocks an SM of an H200
ROW = 256                 # matvec_shared_x's and gather_rows_warp's row
SCAN = 256                # scan_hillis' block
BINS = 16                 # hist2d_shared's bins per axis
BINS2 = 256               # and in all (numba sizes a shared array by a constant, not an expression)
DEGREE = 12               # poly_runtime's degree
LO, HI = -0.5, 0.5        # clamp_f64_b192's bounds
THRESH = 0.75             # count_shared_atomic's threshold
SIZES = {"test": 1 << 15, "full": 1 << 24}


@cuda.jit
def vadd_b96(a, b, c):
    """c = a + b, blocks of 96 threads."""
    i = cuda.grid(1)
    if i < c.shape[0]:
        c[i] = a[i] + b[i]


@cuda.jit
def saxpy_gs384(alpha, x, y):
    """y = alpha x + y by a grid-stride loop."""
    for i in range(cuda.grid(1), y.shape[0], cuda.gridsize(1)):
        y[i] = alpha * x[i] + y[i]


@cuda.jit
def store_stride3(a, out):
    """out[3 i] = a[i]."""
    i = cuda.grid(1)
    if i < a.shape[0]:
        out[3 * i] = a[i]


@cuda.jit
def sum_stride3(a, out):
    """out[i] = a[3 i] + a[3 i + 1] + a[3 i + 2]."""
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = a[3 * i] + a[3 * i + 1] + a[3 * i + 2]


@cuda.jit
def transpose_8x32(a, out):
    """out = a^T, blocks of 8x32 threads."""
    x, y = cuda.grid(2)
    if y < a.shape[0] and x < a.shape[1]:
        out[x, y] = a[y, x]


@cuda.jit
def transpose_tile64(a, out):
    """out = a^T through a 64x65 shared tile, 64x4 threads, 16 rows a thread."""
    tile = cuda.shared.array((64, 65), np.float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    x = cuda.blockIdx.x * 64 + tx
    y0 = cuda.blockIdx.y * 64
    for j in range(ty, 64, 4):
        if y0 + j < a.shape[0] and x < a.shape[1]:
            tile[j, tx] = a[y0 + j, x]
    cuda.syncthreads()
    x = cuda.blockIdx.y * 64 + tx
    y0 = cuda.blockIdx.x * 64
    for j in range(ty, 64, 4):
        if y0 + j < out.shape[0] and x < out.shape[1]:
            out[y0 + j, x] = tile[tx, j]


@cuda.jit
def add3d_8x8x4(a, b, c):
    """c = a + b over a 3-D volume."""
    x, y, z = cuda.grid(3)
    if z < c.shape[0] and y < c.shape[1] and x < c.shape[2]:
        c[z, y, x] = a[z, y, x] + b[z, y, x]


@cuda.jit
def matvec_shared_x(m, x, y):
    """y[r] = the dot of row r of m with x, a thread a row, x staged in shared memory."""
    s = cuda.shared.array(ROW, np.float32)
    t = cuda.threadIdx.x
    s[t] = x[t]
    cuda.syncthreads()
    r = cuda.grid(1)
    if r < m.shape[0]:
        acc = np.float32(0.0)
        for k in range(ROW):
            acc += m[r, k] * s[k]
        y[r] = acc


@cuda.jit
def tril_zero(a):
    """a[y, x] = 0 where x > y, in place."""
    x, y = cuda.grid(2)
    if y < a.shape[0] and x < a.shape[1] and x > y:
        a[y, x] = np.float32(0.0)


@cuda.jit
def scan_hillis(a, out):
    """out = the inclusive scan of each 256-element block of a, Hillis-Steele in two shared buffers."""
    s0 = cuda.shared.array(SCAN, np.float32)
    s1 = cuda.shared.array(SCAN, np.float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    v = np.float32(0.0)
    if i < a.shape[0]:
        v = a[i]
    s0[t] = v
    cuda.syncthreads()
    step = 1
    src = 0
    while step < SCAN:
        if src == 0:
            w = s0[t]
            if t >= step:
                w += s0[t - step]
            s1[t] = w
        else:
            w = s1[t]
            if t >= step:
                w += s1[t - step]
            s0[t] = w
        cuda.syncthreads()
        src = 1 - src
        step *= 2
    if i < a.shape[0]:
        if src == 0:
            out[i] = s0[t]
        else:
            out[i] = s1[t]


@cuda.jit
def hist2d_shared(u, v, hist):
    """hist[u >> 4, v >> 4] += 1 for each byte pair, counted in shared memory a block, then merged."""
    h = cuda.shared.array(BINS2, np.int32)
    t = cuda.threadIdx.x
    h[t] = 0
    cuda.syncthreads()
    i = cuda.grid(1)
    if i < u.shape[0]:
        cuda.atomic.add(h, (u[i] >> 4) * BINS + (v[i] >> 4), 1)
    cuda.syncthreads()
    if h[t] > 0:
        cuda.atomic.add(hist, t, h[t])


@cuda.jit
def poly_runtime(x, coef, degree, out):
    """out[i] = the polynomial of the degree + 1 coefficients at x[i], by Horner's rule."""
    i = cuda.grid(1)
    if i < x.shape[0]:
        xi = x[i]
        acc = coef[0]
        for k in range(1, degree + 1):
            acc = acc * xi + coef[k]
        out[i] = acc


@cuda.jit
def clamp_f64_b192(a, lo, hi):
    """a = min(max(a, lo), hi), float64, in place."""
    i = cuda.grid(1)
    if i < a.shape[0]:
        a[i] = min(max(a[i], lo), hi)


@cuda.jit
def gather_rows_warp(a, idx, out):
    """out[r] = a[idx[r]], a warp a row."""
    r = cuda.grid(1) // 32
    lane = cuda.laneid
    if r < out.shape[0]:
        src = idx[r]
        for c in range(lane, ROW, 32):
            out[r, c] = a[src, c]


@cuda.jit
def box3_f64(a, out):
    """out[y, x] = the mean of the 3x3 neighbourhood of a[y, x], edges clamped, float64."""
    x, y = cuda.grid(2)
    h = a.shape[0]
    w = a.shape[1]
    if y < h and x < w:
        acc = 0.0
        for dy in range(-1, 2):
            yy = min(max(y + dy, 0), h - 1)
            for dx in range(-1, 2):
                acc += a[yy, min(max(x + dx, 0), w - 1)]
        out[y, x] = acc / 9.0


@cuda.jit
def count_shared_atomic(a, thresh, count):
    """count[0] += how many of a exceed thresh, counted in shared memory a block."""
    c = cuda.shared.array(1, np.int32)
    t = cuda.threadIdx.x
    if t == 0:
        c[0] = 0
    cuda.syncthreads()
    i = cuda.grid(1)
    if i < a.shape[0] and a[i] > thresh:
        cuda.atomic.add(c, 0, 1)
    cuda.syncthreads()
    if t == 0:
        cuda.atomic.add(count, 0, c[0])


@cuda.jit
def interleave_u8x4(r, g, b, a, out):
    """out[4 i: 4 i + 4] = r[i], g[i], b[i], a[i]."""
    i = cuda.grid(1)
    if i < r.shape[0]:
        out[4 * i] = r[i]
        out[4 * i + 1] = g[i]
        out[4 * i + 2] = b[i]
        out[4 * i + 3] = a[i]


def _floats(n, rng):
    return rng.random(n, dtype=np.float32)


def _build_vadd(n, rng):
    a, b = _floats(n, rng), _floats(n, rng)
    return Setup(_blocks(n, 96), (96,), (a, b, np.zeros(n, np.float32)), expected={2: a + b}, rtol=0.0, atol=0.0)


def _build_saxpy(n, rng):
    x, y = _floats(n, rng), _floats(n, rng)
    alpha = np.float32(1.5)
    return Setup((GS_BLOCKS,), (384,), (alpha, x, y.copy()), expected={2: alpha * x + y}, rtol=1e-6, atol=1e-6)


def _build_store_stride3(n, rng):
    a = _floats(n, rng)
    want = np.zeros(3 * n, np.float32)
    want[0::3] = a
    return Setup(_blocks(n), (256,), (a, np.zeros(3 * n, np.float32)), expected={1: want}, rtol=0.0, atol=0.0)


def _build_sum_stride3(n, rng):
    a = _small_ints(3 * n, rng)
    want = a[0::3] + a[1::3] + a[2::3]
    return Setup(_blocks(n), (256,), (a, np.zeros(n, np.float32)), expected={1: want}, rtol=0.0, atol=0.0)


def _build_transpose_8x32(n, rng):
    side = _side(n) // 32 * 32
    a = rng.random((side, side), dtype=np.float32)
    return Setup(_grid2(side, side, 8, 32), (8, 32), (a, np.zeros_like(a)), expected={1: a.T.copy()},
                 rtol=0.0, atol=0.0)


def _build_transpose_tile64(n, rng):
    side = _side(n) // 64 * 64
    a = rng.random((side, side), dtype=np.float32)
    return Setup(_grid2(side, side, 64, 64), (64, 4), (a, np.zeros_like(a)), expected={1: a.T.copy()},
                 rtol=0.0, atol=0.0)


def _build_add3d(n, rng):
    d = max(8, round(n ** (1 / 3)) // 8 * 8)
    shape = (d // 2, d, 2 * d)                     # z, y, x: the volume longer along its rows
    a = rng.random(shape, dtype=np.float32)
    b = rng.random(shape, dtype=np.float32)
    grid = (shape[2] // 8, shape[1] // 8, -(-shape[0] // 4))
    return Setup(grid, (8, 8, 4), (a, b, np.zeros_like(a)), expected={2: a + b}, rtol=0.0, atol=0.0)


def _build_matvec(n, rng):
    rows = max(256, n // ROW)
    m = _small_ints(rows * ROW, rng).reshape(rows, ROW)
    x = _small_ints(ROW, rng)
    want = (m.astype(np.float64) @ x).astype(np.float32)
    return Setup(_blocks(rows, ROW), (ROW,), (m, x, np.zeros(rows, np.float32)), expected={2: want}, rtol=0.0,
                 atol=0.0)


def _build_tril(n, rng):
    side = _side(n)
    a = rng.random((side, side), dtype=np.float32)
    return Setup(_grid2(side, side, 32, 8), (32, 8), (a.copy(),), expected={0: np.tril(a)}, rtol=0.0, atol=0.0)


def _build_scan(n, rng):
    n = n // SCAN * SCAN
    a = _small_ints(n, rng)
    want = np.cumsum(a.reshape(-1, SCAN), axis=1).astype(np.float32).ravel()
    return Setup((n // SCAN,), (SCAN,), (a, np.zeros(n, np.float32)), expected={1: want}, rtol=0.0, atol=0.0)


def _build_hist2d(n, rng):
    u = rng.integers(0, 256, n).astype(np.uint8)
    v = rng.integers(0, 256, n).astype(np.uint8)
    want = np.bincount((u >> 4).astype(np.int64) * BINS + (v >> 4), minlength=BINS * BINS).astype(np.int32)
    return Setup(_blocks(n), (256,), (u, v, np.zeros(BINS * BINS, np.int32)), expected={2: want}, rtol=0.0,
                 atol=0.0)


def _build_poly(n, rng):
    x = rng.random(n, dtype=np.float32) * np.float32(2.0) - np.float32(1.0)
    coef = (rng.random(DEGREE + 1, dtype=np.float32) - np.float32(0.5)).astype(np.float32)
    want = np.full(n, coef[0], np.float64)
    for k in range(1, DEGREE + 1):
        want = want * x + coef[k]
    return Setup(_blocks(n), (256,), (x, coef, np.int32(DEGREE), np.zeros(n, np.float32)),
                 expected={3: want.astype(np.float32)}, rtol=1e-4, atol=1e-5)


def _build_clamp(n, rng):
    a = rng.random(n) * 2.0 - 1.0
    return Setup(_blocks(n, 192), (192,), (a.copy(), LO, HI), expected={0: np.clip(a, LO, HI)}, rtol=0.0,
                 atol=0.0)


def _build_gather_rows(n, rng):
    rows = max(8, n // ROW)
    a = rng.random((rows, ROW), dtype=np.float32)
    idx = rng.permutation(rows).astype(np.int32)
    return Setup(_blocks(32 * rows), (256,), (a, idx, np.zeros_like(a)), expected={2: a[idx]}, rtol=0.0, atol=0.0)


def _build_box3(n, rng):
    side = _side(n)
    a = rng.random((side, side))
    p = np.pad(a, 1, mode="edge")
    want = sum(p[dy:dy + side, dx:dx + side] for dy in range(3) for dx in range(3)) / 9.0
    return Setup(_grid2(side, side, 16, 16), (16, 16), (a, np.zeros_like(a)), expected={1: want}, rtol=1e-12,
                 atol=1e-12)


def _build_count(n, rng):
    a = _floats(n, rng)
    want = np.array([(a > np.float32(THRESH)).sum()], np.int32)
    return Setup(_blocks(n), (256,), (a, np.float32(THRESH), np.zeros(1, np.int32)), expected={2: want},
                 rtol=0.0, atol=0.0)


def _build_interleave(n, rng):
    planes = [rng.integers(0, 256, n).astype(np.uint8) for _ in range(4)]
    return Setup(_blocks(n), (256,), (*planes, np.zeros(4 * n, np.uint8)),
                 expected={4: np.stack(planes, axis=1).ravel()}, rtol=0.0, atol=0.0)


CASES = [
    Case("tutorial", "vadd_b96", vadd_b96, _build_vadd, SIZES, "vector add in blocks of 96 threads"),
    Case("tutorial", "saxpy_gs384", saxpy_gs384, _build_saxpy, SIZES,
         "grid-stride saxpy, 264 blocks of 384 threads"),
    Case("tutorial", "store_stride3", store_stride3, _build_store_stride3, SIZES, "stores 12 bytes apart"),
    Case("tutorial", "sum_stride3", sum_stride3, _build_sum_stride3, SIZES, "three loads 12 bytes apart a lane"),
    Case("tutorial", "transpose_8x32", transpose_8x32, _build_transpose_8x32, SIZES,
         "naive float32 transpose, 8x32 blocks"),
    Case("tutorial", "transpose_tile64", transpose_tile64, _build_transpose_tile64, SIZES,
         "float32 transpose through a 64x65 shared tile, 64x4 threads"),
    Case("tutorial", "add3d_8x8x4", add3d_8x8x4, _build_add3d, SIZES, "3-D volume add, 8x8x4 blocks"),
    Case("tutorial", "matvec_shared_x", matvec_shared_x, _build_matvec, SIZES,
         "matrix-vector product, a thread a row, x in shared memory"),
    Case("tutorial", "tril_zero", tril_zero, _build_tril, SIZES, "upper triangle zeroed in place"),
    Case("tutorial", "scan_hillis", scan_hillis, _build_scan, SIZES,
         "inclusive scan of 256-element blocks, Hillis-Steele, two shared buffers"),
    Case("tutorial", "hist2d_shared", hist2d_shared, _build_hist2d, SIZES,
         "16x16-bin histogram of byte pairs in shared memory, merged by global atomics"),
    Case("tutorial", "poly_runtime", poly_runtime, _build_poly, SIZES,
         "degree-12 polynomial by Horner's rule, degree and coefficients at run time"),
    Case("tutorial", "clamp_f64_b192", clamp_f64_b192, _build_clamp, SIZES,
         "float64 clamp in place, 192-thread blocks"),
    Case("tutorial", "gather_rows_warp", gather_rows_warp, _build_gather_rows, SIZES,
         "rows gathered by index, a warp a 256-float row"),
    Case("tutorial", "box3_f64", box3_f64, _build_box3, SIZES, "3x3 mean of a float64 image, edges clamped"),
    Case("tutorial", "count_shared_atomic", count_shared_atomic, _build_count, SIZES,
         "count above a threshold by shared atomics, one global atomic a block"),
    Case("tutorial", "interleave_u8x4", interleave_u8x4, _build_interleave, SIZES,
         "four byte planes interleaved into RGBA, four byte stores a thread"),
]

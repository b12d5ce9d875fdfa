"""Midterm kernels: a nineteenth out-of-sample check of the timing model, written after ``quiz``.

What the family is for: like ``quiz`` before it, these kernels were written after every model change of their
day had landed (2026-12-02, the model of ``415d805``, as of ``2b50235``), with smsim's predictions written
down before the H200 ran them (``docs/hardware/midterm_predicted.json``), and compared before anything changed for them
(``docs/timing_model.md``). They are what a course's midterm asks for, in patterns no family used before: a
radix-2 FFT butterfly stage on split complex arrays with its twiddles by ``sincos``, a Jacobi sweep in tall
8x32 blocks, a colour-space conversion with branches per pixel, an integer random-number loop, a float64
column scaling in 16x16 blocks, a block reversal through float64 shared memory, column sums by global atomics
from every thread, a warp's maximum by shuffles, 4x4 average pooling, a transposed matrix-vector product
reduced across a block's rows in shared memory, a double-buffered (Kogge-Stone) block scan, and a matrix
with a row and a column vector broadcast into it:

* ``fft_butterfly``: one radix-2 stage of ``n`` points, ``half = n / 4``: pairs ``i`` and ``i + half``;
* ``jacobi_8x32``: ``out = (up + down + left + right) / 4`` inside the image, 8x32 blocks;
* ``rgb_hsv``: planar RGB to planar HSV (min, max, a three-way branch on which channel is largest);
* ``xorshift_count``: 64 steps of a 32-bit xorshift per thread, counting the draws below a threshold;
* ``colscale_f64``: ``A[i, j] *= s[j]`` in float64, 16x16 blocks;
* ``block_reverse_f64``: each block's 256 doubles reversed through shared memory and stored at the mirrored
  block;
* ``atomic_colsum``: ``out[j] += A[i, j]`` by a global atomic from every thread, 256 columns;
* ``warp_max_shfl``: each warp's maximum of its 32 int32 keys by ``shfl_down``, lane 0 storing it;
* ``avgpool4x4``: each output the mean of a 4x4 patch (four rows of four floats a thread);
* ``gemv_t_tile``: ``y = A^T x`` by 32x8 blocks, each thread summing a strip of its column, the block's
  eight partial sums added in shared memory;
* ``scan_kogge256``: an inclusive scan of each 256 elements, ping-ponging two shared buffers;
* ``bcast_add2d``: ``out[i, j] = a[i, j] + r[i] + c[j]``, 32x8 blocks.

Life of a case: ``build(n, rng)`` draws the inputs (``n`` elements, or an image or matrix of about ``n``),
computes the expected output with numpy and returns the launch.
"""
import math

import numpy as np

from smsim import cuda
from smsim.case import Case, Setup
from workloads.plain import _blocks, _grid2, _side   # the launch-shape helpers
from workloads.seminar import _small_ints         # floats holding small integers: exact sums in any order

SCAN = 256                # scan_kogge256's elements a block
COLS = 256                # atomic_colsum's columns
XS_STEPS = 64             # xorshift_count's steps
SIZES = {"test": 1 << 15, "full": 1 << 24}


@cuda.jit
def fft_butterfly(re, im, ore, oim, half, n):
    """One radix-2 butterfly stage: (x[i], x[i + half]) -> (x[i] + w x[i + half], x[i] - w x[i + half])."""
    i = cuda.grid(1)
    if i < n // 2:
        g = i // half
        k = i % half
        a = g * 2 * half + k
        b = a + half
        ang = np.float32(-6.283185307179586) * np.float32(k) / np.float32(2 * half)
        wr = math.cos(ang)
        wi = math.sin(ang)
        br = re[b] * wr - im[b] * wi
        bi = re[b] * wi + im[b] * wr
        ar = re[a]
        ai = im[a]
        ore[a] = ar + br
        oim[a] = ai + bi
        ore[b] = ar - br
        oim[b] = ai - bi


@cuda.jit
def jacobi_8x32(a, out):
    """out[y, x] = (a[y-1, x] + a[y+1, x] + a[y, x-1] + a[y, x+1]) / 4 inside; the border copied."""
    x, y = cuda.grid(2)
    h, w = a.shape
    if y < h and x < w:
        if y > 0 and y < h - 1 and x > 0 and x < w - 1:
            out[y, x] = (a[y - 1, x] + a[y + 1, x] + a[y, x - 1] + a[y, x + 1]) * np.float32(0.25)
        else:
            out[y, x] = a[y, x]


@cuda.jit
def rgb_hsv(r, g, b, h, s, v):
    """Planar RGB in [0, 1) to planar HSV (h in sixths of the circle, [0, 6))."""
    i = cuda.grid(1)
    if i < r.shape[0]:
        rr = r[i]
        gg = g[i]
        bb = b[i]
        mx = max(rr, max(gg, bb))
        mn = min(rr, min(gg, bb))
        d = mx - mn
        hh = np.float32(0.0)
        if d > np.float32(0.0):
            if mx == rr:
                hh = (gg - bb) / d
                if hh < np.float32(0.0):
                    hh += np.float32(6.0)
            elif mx == gg:
                hh = (bb - rr) / d + np.float32(2.0)
            else:
                hh = (rr - gg) / d + np.float32(4.0)
        h[i] = hh
        s[i] = d / mx if mx > np.float32(0.0) else np.float32(0.0)
        v[i] = mx


@cuda.jit
def xorshift_count(seed, out):
    """out[i] = how many of 64 xorshift32 draws from seed[i] fall below 2^30 (in int64 words, masked to 32
    bits: numba widens ``uint32 << uint32`` to 64 bits, so a plain ``x ^= x << 13`` would not wrap)."""
    i = cuda.grid(1)
    if i < seed.shape[0]:
        x = np.int64(seed[i])
        c = 0
        for _ in range(XS_STEPS):
            x = (x ^ (x << 13)) & 0xFFFFFFFF
            x ^= x >> 17
            x = (x ^ (x << 5)) & 0xFFFFFFFF
            if x < (1 << 30):
                c += 1
        out[i] = c


@cuda.jit
def colscale_f64(a, s):
    """a[i, j] *= s[j], float64, in place."""
    x, y = cuda.grid(2)
    if y < a.shape[0] and x < a.shape[1]:
        a[y, x] *= s[x]


@cuda.jit
def block_reverse_f64(a, out):
    """Block k's 256 doubles, reversed through shared memory, stored as block (blocks - 1 - k)."""
    t = cuda.shared.array(256, np.float64)
    i = cuda.threadIdx.x
    k = cuda.blockIdx.x
    nb = cuda.gridDim.x
    t[255 - i] = a[k * 256 + i]
    cuda.syncthreads()
    out[(nb - 1 - k) * 256 + i] = t[i]


@cuda.jit
def atomic_colsum(a, out):
    """out[j] += a[i, j] for every element, by a global atomic add each."""
    x, y = cuda.grid(2)
    if y < a.shape[0] and x < a.shape[1]:
        cuda.atomic.add(out, x, a[y, x])


@cuda.jit
def warp_max_shfl(keys, out):
    """out[w] = the largest of warp w's 32 keys, by shuffles down."""
    i = cuda.grid(1)
    v = keys[i] if i < keys.shape[0] else np.int32(-2147483647)
    off = 16
    while off > 0:
        o = cuda.shfl_down_sync(0xFFFFFFFF, v, off)
        v = max(v, o)
        off //= 2
    if cuda.laneid == 0 and i < keys.shape[0]:
        out[i // 32] = v


@cuda.jit
def avgpool4x4(a, out):
    """out[y, x] = the mean of a[4y:4y+4, 4x:4x+4]."""
    x, y = cuda.grid(2)
    if y < out.shape[0] and x < out.shape[1]:
        acc = np.float32(0.0)
        for dy in range(4):
            for dx in range(4):
                acc += a[4 * y + dy, 4 * x + dx]
        out[y, x] = acc * np.float32(0.0625)


@cuda.jit
def gemv_t_tile(a, x, y):
    """y[j] = sum_i a[i, j] x[i]: a 32x8 block takes 32 columns, each of its 8 rows of threads a strip of
    rows, the 8 partial sums added in shared memory."""
    part = cuda.shared.array((8, 32), np.float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    j = cuda.blockIdx.x * 32 + tx
    rows = a.shape[0]
    acc = np.float32(0.0)
    if j < a.shape[1]:
        for i in range(ty, rows, 8):
            acc += a[i, j] * x[i]
    part[ty, tx] = acc
    cuda.syncthreads()
    if ty == 0 and j < a.shape[1]:
        tot = np.float32(0.0)
        for r in range(8):
            tot += part[r, tx]
        y[j] = tot


@cuda.jit
def scan_kogge256(a, out):
    """out = the inclusive scan of each 256 elements (Kogge-Stone, two shared buffers taken in turn)."""
    buf = cuda.shared.array((2, SCAN), np.float32)
    t = cuda.threadIdx.x
    base = cuda.blockIdx.x * SCAN
    buf[0, t] = a[base + t]
    cuda.syncthreads()
    src = 0
    d = 1
    while d < SCAN:
        v = buf[src, t]
        if t >= d:
            v += buf[src, t - d]
        buf[1 - src, t] = v
        src = 1 - src
        d *= 2
        cuda.syncthreads()
    out[base + t] = buf[src, t]


@cuda.jit
def bcast_add2d(a, r, c, out):
    """out[i, j] = a[i, j] + r[i] + c[j]."""
    x, y = cuda.grid(2)
    if y < a.shape[0] and x < a.shape[1]:
        out[y, x] = a[y, x] + r[y] + c[x]


def _build_fft(n, rng):
    n = max(64, 1 << int(math.log2(n)))
    half = n // 4
    re = rng.random(n, dtype=np.float32)
    im = rng.random(n, dtype=np.float32)
    i = np.arange(n // 2)
    a = (i // half) * 2 * half + i % half
    b = a + half
    ang = np.float32(-6.283185307179586) * (i % half).astype(np.float32) / np.float32(2 * half)
    w = np.cos(ang.astype(np.float64)) + 1j * np.sin(ang.astype(np.float64))
    x = re.astype(np.float64) + 1j * im.astype(np.float64)
    y = x.copy()
    y[a] = x[a] + w * x[b]
    y[b] = x[a] - w * x[b]
    return Setup(_blocks(n // 2), (256,), (re, im, np.zeros(n, np.float32), np.zeros(n, np.float32), half, n),
                 expected={2: y.real.astype(np.float32), 3: y.imag.astype(np.float32)}, rtol=1e-4, atol=1e-4)


def _build_jacobi(n, rng):
    side = max(32, _side(n))
    a = _small_ints(side * side, rng).reshape(side, side)
    want = a.copy()
    want[1:-1, 1:-1] = (a[:-2, 1:-1] + a[2:, 1:-1] + a[1:-1, :-2] + a[1:-1, 2:]) * np.float32(0.25)
    return Setup(_grid2(side, side, 8, 32), (8, 32), (a, np.zeros_like(a)), expected={1: want},
                 rtol=0.0, atol=0.0)


def _build_hsv(n, rng):
    r, g, b = (rng.random(n, dtype=np.float32) for _ in range(3))
    mx = np.maximum(r, np.maximum(g, b))
    mn = np.minimum(r, np.minimum(g, b))
    d = mx - mn
    safe = np.where(d > 0, d, np.float32(1.0))
    hr = (g - b) / safe
    hr = np.where(hr < 0, hr + np.float32(6.0), hr)
    hg = (b - r) / safe + np.float32(2.0)
    hb = (r - g) / safe + np.float32(4.0)
    h = np.where(d > 0, np.where(mx == r, hr, np.where(mx == g, hg, hb)), np.float32(0.0)).astype(np.float32)
    s = np.where(mx > 0, d / np.where(mx > 0, mx, np.float32(1.0)), np.float32(0.0)).astype(np.float32)
    z = np.zeros(n, np.float32)
    return Setup(_blocks(n), (256,), (r, g, b, z, z.copy(), z.copy()), expected={3: h, 4: s, 5: mx},
                 rtol=1e-5, atol=1e-5)


def _build_xorshift(n, rng):
    seed = rng.integers(1, 1 << 32, n, dtype=np.uint64).astype(np.uint32)
    x = seed.astype(np.int64)
    c = np.zeros(n, np.int32)
    for _ in range(XS_STEPS):
        x = (x ^ (x << 13)) & 0xFFFFFFFF
        x ^= x >> 17
        x = (x ^ (x << 5)) & 0xFFFFFFFF
        c += x < (1 << 30)
    return Setup(_blocks(n), (256,), (seed, np.zeros(n, np.int32)), expected={1: c}, rtol=0.0, atol=0.0)


def _build_colscale(n, rng):
    side = max(16, _side(n // 2))
    a = rng.random((side, side))
    s = rng.random(side)
    return Setup(_grid2(side, side, 16, 16), (16, 16), (a, s), expected={0: a * s}, rtol=0.0, atol=0.0)


def _build_reverse(n, rng):
    blocks = max(1, n // 2 // 256)
    a = rng.random(blocks * 256)
    return Setup((blocks,), (256,), (a, np.zeros_like(a)), expected={1: a[::-1].copy()}, rtol=0.0, atol=0.0)


def _build_colsum(n, rng):
    rows = max(1, n // COLS)
    a = _small_ints(rows * COLS, rng).reshape(rows, COLS)
    return Setup(_grid2(COLS, rows, 32, 8), (32, 8), (a, np.zeros(COLS, np.float32)),
                 expected={1: a.sum(axis=0, dtype=np.float64).astype(np.float32)}, rtol=0.0, atol=0.0)


def _build_wmax(n, rng):
    n = max(32, n // 32 * 32)
    keys = rng.integers(-1 << 30, 1 << 30, n).astype(np.int32)
    return Setup(_blocks(n), (256,), (keys, np.zeros(n // 32, np.int32)),
                 expected={1: keys.reshape(-1, 32).max(axis=1)}, rtol=0.0, atol=0.0)


def _build_pool(n, rng):
    side = max(4, _side(n) // 4 * 4)
    a = _small_ints(side * side, rng).reshape(side, side)
    o = side // 4
    want = (a.reshape(o, 4, o, 4).sum(axis=(1, 3)) * np.float32(0.0625)).astype(np.float32)
    return Setup(_grid2(o, o, 16, 16), (16, 16), (a, np.zeros((o, o), np.float32)), expected={1: want},
                 rtol=0.0, atol=0.0)


def _build_gemv_t(n, rng):
    cols = max(32, min(4096, _side(n) // 32 * 32))
    rows = max(8, n // cols)
    a = _small_ints(rows * cols, rng).reshape(rows, cols)
    x = _small_ints(rows, rng)
    want = (a.astype(np.float64).T @ x.astype(np.float64)).astype(np.float32)
    return Setup((cols // 32,), (32, 8), (a, x, np.zeros(cols, np.float32)), expected={2: want},
                 rtol=0.0, atol=0.0)


def _build_kogge(n, rng):
    n = max(SCAN, n // SCAN * SCAN)
    a = _small_ints(n, rng)
    want = np.cumsum(a.reshape(-1, SCAN), axis=1).astype(np.float32).ravel()
    return Setup((n // SCAN,), (SCAN,), (a, np.zeros(n, np.float32)), expected={1: want}, rtol=0.0, atol=0.0)


def _build_bcast(n, rng):
    side = max(32, _side(n))
    a = _small_ints(side * side, rng).reshape(side, side)
    r = _small_ints(side, rng)
    c = _small_ints(side, rng)
    return Setup(_grid2(side, side, 32, 8), (32, 8), (a, r, c, np.zeros_like(a)),
                 expected={3: a + r[:, None] + c[None, :]}, rtol=0.0, atol=0.0)


CASES = [
    Case("midterm", "fft_butterfly", fft_butterfly, _build_fft, SIZES,
         "one radix-2 FFT stage on split complex arrays, pairs a quarter of the points apart, twiddles by sincos"),
    Case("midterm", "jacobi_8x32", jacobi_8x32, _build_jacobi, SIZES,
         "a 4-neighbour Jacobi sweep in tall 8x32 blocks"),
    Case("midterm", "rgb_hsv", rgb_hsv, _build_hsv, SIZES,
         "planar RGB to planar HSV, a branch on the largest channel"),
    Case("midterm", "xorshift_count", xorshift_count, _build_xorshift, SIZES,
         "64 xorshift32 steps a thread, counting small draws"),
    Case("midterm", "colscale_f64", colscale_f64, _build_colscale, SIZES,
         "float64 columns scaled in place, 16x16 blocks"),
    Case("midterm", "block_reverse_f64", block_reverse_f64, _build_reverse, SIZES,
         "blocks of 256 doubles reversed through shared memory into the mirrored block"),
    Case("midterm", "atomic_colsum", atomic_colsum, _build_colsum, SIZES,
         "256 column sums by a global atomic add from every thread"),
    Case("midterm", "warp_max_shfl", warp_max_shfl, _build_wmax, SIZES,
         "each warp's maximum by shuffles down, lane 0 storing it"),
    Case("midterm", "avgpool4x4", avgpool4x4, _build_pool, SIZES,
         "4x4 average pooling, a thread an output"),
    Case("midterm", "gemv_t_tile", gemv_t_tile, _build_gemv_t, SIZES,
         "y = A^T x, 32x8 blocks, the rows' partial sums added in shared memory"),
    Case("midterm", "scan_kogge256", scan_kogge256, _build_kogge, SIZES,
         "an inclusive scan of 256 elements a block, two shared buffers in turn"),
    Case("midterm", "bcast_add2d", bcast_add2d, _build_bcast, SIZES,
         "a row vector and a column vector broadcast into a matrix"),
]

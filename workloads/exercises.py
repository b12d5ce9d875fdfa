"""Exercise kernels: a ninth out-of-sample check of the timing model, written after ``drills``.

What the family is for: like ``drills`` before it, these kernels were written after every model change of their
day had landed (2026-11-29, the session that found a partly written sector's completion takes a turn for each
store into it), measured once on the H200 (``docs/hardware/validate_hw.md``) and compared before anything
changed for them (``docs/timing_model.md``). They are what a course's exercise sheets ask for, done the
obvious way: naive layouts (column-major walks, a thread a row), interleaved and padded images, small element
types, warp shuffles, atomics other than add, an all-pairs loop over shared tiles:

* ``transpose_f64_32x8``: a naive float64 transpose in 32x8 blocks, four rows a thread (each warp's stores 8
  bytes in each of 32 lines, a coalesced load before each);
* ``matadd_colmajor``: ``c = a + b`` with the grid's x walking the rows (every load and store a warp makes in
  32 lines);
* ``pack_rgb``: three float32 planes interleaved into RGB triples (stores 12 bytes apart);
* ``unpack_rgb``: RGB triples split into three planes (loads 12 bytes apart);
* ``resize_nearest``: a 3/4-size nearest-neighbour resize (``img[y * 4 // 3, x * 4 // 3]``), 16x16 blocks;
* ``pad2d``: an image copied into one a pixel wider on each side (stores one word off their lines), 32x8 blocks;
* ``row_norm_thread``: each 16-float row scaled to unit length, a thread a row (loads and stores 64 bytes
  apart across a warp);
* ``argmax_warp``: each warp's argmax of its 32 values by ``shfl_down_sync`` of value and index, lane 0 writes it;
* ``nbody_tile``: 2-D softened gravity, all pairs, bodies staged in shared tiles of 128;
* ``poly8_f64``: a degree-8 polynomial of float64 by Horner's rule;
* ``threshold_u8``: a float32 image to an 8-bit mask (``255`` above a threshold);
* ``iota_u16``: ``out[i] = i & 0xFFFF`` into uint16 (a write-only stream of 2-byte elements);
* ``gemv_thread_row``: a 256-column matrix times a vector, a thread a row (each lane's loads 1 KB apart);
* ``scan_warp``: an inclusive prefix sum within each warp by ``shfl_up_sync``;
* ``atomic_max_bins``: ``bins[key % 64] = max(bins[...], value)`` by integer ``atomic.max``;
* ``swap_halves``: the two halves of an array swapped in place.

Life of a case: ``build(n, rng)`` draws the inputs (``n`` elements, or an image or matrix of about ``n``;
``nbody_tile`` takes the number of bodies), computes the expected output with numpy (tolerances allow FMA
contraction and float32 rounding) and returns the launch.
"""
import math

import numpy as np

from smsim import cuda
from smsim.case import Case, Setup
from workloads.plain import _blocks, _grid2, _side   # the launch-shape helpers

ROW = 16                  # row_norm_thread's row length
COLS = 256                # gemv_thread_row's columns
TILE = 128                # nbody_tile's shared tile (and block)
BINS = 64                 # atomic_max_bins' bins
EPS = np.float32(0.01)    # nbody_tile's softening (squared)
SIZES = {"test": 1 << 15, "full": 1 << 24}
NBODY_SIZES = {"test": 1024, "full": 8192}


@cuda.jit
def transpose_f64_32x8(a, out):
    """out = a^T, float64, 32x8 blocks, four rows a thread."""
    x = cuda.blockIdx.x * 32 + cuda.threadIdx.x
    y = cuda.blockIdx.y * 32 + cuda.threadIdx.y
    for j in range(0, 32, 8):
        if y + j < a.shape[0] and x < a.shape[1]:
            out[x, y + j] = a[y + j, x]


@cuda.jit
def matadd_colmajor(a, b, c):
    """c = a + b, the grid's x over the rows."""
    r, col = cuda.grid(2)
    if r < c.shape[0] and col < c.shape[1]:
        c[r, col] = a[r, col] + b[r, col]


@cuda.jit
def pack_rgb(planes, out):
    """out[3 i + k] = planes[k, i]."""
    i = cuda.grid(1)
    if i < planes.shape[1]:
        out[3 * i] = planes[0, i]
        out[3 * i + 1] = planes[1, i]
        out[3 * i + 2] = planes[2, i]


@cuda.jit
def unpack_rgb(src, planes):
    """planes[k, i] = src[3 i + k]."""
    i = cuda.grid(1)
    if i < planes.shape[1]:
        planes[0, i] = src[3 * i]
        planes[1, i] = src[3 * i + 1]
        planes[2, i] = src[3 * i + 2]


@cuda.jit
def resize_nearest(img, out):
    """out[y, x] = img[y * 4 // 3, x * 4 // 3]."""
    x, y = cuda.grid(2)
    if y < out.shape[0] and x < out.shape[1]:
        out[y, x] = img[y * 4 // 3, x * 4 // 3]


@cuda.jit
def pad2d(img, out):
    """out[y + 1, x + 1] = img[y, x] (out's border left alone)."""
    x, y = cuda.grid(2)
    if y < img.shape[0] and x < img.shape[1]:
        out[y + 1, x + 1] = img[y, x]


@cuda.jit
def row_norm_thread(m, out):
    """out[r, :] = m[r, :] / |m[r, :]|, a thread a row."""
    r = cuda.grid(1)
    if r < m.shape[0]:
        s = np.float32(0.0)
        for c in range(ROW):
            v = m[r, c]
            s += v * v
        inv = np.float32(1.0) / math.sqrt(s)
        for c in range(ROW):
            out[r, c] = m[r, c] * inv


@cuda.jit
def argmax_warp(a, out):
    """out[w] = the index of the largest of a[32 w: 32 w + 32] (the first, on ties)."""
    i = cuda.grid(1)
    lane = cuda.laneid
    v = a[i]
    k = i
    off = 16
    while off > 0:
        ov = cuda.shfl_down_sync(0xFFFFFFFF, v, off)
        ok = cuda.shfl_down_sync(0xFFFFFFFF, k, off)
        if ov > v or (ov == v and ok < k):
            v = ov
            k = ok
        off //= 2
    if lane == 0:
        out[i // 32] = k


@cuda.jit
def nbody_tile(px, py, ax, ay):
    """(ax, ay)[i] = sum over j of (p_j - p_i) / (|p_j - p_i|^2 + EPS)^1.5, shared tiles of 128 bodies."""
    sx = cuda.shared.array(TILE, np.float32)
    sy = cuda.shared.array(TILE, np.float32)
    i = cuda.grid(1)
    t = cuda.threadIdx.x
    xi = px[i]
    yi = py[i]
    fx = np.float32(0.0)
    fy = np.float32(0.0)
    for base in range(0, px.shape[0], TILE):
        sx[t] = px[base + t]
        sy[t] = py[base + t]
        cuda.syncthreads()
        for j in range(TILE):
            dx = sx[j] - xi
            dy = sy[j] - yi
            d2 = dx * dx + dy * dy + EPS
            inv = np.float32(1.0) / (d2 * math.sqrt(d2))
            fx += dx * inv
            fy += dy * inv
        cuda.syncthreads()
    ax[i] = fx
    ay[i] = fy


@cuda.jit
def poly8_f64(x, out):
    """out = 1 + x/2 + x^2/3 + ... + x^8/9 by Horner's rule, float64."""
    i = cuda.grid(1)
    if i < x.shape[0]:
        v = x[i]
        p = 1.0 / 9.0
        for k in range(8, 0, -1):
            p = p * v + 1.0 / k
        out[i] = p


@cuda.jit
def threshold_u8(a, t, out):
    """out = 255 where a > t, else 0."""
    i = cuda.grid(1)
    if i < a.shape[0]:
        out[i] = 255 if a[i] > t else 0


@cuda.jit
def iota_u16(out):
    """out[i] = i & 0xFFFF."""
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = i & 0xFFFF


@cuda.jit
def gemv_thread_row(m, x, y):
    """y[r] = m[r, :] . x, a thread a row."""
    r = cuda.grid(1)
    if r < m.shape[0]:
        acc = np.float32(0.0)
        for c in range(COLS):
            acc += m[r, c] * x[c]
        y[r] = acc


@cuda.jit
def scan_warp(a, out):
    """out[i] = a[32 w] + ... + a[i] within each warp w."""
    i = cuda.grid(1)
    lane = cuda.laneid
    v = a[i]
    off = 1
    while off < 32:
        u = cuda.shfl_up_sync(0xFFFFFFFF, v, off)
        if lane >= off:
            v += u
        off *= 2
    out[i] = v


@cuda.jit
def atomic_max_bins(key, value, bins):
    """bins[key % BINS] = max(bins[key % BINS], value)."""
    i = cuda.grid(1)
    if i < key.shape[0]:
        cuda.atomic.max(bins, key[i] % BINS, value[i])


@cuda.jit
def swap_halves(a):
    """a[i], a[i + n/2] = a[i + n/2], a[i]."""
    i = cuda.grid(1)
    h = a.shape[0] // 2
    if i < h:
        u = a[i]
        a[i] = a[i + h]
        a[i + h] = u


def _build_transpose(n, rng):
    side = _side(n) // 32 * 32
    a = rng.random((side, side))
    return Setup((side // 32, side // 32), (32, 8), (a, np.zeros((side, side))), expected={1: a.T.copy()},
                 rtol=0.0, atol=0.0)


def _build_matadd(n, rng):
    side = _side(n)
    a = rng.random((side, side), dtype=np.float32)
    b = rng.random((side, side), dtype=np.float32)
    return Setup(_grid2(side, side, 16, 16), (16, 16), (a, b, np.zeros_like(a)), expected={2: a + b}, rtol=0.0,
                 atol=0.0)


def _build_pack(n, rng):
    planes = rng.random((3, n), dtype=np.float32)
    return Setup(_blocks(n), (256,), (planes, np.zeros(3 * n, np.float32)), expected={1: planes.T.reshape(-1)},
                 rtol=0.0, atol=0.0)


def _build_unpack(n, rng):
    src = rng.random(3 * n, dtype=np.float32)
    return Setup(_blocks(n), (256,), (src, np.zeros((3, n), np.float32)),
                 expected={1: src.reshape(n, 3).T.copy()}, rtol=0.0, atol=0.0)


def _build_resize(n, rng):
    side = _side(n) // 4 * 4
    img = rng.random((side, side), dtype=np.float32)
    small = side * 3 // 4
    idx = np.arange(small) * 4 // 3
    return Setup(_grid2(small, small, 16, 16), (16, 16), (img, np.zeros((small, small), np.float32)),
                 expected={1: img[np.ix_(idx, idx)]}, rtol=0.0, atol=0.0)


def _build_pad(n, rng):
    side = _side(n)
    img = rng.random((side, side), dtype=np.float32)
    want = np.full((side + 2, side + 2), -1.0, np.float32)
    want[1:-1, 1:-1] = img
    return Setup(_grid2(side, side, 32, 8), (32, 8), (img, np.full((side + 2, side + 2), -1.0, np.float32)),
                 expected={1: want}, rtol=0.0, atol=0.0)


def _build_row_norm(n, rng):
    rows = max(1, n // ROW)
    m = (rng.random((rows, ROW), dtype=np.float32) + np.float32(0.1)).astype(np.float32)
    want = (m / np.sqrt((m.astype(np.float64) ** 2).sum(axis=1))[:, None]).astype(np.float32)
    return Setup(_blocks(rows, 128), (128,), (m, np.zeros_like(m)), expected={1: want}, rtol=1e-5, atol=1e-6)


def _build_argmax(n, rng):
    a = rng.integers(0, 1000, n).astype(np.float32)      # ties on purpose: the first index wins
    want = (a.reshape(-1, 32).argmax(axis=1) + np.arange(n // 32) * 32).astype(np.int64)
    return Setup((n // 256,), (256,), (a, np.zeros(n // 32, np.int64)), expected={1: want}, rtol=0.0, atol=0.0)


def _build_nbody(n, rng):
    n = n // TILE * TILE
    px = rng.random(n, dtype=np.float32)
    py = rng.random(n, dtype=np.float32)
    dx = px[None, :].astype(np.float64) - px[:, None]
    dy = py[None, :].astype(np.float64) - py[:, None]
    d2 = dx * dx + dy * dy + float(EPS)
    inv = 1.0 / (d2 * np.sqrt(d2))
    want_x = (dx * inv).sum(axis=1).astype(np.float32)
    want_y = (dy * inv).sum(axis=1).astype(np.float32)
    return Setup((n // TILE,), (TILE,), (px, py, np.zeros(n, np.float32), np.zeros(n, np.float32)),
                 expected={2: want_x, 3: want_y}, rtol=1e-3, atol=1e-2)


def _build_poly(n, rng):
    x = rng.random(n)
    p = np.full(n, 1.0 / 9.0)
    for k in range(8, 0, -1):
        p = p * x + 1.0 / k
    return Setup(_blocks(n), (256,), (x, np.zeros(n)), expected={1: p}, rtol=1e-12, atol=1e-12)


def _build_threshold(n, rng):
    a = rng.random(n, dtype=np.float32)
    t = np.float32(0.5)
    return Setup(_blocks(n), (256,), (a, t, np.ones(n, np.uint8)), expected={2: np.where(a > t, 255, 0)
                                                                                .astype(np.uint8)},
                 rtol=0.0, atol=0.0)


def _build_iota(n, rng):
    return Setup(_blocks(n), (256,), (np.ones(n, np.uint16),),
                 expected={0: (np.arange(n) & 0xFFFF).astype(np.uint16)}, rtol=0.0, atol=0.0)


def _build_gemv(n, rng):
    rows = max(1, n // COLS)
    m = rng.random((rows, COLS), dtype=np.float32)
    x = rng.random(COLS, dtype=np.float32)
    want = (m.astype(np.float64) @ x.astype(np.float64)).astype(np.float32)
    return Setup(_blocks(rows, 128), (128,), (m, x, np.zeros(rows, np.float32)), expected={2: want}, rtol=1e-5,
                 atol=1e-5)


def _build_scan(n, rng):
    a = rng.integers(0, 8, n).astype(np.int32)
    want = np.cumsum(a.reshape(-1, 32), axis=1).reshape(-1).astype(np.int32)
    return Setup((n // 256,), (256,), (a, np.zeros(n, np.int32)), expected={1: want}, rtol=0.0, atol=0.0)


def _build_atomic_max(n, rng):
    key = rng.integers(0, 1 << 20, n).astype(np.int32)
    value = rng.integers(0, 1 << 30, n).astype(np.int32)
    want = np.zeros(BINS, np.int32)
    np.maximum.at(want, key % BINS, value)
    return Setup(_blocks(n), (256,), (key, value, np.zeros(BINS, np.int32)), expected={2: want}, rtol=0.0,
                 atol=0.0)


def _build_swap(n, rng):
    a = rng.random(n, dtype=np.float32)
    h = n // 2
    return Setup(_blocks(h), (256,), (a.copy(),), expected={0: np.concatenate([a[h:], a[:h]])}, rtol=0.0,
                 atol=0.0)


CASES = [
    Case("exercises", "transpose_f64_32x8", transpose_f64_32x8, _build_transpose, SIZES,
         "naive float64 transpose, 32x8 blocks, four rows a thread"),
    Case("exercises", "matadd_colmajor", matadd_colmajor, _build_matadd, SIZES,
         "c = a + b with the grid's x over the rows (strided loads and stores)"),
    Case("exercises", "pack_rgb", pack_rgb, _build_pack, SIZES, "three float32 planes to interleaved RGB"),
    Case("exercises", "unpack_rgb", unpack_rgb, _build_unpack, SIZES, "interleaved RGB to three float32 planes"),
    Case("exercises", "resize_nearest", resize_nearest, _build_resize, SIZES,
         "3/4-size nearest-neighbour resize, 16x16 blocks"),
    Case("exercises", "pad2d", pad2d, _build_pad, SIZES, "an image into one a pixel wider each side, 32x8 blocks"),
    Case("exercises", "row_norm_thread", row_norm_thread, _build_row_norm, SIZES,
         "16-float rows to unit length, a thread a row"),
    Case("exercises", "argmax_warp", argmax_warp, _build_argmax, SIZES,
         "each warp's argmax by shfl_down_sync of value and index"),
    Case("exercises", "nbody_tile", nbody_tile, _build_nbody, NBODY_SIZES,
         "2-D softened gravity, all pairs, shared tiles of 128 bodies"),
    Case("exercises", "poly8_f64", poly8_f64, _build_poly, SIZES, "degree-8 polynomial by Horner's rule, float64"),
    Case("exercises", "threshold_u8", threshold_u8, _build_threshold, SIZES, "float32 to an 8-bit mask"),
    Case("exercises", "iota_u16", iota_u16, _build_iota, SIZES, "out[i] = i & 0xFFFF into uint16"),
    Case("exercises", "gemv_thread_row", gemv_thread_row, _build_gemv, SIZES,
         "256-column matrix times vector, a thread a row"),
    Case("exercises", "scan_warp", scan_warp, _build_scan, SIZES, "inclusive prefix sum within each warp by shfl_up"),
    Case("exercises", "atomic_max_bins", atomic_max_bins, _build_atomic_max, SIZES,
         "integer atomic max into 64 bins"),
    Case("exercises", "swap_halves", swap_halves, _build_swap, SIZES, "an array's halves swapped in place"),
]

"""Drill kernels: an eighth out-of-sample check of the timing model, written after ``practice``.

What the family is for: like ``lessons`` and ``practice`` before it, these kernels were written after every
model change of their day had landed (2026-11-29, the session after the store port's model), measured once on
the H200 (``docs/hardware/validate_hw.md``) and compared before anything changed for them
(``docs/timing_model.md``). They lean on what the timing issues name as hard for a model calibrated on
persistent streams: short blocks (64 and 128 threads), reads *and* writes, strided and scattered stores,
atomics that meet in a warp, and index-heavy loops:

* ``saxpy_b64``: ``y = a x + y`` in place, 64-thread blocks;
* ``im2col3x3``: each pixel's 3x3 window (zero outside the image) written to 9 planes, 32x4 blocks (9
  coalesced stores a thread, loads that hit L1);
* ``bitrev_scatter``: ``out[rev(i)] = a[i]``, the index's bits reversed by a loop (each warp's 32 stores in
  32 lines far apart, as an FFT's reordering writes them);
* ``segment_sum``: ``out[seg[i]] += a[i]`` by float atomics, 64 elements a segment (a warp's 32 atomics to
  one address);
* ``gemv_block128``: a 1024-column matrix times a vector, one 128-thread block a row (a strided loop, then a
  shared-memory tree);
* ``matmul_tiled8``: shared-memory tiled matrix multiply with 8x8 tiles (64-thread blocks);
* ``gradient2d``: central differences in x and y of an image, two outputs, 32x4 blocks;
* ``nchw_affine``: ``(x - mean[c]) * inv[c]`` over an NCHW tensor, the channel of a flat index by ``//`` and
  ``%`` by runtime sizes (64-bit divisions);
* ``compact_warp``: each warp's positive elements packed to the front of its 32 slots by ``ballot_sync`` and
  ``popc``, and the warp's count;
* ``coo_spmv``: a sparse matrix in coordinate form (sorted rows, 4 to 12 entries a row) times a vector,
  one float atomic an entry;
* ``transpose8x8``: a naive transpose with 8x8 blocks (each warp's stores 8-byte runs in 4 rows);
* ``row_softmax64``: one 64-thread block a row of 64: shared max and sum trees around ``exp``;
* ``rgba_planar``: interleaved 8-bit RGBA to four 8-bit planes;
* ``stride_store16``: ``out[(i % 16) * (n / 16) + i / 16] = 2 a[i]`` (each warp's stores in 16 rows, two words
  each);
* ``upsweep16``: one level of a scan's up-sweep in place, ``a[32 t + 31] += a[32 t + 15]`` (a sector's load
  and store a thread, 128 bytes apart);
* ``cast_f64_f32``: float64 to float32, 128-thread blocks.

Life of a case: ``build(n, rng)`` draws the inputs (``n`` elements, or an image, matrix or tensor of about
``n``; ``matmul_tiled8`` takes the matrix side), computes the expected output with numpy (tolerances allow FMA
contraction and float32 rounding; the atomics' sums are of small integers, exact in any order) and returns the
launch.
"""
import math

import numpy as np

from smsim import cuda
from smsim.case import Case, Setup
from workloads.plain import _blocks, _grid2, _side   # the launch-shape helpers

SEG = 64                  # segment_sum's elements a segment
COLS = 1024               # gemv_block128's columns
GB = 128                  # gemv_block128's threads a block (a module constant: numba needs a literal shape)
T8 = 8                    # matmul_tiled8's tile side
CHANNELS = 64             # nchw_affine's channels
HW = 28 * 28              # and its plane (not a power of two)
SMX = 64                  # row_softmax64's row length and block
PLANES = 16               # stride_store16's rows
UP = 16                   # upsweep16's half stride
SIZES = {"test": 1 << 15, "full": 1 << 24}
MATMUL_SIZES = {"test": 128, "full": 512}


@cuda.jit
def saxpy_b64(a, x, y):
    """y = a x + y."""
    i = cuda.grid(1)
    if i < y.shape[0]:
        y[i] = a * x[i] + y[i]


@cuda.jit
def im2col3x3(img, out):
    """out[k, y w + x] = img[y + k // 3 - 1, x + k % 3 - 1] (0 outside the image)."""
    x, y = cuda.grid(2)
    h = img.shape[0]
    w = img.shape[1]
    if y < h and x < w:
        k = 0
        for dy in range(-1, 2):
            for dx in range(-1, 2):
                yy = y + dy
                xx = x + dx
                v = np.float32(0.0)
                if yy >= 0 and yy < h and xx >= 0 and xx < w:
                    v = img[yy, xx]
                out[k, y * w + x] = v
                k += 1


@cuda.jit
def bitrev_scatter(a, bits, out):
    """out[rev(i)] = a[i], rev reversing the low ``bits`` bits of i."""
    i = cuda.grid(1)
    if i < a.shape[0]:
        r = 0
        v = i
        for _ in range(bits):
            r = (r << 1) | (v & 1)
            v >>= 1
        out[r] = a[i]


@cuda.jit
def segment_sum(a, seg, out):
    """out[seg[i]] += a[i]."""
    i = cuda.grid(1)
    if i < a.shape[0]:
        cuda.atomic.add(out, seg[i], a[i])


@cuda.jit
def gemv_block128(m, x, y):
    """y[r] = m[r, :] . x, one block a row: a strided loop, then a shared tree."""
    s = cuda.shared.array(GB, np.float32)
    r = cuda.blockIdx.x
    t = cuda.threadIdx.x
    acc = np.float32(0.0)
    c = t
    while c < m.shape[1]:
        acc += m[r, c] * x[c]
        c += GB
    s[t] = acc
    cuda.syncthreads()
    h = GB // 2
    while h > 0:
        if t < h:
            s[t] += s[t + h]
        cuda.syncthreads()
        h //= 2
    if t == 0:
        y[r] = s[0]


@cuda.jit
def matmul_tiled8(a, b, c):
    """c = a b with 8x8 shared tiles."""
    sa = cuda.shared.array((T8, T8), np.float32)
    sb = cuda.shared.array((T8, T8), np.float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    col = cuda.blockIdx.x * T8 + tx
    row = cuda.blockIdx.y * T8 + ty
    n = a.shape[0]
    acc = np.float32(0.0)
    for t in range(n // T8):
        sa[ty, tx] = a[row, t * T8 + tx]
        sb[ty, tx] = b[t * T8 + ty, col]
        cuda.syncthreads()
        for k in range(T8):
            acc += sa[ty, k] * sb[k, tx]
        cuda.syncthreads()
    c[row, col] = acc


@cuda.jit
def gradient2d(img, gx, gy):
    """gx = (img[y, x+1] - img[y, x-1]) / 2, gy likewise in y; 0 on the border."""
    x, y = cuda.grid(2)
    h = img.shape[0]
    w = img.shape[1]
    if y < h and x < w:
        if x > 0 and x < w - 1:
            gx[y, x] = (img[y, x + 1] - img[y, x - 1]) * np.float32(0.5)
        else:
            gx[y, x] = np.float32(0.0)
        if y > 0 and y < h - 1:
            gy[y, x] = (img[y + 1, x] - img[y - 1, x]) * np.float32(0.5)
        else:
            gy[y, x] = np.float32(0.0)


@cuda.jit
def nchw_affine(x, mean, inv, hw, out):
    """out[i] = (x[i] - mean[c]) * inv[c], c = (i // hw) % channels."""
    i = cuda.grid(1)
    if i < x.shape[0]:
        c = (i // hw) % mean.shape[0]
        out[i] = (x[i] - mean[c]) * inv[c]


@cuda.jit
def compact_warp(a, out, count):
    """Each warp's positive elements to the front of its 32 slots of out, in order; count[warp] = how many."""
    i = cuda.grid(1)
    v = np.float32(0.0)
    if i < a.shape[0]:
        v = a[i]
    keep = v > np.float32(0.0)
    b = cuda.ballot_sync(0xFFFFFFFF, keep)
    lane = cuda.laneid
    w = i // 32
    if keep:
        below = b & ((np.uint32(1) << np.uint32(lane)) - np.uint32(1))
        out[w * 32 + cuda.popc(below)] = v
    if lane == 0 and w < count.shape[0]:
        count[w] = cuda.popc(b)


@cuda.jit
def coo_spmv(row, col, val, x, y):
    """y[row[k]] += val[k] x[col[k]]."""
    k = cuda.grid(1)
    if k < val.shape[0]:
        cuda.atomic.add(y, row[k], val[k] * x[col[k]])


@cuda.jit
def transpose8x8(a, out):
    """out[x, y] = a[y, x], 8x8 blocks."""
    x, y = cuda.grid(2)
    if y < a.shape[0] and x < a.shape[1]:
        out[x, y] = a[y, x]


@cuda.jit
def row_softmax64(a, out):
    """out[r] = softmax(a[r]), one 64-thread block a row of 64."""
    s = cuda.shared.array(SMX, np.float32)
    r = cuda.blockIdx.x
    t = cuda.threadIdx.x
    v = a[r, t]
    s[t] = v
    cuda.syncthreads()
    h = SMX // 2
    while h > 0:
        if t < h:
            s[t] = max(s[t], s[t + h])
        cuda.syncthreads()
        h //= 2
    m = s[0]
    cuda.syncthreads()
    e = math.exp(v - m)
    s[t] = e
    cuda.syncthreads()
    h = SMX // 2
    while h > 0:
        if t < h:
            s[t] += s[t + h]
        cuda.syncthreads()
        h //= 2
    out[r, t] = e / s[0]


@cuda.jit
def rgba_planar(rgba, planes):
    """planes[k, i] = rgba[i, k] for the four channels."""
    i = cuda.grid(1)
    if i < rgba.shape[0]:
        planes[0, i] = rgba[i, 0]
        planes[1, i] = rgba[i, 1]
        planes[2, i] = rgba[i, 2]
        planes[3, i] = rgba[i, 3]


@cuda.jit
def stride_store16(a, out):
    """out[(i % 16) * (n // 16) + i // 16] = 2 a[i]."""
    i = cuda.grid(1)
    n = a.shape[0]
    if i < n:
        out[(i % PLANES) * (n // PLANES) + i // PLANES] = a[i] * np.float32(2.0)


@cuda.jit
def upsweep16(a):
    """a[32 t + 31] += a[32 t + 15]: one level of a scan's up-sweep, in place."""
    t = cuda.grid(1)
    j = (t + 1) * (2 * UP) - 1
    if j < a.shape[0]:
        a[j] += a[j - UP]


@cuda.jit
def cast_f64_f32(a, out):
    """out = float32(a)."""
    i = cuda.grid(1)
    if i < a.shape[0]:
        out[i] = np.float32(a[i])


def _build_saxpy(n, rng):
    x = rng.random(n, dtype=np.float32)
    y = rng.random(n, dtype=np.float32)
    a = np.float32(1.5)
    return Setup(_blocks(n, 64), (64,), (a, x, y.copy()), expected={2: a * x + y}, rtol=1e-6, atol=1e-6)


def _build_im2col(n, rng):
    side = _side(n)
    img = rng.random((side, side), dtype=np.float32)
    p = np.pad(img, 1)
    want = np.stack([p[1 + dy:1 + dy + side, 1 + dx:1 + dx + side].reshape(-1)
                     for dy in (-1, 0, 1) for dx in (-1, 0, 1)])
    return Setup(_grid2(side, side, 32, 4), (32, 4), (img, np.full((9, side * side), -1.0, np.float32)),
                 expected={1: want}, rtol=0.0, atol=0.0)


def _build_bitrev(n, rng):
    bits = int(n).bit_length() - 1
    n = 1 << bits
    a = rng.random(n, dtype=np.float32)
    idx = np.arange(n)
    rev = np.zeros(n, np.int64)
    for b in range(bits):
        rev |= ((idx >> b) & 1) << (bits - 1 - b)
    want = np.empty(n, np.float32)
    want[rev] = a
    return Setup(_blocks(n), (256,), (a, np.int64(bits), np.zeros(n, np.float32)), expected={2: want}, rtol=0.0,
                 atol=0.0)


def _build_segment(n, rng):
    a = rng.integers(0, 4, n).astype(np.float32)       # small integers: every sum exact in any order
    seg = (np.arange(n) // SEG).astype(np.int32)
    want = a.reshape(-1, SEG).sum(axis=1).astype(np.float32)
    return Setup(_blocks(n), (256,), (a, seg, np.zeros(n // SEG, np.float32)), expected={2: want}, rtol=0.0,
                 atol=0.0)


def _build_gemv(n, rng):
    rows = max(1, n // COLS)
    m = rng.random((rows, COLS), dtype=np.float32)
    x = rng.random(COLS, dtype=np.float32)
    want = (m.astype(np.float64) @ x.astype(np.float64)).astype(np.float32)
    return Setup((rows,), (GB,), (m, x, np.zeros(rows, np.float32)), expected={2: want}, rtol=1e-5, atol=1e-5)


def _build_matmul(n, rng):
    n = n // T8 * T8
    a = rng.random((n, n), dtype=np.float32)
    b = rng.random((n, n), dtype=np.float32)
    want = (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float32)
    return Setup((n // T8, n // T8), (T8, T8), (a, b, np.zeros((n, n), np.float32)), expected={2: want},
                 rtol=1e-4, atol=1e-4)


def _build_gradient(n, rng):
    side = _side(n)
    img = rng.random((side, side), dtype=np.float32)
    gx = np.zeros_like(img)
    gy = np.zeros_like(img)
    gx[:, 1:-1] = (img[:, 2:] - img[:, :-2]) * np.float32(0.5)
    gy[1:-1, :] = (img[2:, :] - img[:-2, :]) * np.float32(0.5)
    return Setup(_grid2(side, side, 32, 4), (32, 4),
                 (img, np.full_like(img, -1.0), np.full_like(img, -1.0)), expected={1: gx, 2: gy}, rtol=1e-6,
                 atol=1e-7)


def _build_nchw(n, rng):
    batch = max(1, n // (CHANNELS * HW))
    size = batch * CHANNELS * HW
    x = rng.standard_normal(size, dtype=np.float32)
    mean = rng.standard_normal(CHANNELS, dtype=np.float32)
    inv = (rng.random(CHANNELS, dtype=np.float32) + np.float32(0.5)).astype(np.float32)
    c = (np.arange(size) // HW) % CHANNELS
    want = ((x - mean[c]) * inv[c]).astype(np.float32)
    return Setup(_blocks(size), (256,), (x, mean, inv, np.int64(HW), np.zeros(size, np.float32)),
                 expected={4: want}, rtol=1e-6, atol=1e-6)


def _build_compact(n, rng):
    a = rng.standard_normal(n, dtype=np.float32)
    warps = a.reshape(-1, 32)
    out = np.zeros((len(warps), 32), np.float32)
    count = np.zeros(len(warps), np.int32)
    for w, row in enumerate(warps):
        kept = row[row > 0]
        out[w, :len(kept)] = kept
        count[w] = len(kept)
    return Setup(_blocks(n), (256,), (a, np.zeros(n, np.float32), np.zeros(len(warps), np.int32)),
                 expected={1: out.reshape(-1), 2: count}, rtol=0.0, atol=0.0)


def _build_coo(n, rng):
    per = rng.integers(4, 13, max(1, n // 8))
    nnz = int(per.sum())
    rows = len(per)
    row = np.repeat(np.arange(rows), per).astype(np.int32)
    col = np.clip(row + rng.integers(-64, 65, nnz), 0, rows - 1).astype(np.int32)
    val = rng.integers(-2, 3, nnz).astype(np.float32)   # small integers: every sum exact in any order
    x = rng.integers(-2, 3, rows).astype(np.float32)
    want = np.zeros(rows)
    np.add.at(want, row, val.astype(np.float64) * x[col])
    return Setup(_blocks(nnz), (256,), (row, col, val, x, np.zeros(rows, np.float32)),
                 expected={4: want.astype(np.float32)}, rtol=0.0, atol=0.0)


def _build_transpose8(n, rng):
    side = _side(n)
    a = rng.random((side, side), dtype=np.float32)
    return Setup(_grid2(side, side, 8, 8), (8, 8), (a, np.zeros_like(a)), expected={1: a.T.copy()}, rtol=0.0,
                 atol=0.0)


def _build_softmax(n, rng):
    rows = max(1, n // SMX)
    a = rng.standard_normal((rows, SMX), dtype=np.float32)
    e = np.exp(a.astype(np.float64) - a.max(axis=1, keepdims=True))
    want = (e / e.sum(axis=1, keepdims=True)).astype(np.float32)
    return Setup((rows,), (SMX,), (a, np.zeros_like(a)), expected={1: want}, rtol=1e-5, atol=1e-7)


def _build_rgba(n, rng):
    rgba = rng.integers(0, 256, (n, 4)).astype(np.uint8)
    return Setup(_blocks(n), (256,), (rgba, np.zeros((4, n), np.uint8)), expected={1: rgba.T.copy()}, rtol=0.0,
                 atol=0.0)


def _build_stride_store(n, rng):
    n = n // PLANES * PLANES
    a = rng.random(n, dtype=np.float32)
    want = (a * np.float32(2.0)).reshape(-1, PLANES).T.reshape(-1)
    return Setup(_blocks(n), (256,), (a, np.zeros(n, np.float32)), expected={1: want}, rtol=0.0, atol=0.0)


def _build_upsweep(n, rng):
    a = rng.random(n, dtype=np.float32)
    want = a.copy()
    want[2 * UP - 1::2 * UP] += a[UP - 1::2 * UP]
    return Setup(_blocks(n // (2 * UP)), (256,), (a,), expected={0: want}, rtol=0.0, atol=0.0)


def _build_cast(n, rng):
    a = rng.standard_normal(n)
    return Setup(_blocks(n, 128), (128,), (a, np.zeros(n, np.float32)), expected={1: a.astype(np.float32)},
                 rtol=0.0, atol=0.0)


CASES = [
    Case("drills", "saxpy_b64", saxpy_b64, _build_saxpy, SIZES, "saxpy in place, 64-thread blocks"),
    Case("drills", "im2col3x3", im2col3x3, _build_im2col, SIZES,
         "each pixel's 3x3 window to 9 planes (0 outside), 32x4 blocks"),
    Case("drills", "bitrev_scatter", bitrev_scatter, _build_bitrev, SIZES,
         "out[rev(i)] = a[i]: bit-reversed scatter, the bits reversed by a loop"),
    Case("drills", "segment_sum", segment_sum, _build_segment, SIZES,
         "float atomics into segments of 64 (a warp's 32 to one address)"),
    Case("drills", "gemv_block128", gemv_block128, _build_gemv, SIZES,
         "1024-column matrix times vector, one 128-thread block a row"),
    Case("drills", "matmul_tiled8", matmul_tiled8, _build_matmul, MATMUL_SIZES,
         "shared-memory tiled matrix multiply, 8x8 tiles"),
    Case("drills", "gradient2d", gradient2d, _build_gradient, SIZES,
         "central differences in x and y, two outputs, 32x4 blocks"),
    Case("drills", "nchw_affine", nchw_affine, _build_nchw, SIZES,
         "per-channel affine of an NCHW tensor, channel by // and % of runtime sizes"),
    Case("drills", "compact_warp", compact_warp, _build_compact, SIZES,
         "each warp's positive elements packed by ballot and popc, and its count"),
    Case("drills", "coo_spmv", coo_spmv, _build_coo, SIZES,
         "COO sparse matrix-vector product, sorted rows, one float atomic an entry"),
    Case("drills", "transpose8x8", transpose8x8, _build_transpose8, SIZES, "naive transpose, 8x8 blocks"),
    Case("drills", "row_softmax64", row_softmax64, _build_softmax, SIZES,
         "softmax of each 64-float row, one 64-thread block a row, shared trees"),
    Case("drills", "rgba_planar", rgba_planar, _build_rgba, SIZES, "interleaved 8-bit RGBA to four planes"),
    Case("drills", "stride_store16", stride_store16, _build_stride_store, SIZES,
         "out[(i % 16) (n / 16) + i / 16] = 2 a[i]: each warp's stores in 16 rows"),
    Case("drills", "upsweep16", upsweep16, _build_upsweep, SIZES,
         "a scan's up-sweep level in place, a[32 t + 31] += a[32 t + 15]"),
    Case("drills", "cast_f64_f32", cast_f64_f32, _build_cast, SIZES, "float64 to float32, 128-thread blocks"),
]

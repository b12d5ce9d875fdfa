"""Quiz kernels: an eighteenth out-of-sample check of the timing model, written after ``recitation``.

What the family is for: like ``recitation`` before it, these kernels were written after every model change of
their day had landed (2026-12-02, the model of ``950edb0``), with smsim's predictions written down before the
H200 ran them (``docs/hardware/validate_hw.md``), and compared before anything changed for them
(``docs/timing_model.md``). They are what a course's quizzes ask for, in language features and patterns no
family used before: constant memory read at one address a warp and at many, a work-efficient (Blelloch) scan
in shared memory, a tiled transpose with its blocks taken in diagonal order, a reduction of eight elements a
thread, an NCHW to NHWC layout change by run-time divisions, chains of dependent random gathers, 64-bit
integer atomics, stores by one lane in ten, a tiled product of non-square matrices, an upper triangle packed
by an index inverted with a square root, rows of an odd width mirrored, and rows scanned in place a thread a
row:

* ``conv1d_const7``: ``out[i] = sum_k w[k] a[i + k - 3]``, the seven weights in constant memory;
* ``lut_const256``: ``out[i] = lut[code[i]]``, a 256-entry table in constant memory read at 32 addresses;
* ``scan_blelloch512``: an exclusive scan of each 512 elements by 256 threads (up-sweep, down-sweep) in
  shared memory, no padding;
* ``transpose_diag32``: a 32x32-tile transpose through a padded shared tile, its blocks renumbered
  diagonally (the partition-camping fix of the CUDA SDK's transpose article);
* ``reduce_coarse8``: an int32 sum, eight elements a thread, a shared tree and an atomic add a block;
* ``nchw_to_nhwc``: a batch of 16-channel images from NCHW to NHWC, a thread an output, by ``//`` and ``%``;
* ``pointer_jump4``: ``out[i] = next[next[next[next[i]]]]`` over a random permutation;
* ``hist_i64_1024``: a histogram of 1024 int64 bins by global atomics;
* ``masked_copy10``: ``out[i] = a[i]`` where ``a[i] > 0.9`` (about one lane in ten stores);
* ``matmul_rect16``: ``C = A B``, ``A`` n x 64 and ``B`` 64 x n, by 16x16 shared tiles;
* ``tri_pack``: the upper triangle of a square matrix packed row by row into a vector, each thread finding its
  row from its index by a square root;
* ``mirror_add_odd``: ``out[y, x] = a[y, x] + a[y, w - 1 - x]`` over an image whose width is not a multiple of
  the line, 32x8 blocks;
* ``rows_cumsum32``: each thread scans its row of 32 floats in place.

Life of a case: ``build(n, rng)`` draws the inputs (``n`` elements, or an image or matrix of about ``n``),
computes the expected output with numpy and returns the launch.
"""
import math

import numpy as np

from smsim import cuda
from smsim.case import Case, Setup
from workloads.plain import _blocks, _grid2, _side   # the launch-shape helpers
from workloads.seminar import _small_ints         # floats holding small integers: exact sums in any order

W7 = np.array([1.0, -2.0, 3.0, 0.5, 3.0, -2.0, 1.0], np.float32)   # conv1d_const7's weights (constant memory)
LUT = (np.arange(256, dtype=np.float32) * np.float32(0.25) - np.float32(7.0)).astype(np.float32)  # lut_const256
SCAN = 512                # scan_blelloch512's elements a block (256 threads, two each)
TILE = 32                 # transpose_diag32's tile
PADDED = 33               # ... its shared rows (numba wants the shape's numbers as globals, not sums)
ROWS8 = 8                 # ... its block's rows
COARSE = 8                # reduce_coarse8's elements a thread
CHANNELS = 16             # nchw_to_nhwc's channels
BINS = 1024               # hist_i64_1024's bins
KDIM = 64                 # matmul_rect16's inner dimension
MT = 16                   # ... its tile
ROW = 32                  # rows_cumsum32's row length
SIZES = {"test": 1 << 15, "full": 1 << 24}


@cuda.jit
def conv1d_const7(a, out):
    """out[i] = sum_k w[k] a[i + k - 3] (zero outside), w in constant memory."""
    w = cuda.const.array_like(W7)
    i = cuda.grid(1)
    n = a.shape[0]
    if i < n:
        acc = np.float32(0.0)
        for k in range(7):
            j = i + k - 3
            if j >= 0 and j < n:
                acc += w[k] * a[j]
        out[i] = acc


@cuda.jit
def lut_const256(code, out):
    """out[i] = lut[code[i]], lut in constant memory (each lane its own entry)."""
    lut = cuda.const.array_like(LUT)
    i = cuda.grid(1)
    if i < code.shape[0]:
        out[i] = lut[code[i]]


@cuda.jit
def scan_blelloch512(a, out):
    """out = the exclusive scan of each 512 elements of a (Blelloch's up-sweep and down-sweep in shared memory)."""
    s = cuda.shared.array(SCAN, np.float32)
    t = cuda.threadIdx.x
    base = cuda.blockIdx.x * SCAN
    s[2 * t] = a[base + 2 * t]
    s[2 * t + 1] = a[base + 2 * t + 1]
    offset = 1
    d = SCAN // 2
    while d > 0:
        cuda.syncthreads()
        if t < d:
            ai = offset * (2 * t + 1) - 1
            bi = offset * (2 * t + 2) - 1
            s[bi] += s[ai]
        offset *= 2
        d //= 2
    if t == 0:
        s[SCAN - 1] = np.float32(0.0)
    d = 1
    while d < SCAN:
        offset //= 2
        cuda.syncthreads()
        if t < d:
            ai = offset * (2 * t + 1) - 1
            bi = offset * (2 * t + 2) - 1
            v = s[ai]
            s[ai] = s[bi]
            s[bi] += v
        d *= 2
    cuda.syncthreads()
    out[base + 2 * t] = s[2 * t]
    out[base + 2 * t + 1] = s[2 * t + 1]


@cuda.jit
def transpose_diag32(inp, out):
    """out = inp.T through a padded 32x33 shared tile, the blocks taken in diagonal order (square matrix)."""
    tile = cuda.shared.array((TILE, PADDED), np.float32)
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    gy = cuda.gridDim.y
    bid = cuda.blockIdx.x + cuda.gridDim.x * cuda.blockIdx.y
    by = bid % gy
    bx = (bid // gy + by) % cuda.gridDim.x
    x = bx * TILE + tx
    y = by * TILE + ty
    for j in range(0, TILE, ROWS8):
        tile[ty + j, tx] = inp[y + j, x]
    cuda.syncthreads()
    x = by * TILE + tx
    y = bx * TILE + ty
    for j in range(0, TILE, ROWS8):
        out[y + j, x] = tile[tx, ty + j]


@cuda.jit
def reduce_coarse8(a, out):
    """out[0] += the sum of a: eight elements a thread (a block's 2048 in turn), a shared tree, an atomic."""
    s = cuda.shared.array(256, np.int32)
    t = cuda.threadIdx.x
    base = cuda.blockIdx.x * 256 * COARSE + t
    n = a.shape[0]
    v = 0
    for k in range(COARSE):
        j = base + k * 256
        if j < n:
            v += a[j]
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
def nchw_to_nhwc(a, out, c_n, h_n, w_n):
    """out (N, H, W, C) = a (N, C, H, W), flat, a thread an output element."""
    i = cuda.grid(1)
    if i < out.shape[0]:
        c = i % c_n
        w = (i // c_n) % w_n
        h = (i // (c_n * w_n)) % h_n
        b = i // (c_n * w_n * h_n)
        out[i] = a[((b * c_n + c) * h_n + h) * w_n + w]


@cuda.jit
def pointer_jump4(nxt, out):
    """out[i] = the element four links from i along nxt."""
    i = cuda.grid(1)
    if i < nxt.shape[0]:
        j = nxt[i]
        j = nxt[j]
        j = nxt[j]
        out[i] = nxt[j]


@cuda.jit
def hist_i64_1024(v, bins):
    """bins[v[i] % 1024] += 1, 64-bit integer atomics."""
    i = cuda.grid(1)
    if i < v.shape[0]:
        cuda.atomic.add(bins, v[i] % BINS, 1)


@cuda.jit
def masked_copy10(a, out):
    """out[i] = a[i] where a[i] > 0.9 (out left as it was elsewhere)."""
    i = cuda.grid(1)
    if i < a.shape[0]:
        x = a[i]
        if x > np.float32(0.9):
            out[i] = x


@cuda.jit
def matmul_rect16(a, b, c):
    """c = a b, a (n, 64) and b (64, n), by 16x16 shared tiles."""
    sa = cuda.shared.array((MT, MT), np.float32)
    sb = cuda.shared.array((MT, MT), np.float32)
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    col = cuda.blockIdx.x * MT + tx
    row = cuda.blockIdx.y * MT + ty
    acc = np.float32(0.0)
    for k0 in range(0, KDIM, MT):
        sa[ty, tx] = a[row, k0 + tx] if row < a.shape[0] else np.float32(0.0)
        sb[ty, tx] = b[k0 + ty, col] if col < b.shape[1] else np.float32(0.0)
        cuda.syncthreads()
        for k in range(MT):
            acc += sa[ty, k] * sb[k, tx]
        cuda.syncthreads()
    if row < c.shape[0] and col < c.shape[1]:
        c[row, col] = acc


@cuda.jit
def tri_pack(a, out):
    """out[p] = the p-th element of a's upper triangle (diagonal included), row by row."""
    p = cuda.grid(1)
    n = a.shape[0]
    if p < out.shape[0]:
        m = 2 * n + 1
        r = int((m - math.sqrt(float(m * m - 8 * p))) / 2.0)
        while r > 0 and r * n - r * (r - 1) // 2 > p:
            r -= 1
        while (r + 1) * n - (r + 1) * r // 2 <= p:
            r += 1
        out[p] = a[r, r + p - (r * n - r * (r - 1) // 2)]


@cuda.jit
def mirror_add_odd(a, out):
    """out[y, x] = a[y, x] + a[y, w - 1 - x], 32x8 blocks over an image of odd width."""
    x, y = cuda.grid(2)
    h, w = a.shape
    if x < w and y < h:
        out[y, x] = a[y, x] + a[y, w - 1 - x]


@cuda.jit
def rows_cumsum32(m):
    """Each row of m (32 floats) replaced by its inclusive prefix sums, a thread a row, in place."""
    r = cuda.grid(1)
    if r < m.shape[0]:
        acc = np.float32(0.0)
        for k in range(ROW):
            acc += m[r, k]
            m[r, k] = acc


def _build_conv(n, rng):
    a = _small_ints(n, rng)
    p = np.pad(a, 3)
    want = sum(W7[k] * p[k:k + n] for k in range(7)).astype(np.float32)
    return Setup(_blocks(n), (256,), (a, np.zeros(n, np.float32)), expected={1: want}, rtol=0.0, atol=0.0)


def _build_lut(n, rng):
    code = rng.integers(0, 256, n).astype(np.uint8)
    return Setup(_blocks(n), (256,), (code, np.zeros(n, np.float32)), expected={1: LUT[code]}, rtol=0.0, atol=0.0)


def _build_scan(n, rng):
    n = max(SCAN, n // SCAN * SCAN)
    a = _small_ints(n, rng)
    blocks = a.reshape(-1, SCAN)
    want = (np.cumsum(blocks, axis=1) - blocks).astype(np.float32).ravel()
    return Setup((n // SCAN,), (SCAN // 2,), (a, np.zeros(n, np.float32)), expected={1: want}, rtol=0.0, atol=0.0)


def _build_transpose(n, rng):
    side = max(TILE, _side(n) // TILE * TILE)
    a = rng.random((side, side), dtype=np.float32)
    return Setup(_grid2(side, side, TILE, TILE), (TILE, ROWS8), (a, np.zeros_like(a)), expected={1: a.T.copy()},
                 rtol=0.0, atol=0.0)


def _build_reduce(n, rng):
    a = rng.integers(0, 4, n).astype(np.int32)
    grid = (n + 256 * COARSE - 1) // (256 * COARSE)
    return Setup((grid,), (256,), (a, np.zeros(1, np.int32)), expected={1: np.array([a.sum()], np.int32)},
                 rtol=0.0, atol=0.0)


def _nchw_shape(n):
    hw = min(256, 1 << ((int(math.log2(n)) - 4) // 2))
    return max(1, n // (CHANNELS * hw * hw)), hw


def _build_nchw(n, rng):
    b, hw = _nchw_shape(n)
    a = rng.random((b, CHANNELS, hw, hw), dtype=np.float32)
    want = a.transpose(0, 2, 3, 1).ravel().copy()
    return Setup(_blocks(want.size), (256,), (a.ravel(), np.zeros(want.size, np.float32), CHANNELS, hw, hw),
                 expected={1: want}, rtol=0.0, atol=0.0)


def _build_jump(n, rng):
    nxt = rng.permutation(n).astype(np.int32)
    want = nxt[nxt[nxt[nxt]]]
    return Setup(_blocks(n), (256,), (nxt, np.zeros(n, np.int32)), expected={1: want}, rtol=0.0, atol=0.0)


def _build_hist(n, rng):
    v = rng.integers(0, 1 << 20, n).astype(np.int32)
    want = np.bincount(v % BINS, minlength=BINS).astype(np.int64)
    return Setup(_blocks(n), (256,), (v, np.zeros(BINS, np.int64)), expected={1: want}, rtol=0.0, atol=0.0)


def _build_masked(n, rng):
    a = rng.random(n, dtype=np.float32)
    return Setup(_blocks(n), (256,), (a, np.zeros(n, np.float32)),
                 expected={1: np.where(a > np.float32(0.9), a, np.float32(0.0))}, rtol=0.0, atol=0.0)


def _build_matmul(n, rng):
    side = max(MT, _side(n) // MT * MT)
    a = _small_ints(side * KDIM, rng).reshape(side, KDIM)
    b = _small_ints(KDIM * side, rng).reshape(KDIM, side)
    want = (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float32)
    return Setup(_grid2(side, side, MT, MT), (MT, MT), (a, b, np.zeros((side, side), np.float32)),
                 expected={2: want}, rtol=0.0, atol=0.0)


def _build_tri(n, rng):
    side = max(32, int(math.isqrt(2 * n)))
    a = rng.random((side, side), dtype=np.float32)
    want = a[np.triu_indices(side)]
    return Setup(_blocks(want.size), (256,), (a, np.zeros(want.size, np.float32)), expected={1: want},
                 rtol=0.0, atol=0.0)


def _build_mirror(n, rng):
    w = max(33, _side(n) - 25) | 1                   # odd: rows start at every 4-byte offset of a line
    h = max(8, n // w)
    a = _small_ints(w * h, rng).reshape(h, w)
    return Setup(_grid2(w, h, 32, 8), (32, 8), (a, np.zeros_like(a)), expected={1: a + a[:, ::-1]},
                 rtol=0.0, atol=0.0)


def _build_cumsum(n, rng):
    rows = max(1, n // ROW)
    m = _small_ints(rows * ROW, rng).reshape(rows, ROW)
    return Setup(_blocks(rows), (256,), (m,), expected={0: np.cumsum(m, axis=1).astype(np.float32)},
                 rtol=0.0, atol=0.0)


CASES = [
    Case("quiz", "conv1d_const7", conv1d_const7, _build_conv, SIZES,
         "a 7-tap convolution, the weights in constant memory"),
    Case("quiz", "lut_const256", lut_const256, _build_lut, SIZES,
         "a 256-entry table in constant memory, each lane its own entry"),
    Case("quiz", "scan_blelloch512", scan_blelloch512, _build_scan, SIZES,
         "an exclusive scan of 512 elements a block, up-sweep and down-sweep in shared memory"),
    Case("quiz", "transpose_diag32", transpose_diag32, _build_transpose, SIZES,
         "a padded-tile transpose, the blocks in diagonal order"),
    Case("quiz", "reduce_coarse8", reduce_coarse8, _build_reduce, SIZES,
         "an int32 sum, eight elements a thread, a shared tree and an atomic a block"),
    Case("quiz", "nchw_to_nhwc", nchw_to_nhwc, _build_nchw, SIZES,
         "16-channel images from NCHW to NHWC by run-time divisions"),
    Case("quiz", "pointer_jump4", pointer_jump4, _build_jump, SIZES,
         "four dependent gathers along a random permutation"),
    Case("quiz", "hist_i64_1024", hist_i64_1024, _build_hist, SIZES,
         "a 1024-bin histogram by 64-bit integer atomics"),
    Case("quiz", "masked_copy10", masked_copy10, _build_masked, SIZES,
         "a copy of the elements above 0.9 only, a lane in ten storing"),
    Case("quiz", "matmul_rect16", matmul_rect16, _build_matmul, SIZES,
         "C = A B with A n x 64, by 16x16 shared tiles"),
    Case("quiz", "tri_pack", tri_pack, _build_tri, SIZES,
         "the upper triangle packed, each thread's row found by a square root"),
    Case("quiz", "mirror_add_odd", mirror_add_odd, _build_mirror, SIZES,
         "each row added to itself reversed, an odd width, 32x8 blocks"),
    Case("quiz", "rows_cumsum32", rows_cumsum32, _build_cumsum, SIZES,
         "rows of 32 floats scanned in place, a thread a row"),
]

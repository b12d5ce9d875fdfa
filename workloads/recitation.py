"""Recitation kernels: a seventeenth out-of-sample check of the timing model, written after ``primer``.

What the family is for: like ``primer`` before it, these kernels were written after every model change of
their day had landed (2026-12-02, after narrow stores of two warps were let merge whatever the warps loaded),
with smsim's predictions written down before the H200 ran them (``docs/hardware/validate_hw.md``), and
compared before anything changed for them (``docs/timing_model.md``). They are what a recitation section has
people write, in patterns and language features no family used before: math library calls, a device function
in a grid-stride loop, a per-thread local array sorted in registers, a data-dependent ``while`` loop, a
shared-memory histogram of bytes, a three-dimensional grid (a permutation and a seven-point stencil), a warp
scan by shuffles, a column-wise matrix-vector product, rows of 16 floats normalised a thread a row, a select
by a byte mask, 64-bit integer hashing, a padded float64 tiled transpose and a 2x upsampling:

* ``softplus_f32``: ``out[i] = log(1 + exp(x[i]))``;
* ``clamp_devfn``: ``out[i] = clamp(2 a[i] - 1, -0.5, 0.5)`` by a device function, a grid-stride loop of 512
  blocks;
* ``sort4_local``: each thread sorts its four consecutive floats in a local array and writes them back out;
* ``tile_rowsum16``: each 16x16 block stages its tile in shared memory and one thread a row sums it;
* ``collatz_steps``: the Collatz steps of integers below 64 (at most 128), a ``while`` loop a thread;
* ``hist256_shared``: a histogram of bytes, 256 bins in shared memory and one global add a bin a block;
* ``permute3d_zyx``: ``out[x, y, z] = a[z, y, x]`` over a cube, 32x4x2 blocks;
* ``dot_block_atomic``: a dot product, a shared tree a block and one atomic add a block;
* ``scan_warp_shfl``: an inclusive scan within each warp by ``shfl_up_sync``;
* ``matvec_cols``: ``y[j] = sum_i A[i, j] x[i]`` over 64 rows, a thread a column;
* ``norm_rows16``: each row of 16 floats divided by its length, a thread a row;
* ``stencil7_3d``: a seven-point stencil over a cube (the border copied), 32x4x2 blocks;
* ``select_mask_u8``: ``out[i] = a[i] if mask[i] else b[i]``;
* ``splitmix64``: ``out[i]`` = the splitmix64 hash of ``seed + i`` in unsigned 64-bit arithmetic;
* ``transpose_f64_pad``: a float64 matrix transposed through a padded 32x33 shared tile, 32x8 blocks;
* ``upsample2_avg``: an image doubled in each direction, each output the mean of its source pixel and the one
  right of it or below it by its parity.

Life of a case: ``build(n, rng)`` draws the inputs (``n`` elements, or an image or cube of about ``n``),
computes the expected output with numpy and returns the launch.
"""
import math

import numpy as np

from smsim import cuda
from smsim.case import Case, Setup
from workloads.plain import _blocks, _grid2, _side   # the launch-shape helpers
from workloads.seminar import _small_ints         # floats holding small integers: exact sums in any order

GRID_STRIDE_BLOCKS = 512  # clamp_devfn's grid
MAX_STEPS = 128           # collatz_steps' bound
COLLATZ_SIZES = {"test": 1 << 13, "full": 1 << 22}   # ... its sizes (a warp runs its longest chain: ~100 steps)
BINS = 256                # hist256_shared's bins
HIST_BLOCKS = 264         # ... and its grid (two blocks an SM)
DOT_BLOCK = 256           # dot_block_atomic's block and shared words
ROWS = 64                 # matvec_cols' rows
ROW = 16                  # norm_rows16's row length
TILE = 32                 # transpose_f64_pad's tile
PADDED = TILE + 1         # ... its shared rows (numba wants the shape's numbers as globals, not sums)
SEED = 0x243F6A8885A308D3
SIZES = {"test": 1 << 15, "full": 1 << 24}


@cuda.jit
def softplus_f32(x, out):
    """out[i] = log(1 + exp(x[i]))."""
    i = cuda.grid(1)
    if i < x.shape[0]:
        out[i] = math.log(np.float32(1.0) + math.exp(x[i]))


@cuda.jit(device=True)
def clamp(v, lo, hi):
    """v held to [lo, hi]."""
    if v < lo:
        return lo
    if v > hi:
        return hi
    return v


@cuda.jit
def clamp_devfn(a, out):
    """out[i] = clamp(2 a[i] - 1, -0.5, 0.5), a grid-stride loop."""
    start = cuda.grid(1)
    stride = cuda.gridsize(1)
    for i in range(start, a.shape[0], stride):
        out[i] = clamp(np.float32(2.0) * a[i] - np.float32(1.0), np.float32(-0.5), np.float32(0.5))


@cuda.jit
def sort4_local(a, out):
    """out[4 i .. 4 i + 3] = a[4 i .. 4 i + 3] sorted, in a local array of four."""
    i = cuda.grid(1)
    if 4 * i + 3 < a.shape[0]:
        v = cuda.local.array(4, np.float32)
        for k in range(4):
            v[k] = a[4 * i + k]
        for p in range(3):
            for k in range(3 - p):
                if v[k] > v[k + 1]:
                    t = v[k]
                    v[k] = v[k + 1]
                    v[k + 1] = t
        for k in range(4):
            out[4 * i + k] = v[k]


@cuda.jit
def tile_rowsum16(a, part):
    """part[y, bx] = the sum of a[y, 16 bx .. 16 bx + 15], the tile staged in shared memory."""
    s = cuda.shared.array((16, 17), np.float32)
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    x, y = cuda.grid(2)
    h, w = a.shape
    s[ty, tx] = a[y, x] if y < h and x < w else np.float32(0.0)
    cuda.syncthreads()
    if tx == 0 and y < h:
        acc = np.float32(0.0)
        for k in range(16):
            acc += s[ty, k]
        part[y, cuda.blockIdx.x] = acc


@cuda.jit
def collatz_steps(start, steps):
    """steps[i] = the Collatz steps from start[i] to 1 (at most MAX_STEPS)."""
    i = cuda.grid(1)
    if i < start.shape[0]:
        v = start[i]
        k = 0
        while v != 1 and k < MAX_STEPS:
            if v % 2 == 0:
                v = v // 2
            else:
                v = 3 * v + 1
            k += 1
        steps[i] = k


@cuda.jit
def hist256_shared(data, hist):
    """hist[b] += the bytes of data equal to b: shared bins a block, a grid-stride loop."""
    h = cuda.shared.array(BINS, np.int32)
    t = cuda.threadIdx.x
    h[t] = 0
    cuda.syncthreads()
    for i in range(cuda.grid(1), data.shape[0], cuda.gridsize(1)):
        cuda.atomic.add(h, data[i], 1)
    cuda.syncthreads()
    if h[t] > 0:
        cuda.atomic.add(hist, t, h[t])


@cuda.jit
def permute3d_zyx(a, out):
    """out[x, y, z] = a[z, y, x]."""
    x, y, z = cuda.grid(3)
    d = a.shape[0]
    if x < d and y < d and z < d:
        out[x, y, z] = a[z, y, x]


@cuda.jit
def dot_block_atomic(a, b, out):
    """out[0] += the sum of a[i] b[i]: a shared tree a block, one atomic add a block."""
    s = cuda.shared.array(DOT_BLOCK, np.float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    s[t] = a[i] * b[i] if i < a.shape[0] else np.float32(0.0)
    cuda.syncthreads()
    step = DOT_BLOCK // 2
    while step > 0:
        if t < step:
            s[t] += s[t + step]
        cuda.syncthreads()
        step //= 2
    if t == 0:
        cuda.atomic.add(out, 0, s[0])


@cuda.jit
def scan_warp_shfl(a, out):
    """out[i] = a[i] plus the values of the lanes below it in its warp."""
    i = cuda.grid(1)
    lane = cuda.laneid
    v = a[i] if i < a.shape[0] else np.float32(0.0)
    d = 1
    while d < 32:
        u = cuda.shfl_up_sync(0xFFFFFFFF, v, d)
        if lane >= d:
            v += u
        d *= 2
    if i < a.shape[0]:
        out[i] = v


@cuda.jit
def matvec_cols(m, x, y):
    """y[j] = sum over i of m[i, j] x[i]."""
    j = cuda.grid(1)
    if j < m.shape[1]:
        acc = np.float32(0.0)
        for i in range(m.shape[0]):
            acc += m[i, j] * x[i]
        y[j] = acc


@cuda.jit
def norm_rows16(m, out):
    """out[r] = m[r] / its length, a thread a row of ROW floats."""
    r = cuda.grid(1)
    if r < m.shape[0]:
        ss = np.float32(0.0)
        for k in range(ROW):
            ss += m[r, k] * m[r, k]
        inv = np.float32(1.0) / math.sqrt(ss)
        for k in range(ROW):
            out[r, k] = m[r, k] * inv


@cuda.jit
def stencil7_3d(u, out):
    """out = the seven-point sum minus six times the centre inside the cube, u on its border."""
    x, y, z = cuda.grid(3)
    d = u.shape[0]
    if x < d and y < d and z < d:
        if 0 < x < d - 1 and 0 < y < d - 1 and 0 < z < d - 1:
            out[z, y, x] = (u[z, y, x - 1] + u[z, y, x + 1] + u[z, y - 1, x] + u[z, y + 1, x]
                            + u[z - 1, y, x] + u[z + 1, y, x] - np.float32(6.0) * u[z, y, x])
        else:
            out[z, y, x] = u[z, y, x]


@cuda.jit
def select_mask_u8(mask, a, b, out):
    """out[i] = a[i] where mask[i] is not 0, else b[i]."""
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = a[i] if mask[i] != 0 else b[i]


@cuda.jit
def splitmix64(out, seed):
    """out[i] = splitmix64(seed + i), unsigned 64-bit."""
    i = cuda.grid(1)
    if i < out.shape[0]:
        z = seed + np.uint64(i) * np.uint64(0x9E3779B97F4A7C15)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        out[i] = z ^ (z >> np.uint64(31))


@cuda.jit
def transpose_f64_pad(a, out):
    """out = a.T through a padded 32x33 float64 shared tile, 32x8 threads a 32x32 tile."""
    tile = cuda.shared.array((TILE, PADDED), np.float64)
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    bx, by = cuda.blockIdx.x * TILE, cuda.blockIdx.y * TILE
    for k in range(0, TILE, 8):
        tile[ty + k, tx] = a[by + ty + k, bx + tx]
    cuda.syncthreads()
    for k in range(0, TILE, 8):
        out[bx + ty + k, by + tx] = tile[tx, ty + k]


@cuda.jit
def upsample2_avg(img, out):
    """out[y, x] = the mean of img[y // 2, x // 2] and its right neighbour (x odd) or the one below (y odd,
    x even), clamped at the edges; out doubles img in each direction."""
    x, y = cuda.grid(2)
    h, w = img.shape
    if y < 2 * h and x < 2 * w:
        sy, sx = y // 2, x // 2
        if x % 2 == 1:
            ny, nx = sy, min(sx + 1, w - 1)
        elif y % 2 == 1:
            ny, nx = min(sy + 1, h - 1), sx
        else:
            ny, nx = sy, sx
        out[y, x] = np.float32(0.5) * (img[sy, sx] + img[ny, nx])


def _cube(n):
    return max(8, int(round(n ** (1.0 / 3.0))))


def _grid3(d, b):
    return tuple((d + k - 1) // k for k in b)


def _build_softplus(n, rng):
    x = (rng.random(n, dtype=np.float32) * 8 - 4).astype(np.float32)
    want = np.log1p(np.exp(x.astype(np.float64))).astype(np.float32)
    return Setup(_blocks(n), (256,), (x, np.zeros(n, np.float32)), expected={1: want}, rtol=1e-5, atol=1e-6)


def _build_clamp(n, rng):
    a = rng.random(n, dtype=np.float32)
    want = np.clip(np.float32(2.0) * a - np.float32(1.0), np.float32(-0.5), np.float32(0.5))
    return Setup((GRID_STRIDE_BLOCKS,), (256,), (a, np.zeros(n, np.float32)), expected={1: want}, rtol=0.0,
                 atol=0.0)


def _build_sort4(n, rng):
    n = n // 4 * 4
    a = rng.random(n, dtype=np.float32)
    return Setup(_blocks(n // 4), (256,), (a, np.zeros(n, np.float32)),
                 expected={1: np.sort(a.reshape(-1, 4), axis=1).ravel()}, rtol=0.0, atol=0.0)


def _build_rowsum(n, rng):
    side = max(16, _side(n) // 16 * 16)
    a = _small_ints(side * side, rng).reshape(side, side)
    want = a.reshape(side, side // 16, 16).sum(axis=2, dtype=np.float64).astype(np.float32)
    return Setup(_grid2(side, side, 16, 16), (16, 16), (a, np.zeros((side, side // 16), np.float32)),
                 expected={1: want}, rtol=0.0, atol=0.0)


def _collatz(v):
    k = 0
    while v != 1 and k < MAX_STEPS:
        v = v // 2 if v % 2 == 0 else 3 * v + 1
        k += 1
    return k


def _build_collatz(n, rng):
    start = rng.integers(1, 64, n).astype(np.int32)
    table = np.array([0] + [_collatz(v) for v in range(1, 64)], np.int32)
    return Setup(_blocks(n), (256,), (start, np.zeros(n, np.int32)), expected={1: table[start]}, rtol=0.0,
                 atol=0.0)


def _build_hist(n, rng):
    data = rng.integers(0, BINS, n).astype(np.uint8)
    return Setup((HIST_BLOCKS,), (BINS,), (data, np.zeros(BINS, np.int32)),
                 expected={1: np.bincount(data, minlength=BINS).astype(np.int32)}, rtol=0.0, atol=0.0)


def _build_permute(n, rng):
    d = _cube(n)
    a = rng.random((d, d, d), dtype=np.float32)
    return Setup(_grid3(d, (32, 4, 2)), (32, 4, 2), (a, np.zeros_like(a)),
                 expected={1: np.ascontiguousarray(a.transpose(2, 1, 0))}, rtol=0.0, atol=0.0)


def _build_dot(n, rng):
    a = rng.integers(0, 2, n).astype(np.float32)    # products of 0 and 1: every partial sum exact in float32
    b = rng.integers(0, 2, n).astype(np.float32)
    want = np.array([(a.astype(np.float64) * b).sum()], np.float32)
    return Setup(_blocks(n, DOT_BLOCK), (DOT_BLOCK,), (a, b, np.zeros(1, np.float32)), expected={2: want},
                 rtol=0.0, atol=0.0)


def _build_scan(n, rng):
    n = n // 32 * 32
    a = _small_ints(n, rng)
    want = np.cumsum(a.reshape(-1, 32), axis=1).astype(np.float32).ravel()
    return Setup(_blocks(n), (256,), (a, np.zeros(n, np.float32)), expected={1: want}, rtol=0.0, atol=0.0)


def _build_matvec(n, rng):
    cols = max(32, n // ROWS)
    m = _small_ints(ROWS * cols, rng).reshape(ROWS, cols)
    x = _small_ints(ROWS, rng)
    want = (x.astype(np.float64) @ m).astype(np.float32)
    return Setup(_blocks(cols), (256,), (m, x, np.zeros(cols, np.float32)), expected={2: want}, rtol=0.0,
                 atol=0.0)


def _build_norm(n, rng):
    rows = max(1, n // ROW)
    m = (rng.random((rows, ROW), dtype=np.float32) + np.float32(0.1)).astype(np.float32)
    want = (m / np.sqrt((m.astype(np.float64) ** 2).sum(axis=1, keepdims=True))).astype(np.float32)
    return Setup(_blocks(rows), (256,), (m, np.zeros_like(m)), expected={1: want}, rtol=1e-5, atol=1e-6)


def _build_stencil7(n, rng):
    d = _cube(n)
    u = _small_ints(d ** 3, rng).reshape(d, d, d)
    want = u.copy()
    c = u[1:-1, 1:-1, 1:-1]
    want[1:-1, 1:-1, 1:-1] = (u[1:-1, 1:-1, :-2] + u[1:-1, 1:-1, 2:] + u[1:-1, :-2, 1:-1] + u[1:-1, 2:, 1:-1]
                              + u[:-2, 1:-1, 1:-1] + u[2:, 1:-1, 1:-1] - np.float32(6.0) * c)
    return Setup(_grid3(d, (32, 4, 2)), (32, 4, 2), (u, np.zeros_like(u)), expected={1: want}, rtol=0.0,
                 atol=0.0)


def _build_select(n, rng):
    mask = rng.integers(0, 2, n).astype(np.uint8)
    a = rng.random(n, dtype=np.float32)
    b = rng.random(n, dtype=np.float32)
    return Setup(_blocks(n), (256,), (mask, a, b, np.zeros(n, np.float32)),
                 expected={3: np.where(mask != 0, a, b)}, rtol=0.0, atol=0.0)


def _splitmix_np(n):
    with np.errstate(over="ignore"):
        z = np.uint64(SEED) + np.arange(n, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return z ^ (z >> np.uint64(31))


def _build_splitmix(n, rng):
    return Setup(_blocks(n), (256,), (np.zeros(n, np.uint64), np.uint64(SEED)), expected={0: _splitmix_np(n)},
                 rtol=0.0, atol=0.0)


def _build_transpose(n, rng):
    side = max(TILE, _side(n) // TILE * TILE)
    a = rng.random((side, side))
    return Setup(_grid2(side, side, TILE, TILE), (TILE, 8), (a, np.zeros_like(a)), expected={1: a.T.copy()},
                 rtol=0.0, atol=0.0)


def _build_upsample(n, rng):
    side = max(16, _side(n // 4) // 16 * 16)
    img = _small_ints(side * side, rng).reshape(side, side)
    y, x = np.mgrid[0:2 * side, 0:2 * side]
    sy, sx = y // 2, x // 2
    ny = np.where((x % 2 == 0) & (y % 2 == 1), np.minimum(sy + 1, side - 1), sy)
    nx = np.where(x % 2 == 1, np.minimum(sx + 1, side - 1), sx)
    want = (np.float32(0.5) * (img[sy, sx] + img[ny, nx])).astype(np.float32)
    return Setup(_grid2(2 * side, 2 * side, 32, 8), (32, 8), (img, np.zeros((2 * side, 2 * side), np.float32)),
                 expected={1: want}, rtol=0.0, atol=0.0)


CASES = [
    Case("recitation", "softplus_f32", softplus_f32, _build_softplus, SIZES, "log(1 + exp(x)), math library calls"),
    Case("recitation", "clamp_devfn", clamp_devfn, _build_clamp, SIZES,
         "a clamp by a device function, a grid-stride loop of 512 blocks"),
    Case("recitation", "sort4_local", sort4_local, _build_sort4, SIZES,
         "each thread's four floats sorted in a local array"),
    Case("recitation", "tile_rowsum16", tile_rowsum16, _build_rowsum, SIZES,
         "16-float row sums of shared 16x16 tiles, a thread a row"),
    Case("recitation", "collatz_steps", collatz_steps, _build_collatz, COLLATZ_SIZES,
         "Collatz steps of small integers, a data-dependent while loop"),
    Case("recitation", "hist256_shared", hist256_shared, _build_hist, SIZES,
         "a byte histogram, 256 shared bins a block, a grid-stride loop"),
    Case("recitation", "permute3d_zyx", permute3d_zyx, _build_permute, SIZES,
         "a cube's axes reversed, out[x, y, z] = a[z, y, x], 32x4x2 blocks"),
    Case("recitation", "dot_block_atomic", dot_block_atomic, _build_dot, SIZES,
         "a dot product, a shared tree and an atomic add a block"),
    Case("recitation", "scan_warp_shfl", scan_warp_shfl, _build_scan, SIZES,
         "an inclusive scan within each warp by shuffles"),
    Case("recitation", "matvec_cols", matvec_cols, _build_matvec, SIZES,
         "a matrix-vector product over 64 rows, a thread a column"),
    Case("recitation", "norm_rows16", norm_rows16, _build_norm, SIZES,
         "rows of 16 floats normalised, a thread a row"),
    Case("recitation", "stencil7_3d", stencil7_3d, _build_stencil7, SIZES,
         "a seven-point stencil over a cube, 32x4x2 blocks"),
    Case("recitation", "select_mask_u8", select_mask_u8, _build_select, SIZES,
         "out = a where a byte mask is set, else b"),
    Case("recitation", "splitmix64", splitmix64, _build_splitmix, SIZES,
         "the splitmix64 hash of each index, unsigned 64-bit arithmetic"),
    Case("recitation", "transpose_f64_pad", transpose_f64_pad, _build_transpose, SIZES,
         "a float64 transpose through a padded 32x33 shared tile"),
    Case("recitation", "upsample2_avg", upsample2_avg, _build_upsample, SIZES,
         "an image doubled each way, each output a mean of two source pixels"),
]

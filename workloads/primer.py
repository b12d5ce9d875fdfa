"""Primer kernels: a sixteenth out-of-sample check of the timing model, written after ``classroom``.

What the family is for: like ``classroom`` before it, these kernels were written after every model change of
their day had landed (2026-12-01, the session that modelled a short last wave's share of the device and the
stores into part of a sector's words taking turns), with smsim's predictions written down before the H200 ran
them (``docs/hardware/validate_hw.md``), and compared before anything changed for them
(``docs/timing_model.md``). They are what a primer on GPU memory has people write, in patterns no family used
before: byte images rotated, flipped and reduced from four channels, 16-bit values transposed in blocks of
1024 threads, stores three words apart, blocks of three warps, gathers by loaded indices and by a modular
stride, a float64 five-point stencil, a max a block of 64 threads, a byte triangle zeroed in place and a count
by warp votes:

* ``rotate90_u8``: a byte image rotated a quarter turn, ``out[x, side - 1 - y] = img[y, x]``, 16x16 blocks;
* ``transpose_u16_b1024``: 16-bit values transposed naively in 32x32 blocks;
* ``gray_rgba_u8``: ``gray[i] = (r + 2 g + b) / 4`` from four-byte pixels (four byte loads a thread);
* ``flip_cols_u8``: ``out[y, w - 1 - x] = img[y, x]`` for bytes, 32x8 blocks;
* ``scatter_stride3``: ``out[3 i] = a[i]`` (the other words untouched);
* ``axpy_b96``: ``y = 2 x + y`` in 96-thread blocks;
* ``gather_idx_bitrev``: ``out[i] = a[idx[i]]``, ``idx`` a bit reversal within each 256 elements;
* ``mod_gather8``: ``out[i] = sum over k < 8 of a[(i + 37 k) mod n]``;
* ``laplace5_f64``: a five-point Laplacian of a float64 grid in 16x16 blocks (the border copied);
* ``block_max_b64``: the max of each 64 elements, a shared tree in 64-thread blocks;
* ``tril_zero_u8``: the bytes above a square matrix's diagonal set to zero in place, 32x8 blocks;
* ``count_pos_vote``: the positive values counted by a warp vote and one atomic add a warp.

Life of a case: ``build(n, rng)`` draws the inputs (``n`` elements, or an image of about ``n``), computes the
expected output with numpy and returns the launch.
"""
import numpy as np

from smsim import cuda
from smsim.case import Case, Setup
from workloads.plain import _blocks, _grid2, _side   # the launch-shape helpers
from workloads.seminar import _small_ints         # floats holding small integers: exact sums in any order

GROUP = 256               # gather_idx_bitrev's permuted groups
BITS = 8                  # ... their index bits
STRIDE = 37               # mod_gather8's stride
TAPS = 8                  # ... and its loads a thread
MAXB = 64                 # block_max_b64's block and shared words
SIZES = {"test": 1 << 15, "full": 1 << 24}


@cuda.jit
def rotate90_u8(img, out):
    """out[x, side - 1 - y] = img[y, x] for a square uint8 image."""
    x, y = cuda.grid(2)
    side = img.shape[0]
    if y < side and x < side:
        out[x, side - 1 - y] = img[y, x]


@cuda.jit
def transpose_u16_b1024(img, out):
    """out[x, y] = img[y, x] for a uint16 image."""
    x, y = cuda.grid(2)
    if y < img.shape[0] and x < img.shape[1]:
        out[x, y] = img[y, x]


@cuda.jit
def gray_rgba_u8(img, gray):
    """gray[i] = (r + 2 g + b) / 4 of the pixel img[i] (four bytes r, g, b, a)."""
    i = cuda.grid(1)
    if i < gray.shape[0]:
        s = np.int32(img[i, 0]) + 2 * np.int32(img[i, 1]) + np.int32(img[i, 2])
        gray[i] = np.uint8(s // 4)


@cuda.jit
def flip_cols_u8(img, out):
    """out[y, w - 1 - x] = img[y, x] for a uint8 image."""
    x, y = cuda.grid(2)
    w = img.shape[1]
    if y < img.shape[0] and x < w:
        out[y, w - 1 - x] = img[y, x]


@cuda.jit
def scatter_stride3(a, out):
    """out[3 i] = a[i]."""
    i = cuda.grid(1)
    if i < a.shape[0]:
        out[3 * i] = a[i]


@cuda.jit
def axpy_b96(x, y):
    """y = 2 x + y, in place."""
    i = cuda.grid(1)
    if i < y.shape[0]:
        y[i] = np.float32(2.0) * x[i] + y[i]


@cuda.jit
def gather_idx_bitrev(a, idx, out):
    """out[i] = a[idx[i]]."""
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = a[idx[i]]


@cuda.jit
def mod_gather8(a, out):
    """out[i] = sum over k < 8 of a[(i + 37 k) mod n]."""
    i = cuda.grid(1)
    n = a.shape[0]
    if i < n:
        s = np.float32(0.0)
        for k in range(TAPS):
            s += a[(i + STRIDE * k) % n]
        out[i] = s


@cuda.jit
def laplace5_f64(u, out):
    """out = the five-point Laplacian of u inside, u on the border."""
    x, y = cuda.grid(2)
    h, w = u.shape
    if y < h and x < w:
        if 0 < y < h - 1 and 0 < x < w - 1:
            out[y, x] = u[y - 1, x] + u[y + 1, x] + u[y, x - 1] + u[y, x + 1] - 4.0 * u[y, x]
        else:
            out[y, x] = u[y, x]


@cuda.jit
def block_max_b64(a, out):
    """out[b] = the max of a[64 b .. 64 b + 63], a shared tree."""
    s = cuda.shared.array(MAXB, np.float32)
    t = cuda.threadIdx.x
    s[t] = a[cuda.grid(1)]
    cuda.syncthreads()
    step = MAXB // 2
    while step > 0:
        if t < step:
            s[t] = max(s[t], s[t + step])
        cuda.syncthreads()
        step //= 2
    if t == 0:
        out[cuda.blockIdx.x] = s[0]


@cuda.jit
def tril_zero_u8(m):
    """m[r, c] = 0 above the diagonal (c > r), in place."""
    c, r = cuda.grid(2)
    if r < m.shape[0] and c < m.shape[1] and c > r:
        m[r, c] = 0


@cuda.jit
def count_pos_vote(a, count):
    """count[0] += the positive values of a, by a vote a warp and one atomic add a warp."""
    i = cuda.grid(1)
    pos = i < a.shape[0] and a[i] > 0.0
    votes = cuda.ballot_sync(0xFFFFFFFF, pos)
    if cuda.laneid == 0:
        cuda.atomic.add(count, 0, cuda.popc(votes))


def _image(n, rng):
    side = max(32, _side(n) // 32 * 32)
    return rng.integers(0, 256, (side, side)).astype(np.uint8), side


def _build_rotate(n, rng):
    img, side = _image(n, rng)
    return Setup(_grid2(side, side, 16, 16), (16, 16), (img, np.zeros_like(img)),
                 expected={1: np.rot90(img, -1).copy()}, rtol=0.0, atol=0.0)


def _build_transpose16(n, rng):
    side = max(32, _side(n) // 32 * 32)
    img = rng.integers(0, 1 << 16, (side, side)).astype(np.uint16)
    return Setup(_grid2(side, side, 32, 32), (32, 32), (img, np.zeros_like(img)), expected={1: img.T.copy()},
                 rtol=0.0, atol=0.0)


def _build_gray(n, rng):
    img = rng.integers(0, 256, (n, 4)).astype(np.uint8)
    s = img[:, 0].astype(np.int32) + 2 * img[:, 1].astype(np.int32) + img[:, 2].astype(np.int32)
    return Setup(_blocks(n), (256,), (img, np.zeros(n, np.uint8)), expected={1: (s // 4).astype(np.uint8)},
                 rtol=0.0, atol=0.0)


def _build_flip(n, rng):
    img, side = _image(n, rng)
    return Setup(_grid2(side, side, 32, 8), (32, 8), (img, np.zeros_like(img)),
                 expected={1: img[:, ::-1].copy()}, rtol=0.0, atol=0.0)


def _build_scatter3(n, rng):
    n = n // 3
    a = rng.random(n, dtype=np.float32)
    out = np.full(3 * n, -1.0, np.float32)
    want = out.copy()
    want[::3] = a
    return Setup(_blocks(n), (256,), (a, out), expected={1: want}, rtol=0.0, atol=0.0)


def _build_axpy(n, rng):
    x = _small_ints(n, rng)
    y = _small_ints(n, rng)
    return Setup(_blocks(n, 96), (96,), (x, y.copy()), expected={1: np.float32(2.0) * x + y}, rtol=0.0, atol=0.0)


def _bitrev(bits):
    k = np.arange(1 << bits)
    return np.array([int(format(v, f"0{bits}b")[::-1], 2) for v in k], np.int64)


def _build_gather_idx(n, rng):
    n = n // GROUP * GROUP
    a = rng.random(n, dtype=np.float32)
    idx = ((np.arange(n) // GROUP) * GROUP + np.tile(_bitrev(BITS), n // GROUP)).astype(np.int32)
    return Setup(_blocks(n), (256,), (a, idx, np.zeros(n, np.float32)), expected={2: a[idx]}, rtol=0.0, atol=0.0)


def _build_mod_gather(n, rng):
    a = _small_ints(n, rng)
    i = np.arange(n, dtype=np.int64)
    want = sum(a[(i + STRIDE * k) % n].astype(np.float64) for k in range(TAPS)).astype(np.float32)
    return Setup(_blocks(n), (256,), (a, np.zeros(n, np.float32)), expected={1: want}, rtol=0.0, atol=0.0)


def _build_laplace(n, rng):
    side = max(16, _side(n))
    u = rng.integers(-8, 9, (side, side)).astype(np.float64)
    want = u.copy()
    want[1:-1, 1:-1] = u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:] - 4.0 * u[1:-1, 1:-1]
    return Setup(_grid2(side, side, 16, 16), (16, 16), (u, np.zeros_like(u)), expected={1: want}, rtol=0.0,
                 atol=0.0)


def _build_block_max(n, rng):
    n = n // MAXB * MAXB
    a = rng.random(n, dtype=np.float32)
    return Setup(_blocks(n, MAXB), (MAXB,), (a, np.zeros(n // MAXB, np.float32)),
                 expected={1: a.reshape(-1, MAXB).max(axis=1)}, rtol=0.0, atol=0.0)


def _build_tril(n, rng):
    m, side = _image(n, rng)
    return Setup(_grid2(side, side, 32, 8), (32, 8), (m.copy(),), expected={0: np.tril(m)}, rtol=0.0, atol=0.0)


def _build_count(n, rng):
    a = (rng.random(n, dtype=np.float32) - np.float32(0.3))
    return Setup(_blocks(n), (256,), (a, np.zeros(1, np.int32)),
                 expected={1: np.array([(a > 0).sum()], np.int32)}, rtol=0.0, atol=0.0)


CASES = [
    Case("primer", "rotate90_u8", rotate90_u8, _build_rotate, SIZES,
         "a byte image rotated a quarter turn, 16x16 blocks"),
    Case("primer", "transpose_u16_b1024", transpose_u16_b1024, _build_transpose16, SIZES,
         "16-bit values transposed naively in 32x32 blocks"),
    Case("primer", "gray_rgba_u8", gray_rgba_u8, _build_gray, SIZES,
         "a gray byte from each four-byte pixel"),
    Case("primer", "flip_cols_u8", flip_cols_u8, _build_flip, SIZES,
         "a byte image flipped left to right, 32x8 blocks"),
    Case("primer", "scatter_stride3", scatter_stride3, _build_scatter3, SIZES,
         "out[3 i] = a[i], the other words untouched"),
    Case("primer", "axpy_b96", axpy_b96, _build_axpy, SIZES, "y = 2 x + y in place, 96-thread blocks"),
    Case("primer", "gather_idx_bitrev", gather_idx_bitrev, _build_gather_idx, SIZES,
         "out[i] = a[idx[i]], idx a bit reversal within each 256"),
    Case("primer", "mod_gather8", mod_gather8, _build_mod_gather, SIZES,
         "eight loads a thread 37 elements apart, modulo n"),
    Case("primer", "laplace5_f64", laplace5_f64, _build_laplace, SIZES,
         "a five-point Laplacian of a float64 grid, 16x16 blocks"),
    Case("primer", "block_max_b64", block_max_b64, _build_block_max, SIZES,
         "the max of each 64 elements, a shared tree in 64-thread blocks"),
    Case("primer", "tril_zero_u8", tril_zero_u8, _build_tril, SIZES,
         "the bytes above a matrix's diagonal zeroed in place, 32x8 blocks"),
    Case("primer", "count_pos_vote", count_pos_vote, _build_count, SIZES,
         "positive values counted by a warp vote and an atomic add a warp"),
]

"""Ordinary kernels: what a numba user writes on a first day, kept as an out-of-sample check of the timing model.

What the family is for: the other families were measured while the timing model was built, so agreement on
them is partly fit. These kernels were added after the model's mechanisms were in place and measured once
(``docs/hardware/validate_hw.md``); nothing in ``configs/`` was tuned on them. They are written plainly
(Python ints, 2-D indexing, loops over ``range`` with small bodies, branches):

* ``blur3x3``: a 3x3 box filter over a float32 image with two nested ``range(-1, 2)`` loops and clamped
  coordinates: index arithmetic around nine cached loads;
* ``matvec_rows``: ``y[i] = sum_j A[i, j] * x[j]``, one row per thread (the warp's loads are 4 KB apart:
  uncoalesced, 32 sectors per request) and ``matvec_cols`` over the transposed matrix (coalesced);
* ``scale_stride2`` / ``scale_stride16``: ``out[i * s] = 2 * a[i]``: strided stores of 4 bytes;
* ``poly16``: Horner evaluation of a 16-coefficient polynomial read from an array in a loop: compute with
  index math;
* ``branchy``: ``sqrt`` where the input is positive, a square where not (random signs: both sides run in
  every warp);
* ``rowsum64``: each thread sums one 64-element row of a 2-D array (strided reads, 64 iterations).

Life of a case: ``build(n, rng)`` draws float32 inputs (``n`` elements, or an image/matrix of about ``n``
elements), computes the expected output with numpy in float32 (tolerances allow FMA contraction and the
summation order) and returns a 1-D launch of 256-thread blocks (16x16 for the image).
"""
import math

import numpy as np

from smsim import cuda
from smsim.case import Case, Setup

BLOCK = 256
TILE = 16
COEFFS = 16
ROW = 64
SIZES = {"test": 1 << 15, "full": 1 << 24}
MATVEC_SIZES = {"test": 256, "full": 4096}          # matrix edge


@cuda.jit
def blur3x3(img, out):
    """out[y, x] = mean of the 3x3 neighbourhood, coordinates clamped at the border."""
    x, y = cuda.grid(2)
    h, w = img.shape
    if x < w and y < h:
        acc = np.float32(0.0)
        for dy in range(-1, 2):
            for dx in range(-1, 2):
                yy = min(max(y + dy, 0), h - 1)
                xx = min(max(x + dx, 0), w - 1)
                acc += img[yy, xx]
        out[y, x] = acc / np.float32(9.0)


@cuda.jit
def matvec_rows(A, x, y):
    """One row per thread: y[i] = sum_j A[i, j] * x[j]."""
    i = cuda.grid(1)
    if i < y.shape[0]:
        acc = np.float32(0.0)
        for j in range(A.shape[1]):
            acc += A[i, j] * x[j]
        y[i] = acc


@cuda.jit
def matvec_cols(At, x, y):
    """The same product over the transposed matrix: y[i] = sum_j At[j, i] * x[j] (coalesced)."""
    i = cuda.grid(1)
    if i < y.shape[0]:
        acc = np.float32(0.0)
        for j in range(At.shape[0]):
            acc += At[j, i] * x[j]
        y[i] = acc


@cuda.jit
def scale_strided(a, out, stride):
    """out[i * stride] = 2 a[i]: a coalesced read, a strided 4-byte store."""
    i = cuda.grid(1)
    if i < a.shape[0]:
        out[i * stride] = np.float32(2.0) * a[i]


@cuda.jit
def poly(x, coeffs, out):
    """Horner: out[i] = c0 + x (c1 + x (c2 + ...)), the coefficients read in a loop."""
    i = cuda.grid(1)
    if i < x.shape[0]:
        v = x[i]
        acc = np.float32(0.0)
        for k in range(coeffs.shape[0] - 1, -1, -1):
            acc = acc * v + coeffs[k]
        out[i] = acc


@cuda.jit
def branchy(a, out):
    """sqrt(a) where a > 0, else a * a: a data-dependent branch, both sides in every warp."""
    i = cuda.grid(1)
    if i < a.shape[0]:
        v = a[i]
        if v > np.float32(0.0):
            out[i] = math.sqrt(v)
        else:
            out[i] = v * v


@cuda.jit
def rowsum(m, out):
    """Each thread sums one row of a (rows x 64) array: the warp's loads are 256 bytes apart."""
    i = cuda.grid(1)
    if i < m.shape[0]:
        acc = np.float32(0.0)
        for j in range(m.shape[1]):
            acc += m[i, j]
        out[i] = acc


def _blocks(n):
    return ((n + BLOCK - 1) // BLOCK,)


def _build_blur(n, rng):
    side = int(math.isqrt(n))
    img = rng.random((side, side), dtype=np.float32)
    p = np.pad(img, 1, mode="edge")
    want = sum(p[1 + dy:1 + dy + side, 1 + dx:1 + dx + side] for dy in (-1, 0, 1) for dx in (-1, 0, 1)) / 9
    grid = ((side + TILE - 1) // TILE, (side + TILE - 1) // TILE)
    return Setup(grid, (TILE, TILE), (img, np.zeros_like(img)), expected={1: want.astype(np.float32)},
                 rtol=1e-5, atol=1e-6)


def _build_matvec(transposed):
    def build(n, rng):
        A = rng.random((n, n), dtype=np.float32) - np.float32(0.5)
        x = rng.random(n, dtype=np.float32)
        want = (A.astype(np.float64) @ x).astype(np.float32)
        mat = np.ascontiguousarray(A.T) if transposed else A
        return Setup(_blocks(n), (BLOCK,), (mat, x, np.zeros(n, np.float32)), expected={2: want},
                     rtol=1e-3, atol=1e-3)
    return build


def _build_scale(stride):
    def build(n, rng):
        n //= stride
        a = rng.standard_normal(n, dtype=np.float32)
        out = np.zeros(n * stride, np.float32)
        want = out.copy()
        want[::stride] = np.float32(2.0) * a
        return Setup(_blocks(n), (BLOCK,), (a, out, np.int32(stride)), expected={1: want}, rtol=0.0, atol=0.0)
    return build


def _build_poly(n, rng):
    x = rng.random(n, dtype=np.float32) * np.float32(2.0) - np.float32(1.0)
    c = (rng.random(COEFFS, dtype=np.float32) - np.float32(0.5)).astype(np.float32)
    want = np.zeros(n, np.float64)
    for k in range(COEFFS - 1, -1, -1):
        want = want * x + c[k]
    return Setup(_blocks(n), (BLOCK,), (x, c, np.zeros(n, np.float32)), expected={2: want.astype(np.float32)},
                 rtol=1e-4, atol=1e-5)


def _build_branchy(n, rng):
    a = rng.standard_normal(n, dtype=np.float32)
    want = np.where(a > 0, np.sqrt(np.maximum(a, 0)), a * a).astype(np.float32)
    return Setup(_blocks(n), (BLOCK,), (a, np.zeros(n, np.float32)), expected={1: want}, rtol=1e-6, atol=0.0)


def _build_rowsum(n, rng):
    rows = max(1, n // ROW)
    m = rng.random((rows, ROW), dtype=np.float32)
    return Setup(_blocks(rows), (BLOCK,), (m, np.zeros(rows, np.float32)),
                 expected={1: m.astype(np.float64).sum(axis=1).astype(np.float32)}, rtol=1e-5, atol=1e-5)


CASES = [
    Case("ordinary", "blur3x3", blur3x3, _build_blur, SIZES,
         "3x3 box blur, clamped borders, nested range(-1, 2) loops (16x16 blocks over a sqrt(n) image)"),
    Case("ordinary", "matvec_rows", matvec_rows, _build_matvec(False), MATVEC_SIZES,
         "y = A x, one row per thread: uncoalesced loads 4n bytes apart (n x n matrix)"),
    Case("ordinary", "matvec_cols", matvec_cols, _build_matvec(True), MATVEC_SIZES,
         "y = A x over the transposed matrix, one output per thread: coalesced loads"),
    Case("ordinary", "scale_stride2", scale_strided, _build_scale(2), SIZES,
         "out[2 i] = 2 a[i]: coalesced read, stride-2 4-byte stores"),
    Case("ordinary", "scale_stride16", scale_strided, _build_scale(16), SIZES,
         "out[16 i] = 2 a[i]: coalesced read, one 4-byte store per 64 bytes"),
    Case("ordinary", "poly16", poly, _build_poly, SIZES,
         "Horner evaluation of 16 coefficients read from an array in a loop, one element per thread"),
    Case("ordinary", "branchy", branchy, _build_branchy, SIZES,
         "sqrt where positive, square where not: both sides of a data-dependent branch in every warp"),
    Case("ordinary", "rowsum64", rowsum, _build_rowsum, SIZES,
         "each thread sums one 64-float row of a 2-D array: loads 256 bytes apart across the warp"),
]

"""Course kernels: a fifth out-of-sample check of the timing model, written and measured after ``routine``.

What the family is for: ``ordinary``, ``everyday``, ``plain`` and ``routine`` were each measured after the
model's mechanisms of their day were in place, and parts of the model were refitted after each was compared,
so none is fully out of sample any more. These kernels were written later still (2026-11-28, the session
after ``routine``'s models landed), measured once on the H200 (``docs/hardware/validate_hw.md``) and compared
before anything in ``configs/`` was touched for them; the first comparison is recorded in
``docs/timing_model.md``. They are what a course's labs and a first project ask for, mixing mechanisms in
ways the other families do not:

* ``gelu_tanh``: the tanh form of GELU, element-wise (a transcendental on the XU pipe, a cube);
* ``rotate_sincos``: points (x, y) rotated by their own angle (``sin``/``cos``: three streams in, two out);
* ``newton_f64``: six Newton steps of a float64 square root (float64 division in a loop);
* ``mix_u64``: the splitmix64 hash of the thread index into a uint64 array (64-bit multiplies);
* ``quantize_i8``: float32 scaled, rounded and clamped to int8 (one-byte stores);
* ``maxpool2x2``: the maximum of each 2x2 window of an image (16x16 blocks, four reads a write);
* ``crop_offset``: an image's window at row 3, column 5 copied out (rows read off their sectors' start);
* ``transpose_f64``: a naive transpose of a float64 matrix (16x16 blocks, 8-byte strided stores);
* ``lut_shared``: a 256-entry table staged in shared memory, looked up by a byte per thread;
* ``collatz``: the Collatz steps of each element, at most 256 (a data-dependent loop per lane);
* ``conv2d_5x5``: a 5x5 filter over an image, weights read from global memory in the loop (32x8 blocks);
* ``mat4_aos``: each thread multiplies its float32 point (x, y, z, w: array of structures) by a 4x4 matrix;
* ``interleave2``: ``out[2 i] = a[i]; out[2 i + 1] = b[i]`` (two stores, each half of every sector);
* ``deinterleave2``: ``a[i] = x[2 i]; b[i] = x[2 i + 1]``;
* ``upper_tri``: doubles the upper triangle of a matrix, the threads below the diagonal idle (32x8 blocks);
* ``rowmax_block``: one 256-thread block per 4096-element row: a strided max, a shared-memory tree;
* ``vadd_i64``: int64 vector add with 128-thread blocks;
* ``prefix_row32``: each thread a running sum along its own 32-element row, in place (loads and stores
  32 words apart from lane to lane).

Life of a case: ``build(n, rng)`` draws the inputs (``n`` elements, or an image or matrix of about ``n``),
computes the expected output with numpy (tolerances allow FMA contraction, float32 rounding and the
transcendental functions' few ulps) and returns the launch.
"""
import math

import numpy as np

from smsim import cuda
from smsim.case import Case, Setup
from workloads.plain import _blocks, _grid2, _side   # the launch-shape helpers (256-thread blocks there too)

BLOCK = 256
NEWTON = 6                 # newton_f64's steps
COLLATZ = 256              # collatz's step limit
ROWLEN = 4096              # rowmax_block's row length
ROW32 = 32                 # prefix_row32's row length
CROP_Y, CROP_X = 3, 5      # crop_offset's window origin
LUT = 256                  # lut_shared's entries
SIZES = {"test": 1 << 15, "full": 1 << 24}
COLLATZ_SIZES = {"test": 1 << 13, "full": 1 << 21}   # its loop runs ~100 steps a lane: 2M lanes is 8192 blocks


@cuda.jit
def gelu_tanh(a, out):
    """out = 0.5 x (1 + tanh(0.7978845608 (x + 0.044715 x^3)))."""
    i = cuda.grid(1)
    if i < a.shape[0]:
        x = a[i]
        t = math.tanh(np.float32(0.7978845608) * (x + np.float32(0.044715) * x * x * x))
        out[i] = np.float32(0.5) * x * (np.float32(1.0) + t)


@cuda.jit
def rotate_sincos(x, y, th, ox, oy):
    """(ox, oy) = (x, y) rotated by th."""
    i = cuda.grid(1)
    if i < x.shape[0]:
        c = math.cos(th[i])
        s = math.sin(th[i])
        ox[i] = c * x[i] - s * y[i]
        oy[i] = s * x[i] + c * y[i]


@cuda.jit
def newton_f64(a, out):
    """out = sqrt(a) by NEWTON steps of x = (x + a / x) / 2 from x = (a + 1) / 2, in float64."""
    i = cuda.grid(1)
    if i < a.shape[0]:
        v = a[i]
        x = (v + 1.0) * 0.5
        for _ in range(NEWTON):
            x = 0.5 * (x + v / x)
        out[i] = x


@cuda.jit
def mix_u64(out):
    """out[i] = splitmix64(i)."""
    i = cuda.grid(1)
    if i < out.shape[0]:
        z = np.uint64(i) + np.uint64(0x9E3779B97F4A7C15)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        out[i] = z ^ (z >> np.uint64(31))


@cuda.jit
def quantize_i8(a, out, scale):
    """out = clamp(floor(a scale + 0.5), -127, 127) as int8."""
    i = cuda.grid(1)
    if i < a.shape[0]:
        q = math.floor(a[i] * scale + np.float32(0.5))
        out[i] = min(max(int(q), -127), 127)


@cuda.jit
def maxpool2x2(img, out):
    """out[y, x] = the maximum of img[2y:2y+2, 2x:2x+2]."""
    x, y = cuda.grid(2)
    if y < out.shape[0] and x < out.shape[1]:
        m = max(img[2 * y, 2 * x], img[2 * y, 2 * x + 1])
        m = max(m, max(img[2 * y + 1, 2 * x], img[2 * y + 1, 2 * x + 1]))
        out[y, x] = m


@cuda.jit
def crop_offset(img, out):
    """out = img[CROP_Y:CROP_Y + h, CROP_X:CROP_X + w]."""
    x, y = cuda.grid(2)
    if y < out.shape[0] and x < out.shape[1]:
        out[y, x] = img[y + CROP_Y, x + CROP_X]


@cuda.jit
def transpose_f64(a, out):
    """out = a^T, float64, one element a thread."""
    x, y = cuda.grid(2)
    if y < a.shape[0] and x < a.shape[1]:
        out[x, y] = a[y, x]


@cuda.jit
def lut_shared(idx, table, out):
    """out[i] = table[idx[i]], the table staged in shared memory."""
    t = cuda.shared.array(LUT, np.float32)
    k = cuda.threadIdx.x
    while k < LUT:
        t[k] = table[k]
        k += cuda.blockDim.x
    cuda.syncthreads()
    i = cuda.grid(1)
    if i < idx.shape[0]:
        out[i] = t[idx[i]]


@cuda.jit
def collatz(a, out):
    """out[i] = the Collatz steps from a[i] to 1, at most COLLATZ."""
    i = cuda.grid(1)
    if i < a.shape[0]:
        v = a[i]
        s = 0
        while v != 1 and s < COLLATZ:
            if v % 2 == 0:
                v = v // 2
            else:
                v = 3 * v + 1
            s += 1
        out[i] = s


@cuda.jit
def conv2d_5x5(img, w, out):
    """out[y, x] = sum of w[dy, dx] img[y + dy, x + dx] (the valid part: out is 4 smaller each way)."""
    x, y = cuda.grid(2)
    if y < out.shape[0] and x < out.shape[1]:
        acc = np.float32(0.0)
        for dy in range(5):
            for dx in range(5):
                acc += w[dy, dx] * img[y + dy, x + dx]
        out[y, x] = acc


@cuda.jit
def mat4_aos(p, m, out):
    """out[i] = m p[i], each point 4 consecutive float32."""
    i = cuda.grid(1)
    if i < p.shape[0]:
        x = p[i, 0]
        y = p[i, 1]
        z = p[i, 2]
        w = p[i, 3]
        for r in range(4):
            out[i, r] = m[r, 0] * x + m[r, 1] * y + m[r, 2] * z + m[r, 3] * w


@cuda.jit
def interleave2(a, b, out):
    """out[2 i] = a[i], out[2 i + 1] = b[i]."""
    i = cuda.grid(1)
    if i < a.shape[0]:
        out[2 * i] = a[i]
        out[2 * i + 1] = b[i]


@cuda.jit
def deinterleave2(x, a, b):
    """a[i] = x[2 i], b[i] = x[2 i + 1]."""
    i = cuda.grid(1)
    if i < a.shape[0]:
        a[i] = x[2 * i]
        b[i] = x[2 * i + 1]


@cuda.jit
def upper_tri(a, out):
    """out[y, x] = 2 a[y, x] where x >= y (out is zero below the diagonal)."""
    x, y = cuda.grid(2)
    if y < a.shape[0] and x < a.shape[1] and x >= y:
        out[y, x] = np.float32(2.0) * a[y, x]


@cuda.jit
def rowmax_block(a, out):
    """out[r] = max of row r, one block a row."""
    s = cuda.shared.array(BLOCK, np.float32)
    r = cuda.blockIdx.x
    t = cuda.threadIdx.x
    m = a[r, t]
    c = t + BLOCK
    while c < a.shape[1]:
        m = max(m, a[r, c])
        c += BLOCK
    s[t] = m
    cuda.syncthreads()
    h = BLOCK // 2
    while h > 0:
        if t < h:
            s[t] = max(s[t], s[t + h])
        cuda.syncthreads()
        h //= 2
    if t == 0:
        out[r] = s[0]


@cuda.jit
def vadd_i64(a, b, c):
    """c = a + b over int64."""
    i = cuda.grid(1)
    if i < c.shape[0]:
        c[i] = a[i] + b[i]


@cuda.jit
def prefix_row32(a):
    """Each row of a (ROW32 columns) replaced by its running sum, one thread a row."""
    r = cuda.grid(1)
    if r < a.shape[0]:
        acc = np.float32(0.0)
        for c in range(ROW32):
            acc += a[r, c]
            a[r, c] = acc


def _build_gelu(n, rng):
    a = rng.standard_normal(n, dtype=np.float32) * np.float32(2.0)
    x = a.astype(np.float64)
    want = 0.5 * x * (1.0 + np.tanh(0.7978845608 * (x + 0.044715 * x ** 3)))
    return Setup(_blocks(n), (BLOCK,), (a, np.zeros(n, np.float32)), expected={1: want.astype(np.float32)},
                 rtol=1e-5, atol=1e-5)


def _build_rotate(n, rng):
    x, y = (rng.standard_normal(n, dtype=np.float32) for _ in range(2))
    th = (rng.random(n, dtype=np.float32) * np.float32(6.2831853)).astype(np.float32)
    c, s = np.cos(th.astype(np.float64)), np.sin(th.astype(np.float64))
    ox, oy = c * x - s * y, s * x + c * y
    return Setup(_blocks(n), (BLOCK,), (x, y, th, np.zeros(n, np.float32), np.zeros(n, np.float32)),
                 expected={3: ox.astype(np.float32), 4: oy.astype(np.float32)}, rtol=1e-4, atol=1e-5)


def _build_newton(n, rng):
    a = rng.random(n) * 100.0 + 0.5
    x = (a + 1.0) * 0.5
    for _ in range(NEWTON):
        x = 0.5 * (x + a / x)
    return Setup(_blocks(n), (BLOCK,), (a, np.zeros(n)), expected={1: x}, rtol=1e-12, atol=0.0)


def _build_mix(n, rng):
    with np.errstate(over="ignore"):
        z = np.arange(n, dtype=np.uint64) + np.uint64(0x9E3779B97F4A7C15)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        want = z ^ (z >> np.uint64(31))
    return Setup(_blocks(n), (BLOCK,), (np.zeros(n, np.uint64),), expected={0: want}, rtol=0.0, atol=0.0)


def _build_quantize(n, rng):
    a = rng.standard_normal(n, dtype=np.float32)
    scale = np.float32(32.0)
    q = np.floor(a * scale + np.float32(0.5))   # exact in float32, FMA or not: the scale is a power of two
    want = np.clip(q, -127, 127).astype(np.int8)
    return Setup(_blocks(n), (BLOCK,), (a, np.zeros(n, np.int8), scale), expected={1: want}, rtol=0.0,
                 atol=1.0)


def _build_maxpool(n, rng):
    side = _side(n) // 2 * 2
    img = rng.random((side, side), dtype=np.float32)
    want = img.reshape(side // 2, 2, side // 2, 2).max(axis=(1, 3))
    return Setup(_grid2(side // 2, side // 2, 16, 16), (16, 16), (img, np.zeros((side // 2, side // 2), np.float32)),
                 expected={1: want}, rtol=0.0, atol=0.0)


def _build_crop(n, rng):
    side = _side(n)
    img = rng.random((side, side), dtype=np.float32)
    h, w = side - 8, side - 8
    want = img[CROP_Y:CROP_Y + h, CROP_X:CROP_X + w]
    return Setup(_grid2(w, h, 32, 8), (32, 8), (img, np.zeros((h, w), np.float32)), expected={1: want.copy()},
                 rtol=0.0, atol=0.0)


def _build_transpose(n, rng):
    side = _side(n)
    a = rng.random((side, side))
    return Setup(_grid2(side, side, 16, 16), (16, 16), (a, np.zeros((side, side))), expected={1: a.T.copy()},
                 rtol=0.0, atol=0.0)


def _build_lut(n, rng):
    idx = rng.integers(0, LUT, n).astype(np.uint8)
    table = rng.random(LUT, dtype=np.float32)
    return Setup(_blocks(n), (BLOCK,), (idx, table, np.zeros(n, np.float32)), expected={2: table[idx]},
                 rtol=0.0, atol=0.0)


def _build_collatz(n, rng):
    a = rng.integers(1, 1000, n).astype(np.int32)
    v = a.astype(np.int64)
    s = np.zeros(n, np.int64)
    for _ in range(COLLATZ):
        live = v != 1
        if not live.any():
            break
        v = np.where(live, np.where(v % 2 == 0, v // 2, 3 * v + 1), v)
        s += live
    return Setup(_blocks(n), (BLOCK,), (a, np.zeros(n, np.int32)), expected={1: s.astype(np.int32)}, rtol=0.0,
                 atol=0.0)


def _build_conv2d(n, rng):
    side = _side(n)
    img = rng.random((side, side), dtype=np.float32)
    w = (rng.random((5, 5), dtype=np.float32) / np.float32(25.0)).astype(np.float32)
    h = side - 4
    im = img.astype(np.float64)
    want = sum(float(w[dy, dx]) * im[dy:dy + h, dx:dx + h] for dy in range(5) for dx in range(5))
    return Setup(_grid2(h, h, 32, 8), (32, 8), (img, w, np.zeros((h, h), np.float32)),
                 expected={2: want.astype(np.float32)}, rtol=1e-5, atol=1e-6)


def _build_mat4(n, rng):
    pts = n // 4
    p = rng.standard_normal((pts, 4), dtype=np.float32)
    m = rng.standard_normal((4, 4), dtype=np.float32)
    want = p.astype(np.float64) @ m.T.astype(np.float64)
    return Setup(_blocks(pts), (BLOCK,), (p, m, np.zeros((pts, 4), np.float32)),
                 expected={2: want.astype(np.float32)}, rtol=1e-4, atol=1e-5)


def _build_interleave(n, rng):
    half = n // 2
    a, b = (rng.random(half, dtype=np.float32) for _ in range(2))
    want = np.empty(n, np.float32)
    want[0::2], want[1::2] = a, b
    return Setup(_blocks(half), (BLOCK,), (a, b, np.zeros(n, np.float32)), expected={2: want}, rtol=0.0,
                 atol=0.0)


def _build_deinterleave(n, rng):
    x = rng.random(n, dtype=np.float32)
    half = n // 2
    return Setup(_blocks(half), (BLOCK,), (x, np.zeros(half, np.float32), np.zeros(half, np.float32)),
                 expected={1: x[0::2].copy(), 2: x[1::2].copy()}, rtol=0.0, atol=0.0)


def _build_upper(n, rng):
    side = _side(n)
    a = rng.random((side, side), dtype=np.float32)
    want = np.triu(np.float32(2.0) * a)
    return Setup(_grid2(side, side, 32, 8), (32, 8), (a, np.zeros((side, side), np.float32)),
                 expected={1: want}, rtol=0.0, atol=0.0)


def _build_rowmax(n, rng):
    rows = max(1, n // ROWLEN)
    a = rng.standard_normal((rows, ROWLEN), dtype=np.float32)
    return Setup((rows,), (BLOCK,), (a, np.zeros(rows, np.float32)), expected={1: a.max(axis=1)}, rtol=0.0,
                 atol=0.0)


def _build_vadd_i64(n, rng):
    a = rng.integers(-(1 << 40), 1 << 40, n, dtype=np.int64)
    b = rng.integers(-(1 << 40), 1 << 40, n, dtype=np.int64)
    return Setup(_blocks(n, 128), (128,), (a, b, np.zeros(n, np.int64)), expected={2: a + b}, rtol=0.0,
                 atol=0.0)


def _build_prefix(n, rng):
    rows = n // ROW32
    a = rng.random((rows, ROW32), dtype=np.float32)
    want = np.cumsum(a.astype(np.float64), axis=1).astype(np.float32)
    return Setup(_blocks(rows), (BLOCK,), (a,), expected={0: want}, rtol=1e-5, atol=1e-5)


CASES = [
    Case("course", "gelu_tanh", gelu_tanh, _build_gelu, SIZES, "GELU, tanh form, element-wise"),
    Case("course", "rotate_sincos", rotate_sincos, _build_rotate, SIZES,
         "points rotated by their own angle (sin, cos; three streams in, two out)"),
    Case("course", "newton_f64", newton_f64, _build_newton, SIZES, "six Newton steps of a float64 square root"),
    Case("course", "mix_u64", mix_u64, _build_mix, SIZES, "splitmix64 of the thread index, uint64 out"),
    Case("course", "quantize_i8", quantize_i8, _build_quantize, SIZES, "float32 rounded and clamped to int8"),
    Case("course", "maxpool2x2", maxpool2x2, _build_maxpool, SIZES, "2x2 max pooling, 16x16 blocks"),
    Case("course", "crop_offset", crop_offset, _build_crop, SIZES, "an image window at (3, 5) copied out"),
    Case("course", "transpose_f64", transpose_f64, _build_transpose, SIZES,
         "naive float64 transpose, 16x16 blocks"),
    Case("course", "lut_shared", lut_shared, _build_lut, SIZES, "a byte-indexed table lookup in shared memory"),
    Case("course", "collatz", collatz, _build_collatz, COLLATZ_SIZES, "Collatz steps, a data-dependent loop per lane"),
    Case("course", "conv2d_5x5", conv2d_5x5, _build_conv2d, SIZES,
         "5x5 filter, weights read from global memory in the loop"),
    Case("course", "mat4_aos", mat4_aos, _build_mat4, SIZES, "4x4 matrix times array-of-structures points"),
    Case("course", "interleave2", interleave2, _build_interleave, SIZES, "two arrays interleaved into one"),
    Case("course", "deinterleave2", deinterleave2, _build_deinterleave, SIZES, "one array split into two"),
    Case("course", "upper_tri", upper_tri, _build_upper, SIZES,
         "upper triangle doubled, threads below the diagonal idle"),
    Case("course", "rowmax_block", rowmax_block, _build_rowmax, SIZES,
         "row maximum, one 256-thread block per 4096-element row"),
    Case("course", "vadd_i64", vadd_i64, _build_vadd_i64, SIZES, "int64 vector add, 128-thread blocks"),
    Case("course", "prefix_row32", prefix_row32, _build_prefix, SIZES,
         "running sum along each 32-element row, one thread a row, in place"),
]

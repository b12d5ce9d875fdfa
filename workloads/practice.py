"""Practice kernels: a seventh out-of-sample check of the timing model, written after ``lessons``.

What the family is for: like ``course`` and ``lessons`` before it, these kernels were written after every model
change of their day had landed (2026-11-29, the session after ``lessons``), measured once on the H200
(``docs/hardware/validate_hw.md``, the thirteenth call) and compared before anything changed for them (4.7% at
the test size, 5.6% at the full size: ``docs/timing_model.md``). They are
what students and engineers write in numba when they practise on their own problems (one element a thread,
short blocks, 2-D indexing, index arithmetic, small loops), and mix mechanisms in ways the other families do
not:

* ``clamp_branchy``: ``x`` clamped to ``[lo, hi]`` by an ``if``/``elif``/``else`` (all three in every warp);
* ``col_cumsum``: each thread walks down one column of a 64-row matrix writing the running sum (a coalesced
  load and store each step);
* ``pairwise_dist``: the distance matrix of 2-D points stored as ``(n, 2)`` records (16x16 blocks, a square
  root an output, write-bound);
* ``nbody_accel``: softened all-pairs accelerations of 256 to 2048 bodies, each thread looping over every
  body (``1 / sqrt``: a long dependent loop a thread, broadcast loads, few blocks);
* ``ell_spmv``: an ELLPACK sparse matrix times a vector, one thread a row, the padded arrays stored
  slot-major (coalesced), a banded gather of ``x``, padding skipped by ``col < 0``;
* ``double_gather``: ``out[i] = a[idx2[idx1[i]]]`` (two levels of indirection: three dependent loads);
* ``tile_sum_2d``: the sum of each 16x16 tile of an image by a shared-memory tree, one float a block;
* ``row_argmax``: the argmax of each 64-float row, one thread a row (loads 256 bytes apart, an int32 out);
* ``false_color_u8``: an 8-bit grey image to interleaved 8-bit RGB ``(g, 255 - g, g / 2)`` (byte stores
  3 bytes apart);
* ``normalize3_aos``: 3-vectors stored as ``(n, 3)`` float32 records scaled to unit length (12-byte stride);
* ``kmeans_assign``: each 2-D point labelled with the nearest of 16 centroids (a loop of broadcast loads and
  compares, int32 out);
* ``pad2d``: an image copied into a zero border 3 pixels wide (32x8 blocks; reads 3 words off their lines);
* ``life_step``: one step of Conway's game of life on a torus of bytes (16x16 blocks, nested ``range(-1, 2)``
  loops, 64-bit ``%`` for the wrap-around);
* ``thomas_batched``: a batch of 32-equation tridiagonal systems, one thread a system (interleaved, so every
  access is coalesced), forward sweep and back substitution through global memory;
* ``dequant_int4``: two 4-bit weights a byte to float32, minus 8 and times a scale per 64 weights;
* ``embedding_lookup``: rows of a 4096x64 table gathered by token ids (32x8 blocks, each warp a 128-byte half
  row).

Life of a case: ``build(n, rng)`` draws the inputs (``n`` elements, or an image, matrix or batch of about
``n``; ``nbody_accel`` takes the number of bodies), computes the expected output with numpy
(tolerances allow FMA contraction and float32 rounding) and returns the launch.
"""
import math

import numpy as np

from smsim import cuda
from smsim.case import Case, Setup
from workloads.plain import _blocks, _grid2, _side   # the launch-shape helpers (256-thread blocks there too)

BLOCK = 256
TILE = 16                  # tile_sum_2d's tile side, pairwise_dist's and life_step's blocks
TILE2 = 256                # tile_sum_2d's shared array (a module constant: numba needs a literal shape)
ROWS = 64                  # col_cumsum's rows
ROWLEN = 64                # row_argmax's row length
ELL_K = 8                  # ell_spmv's slots a row
ELL_BAND = 64              # ell_spmv's columns lie within this distance of the diagonal
GROUP = 64                 # dequant_int4's weights per scale
CENTROIDS = 16             # kmeans_assign's clusters
PAD = 3                    # pad2d's border
EQS = 32                   # thomas_batched's equations a system
VOCAB = 4096               # embedding_lookup's table rows
DIM = 64                   # and its row length
EPS2 = 0.01                # nbody_accel's softening (squared)
LO, HI = -0.5, 0.5         # clamp_branchy's bounds
SIZES = {"test": 1 << 15, "full": 1 << 24}
ELL_SIZES = {"test": 1 << 12, "full": 1 << 21}      # rows: 8 slots each (32K and 16M stored entries)
KMEANS_SIZES = {"test": 1 << 15, "full": 1 << 23}   # points (16 centroids each: 8M keeps the simulation short)
NBODY_SIZES = {"test": 256, "full": 2048}           # bodies (one thread loops over all: latency-bound)


@cuda.jit
def clamp_branchy(a, lo, hi, out):
    """out = lo where a < lo, hi where a > hi, else a (if/elif/else)."""
    i = cuda.grid(1)
    if i < a.shape[0]:
        x = a[i]
        if x < lo:
            out[i] = lo
        elif x > hi:
            out[i] = hi
        else:
            out[i] = x


@cuda.jit
def col_cumsum(m, out):
    """out[i, j] = m[0, j] + ... + m[i, j], one column a thread."""
    j = cuda.grid(1)
    if j < m.shape[1]:
        acc = np.float32(0.0)
        for i in range(m.shape[0]):
            acc += m[i, j]
            out[i, j] = acc


@cuda.jit
def pairwise_dist(p, out):
    """out[i, j] = |p[i] - p[j]| of 2-D points p[k] = (p[k, 0], p[k, 1])."""
    j, i = cuda.grid(2)
    n = p.shape[0]
    if i < n and j < n:
        dx = p[i, 0] - p[j, 0]
        dy = p[i, 1] - p[j, 1]
        out[i, j] = math.sqrt(dx * dx + dy * dy)


@cuda.jit
def nbody_accel(px, py, pz, ax, ay, az):
    """a_i = sum_j m (p_j - p_i) / (|p_j - p_i|^2 + EPS2)^(3/2), m = 1 / n, one body a thread."""
    i = cuda.grid(1)
    n = px.shape[0]
    if i < n:
        xi = px[i]
        yi = py[i]
        zi = pz[i]
        sx = np.float32(0.0)
        sy = np.float32(0.0)
        sz = np.float32(0.0)
        for j in range(n):
            dx = px[j] - xi
            dy = py[j] - yi
            dz = pz[j] - zi
            r2 = dx * dx + dy * dy + dz * dz + np.float32(EPS2)
            inv = np.float32(1.0) / math.sqrt(r2)
            inv3 = inv * inv * inv
            sx += dx * inv3
            sy += dy * inv3
            sz += dz * inv3
        m = np.float32(1.0) / np.float32(n)
        ax[i] = sx * m
        ay[i] = sy * m
        az[i] = sz * m


@cuda.jit
def ell_spmv(vals, cols, x, y):
    """y[r] = sum_k vals[k, r] x[cols[k, r]] over the slots with cols[k, r] >= 0."""
    r = cuda.grid(1)
    if r < y.shape[0]:
        acc = np.float32(0.0)
        for k in range(vals.shape[0]):
            c = cols[k, r]
            if c >= 0:
                acc += vals[k, r] * x[c]
        y[r] = acc


@cuda.jit
def double_gather(a, idx1, idx2, out):
    """out[i] = a[idx2[idx1[i]]]."""
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = a[idx2[idx1[i]]]


@cuda.jit
def tile_sum_2d(img, out):
    """out[by, bx] = the sum of the TILE x TILE tile of img at (by, bx), by a shared tree."""
    s = cuda.shared.array(TILE2, np.float32)
    x, y = cuda.grid(2)
    t = cuda.threadIdx.y * TILE + cuda.threadIdx.x
    v = np.float32(0.0)
    if y < img.shape[0] and x < img.shape[1]:
        v = img[y, x]
    s[t] = v
    cuda.syncthreads()
    h = TILE2 // 2
    while h > 0:
        if t < h:
            s[t] += s[t + h]
        cuda.syncthreads()
        h //= 2
    if t == 0:
        out[cuda.blockIdx.y, cuda.blockIdx.x] = s[0]


@cuda.jit
def row_argmax(a, out):
    """out[r] = the first column of row r's maximum, one thread a row."""
    r = cuda.grid(1)
    if r < a.shape[0]:
        best = a[r, 0]
        arg = 0
        for c in range(1, a.shape[1]):
            v = a[r, c]
            if v > best:
                best = v
                arg = c
        out[r] = arg


@cuda.jit
def false_color_u8(gray, rgb):
    """rgb[3 i: 3 i + 3] = (g, 255 - g, g // 2) for g = gray[i]."""
    i = cuda.grid(1)
    if i < gray.shape[0]:
        g = gray[i]
        rgb[3 * i] = g
        rgb[3 * i + 1] = 255 - g
        rgb[3 * i + 2] = g >> 1


@cuda.jit
def normalize3_aos(v, out):
    """out[i] = v[i] / |v[i]| for (n, 3) float32 records."""
    i = cuda.grid(1)
    if i < v.shape[0]:
        x = v[i, 0]
        y = v[i, 1]
        z = v[i, 2]
        inv = np.float32(1.0) / math.sqrt(x * x + y * y + z * z)
        out[i, 0] = x * inv
        out[i, 1] = y * inv
        out[i, 2] = z * inv


@cuda.jit
def kmeans_assign(px, py, cx, cy, label):
    """label[i] = the index of the centroid nearest to (px[i], py[i])."""
    i = cuda.grid(1)
    if i < px.shape[0]:
        x = px[i]
        y = py[i]
        best = np.float32(3.0e38)
        arg = 0
        for k in range(cx.shape[0]):
            dx = x - cx[k]
            dy = y - cy[k]
            d = dx * dx + dy * dy
            if d < best:
                best = d
                arg = k
        label[i] = arg


@cuda.jit
def pad2d(img, out):
    """out = img inside a zero border PAD pixels wide."""
    x, y = cuda.grid(2)
    h = img.shape[0]
    w = img.shape[1]
    if y < out.shape[0] and x < out.shape[1]:
        if y >= PAD and y < h + PAD and x >= PAD and x < w + PAD:
            out[y, x] = img[y - PAD, x - PAD]
        else:
            out[y, x] = np.float32(0.0)


@cuda.jit
def life_step(grid, out):
    """One game-of-life step of a torus of 0/1 bytes."""
    x, y = cuda.grid(2)
    h = grid.shape[0]
    w = grid.shape[1]
    if y < h and x < w:
        live = 0
        for dy in range(-1, 2):
            for dx in range(-1, 2):
                if dy != 0 or dx != 0:
                    live += grid[(y + dy + h) % h, (x + dx + w) % w]
        if live == 3 or (live == 2 and grid[y, x] == 1):
            out[y, x] = 1
        else:
            out[y, x] = 0


@cuda.jit
def thomas_batched(a, b, c, d, cp, x):
    """Solve a[k] x[k-1] + b[k] x[k] + c[k] x[k+1] = d[k] for system s = the thread (arrays (EQS, systems))."""
    s = cuda.grid(1)
    if s < x.shape[1]:
        m = b.shape[0]
        cp[0, s] = c[0, s] / b[0, s]
        x[0, s] = d[0, s] / b[0, s]
        for k in range(1, m):
            r = np.float32(1.0) / (b[k, s] - a[k, s] * cp[k - 1, s])
            cp[k, s] = c[k, s] * r
            x[k, s] = (d[k, s] - a[k, s] * x[k - 1, s]) * r
        k = m - 2
        while k >= 0:
            x[k, s] -= cp[k, s] * x[k + 1, s]
            k -= 1


@cuda.jit
def dequant_int4(q, scale, out):
    """out[2 i] = ((q[i] & 15) - 8) s, out[2 i + 1] = ((q[i] >> 4) - 8) s, s = scale[2 i // GROUP]."""
    i = cuda.grid(1)
    if i < q.shape[0]:
        v = q[i]
        s = scale[(2 * i) // GROUP]
        out[2 * i] = np.float32((v & 15) - 8) * s
        out[2 * i + 1] = np.float32((v >> 4) - 8) * s


@cuda.jit
def embedding_lookup(table, ids, out):
    """out[t, x] = table[ids[t], x]."""
    x, t = cuda.grid(2)
    if t < out.shape[0] and x < out.shape[1]:
        out[t, x] = table[ids[t], x]


def _build_clamp(n, rng):
    a = rng.standard_normal(n, dtype=np.float32)
    lo, hi = np.float32(LO), np.float32(HI)
    return Setup(_blocks(n), (BLOCK,), (a, lo, hi, np.zeros(n, np.float32)), expected={3: np.clip(a, lo, hi)},
                 rtol=0.0, atol=0.0)


def _build_cumsum(n, rng):
    cols = max(1, n // ROWS)
    m = rng.random((ROWS, cols), dtype=np.float32)
    want = np.cumsum(m.astype(np.float64), axis=0).astype(np.float32)
    return Setup(_blocks(cols), (BLOCK,), (m, np.zeros((ROWS, cols), np.float32)), expected={1: want},
                 rtol=1e-5, atol=1e-6)


def _build_pairwise(n, rng):
    k = _side(n)
    p = rng.random((k, 2), dtype=np.float32)
    d = p.astype(np.float64)[:, None, :] - p.astype(np.float64)[None, :, :]
    want = np.sqrt((d * d).sum(axis=2)).astype(np.float32)
    return Setup(_grid2(k, k, TILE, TILE), (TILE, TILE), (p, np.zeros((k, k), np.float32)), expected={1: want},
                 rtol=1e-5, atol=1e-6)


def _build_nbody(n, rng):
    px, py, pz = (rng.random(n, dtype=np.float32) for _ in range(3))
    p = np.stack([px, py, pz], axis=1).astype(np.float64)
    acc = np.zeros((n, 3))
    for s in range(0, n, 256):                          # 256 bodies at a time (bounded memory)
        d = p[None, :, :] - p[s:s + 256, None, :]
        r2 = (d * d).sum(axis=2) + EPS2
        acc[s:s + 256] = (d * (r2 ** -1.5)[:, :, None]).sum(axis=1) / n
    out = tuple(np.zeros(n, np.float32) for _ in range(3))
    want = {3 + k: acc[:, k].astype(np.float32) for k in range(3)}
    return Setup(_blocks(n), (BLOCK,), (px, py, pz, *out), expected=want, rtol=1e-3, atol=1e-4)


def _build_ell(n, rng):
    rows = n
    nnz = rng.integers(2, ELL_K + 1, rows)
    off = rng.integers(-ELL_BAND, ELL_BAND + 1, (ELL_K, rows))
    cols = np.clip(np.arange(rows)[None, :] + off, 0, rows - 1)
    used = np.arange(ELL_K)[:, None] < nnz[None, :]
    cols = np.where(used, cols, -1).astype(np.int32)
    vals = np.where(used, rng.standard_normal((ELL_K, rows)), 0.0).astype(np.float32)
    x = rng.standard_normal(rows, dtype=np.float32)
    want = (vals.astype(np.float64) * x.astype(np.float64)[np.maximum(cols, 0)]).sum(axis=0).astype(np.float32)
    return Setup(_blocks(rows), (BLOCK,), (vals, cols, x, np.zeros(rows, np.float32)), expected={3: want},
                 rtol=1e-5, atol=1e-5)


def _build_double_gather(n, rng):
    a = rng.random(n, dtype=np.float32)
    idx1 = np.concatenate([w + rng.permutation(min(BLOCK, n - w)) for w in range(0, n, BLOCK)]).astype(np.int32)
    idx2 = rng.permutation(n).astype(np.int32)
    return Setup(_blocks(n), (BLOCK,), (a, idx1, idx2, np.zeros(n, np.float32)), expected={3: a[idx2[idx1]]},
                 rtol=0.0, atol=0.0)


def _build_tile_sum(n, rng):
    side = _side(n) // TILE * TILE
    img = rng.random((side, side), dtype=np.float32)
    t = side // TILE
    want = img.astype(np.float64).reshape(t, TILE, t, TILE).sum(axis=(1, 3)).astype(np.float32)
    return Setup((t, t), (TILE, TILE), (img, np.zeros((t, t), np.float32)), expected={1: want}, rtol=1e-5,
                 atol=1e-6)


def _build_argmax(n, rng):
    rows = max(1, n // ROWLEN)
    a = rng.random((rows, ROWLEN), dtype=np.float32)
    return Setup(_blocks(rows), (BLOCK,), (a, np.zeros(rows, np.int32)),
                 expected={1: np.argmax(a, axis=1).astype(np.int32)}, rtol=0.0, atol=0.0)


def _build_false_color(n, rng):
    g = rng.integers(0, 256, n).astype(np.uint8)
    want = np.stack([g, 255 - g, g >> 1], axis=1).reshape(-1).astype(np.uint8)
    return Setup(_blocks(n), (BLOCK,), (g, np.zeros(3 * n, np.uint8)), expected={1: want}, rtol=0.0, atol=0.0)


def _build_normalize3(n, rng):
    v = rng.standard_normal((n, 3), dtype=np.float32)
    v[:, 0] += np.float32(0.5) * np.sign(v[:, 0]) + np.float32(0.25)   # no vector near zero
    v64 = v.astype(np.float64)
    want = (v64 / np.sqrt((v64 * v64).sum(axis=1, keepdims=True))).astype(np.float32)
    return Setup(_blocks(n), (BLOCK,), (v, np.zeros((n, 3), np.float32)), expected={1: want}, rtol=1e-5,
                 atol=1e-6)


def _build_kmeans(n, rng):
    cx, cy = (rng.random(CENTROIDS, dtype=np.float32) for _ in range(2))
    px, py = (rng.random(n, dtype=np.float32) for _ in range(2))
    d = ((px[:, None].astype(np.float64) - cx[None, :]) ** 2 + (py[:, None].astype(np.float64) - cy[None, :]) ** 2)
    part = np.partition(d, 1, axis=1)
    near = part[:, 1] - part[:, 0] < 1e-4           # a near tie: float32 rounding could pick either centroid
    lab = np.argmin(d, axis=1)
    px[near] = cx[lab[near]]                        # such points are moved onto their centroid
    py[near] = cy[lab[near]]
    d = ((px[:, None].astype(np.float64) - cx[None, :]) ** 2 + (py[:, None].astype(np.float64) - cy[None, :]) ** 2)
    want = np.argmin(d, axis=1).astype(np.int32)
    return Setup(_blocks(n), (BLOCK,), (px, py, cx, cy, np.zeros(n, np.int32)), expected={4: want}, rtol=0.0,
                 atol=0.0)


def _build_pad(n, rng):
    side = _side(n) - 2 * PAD
    img = rng.random((side, side), dtype=np.float32) + np.float32(1.0)
    want = np.pad(img, PAD)
    out = np.full(want.shape, -1.0, np.float32)     # the border must be written, not left as it was
    return Setup(_grid2(want.shape[1], want.shape[0], 32, 8), (32, 8), (img, out), expected={1: want}, rtol=0.0,
                 atol=0.0)


def _build_life(n, rng):
    side = _side(n)
    g = (rng.random((side, side)) < 0.35).astype(np.uint8)
    live = sum(np.roll(np.roll(g.astype(np.int32), dy, axis=0), dx, axis=1)
               for dy in (-1, 0, 1) for dx in (-1, 0, 1) if dy or dx)
    want = ((live == 3) | ((live == 2) & (g == 1))).astype(np.uint8)
    return Setup(_grid2(side, side, TILE, TILE), (TILE, TILE), (g, np.full((side, side), 2, np.uint8)),
                 expected={1: want}, rtol=0.0, atol=0.0)


def _build_thomas(n, rng):
    systems = max(1, n // EQS)
    a = rng.uniform(-1.0, 1.0, (EQS, systems)).astype(np.float32)
    c = rng.uniform(-1.0, 1.0, (EQS, systems)).astype(np.float32)
    b = rng.uniform(3.0, 4.0, (EQS, systems)).astype(np.float32)   # diagonally dominant: a stable sweep
    d = rng.standard_normal((EQS, systems), dtype=np.float32)
    a[0] = 0.0
    c[-1] = 0.0
    a64, b64, c64, d64 = (v.astype(np.float64) for v in (a, b, c, d))
    cp = np.zeros_like(b64)
    x = np.zeros_like(b64)
    cp[0] = c64[0] / b64[0]
    x[0] = d64[0] / b64[0]
    for k in range(1, EQS):
        r = 1.0 / (b64[k] - a64[k] * cp[k - 1])
        cp[k] = c64[k] * r
        x[k] = (d64[k] - a64[k] * x[k - 1]) * r
    for k in range(EQS - 2, -1, -1):
        x[k] -= cp[k] * x[k + 1]
    return Setup(_blocks(systems), (BLOCK,),
                 (a, b, c, d, np.zeros((EQS, systems), np.float32), np.zeros((EQS, systems), np.float32)),
                 expected={5: x.astype(np.float32)}, rtol=1e-4, atol=1e-5)


def _build_dequant(n, rng):
    q = rng.integers(0, 256, n // 2).astype(np.uint8)
    scale = (rng.random(n // GROUP, dtype=np.float32) * np.float32(0.1) + np.float32(0.01)).astype(np.float32)
    w = np.stack([(q & 15).astype(np.int32) - 8, (q >> 4).astype(np.int32) - 8], axis=1).reshape(-1)
    want = (w.astype(np.float32) * np.repeat(scale, GROUP)).astype(np.float32)
    return Setup(_blocks(n // 2), (BLOCK,), (q, scale, np.zeros(n, np.float32)), expected={2: want}, rtol=0.0,
                 atol=0.0)


def _build_embedding(n, rng):
    tokens = max(1, n // DIM)
    table = rng.standard_normal((VOCAB, DIM), dtype=np.float32)
    ids = rng.integers(0, VOCAB, tokens).astype(np.int32)
    return Setup(_grid2(DIM, tokens, 32, 8), (32, 8), (table, ids, np.zeros((tokens, DIM), np.float32)),
                 expected={2: table[ids]}, rtol=0.0, atol=0.0)


CASES = [
    Case("practice", "clamp_branchy", clamp_branchy, _build_clamp, SIZES,
         "a clamp to [-0.5, 0.5] written as if/elif/else"),
    Case("practice", "col_cumsum", col_cumsum, _build_cumsum, SIZES,
         "running sum down each column of a 64-row matrix, one thread a column"),
    Case("practice", "pairwise_dist", pairwise_dist, _build_pairwise, SIZES,
         "distance matrix of (n, 2) float32 points, 16x16 blocks"),
    Case("practice", "nbody_accel", nbody_accel, _build_nbody, NBODY_SIZES,
         "softened all-pairs n-body accelerations, one body a thread (1 / sqrt)"),
    Case("practice", "ell_spmv", ell_spmv, _build_ell, ELL_SIZES,
         "ELLPACK sparse matrix-vector product, 8 slot-major slots a row, banded columns"),
    Case("practice", "double_gather", double_gather, _build_double_gather, SIZES,
         "out[i] = a[idx2[idx1[i]]]: idx1 permuted within blocks, idx2 random"),
    Case("practice", "tile_sum_2d", tile_sum_2d, _build_tile_sum, SIZES,
         "each 16x16 tile's sum by a shared tree, one float a block"),
    Case("practice", "row_argmax", row_argmax, _build_argmax, SIZES,
         "argmax of each 64-float row, one thread a row, int32 out"),
    Case("practice", "false_color_u8", false_color_u8, _build_false_color, SIZES,
         "8-bit grey to interleaved 8-bit RGB (g, 255 - g, g / 2)"),
    Case("practice", "normalize3_aos", normalize3_aos, _build_normalize3, SIZES,
         "(n, 3) float32 vectors scaled to unit length"),
    Case("practice", "kmeans_assign", kmeans_assign, _build_kmeans, KMEANS_SIZES,
         "nearest of 16 centroids for each 2-D point, int32 labels"),
    Case("practice", "pad2d", pad2d, _build_pad, SIZES, "an image copied inside a 3-pixel zero border, 32x8 blocks"),
    Case("practice", "life_step", life_step, _build_life, SIZES,
         "one game-of-life step on a torus of bytes, 16x16 blocks"),
    Case("practice", "thomas_batched", thomas_batched, _build_thomas, SIZES,
         "batched 32-equation tridiagonal solves, one thread a system, interleaved"),
    Case("practice", "dequant_int4", dequant_int4, _build_dequant, SIZES,
         "4-bit weights (two a byte) to float32 with a scale per 64"),
    Case("practice", "embedding_lookup", embedding_lookup, _build_embedding, SIZES,
         "rows of a 4096x64 float32 table gathered by token ids, 32x8 blocks"),
]

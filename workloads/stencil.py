"""Stencils: each output reads a neighbourhood of inputs, so neighbouring threads re-read the same data.

What the family teaches: a naive stencil loads every input from global memory once per output that needs it
(nine loads per pixel for a 3x3 Sobel filter; the caches catch most of the re-reads, but every load is still an
L1 request); a shared-memory tile with a halo loads each input about once per block and serves the
re-reads from shared memory, at the price of a barrier and some idle threads while the halo loads.

Life of a case: ``build(n, rng)`` makes a float32 ``n x n`` image (or an ``n``-element 1D signal) of random
values in [0, 1), launches 16x16 blocks over the image (256-thread blocks over the signal), and expects the
filter's output at interior positions and 0 (the untouched initial value) on the border, where the
neighbourhood would leave the input. The numpy reference evaluates the same float32 expressions in the same
order, so the outputs match exactly (multiplications are by 2 only, so FMA contraction cannot change a result).
"""
import numpy as np

from smsim import cuda
from smsim.case import Case, Setup


TILE = 16                     # 2D block edge: 16x16 threads
HALO_TILE = TILE + 2          # 18x18 shared tile: the block's pixels plus a 1-pixel halo
HALO_TILE_ELEMS = HALO_TILE * HALO_TILE
RADIUS = 3                    # 1D stencil radius
BLOCK_1D = 256
SHARED_1D = BLOCK_1D + 2 * RADIUS


@cuda.jit
def sobel_naive(img, out):
    """Sobel |gx| + |gy| straight from global memory: 9 loads per pixel, neighbours re-read through L1."""
    x, y = cuda.grid(2)
    h = img.shape[0]
    w = img.shape[1]
    if 1 <= x < w - 1 and 1 <= y < h - 1:
        gx = (img[y - 1, x + 1] + np.float32(2) * img[y, x + 1] + img[y + 1, x + 1]) \
            - (img[y - 1, x - 1] + np.float32(2) * img[y, x - 1] + img[y + 1, x - 1])
        gy = (img[y + 1, x - 1] + np.float32(2) * img[y + 1, x] + img[y + 1, x + 1]) \
            - (img[y - 1, x - 1] + np.float32(2) * img[y - 1, x] + img[y - 1, x + 1])
        out[y, x] = abs(gx) + abs(gy)


@cuda.jit
def sobel_shared(img, out):
    """Sobel from an 18x18 shared tile (block plus halo): each pixel loaded from global ~1.27 times per block."""
    tile = cuda.shared.array((HALO_TILE, HALO_TILE), np.float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    h = img.shape[0]
    w = img.shape[1]
    x0 = cuda.blockIdx.x * TILE - 1          # image column of tile[:, 0]
    y0 = cuda.blockIdx.y * TILE - 1          # image row of tile[0, :]
    # 256 threads fill the 324-element tile in row-major order (coalesced rows); outside the image: 0
    for k in range(ty * TILE + tx, HALO_TILE_ELEMS, TILE * TILE):
        r = k // HALO_TILE
        c = k % HALO_TILE
        gy = y0 + r
        gx = x0 + c
        v = np.float32(0)
        if 0 <= gy < h and 0 <= gx < w:
            v = img[gy, gx]
        tile[r, c] = v
    cuda.syncthreads()
    x = x0 + 1 + tx
    y = y0 + 1 + ty
    if 1 <= x < w - 1 and 1 <= y < h - 1:
        r = ty + 1
        c = tx + 1
        gx = (tile[r - 1, c + 1] + np.float32(2) * tile[r, c + 1] + tile[r + 1, c + 1]) \
            - (tile[r - 1, c - 1] + np.float32(2) * tile[r, c - 1] + tile[r + 1, c - 1])
        gy = (tile[r + 1, c - 1] + np.float32(2) * tile[r + 1, c] + tile[r + 1, c + 1]) \
            - (tile[r - 1, c - 1] + np.float32(2) * tile[r - 1, c] + tile[r - 1, c + 1])
        out[y, x] = abs(gx) + abs(gy)


@cuda.jit
def stencil_1d(a, out):
    """1D sum over a radius-3 window from a shared array with a halo: 1 coalesced load per element plus 6 halo."""
    temp = cuda.shared.array(SHARED_1D, np.float32)
    n = a.shape[0]
    tid = cuda.threadIdx.x
    g = cuda.grid(1)
    li = tid + RADIUS
    v = np.float32(0)
    if g < n:
        v = a[g]
    temp[li] = v
    if tid < RADIUS:                          # the first RADIUS threads also load both halos
        left = np.float32(0)
        if g >= RADIUS and g - RADIUS < n:
            left = a[g - RADIUS]
        temp[li - RADIUS] = left
        right = np.float32(0)
        if g + BLOCK_1D < n:
            right = a[g + BLOCK_1D]
        temp[li + BLOCK_1D] = right
    cuda.syncthreads()
    if RADIUS <= g < n - RADIUS:
        acc = np.float32(0)
        for off in range(-RADIUS, RADIUS + 1):
            acc += temp[li + off]
        out[g] = acc


# ---------------------------------------------------------------------------------------- references
def ref_sobel_naive(img):
    """|gx| + |gy| at interior pixels, in the kernel's float32 operation order; 0 on the border."""
    img = img.astype(np.float32)
    two = np.float32(2)
    up, mid, down = img[:-2], img[1:-1], img[2:]
    gx = (up[:, 2:] + two * mid[:, 2:] + down[:, 2:]) - (up[:, :-2] + two * mid[:, :-2] + down[:, :-2])
    gy = (down[:, :-2] + two * down[:, 1:-1] + down[:, 2:]) - (up[:, :-2] + two * up[:, 1:-1] + up[:, 2:])
    out = np.zeros_like(img)
    out[1:-1, 1:-1] = np.abs(gx) + np.abs(gy)
    return out


ref_sobel_shared = ref_sobel_naive


def ref_stencil_1d(a):
    """Sum of a[i-3..i+3] (left to right, float32) for 3 <= i < n-3; 0 elsewhere."""
    n = len(a)
    out = np.zeros_like(a)
    acc = np.zeros(n - 2 * RADIUS, np.float32)
    for off in range(-RADIUS, RADIUS + 1):
        acc = acc + a[RADIUS + off:n - RADIUS + off]
    out[RADIUS:n - RADIUS] = acc
    return out


# ---------------------------------------------------------------------------------------- cases
def _build_sobel(ref):
    def build(n, rng):
        img = rng.random((n, n), dtype=np.float32)
        out = np.zeros((n, n), np.float32)
        blocks = -(-n // TILE)
        return Setup(grid=(blocks, blocks), block=(TILE, TILE), args=(img, out), expected={1: ref(img)},
                     rtol=1e-6, atol=0.0)
    return build


def _build_stencil_1d(n, rng):
    a = rng.random(n, dtype=np.float32)
    out = np.zeros(n, np.float32)
    return Setup(grid=(-(-n // BLOCK_1D),), block=(BLOCK_1D,), args=(a, out), expected={1: ref_stencil_1d(a)},
                 rtol=1e-6, atol=0.0)


CASES = [
    Case("stencil", "sobel_naive", sobel_naive, _build_sobel(ref_sobel_naive), {"test": 64, "full": 4096},
         "3x3 Sobel |gx|+|gy| on an n x n float32 image, 9 global loads per pixel, 16x16 blocks"),
    Case("stencil", "sobel_shared", sobel_shared, _build_sobel(ref_sobel_shared), {"test": 64, "full": 4096},
         "3x3 Sobel from an 18x18 shared tile with a 1-pixel halo, 16x16 blocks"),
    Case("stencil", "stencil_1d", stencil_1d, _build_stencil_1d, {"test": 4096, "full": 1 << 24},
         "1D radius-3 window sum from a shared array of 256+6 floats (halo loaded by 3 threads)"),
]

"""Matmul family: C = A @ B for square float32 matrices, from naive to shared-memory tiles.

The naive kernel gives each thread one element of C and reads a row of A and a column of B from global
memory: 2n loads per output, each element of A and B read n times. Which thread index drives which matrix
index decides coalescing: with ``col`` from ``threadIdx.x`` a warp reads consecutive B elements and
broadcasts one A element (``naive``); swapping the mapping (``naive_swapped``, ``row`` from ``threadIdx.x``)
makes every A load and every C store strided. Tiling stages TILE x TILE blocks of A and B in shared memory,
cutting global traffic by a factor of TILE (``tiled16``, ``tiled32``). A tiled variant that keeps the B tile
k-major (``sBt[col][k]``, so the inner product reads both tiles along a row) reads shared memory with a
stride of TILE words: a 32-way bank conflict for TILE = 32, removed by padding the tile to TILE x (TILE+1)
(``tiled32_bt`` vs ``tiled32_bt_padded``).

Life of a case: ``build(n, rng)`` draws ``n x n`` float32 matrices A and B (``n`` a multiple of the tile),
computes the expected C with the numpy reference (float64 accumulation, compared with a tolerance that grows
with sqrt(n)) and returns a 2D launch of ``(n/bs, n/bs)`` blocks of ``bs x bs`` threads, one C element per
thread.
"""
import numpy as np

from smsim import cuda
from smsim.case import Case, Setup


BS = 16             # block side of the naive kernels
TILE16 = 16
TILE32 = 32
TILE32_PAD = TILE32 + 1


@cuda.jit
def naive(a, b, c):
    """One thread per C element, col from threadIdx.x: B loads coalesced, A loads broadcast within a row."""
    row = cuda.blockIdx.y * cuda.blockDim.y + cuda.threadIdx.y
    col = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x
    n = c.shape[0]
    if row < n and col < n:
        acc = np.float32(0)
        for k in range(n):
            acc += a[row, k] * b[k, col]
        c[row, col] = acc


@cuda.jit
def naive_swapped(a, b, c):
    """One thread per C element, row from threadIdx.x: A loads and C stores strided by n (uncoalesced)."""
    row = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x
    col = cuda.blockIdx.y * cuda.blockDim.y + cuda.threadIdx.y
    n = c.shape[0]
    if row < n and col < n:
        acc = np.float32(0)
        for k in range(n):
            acc += a[row, k] * b[k, col]
        c[row, col] = acc


@cuda.jit
def tiled16(a, b, c):
    """16x16 shared tiles of A and B: coalesced tile loads, n/16 fewer global loads, conflict-free reads."""
    sa = cuda.shared.array((TILE16, TILE16), np.float32)
    sb = cuda.shared.array((TILE16, TILE16), np.float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    row = cuda.blockIdx.y * TILE16 + ty
    col = cuda.blockIdx.x * TILE16 + tx
    n = c.shape[0]
    acc = np.float32(0)
    for t in range(0, n, TILE16):
        sa[ty, tx] = a[row, t + tx]
        sb[ty, tx] = b[t + ty, col]
        cuda.syncthreads()
        for k in range(TILE16):
            acc += sa[ty, k] * sb[k, tx]
        cuda.syncthreads()
    c[row, col] = acc


@cuda.jit
def tiled32(a, b, c):
    """32x32 shared tiles of A and B: coalesced tile loads, n/32 fewer global loads, conflict-free reads."""
    sa = cuda.shared.array((TILE32, TILE32), np.float32)
    sb = cuda.shared.array((TILE32, TILE32), np.float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    row = cuda.blockIdx.y * TILE32 + ty
    col = cuda.blockIdx.x * TILE32 + tx
    n = c.shape[0]
    acc = np.float32(0)
    for t in range(0, n, TILE32):
        sa[ty, tx] = a[row, t + tx]
        sb[ty, tx] = b[t + ty, col]
        cuda.syncthreads()
        for k in range(TILE32):
            acc += sa[ty, k] * sb[k, tx]
        cuda.syncthreads()
    c[row, col] = acc


@cuda.jit
def tiled32_bt(a, b, c):
    """32x32 tiles with the B tile stored k-major (sbt[col, k]): writing and reading it column-wise is a
    32-way shared-memory bank conflict (32 wavefronts per access)."""
    sa = cuda.shared.array((TILE32, TILE32), np.float32)
    sbt = cuda.shared.array((TILE32, TILE32), np.float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    row = cuda.blockIdx.y * TILE32 + ty
    col = cuda.blockIdx.x * TILE32 + tx
    n = c.shape[0]
    acc = np.float32(0)
    for t in range(0, n, TILE32):
        sa[ty, tx] = a[row, t + tx]
        sbt[tx, ty] = b[t + ty, col]
        cuda.syncthreads()
        for k in range(TILE32):
            acc += sa[ty, k] * sbt[tx, k]
        cuda.syncthreads()
    c[row, col] = acc


@cuda.jit
def tiled32_bt_padded(a, b, c):
    """As tiled32_bt with the B tile padded to 32x33: column-wise accesses hit 32 different banks (no conflict)."""
    sa = cuda.shared.array((TILE32, TILE32), np.float32)
    sbt = cuda.shared.array((TILE32, TILE32_PAD), np.float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    row = cuda.blockIdx.y * TILE32 + ty
    col = cuda.blockIdx.x * TILE32 + tx
    n = c.shape[0]
    acc = np.float32(0)
    for t in range(0, n, TILE32):
        sa[ty, tx] = a[row, t + tx]
        sbt[tx, ty] = b[t + ty, col]
        cuda.syncthreads()
        for k in range(TILE32):
            acc += sa[ty, k] * sbt[tx, k]
        cuda.syncthreads()
    c[row, col] = acc


def ref_matmul(a, b):
    return (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float32)


def _build(side):
    def build(n, rng):
        if n % side:
            raise ValueError(f"n = {n} is not a multiple of the block/tile side {side}")
        a = rng.uniform(-1, 1, (n, n)).astype(np.float32)
        b = rng.uniform(-1, 1, (n, n)).astype(np.float32)
        c = np.zeros((n, n), np.float32)
        return Setup((n // side, n // side), (side, side), (a, b, c), expected={2: ref_matmul(a, b)},
                     rtol=1e-4, atol=1e-4 * float(np.sqrt(n)))
    return build


SIZES = {"test": 64, "full": 2048}

CASES = [
    Case("matmul", "naive", naive, _build(BS), sizes=SIZES,
         description="one thread per C element, 16x16 blocks, col from threadIdx.x: coalesced B, broadcast A"),
    Case("matmul", "naive_swapped", naive_swapped, _build(BS), sizes=SIZES,
         description="one thread per C element, 16x16 blocks, row from threadIdx.x: uncoalesced A loads, C stores"),
    Case("matmul", "tiled16", tiled16, _build(TILE16), sizes=SIZES,
         description="16x16 shared tiles of A and B: global loads cut 16x, conflict-free shared reads"),
    Case("matmul", "tiled32", tiled32, _build(TILE32), sizes=SIZES,
         description="32x32 shared tiles of A and B (1024-thread blocks): global loads cut 32x"),
    Case("matmul", "tiled32_bt", tiled32_bt, _build(TILE32), sizes=SIZES,
         description="32x32 tiles, B tile k-major and unpadded: 32-way bank conflicts on every B tile access"),
    Case("matmul", "tiled32_bt_padded", tiled32_bt_padded, _build(TILE32), sizes=SIZES,
         description="32x32 tiles, B tile k-major padded to 32x33: conflict-free"),
]

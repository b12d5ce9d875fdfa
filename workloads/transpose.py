"""Transpose family: the kernels of NVIDIA's "An Efficient Matrix Transpose in CUDA C/C++" (Mark Harris).

A transpose reads rows and writes columns, so one side of a naive kernel is always strided: a warp's 32
accesses to one column of a row-major float32 matrix touch 32 sectors for 128 useful bytes. The article's
ladder, each rung a case here: ``copy`` (the bandwidth ceiling: coalesced both ways), ``copy_shared`` (the
same through a shared tile: the cost of staging), ``naive`` (coalesced reads, strided writes),
``naive_strided_reads`` (strided reads, coalesced writes), ``tiled`` (a 32x32 shared tile makes both global
sides coalesced, but reading the tile by column is a 32-way shared-memory bank conflict) and
``tiled_padded`` (a 32x33 tile shifts each row by one bank: conflict-free).

Two thread-block shapes: the article's 32x8 blocks in which each thread moves 4 elements of a 32x32 tile
(``TILE_DIM = 32``, ``BLOCK_ROWS = 8``; unsuffixed names) and 32x32 blocks with one element per thread
(suffix ``_32x32``). Matrices are square float32, ``n`` a multiple of 32 (as in the article, no bounds checks).

Life of a case: ``build(n, rng)`` draws an ``n x n`` float32 matrix, computes the expected output with the
numpy reference (``inp.T`` or ``inp`` for the copies) and returns a 2D launch of ``(n/32, n/32)`` blocks of
32x8 (or 32x32) threads; block (bx, by) handles the 32x32 tile whose top-left element is (32*by, 32*bx).
"""
import numpy as np

from smsim import cuda
from smsim.case import Case, Setup


TILE_DIM = 32
BLOCK_ROWS = 8
TILE_PAD = TILE_DIM + 1     # padded tile row length: consecutive rows start one bank apart


# --- 32x8 blocks, 4 elements per thread (the article's scheme) -----------------------------------------

@cuda.jit
def copy(out, inp):
    """out = inp through registers: coalesced reads and writes (4 sectors per request), the ceiling."""
    x = cuda.blockIdx.x * TILE_DIM + cuda.threadIdx.x
    y = cuda.blockIdx.y * TILE_DIM + cuda.threadIdx.y
    for j in range(0, TILE_DIM, BLOCK_ROWS):
        out[y + j, x] = inp[y + j, x]


@cuda.jit
def copy_shared(out, inp):
    """out = inp through a 32x32 shared tile, row-wise both ways: coalesced, conflict-free shared accesses."""
    tile = cuda.shared.array((TILE_DIM, TILE_DIM), np.float32)
    x = cuda.blockIdx.x * TILE_DIM + cuda.threadIdx.x
    y = cuda.blockIdx.y * TILE_DIM + cuda.threadIdx.y
    for j in range(0, TILE_DIM, BLOCK_ROWS):
        tile[cuda.threadIdx.y + j, cuda.threadIdx.x] = inp[y + j, x]
    cuda.syncthreads()
    for j in range(0, TILE_DIM, BLOCK_ROWS):
        out[y + j, x] = tile[cuda.threadIdx.y + j, cuda.threadIdx.x]


@cuda.jit
def naive(out, inp):
    """out[x, y] = inp[y, x]: coalesced reads, strided writes (32 sectors per store request)."""
    x = cuda.blockIdx.x * TILE_DIM + cuda.threadIdx.x
    y = cuda.blockIdx.y * TILE_DIM + cuda.threadIdx.y
    for j in range(0, TILE_DIM, BLOCK_ROWS):
        out[x, y + j] = inp[y + j, x]


@cuda.jit
def naive_strided_reads(out, inp):
    """out[y, x] = inp[x, y]: strided reads (32 sectors per load request), coalesced writes."""
    x = cuda.blockIdx.x * TILE_DIM + cuda.threadIdx.x
    y = cuda.blockIdx.y * TILE_DIM + cuda.threadIdx.y
    for j in range(0, TILE_DIM, BLOCK_ROWS):
        out[y + j, x] = inp[x, y + j]


@cuda.jit
def tiled(out, inp):
    """Through a 32x32 shared tile: coalesced global reads and writes; the column-wise tile read is a
    32-way bank conflict (32 wavefronts per shared load)."""
    tile = cuda.shared.array((TILE_DIM, TILE_DIM), np.float32)
    x = cuda.blockIdx.x * TILE_DIM + cuda.threadIdx.x
    y = cuda.blockIdx.y * TILE_DIM + cuda.threadIdx.y
    for j in range(0, TILE_DIM, BLOCK_ROWS):
        tile[cuda.threadIdx.y + j, cuda.threadIdx.x] = inp[y + j, x]
    cuda.syncthreads()
    x = cuda.blockIdx.y * TILE_DIM + cuda.threadIdx.x      # transposed block offset
    y = cuda.blockIdx.x * TILE_DIM + cuda.threadIdx.y
    for j in range(0, TILE_DIM, BLOCK_ROWS):
        out[y + j, x] = tile[cuda.threadIdx.x, cuda.threadIdx.y + j]


@cuda.jit
def tiled_padded(out, inp):
    """As ``tiled`` with a 32x33 tile: coalesced global accesses and conflict-free shared accesses."""
    tile = cuda.shared.array((TILE_DIM, TILE_PAD), np.float32)
    x = cuda.blockIdx.x * TILE_DIM + cuda.threadIdx.x
    y = cuda.blockIdx.y * TILE_DIM + cuda.threadIdx.y
    for j in range(0, TILE_DIM, BLOCK_ROWS):
        tile[cuda.threadIdx.y + j, cuda.threadIdx.x] = inp[y + j, x]
    cuda.syncthreads()
    x = cuda.blockIdx.y * TILE_DIM + cuda.threadIdx.x
    y = cuda.blockIdx.x * TILE_DIM + cuda.threadIdx.y
    for j in range(0, TILE_DIM, BLOCK_ROWS):
        out[y + j, x] = tile[cuda.threadIdx.x, cuda.threadIdx.y + j]


# --- 32x32 blocks, one element per thread ----------------------------------------------------------------

@cuda.jit
def copy_32x32(out, inp):
    """out = inp, one element per thread: coalesced reads and writes (4 sectors per request)."""
    x, y = cuda.grid(2)
    out[y, x] = inp[y, x]


@cuda.jit
def naive_32x32(out, inp):
    """out[x, y] = inp[y, x], one element per thread: coalesced reads, strided writes (32 sectors per store)."""
    x, y = cuda.grid(2)
    out[x, y] = inp[y, x]


@cuda.jit
def naive_strided_reads_32x32(out, inp):
    """out[y, x] = inp[x, y], one element per thread: strided reads (32 sectors per load), coalesced writes."""
    x, y = cuda.grid(2)
    out[y, x] = inp[x, y]


@cuda.jit
def tiled_32x32(out, inp):
    """32x32 shared tile, one element per thread: coalesced global accesses, 32-way bank conflict on the
    column-wise tile read."""
    tile = cuda.shared.array((TILE_DIM, TILE_DIM), np.float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    tile[ty, tx] = inp[cuda.blockIdx.y * TILE_DIM + ty, cuda.blockIdx.x * TILE_DIM + tx]
    cuda.syncthreads()
    out[cuda.blockIdx.x * TILE_DIM + ty, cuda.blockIdx.y * TILE_DIM + tx] = tile[tx, ty]


@cuda.jit
def tiled_padded_32x32(out, inp):
    """32x33 shared tile, one element per thread: coalesced global accesses, conflict-free shared accesses."""
    tile = cuda.shared.array((TILE_DIM, TILE_PAD), np.float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    tile[ty, tx] = inp[cuda.blockIdx.y * TILE_DIM + ty, cuda.blockIdx.x * TILE_DIM + tx]
    cuda.syncthreads()
    out[cuda.blockIdx.x * TILE_DIM + ty, cuda.blockIdx.y * TILE_DIM + tx] = tile[tx, ty]


def ref_copy(inp):
    return inp.copy()


def ref_transpose(inp):
    return np.ascontiguousarray(inp.T)


def _build(reference, rows_per_block):
    def build(n, rng):
        if n % TILE_DIM:
            raise ValueError(f"n = {n} is not a multiple of TILE_DIM = {TILE_DIM}")
        inp = rng.standard_normal((n, n), dtype=np.float32)
        out = np.zeros((n, n), np.float32)
        return Setup((n // TILE_DIM, n // TILE_DIM), (TILE_DIM, rows_per_block), (out, inp),
                     expected={0: reference(inp)}, rtol=0, atol=0)
    return build


SIZES = {"test": 64, "full": 4096}
_KERNELS = [
    # (name, kernel, reference, block rows, description)
    ("copy", copy, ref_copy, BLOCK_ROWS,
     "copy, 32x8 blocks x 4 rows: coalesced both ways, the bandwidth ceiling"),
    ("copy_shared", copy_shared, ref_copy, BLOCK_ROWS,
     "copy through a 32x32 shared tile, 32x8 blocks x 4 rows: coalesced, no bank conflicts"),
    ("naive", naive, ref_transpose, BLOCK_ROWS,
     "naive transpose, 32x8 blocks x 4 rows: coalesced reads, strided writes"),
    ("naive_strided_reads", naive_strided_reads, ref_transpose, BLOCK_ROWS,
     "naive transpose, 32x8 blocks x 4 rows: strided reads, coalesced writes"),
    ("tiled", tiled, ref_transpose, BLOCK_ROWS,
     "32x32 shared tile, 32x8 blocks x 4 rows: coalesced, 32-way bank conflicts on the tile read"),
    ("tiled_padded", tiled_padded, ref_transpose, BLOCK_ROWS,
     "32x33 padded shared tile, 32x8 blocks x 4 rows: coalesced, conflict-free"),
    ("copy_32x32", copy_32x32, ref_copy, TILE_DIM,
     "copy, 32x32 blocks, one element per thread: coalesced both ways"),
    ("naive_32x32", naive_32x32, ref_transpose, TILE_DIM,
     "naive transpose, 32x32 blocks: coalesced reads, strided writes"),
    ("naive_strided_reads_32x32", naive_strided_reads_32x32, ref_transpose, TILE_DIM,
     "naive transpose, 32x32 blocks: strided reads, coalesced writes"),
    ("tiled_32x32", tiled_32x32, ref_transpose, TILE_DIM,
     "32x32 shared tile, 32x32 blocks: coalesced, 32-way bank conflicts on the tile read"),
    ("tiled_padded_32x32", tiled_padded_32x32, ref_transpose, TILE_DIM,
     "32x33 padded shared tile, 32x32 blocks: coalesced, conflict-free"),
]

CASES = [Case("transpose", name, kernel, _build(ref, rows), sizes=SIZES, description=desc)
         for name, kernel, ref, rows, desc in _KERNELS]

"""CUDA C kernels compiled by nvcc: the workloads as a CUDA programmer writes them, in nvcc's own PTX.

The other families are Python kernels that smsim compiles itself; this one runs PTX that ``nvcc -ptx
-arch=sm_90 -lineinfo -O3`` produced from ``workloads/cuda/*.cu`` (regenerate with
``workloads/cuda/build.sh``; the ``.ptx`` files in ``workloads/ptx/cuda_*.ptx`` are checked in because CI has
no nvcc). They are the yardstick for the compiler: the same algorithm, the real compiler's instruction mix,
and the same global-memory requests/sectors the hardware counts (Nsight Compute reads these kernels'
counters from the same PTX, loaded through the driver).

Life of a case: ``case.setup(size, seed)`` calls the case's ``build(n, rng)``, which draws seeded inputs,
computes the expected outputs with the numpy reference (``ref_*``) and returns a :class:`Setup` whose
``args`` are exactly the kernel's PTX parameters in order (numpy arrays for pointers, ints for ``int``);
:func:`workloads.run_case` parses the PTX once (:class:`PtxKernel`), launches it on the functional
interpreter and compares the outputs. References reproduce nvcc's order of float operations where the
kernel fixes it (vector add, transpose, the shuffle reduction: exact); matmul and the stencil compare
with a tolerance because nvcc contracts ``a * b + c`` into one rounding (``fma.rn.f32``).
"""
from __future__ import annotations

import numpy as np

from smsim.case import Case, Setup

from .case import PtxKernel

SMS = 132            # multiprocessors of an H100 SXM / H200: grid-stride kernels launch a few blocks per SM


def _cdiv(a: int, b: int) -> int:
    return -(-a // b)


def _stride_grid(n: int, block: int, per_thread: int, blocks_per_sm: int) -> int:
    """Blocks for a grid-stride kernel: every thread gets at least ``per_thread`` elements, and the grid
    is at most ``blocks_per_sm`` blocks per SM."""
    return max(1, min(_cdiv(n, block * per_thread), SMS * blocks_per_sm))


# ------------------------------------------------------------------------------------------------ vector
vec_add_grid_stride = PtxKernel("ptx/cuda_vector.ptx", "vec_add_grid_stride")
"""c[i] = a[i] + b[i] over a grid-stride loop: 1 request / 4 sectors per warp access (coalesced)."""


def ref_vec_add(a, b):
    return a + b


def build_vec_add(n, rng):
    a = rng.standard_normal(n, dtype=np.float32)
    b = rng.standard_normal(n, dtype=np.float32)
    c = np.zeros(n, np.float32)
    block = 256
    grid = _stride_grid(n, block, 4, 8)
    return Setup((grid,), (block,), (a, b, c, n), {2: ref_vec_add(a, b)}, rtol=0, atol=0)


# --------------------------------------------------------------------------------------------- transpose
TILE_DIM, BLOCK_ROWS = 32, 8

transpose_naive = PtxKernel("ptx/cuda_transpose.ptx", "transpose_naive")
"""Reads coalesced, writes strided by a whole row: 32 sectors per store request (uncoalesced)."""

transpose_padded = PtxKernel("ptx/cuda_transpose.ptx", "transpose_padded")
"""Through a 32x33 shared tile: loads and stores both 4 sectors per request, no bank conflicts."""


def ref_transpose(x):
    return np.ascontiguousarray(x.T)


def build_transpose(n, rng):
    rows = cols = n
    x = rng.standard_normal((rows, cols), dtype=np.float32)
    out = np.zeros((cols, rows), np.float32)
    grid = (_cdiv(cols, TILE_DIM), _cdiv(rows, TILE_DIM))
    return Setup(grid, (TILE_DIM, BLOCK_ROWS), (out, x, rows, cols), {0: ref_transpose(x)}, rtol=0, atol=0)


# ------------------------------------------------------------------------------------------------ matmul
MM_TILE = 16

matmul_tiled16 = PtxKernel("ptx/cuda_matmul.ptx", "matmul_tiled16")
"""16x16 shared tiles: each global element is loaded k/16 times, 4 sectors per warp load request."""


def ref_matmul(a, b):
    return (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float32)


def build_matmul(n, rng):
    m = k = n
    a = rng.uniform(-1, 1, (m, k)).astype(np.float32)
    b = rng.uniform(-1, 1, (k, n)).astype(np.float32)
    c = np.zeros((m, n), np.float32)
    grid = (_cdiv(n, MM_TILE), _cdiv(m, MM_TILE))
    # k float32 products summed in order (with fma): error grows ~ k * 2^-24 * sum |a b|, |a b| <= 1
    return Setup(grid, (MM_TILE, MM_TILE), (a, b, c, m, n, k), {2: ref_matmul(a, b)}, rtol=1e-5, atol=2e-7 * k)


# --------------------------------------------------------------------------------------------- reduction
reduce_shfl = PtxKernel("ptx/cuda_reduce.ptx", "reduce_shfl")
"""Grid-stride loads (4 sectors per request), then __shfl_down_sync trees: one global store per block."""


def _shfl_down_tree(w):
    """Lane 0 of ``for off in 16, 8, 4, 2, 1: v += shfl_down(v, off)`` over the last axis (32 lanes), in
    float32 and in the kernel's order (lanes whose source is out of range add their own value; those
    never reach lane 0)."""
    w = w.astype(np.float32)
    for off in (16, 8, 4, 2, 1):
        w = w + np.concatenate([w[..., off:], w[..., 32 - off:]], axis=-1)
    return w[..., 0]


def ref_reduce_shfl(x, grid, block):
    """Each block's partial sum, in exactly the kernel's float32 order."""
    threads = grid * block
    rows = _cdiv(len(x), threads)
    pad = np.zeros(rows * threads, np.float32)
    pad[:len(x)] = x
    v = np.zeros(threads, np.float32)
    for r in pad.reshape(rows, threads):        # thread t adds x[t], x[t + threads], ... (adding 0 is exact)
        v = v + r
    warp_sums = _shfl_down_tree(v.reshape(grid, block // 32, 32))     # (grid, warps)
    first = np.zeros((grid, 32), np.float32)
    first[:, :block // 32] = warp_sums
    return _shfl_down_tree(first)


def build_reduce(n, rng):
    x = rng.uniform(-1, 1, n).astype(np.float32)
    block = 256
    grid = _stride_grid(n, block, 8, 2)
    out = np.zeros(grid, np.float32)
    return Setup((grid,), (block,), (out, x, n), {0: ref_reduce_shfl(x, grid, block)}, rtol=0, atol=0)


# --------------------------------------------------------------------------------------------- histogram
NBINS = 256

hist256_shared = PtxKernel("ptx/cuda_histogram.ptx", "hist256_shared")
"""Byte loads (1 sector per request), shared-memory atomics, then 256 global atomics per block."""


def ref_hist256(data):
    return np.bincount(data, minlength=NBINS).astype(np.uint32)


def build_hist(n, rng):
    # image-like bytes: a broad peak (many same-bin collisions within a warp) plus uniform noise
    data = np.clip(rng.normal(128, 30, n), 0, 255).astype(np.uint8)
    noise = rng.random(n) < 0.25
    data[noise] = rng.integers(0, 256, int(noise.sum()), dtype=np.uint8)
    hist = np.zeros(NBINS, np.uint32)
    block = 256
    grid = _stride_grid(n, block, 8, 2)
    return Setup((grid,), (block,), (hist, data, n), {0: ref_hist256(data)})


# ----------------------------------------------------------------------------------------------- stencil
RADIUS, ST_BLOCK = 3, 256
WEIGHTS = (-0.0625, 0.125, 0.25, 0.5, 0.25, 0.125, -0.0625)    # in[i-3] .. in[i+3]

stencil1d_r3 = PtxKernel("ptx/cuda_stencil.ptx", "stencil1d_r3")
"""Shared tile with a 3-element halo: each input read ~once from global, 4 sectors per request."""


def ref_stencil1d(x):
    pad = np.concatenate([np.zeros(RADIUS), x.astype(np.float64), np.zeros(RADIUS)])
    n = len(x)
    out = sum(w * pad[k:k + n] for k, w in enumerate(WEIGHTS))
    return out.astype(np.float32)


def build_stencil(n, rng):
    x = rng.standard_normal(n, dtype=np.float32)
    out = np.zeros(n, np.float32)
    return Setup((_cdiv(n, ST_BLOCK),), (ST_BLOCK,), (out, x, n), {0: ref_stencil1d(x)}, rtol=1e-5, atol=1e-6)


CASES = [
    Case("cuda_c", "vec_add_grid_stride", vec_add_grid_stride, build_vec_add,
         sizes={"test": 5000, "full": 1 << 24},
         description="c = a + b, grid-stride loop over a grid of at most 8 blocks per SM (coalesced)"),
    Case("cuda_c", "transpose_naive", transpose_naive, build_transpose,
         sizes={"test": 100, "full": 4096},
         description="n x n transpose straight from global memory: strided, uncoalesced stores"),
    Case("cuda_c", "transpose_padded", transpose_padded, build_transpose,
         sizes={"test": 100, "full": 4096},
         description="n x n transpose through a 32x33 shared tile, 32x8 blocks: coalesced both ways"),
    Case("cuda_c", "matmul_tiled16", matmul_tiled16, build_matmul,
         sizes={"test": 40, "full": 2048},
         description="n x n x n matrix product with 16x16 shared-memory tiles"),
    Case("cuda_c", "reduce_shfl", reduce_shfl, build_reduce,
         sizes={"test": 10000, "full": 1 << 24},
         description="sum to one partial per block: grid-stride loads, warp shuffles, 32-float shared array"),
    Case("cuda_c", "hist256_shared", hist256_shared, build_hist,
         sizes={"test": 8192, "full": 1 << 24},
         description="256-bin byte histogram: shared atomics per block, merged with global atomics"),
    Case("cuda_c", "stencil1d_r3", stencil1d_r3, build_stencil,
         sizes={"test": 5000, "full": 1 << 24},
         description="weighted 7-point 1D stencil through a shared tile with a halo"),
]

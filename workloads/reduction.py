"""Parallel sum reduction: Mark Harris's "Optimizing Parallel Reduction in CUDA" sequence.

What the family teaches: the same block-wide tree sum written five ways, each fixing the previous one's
bottleneck. Interleaved addressing with ``tid % (2*s)`` leaves most lanes of every warp idle (divergent
branches, and the modulo is slow); moving the work to ``index = 2*s*tid`` removes the divergence but makes
lanes hit the same shared-memory banks (2-way, 4-way ... conflicts); sequential addressing (``tid < s``,
partner ``tid + s``) is conflict-free; adding two elements while loading halves the idle threads of the first
step; and finishing the last warp with ``shfl_down_sync`` removes five barriers and their shared-memory
round trips. A sixth kernel (Harris's "multiple elements per thread") streams a grid-stride loop first, which is
what reaches DRAM bandwidth.

Life of a case: ``build(n, rng)`` draws ``n`` integer-valued float32 inputs in [0, 16) (so every partial sum
is exact in float32 whatever the summation order, and the check is exact), launches blocks of 256 threads with
a 256-float shared array, and expects one partial sum per block in ``out[blockIdx.x]`` (a second pass or the
host adds the partials). The numpy reference sums each block's span of the input in float64.
"""
import numpy as np

from smsim import cuda
from smsim.case import Case, Setup


BLOCK = 256                  # threads per block; a power of two, at least 64
FULL_MASK = 0xFFFFFFFF
GRID_STRIDE_BLOCKS = 1024    # blocks of the grid-stride kernel at full size (about 8 per SM on 132 SMs)


@cuda.jit
def reduce_interleaved_divergent(a, out):
    """Interleaved addressing, ``tid % (2*s) == 0``: divergent warps (few active lanes) and a slow modulo."""
    sdata = cuda.shared.array(BLOCK, np.float32)
    tid = cuda.threadIdx.x
    i = cuda.blockIdx.x * cuda.blockDim.x + tid
    v = np.float32(0)
    if i < a.shape[0]:
        v = a[i]
    sdata[tid] = v
    cuda.syncthreads()
    s = 1
    while s < cuda.blockDim.x:
        if tid % (2 * s) == 0:
            sdata[tid] += sdata[tid + s]
        cuda.syncthreads()
        s *= 2
    if tid == 0:
        out[cuda.blockIdx.x] = sdata[0]


@cuda.jit
def reduce_interleaved_bank_conflicts(a, out):
    """Interleaved addressing, ``index = 2*s*tid``: no divergence, but 2-, 4-, ... 32-way shared bank conflicts."""
    sdata = cuda.shared.array(BLOCK, np.float32)
    tid = cuda.threadIdx.x
    i = cuda.blockIdx.x * cuda.blockDim.x + tid
    v = np.float32(0)
    if i < a.shape[0]:
        v = a[i]
    sdata[tid] = v
    cuda.syncthreads()
    s = 1
    while s < cuda.blockDim.x:
        index = 2 * s * tid
        if index < cuda.blockDim.x:
            sdata[index] += sdata[index + s]
        cuda.syncthreads()
        s *= 2
    if tid == 0:
        out[cuda.blockIdx.x] = sdata[0]


@cuda.jit
def reduce_sequential(a, out):
    """Sequential addressing (``tid < s`` adds ``tid + s``): conflict-free, but half the threads idle from step 1."""
    sdata = cuda.shared.array(BLOCK, np.float32)
    tid = cuda.threadIdx.x
    i = cuda.blockIdx.x * cuda.blockDim.x + tid
    v = np.float32(0)
    if i < a.shape[0]:
        v = a[i]
    sdata[tid] = v
    cuda.syncthreads()
    s = cuda.blockDim.x // 2
    while s > 0:
        if tid < s:
            sdata[tid] += sdata[tid + s]
        cuda.syncthreads()
        s //= 2
    if tid == 0:
        out[cuda.blockIdx.x] = sdata[0]


@cuda.jit
def reduce_first_add(a, out):
    """First add during load: each block sums 2*blockDim coalesced elements, half as many blocks."""
    sdata = cuda.shared.array(BLOCK, np.float32)
    tid = cuda.threadIdx.x
    n = a.shape[0]
    i = cuda.blockIdx.x * (cuda.blockDim.x * 2) + tid
    v = np.float32(0)
    if i < n:
        v = a[i]
    if i + cuda.blockDim.x < n:
        v += a[i + cuda.blockDim.x]
    sdata[tid] = v
    cuda.syncthreads()
    s = cuda.blockDim.x // 2
    while s > 0:
        if tid < s:
            sdata[tid] += sdata[tid + s]
        cuda.syncthreads()
        s //= 2
    if tid == 0:
        out[cuda.blockIdx.x] = sdata[0]


@cuda.jit
def reduce_warp_shuffle(a, out):
    """First add during load, shared tree down to 64 values, last warp by ``shfl_down_sync`` (no barriers)."""
    sdata = cuda.shared.array(BLOCK, np.float32)
    tid = cuda.threadIdx.x
    n = a.shape[0]
    i = cuda.blockIdx.x * (cuda.blockDim.x * 2) + tid
    v = np.float32(0)
    if i < n:
        v = a[i]
    if i + cuda.blockDim.x < n:
        v += a[i + cuda.blockDim.x]
    sdata[tid] = v
    cuda.syncthreads()
    s = cuda.blockDim.x // 2
    while s > 32:
        if tid < s:
            sdata[tid] += sdata[tid + s]
        cuda.syncthreads()
        s //= 2
    if tid < 32:
        v = sdata[tid] + sdata[tid + 32]
        off = 16
        while off > 0:
            v += cuda.shfl_down_sync(FULL_MASK, v, off)
            off //= 2
        if tid == 0:
            out[cuda.blockIdx.x] = v


@cuda.jit
def reduce_grid_stride(a, out):
    """Grid-stride loop (many coalesced loads per thread), then the shared tree and a shuffled last warp."""
    sdata = cuda.shared.array(BLOCK, np.float32)
    tid = cuda.threadIdx.x
    n = a.shape[0]
    v = np.float32(0)
    for i in range(cuda.grid(1), n, cuda.gridsize(1)):
        v += a[i]
    sdata[tid] = v
    cuda.syncthreads()
    s = cuda.blockDim.x // 2
    while s > 32:
        if tid < s:
            sdata[tid] += sdata[tid + s]
        cuda.syncthreads()
        s //= 2
    if tid < 32:
        v = sdata[tid] + sdata[tid + 32]
        off = 16
        while off > 0:
            v += cuda.shfl_down_sync(FULL_MASK, v, off)
            off //= 2
        if tid == 0:
            out[cuda.blockIdx.x] = v


# ---------------------------------------------------------------------------------------- references
def _block_sums(a, span):
    """Sum of each consecutive ``span`` elements of ``a`` (the last span zero-padded), exactly, as float32."""
    blocks = -(-len(a) // span)
    padded = np.zeros(blocks * span, np.float64)
    padded[:len(a)] = a
    return padded.reshape(blocks, span).sum(axis=1).astype(np.float32)


def ref_reduce_interleaved_divergent(a):
    return _block_sums(a, BLOCK)


ref_reduce_interleaved_bank_conflicts = ref_reduce_interleaved_divergent
ref_reduce_sequential = ref_reduce_interleaved_divergent


def ref_reduce_first_add(a):
    return _block_sums(a, 2 * BLOCK)


ref_reduce_warp_shuffle = ref_reduce_first_add


def ref_reduce_grid_stride(a, blocks):
    """Thread g of the grid sums a[g], a[g + T], ... (T threads in all); block b adds its threads' sums."""
    threads = blocks * BLOCK
    padded = np.zeros(-(-len(a) // threads) * threads, np.float64)
    padded[:len(a)] = a
    per_thread = padded.reshape(-1, threads).sum(axis=0)
    return _block_sums(per_thread, BLOCK)


# ---------------------------------------------------------------------------------------- cases
def _inputs(n, rng):
    return rng.integers(0, 16, size=n, dtype=np.int32).astype(np.float32)


def _builder(ref, per_block):
    def build(n, rng):
        a = _inputs(n, rng)
        blocks = -(-n // per_block)
        out = np.zeros(blocks, np.float32)
        return Setup(grid=(blocks,), block=(BLOCK,), args=(a, out), expected={1: ref(a)}, rtol=0.0, atol=0.0)
    return build


def _build_grid_stride(n, rng):
    a = _inputs(n, rng)
    blocks = max(1, min(GRID_STRIDE_BLOCKS, n // (BLOCK * 8)))   # at least 8 elements per thread
    out = np.zeros(blocks, np.float32)
    return Setup(grid=(blocks,), block=(BLOCK,), args=(a, out), expected={1: ref_reduce_grid_stride(a, blocks)},
                 rtol=0.0, atol=0.0)


SIZES = {"test": 4096, "full": 1 << 24}

CASES = [
    Case("reduction", "interleaved_divergent", reduce_interleaved_divergent,
         _builder(ref_reduce_interleaved_divergent, BLOCK), SIZES,
         "Harris #1: tid % (2*s) == 0 tree in shared memory; divergent warps, modulo per step"),
    Case("reduction", "interleaved_bank_conflicts", reduce_interleaved_bank_conflicts,
         _builder(ref_reduce_interleaved_bank_conflicts, BLOCK), SIZES,
         "Harris #2: index = 2*s*tid; no divergence but n-way shared-memory bank conflicts"),
    Case("reduction", "sequential", reduce_sequential, _builder(ref_reduce_sequential, BLOCK), SIZES,
         "Harris #3: sequential addressing tid < s; conflict-free, half the threads idle"),
    Case("reduction", "first_add", reduce_first_add, _builder(ref_reduce_first_add, 2 * BLOCK), SIZES,
         "Harris #4: first add during global load, 2*256 elements per block"),
    Case("reduction", "warp_shuffle", reduce_warp_shuffle, _builder(ref_reduce_warp_shuffle, 2 * BLOCK), SIZES,
         "Harris #5: first add during load, last warp unrolled with shfl_down_sync"),
    Case("reduction", "grid_stride", reduce_grid_stride, _build_grid_stride, SIZES,
         "Harris #7: grid-stride accumulation (1024 blocks at full size), shared tree, shuffled last warp"),
]

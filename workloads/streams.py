"""Streams: the memory system under ordinary one-element-per-thread kernels, reads *and* writes.

What the family teaches: a kernel's time is set by what it moves and how. A read-only stream, a copy
(read + write) and a write-only fill move the same bytes per element in different directions (HBM turns
the bus around between reads and writes); strided and scattered *stores* write whole sectors for a few
useful bytes (partial-sector writes); a histogram's global atomics serialize on the addresses they share
(1 bin: every atomic on one address; 64 K bins: spread); resident warps per SM (4..64, limited with
dynamic shared memory as microbenchmarks do) decide how many bytes are in flight; and kernels of a few
microseconds are dominated by the launch and block-dispatch costs, not by their loads.

Life of a case: ``build(n, rng)`` draws float32 inputs (int32 bins for the histograms) for ``n`` elements,
computes the expected output with numpy and returns a 1D launch of 128-thread blocks (4 warps), one element
per thread, or one wave of blocks looping over the elements (``grid_stride``: 132 SMs, the H100/H200,
times the resident blocks). ``copy_w*`` and ``grid_stride_w*`` add dynamic shared memory per block so that
only ``w / 4`` blocks fit on an SM (228 KB per SM, 1 KB reserved per block, on cc 9.0). The full sizes
(2^24 elements, 64 MB per array) overflow the H200's 60 MB L2.
"""
import numpy as np

from smsim import cuda
from smsim.case import Case, Setup

BLOCK = 128                     # threads per block: 4 warps, so 16 blocks fill an SM's 64 warps
NUM_SMS = 132                   # H100 SXM / H200: one wave of the grid-stride kernels
SM_SHARED = 233472              # cc 9.0: shared memory per SM at the largest carveout
RESERVED = 1024                 # cc 8.0+: shared memory the driver reserves per block
SIZES = {"test": 1 << 17, "full": 1 << 24}
STRIDED_SIZES = {"test": 1 << 14, "full": 1 << 21}      # the output is ``stride`` times larger
HIST_SIZES = {"test": 1 << 15, "full": 1 << 22}
LAUNCH_SIZES = {"test": 1, "full": 2}      # not used: the case fixes the shape (the point is the launch)


@cuda.jit
def read_only(inp, out, n):
    """Reads every element; writes only the negative one (the last): a read-only stream."""
    i = cuda.grid(1)
    if i < n:
        v = inp[i]
        if v < np.float32(0.0):
            out[0] = v


@cuda.jit
def write_only(out, value, n):
    """out[i] = value: a write-only stream (full, coalesced sectors)."""
    i = cuda.grid(1)
    if i < n:
        out[i] = value


@cuda.jit
def copy(out, inp, n):
    """out[i] = inp[i]: one read and one write stream."""
    i = cuda.grid(1)
    if i < n:
        out[i] = inp[i]


@cuda.jit
def copy_grid_stride(out, inp, n):
    """out[i] = inp[i] over a grid-stride loop: each thread copies n / (grid x block) elements."""
    for i in range(cuda.grid(1), n, cuda.gridsize(1)):
        out[i] = inp[i]


@cuda.jit
def read_grid_stride(out, inp, n):
    """Each thread sums its elements of a grid-stride loop and writes the one sum: a read stream of one
    wave of blocks (the grid-stride copy's reads without its writes)."""
    acc = np.float32(0.0)
    for i in range(cuda.grid(1), n, cuda.gridsize(1)):
        acc += inp[i]
    out[cuda.grid(1)] = acc


@cuda.jit
def write_grid_stride(out, value, n):
    """out[i] = value over a grid-stride loop: a write stream of one wave of blocks."""
    for i in range(cuda.grid(1), n, cuda.gridsize(1)):
        out[i] = value


@cuda.jit
def store_strided(out, inp, n, stride):
    """out[i * stride] = inp[i]: coalesced reads, stores ``stride`` floats apart (partial-sector writes:
    stride 2 writes half of each sector, 8 one word of it, 32 one word per 128-byte line)."""
    i = cuda.grid(1)
    if i < n:
        out[i * stride] = inp[i]


@cuda.jit
def store_scatter(out, inp, perm, n):
    """out[perm[i]] = inp[i] through a random permutation: every store lands in its own sector."""
    i = cuda.grid(1)
    if i < n:
        out[perm[i]] = inp[i]


@cuda.jit
def empty(out):
    """Does nothing but mark that it ran (block 0's thread 0 writes one word): what a launch and its blocks
    cost by themselves."""
    if cuda.threadIdx.x == 0 and cuda.blockIdx.x == 0:
        out[0] = np.float32(1.0)


@cuda.jit
def hist_bins(data, hist, n):
    """One global atomicAdd per sample into ``hist[data[i]]``: same-bin atomics serialize at L2."""
    i = cuda.grid(1)
    if i < n:
        cuda.atomic.add(hist, data[i], np.int32(1))


def shared_for_blocks(blocks_per_sm: int) -> int:
    """Dynamic shared bytes per block that leave room for ``blocks_per_sm`` blocks on a cc 9.0 SM."""
    return (SM_SHARED // blocks_per_sm - RESERVED) // 128 * 128


def _grid(n: int) -> tuple:
    return (-(-n // BLOCK),)


def _floats(n, rng):
    return rng.random(n, dtype=np.float32) + np.float32(0.5)


def _read_only(n, rng):
    inp = _floats(n, rng)
    inp[-1] = -1.0
    out = np.zeros(1, np.float32)
    return Setup(_grid(n), (BLOCK,), (inp, out, n), {1: inp[-1:].copy()})


def _write_only(n, rng):
    out = np.zeros(n, np.float32)
    return Setup(_grid(n), (BLOCK,), (out, np.float32(3.0), n), {0: np.full(n, 3.0, np.float32)})


def _copy(warps=None):
    def build(n, rng):
        inp = _floats(n, rng)
        out = np.zeros(n, np.float32)
        shared = shared_for_blocks(warps // 4) if warps else 0
        return Setup(_grid(n), (BLOCK,), (out, inp, n), {0: inp.copy()}, shared_bytes=shared)
    return build


def _grid_stride(warps):
    def build(n, rng):
        inp = _floats(n, rng)
        out = np.zeros(n, np.float32)
        blocks = min(NUM_SMS * (warps // 4), _grid(n)[0])
        return Setup((blocks,), (BLOCK,), (out, inp, n), {0: inp.copy()}, shared_bytes=shared_for_blocks(warps // 4))
    return build


def _read_grid_stride(warps):
    def build(n, rng):
        inp = _floats(n, rng)
        blocks = min(NUM_SMS * (warps // 4), _grid(n)[0])
        threads = blocks * BLOCK
        out = np.zeros(threads, np.float32)
        want = np.zeros(threads, np.float32)
        for i in range(0, n, threads):                 # the kernel's order: one chunk of the grid at a time
            chunk = inp[i:i + threads]
            want[:chunk.size] += chunk
        return Setup((blocks,), (BLOCK,), (out, inp, n), {0: want}, shared_bytes=shared_for_blocks(warps // 4),
                     rtol=1e-5, atol=1e-5)
    return build


def _write_grid_stride(warps):
    def build(n, rng):
        out = np.zeros(n, np.float32)
        blocks = min(NUM_SMS * (warps // 4), _grid(n)[0])
        return Setup((blocks,), (BLOCK,), (out, np.float32(3.0), n), {0: np.full(n, 3.0, np.float32)},
                     shared_bytes=shared_for_blocks(warps // 4))
    return build


def _store_strided(stride):
    def build(n, rng):
        inp = _floats(n, rng)
        out = np.zeros(n * stride, np.float32)
        want = out.copy()
        want[::stride] = inp
        return Setup(_grid(n), (BLOCK,), (out, inp, n, stride), {0: want})
    return build


def _store_scatter(n, rng):
    inp = _floats(n, rng)
    perm = rng.permutation(n).astype(np.int32)
    out = np.zeros(n, np.float32)
    want = out.copy()
    want[perm] = inp
    return Setup(_grid(n), (BLOCK,), (out, inp, perm, n), {0: want})


def _hist(bins):
    def build(n, rng):
        data = rng.integers(0, bins, size=n, dtype=np.int32) if bins > 1 else np.zeros(n, np.int32)
        hist = np.zeros(bins, np.int32)
        return Setup(_grid(n), (BLOCK,), (data, hist, n), {1: np.bincount(data, minlength=bins).astype(np.int32)})
    return build


def _empty(blocks, threads=BLOCK):
    def build(n, rng):
        return Setup((blocks,), (threads,), (np.zeros(1, np.float32),), {0: np.ones(1, np.float32)})
    return build


def _launch(blocks):
    def build(n, rng):
        m = blocks * BLOCK
        inp = _floats(m, rng)
        out = np.zeros(m, np.float32)
        return Setup((blocks,), (BLOCK,), (out, inp, m), {0: inp.copy()})
    return build


CASES = [
    Case("streams", "read_only", read_only, _read_only, SIZES, "read-only stream (one float per thread)"),
    Case("streams", "write_only", write_only, _write_only, SIZES, "write-only stream (fill)"),
    Case("streams", "copy", copy, _copy(), SIZES, "copy: one read and one write stream, 64 warps/SM"),
    *[Case("streams", f"copy_w{w}", copy, _copy(w), SIZES,
           f"copy, one element per thread, {w} warps/SM (dynamic shared memory limits blocks)")
      for w in (4, 8, 16, 32)],
    *[Case("streams", f"grid_stride_w{w}", copy_grid_stride, _grid_stride(w), SIZES,
           f"grid-stride copy, one wave at {w} warps/SM") for w in (4, 16, 64)],
    Case("streams", "gs_read_w64", read_grid_stride, _read_grid_stride(64), SIZES,
         "read-only stream of one wave of blocks (64 warps/SM), one sum written per thread"),
    Case("streams", "gs_write_w64", write_grid_stride, _write_grid_stride(64), SIZES,
         "write-only stream of one wave of blocks (64 warps/SM)"),
    *[Case("streams", f"store_stride{s}", store_strided, _store_strided(s), STRIDED_SIZES,
           f"coalesced reads, stores {s} floats apart (partial-sector writes)") for s in (2, 8, 32)],
    Case("streams", "store_scatter", store_scatter, _store_scatter, SIZES,
         "stores scattered through a random permutation (uncoalesced stores)"),
    *[Case("streams", f"hist_bins{b}", hist_bins, _hist(b), HIST_SIZES,
           f"one global atomicAdd per sample into {b} bin(s)") for b in (1, 16, 256, 4096, 65536)],
    Case("streams", "launch_1block", copy, _launch(1), LAUNCH_SIZES, "one block of 128 floats: launch cost only"),
    *[Case("streams", f"empty_{name}", empty, _empty(blocks, threads), LAUNCH_SIZES,
           f"an empty kernel of {blocks} block(s) of {threads} threads: launch and block dispatch alone")
      for name, blocks, threads in (("1block", 1, BLOCK), ("1block1024", 1, 1024), ("1wave", NUM_SMS, BLOCK),
                                    ("16waves", 16 * NUM_SMS, BLOCK), ("128waves", 128 * NUM_SMS, BLOCK))],
    Case("streams", "launch_1wave", copy, _launch(NUM_SMS), LAUNCH_SIZES,
         "one block per SM, 128 floats each: launch and block dispatch dominate"),
]

"""Histograms: many threads incrementing few counters, so the cost is in the atomics, not the loads.

What the family teaches: with one global ``atomicAdd`` per input element every increment travels to L2, and
elements that fall in the same bin serialize there; privatizing the histogram per block in shared memory turns
those into shared-memory atomics (fast, on the SM; same-bin collisions in a warp still serialize) and leaves
only 256 global atomics per block for the final merge.

Life of a case: ``build(n, rng)`` draws ``n`` uint8 samples (pixel values, uniform over 0..255), launches a
grid-stride loop over them with 256-thread blocks (at least 8 samples per thread, at most 1024 blocks: about
eight blocks per SM on 132 SMs, enough to fill the GPU at full size), and expects the 256 int32 bin counts
(``np.bincount``) in ``hist``, which starts at zero.
"""
import numpy as np

from smsim import cuda
from smsim.case import Case, Setup


NBINS = 256
BLOCK = 256
MAX_BLOCKS = 1024


@cuda.jit
def hist_global(data, hist):
    """One global atomic per sample: each increment is an L2 atomic; same-bin samples serialize there."""
    for i in range(cuda.grid(1), data.shape[0], cuda.gridsize(1)):
        cuda.atomic.add(hist, data[i], np.int32(1))


@cuda.jit
def hist_shared(data, hist):
    """Per-block histogram in shared memory (shared atomics), then 256 global atomics per block to merge."""
    local = cuda.shared.array(NBINS, np.int32)
    tid = cuda.threadIdx.x
    for b in range(tid, NBINS, cuda.blockDim.x):
        local[b] = 0
    cuda.syncthreads()
    for i in range(cuda.grid(1), data.shape[0], cuda.gridsize(1)):
        cuda.atomic.add(local, data[i], np.int32(1))
    cuda.syncthreads()
    for b in range(tid, NBINS, cuda.blockDim.x):
        count = local[b]
        if count != 0:
            cuda.atomic.add(hist, b, count)


def ref_hist_global(data):
    return np.bincount(data, minlength=NBINS).astype(np.int32)


ref_hist_shared = ref_hist_global


def _builder(ref):
    def build(n, rng):
        data = rng.integers(0, NBINS, size=n, dtype=np.uint8)
        hist = np.zeros(NBINS, np.int32)
        blocks = max(1, min(MAX_BLOCKS, n // (BLOCK * 8)))
        return Setup(grid=(blocks,), block=(BLOCK,), args=(data, hist), expected={1: ref(data)})
    return build


SIZES = {"test": 4096, "full": 1 << 24}

CASES = [
    Case("histogram", "global_atomics", hist_global, _builder(ref_hist_global), SIZES,
         "256-bin histogram of uint8 samples, one global atomicAdd per sample (grid-stride loop)"),
    Case("histogram", "shared_atomics", hist_shared, _builder(ref_hist_shared), SIZES,
         "256-bin histogram privatized per block in shared memory, merged with 256 global atomics per block"),
]

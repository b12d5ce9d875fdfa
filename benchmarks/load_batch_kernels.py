"""The kernels of ``benchmarks/load_batch_hw.py``: each warp reads ``iters`` rounds of ``K`` coalesced 128-byte
lines from DRAM (K = 1, 2, 4, 8 independent loads a round, issued together), adding them up, every round's
lines new.

Written against ``smsim.cuda`` so that smsim simulates exactly the source the H200 runs
(``workloads.numba_bridge.to_numba`` on the device). Warp ``g`` of the grid reads its own ``iters * K`` lines,
``a[(g * iters * K + i * K + j) * 32 + lane]`` for round ``i`` and line ``j``; lane 0's sum goes to
``out[g]``.
"""
from smsim import cuda


@cuda.jit
def batch1(a, out, iters):
    g = cuda.grid(1) >> 5
    lane = cuda.threadIdx.x & 31
    base = g * iters * 32 + lane
    acc = 0.0
    for i in range(iters):
        acc += a[base + i * 32]
    if lane == 0:
        out[g] = acc


@cuda.jit
def batch2(a, out, iters):
    g = cuda.grid(1) >> 5
    lane = cuda.threadIdx.x & 31
    base = g * iters * 64 + lane
    acc = 0.0
    for i in range(iters):
        p = base + i * 64
        acc += a[p] + a[p + 32]
    if lane == 0:
        out[g] = acc


@cuda.jit
def batch4(a, out, iters):
    g = cuda.grid(1) >> 5
    lane = cuda.threadIdx.x & 31
    base = g * iters * 128 + lane
    acc = 0.0
    for i in range(iters):
        p = base + i * 128
        acc += (a[p] + a[p + 32]) + (a[p + 64] + a[p + 96])
    if lane == 0:
        out[g] = acc


@cuda.jit
def batch8(a, out, iters):
    g = cuda.grid(1) >> 5
    lane = cuda.threadIdx.x & 31
    base = g * iters * 256 + lane
    acc = 0.0
    for i in range(iters):
        p = base + i * 256
        acc += ((a[p] + a[p + 32]) + (a[p + 64] + a[p + 96])) + \
            ((a[p + 128] + a[p + 160]) + (a[p + 192] + a[p + 224]))
    if lane == 0:
        out[g] = acc


KERNELS = {"batch1": batch1, "batch2": batch2, "batch4": batch4, "batch8": batch8}

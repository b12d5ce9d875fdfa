"""The kernels of ``benchmarks/atomic_lines_hw.py``: integer reductions (``cuda.atomic.add``, result unused) laid
out over the words, sectors and lines of L2 in the ways histograms lay them out.

Written against ``smsim.cuda`` so that smsim simulates exactly the source the H200 runs
(``workloads.numba_bridge.to_numba`` on the device):

* ``red_lanes(out, pattern, reps)``: every thread adds 1 ``reps`` times to the word its lane names:
  ``pattern`` 0: lane ``l`` to word ``l`` (32 words of one 128-byte line, 4 sectors, one add each);
  1: word ``l // 4`` (8 words of one sector, 4 lanes each); 2: word ``8 (l // 8)`` (one word in each of
  the line's 4 sectors, 8 lanes each); 3: word 0 (32 lanes on one word); 4: as 0, odd warps on the next line
  (64 words, two lines: ``plain.hist64_shared``'s merge); 5: as 0, warp ``w`` of the grid on line ``w % 64``
  (64 lines, 8 KB: many slices);
* ``red_per_block(out, n)``: the first ``n`` threads of each block add 1 once to word ``t`` (``n`` 1: one
  reduction a block on one word, ``plain.count_above``'s; ``n`` 64: ``hist64_shared``'s merge of 64 bins).
"""
from smsim import cuda


@cuda.jit
def red_lanes(out, pattern, reps):
    lane = cuda.threadIdx.x & 31
    warp = cuda.threadIdx.x >> 5
    if pattern == 1:
        w = lane >> 2
    elif pattern == 2:
        w = (lane >> 3) << 3
    elif pattern == 3:
        w = 0
    elif pattern == 4:
        w = lane + (warp & 1) * 32
    elif pattern == 5:
        w = lane + ((cuda.blockIdx.x * (cuda.blockDim.x >> 5) + warp) & 63) * 32
    else:
        w = lane
    for _ in range(reps):
        cuda.atomic.add(out, w, 1)


@cuda.jit
def red_per_block(out, n):
    t = cuda.threadIdx.x
    if t < n:
        cuda.atomic.add(out, t, 1)


KERNELS = {"red_lanes": red_lanes, "red_per_block": red_per_block}

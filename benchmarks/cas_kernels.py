"""The kernels of ``benchmarks/cas_hw.py``: compare-and-swaps (``cuda.atomic.cas``) against integer adds laid out
over a line's words as ``atomic_lines_kernels`` lays its reductions out.

Written against ``smsim.cuda`` so that smsim simulates exactly the source the H200 runs
(``workloads.numba_bridge.to_numba`` on the device):

* ``cas_lanes(out, pattern, reps, want)``: every thread swaps ``reps`` times at the word its lane names,
  comparing with ``want`` (``out`` holds zeros: ``want`` 0 swaps a 0 in for the 0 there, every compare
  matches and writes; ``want`` -1 never matches, nothing is written); ``pattern`` 0: lane ``l`` at word ``l``
  (32 words of one line, one lane each); 1: word ``l // 4`` (8 words of one sector, 4 lanes each); 3: word
  0 (32 lanes on one word); 6: lane 0 of each warp alone at word 0 (one lane a warp on one word); 7: word
  ``l % 4`` (4 words of one sector, 8 lanes each); 8: lanes 0-3 alone, at words 0-3 (4 words of a sector, one
  lane each); 10: a word of 64 (two lines) hashed from the thread's index (``homework.atomic_max_f32``'s bins);
* ``add_lanes(out, pattern, reps)``: the same layouts with ``cuda.atomic.add`` of 1 whose result the kernel
  keeps (``ATOM``, as the swap's), for the rate of an integer operation on the same words.
"""
from smsim import cuda


@cuda.jit
def cas_lanes(out, pattern, reps, want):
    lane = cuda.threadIdx.x & 31
    if pattern == 1:
        w = lane >> 2
    elif pattern == 3 or pattern == 6:
        w = 0
    elif pattern == 7:
        w = lane & 3
    elif pattern == 10:
        w = ((cuda.grid(1) * 2654435761) >> 7) & 63
    else:
        w = lane
    got = 0
    if (pattern != 6 or lane == 0) and (pattern != 8 or lane < 4):
        for _ in range(reps):
            got += cuda.atomic.cas(out, w, want, want)
    if got == 12345:
        out[4000] = got


@cuda.jit
def add_lanes(out, pattern, reps):
    lane = cuda.threadIdx.x & 31
    if pattern == 1:
        w = lane >> 2
    elif pattern == 3 or pattern == 6:
        w = 0
    elif pattern == 7:
        w = lane & 3
    elif pattern == 10:
        w = ((cuda.grid(1) * 2654435761) >> 7) & 63
    else:
        w = lane
    got = 0
    if (pattern != 6 or lane == 0) and (pattern != 8 or lane < 4):
        for _ in range(reps):
            got += cuda.atomic.add(out, 1024 + w, 0)
    if got == 12345:
        out[4000] = got


KERNELS = {"cas_lanes": cas_lanes, "add_lanes": add_lanes}

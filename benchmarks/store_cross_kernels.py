"""The kernel of ``benchmarks/store_cross_hw.py``: two stores into the same sectors, each putting half of every
sector's words there (the first store the even words, the second the odd ones), by two warps of a block or by
one warp, with what happens between them set at run time, so that how many of the sectors reach L2 once (L1
merged the two) says when the H200's L1 merges stores of different warps.

One block an SM (132 blocks of 128 threads: warps 0 and 1 store, warps 2 and 3 make the junk traffic), ``rounds``
rounds a block, each into ``lines`` lines no store touched before (lane ``l``'s words lie in line ``l // (32 /
lines)``, consecutive lanes two words apart: 32 lines one sector each, a word a warp; 8 lines one sector each,
four words; 2 lines, four sectors each, a whole line between the two stores). A round:

* ``mode`` 0 (``sync``): warp 0 stores; barrier; warps 2 and 3 make ``junk`` stores each (``jfull`` 0: a word in
  each of 32 sectors of 8 lines, none merging with anything; 1: a whole line); barrier; warp 1 waits ``gap``
  steps of a dependent multiply-add chain, then stores;
* ``mode`` 1 (``nosync``): as 0 with no barriers: warp 1's chain starts at once;
* ``mode`` 2 (``same``): warp 0 makes both stores, the junk (between barriers) and the chain between them.

Then a barrier ends the round. Written against ``smsim.cuda`` so that smsim simulates exactly the source the
H200 runs.
"""
import numpy as np

from smsim import cuda


@cuda.jit
def cross(out, junkbuf, rounds, lines, gap, junk, jfull, mode):
    t = cuda.threadIdx.x
    w = t // 32
    lane = t % 32
    per = 32 // lines                       # lanes a line
    word = (lane // per) * 32 + (lane % per) * 2
    x = np.float32(lane)
    for r in range(rounds):
        region = (cuda.blockIdx.x * rounds + r) * lines * 32
        if w == 0:
            out[region + word] = x
        if mode != 1:
            cuda.syncthreads()
        if w >= 2:
            for j in range(junk):
                at = ((cuda.blockIdx.x * rounds + r) * junk + j) * 2 + (w - 2)
                if jfull == 1:
                    junkbuf[at * 256 + lane] = x
                else:
                    junkbuf[at * 256 + lane * 8] = x
        if mode != 1:
            cuda.syncthreads()
        if (mode == 2 and w == 0) or (mode != 2 and w == 1):
            y = x
            for g in range(gap):  # noqa: B007  (the source the H200 ran)
                y = y * np.float32(0.999) + np.float32(0.5)
            out[region + word + 1] = y
        cuda.syncthreads()

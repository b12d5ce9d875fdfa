"""The kernels of ``benchmarks/shared_wide_hw.py``: 8- and 16-byte shared-memory loads (``LDS.64``,
``LDS.128``) whose lanes name the same or different addresses, as tiled float64 code names them.

Written against ``smsim.cuda`` so that smsim simulates exactly the source the H200 runs
(``workloads.numba_bridge.to_numba`` on the device). Each block fills a 1024-double shared array, then every
thread loads ``reps`` times from the element its lane's pattern names (moved by ``64 (r % 4)`` doubles a
repetition: 512 bytes, the same banks, so that the compiler cannot keep one load for all) and writes the sum:

* ``lds64(out, pattern, reps)``: one double a load (``LDS.64``), at ``pattern`` 0: lane ``l``; 1: ``l % 16``
  (two half-warps on the same 16 doubles: ``dgemm``'s column of B); 2: ``l // 16`` (two addresses); 3: 0
  (one address); 4: ``l % 8``; 5: ``2 l`` (32 doubles 16 bytes apart); 6: ``l // 2``;
* ``lds128(out, pattern, reps)``: a pair of doubles a load, ``s[j, 0]`` and ``s[j, 1]`` of a ``(512, 2)``
  array, which the compilers join into one 16-byte load (``LDS.128``; moved by 32 pairs a repetition), at
  ``j`` = pattern 0: ``l``; 1: ``l // 16`` (two addresses:
  ``dgemm``'s row of A); 2: 0; 3: ``l % 8``; 4: ``l % 16``; 5: ``l // 8``; 6: ``l // 2``;
* ``lds32(out, pattern, reps)``: one float a load (``LDS``), a control: pattern 0: lane ``l``; 1: ``2 l``
  (two lanes a bank).
"""
import numpy as np

from smsim import cuda

N = 1024
HALF = N // 2               # lds128's pairs (a module constant: numba needs a literal shape)
QUARTER = N // 4            # tput128's quads


@cuda.jit(device=True)
def _index64(pattern, lane):
    if pattern == 1:
        return lane % 16
    if pattern == 2:
        return lane // 16
    if pattern == 3:
        return 0
    if pattern == 4:
        return lane % 8
    if pattern == 5:
        return 2 * lane
    if pattern == 6:
        return lane // 2
    return lane


@cuda.jit
def lds64(out, pattern, reps):
    s = cuda.shared.array(N, np.float64)
    t = cuda.threadIdx.x
    for k in range(t, N, cuda.blockDim.x):
        s[k] = k
    cuda.syncthreads()
    j = _index64(pattern, t % 32)
    acc = 0.0
    for r in range(reps):
        acc += s[j + 64 * (r % 4)]
    out[cuda.grid(1)] = acc


@cuda.jit
def lds128(out, pattern, reps):
    s = cuda.shared.array((HALF, 2), np.float64)
    t = cuda.threadIdx.x
    for k in range(t, HALF, cuda.blockDim.x):
        s[k, 0] = k
        s[k, 1] = k + 1
    cuda.syncthreads()
    lane = t & 31
    if pattern == 1:
        j = lane >> 4
    elif pattern == 2:
        j = 0
    elif pattern == 3:
        j = lane & 7
    elif pattern == 4:
        j = lane & 15
    elif pattern == 5:
        j = lane >> 3
    elif pattern == 6:
        j = lane >> 1
    else:
        j = lane
    acc = 0.0
    for r in range(reps):
        b = j + ((r & 3) << 5)
        acc += s[b, 0] * s[b, 1]
    out[cuda.grid(1)] = acc


@cuda.jit
def lds32(out, pattern, reps):
    s = cuda.shared.array(N, np.float32)
    t = cuda.threadIdx.x
    for k in range(t, N, cuda.blockDim.x):
        s[k] = k
    cuda.syncthreads()
    lane = t % 32
    j = 2 * lane if pattern == 1 else lane
    acc = np.float32(0.0)
    for r in range(reps):
        acc += s[j + 64 * (r % 4)]
    out[cuda.grid(1)] = acc


KERNELS = {"lds64": lds64, "lds128": lds128, "lds32": lds32}


# Throughput: 64 warps an SM (8 blocks of 256 threads), sixteen loads a loop iteration, each feeding one of four sums
# in turn (float64 for tput64's doubles: a conversion a load would bind it), so that the shared-memory pipe, not a
# chain or the issue of other instructions, bounds the loop; the offsets move every other iteration (else the compiler
# loads once for the loop) by a multiple of 64 bytes, which moves every lane alike. ``spread`` 0: every lane the same
# element; 1: lane ``l`` element ``l``.
@cuda.jit
def tput32(out, spread, reps):
    s = cuda.shared.array(N, np.float32)
    t = cuda.threadIdx.x
    for k in range(t, N, cuda.blockDim.x):
        s[k] = k
    cuda.syncthreads()
    j = (t & 31) if spread else 0        # known not negative: no wraparound test a load
    a0 = a1 = a2 = a3 = np.float32(0.0)
    for r in range(reps):
        b = j + ((r & 1) << 9)
        a0 += s[b]
        a1 += s[b + 32]
        a2 += s[b + 64]
        a3 += s[b + 96]
        a0 += s[b + 128]
        a1 += s[b + 160]
        a2 += s[b + 192]
        a3 += s[b + 224]
        a0 += s[b + 256]
        a1 += s[b + 288]
        a2 += s[b + 320]
        a3 += s[b + 352]
        a0 += s[b + 384]
        a1 += s[b + 416]
        a2 += s[b + 448]
        a3 += s[b + 480]
    out[cuda.grid(1)] = a0 + a1 + a2 + a3


@cuda.jit
def tput64(out, spread, reps):
    s = cuda.shared.array(HALF, np.float64)
    t = cuda.threadIdx.x
    for k in range(t, HALF, cuda.blockDim.x):
        s[k] = k
    cuda.syncthreads()
    j = (t & 31) if spread else 0        # known not negative: no wraparound test a load
    a0 = a1 = a2 = a3 = 0.0
    for r in range(reps):
        b = j + ((r & 1) << 8)
        a0 += s[b]
        a1 += s[b + 8]
        a2 += s[b + 16]
        a3 += s[b + 24]
        a0 += s[b + 32]
        a1 += s[b + 40]
        a2 += s[b + 48]
        a3 += s[b + 56]
        a0 += s[b + 64]
        a1 += s[b + 72]
        a2 += s[b + 80]
        a3 += s[b + 88]
        a0 += s[b + 96]
        a1 += s[b + 104]
        a2 += s[b + 112]
        a3 += s[b + 120]
    out[cuda.grid(1)] = a0 + a1 + a2 + a3


@cuda.jit
def tput128(out, spread, reps):
    s = cuda.shared.array((QUARTER, 4), np.float32)
    t = cuda.threadIdx.x
    for k in range(t, QUARTER, cuda.blockDim.x):
        s[k, 0] = k
        s[k, 1] = k + 1
        s[k, 2] = k + 2
        s[k, 3] = k + 3
    cuda.syncthreads()
    j = (t & 31) if spread else 0        # known not negative: no wraparound test a load
    a0 = a1 = a2 = a3 = np.float32(0.0)
    for r in range(reps):
        b = j + ((r & 1) << 7)
        a0 += s[b, 0] + s[b, 1] + s[b, 2] + s[b, 3]
        a1 += s[b + 4, 0] + s[b + 4, 1] + s[b + 4, 2] + s[b + 4, 3]
        a2 += s[b + 8, 0] + s[b + 8, 1] + s[b + 8, 2] + s[b + 8, 3]
        a3 += s[b + 12, 0] + s[b + 12, 1] + s[b + 12, 2] + s[b + 12, 3]
        a0 += s[b + 16, 0] + s[b + 16, 1] + s[b + 16, 2] + s[b + 16, 3]
        a1 += s[b + 20, 0] + s[b + 20, 1] + s[b + 20, 2] + s[b + 20, 3]
        a2 += s[b + 24, 0] + s[b + 24, 1] + s[b + 24, 2] + s[b + 24, 3]
        a3 += s[b + 28, 0] + s[b + 28, 1] + s[b + 28, 2] + s[b + 28, 3]
        a0 += s[b + 32, 0] + s[b + 32, 1] + s[b + 32, 2] + s[b + 32, 3]
        a1 += s[b + 36, 0] + s[b + 36, 1] + s[b + 36, 2] + s[b + 36, 3]
        a2 += s[b + 40, 0] + s[b + 40, 1] + s[b + 40, 2] + s[b + 40, 3]
        a3 += s[b + 44, 0] + s[b + 44, 1] + s[b + 44, 2] + s[b + 44, 3]
        a0 += s[b + 48, 0] + s[b + 48, 1] + s[b + 48, 2] + s[b + 48, 3]
        a1 += s[b + 52, 0] + s[b + 52, 1] + s[b + 52, 2] + s[b + 52, 3]
        a2 += s[b + 56, 0] + s[b + 56, 1] + s[b + 56, 2] + s[b + 56, 3]
        a3 += s[b + 60, 0] + s[b + 60, 1] + s[b + 60, 2] + s[b + 60, 3]
    out[cuda.grid(1)] = a0 + a1 + a2 + a3


TPUT = {"tput32": tput32, "tput64": tput64, "tput128": tput128}

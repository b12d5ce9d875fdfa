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

"""Microbenchmarks: tiny kernels that expose one number of the memory system each, for calibration.

What the family teaches, and what the timing model is calibrated against (the H200 measurements in
``/work/shared/hardware``, made with CUDA C kernels these mirror):

* latency: one thread chases pointers, ``j = a[j]``, so every load waits for the previous one; the array's
  size and stride decide where the chase hits: a 16 KB shared array; 8 KB and 64 KB global arrays with a
  128-byte stride, warmed first by the block: L1; a warmed 4 MB array (past L1's capacity): L2; a cold 256 MB
  array with a 2 MiB + 128 B stride: DRAM. ``ffma_dep`` is the same for a dependent FP32 multiply-add chain.
  (The H200 latencies came from ``clock64()`` around the loop; these kernels have no clock, so a warm-up
  replaces "measure after the caches are warm".)
* shared-memory banks: lane ``l`` of every warp re-reads shared word ``l * stride`` in a dependent loop (32
  banks of 4 bytes: stride 1, 3, 33 cost 1 wavefront per access, 2 -> 2, 4 -> 4, 8 -> 8, 16 -> 16, 32 and
  64 -> 32, stride 0 is a broadcast); the float2/float4 versions (lane ``l`` reads element ``l``: 2 and 4
  wavefronts) are ISA text in ``ptx/bank_stride.ptx``. One warp shows latency, 32 warps throughput.
* latency hiding on the whole GPU: a coalesced read of a large array with ``K`` loads in flight per thread
  (``stream_ilp{K}``), blocks of 128 threads and dynamic shared memory per block that limits how many blocks
  fit on an SM (``_w{warps per SM}``); bandwidth rises with warps x loads in flight until DRAM saturates.
* latency hiding on one SM: one block of ``W`` warps, each thread streaming with one load in flight.

Chases and streams index with unsigned 32-bit words: numba wraps negative signed indices, which would put
three more dependent instructions on every access's path. Streams read chains (element ``i`` holds the next
index of its chain) so that the number of loads in flight is fixed by the kernel, not by the compiler's
unrolling; see the comment above ``stream_ilp1``.

Life of a case: ``build(n, rng)`` makes the chase array (``n`` uint32 words), the stream array (about ``n``
words) or the bank launch (``n`` warps), and expects what the kernel writes (the numpy reference): the final
chase index, the word each lane's dependent shared loads ended on, or per thread the sum of its chains' final
indices. Outputs that could legitimately be 0 start at all ones.
"""
import numpy as np

from smsim import cuda
from smsim.case import Case, Setup
from .case import PtxKernel

CHASE_ITERS = 4096           # dependent accesses per latency measurement (as on the H200)
SHARED_CHASE_WORDS = 4096    # 16 KB shared chase array
CHASE_FILL_BLOCK = 256       # threads that copy the chase array into shared memory
CHASE_WARM_BLOCK = 256       # threads that warm the caches before a global L1/L2 chase
BANK_WORDS = 2048            # 8 KB shared array: room for stride 64 (lane 31 reads word 1984)
BANK_ITERS = 4096
SMS = 132                    # H100/H200 SXM
STREAM_BLOCK = 128
SINGLE_SM_ITERS = 2048


# ---------------------------------------------------------------------------------------- latency
@cuda.jit
def ffma_chain(out, a, iters):
    """One thread, 8 dependent ``x = x*a + 1`` per iteration (so the FMA chain, not the loop counter, is the
    critical path): FP32 FMA latency, no memory."""
    x = np.float32(0)
    for _ in range(iters):
        x = x * a + np.float32(1)
        x = x * a + np.float32(1)
        x = x * a + np.float32(1)
        x = x * a + np.float32(1)
        x = x * a + np.float32(1)
        x = x * a + np.float32(1)
        x = x * a + np.float32(1)
        x = x * a + np.float32(1)
    out[0] = x


@cuda.jit
def chase_global(a, out, iters):
    """One thread, ``j = a[j]`` from cold caches: one load in flight, each access pays the full DRAM latency."""
    j = np.uint32(0)                         # unsigned: no negative-index wraparound on the dependent path
    for _ in range(iters):
        j = a[j]
    out[0] = j


@cuda.jit
def chase_warm(a, out, iters, stride):
    """The block first touches every ``stride``-th word (the words the chase visits), so they sit in L2 (and,
    for a small array, L1); then thread 0 chases ``j = a[j]``: L1 or L2 hit latency, one load in flight."""
    tid = cuda.threadIdx.x
    acc = np.uint32(0)
    for k in range(tid * stride, a.shape[0], cuda.blockDim.x * stride):
        acc += a[k]
    out[1 + tid] = acc
    cuda.syncthreads()
    if tid == 0:
        j = np.uint32(0)
        for _ in range(iters):
            j = a[j]
        out[0] = j


@cuda.jit
def chase_shared(a, out, iters):
    """The block copies the chase array into a 16 KB shared array; thread 0 chases it: shared-load latency."""
    buf = cuda.shared.array(SHARED_CHASE_WORDS, np.uint32)
    n = min(a.shape[0], SHARED_CHASE_WORDS)
    for k in range(cuda.threadIdx.x, n, cuda.blockDim.x):
        buf[k] = a[k]
    cuda.syncthreads()
    if cuda.threadIdx.x == 0:
        j = np.uint32(0)
        for _ in range(iters):
            j = buf[j]
        out[0] = j


# ---------------------------------------------------------------------------------------- shared banks
@cuda.jit
def bank_stride(out, stride, iters):
    """Lane l re-reads shared word l*stride in a dependent loop: as many wavefronts as words per bank."""
    buf = cuda.shared.array(BANK_WORDS, np.uint32)
    tid = cuda.threadIdx.x
    for k in range(tid, BANK_WORDS, cuda.blockDim.x):
        buf[k] = k                           # every word points to itself
    cuda.syncthreads()
    j = np.uint32(cuda.laneid * stride)
    for _ in range(iters):
        j = buf[j]
    out[tid] = j


# ---------------------------------------------------------------------------------------- streams
# The streams read a uint32 array whose element i holds the index the same chain reads next (i + K * threads),
# so each chain's next load waits for its previous one: exactly K loads in flight per thread whatever the
# compiler does. (A float grid-stride loop with K accumulators does not pin this down: numba/NVVM unrolls it
# 4x and ptxas hoists the loads, so "1 load in flight" becomes 4 on the GPU.) Lanes of a warp read consecutive
# words (coalesced, 4 sectors per request) and every element is read once.
@cuda.jit
def stream_ilp1(a, out):
    """Coalesced dependent-chain stream, 1 load in flight per thread; occupancy set by dynamic shared memory."""
    occupancy_limiter = cuda.shared.array(0, np.float32)  # noqa: F841 - only its size (shared_bytes) matters
    n = a.shape[0]
    g = cuda.grid(1)
    j0 = np.uint32(g)
    while j0 < n:
        j0 = a[j0]
    out[g] = j0


@cuda.jit
def stream_ilp2(a, out):
    """Coalesced stream, 2 independent chains per thread: 2 loads in flight per thread."""
    occupancy_limiter = cuda.shared.array(0, np.float32)  # noqa: F841 - only its size (shared_bytes) matters
    n = a.shape[0]
    g = cuda.grid(1)
    t = cuda.gridsize(1)
    j0 = np.uint32(g)
    j1 = np.uint32(g + t)
    while j1 < n:
        j0 = a[j0]
        j1 = a[j1]
    out[g] = j0 + j1


@cuda.jit
def stream_ilp4(a, out):
    """Coalesced stream, 4 independent chains per thread: 4 loads in flight per thread."""
    occupancy_limiter = cuda.shared.array(0, np.float32)  # noqa: F841 - only its size (shared_bytes) matters
    n = a.shape[0]
    g = cuda.grid(1)
    t = cuda.gridsize(1)
    j0 = np.uint32(g)
    j1 = np.uint32(g + t)
    j2 = np.uint32(g + 2 * t)
    j3 = np.uint32(g + 3 * t)
    while j3 < n:
        j0 = a[j0]
        j1 = a[j1]
        j2 = a[j2]
        j3 = a[j3]
    out[g] = (j0 + j1) + (j2 + j3)


@cuda.jit
def stream_ilp8(a, out):
    """Coalesced stream, 8 independent chains per thread: 8 loads in flight per thread."""
    occupancy_limiter = cuda.shared.array(0, np.float32)  # noqa: F841 - only its size (shared_bytes) matters
    n = a.shape[0]
    g = cuda.grid(1)
    t = cuda.gridsize(1)
    j0 = np.uint32(g)
    j1 = np.uint32(g + t)
    j2 = np.uint32(g + 2 * t)
    j3 = np.uint32(g + 3 * t)
    j4 = np.uint32(g + 4 * t)
    j5 = np.uint32(g + 5 * t)
    j6 = np.uint32(g + 6 * t)
    j7 = np.uint32(g + 7 * t)
    while j7 < n:
        j0 = a[j0]
        j1 = a[j1]
        j2 = a[j2]
        j3 = a[j3]
        j4 = a[j4]
        j5 = a[j5]
        j6 = a[j6]
        j7 = a[j7]
    out[g] = ((j0 + j1) + (j2 + j3)) + ((j4 + j5) + (j6 + j7))


# ---------------------------------------------------------------------------------------- references
def ref_ffma_chain(a, fmas):
    x = np.float32(0)
    for _ in range(fmas):
        x = np.float32(x * a + np.float32(1))   # x*0.5 is exact: FMA or not, the same result
    return np.array([x], np.float32)


def ref_chase(a, iters):
    j = 0
    for _ in range(iters):
        j = int(a[j])
    return np.array([j], np.uint32)


ref_chase_global = ref_chase
ref_chase_shared = ref_chase


def ref_chase_warm(a, iters, stride, threads):
    """out[0]: the chase's final index; out[1 + t]: thread t's warm-up sum of a[t*stride::threads*stride]."""
    warm = [int(a[t * stride::threads * stride].astype(np.int64).sum()) for t in range(threads)]
    return np.array([ref_chase(a, iters)[0]] + warm, np.int64).astype(np.uint32)


def ref_bank_stride(threads, stride):
    return ((np.arange(threads) % 32) * stride).astype(np.uint32)


def ref_bank_f2(threads, iters):
    return ((np.arange(threads) % 32) * iters).astype(np.float32)


def ref_bank_f4(threads, iters):
    return ((np.arange(threads) % 32) * (3 * iters)).astype(np.float32)


def ref_stream(a, threads, ilp):
    """Follow every chain: chain c of thread g starts at g + c*threads; each thread writes the sum of its
    chains' final indices (the first index at or past the end, reached after every load succeeded)."""
    n = len(a)
    j = np.arange(threads, dtype=np.int64)[:, None] + threads * np.arange(ilp, dtype=np.int64)[None, :]
    while True:
        active = j[:, ilp - 1] < n
        if not active.any():
            break
        j[active] = a[j[active]]
    return j.sum(axis=1).astype(np.uint32)


def ref_stream_ilp1(a, threads):
    return ref_stream(a, threads, 1)


def ref_stream_ilp2(a, threads):
    return ref_stream(a, threads, 2)


def ref_stream_ilp4(a, threads):
    return ref_stream(a, threads, 4)


def ref_stream_ilp8(a, threads):
    return ref_stream(a, threads, 8)


# ---------------------------------------------------------------------------------------- builders
def _build_ffma(n, rng):
    """``n`` dependent FMAs (a multiple of 8)."""
    a = np.float32(0.5)
    out = np.zeros(1, np.float32)
    iters = max(1, n // 8)
    return Setup(grid=(1,), block=(1,), args=(out, a, np.int32(iters)), expected={0: ref_ffma_chain(a, 8 * iters)},
                 rtol=0.0, atol=0.0)


def _chase_array(n, stride):
    return ((np.arange(n, dtype=np.int64) + stride) % n).astype(np.uint32)


def _build_chase_global(stride):
    def build(n, rng):
        a = _chase_array(n, stride)
        out = np.full(1, 0xFFFFFFFF, np.uint32)
        return Setup(grid=(1,), block=(1,), args=(a, out, np.int32(CHASE_ITERS)),
                     expected={1: ref_chase_global(a, CHASE_ITERS)})
    return build


def _build_chase_warm(stride):
    def build(n, rng):
        a = _chase_array(n, stride)
        out = np.full(1 + CHASE_WARM_BLOCK, 0xFFFFFFFF, np.uint32)
        return Setup(grid=(1,), block=(CHASE_WARM_BLOCK,), args=(a, out, np.int32(CHASE_ITERS), np.int32(stride)),
                     expected={1: ref_chase_warm(a, CHASE_ITERS, stride, CHASE_WARM_BLOCK)})
    return build


def _build_chase_shared(n, rng):
    if n > SHARED_CHASE_WORDS:
        raise ValueError(f"the shared chase array holds at most {SHARED_CHASE_WORDS} words, not {n}")
    a = _chase_array(n, 1)
    out = np.full(1, 0xFFFFFFFF, np.uint32)
    return Setup(grid=(1,), block=(CHASE_FILL_BLOCK,), args=(a, out, np.int32(CHASE_ITERS)),
                 expected={1: ref_chase_shared(a, CHASE_ITERS)})


def _build_bank_stride(stride):
    def build(n, rng):
        threads = 32 * n
        out = np.full(threads, 0xFFFFFFFF, np.uint32)
        return Setup(grid=(1,), block=(threads,), args=(out, np.int32(stride), np.int32(BANK_ITERS)),
                     expected={0: ref_bank_stride(threads, stride)})
    return build


def _build_bank_vec(ref):
    def build(n, rng):
        threads = 32 * n
        out = np.full(threads, -1, np.float32)
        return Setup(grid=(1,), block=(threads,), args=(out, np.uint32(BANK_ITERS)),
                     expected={0: ref(threads, BANK_ITERS)}, rtol=0.0, atol=0.0)
    return build


def _stream_array(n, threads, ilp):
    """``n`` rounded down to whole passes of ``ilp * threads`` words; element i -> i + ilp*threads."""
    step = ilp * threads
    length = max(1, n // step) * step
    return np.arange(step, length + step, dtype=np.uint32)


def _build_stream(ilp, ref, blocks_per_sm, shared_bytes):
    def build(n, rng):
        blocks = min(SMS * blocks_per_sm, max(1, n // (STREAM_BLOCK * 8)))
        threads = blocks * STREAM_BLOCK
        a = _stream_array(n, threads, ilp)
        out = np.zeros(threads, np.uint32)
        return Setup(grid=(blocks,), block=(STREAM_BLOCK,), args=(a, out), expected={1: ref(a, threads)},
                     shared_bytes=shared_bytes)
    return build


def _build_single_sm(warps):
    def build(n, rng):
        threads = 32 * warps
        a = _stream_array(n, threads, 1)
        out = np.zeros(threads, np.uint32)
        return Setup(grid=(1,), block=(threads,), args=(a, out), expected={1: ref_stream_ilp1(a, threads)})
    return build


# ---------------------------------------------------------------------------------------- cases
CASES = [
    Case("microbench", "ffma_dep", ffma_chain, _build_ffma, {"test": 256, "full": 4096},
         "one thread, n dependent FP32 FMAs x = x*0.5 + 1 (8 per loop iteration): FMA latency"),
    Case("microbench", "chase_shared", chase_shared, _build_chase_shared, {"test": 1024, "full": SHARED_CHASE_WORDS},
         "one thread chases j = buf[j] 4096 times in a 16 KB shared array (n words used): shared latency"),
    Case("microbench", "chase_l1", chase_warm, _build_chase_warm(32), {"test": 512, "full": 2048},
         "warm-up, then one thread chases 4096 times over n uint32 words (8 KB full), 128 B stride: L1 hits"),
    Case("microbench", "chase_l1_64k", chase_warm, _build_chase_warm(32), {"test": 4096, "full": 16384},
         "warm-up, then one thread chases 4096 times over 64 KB (full), 128 B stride: L1 at 512 lines"),
    Case("microbench", "chase_l2", chase_warm, _build_chase_warm(32), {"test": 16384, "full": 1 << 20},
         "warm-up, then one thread chases 4096 lines of a 4 MB (full) array, 128 B stride, past L1: L2 hits"),
    Case("microbench", "chase_dram", chase_global, _build_chase_global(524320), {"test": 1 << 18, "full": 1 << 26},
         "one thread chases 4096 times over 256 MB (full) with a 2 MiB + 128 B stride, cold: DRAM latency"),
]

for _stride in (0, 1, 2, 3, 4, 8, 16, 32, 33, 64):
    CASES.append(Case("microbench", f"bank_stride{_stride}", bank_stride, _build_bank_stride(_stride),
                      {"test": 1, "full": 32},
                      f"n warps (1 block); lane l re-reads shared word l*{_stride} 4096 times, dependent: "
                      f"{'broadcast' if _stride == 0 else 'bank conflicts by stride'}"))

CASES += [
    Case("microbench", "bank_f2", PtxKernel("ptx/bank_stride.ptx", "smem_bank_v2"), _build_bank_vec(ref_bank_f2),
         {"test": 1, "full": 32},
         "n warps; lane l re-reads float2 element l (ld.shared.v2.f32), dependent: 2 wavefronts"),
    Case("microbench", "bank_f4", PtxKernel("ptx/bank_stride.ptx", "smem_bank_v4"), _build_bank_vec(ref_bank_f4),
         {"test": 1, "full": 32},
         "n warps; lane l re-reads float4 element l (ld.shared.v4.f32), dependent: 4 wavefronts"),
]

# Blocks of 128 threads per SM and the dynamic shared memory per block that allows exactly that many on an
# H100/H200 SM (228 KB per SM, 1 KB reserved per block), as in the H200 occupancy measurements.
OCCUPANCY_SHARED_BYTES = {1: 204800, 2: 111616, 3: 74069, 4: 55296, 6: 36522, 8: 27136, 12: 17749, 16: 0}
_STREAM_KERNELS = {1: stream_ilp1, 2: stream_ilp2, 4: stream_ilp4, 8: stream_ilp8}
_STREAM_REFS = {1: ref_stream_ilp1, 2: ref_stream_ilp2, 4: ref_stream_ilp4, 8: ref_stream_ilp8}
_STREAM_OCCUPANCIES = {1: (1, 2, 3, 4, 6, 8, 12, 16), 4: (1, 2, 3, 4, 6, 8, 12, 16), 2: (1, 4, 16), 8: (1, 4, 16)}

for _ilp in (1, 2, 4, 8):
    for _bps in _STREAM_OCCUPANCIES[_ilp]:
        _smem = OCCUPANCY_SHARED_BYTES[_bps]
        CASES.append(Case("microbench", f"stream_ilp{_ilp}_w{4 * _bps}", _STREAM_KERNELS[_ilp],
                          _build_stream(_ilp, _STREAM_REFS[_ilp], _bps, _smem), {"test": 8192, "full": 1 << 26},
                          f"coalesced read of n words (256 MB full), {_ilp} loads in flight per thread, "
                          f"{_bps} blocks x 128 threads per SM ({4 * _bps} warps/SM) via {_smem} B dynamic shared"))

for _w in (1, 2, 4, 8, 16, 32):
    CASES.append(Case("microbench", f"single_sm_w{_w}", stream_ilp1, _build_single_sm(_w),
                      {"test": 32 * _w * 16, "full": 32 * _w * SINGLE_SM_ITERS},
                      f"one block of {_w} warps reads n words (full: 2048 coalesced loads per thread), "
                      f"one in flight per thread: one SM's latency hiding"))

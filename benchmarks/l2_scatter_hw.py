"""How many sectors an H200's L2 returns per unit of time when the data is in L2 but a warp's request is
spread over many lines: throughput by sectors per line of a request and by the number of SMs asking.

Run on the device machine, from the repository root (python3 with numba-cuda)::

    python3 benchmarks/l2_scatter_hw.py --out $OUT/l2_scatter_hw.json

Why: ``everyday.gather_mod`` (``out[i] = a[97 i % n]``) at its full size reads a 64 MB array one sector per
line; the H200's L2 holds 82% of those sectors when they are read (8 lanes of different warps share each
sector), so it reads 90 MB from DRAM, yet it takes 132 us: its L2 returns 74 sectors a cycle, 2.4 KB a cycle
of the 4.1 KB a cycle it returns to whole-line reads. If L2 (its slices' tag lookups, or the crossbar)
serves requests of one sector per line at a lower rate than whole lines, every gather, strided read and
column walk that hits in L2 is bound by it.

Each kernel reads an 8 MiB float32 array (it stays in L2; the first launch brings it, and is not timed) with
warp requests of one pattern, four requests of a thread in flight together: lane ``l`` of request ``r``
reads word ``(r * 32 + l) * stride`` (modulo the array: ``stride`` 1, 2, 4, 8, 16 or 32 words, that is
4, 8, 16 or 32 sectors a request in 1, 2, 4, 8, 16 or 32 lines), or a hashed word (32 random sectors in as
many lines). A warp takes requests ``warp, warp + warps, ...``, so what one SM reads is spread over the
array and its L1 (256 KB) seldom holds it. ``sms`` blocks of 1024 threads, which the H200 places one on each
of ``sms`` SMs (each block notes its ``%smid``; the rows say how many distinct SMs ran them), ``sms`` 132,
66, 33, 16 and 8: a rate that grows with the SMs is the SMs' own (L1, their port to L2), one that does not
is L2's. Then the same patterns on all SMs over a 1 GiB array, which L2 does not hold: what DRAM gives to
requests of one sector per line (each miss reads 64 bytes) against whole lines. Timed with CUDA events
around launches of about a millisecond (numba's ~25 us of host-side launch work is 2-3% of it), the median
of three after a warm-up launch.
"""
from __future__ import annotations

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import hw_probe  # noqa: E402  (beside this file)

ARRAY_WORDS = 1 << 21           # 8 MiB of float32
DRAM_WORDS = 1 << 28            # 1 GiB: the DRAM rows
STRIDES = (1, 2, 4, 8, 16, 32)  # words between lanes; 0: a hashed word per lane
PATTERNS = STRIDES + (0,)
SMS = (132, 66, 33, 16, 8)
THREADS = 1024
SECTORS_PER_SM = 1 << 21        # sectors a launch reads per SM asking (about a millisecond at 132 SMs)
ROUNDS = 3


def sectors_per_request(stride: int) -> int:
    """32-byte sectors a warp request of this pattern reads (0: random words, 32 sectors)."""
    return 32 if stride == 0 else min(32, stride * 4)


def _kernel():
    cuda, np = hw_probe.numba_cuda()
    smid = hw_probe.special("smid", 32)

    @cuda.jit
    def scatter(a, out, stride, loops, where):
        """Requests ``warp + k warps`` (k = 0, 1, ...: four in flight a thread); lane ``l`` of request ``r`` reads
        word ``(32 r + l) stride`` of ``a``, or with ``stride`` 0 a hashed word; ``where[block]``: its SM."""
        if cuda.threadIdx.x == 0:
            where[cuda.blockIdx.x] = smid()
        mask = a.shape[0] - 1
        lane = cuda.threadIdx.x & 31
        warps = cuda.gridDim.x * (cuda.blockDim.x >> 5)
        r = cuda.blockIdx.x * (cuda.blockDim.x >> 5) + (cuda.threadIdx.x >> 5)
        acc = np.float32(0.0)
        for _ in range(loops):
            v0 = (r * 32 + lane)
            v1 = ((r + warps) * 32 + lane)
            v2 = ((r + 2 * warps) * 32 + lane)
            v3 = ((r + 3 * warps) * 32 + lane)
            if stride == 0:
                e0, e1 = (v0 * 2654435761) >> 9, (v1 * 2654435761) >> 9
                e2, e3 = (v2 * 2654435761) >> 9, (v3 * 2654435761) >> 9
            else:
                e0, e1, e2, e3 = v0 * stride, v1 * stride, v2 * stride, v3 * stride
            acc += (a[e0 & mask] + a[e1 & mask]) + (a[e2 & mask] + a[e3 & mask])
            r += 4 * warps
        if acc == np.float32(-1.0):
            out[0] = acc

    return cuda, np, scatter


def run(out_path: str) -> None:
    cuda, np, scatter = _kernel()
    sink = cuda.to_device(np.zeros(1, np.float32))
    rows = []
    for words, sms_list in ((ARRAY_WORDS, SMS), (DRAM_WORDS, SMS[:1])):
        a = cuda.to_device(np.ones(words, np.float32))
        rows += _rows(scatter, a, sink, sms_list, words)
        del a
    hw_probe.write(out_path, threads=THREADS, rows=rows)


def _rows(scatter, a, sink, sms_list, words) -> list:
    cuda, np = hw_probe.numba_cuda()
    rows = []
    for sms in sms_list:
        for stride in PATTERNS:
            per_request = sectors_per_request(stride)
            requests = SECTORS_PER_SM * sms // per_request
            warps = sms * THREADS // 32
            loops = max(1, requests // (4 * warps))
            requests = loops * 4 * warps
            where = cuda.to_device(np.zeros(sms, np.int32))
            times = hw_probe.event_ns(scatter[sms, THREADS], (a, sink, stride, loops, where), ROUNDS)
            ns = float(np.median(times))
            distinct = len(set(where.copy_to_host().tolist()))
            sectors = requests * per_request
            rows.append(dict(array_words=words, sms=sms, distinct_sms=distinct, stride=stride,
                             sectors_per_request=per_request, requests=requests, sectors=sectors, ns=times,
                             ns_median=ns, sectors_per_ns=sectors / ns))
            print(f"array {words * 4 >> 20:5d} MiB sms {sms:3d} stride {stride:2d}: {ns / 1e3:8.1f} us, "
                  f"{sectors / ns:6.1f} sectors/ns, {sectors / ns / sms:5.2f} per SM ({distinct} SMs)", flush=True)
    return rows


if __name__ == "__main__":
    sys.exit(hw_probe.main(__doc__, run))

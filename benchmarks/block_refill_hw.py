"""How long an SM's block slot stays empty between one block's end and the next block's start, by block size,
on an H200: the vector add at 32 to 1024 threads a block, profiled by ncu and stamped per warp.

Run on the device machine, from the repository root (python3 with numba-cuda and ncu)::

    PYTHONPATH=. python3 benchmarks/block_refill_hw.py --out $OUT/block_refill_hw.json

and, on any machine, smsim beside what it recorded (``--sim FILE``), or the stamps' gaps (``--analyse FILE``).

Why: ``everyday.vadd_b1024`` (1024-thread blocks, two an SM) runs at 1.16 of the H200's time at its full size
while the same add in 256-thread blocks (``vector.vec_add``) and in 64-thread ones (``vadd_b64``) are right
(0.99, 1.00); without ``launch.block_launch_cycles`` (330 cycles from a block's retirement to the start of
the one taking its slot, measured with 128-thread blocks, one to four an SM) it would run at 1.04. Does a
large block's slot refill as slowly as a small one's, and does the H200 lose what smsim loses while one of
two resident blocks is replaced?

Part 1 (ncu, ``--clock-control none``): ``workloads.everyday.vadd`` (the source smsim runs) over 2^24 floats
at each of :data:`BLOCK_SIZES` threads a block, each launched once: duration, SM cycles, instructions, warps
launched, achieved occupancy, DRAM bytes and the stall reasons.
Part 2 (stamps, no profiler): the same add with lane 0 of every warp stamping ``%smid``, its block,
``%clock64`` at its start and again once its store has issued (the last thing it does), one row a warp;
``REPEATS`` launches of each block size after L2 was cleared by reading 512 MiB. ``--analyse``: per launch
and SM, a block starts with its first warp's start stamp and ends with its last warp's end stamp; its *gap*
is its start less the latest end, before that start, of a block of the same SM (the block whose slot it
took, once the first wave is resident): mean, median, 10th and 90th percentile over the blocks that are not
in their SM's first wave. The stamps of SMs 0 and 1 in the first launch of :data:`RAW_SIZES` are kept as they are
(``raw``): how many of a block's warps were still running when the next block started.
"""
from __future__ import annotations

import functools
import json
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import hw_probe  # noqa: E402  (beside this file)

N = 1 << 24
BLOCK_SIZES = (32, 64, 128, 256, 512, 1024)
REPEATS = 3
RAW_SIZES = (128, 256, 512, 1024)     # block sizes whose first launch's stamps are kept as they are ...
RAW_SMS = 2                           # ... those of SMs 0 and 1
CLEAR_BYTES = 512 << 20
METRICS = ("gpu__time_duration.sum", "sm__cycles_elapsed.max", "sm__cycles_elapsed.avg", "sm__cycles_active.avg",
           "smsp__inst_executed.sum", "smsp__warps_launched.sum", "sm__warps_active.avg.pct_of_peak_sustained_active",
           "dram__bytes_read.sum", "dram__bytes_write.sum")


def _vadd():
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
    from workloads.everyday import vadd
    return vadd


@functools.lru_cache(maxsize=None)
def _stamped():
    cuda, np = hw_probe.numba_cuda()
    clock64, smid = hw_probe.special("clock64", 64), hw_probe.special("smid", 32)

    @cuda.jit
    def vadd_stamped(a, b, out, st):
        c0 = clock64()
        i = cuda.grid(1)
        if i < out.shape[0]:
            out[i] = a[i] + b[i]
        c1 = clock64()
        if cuda.threadIdx.x % 32 == 0:
            w = i // 32
            st[w, 0] = smid()
            st[w, 1] = cuda.blockIdx.x
            st[w, 2] = c0
            st[w, 3] = c1

    return vadd_stamped


def _arrays(np, to_device=lambda x: x) -> tuple:
    rng = np.random.default_rng(0)
    return (to_device(rng.random(N, dtype=np.float32)), to_device(rng.random(N, dtype=np.float32)),
            to_device(np.zeros(N, np.float32)))


def once() -> None:
    """Part 1's launches, each once (what ``ncu`` profiles)."""
    cuda, np = hw_probe.numba_cuda()
    from workloads.numba_bridge import to_numba
    k = to_numba(_vadd())
    args = _arrays(np, cuda.to_device)
    for t in BLOCK_SIZES:
        k[(N + t - 1) // t, t](*args)
        cuda.synchronize()


def run(out_path: str, ncu: str) -> None:
    cuda, np = hw_probe.numba_cuda()
    stamped, clear = _stamped(), hw_probe.clear_kernel()
    a, b, out = _arrays(np, cuda.to_device)
    buf = cuda.to_device(np.ones(CLEAR_BYTES // 4, np.float32))
    sink = cuda.to_device(np.zeros(1, np.float32))
    stamps, raw = [], []
    for t in BLOCK_SIZES:
        for r in range(REPEATS):
            st = cuda.to_device(np.zeros((N // 32, 4), np.int64))
            clear[132 * 8, 256](buf, sink)
            stamped[(N + t - 1) // t, t](a, b, out, st)
            cuda.synchronize()
            table = st.copy_to_host()
            gaps = block_gaps(np, table)
            stamps.append(dict(threads=t, repeat=r, **gaps))
            if r == 0 and t in RAW_SIZES:             # the first launch's stamps of a few SMs, as they are
                mine = table[(table[:, 2] > 0) & (table[:, 0] < RAW_SMS)]
                raw.append(dict(threads=t, columns=["smid", "block", "start", "end"], rows=mine.tolist()))
            print(f"stamps {t:5d} threads, launch {r}: gap mean {gaps['gap_mean']:.0f} median "
                  f"{gaps['gap_median']:.0f} p10 {gaps['gap_p10']:.0f} p90 {gaps['gap_p90']:.0f} cycles over "
                  f"{gaps['refills']} refills; block life {gaps['life_mean']:.0f}", flush=True)
    rows = []
    script = str(pathlib.Path(__file__).resolve())
    for t, m in zip(BLOCK_SIZES, hw_probe.ncu_profile(ncu, script, METRICS, len(BLOCK_SIZES))):
        rows.append(dict(threads=t, metrics=m))
        active = m.get("sm__warps_active.avg.pct_of_peak_sustained_active", 0.0)
        print(f"vadd {t:5d} threads: {m['gpu__time_duration.sum'] / 1e3:8.2f} us, SM cycles max "
              f"{m['sm__cycles_elapsed.max']:.0f}, warps active {active:.1f}%, " + hw_probe.top_stalls(m), flush=True)
    hw_probe.write(out_path, rows=rows, stamps=stamps, raw=raw)


def block_gaps(np, st) -> dict:
    """The refill gaps of one stamped launch (``st``: smid, block, start clock, end clock per warp), in
    cycles of the SM's clock (see the module docstring)."""
    st = st[st[:, 2] > 0]
    blocks = np.unique(st[:, 1])
    at = np.searchsorted(blocks, st[:, 1])
    start = np.full(len(blocks), np.iinfo(np.int64).max)
    end = np.zeros(len(blocks), np.int64)
    np.minimum.at(start, at, st[:, 2])
    np.maximum.at(end, at, st[:, 3])
    sm = np.zeros(len(blocks), np.int64)
    sm[at] = st[:, 0]
    gaps, lives = [], (end - start).astype(float)
    for s in np.unique(sm):
        mine = np.flatnonzero(sm == s)
        ends = np.sort(end[mine])
        k = np.searchsorted(ends, start[mine])          # how many blocks of this SM ended before each started
        later = k > 0                                   # not in the SM's first wave
        gaps.append(start[mine][later] - ends[k[later] - 1])
    g = np.concatenate(gaps).astype(float) if gaps else np.zeros(0)
    n = len(g)
    if not n:
        g = np.zeros(1)
    return dict(refills=n, gap_mean=float(g.mean()), gap_median=float(np.median(g)),
                gap_p10=float(np.percentile(g, 10)), gap_p90=float(np.percentile(g, 90)),
                life_mean=float(lives.mean()), blocks=int(len(blocks)))


def analyse(path: str) -> None:
    """Print the stamps' gaps and part 1's rows of ``path``."""
    data = json.loads(pathlib.Path(path).read_text())
    for s in data["stamps"]:
        print(f"{s['threads']:5d} threads, launch {s['repeat']}: gap mean {s['gap_mean']:.0f} median "
              f"{s['gap_median']:.0f} p10 {s['gap_p10']:.0f} p90 {s['gap_p90']:.0f} ({s['refills']} refills), "
              f"block life {s['life_mean']:.0f}")
    for r in data["rows"]:
        m = r["metrics"]
        print(f"vadd {r['threads']:5d} threads: {m['gpu__time_duration.sum'] / 1e3:8.2f} us " + hw_probe.top_stalls(m))


def simulate(path: str) -> None:
    """smsim's time (h200, ``blocks="share"``) of part 1's launches beside the H200's."""
    import numpy as np
    import smsim
    data = json.loads(pathlib.Path(path).read_text())
    args = _arrays(np)
    for r in data["rows"]:
        t, hw = r["threads"], r["metrics"]["gpu__time_duration.sum"]
        res = smsim.launch(_vadd(), ((N + t - 1) // t,), (t,), args, config="h200", complete=False)
        ns = res.metrics["gpu__time_duration.sum"]
        print(f"vadd {t:5d} threads: H200 {hw / 1e3:8.2f} us smsim {ns / 1e3:8.2f} us ({ns / hw:4.2f})", flush=True)


def main(argv=None) -> int:
    if argv is None:
        argv = sys.argv[1:]
    if argv[:1] == ["--analyse"]:
        analyse(argv[1])
        return 0
    return hw_probe.ncu_main(__doc__, run, once, argv, simulate)


if __name__ == "__main__":
    sys.exit(main())

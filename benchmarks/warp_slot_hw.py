"""Which of an SM's four sub-partitions does each warp of its resident blocks run on, on an H200?

Run on the device machine, from the repository root (python3 with numba-cuda and ncu)::

    PYTHONPATH=. python3 benchmarks/warp_slot_hw.py --out $OUT/warp_slot_hw.json

and beside smsim, on any machine: ``python benchmarks/warp_slot_hw.py --sim docs/hardware/warp_slot_hw.json``.

Why: smsim places a warp on sub-partition ``warp slot % 4``, its block taking the lowest free slots, so the
warp 0 of each of eight resident 8-warp blocks lands on the same sub-partition. ``softmax.block_naive`` (one
block a row, thread 0 alone loops over the row's 1024 columns, twice) then runs 2.9x the H200's time at its
full size (8192 rows, eight blocks an SM) while at one block an SM (its test size) it is within 1%: eight
serial loops share one scheduler and its pipes in smsim, where on the H200 eight take 111 us a wave against
96 for one alone. Two measurements:

- **Where warps run** (``where``): eight 256-thread blocks an SM (1056 blocks), each warp's lane 0 records
  ``%smid``, ``%warpid`` (the warp's slot on its SM), its block and its index in the block, after spinning
  about 20 us so that all of an SM's blocks are resident together; the sub-partition is ``%warpid % 4``.
- **What it costs** (``chain``): only warp ``busy`` of each 256-thread block runs two independent chains of
  ``STEPS`` dependent float32 multiply-adds (a sub-partition issues one of them a cycle, so one warp keeps it
  half busy), the other warps exit; 1, 2, 4 and 8 blocks an SM (132 to 1056 blocks). On one sub-partition
  eight such warps take four times as long as one; spread over four, as long. Timed by ncu.
"""
from __future__ import annotations

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import hw_probe  # noqa: E402  (beside this file)

SMS = 132
THREADS = 256
STEPS = 4096
SPIN = 40_000          # clock64 cycles each warp waits before it records where it is
METRICS = ("gpu__time_duration.sum", "sm__cycles_elapsed.max", "smsp__inst_executed.sum",
           "sm__warps_active.avg.pct_of_peak_sustained_active")
CHAIN = """
def k(out, steps, busy):
    w = cuda.threadIdx.x // 32
    if w == busy:
        a = np.float32(cuda.threadIdx.x) * np.float32(1e-3)
        b = a + np.float32(0.5)
        for _ in range(steps):
            a = a * np.float32(0.999) + np.float32(0.001)
            b = b * np.float32(0.999) + np.float32(0.002)
        out[cuda.blockIdx.x * 32 + cuda.threadIdx.x % 32] = a + b
"""
#: (blocks an SM, the busy warp of each block)
CASES = [(1, 0), (2, 0), (4, 0), (8, 0), (8, 3)]


def _chain(module=None) -> object:
    return hw_probe.jit_source(CHAIN, "<warp_slot chain>", "k", module)


def _where():
    cuda, np = hw_probe.numba_cuda()
    smid, warpid, clock = hw_probe.special("smid", 32), hw_probe.special("warpid", 32), hw_probe.special("clock64", 64)

    @cuda.jit
    def where(out, spin):
        if cuda.threadIdx.x % 32 == 0:
            t0 = clock()
            while clock() - t0 < spin:
                pass
            g = (cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x) // 32
            out[g, 0] = smid()
            out[g, 1] = warpid()
            out[g, 2] = cuda.blockIdx.x
            out[g, 3] = cuda.threadIdx.x // 32
    return where


def once() -> None:
    cuda, np = hw_probe.numba_cuda()
    k = _chain()
    for per_sm, busy in CASES:
        blocks = SMS * per_sm
        out = cuda.to_device(np.zeros(blocks * 32, np.float32))
        k[blocks, THREADS](out, np.int64(STEPS), np.int64(busy))
        cuda.synchronize()


def placement() -> dict:
    """Where each warp of eight 256-thread blocks an SM ran: per SM, each block's warp 0's and every warp's
    sub-partition (``%warpid % 4``)."""
    cuda, np = hw_probe.numba_cuda()
    blocks = SMS * 8
    warps = THREADS // 32
    out = cuda.to_device(np.zeros((blocks * warps, 4), np.int32))
    _where()[blocks, THREADS](out, np.int64(SPIN))
    cuda.synchronize()
    records = out.copy_to_host().tolist()
    by_sm: dict = {}
    for sm, wid, block, w in records:
        by_sm.setdefault(sm, []).append((block, w, wid))
    first_subs = []           # per SM: how many blocks' warp 0 ran on each sub-partition
    for _, ws in sorted(by_sm.items()):
        subs = [0, 0, 0, 0]
        for _block, w, wid in ws:
            if w == 0:
                subs[wid % 4] += 1
        first_subs.append(sorted(subs, reverse=True))
    return dict(records=records, warp0_subpartitions_per_sm=first_subs,
                warpids=sorted({wid for _, wid, _, _ in records}))


def run(out_path: str, ncu: str) -> None:
    where = placement()
    hist: dict = {}
    for s in where["warp0_subpartitions_per_sm"]:
        hist[str(s)] = hist.get(str(s), 0) + 1
    print("warp ids seen:", where["warpids"])
    print("blocks' warp 0 per sub-partition (sorted), SMs with it:", hist, flush=True)
    script = str(pathlib.Path(__file__).resolve())
    rows = [dict(name=f"chain_b{per_sm}_w{busy}", blocks_per_sm=per_sm, busy=busy, metrics=m)
            for (per_sm, busy), m in zip(CASES, hw_probe.ncu_profile(ncu, script, METRICS, len(CASES)))]
    for r in rows:
        print(f"{r['name']:12s} {r['metrics']['gpu__time_duration.sum'] / 1e3:8.2f} us", flush=True)
    hw_probe.write(out_path, where=where, warp0_histogram=hist, rows=rows)


def simulated(rows: list, **kw) -> list:
    """smsim's rows for the H200's chain ``rows`` (``kw``: :func:`hw_probe.simulated`'s)."""
    import numpy as np

    from smsim import cuda

    def launch(r: dict) -> tuple:
        blocks = SMS * r["blocks_per_sm"]
        return _chain(cuda), blocks, THREADS, (np.zeros(blocks * 32, np.float32), np.int64(STEPS), np.int64(r["busy"]))
    return hw_probe.simulated(rows, launch, complete=False, **kw)


def simulate(path: str) -> None:
    hw_probe.print_durations(path, simulated, 14)


def main(argv=None) -> int:
    return hw_probe.ncu_main(__doc__, run, once, argv, simulate)


if __name__ == "__main__":
    sys.exit(main())

"""What a load from constant memory costs when a warp's lanes read different addresses, on an H200.

Run on the device machine, from the repository root (python3 with numba-cuda and ncu)::

    PYTHONPATH=. python3 benchmarks/const_spread_hw.py --out $OUT/const_spread_hw.json

and beside smsim, on any machine: ``python benchmarks/const_spread_hw.py --sim docs/hardware/const_spread_hw.json``.

Why: ``quiz.lut_const256`` reads a 256-entry table in constant memory (``cuda.const.array_like``) at each
lane's own entry. The constant cache serves a warp one address at a time (CUDA C Programming Guide: accesses
to different addresses by threads within a warp are serialized); smsim gives a constant load the
shared-memory latency whatever its addresses. The kernel: each thread adds ``STEPS`` entries of a 1024-float
table in constant memory, the ``s``-th at ``(lane % spread) * 8 + s`` (``spread`` distinct addresses a warp
load, 32 bytes apart, two to a 64-byte line), at one warp
an SM (a dependent add chain beside independent loads: the loads' latency and their issue) and at 32 warps an
SM (their throughput). Timed by ncu.
"""
from __future__ import annotations

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import hw_probe  # noqa: E402  (beside this file)

SMS = 132
STEPS = 1024
METRICS = ("gpu__time_duration.sum", "sm__cycles_elapsed.max", "smsp__inst_executed.sum",
           "smsp__average_warp_latency_issue_stalled_imc_miss.ratio",
           "smsp__average_warp_latency_issue_stalled_mio_throttle.ratio",
           "smsp__average_warp_latency_issue_stalled_short_scoreboard.ratio",
           "smsp__average_warp_latency_issue_stalled_no_instruction.ratio")
SOURCE = """
TABLE = np.arange(1024, dtype=np.float32)

def k(out, steps, spread):
    lut = cuda.const.array_like(TABLE)
    base = (cuda.threadIdx.x % 32) % spread * 8
    acc = np.float32(0.0)
    for s in range(steps):
        acc += lut[(base + s) & 1023]
    out[cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x] = acc
"""
#: (distinct addresses a warp load, warps an SM)
CASES = [(spread, warps) for warps in (1, 32) for spread in (1, 2, 4, 8, 32)]


def _kernel(module=None) -> object:
    return hw_probe.jit_source(SOURCE, "<const_spread>", "k", module)


def once() -> None:
    cuda, np = hw_probe.numba_cuda()
    k = _kernel()
    for spread, warps in CASES:
        out = cuda.to_device(np.zeros(SMS * warps * 32, np.float32))
        k[SMS, warps * 32](out, np.int64(STEPS), np.int64(spread))
        cuda.synchronize()


def run(out_path: str, ncu: str) -> None:
    script = str(pathlib.Path(__file__).resolve())
    rows = [dict(name=f"spread{spread}_w{warps}", spread=spread, warps=warps, metrics=m)
            for (spread, warps), m in zip(CASES, hw_probe.ncu_profile(ncu, script, METRICS, len(CASES)))]
    for r in rows:
        m = r["metrics"]
        print(f"{r['name']:14s} {m['gpu__time_duration.sum'] / 1e3:8.2f} us  "
              f"{m['sm__cycles_elapsed.max'] / STEPS:7.2f} cycles a step", flush=True)
    hw_probe.write(out_path, rows=rows, steps=STEPS)


def simulated(rows: list, **kw) -> list:
    """smsim's rows for the H200's ``rows`` (``kw``: :func:`hw_probe.simulated`'s)."""
    import numpy as np

    from smsim import cuda

    def launch(r: dict) -> tuple:
        n = SMS * r["warps"] * 32
        return _kernel(cuda), SMS, r["warps"] * 32, (np.zeros(n, np.float32), np.int64(STEPS), np.int64(r["spread"]))
    return hw_probe.simulated(rows, launch, complete=False, **kw)


def simulate(path: str) -> None:
    hw_probe.print_durations(path, simulated, 14)


def main(argv=None) -> int:
    return hw_probe.ncu_main(__doc__, run, once, argv, simulate)


if __name__ == "__main__":
    sys.exit(main())

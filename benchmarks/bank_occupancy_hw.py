"""Does a register-bank conflict cost the other warps of a sub-partition a cycle when only a few share it?

Run on the device machine, from the repository root (python3 with numba-cuda and ncu)::

    PYTHONPATH=. python3 benchmarks/bank_occupancy_hw.py --out $OUT/bank_occupancy_hw.json

and compare smsim with what it recorded (on any machine)::

    python benchmarks/bank_occupancy_hw.py --sim docs/hardware/bank_occupancy_hw.json

Why: ``benchmarks/fp64_rate_hw.py`` showed, at 16 warps a sub-partition, a float32 FMA chain whose ``FFMA R8,
R8, R4, R5`` reads two registers from one bank taking the time of all its bank reads (2.37 cycles a step) where
its ``FADD R5, R5, UR6`` twin issues one a cycle; smsim models the banks since (``scheduler.register_banks``) as
pipes that must be free for an instruction to issue. An alternative that fits those chains as well lets an
instruction issue while its bank has one cycle of earlier reads queued; it differs where few warps share a
sub-partition (``store_load_hw``'s eight-warp ``coal_raw``: 1.07 of the H200 with the first, 1.01 with the
second). The same two kernels (``fp64_chain_kernels``: ``8 n`` dependent steps a thread, each warp its own
chain) at 1, 2, 3, 4 and 8 warps a sub-partition (132 blocks of 128 k threads, one an SM): the difference of SM
cycles over the difference of steps, over the warps a sub-partition has, is its cycles a warp-step. smsim
predicted, before the run, for ``ffma`` at k = 1, 2, 3, 4, 8: 4.38, 2.78, 2.44, 2.40, 2.41 with the banks as
pipes; 4.22, 2.53, 2.38, 2.38, 2.38 with the one-cycle queue.
"""
from __future__ import annotations

import json
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))
import hw_probe  # noqa: E402  (beside this file)
from fp64_rate_hw import DTYPES, KERNELS as RATE_KERNELS, A, B  # noqa: E402

KERNELS = {k: RATE_KERNELS[k] for k in ("ffma", "fadd")}
STEPS = (64, 192)                   # loop iterations, 8 steps each
WARPS = (1, 2, 3, 4, 8)             # warps a sub-partition: blocks of 128 k threads
BLOCKS = 132                        # one an SM of the H200's 132
CASES = [(name, k, n) for name in KERNELS for k in WARPS for n in STEPS]
METRICS = ("gpu__time_duration.sum", "sm__cycles_elapsed.max", "sm__cycles_elapsed.avg", "smsp__inst_executed.sum",
           "smsp__average_warps_issue_stalled_dispatch_stall_per_issue_active.ratio",
           "smsp__average_warps_issue_stalled_wait_per_issue_active.ratio",
           "smsp__average_warps_issue_stalled_not_selected_per_issue_active.ratio")


def _args(np, name: str, k: int, n: int) -> tuple:
    dt = DTYPES[name]
    return np.full(128 * k, 0.5, dt), dt(A), dt(B), n


def once() -> None:
    """Each case launched once (what ``ncu`` profiles)."""
    cuda, np = hw_probe.numba_cuda()
    from workloads.numba_bridge import to_numba
    kernels = {k: to_numba(f) for k, f in KERNELS.items()}
    for name, k, n in CASES:
        out, a, b, n = _args(np, name, k, n)
        d = cuda.to_device(out)
        kernels[name][BLOCKS, 128 * k](d, a, b, n)
        cuda.synchronize()


def per_step(rows: list) -> dict:
    """(kernel, warps a sub-partition) -> a sub-partition's cycles per warp-step."""
    by = {(r["kernel"], r["k"], r["n"]): r["metrics"]["sm__cycles_elapsed.max"] for r in rows}
    lo, hi = STEPS
    return {(name, k): (by[(name, k, hi)] - by[(name, k, lo)]) / (8 * (hi - lo)) / k for name in KERNELS
            for k in WARPS if (name, k, lo) in by and (name, k, hi) in by}


def run(out_path: str, ncu: str) -> None:
    rows = []
    script = str(pathlib.Path(__file__).resolve())
    for (name, k, n), m in zip(CASES, hw_probe.ncu_profile(ncu, script, METRICS, len(CASES))):
        rows.append(dict(kernel=name, k=k, n=n, metrics=m))
        print(f"{name:5s} k {k} n {n:4d}: {m['sm__cycles_elapsed.max']:9.0f} cycles, " + hw_probe.top_stalls(m),
              flush=True)
    for key, c in per_step(rows).items():
        print(f"{key[0]:5s} {key[1]} warps a sub-partition: {c:6.2f} cycles a warp-step", flush=True)
    hw_probe.write(out_path, steps=list(STEPS), warps=list(WARPS), blocks=BLOCKS, a=A, b=B, rows=rows)


def simulated(rows: list, **kw) -> list:
    """smsim's rows (one SM's block) for the H200's ``rows`` (``kw``: more of :func:`hw_probe.simulated`'s)."""
    import numpy as np
    return hw_probe.simulated(rows, lambda r: (KERNELS[r["kernel"]], BLOCKS, 128 * r["k"],
                                               _args(np, r["kernel"], r["k"], r["n"])), complete=False, **kw)


def simulate(path: str) -> None:
    """smsim's cycles a warp-step a sub-partition beside the H200's, with the banks and without."""
    data = json.loads(pathlib.Path(path).read_text())
    hw, sim = per_step(data["rows"]), per_step(simulated(data["rows"]))
    off = per_step(simulated(data["rows"], overrides={"scheduler.register_banks": 0}))
    for key in hw:
        print(f"{key[0]:5s} {key[1]} warps a sub-partition: H200 {hw[key]:6.2f} smsim {sim[key]:6.2f} "
              f"({sim[key] / hw[key]:4.2f}), without the banks {off[key]:6.2f} ({off[key] / hw[key]:4.2f})",
              flush=True)


def main(argv=None) -> int:
    return hw_probe.ncu_main(__doc__, run, once, argv, simulate)


if __name__ == "__main__":
    sys.exit(main())

"""How long an H200 takes for one step of a dependent float64 chain: DFMA, DADD, and libdevice's division,
square root and exponential, with a float32 FMA chain as the reference.

Run on the device machine, from the repository root (python3 with numba-cuda and ncu)::

    PYTHONPATH=. python3 benchmarks/fp64_chain_hw.py --out $OUT/fp64_chain_hw.json

and compare smsim with what it recorded (on any machine)::

    python benchmarks/fp64_chain_hw.py --sim docs/hardware/fp64_chain_hw.json

Why: smsim's FP64 latency (``pipes.fp64.latency_cycles`` 8) is Accel-Sim's, never measured on the H200, and
the float64 kernels measured against it disagree in both directions (``course.newton_f64``, float64 division
in a loop, 0.85 of the H200's time; ``lessons.sigmoid_f64``, ``exp`` and a division, 1.10). Each kernel
(``benchmarks/fp64_chain_kernels.py``, the same source both sides) runs one warp on one SM, ``8 n`` dependent
steps, at two ``n``: the difference of SM cycles over the difference of steps is one step's latency, the
kernel's start and end cancelling out.
"""
from __future__ import annotations

import json
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))
import hw_probe  # noqa: E402  (beside this file)
from fp64_chain_kernels import DTYPES, KERNELS  # noqa: E402

STEPS = (512, 1024)                 # loop iterations, 8 steps each
CASES = [(name, n) for name in KERNELS for n in STEPS]
METRICS = ("gpu__time_duration.sum", "sm__cycles_elapsed.max", "smsp__inst_executed.sum")
A, B = -0.5, 0.25                   # a and b: every chain stays finite and away from the slow paths


def _args(np, name: str, n: int) -> tuple:
    dt = DTYPES.get(name, np.float64)
    return np.full(32, 0.5, dt), dt(A), dt(B), n


def once() -> None:
    """Each case launched once (what ``ncu`` profiles)."""
    cuda, np = hw_probe.numba_cuda()
    from workloads.numba_bridge import to_numba
    kernels = {k: to_numba(f) for k, f in KERNELS.items()}
    for name, n in CASES:
        out, a, b, n = _args(np, name, n)
        d = cuda.to_device(out)
        kernels[name][1, 32](d, a, b, n)
        cuda.synchronize()


def per_step(rows: list, key: str = "sm__cycles_elapsed.max") -> dict:
    """Kernel name -> cycles (or ``key``) per step, from the two ``n`` of each."""
    by = {(r["kernel"], r["n"]): r["metrics"][key] for r in rows}
    lo, hi = STEPS
    return {name: (by[(name, hi)] - by[(name, lo)]) / (8 * (hi - lo)) for name in KERNELS}


def run(out_path: str, ncu: str) -> None:
    rows = []
    script = str(pathlib.Path(__file__).resolve())
    for (name, n), m in zip(CASES, hw_probe.ncu_profile(ncu, script, METRICS, len(CASES))):
        rows.append(dict(kernel=name, n=n, metrics=m))
        print(f"{name:6s} n {n:5d}: {m['sm__cycles_elapsed.max']:9.0f} cycles, "
              f"{m['smsp__inst_executed.sum']:8.0f} instructions, " + hw_probe.top_stalls(m), flush=True)
    cyc, inst = per_step(rows), per_step(rows, "smsp__inst_executed.sum")
    for name in KERNELS:
        print(f"{name:6s}: {cyc[name]:7.2f} cycles a step, {inst[name]:5.2f} instructions", flush=True)
    hw_probe.write(out_path, steps=list(STEPS), a=A, b=B, rows=rows)


def simulated(rows: list) -> list:
    """smsim's rows for the H200's ``rows``."""
    import numpy as np
    return hw_probe.simulated(rows, lambda r: (KERNELS[r["kernel"]], 1, 32, _args(np, r["kernel"], r["n"])))


def simulate(path: str) -> None:
    """smsim's cycles and instructions per step (h200, numba's front end, the SASS stream) beside the H200's."""
    data = json.loads(pathlib.Path(path).read_text())
    sim_rows = simulated(data["rows"])
    hw, sim = per_step(data["rows"]), per_step(sim_rows)
    hwi, simi = per_step(data["rows"], "smsp__inst_executed.sum"), per_step(sim_rows, "smsp__inst_executed.sum")
    for name in KERNELS:
        print(f"{name:6s}: cycles a step H200 {hw[name]:7.2f} smsim {sim[name]:7.2f} ({sim[name] / hw[name]:4.2f}); "
              f"instructions H200 {hwi[name]:5.2f} smsim {simi[name]:5.2f}", flush=True)


def main(argv=None) -> int:
    return hw_probe.ncu_main(__doc__, run, once, argv, simulate)


if __name__ == "__main__":
    sys.exit(main())

"""How many float64 operations an H200's SM issues a cycle when every warp has its own chain: DFMA, DADD and
libdevice's division, square root and exponential, with a float32 FMA chain beside them.

Run on the device machine, from the repository root (python3 with numba-cuda and ncu)::

    PYTHONPATH=. python3 benchmarks/fp64_rate_hw.py --out $OUT/fp64_rate_hw.json

and compare smsim with what it recorded (on any machine)::

    python benchmarks/fp64_rate_hw.py --sim docs/hardware/fp64_rate_hw.json

Why: ``benchmarks/fp64_chain_hw.py`` measured one warp's float64 latencies (smsim within 3%), but the float64
kernels measured with many warps an SM still disagree in both directions (``course.newton_f64``, float64
division in a loop, 0.85 of the H200's time with more ``math_pipe_throttle`` and ``not_selected`` on the H200;
``lessons.sigmoid_f64`` 1.10), and the FP64 pipe's issue interval (``pipes.fp64.issue_interval_cycles`` 2: 16
lanes a sub-partition) and the MUFU pipe's (8) are the whitepaper's, never measured. The same kernels as the
chain probe (``benchmarks/fp64_chain_kernels.py``: ``8 n`` dependent steps a thread), launched as two blocks of
1024 threads an SM on every SM (64 warps an SM, 16 a sub-partition, each its own chain), at two ``n``: the
difference of SM cycles over the difference of steps, times the sub-partitions over the warps, is the cycles a
sub-partition takes for one warp's step when 16 warps share it.
"""
from __future__ import annotations

import json
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))
import hw_probe  # noqa: E402  (beside this file)
from fp64_chain_kernels import DTYPES as CHAIN_DTYPES  # noqa: E402
from fp64_chain_kernels import KERNELS as CHAIN_KERNELS  # noqa: E402

#: the chain probe's kernels, and its DADD chain in float32 (``fadd``: two sources where ``ffma`` has three)
KERNELS = {**CHAIN_KERNELS, "fadd": CHAIN_KERNELS["dadd"]}
DTYPES = {**CHAIN_DTYPES, "fadd": CHAIN_DTYPES["ffma"]}
STEPS = (64, 192)                   # loop iterations, 8 steps each
THREADS = 1024
BLOCKS = 264                        # two blocks an SM of the H200's 132
WARPS_A_SUB = 2 * THREADS // 32 // 4
CASES = [(name, n) for name in KERNELS for n in STEPS]
METRICS = ("gpu__time_duration.sum", "sm__cycles_elapsed.max", "sm__cycles_elapsed.avg", "smsp__inst_executed.sum",
           "smsp__inst_executed_pipe_fp64.sum", "smsp__inst_executed_pipe_xu.sum")
A, B = -0.5, 0.25                   # a and b: every chain stays finite and away from the slow paths


def _args(np, name: str, n: int) -> tuple:
    dt = DTYPES.get(name, np.float64)
    return np.full(THREADS, 0.5, dt), dt(A), dt(B), n


def once() -> None:
    """Each case launched once (what ``ncu`` profiles)."""
    cuda, np = hw_probe.numba_cuda()
    from workloads.numba_bridge import to_numba
    kernels = {k: to_numba(f) for k, f in KERNELS.items()}
    for name, n in CASES:
        out, a, b, n = _args(np, name, n)
        d = cuda.to_device(out)
        kernels[name][BLOCKS, THREADS](d, a, b, n)
        cuda.synchronize()


def per_step(rows: list, key: str = "sm__cycles_elapsed.max") -> dict:
    """Kernel name -> a sub-partition's cycles per warp-step (``key`` per step of all warps if not cycles)."""
    by = {(r["kernel"], r["n"]): r["metrics"][key] for r in rows}
    lo, hi = STEPS
    scale = 1 / WARPS_A_SUB if key.startswith("sm__cycles") else 1
    return {name: (by[(name, hi)] - by[(name, lo)]) / (8 * (hi - lo)) * scale for name in KERNELS
            if (name, lo) in by and (name, hi) in by}


def run(out_path: str, ncu: str) -> None:
    rows = []
    script = str(pathlib.Path(__file__).resolve())
    for (name, n), m in zip(CASES, hw_probe.ncu_profile(ncu, script, METRICS, len(CASES))):
        rows.append(dict(kernel=name, n=n, metrics=m))
        print(f"{name:6s} n {n:4d}: {m['sm__cycles_elapsed.max']:9.0f} cycles, "
              f"{m['smsp__inst_executed.sum']:10.0f} instructions, " + hw_probe.top_stalls(m), flush=True)
    cyc = per_step(rows)
    inst = per_step(rows, "smsp__inst_executed.sum")
    warps = BLOCKS * THREADS // 32
    for name in KERNELS:
        print(f"{name:6s}: {cyc[name]:6.2f} cycles a warp-step a sub-partition, {inst[name] / warps:5.2f} "
              "instructions a warp-step", flush=True)
    hw_probe.write(out_path, steps=list(STEPS), blocks=BLOCKS, threads=THREADS, a=A, b=B, rows=rows)


def simulated(rows: list, **kw) -> list:
    """smsim's rows (one SM's share of the blocks) for the H200's ``rows`` (``kw``: more of
    :func:`hw_probe.simulated`'s)."""
    import numpy as np
    return hw_probe.simulated(rows, lambda r: (KERNELS[r["kernel"]], BLOCKS, THREADS, _args(np, r["kernel"], r["n"])),
                              complete=False, **kw)


def simulate(path: str) -> None:
    """smsim's cycles a warp-step a sub-partition beside the H200's."""
    data = json.loads(pathlib.Path(path).read_text())
    hw, sim = per_step(data["rows"]), per_step(simulated(data["rows"]))
    for name in hw:
        print(f"{name:6s}: cycles a warp-step a sub-partition H200 {hw[name]:6.2f} smsim {sim[name]:6.2f} "
              f"({sim[name] / hw[name]:4.2f})", flush=True)


def main(argv=None) -> int:
    return hw_probe.ncu_main(__doc__, run, once, argv, simulate)


if __name__ == "__main__":
    sys.exit(main())

"""What a load pays on an H200 for reading what a store of its warp just wrote: the word, its sector, its line,
against the same loop reading another array.

Run on the device machine, from the repository root (python3 with numba-cuda and ncu)::

    PYTHONPATH=. python3 benchmarks/store_load_hw.py --out $OUT/store_load_hw.json

and compare smsim with what it recorded (on any machine)::

    python benchmarks/store_load_hw.py --sim docs/hardware/store_load_hw.json

Why: ``course.prefix_row32`` (each thread a running sum along its own row, in place) at the test size (one
block of 8 warps an SM) runs 0.72 of the H200's time in smsim; the H200 shows 74.7 warp-cycles of
``long_scoreboard`` an instruction where smsim has 23.9, as if its loads, nearly all L1 hits, took about an L2
round trip each: each reads the sector the warp's store of the iteration before wrote. smsim's L1 lets a load
hit whatever stores are in flight. Each kernel (``benchmarks/store_load_kernels.py``, the same source both
sides) runs one block (one warp, or eight) on one SM at two ``n``: the difference of SM cycles over the
difference of iterations is one iteration's time, the kernel's start and end cancelling out.
"""
from __future__ import annotations

import json
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))
import hw_probe  # noqa: E402  (beside this file)
from store_load_kernels import KERNELS, ROW  # noqa: E402

STEPS = (64, 320)                   # loop iterations
THREADS = (32, 256)                 # one block: one warp, eight
CASES = [(name, w, n) for name in KERNELS for w in THREADS for n in STEPS]
METRICS = ("gpu__time_duration.sum", "sm__cycles_elapsed.max", "smsp__inst_executed.sum",
           "l1tex__t_sector_pipe_lsu_mem_global_op_ld_hit_rate.pct", "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
           "lts__t_sectors_srcunit_tex_op_read.sum", "lts__t_sectors_srcunit_tex_op_write.sum")


def _args(np, threads: int, n: int) -> tuple:
    return np.zeros((threads, ROW), np.float32), np.ones((threads, ROW), np.float32), n, 0


def once() -> None:
    """Each case launched once (what ``ncu`` profiles)."""
    cuda, np = hw_probe.numba_cuda()
    from workloads.numba_bridge import to_numba
    kernels = {k: to_numba(f) for k, f in KERNELS.items()}
    for name, threads, n in CASES:
        a, b, n, z = _args(np, threads, n)
        kernels[name][1, threads](cuda.to_device(a), cuda.to_device(b), n, z)
        cuda.synchronize()


def per_step(rows: list, key: str = "sm__cycles_elapsed.max") -> dict:
    """(kernel, threads) -> cycles (or ``key``) per iteration, from the two ``n`` of each."""
    return hw_probe.per_step(rows, STEPS, key=key)


def simulated(rows: list, **kw) -> list:
    """smsim's rows for the H200's ``rows`` (``kw``: :func:`hw_probe.simulated`'s, ``overrides`` among them)."""
    import numpy as np
    return hw_probe.simulated(rows, lambda r: (KERNELS[r["kernel"]], 1, r["threads"], _args(np, r["threads"], r["n"])),
                              **kw)


def run(out_path: str, ncu: str) -> None:
    rows = []
    script = str(pathlib.Path(__file__).resolve())
    for (name, w, n), m in zip(CASES, hw_probe.ncu_profile(ncu, script, METRICS, len(CASES))):
        rows.append(dict(kernel=name, threads=w, n=n, metrics=m))
        print(f"{name:10s} {w:3d} threads n {n:4d}: {m['sm__cycles_elapsed.max']:9.0f} cycles, "
              f"{m['smsp__inst_executed.sum']:8.0f} instructions, L1 hit "
              f"{m['l1tex__t_sector_pipe_lsu_mem_global_op_ld_hit_rate.pct']:5.1f}%, " + hw_probe.top_stalls(m),
              flush=True)
    cyc = per_step(rows)
    for key, v in cyc.items():
        print(f"{key[0]:10s} {key[1]:3d} threads: {v:7.1f} cycles an iteration", flush=True)
    hw_probe.write(out_path, steps=list(STEPS), threads=list(THREADS), rows=rows)


def simulate(path: str) -> None:
    """smsim's cycles per iteration (h200, numba's front end, the SASS stream) beside the H200's."""
    data = json.loads(pathlib.Path(path).read_text())
    hw, sim = per_step(data["rows"]), per_step(simulated(data["rows"]))
    for key in hw:
        print(f"{key[0]:10s} {key[1]:3d} threads: cycles an iteration H200 {hw[key]:7.1f} smsim {sim[key]:7.1f} "
              f"({sim[key] / hw[key]:4.2f})", flush=True)


def main(argv=None) -> int:
    return hw_probe.ncu_main(__doc__, run, once, argv, simulate)


if __name__ == "__main__":
    sys.exit(main())

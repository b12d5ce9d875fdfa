"""How fast one SM's stores leave it for L2 on an H200, by the shape of a warp's request: a word in each of 32
lines, of 16 lines (two sectors each), of 8 lines (four sectors each), and whole lines (one, two merged, two of
float64).

Run on the device machine, from the repository root (python3 with numba-cuda and ncu)::

    PYTHONPATH=. python3 benchmarks/store_port_hw.py --out $OUT/store_port_hw.json

and compare smsim with what it recorded (on any machine)::

    python benchmarks/store_port_hw.py --sim docs/hardware/store_port_hw.json

Why: ``cold_rows_hw`` showed a store of a word in each of 32 lines leaving one SM at two cycles a line, at 1 to
32 warps (``l1.write_request_cycles``); whether a whole line, or a line of two or four sectors, costs the same is
what this measures. Each kernel (``benchmarks/store_port_kernels.py``, the same source both sides) runs one
block (eight warps, or 32) on one SM at two ``n``: the difference of SM cycles over the difference of
iterations is one iteration's time, the kernel's start and end cancelling out.
"""
from __future__ import annotations

import json
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))
import hw_probe  # noqa: E402  (beside this file)
from store_port_kernels import KERNELS  # noqa: E402

STEPS = (16, 80)                    # loop iterations
THREADS = (256, 1024)               # one block: eight warps, 32
CASES = [(name, w, n) for name in KERNELS for w in THREADS for n in STEPS]
METRICS = ("gpu__time_duration.sum", "sm__cycles_elapsed.max", "smsp__inst_executed.sum",
           "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum", "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
           "lts__t_sectors_srcunit_tex_op_write.sum", "lts__t_requests_srcunit_tex_op_write.sum",
           "dram__bytes_read.sum", "dram__bytes_write.sum")


def _args(np, name: str, threads: int, n: int) -> tuple:
    _, dtype, span = KERNELS[name]
    return np.zeros(threads * n * span, dtype), n


def once() -> None:
    """Each case launched once (what ``ncu`` profiles)."""
    cuda, np = hw_probe.numba_cuda()
    from workloads.numba_bridge import to_numba
    kernels = {k: to_numba(f) for k, (f, _, _) in KERNELS.items()}
    for name, threads, n in CASES:
        a, n = _args(np, name, threads, n)
        kernels[name][1, threads](cuda.to_device(a), n)
        cuda.synchronize()


def per_step(rows: list, key: str = "sm__cycles_elapsed.max") -> dict:
    """(kernel, threads) -> cycles (or ``key``) per iteration, from the two ``n`` of each."""
    return hw_probe.per_step(rows, STEPS, key=key)


def simulated(rows: list, **kw) -> list:
    """smsim's rows for the H200's ``rows`` (``kw``: :func:`hw_probe.simulated`'s)."""
    import numpy as np
    return hw_probe.simulated(rows, lambda r: (KERNELS[r["kernel"]][0], 1, r["threads"],
                                               _args(np, r["kernel"], r["threads"], r["n"])), **kw)


def run(out_path: str, ncu: str) -> None:
    rows = []
    script = str(pathlib.Path(__file__).resolve())
    for (name, w, n), m in zip(CASES, hw_probe.ncu_profile(ncu, script, METRICS, len(CASES))):
        rows.append(dict(kernel=name, threads=w, n=n, metrics=m))
        print(f"{name:8s} {w:4d} threads n {n:3d}: {m['sm__cycles_elapsed.max']:8.0f} cycles, store requests "
              f"{m['l1tex__t_requests_pipe_lsu_mem_global_op_st.sum']:6.0f} sectors "
              f"{m['l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum']:7.0f}, L2 write sectors "
              f"{m['lts__t_sectors_srcunit_tex_op_write.sum']:7.0f} requests "
              f"{m['lts__t_requests_srcunit_tex_op_write.sum']:6.0f}, "
              + hw_probe.top_stalls(m), flush=True)
    for key, v in per_step(rows).items():
        print(f"{key[0]:8s} {key[1]:4d} threads: {v:7.1f} cycles an iteration", flush=True)
    hw_probe.write(out_path, steps=list(STEPS), threads=list(THREADS), rows=rows)


def simulate(path: str) -> None:
    """smsim's cycles per iteration (h200, numba's front end, the SASS stream) beside the H200's."""
    data = json.loads(pathlib.Path(path).read_text())
    hw, sim = per_step(data["rows"]), per_step(simulated(data["rows"]))
    for key in hw:
        print(f"{key[0]:8s} {key[1]:4d} threads: cycles an iteration H200 {hw[key]:7.1f} smsim {sim[key]:7.1f} "
              f"({sim[key] / hw[key]:4.2f})", flush=True)


def main(argv=None) -> int:
    return hw_probe.ncu_main(__doc__, run, once, argv, simulate)


if __name__ == "__main__":
    sys.exit(main())

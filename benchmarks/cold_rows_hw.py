"""``course.prefix_row32``'s walk over rows no cache holds, taken apart on an H200: loads and stores into what
they read, into another array, loads alone, stores alone, and the walk twice (its second pass warm in L1).

Run on the device machine, from the repository root (python3 with numba-cuda and ncu)::

    PYTHONPATH=. python3 benchmarks/cold_rows_hw.py --out $OUT/cold_rows_hw.json

and compare smsim with what it recorded (on any machine)::

    python benchmarks/cold_rows_hw.py --sim docs/hardware/cold_rows_hw.json

Why: at the test size (four blocks of eight warps, one an SM) ``prefix_row32`` runs 0.72 of the H200's time in
smsim, with 74.7 warp-cycles of ``long_scoreboard`` an instruction on the H200 against smsim's 23.9, while its
steady-state loop (``store_load_hw``'s ``row_raw``, eight warps) agrees within 8%: what differs is in the first
touch of the rows. Each kernel (``benchmarks/cold_rows_kernels.py``, the same source both sides) runs one block
(one warp, eight, or 32) on one SM, and four blocks of eight warps (the test size's grid); ncu's cache control
(its default) leaves L1 and L2 empty at each launch.
"""
from __future__ import annotations

import json
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))
import hw_probe  # noqa: E402  (beside this file)
from cold_rows_kernels import KERNELS, ROW  # noqa: E402

SHAPES = ((1, 32), (1, 256), (1, 1024), (4, 256))     # (blocks, threads a block)
CASES = [(name, g, w) for name in KERNELS for g, w in SHAPES]
METRICS = ("gpu__time_duration.sum", "sm__cycles_elapsed.max", "sm__cycles_active.max", "smsp__inst_executed.sum",
           "l1tex__t_sector_pipe_lsu_mem_global_op_ld_hit_rate.pct", "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
           "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", "lts__t_sectors_srcunit_tex_op_read.sum",
           "lts__t_sectors_srcunit_tex_op_write.sum", "lts__t_sector_op_read_hit_rate.pct",
           "dram__bytes_read.sum", "dram__bytes_write.sum")


def _args(np, blocks: int, threads: int) -> tuple:
    rows = blocks * threads
    return np.ones((rows, ROW), np.float32), np.zeros((rows, ROW), np.float32), 0


def once() -> None:
    """Each case launched once (what ``ncu`` profiles)."""
    cuda, np = hw_probe.numba_cuda()
    from workloads.numba_bridge import to_numba
    kernels = {k: to_numba(f) for k, f in KERNELS.items()}
    for name, g, w in CASES:
        a, b, z = _args(np, g, w)
        kernels[name][g, w](cuda.to_device(a), cuda.to_device(b), z)
        cuda.synchronize()


def simulated(rows: list, **kw) -> list:
    """smsim's rows for the H200's ``rows`` (``kw``: :func:`hw_probe.simulated`'s, ``overrides`` among them)."""
    import numpy as np
    return hw_probe.simulated(rows, lambda r: (KERNELS[r["kernel"]], r["blocks"], r["threads"],
                                               _args(np, r["blocks"], r["threads"])), **kw)


def _line(r: dict) -> str:
    m = r["metrics"]
    hit = m["l1tex__t_sector_pipe_lsu_mem_global_op_ld_hit_rate.pct"]
    return (f"{r['kernel']:6s} {r['blocks']}x{r['threads']:4d}: {m['gpu__time_duration.sum']:8.0f} ns "
            f"{m['sm__cycles_elapsed.max']:7.0f} cycles, L1 hit {hit:5.1f}%, "
            f"L2 rd {m['lts__t_sectors_srcunit_tex_op_read.sum']:6.0f} "
            f"wr {m['lts__t_sectors_srcunit_tex_op_write.sum']:6.0f}, "
            f"DRAM rd {m['dram__bytes_read.sum']:7.0f}, " + hw_probe.top_stalls(m))


def run(out_path: str, ncu: str) -> None:
    rows = []
    script = str(pathlib.Path(__file__).resolve())
    for (name, g, w), m in zip(CASES, hw_probe.ncu_profile(ncu, script, METRICS, len(CASES))):
        rows.append(dict(kernel=name, blocks=g, threads=w, metrics=m))
        print(_line(rows[-1]), flush=True)
    hw_probe.write(out_path, shapes=[list(s) for s in SHAPES], rows=rows)


def simulate(path: str) -> None:
    """smsim's duration (h200, numba's front end, the SASS stream) beside the H200's."""
    data = json.loads(pathlib.Path(path).read_text())
    for hw, sim in zip(data["rows"], simulated(data["rows"])):
        h, s = hw["metrics"]["gpu__time_duration.sum"], sim["metrics"]["gpu__time_duration.sum"]
        print(f"H200  {_line(hw)}\nsmsim {_line(sim)}  ({s / h:4.2f})", flush=True)


def main(argv=None) -> int:
    return hw_probe.ncu_main(__doc__, run, once, argv, simulate)


if __name__ == "__main__":
    sys.exit(main())

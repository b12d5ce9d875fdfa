"""When does an H200's L1 merge two stores into the same sectors before L2: by the time between them, what
other stores come between, the lines a store touches, and whether one warp or two make them.

Run on the device machine, from the repository root (python3 with numba-cuda and ncu)::

    PYTHONPATH=. python3 benchmarks/store_cross_hw.py --out $OUT/store_cross_hw.json

and compare smsim with what it recorded (on any machine)::

    python benchmarks/store_cross_hw.py --sim docs/hardware/store_cross_hw.json

Why: ``store_merge_hw`` found that different warps' stores into the same sectors merge in part, in a way that
depends on timing (a block's 8 warps each storing a word into the same 32 sectors of 8 lines: 0.21 of the L1
store sectors reach L2; 4 warps' two words into 16 sectors of 16 lines: 0.83; of 32 lines: none), and the
validation suite's strided stores merge more at their small sizes than at their large ones
(``drills.stride_store16`` 0.44 / 0.71, ``matmul.naive_swapped`` 0.25 / 0.49). Here one block an SM makes
pairs of stores with the time, the traffic and the shape between them set (``store_cross_kernels.py``):
merged = L2 write sectors / L1 store sectors, 1 when no pair merges, 0.5 when all do.
"""
from __future__ import annotations

import json
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))
import hw_probe  # noqa: E402  (beside this file)
from store_cross_kernels import cross  # noqa: E402

BLOCKS, THREADS, ROUNDS = 132, 128, 32
MODES = {"sync": 0, "nosync": 1, "same": 2}
# (mode, lines a store, gap steps, junk stores a junk warp, whole-line junk)
CASES = ([("sync", 8, g, 0, 0) for g in (0, 16, 64, 256, 1024, 4096)]
         + [("nosync", 8, g, 0, 0) for g in (0, 16, 64, 256)]
         + [("same", 8, g, 0, 0) for g in (0, 16, 64, 256, 1024, 4096)]
         + [("sync", L, 64, 0, 0) for L in (2, 4, 16, 32)]
         + [("sync", L, 0, 0, 0) for L in (2, 16, 32)]
         + [("same", L, 64, 0, 0) for L in (2, 16, 32)]
         + [("sync", 8, 0, j, 0) for j in (1, 2, 4, 8, 16, 32)]
         + [("sync", 8, 0, j, 1) for j in (2, 8, 32)]
         + [("sync", 16, 0, j, 0) for j in (1, 4)]
         + [("same", 8, 256, j, 0) for j in (1, 4)])
METRICS = ("gpu__time_duration.sum", "sm__cycles_elapsed.max", "smsp__inst_executed.sum",
           "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum", "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
           "lts__t_sectors_srcunit_tex_op_write.sum", "lts__t_requests_srcunit_tex_op_write.sum")


def name(case: tuple) -> str:
    mode, lines, gap, junk, jfull = case
    return f"{mode}_L{lines}_g{gap}_j{junk}{'f' if jfull else ''}"


def _args(np, case: tuple) -> tuple:
    mode, lines, gap, junk, jfull = case
    out = np.zeros(BLOCKS * ROUNDS * lines * 32, np.float32)
    junkbuf = np.zeros(max(1, BLOCKS * ROUNDS * junk * 2 * 256), np.float32)
    return out, junkbuf, ROUNDS, lines, gap, junk, jfull, MODES[mode]


def once() -> None:
    """Each case launched once (what ``ncu`` profiles)."""
    cuda, np = hw_probe.numba_cuda()
    from workloads.numba_bridge import to_numba
    k = to_numba(cross)
    for case in CASES:
        out, junkbuf, *rest = _args(np, case)
        k[BLOCKS, THREADS](cuda.to_device(out), cuda.to_device(junkbuf), *rest)
        cuda.synchronize()


def merged(m: dict) -> float:
    """L2 write sectors / L1 store sectors of the pair stores (the junk's sectors, which merge with nothing,
    taken out of both)."""
    return m["lts__t_sectors_srcunit_tex_op_write.sum"] / m["l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"]


def pair_merged(row: dict) -> float:
    """The share of the pair stores' L1 sectors that reach L2 (1: none merged, 0.5: all): the junk's sectors
    (32 a store, or 4 whole) reach L2 as they are and are taken out of both counts."""
    m = row["metrics"]
    junk = BLOCKS * ROUNDS * row["junk"] * 2 * (4 if row["jfull"] else 32)
    return ((m["lts__t_sectors_srcunit_tex_op_write.sum"] - junk)
            / (m["l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"] - junk))


def run(out_path: str, ncu: str) -> None:
    rows = []
    script = str(pathlib.Path(__file__).resolve())
    for case, m in zip(CASES, hw_probe.ncu_profile(ncu, script, METRICS, len(CASES))):
        mode, lines, gap, junk, jfull = case
        row = dict(name=name(case), mode=mode, lines=lines, gap=gap, junk=junk, jfull=jfull, metrics=m)
        rows.append(row)
        print(f"{name(case):18s} {m['sm__cycles_elapsed.max']:9.0f} cycles, L1 store sectors "
              f"{m['l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum']:8.0f}, L2 write sectors "
              f"{m['lts__t_sectors_srcunit_tex_op_write.sum']:8.0f} requests "
              f"{m['lts__t_requests_srcunit_tex_op_write.sum']:7.0f}: pairs {pair_merged(row):5.3f}  "
              + hw_probe.top_stalls(m), flush=True)
    hw_probe.write(out_path, blocks=BLOCKS, threads=THREADS, rounds=ROUNDS, rows=rows)


def simulated(rows: list, **kw) -> list:
    """smsim's rows for the H200's ``rows`` (``kw``: :func:`hw_probe.simulated`'s)."""
    import numpy as np
    return hw_probe.simulated(rows, lambda r: (cross, BLOCKS, THREADS, _args(
        np, (r["mode"], r["lines"], r["gap"], r["junk"], r["jfull"]))), **kw)


def simulate(path: str) -> None:
    """smsim's merged share of the pair stores beside the H200's."""
    data = json.loads(pathlib.Path(path).read_text())
    for hw, sim in zip(data["rows"], simulated(data["rows"])):
        print(f"{hw['name']:18s} pairs reaching L2: H200 {pair_merged(hw):5.3f} smsim {pair_merged(sim):5.3f}; "
              f"cycles H200 {hw['metrics']['sm__cycles_elapsed.max']:8.0f} smsim "
              f"{sim['metrics']['sm__cycles_elapsed.max']:8.0f}", flush=True)


def main(argv=None) -> int:
    return hw_probe.ncu_main(__doc__, run, once, argv, simulate)


if __name__ == "__main__":
    sys.exit(main())

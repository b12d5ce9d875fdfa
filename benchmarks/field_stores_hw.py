"""Why does an H200 stop merging a warp's field stores at 64 warps an SM: the warps, or the blocks replaced?

Run on the device machine, from the repository root (python3 with numba-cuda and ncu)::

    PYTHONPATH=. python3 benchmarks/field_stores_hw.py --out $OUT/field_stores_hw.json

and compare smsim with what it recorded (on any machine)::

    python benchmarks/field_stores_hw.py --sim docs/hardware/field_stores_hw.json

Why: ``partial_order_hw.md`` found ``particles_aos8``'s three field stores (ptxas: all six loads, then FFMA STG
three times; a store 32 sectors in 8 lines) reaching L2 as one write at 1-32 warps an SM in grid-stride loops
(0.333-0.478 of the L1 store sectors) and mostly as three at 64 warps with a record a thread (0.855), two fields
still merging there (0.629); smsim merges them all. Is it the 64 warps, the blocks that start and end all along,
or the number of fields?

Each case runs ``F`` fields of ``particles_aos8``'s update (``p[i, f] += p[i, 3 + f] * dt``, records of 8
float32) over 4 M records: ``os`` one record a thread (blocks replaced all along), at 8, 16, 32 or 64 warps an SM
(dynamic shared memory keeps 1, 2 or 4 blocks of 256 threads an SM), in blocks of 128, 256 or 1024 threads at
64 warps; ``gs`` a grid-stride loop over one wave of 132 x k blocks of 256 threads (8k warps an SM).
"""
from __future__ import annotations

import json
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import hw_probe  # noqa: E402  (beside this file)
import ncu_workloads as nw  # noqa: E402
from partial_order_hw import fields_source  # noqa: E402
from store_merge_hw import merged  # noqa: E402

RECORDS = 1 << 22
#: dynamic shared memory a block asks for to keep ``k`` blocks an SM (of 228 KB: 120 KB one, 80 two, 50 four)
SMEM = {1: 120 << 10, 2: 80 << 10, 4: 50 << 10, 8: 0}
# (fields, layout, threads a block, blocks an SM)
CASES = ([(3, "os", 256, k) for k in (1, 2, 4, 8)] + [(3, "os", 128, 16), (3, "os", 1024, 2)]
         + [(3, "gs", 256, 8), (2, "gs", 256, 8), (2, "os", 256, 4), (4, "os", 256, 8), (4, "gs", 256, 4)])
METRICS = ("gpu__time_duration.sum", "sm__cycles_elapsed.max", "dram__bytes_read.sum", "dram__bytes_write.sum",
           "lts__t_sectors_srcunit_tex_op_write.sum", "lts__t_requests_srcunit_tex_op_write.sum",
           "smsp__inst_executed.sum", "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
           "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum", "sm__warps_active.avg.pct_of_peak_sustained_active")


def name(case: tuple) -> str:
    fields, layout, threads, per_sm = case
    return f"f{fields}_{layout}_b{threads}_w{threads // 32 * per_sm}"


def shared_bytes(case: tuple) -> int:
    """Dynamic shared memory of a block: what keeps ``per_sm`` blocks of 256 threads on an SM (none else)."""
    return SMEM.get(case[3], 0) if case[2] == 256 else 0


def launch_shape(case: tuple) -> tuple:
    """Blocks and threads a block."""
    _, layout, threads, per_sm = case
    return (RECORDS // threads if layout == "os" else 132 * per_sm), threads


def kernel_source(case: tuple) -> str:
    """The Python source of the case's kernel ``kern(p, n, dt)``."""
    fields, layout, _, _ = case
    return fields_source(fields, "n" if layout == "os" else "cuda.gridsize(1)")


def _kernel(case: tuple, module=None) -> object:
    return hw_probe.jit_source(kernel_source(case), f"<field_stores {name(case)}>", "kern", module)


def once() -> None:
    """Each case launched once (what ``ncu`` profiles)."""
    cuda, np = hw_probe.numba_cuda()
    for case in CASES:
        blocks, threads = launch_shape(case)
        args = (cuda.to_device(np.ones(RECORDS * 8, np.float32)), RECORDS, np.float32(0.5))
        k = _kernel(case)
        if shared_bytes(case) > 48 << 10:     # past 48 KB the kernel opts in
            nw._allow_dynamic_shared(k.compile(tuple(k.typeof_pyval(a) for a in args)), shared_bytes(case))
        k[blocks, threads, 0, shared_bytes(case)](*args)
        cuda.synchronize()


def run(out_path: str, ncu: str) -> None:
    rows = []
    for case, m in zip(CASES, hw_probe.ncu_profile(ncu, str(pathlib.Path(__file__).resolve()), METRICS,
                                                   len(CASES))):
        blocks, threads = launch_shape(case)
        rows.append(dict(name=name(case), case=list(case), blocks=blocks, threads=threads,
                         shared_bytes=shared_bytes(case), metrics=m))
        hw_probe.print_stores(f"{name(case):18s}", m)
    hw_probe.write(out_path, records=RECORDS, rows=rows)


def simulated(rows: list, overrides: dict | None = None) -> list:
    """smsim's rows for the H200's ``rows`` (h200, numba's front end, the SASS stream, ``complete=False``)."""
    import numpy as np

    import smsim
    from smsim import cuda
    out = []
    for r in rows:
        case = tuple(r["case"])
        res = smsim.launch(_kernel(case, cuda), r["blocks"], r["threads"],
                           (np.ones(RECORDS * 8, np.float32), RECORDS, np.float32(0.5)),
                           shared_bytes=r["shared_bytes"], config="h200", compiler="numba", complete=False,
                           overrides={"scheduler.stream": "sass", **(overrides or {})})
        out.append({**r, "metrics": res.metrics})
    return out


def simulate(path: str) -> None:
    """smsim's rows beside the H200's: time and merged share."""
    rows = json.loads(pathlib.Path(path).read_text())["rows"]
    for hw, s in zip(rows, simulated(rows)):
        h, m = hw["metrics"], s["metrics"]
        ratio = m["gpu__time_duration.sum"] / h["gpu__time_duration.sum"]
        print(f"{hw['name']:18s} H200 {h['gpu__time_duration.sum'] / 1e3:7.1f} us merged {merged(h):5.3f}   smsim "
              f"{m['gpu__time_duration.sum'] / 1e3:7.1f} us ({ratio:4.2f}) merged {merged(m):5.3f}", flush=True)


def main(argv=None) -> int:
    return hw_probe.ncu_main(__doc__, run, once, argv, simulate)


if __name__ == "__main__":
    sys.exit(main())

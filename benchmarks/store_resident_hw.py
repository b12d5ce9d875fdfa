"""Does an H200 merge a warp's two stores into the same sectors when a load waits between them, and does it
matter whether L1 holds those sectors?

Run on the device machine, from the repository root (python3 with numba-cuda and ncu)::

    python3 benchmarks/store_resident_hw.py --out $OUT/store_resident_hw.json

and here, smsim beside what it recorded::

    python benchmarks/store_resident_hw.py --sim docs/hardware/store_resident_hw.json

Why: ``coalescing.particles_aos4`` (``p[i, 0] += p[i, 2] * dt`` then ``p[i, 1] += p[i, 3] * dt``: the second
store's value waits on a load that hits L1) reaches L2 with 0.58 of its L1 store sectors, at 1-2 warps an SM
(test size) as at 64 (full), and ``particles_aos8`` (three field stores, 32 sectors in 8 lines each) 0.55-0.64,
where ``store_merge_hw``'s ``warp_k1_dense`` (a warp's back-to-back stores, 32 sectors in 8 lines, into lines
nobody loaded) 0.92 and ``store_cross_hw`` (one block an SM, different warps) none. smsim merges only a warp's
back-to-back stores of at most 16 sectors (``SM._merge_ahead``) and other warps' stores into a write still
waiting to leave the SM (``L1._join``): none of aos4's or aos8's. Is it that their lines are in L1?

Each kernel ``kern(out, n, a, b, z)``: thread ``i`` owns record ``i`` of ``R`` float32 (``R`` = 4: a warp's store
touches 16 sectors in 4 lines, as aos4; 8: 32 sectors in 8 lines, as aos8) and stores field 0, then field 1
(the same sector). ``load``: ``cold``, the value stored first is computed from ``i`` (nobody loads the record);
``loaded``, it is ``out[i, 2] * a + b`` (the warp's load brings the record's lines into L1 first). Between the
two stores (``gap``): ``c0`` the second value one add from the first, ``c16`` / ``c128`` a dependent chain of 16
/ 128 fused multiply-adds, ``hit`` a load of field ``3 + z`` added to it (``z`` = 0, a parameter: the compiler
cannot move the load above the first store, which it might alias; an L1 hit when ``loaded``, an L1 miss when
``cold``). ``layout``: ``one`` one warp an SM (132 blocks of 32 threads, looping), ``sparse`` 8
warps an SM (132 blocks of 256, looping), ``full`` a record a thread in 256-thread blocks (64 warps an SM).

Launched once each under ``ncu --clock-control none``: duration, L1 store sectors, L2 write sectors
(merged = L2 / L1: 0.5 every pair one write, 1.0 none), the warps' stall reasons.
"""
from __future__ import annotations

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import hw_probe  # noqa: E402  (beside this file)
from store_merge_hw import print_merged  # noqa: E402

RECORDS = 1 << 22               # records written: 64 MB (R = 4), 128 MB (R = 8)
LAYOUTS = {"one": (132, 32), "sparse": (132, 256), "full": (RECORDS // 256, 256)}
GAPS = ("c0", "c16", "c128", "hit")
CASES = [(r, load, gap, layout) for layout in LAYOUTS for r in (4, 8) for load in ("cold", "loaded")
         for gap in GAPS]
METRICS = ("gpu__time_duration.sum", "sm__cycles_elapsed.max", "dram__bytes_read.sum", "dram__bytes_write.sum",
           "lts__t_sectors_srcunit_tex_op_write.sum", "lts__t_requests_srcunit_tex_op_write.sum",
           "lts__t_sectors_srcunit_tex_op_read.sum", "smsp__inst_executed.sum",
           "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum",
           "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "l1tex__t_sector_pipe_lsu_mem_global_op_ld_hit_rate.pct")


def name(r: int, load: str, gap: str, layout: str) -> str:
    return f"r{r}_{load}_{gap}_{layout}"


def kernel_source(r: int, load: str, gap: str, layout: str) -> str:
    """The Python source of the kernel ``kern(out, n, a, b, z)`` of a case (``out``: ``n`` records of ``r``
    float32, flat)."""
    first = f"out[i * {r} + 2] * a + b" if load == "loaded" else "np.float32(i) * a + b"
    if gap == "hit":
        between = f"        y = out[i * {r} + 3 + z] + x"
    else:
        chain = {"c0": 0, "c16": 16, "c128": 128}[gap]
        between = "\n".join(["        y = x + b"] + ["        y = y * a + b"] * chain)
    step = "n" if layout == "full" else "cuda.gridsize(1)"
    return f"""
def kern(out, n, a, b, z):
    i = cuda.grid(1)
    while i < n:
        x = {first}
        out[i * {r}] = x
{between}
        out[i * {r} + 1] = y
        i += {step}
"""


def _kernel(case: tuple) -> object:
    return hw_probe.jit_source(kernel_source(*case), f"<store_resident {name(*case)}>", "kern")


def once() -> None:
    """Each case launched once (what ``ncu`` profiles)."""
    cuda, np = hw_probe.numba_cuda()
    out = {r: cuda.to_device(np.zeros(RECORDS * r, np.float32)) for r in (4, 8)}
    for case in CASES:
        blocks, threads = LAYOUTS[case[3]]
        _kernel(case)[blocks, threads](out[case[0]], RECORDS, np.float32(1.0), np.float32(0.5), 0)
        cuda.synchronize()


def run(out_path: str, ncu: str) -> None:
    rows = []
    for case, m in zip(CASES, hw_probe.ncu_profile(ncu, str(pathlib.Path(__file__).resolve()), METRICS,
                                                   len(CASES))):
        r, load, gap, layout = case
        blocks, threads = LAYOUTS[layout]
        rows.append(dict(name=name(*case), r=r, load=load, gap=gap, layout=layout, blocks=blocks, threads=threads,
                         metrics=m))
        hw_probe.print_stores(f"{name(*case):24s}", m)
    hw_probe.write(out_path, records=RECORDS, rows=rows)


def sim_kernel(case: tuple) -> object:
    """The case's kernel for smsim: the same source, with ``smsim.cuda`` for numba's ``cuda``."""
    from smsim import cuda
    return hw_probe.jit_source(kernel_source(*case), f"<store_resident {name(*case)}>", "kern", cuda)


def simulated(rows: list, **kw) -> list:
    """smsim's rows for the H200's ``rows`` (``kw``: :func:`hw_probe.simulated`'s), the stores timed as a
    user's launch times them (``complete=False``: the output is not finished)."""
    import numpy as np

    def launch(r: dict) -> tuple:
        blocks, threads = LAYOUTS[r["layout"]]
        return (sim_kernel((r["r"], r["load"], r["gap"], r["layout"])), blocks, threads,
                (np.zeros(RECORDS * r["r"], np.float32), RECORDS, np.float32(1.0), np.float32(0.5), 0))
    return hw_probe.simulated(rows, launch, complete=False, **kw)


def simulate(path: str) -> None:
    """smsim's merged share and time beside the H200's, per case."""
    print_merged(path, simulated)


def main(argv=None) -> int:
    return hw_probe.ncu_main(__doc__, run, once, argv, simulate)


if __name__ == "__main__":
    sys.exit(main())

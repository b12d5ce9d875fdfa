"""Different warps' stores into the same sectors at 64 warps an SM, by the element size (float32 or float64),
how many warps fill a sector, the lanes a store puts in a sector and the lines a store touches.

Run on the device machine, from the repository root (python3 with numba-cuda and ncu)::

    PYTHONPATH=. python3 benchmarks/store_group_hw.py --out $OUT/store_group_hw.json

and compare smsim with what it recorded (on any machine)::

    python benchmarks/store_group_hw.py --sim docs/hardware/store_group_hw.json

Why: with ``l1.cross_merge_window`` a store joins another warp's write still waiting to leave the SM
(``docs/hardware/store_cross_hw.md``); that made ``drills.stride_store16`` (four warps' two float32 words into
each of 16 lines) 0.93 of the H200's time, from 1.57, and ``course.transpose_f64`` (two warps' two float64 into
each of 16 lines) 0.65, from 0.79, where the H200 merges 29% of the first's L1 store sectors and 3% of the
second's. Is it the float64 store, or two warps to a sector rather than four?

Each kernel ``k(out, n)`` (``kernel_source``) has the warps of a group of ``G`` (consecutive warps of a block)
store one element a lane: ``lps`` lanes a sector, side by side, each warp of the group the next ``lps``
elements of the same sectors, 32 / ``lps`` sectors a store, 4 to a line (``dense``) or one to a line, its first
(``spread``). ``SECTORS`` sectors in all, 256-thread blocks. Merged = L2 write sectors / L1 store sectors.
"""
from __future__ import annotations

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import hw_probe  # noqa: E402  (beside this file)
from store_merge_hw import merged, print_merged  # noqa: E402

THREADS = 256
SECTORS = 1 << 21
# (element type, lanes a sector, warps a group, layout)
CASES = [("f32", 2, 4, "spread"), ("f32", 2, 4, "dense"), ("f32", 2, 2, "spread"), ("f32", 2, 2, "dense"),
         ("f32", 1, 8, "dense"), ("f32", 4, 2, "spread"),
         ("f64", 2, 2, "spread"), ("f64", 2, 2, "dense"), ("f64", 1, 4, "spread"), ("f64", 1, 4, "dense"),
         ("f64", 1, 2, "spread"), ("f64", 4, 1, "spread")]
METRICS = ("gpu__time_duration.sum", "sm__cycles_elapsed.max", "dram__bytes_read.sum", "dram__bytes_write.sum",
           "lts__t_sectors_srcunit_tex_op_write.sum", "lts__t_requests_srcunit_tex_op_write.sum",
           "smsp__inst_executed.sum", "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
           "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum")


def name(case: tuple) -> str:
    dtype, lps, group, layout = case
    return f"{dtype}_l{lps}_g{group}_{layout}"


def per_sector(dtype: str) -> int:
    return 8 if dtype == "f32" else 4


def threads(case: tuple) -> int:
    """Threads of the launch: each sector gets ``lps`` lanes from each of ``G`` warps."""
    _, lps, group, _ = case
    return SECTORS * lps * group


def words(case: tuple) -> int:
    """Elements of ``out``."""
    dtype, _, _, layout = case
    return SECTORS * per_sector(dtype) * (4 if layout == "spread" else 1)


def kernel_source(case: tuple) -> str:
    """The Python source of the kernel ``kern(out, n)`` of a case."""
    dtype, lps, group, layout = case
    e = per_sector(dtype)
    pitch = 4 * e if layout == "spread" else e
    value = "np.float32(2.0)" if dtype == "f32" else "np.float64(2.0)"
    return f"""
def kern(out, n):
    i = cuda.grid(1)
    if i < n:
        w = i // 32
        lane = i % 32
        s = (w // {group}) * {32 // lps} + lane // {lps}
        out[s * {pitch} + (w % {group}) * {lps} + lane % {lps}] = {value}
"""


def _kernel(case: tuple, module=None) -> object:
    """The case's kernel: numba's, or with ``module`` (``smsim.cuda``) smsim's, of the same source."""
    return hw_probe.jit_source(kernel_source(case), f"<store_group {name(case)}>", "kern", module)


def once() -> None:
    """Each case launched once (what ``ncu`` profiles)."""
    cuda, np = hw_probe.numba_cuda()
    for case in CASES:
        out = cuda.to_device(np.zeros(words(case), np.float32 if case[0] == "f32" else np.float64))
        n = threads(case)
        _kernel(case)[n // THREADS, THREADS](out, n)
        cuda.synchronize()


def run(out_path: str, ncu: str) -> None:
    rows = []
    for case, m in zip(CASES, hw_probe.ncu_profile(ncu, str(pathlib.Path(__file__).resolve()), METRICS,
                                                   len(CASES))):
        dtype, lps, group, layout = case
        rows.append(dict(name=name(case), dtype=dtype, lps=lps, group=group, layout=layout, n=threads(case),
                         metrics=m))
        print(f"{name(case):18s} {m['gpu__time_duration.sum'] / 1e3:8.1f} us, L1 store sectors "
              f"{m['l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum']:10.0f} requests "
              f"{m['l1tex__t_requests_pipe_lsu_mem_global_op_st.sum']:9.0f}, L2 write sectors "
              f"{m['lts__t_sectors_srcunit_tex_op_write.sum']:10.0f} ({merged(m):5.3f}), "
              + hw_probe.top_stalls(m), flush=True)
    hw_probe.write(out_path, sectors=SECTORS, threads=THREADS, rows=rows)


def simulated(rows: list, **kw) -> list:
    """smsim's rows for the H200's ``rows`` (``kw``: :func:`hw_probe.simulated`'s; ``complete=False``)."""
    import numpy as np

    from smsim import cuda

    def launch(r: dict) -> tuple:
        case = (r["dtype"], r["lps"], r["group"], r["layout"])
        out = np.zeros(words(case), np.float32 if r["dtype"] == "f32" else np.float64)
        return _kernel(case, cuda), r["n"] // THREADS, THREADS, (out, r["n"])
    return hw_probe.simulated(rows, launch, complete=False, **kw)


def simulate(path: str) -> None:
    """smsim's merged share and time beside the H200's."""
    print_merged(path, simulated)


def main(argv=None) -> int:
    return hw_probe.ncu_main(__doc__, run, once, argv, simulate)


if __name__ == "__main__":
    sys.exit(main())

"""Do a kernel's reads take the L2 slices' time its stores are bound by? Uncoalesced stores with 0-4 coalesced
loads a store, from DRAM or from L2, and sectors left written in part by one, two or three warps.

Run on the device machine, from the repository root (python3 with numba-cuda and ncu)::

    PYTHONPATH=. python3 benchmarks/store_read_hw.py --out $OUT/store_read_hw.json

and compare smsim with what it recorded (on any machine)::

    python benchmarks/store_read_hw.py --sim docs/hardware/store_read_hw.json

Why: ``course.transpose_f64`` (two warps' 16 bytes into each of 16 lines a store, a coalesced float64 load
before each) takes the H200 3.87 cycles of the 96 slices per L2 write sector, where the same stores alone
(``store_group_hw``'s ``f64_l2_g2_spread``) take 2.9 (``l2.partial_write_cycles``) and smsim 0.65 of the
H200's time; the transposes of float32 (a quarter as many read sectors a write sector) 2.96. smsim charges the
slices for written sectors only; a read's lines go through ``l2.read_lines_per_cycle``'s lookups. And stores
leaving a sector half written by two warps (``f32_l2_g2_spread``) complete 7.7 lines a cycle on the H200, where
a word a line (``store_paths_hw``'s stride32) completes 13.5.

Each kernel ``kern(out, inp, n)`` (``kernel_source``) has the warps of a group of ``G`` consecutive warps store
one element a lane into the same sectors, ``lps`` lanes a sector, one sector a line (``store_group_hw``'s
``spread``), each lane's value the sum of ``R`` coalesced loads of ``inp``: from ``R`` regions of ``n`` elements
the kernel touches once (``miss``: read from DRAM; ``odd``: so, by the odd warps only, the even ones storing at
once) or of ``HIT`` elements each, read over and over (``hit``: L2 holds them); or (``alu``) ``16 R`` dependent
multiply-adds on a value of the warp's and no load. The sectors of a case (its last field) in all, 256-thread blocks.
"""
from __future__ import annotations

import json
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import hw_probe  # noqa: E402  (beside this file)
from store_merge_hw import beside  # noqa: E402

THREADS = 256
HIT = 1 << 18           # elements of each region a "hit" load reads over and over (1 or 2 MB)
# (element type, lanes a sector, warps a group, loads a lane, where they come from, sectors)
CASES = [("f32", 1, 8, 0, "miss", 1 << 20), ("f32", 1, 8, 1, "miss", 1 << 20), ("f32", 1, 8, 2, "miss", 1 << 20),
         ("f32", 1, 8, 4, "miss", 1 << 20), ("f32", 1, 8, 4, "hit", 1 << 20),
         ("f64", 2, 2, 0, "miss", 1 << 21), ("f64", 2, 2, 1, "miss", 1 << 21), ("f64", 2, 2, 2, "miss", 1 << 21),
         ("f64", 2, 2, 1, "hit", 1 << 21), ("f64", 2, 2, 2, "hit", 1 << 21),
         ("f32", 2, 1, 0, "miss", 1 << 21), ("f32", 2, 2, 0, "miss", 1 << 21), ("f32", 2, 3, 0, "miss", 1 << 21),
         # is it the loads or the delay they put between a pair's stores, and which store shapes does it touch?
         ("f64", 2, 2, 1, "odd", 1 << 21), ("f64", 2, 2, 4, "alu", 1 << 21),
         ("f32", 4, 2, 0, "miss", 1 << 21), ("f32", 4, 2, 1, "miss", 1 << 21), ("f32", 4, 2, 1, "odd", 1 << 21),
         ("f32", 2, 4, 0, "miss", 1 << 21), ("f32", 2, 4, 1, "miss", 1 << 21),
         ("f64", 1, 4, 0, "miss", 1 << 21), ("f64", 1, 4, 1, "miss", 1 << 21),
         ("f64", 4, 1, 0, "miss", 1 << 21), ("f64", 4, 1, 1, "miss", 1 << 21)]
METRICS = ("gpu__time_duration.sum", "sm__cycles_elapsed.max", "dram__bytes_read.sum", "dram__bytes_write.sum",
           "lts__t_sectors_srcunit_tex_op_write.sum", "lts__t_sectors_srcunit_tex_op_read.sum",
           "lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum", "smsp__inst_executed.sum",
           "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum",
           "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum")


def name(case: tuple) -> str:
    dtype, lps, group, reads, src, _ = case
    return f"{dtype}_l{lps}_g{group}_r{reads}{src if reads else ''}"


def per_sector(dtype: str) -> int:
    return 8 if dtype == "f32" else 4


def threads(case: tuple) -> int:
    """Threads of the launch: each sector gets ``lps`` lanes from each of ``G`` warps."""
    _, lps, group, _, _, sectors = case
    return sectors * lps * group


def words(case: tuple) -> int:
    """Elements of ``out``: a line a sector."""
    return case[5] * per_sector(case[0]) * 4


def inp_words(case: tuple) -> int:
    """Elements of ``inp`` (at least one)."""
    _, _, _, reads, src, _ = case
    return max(1, reads * {"miss": threads(case), "odd": threads(case), "hit": HIT}.get(src, 0))


def kernel_source(case: tuple) -> str:
    """The Python source of the kernel ``kern(out, inp, n)`` of a case."""
    dtype, lps, group, reads, src, _ = case
    pitch = 4 * per_sector(dtype)
    kind = "np.float32" if dtype == "f32" else "np.float64"
    step = {"miss": "\n        v += inp[{j} * n + i]", "hit": f"\n        v += inp[{{j}} * {HIT} + i % {HIT}]",
            "odd": "\n        if w % 2 == 1:\n            v += inp[{j} * n + i]",
            "alu": f"\n        v = v * {kind}(0.5) + {kind}(1.0)"}[src]
    loads = "".join(step.format(j=j) for j in range(reads * (16 if src == "alu" else 1)))
    return f"""
def kern(out, inp, n):
    i = cuda.grid(1)
    if i < n:
        w = i // 32
        lane = i % 32
        s = (w // {group}) * {32 // lps} + lane // {lps}
        v = {kind}({"w % 3" if src == "alu" else "2.0"}){loads}
        out[s * {pitch} + (w % {group}) * {lps} + lane % {lps}] = v
"""


def _kernel(case: tuple, module=None) -> object:
    """The case's kernel: numba's, or with ``module`` (``smsim.cuda``) smsim's, of the same source."""
    return hw_probe.jit_source(kernel_source(case), f"<store_read {name(case)}>", "kern", module)


def _arrays(case: tuple, np) -> tuple:
    kind = np.float32 if case[0] == "f32" else np.float64
    return np.zeros(words(case), kind), np.ones(inp_words(case), kind)


def once() -> None:
    """Each case launched once (what ``ncu`` profiles)."""
    cuda, np = hw_probe.numba_cuda()
    for case in CASES:
        out, inp = (cuda.to_device(a) for a in _arrays(case, np))
        n = threads(case)
        _kernel(case)[n // THREADS, THREADS](out, inp, n)
        cuda.synchronize()


def slice_cycles(m: dict) -> float:
    """Cycles of the 96 slices a written sector of the device: sm__cycles x 96 / L2 write sectors (smsim's
    counters are of the timed blocks: scaled to the grid by its instructions)."""
    grid = m.get("smsim.grid.inst_executed", m["smsp__inst_executed.sum"]) / m["smsp__inst_executed.sum"]
    return m["sm__cycles_elapsed.max"] * 96 / (m["lts__t_sectors_srcunit_tex_op_write.sum"] * grid)


def run(out_path: str, ncu: str) -> None:
    rows = []
    for case, m in zip(CASES, hw_probe.ncu_profile(ncu, str(pathlib.Path(__file__).resolve()), METRICS,
                                                   len(CASES))):
        dtype, lps, group, reads, src, sectors = case
        rows.append(dict(name=name(case), dtype=dtype, lps=lps, group=group, reads=reads, src=src, sectors=sectors,
                         n=threads(case), metrics=m))
        print(f"{name(case):18s} {m['gpu__time_duration.sum'] / 1e3:8.1f} us, L2 write sectors "
              f"{m['lts__t_sectors_srcunit_tex_op_write.sum']:10.0f} read "
              f"{m['lts__t_sectors_srcunit_tex_op_read.sum']:10.0f}"
              f" DRAM read {m['dram__bytes_read.sum'] / 1e6:7.1f} MB write {m['dram__bytes_write.sum'] / 1e6:7.1f} MB,"
              f" {slice_cycles(m):5.2f} slice cycles a write sector, " + hw_probe.top_stalls(m), flush=True)
    hw_probe.write(out_path, threads=THREADS, hit=HIT, rows=rows)


def simulated(rows: list, **kw) -> list:
    """smsim's rows for the H200's ``rows`` (``kw``: :func:`hw_probe.simulated`'s; ``complete=False``)."""
    import numpy as np

    from smsim import cuda

    def launch(r: dict) -> tuple:
        case = (r["dtype"], r["lps"], r["group"], r["reads"], r["src"], r["sectors"])
        out, inp = _arrays(case, np)
        return _kernel(case, cuda), r["n"] // THREADS, THREADS, (out, inp, r["n"])
    return hw_probe.simulated(rows, launch, complete=False, **kw)


def simulate(path: str, width: int = 18) -> None:
    """smsim's time beside the H200's, and the slices' cycles a written sector of both (names ``width`` wide:
    ``store_size_hw`` prints its rows so too)."""
    rows = json.loads(pathlib.Path(path).read_text())["rows"]
    sim = simulated(rows)
    beside(rows, sim)
    for hw, s in zip(rows, sim):
        print(f"{hw['name']:{width}s} slice cycles a write sector H200 {slice_cycles(hw['metrics']):5.2f} "
              f"smsim {slice_cycles(s['metrics']):5.2f}")


def main(argv=None) -> int:
    return hw_probe.ncu_main(__doc__, run, once, argv, simulate)


if __name__ == "__main__":
    sys.exit(main())

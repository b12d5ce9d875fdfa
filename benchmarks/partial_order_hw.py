"""Does a partial write cost L2 less when the other writes into its sector come long before or after it? And how
many of a warp's field stores does an H200 merge at 1..64 warps an SM when its loads all come first?

Run on the device machine, from the repository root (python3 with numba-cuda and ncu)::

    PYTHONPATH=. python3 benchmarks/partial_order_hw.py --out $OUT/partial_order_hw.json

and compare smsim with what it recorded (on any machine)::

    python benchmarks/partial_order_hw.py --sim docs/hardware/partial_order_hw.json

Why: full-size ``routine.scatter_perm`` (``out[perm[i]] = a[i]``, 64 MB: a store of 29 sectors in 29 lines, a word
each) takes the H200 2.25 cycles of the 96 slices per L2 write sector, where the naive float32 transposes (a
store of a word into each of 32 lines, the next warps' words into the same sectors at once) take 2.96-3.01 and
smsim charges both ``l2.partial_write_cycles`` (2.75): smsim 1.29x the H200's time on the scatter, 0.98-1.07 on
the transposes. Float64 transposes take 3.6-3.8 (smsim 0.81-0.90 of their time). Is it when a sector's other
words are written (at once, or far apart) that a partial write's cost depends on?

``order`` cases (``kern(out, n)``): warp ``w`` stores a word a lane into 32 lines (one sector each), lane ``l``
into line ``32 g + l``, word ``k`` of the line: every line is written whole by ``G`` warps (``G`` = 32 float32
or 16 float64 words a line), warp ``w`` being number ``h`` = ``order(w)`` of ``NW`` (group ``g = h // G``,
``k = h % G``): ``near`` h = w (a group's warps one after another, as a naive transpose's), ``far`` the
``k``-th word of every line in the ``k``-th of ``G`` passes over all lines, ``rand`` h = w x 40503 mod NW (a
line's writes scattered over the kernel, as a permutation's). 16 MB (L2 holds it) and 64 MB of lines.

``fields`` cases (``particles_aos8``'s update, ``p[i, f] += p[i, 3 + f] * dt`` for ``F`` fields of records of 8
float32; ptxas issues all the loads first, then FFMA STG pairs, a store 32 sectors in 8 lines): 4 M records,
grid-stride at 1 warp (132 x 32 threads) and 8, 16, 32 warps an SM (132 k x 256), and one record a thread (64
warps an SM, as the full-size workload). Merged = L2 write sectors / L1 store sectors.
"""
from __future__ import annotations

import json
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import hw_probe  # noqa: E402  (beside this file)
from store_merge_hw import merged  # noqa: E402
from store_read_hw import slice_cycles  # noqa: E402

THREADS = 256
RECORDS = 1 << 22
ORDERS = ("near", "far", "rand")
# ("order", element type, MB of lines, order) and ("fields", F, warps an SM (64: a record a thread))
CASES = ([("order", dtype, mb, order) for mb in (16, 64) for dtype in ("f32", "f64") for order in ORDERS]
         + [("fields", 3, warps) for warps in (1, 8, 16, 32, 64)] + [("fields", 2, 1), ("fields", 2, 64)])
METRICS = ("gpu__time_duration.sum", "sm__cycles_elapsed.max", "dram__bytes_read.sum", "dram__bytes_write.sum",
           "lts__t_sectors_srcunit_tex_op_write.sum", "lts__t_requests_srcunit_tex_op_write.sum",
           "lts__t_sectors_srcunit_tex_op_read.sum", "lts__t_sector_op_write_hit_rate.pct",
           "smsp__inst_executed.sum", "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
           "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum", "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum")


def name(case: tuple) -> str:
    if case[0] == "order":
        return f"{case[3]}_{case[1]}_{case[2]}MB"
    return f"fields{case[1]}_w{case[2]}"


def words_per_line(dtype: str) -> int:
    return 32 if dtype == "f32" else 16


def order_shape(case: tuple) -> tuple:
    """An order case's lines, warps (NW) and threads."""
    _, dtype, mb, _ = case
    lines = (mb << 20) // 128
    warps = lines // 32 * words_per_line(dtype)
    return lines, warps, warps * 32


def launch_shape(case: tuple) -> tuple:
    """Blocks, threads a block, and the ``n`` argument of a case."""
    if case[0] == "order":
        n = order_shape(case)[2]
        return n // THREADS, THREADS, n
    warps = case[2]
    if warps == 1:
        return 132, 32, RECORDS
    if warps == 64:
        return RECORDS // THREADS, THREADS, RECORDS
    return 132 * warps // 8, THREADS, RECORDS


def kernel_source(case: tuple) -> str:
    """The Python source of the case's kernel: ``kern(out, n, dt)``."""
    if case[0] == "order":
        _, dtype, _, order = case
        g = words_per_line(dtype)
        nw = order_shape(case)[1]
        h = {"near": "w", "far": f"(w % {nw // g}) * {g} + w // {nw // g}", "rand": f"(w * 40503) % {nw}"}[order]
        kind = "np.float32" if dtype == "f32" else "np.float64"
        return f"""
def kern(out, n, dt):
    i = cuda.grid(1)
    if i < n:
        w = i // 32
        lane = i % 32
        h = {h}
        out[((h // {g}) * 32 + lane) * {g} + h % {g}] = {kind}(lane)
"""
    return fields_source(case[1], "n" if case[2] == 64 else "cuda.gridsize(1)")


def fields_source(fields: int, step: str) -> str:
    """``kern(p, n, dt)``: ``particles_aos8``'s update of ``fields`` fields of records of 8 float32 in a loop
    of ``step`` (``"n"``: a record a thread)."""
    body = "\n".join(f"        p[i * 8 + {f}] += p[i * 8 + {3 + f}] * dt" for f in range(fields))
    return f"""
def kern(p, n, dt):
    i = cuda.grid(1)
    while i < n:
{body}
        i += {step}
"""


def _kernel(case: tuple, module=None) -> object:
    return hw_probe.jit_source(kernel_source(case), f"<partial_order {name(case)}>", "kern", module)


def _array(case: tuple, np):
    if case[0] == "order":
        lines = order_shape(case)[0]
        return np.zeros(lines * words_per_line(case[1]), np.float32 if case[1] == "f32" else np.float64)
    return np.ones(RECORDS * 8, np.float32)


def once() -> None:
    """Each case launched once (what ``ncu`` profiles)."""
    cuda, np = hw_probe.numba_cuda()
    for case in CASES:
        blocks, threads, n = launch_shape(case)
        _kernel(case)[blocks, threads](cuda.to_device(_array(case, np)), n, np.float32(0.5))
        cuda.synchronize()


def line(label: str, m: dict) -> str:
    l1 = m.get("l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", 0)
    l2 = m.get("lts__t_sectors_srcunit_tex_op_write.sum", 0)
    return (f"{label:16s} {m['gpu__time_duration.sum'] / 1e3:8.1f} us, L2 write sectors {l2:10.0f} "
            f"({l2 / l1 if l1 else 0:5.3f} of L1's), DRAM read {m['dram__bytes_read.sum'] / 1e6:7.1f} MB write "
            f"{m['dram__bytes_write.sum'] / 1e6:7.1f} MB, {slice_cycles(m):5.2f} slice cycles a write sector, ")


def run(out_path: str, ncu: str) -> None:
    rows = []
    for case, m in zip(CASES, hw_probe.ncu_profile(ncu, str(pathlib.Path(__file__).resolve()), METRICS,
                                                   len(CASES))):
        blocks, threads, n = launch_shape(case)
        rows.append(dict(name=name(case), case=list(case), blocks=blocks, threads=threads, n=n, metrics=m))
        print(line(name(case), m) + hw_probe.top_stalls(m), flush=True)
    hw_probe.write(out_path, records=RECORDS, threads=THREADS, rows=rows)


def simulated(rows: list, **kw) -> list:
    """smsim's rows for the H200's ``rows`` (``kw``: :func:`hw_probe.simulated`'s; ``complete=False``)."""
    import numpy as np

    from smsim import cuda

    def launch(r: dict) -> tuple:
        case = tuple(r["case"])
        return _kernel(case, cuda), r["blocks"], r["threads"], (_array(case, np), r["n"], np.float32(0.5))
    return hw_probe.simulated(rows, launch, complete=False, **kw)


def simulate(path: str) -> None:
    """smsim's rows beside the H200's: time, merged share, slice cycles a write sector."""
    rows = json.loads(pathlib.Path(path).read_text())["rows"]
    for hw, s in zip(rows, simulated(rows)):
        h, m = hw["metrics"], s["metrics"]
        grid = m.get("smsim.grid.inst_executed", m["smsp__inst_executed.sum"]) / m["smsp__inst_executed.sum"]
        ratio = m["gpu__time_duration.sum"] / h["gpu__time_duration.sum"]
        print(f"{hw['name']:16s} H200 {h['gpu__time_duration.sum'] / 1e3:7.1f} us smsim "
              f"{m['gpu__time_duration.sum'] / 1e3:7.1f} us ({ratio:4.2f})"
              f"  merged {merged(h):5.3f} / {merged(m):5.3f}  slice cycles {slice_cycles(h):5.2f} / "
              f"{slice_cycles(m):5.2f}  DRAM read MB {h['dram__bytes_read.sum'] / 1e6:6.1f} / "
              f"{m['dram__bytes_read.sum'] * grid / 1e6:6.1f}", flush=True)


def main(argv=None) -> int:
    return hw_probe.ncu_main(__doc__, run, once, argv, simulate)


if __name__ == "__main__":
    sys.exit(main())

"""When does an H200 merge stores into one sector before L2? By who stores (one warp's consecutive stores,
or a block's warps' one store each), the bytes each puts in a sector and the lines a store touches.

Run on the device machine, from the repository root (python3 with numba-cuda and ncu)::

    python3 benchmarks/store_merge_hw.py --out $OUT/store_merge_hw.json

and compare smsim with what it recorded (on any machine)::

    python benchmarks/store_merge_hw.py --sim docs/hardware/store_merge_hw.json

Why: ``benchmarks/partial_writes_hw.py`` found that stores filling a sector between them close together
reach L2 as one write (a warp's two stores into 8 sectors: half the L1 store sectors arrive at L2; eight
warps of a block into the same 32 sectors: a fifth), but not a warp's own eight stores into 32 sectors,
nor an uncoalesced transpose's (32 lines a store). These kernels vary one thing at a time.

Each kernel ``k(out, n, v)`` writes every word of ``SECTORS`` sectors of ``out`` exactly once, in 256-thread
blocks (64 warps an SM), a store putting ``k`` consecutive words (``k`` = 1, 2, 4) into each of ``32 / k``
sectors, ``8 / k`` stores filling them:

- ``warp``: one warp makes the ``8 / k`` stores, one after another (a thread stores ``8 / k`` times);
- ``block``: ``8 / k`` warps of a block make one store each;
- ``dense``: the sectors lie 4 to a line (a store touches ``8 / k`` lines); ``spread``: one to a line, its
  first (a store touches ``32 / k`` lines).

Launched once each under ``ncu --clock-control none``: duration, SM cycles, L1 store requests and sectors,
L2 write requests and sectors, DRAM bytes, the warps' stall reasons.
"""
from __future__ import annotations

import json
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import hw_probe  # noqa: E402  (beside this file)

THREADS = 256
SECTORS = 1 << 21               # sectors written (64 MB dense, 256 MB of lines spread)
CASES = [(who, k, layout) for layout in ("dense", "spread") for who in ("warp", "block") for k in (1, 2, 4)]
METRICS = ("gpu__time_duration.sum", "sm__cycles_elapsed.max", "dram__bytes_read.sum", "dram__bytes_write.sum",
           "lts__t_sectors_srcunit_tex_op_write.sum", "lts__t_requests_srcunit_tex_op_write.sum",
           "lts__t_sector_op_write_hit_rate.pct", "smsp__inst_executed.sum",
           "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum")


def name(who: str, k: int, layout: str) -> str:
    return f"{who}_k{k}_{layout}"


def threads(who: str, k: int) -> int:
    """Threads of the launch: a thread stores ``8 / k`` words (``warp``) or one (``block``)."""
    return SECTORS * k if who == "warp" else SECTORS * 8


def kernel_source(who: str, k: int, layout: str) -> str:
    """The Python source of the kernel ``k(out, n, v)`` of a case."""
    per = 32 // k                                  # sectors a store touches
    if who == "warp":
        head = f"g = i // 32\n        q = (i % 32) // {k}\n        w0 = i % {k}"
        rounds = range(8 // k)
    else:
        head = (f"g = (i // 32) // {8 // k}\n        q = (i % 32) // {k}\n"
                f"        w0 = ((i // 32) % {8 // k}) * {k} + i % {k}")
        rounds = range(1)
    place = "s * 8" if layout == "dense" else "s * 32"
    stores = "\n".join(f"        out[{place} + w0 + {r * k}] = v" for r in rounds)
    return f"""
def kern(out, n, v):
    i = cuda.grid(1)
    if i < n:
        {head}
        s = g * {per} + q
{stores}
"""


def _kernel(case: tuple) -> object:
    return hw_probe.jit_source(kernel_source(*case), f"<store_merge {name(*case)}>", "kern")


def once() -> None:
    """Each case launched once (what ``ncu`` profiles)."""
    cuda, np = hw_probe.numba_cuda()
    out = cuda.to_device(np.zeros(SECTORS * 32, np.float32))
    v = np.float32(2.0)
    for case in CASES:
        n = threads(case[0], case[1])
        _kernel(case)[n // THREADS, THREADS](out, n, v)
        cuda.synchronize()


def run(out_path: str, ncu: str) -> None:
    rows = []
    for case, m in zip(CASES, hw_probe.ncu_profile(ncu, str(pathlib.Path(__file__).resolve()), METRICS,
                                                   len(CASES))):
        who, k, layout = case
        rows.append(dict(name=name(*case), who=who, k=k, layout=layout, n=threads(who, k), metrics=m))
        l1 = m.get("l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", 0)
        l2 = m.get("lts__t_sectors_srcunit_tex_op_write.sum", 0)
        print(f"{name(*case):18s} {m['gpu__time_duration.sum'] / 1e3:8.1f} us, L1 store sectors {l1:10.0f}, "
              f"L2 write sectors {l2:10.0f} ({l2 / l1 if l1 else 0:5.3f}), L2 requests "
              f"{m.get('lts__t_requests_srcunit_tex_op_write.sum', 0):9.0f}, DRAM read "
              f"{m['dram__bytes_read.sum'] / 1e6:6.1f} MB, " + hw_probe.top_stalls(m), flush=True)
    hw_probe.write(out_path, sectors=SECTORS, rows=rows)


def sim_kernel(case: tuple) -> object:
    """The case's kernel for smsim: the same source, with ``smsim.cuda`` for numba's ``cuda``."""
    from smsim import cuda
    return hw_probe.jit_source(kernel_source(*case), f"<store_merge {name(*case)}>", "kern", cuda)


def simulated(rows: list, **kw) -> list:
    """smsim's rows for the H200's ``rows`` (``kw``: :func:`hw_probe.simulated`'s), each block's stores timed
    as a user's launch times them (``complete=False``: the output is not finished)."""
    import numpy as np

    def launch(r: dict) -> tuple:
        n = r["n"]
        return (sim_kernel((r["who"], r["k"], r["layout"])), n // THREADS, THREADS,
                (np.zeros(SECTORS * 32, np.float32), n, np.float32(2.0)))
    return hw_probe.simulated(rows, launch, complete=False, **kw)


def merged(m: dict) -> float:
    """L2 write sectors / L1 store sectors."""
    return m["lts__t_sectors_srcunit_tex_op_write.sum"] / m["l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"]


def beside(rows: list, sim_rows: list) -> None:
    """Print each row's merged share and time, the H200's beside smsim's (also ``store_group_hw``'s)."""
    for hw, sim in zip(rows, sim_rows):
        h, m = hw["metrics"], sim["metrics"]
        print(f"{hw['name']:22s} merged H200 {merged(h):5.3f} smsim {merged(m):5.3f}; time H200 "
              f"{h['gpu__time_duration.sum'] / 1e3:6.1f} us smsim {m['gpu__time_duration.sum'] / 1e3:6.1f} us "
              f"({m['gpu__time_duration.sum'] / h['gpu__time_duration.sum']:4.2f})", flush=True)


def print_merged(path: str, simulate_rows) -> None:
    """Each row recorded in a store probe's JSON at ``path`` beside smsim's (``simulate_rows``, the probe's
    ``simulated``): :func:`beside` (``store_group_hw``'s and ``store_resident_hw``'s too)."""
    rows = json.loads(pathlib.Path(path).read_text())["rows"]
    beside(rows, simulate_rows(rows))


def simulate(path: str) -> None:
    """smsim's merged share and time beside the H200's."""
    print_merged(path, simulated)


def main(argv=None) -> int:
    return hw_probe.ncu_main(__doc__, run, once, argv, simulate)


if __name__ == "__main__":
    sys.exit(main())

"""What a loop of line loads costs a warp when few SMs and few warps run: DRAM latency at light load.

Run on the device machine, from the repository root (python3 with numba-cuda and ncu)::

    PYTHONPATH=. python3 benchmarks/few_sm_loads_hw.py --out $OUT/few_sm_loads_hw.json

and beside smsim, on any machine: ``python benchmarks/few_sm_loads_hw.py --sim docs/hardware/few_sm_loads_hw.json``.
``FEW_SM_LINES=1`` runs :data:`LINE_CASES` instead (``few_sm_lines_hw.json``).

Why: at the validation's test size (32 K elements) kernels whose few warps each loop over a row of lines
(``seminar.row_sum_warp``: 4 blocks of 8 warps, a warp a 4 KB row, ptxas's four loads in flight a warp;
``tutorial.gather_rows_warp``, ``bootcamp.matvec_f64_warp``, ``recitation.norm_rows16``,
``cuda_c.vec_add_grid_stride``, ``exercises.gemv_thread_row``) take smsim 0.83-0.89 of the H200's time, while
the same kernels with hundreds of blocks at the mid size are within 3% (``docs/timing_model.md``): the
DRAM round trip a warp waits at light load, with a few SMs reading, is longer on the H200 than smsim's. Which
part: the row (smsim's open-row latency, ``dram.row_hit_latency_cycles``, 300 cycles where a warp's loads stay
in one row), the number of SMs reading, the warps an SM, the loads a warp has in flight?

Each kernel: ``blocks`` blocks of ``threads`` threads, every warp ``LINES`` times loading a line (lane ``l``'s
word ``l``) into a sum, at ``pattern``'s place: ``row`` a warp's own run of lines one after another (the
row sum's order), ``stride`` line ``j`` of warp ``w`` at ``j x warps + w`` (the grid-stride order: the
warps together read consecutive lines at each step); ``chain`` makes each load's address wait on the sum
before it (one load in flight a warp, ``+ (int(acc) & zero)``, ``zero`` = 0 at run time), ``free`` leaves them
independent (ptxas unrolls by four: four in flight). Timed by ncu, caches flushed before each (its default),
so every line comes from DRAM once.
"""
from __future__ import annotations

import os
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import hw_probe  # noqa: E402  (beside this file)

LINES = 64
METRICS = ("gpu__time_duration.sum", "sm__cycles_elapsed.max", "sm__cycles_active.max", "smsp__inst_executed.sum",
           "dram__bytes_read.sum", "lts__t_sector_hit_rate.pct")
SOURCE = """
def k(a, out, lines, pattern, chain, zero):
    t = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x
    w = t // 32
    lane = t % 32
    warps = cuda.gridDim.x * cuda.blockDim.x // 32
    acc = np.float32(0.0)
    for j in range(lines):
        line = w * lines + j if pattern == 0 else j * warps + w
        if chain:
            line += int(acc) & zero
        acc += a[line * 32 + lane]
    out[t] = acc
"""
PATTERNS = ("row", "stride")
#: (pattern, chain, blocks, threads, lines a warp)
CASES = [(p, c, b, t, LINES) for p in (0, 1) for c in (1, 0) for b in (1, 4, 16, 132) for t in (32, 256)]
#: the same loops 8-128 lines long (with ``FEW_SM_LINES=1`` in the environment, which ncu's child run inherits):
#: what does not grow with the lines (a start-up cost) and what does
LINE_CASES = [(p, c, b, 256, n) for (p, c, b) in ((0, 0, 4), (0, 1, 4), (1, 0, 132)) for n in (8, 16, 32, 64, 128)]


def _name(pattern: int, chain: int, blocks: int, threads: int, lines: int = LINES) -> str:
    return f"{PATTERNS[pattern]}_{'chain' if chain else 'free'}_b{blocks}_t{threads}" + \
        (f"_n{lines}" if lines != LINES else "")


def _cases() -> list:
    return LINE_CASES if os.environ.get("FEW_SM_LINES") else CASES


def _kernel(module=None) -> object:
    return hw_probe.jit_source(SOURCE, "<few_sm_loads>", "k", module)


def _args(np, case: tuple) -> tuple:
    pattern, chain, blocks, threads, lines = case
    n = blocks * threads * lines
    a = (np.arange(n) % 7).astype(np.float32)
    return blocks, threads, (a, np.zeros(blocks * threads, np.float32), np.int64(lines), np.int64(pattern),
                             np.int64(chain), np.int64(0))


def once() -> None:
    cuda, np = hw_probe.numba_cuda()
    k = _kernel()
    for case in _cases():
        grid, threads, args = _args(np, case)
        k[grid, threads](cuda.to_device(args[0]), cuda.to_device(args[1]), *args[2:])
        cuda.synchronize()


def _case(r: dict) -> tuple:
    return r["pattern"], r["chain"], r["blocks"], r["threads"], r.get("lines", LINES)


def run(out_path: str, ncu: str) -> None:
    script = str(pathlib.Path(__file__).resolve())
    cases = _cases()
    rows = [dict(name=_name(*c), pattern=c[0], chain=c[1], blocks=c[2], threads=c[3], lines=c[4], metrics=m)
            for c, m in zip(cases, hw_probe.ncu_profile(ncu, script, METRICS, len(cases)))]
    for r in rows:
        m = r["metrics"]
        print(f"{r['name']:26s} {m['gpu__time_duration.sum'] / 1e3:8.2f} us  "
              f"{m['sm__cycles_active.max'] / r['lines']:8.1f} active cycles a line  "
              f"DRAM {m['dram__bytes_read.sum'] / 1e3:8.1f} KB  " + hw_probe.top_stalls(m), flush=True)
    hw_probe.write(out_path, rows=rows, lines=LINES)


def simulated(rows: list, **kw) -> list:
    """smsim's rows for the H200's ``rows`` (``kw``: :func:`hw_probe.simulated`'s)."""
    return hw_probe.simulated_source(rows, _kernel, lambda np, r: _args(np, _case(r)), **kw)


def simulate(path: str) -> None:
    hw_probe.print_durations(path, simulated, 22)


def main(argv=None) -> int:
    return hw_probe.ncu_main(__doc__, run, once, argv, simulate)


if __name__ == "__main__":
    sys.exit(main())

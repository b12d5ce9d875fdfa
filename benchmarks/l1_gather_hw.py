"""How fast does an H200's L1 serve a warp's load that hits in several lines? By the lines it touches, the
words it names and the banks those words fall into.

Run on the device machine, from the repository root (python3 with numba-cuda and ncu)::

    python3 benchmarks/l1_gather_hw.py --out $OUT/l1_gather_hw.json

and compare smsim with what it recorded (on any machine)::

    python benchmarks/l1_gather_hw.py --sim docs/hardware/l1_gather_hw.json

Why: smsim's L1 tag stage takes a load a cycle per line it touches (``l1.tag_lookups_per_cycle``), as a
thread-a-row loop over rows of 32 or 64 floats needs (``ordinary.rowsum64``, ``course.prefix_row32``: 32 lines
a load, the H200's time), but ``workshop.searchsorted`` (a binary search in a table of 4096 floats: 18 lines
a load, all L1 hits) runs at 1.5 lines a cycle an SM on the H200, 1.4x faster than that allows. Is it the
lines, the distinct words, or the 4-byte banks of the L1's data array (the rows kernels' lanes all read the
same column: one bank) that cost?

Each kernel ``k(table, out, reps)`` has every thread load ``reps`` x 8 words of a 16 KB table (4096 floats, in
L1 after the first loads) at an index of its lane ``l`` and the load's ``i`` (a base computed once, then an add
and a mask or two a load: few instructions, so that the L1 and not the issue bounds it) and sum them; 264
blocks of 512 threads (two an SM, 32 warps). Patterns (``L``: distinct lines a load, ``W``: distinct words,
``B``: most distinct words in one 4-byte bank):

- ``coalesced``: lane ``l`` word ``l + 32 i`` (L 1, W 32, B 1);
- ``rows32``: word ``32 l + i % 32`` (a thread a row of 32: L 32, W 32, B 32);
- ``rows32_skew``: word ``32 l + (i + l) % 32`` (L 32, W 32, B 1);
- ``rows64``: word ``64 l + i % 32`` (L 32 at a stride of two lines, B 32);
- ``lines{k}_word``: lanes ``l`` and ``l + k`` name the same word, ``32 (l % k) + i % 32`` (L k, W k, B k);
- ``lines{k}_skew``: word ``32 (l % k) + (i + l) % 32`` (L k, W 32, B 1);
- ``random``: a hashed word of the table, ``1031 i`` further each load (L about 21 in no regular pattern, W 32,
  B 1: the hash's odd multiplier puts the 32 lanes in 32 banks);
- ``random_col``: a hashed line, three lines further each load, every lane the same column (L 32 in no
  regular pattern, B 32).

Launched once each under ``ncu --clock-control none``: duration, SM cycles, the L1's global load requests,
sectors, and where ncu has them, its data-stage wavefronts and bank conflicts, the warps' stall reasons.
"""
from __future__ import annotations

import json
import pathlib
import subprocess
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import hw_probe  # noqa: E402  (beside this file)

THREADS = 512
BLOCKS = 264
WORDS = 4096
REPS = 64                         # loops of 8 loads a thread
#: pattern -> (the thread's base, computed once; the word of its load i, from the base, its lane l and i)
PATTERNS = {
    "coalesced": ("l", "(b + 32 * i) & 4095"),
    "rows32": ("32 * l", "b + (i & 31)"),
    "rows32_skew": ("32 * l", "b + ((i + l) & 31)"),
    "rows64": ("64 * l", "(b + (i & 31)) & 4095"),
    **{f"lines{k}_word": (f"32 * (l & {k - 1})", "b + (i & 31)") for k in (2, 4, 8, 16, 32)},
    **{f"lines{k}_skew": (f"32 * (l & {k - 1})", "b + ((i + l) & 31)") for k in (2, 4, 8, 16)},
    "random": ("((l + 1) * 40503) & 4095", "(b + 1031 * i) & 4095"),
    "random_col": ("((l + 1) * 40503) & 127", "32 * ((b + 3 * i) & 127) + (i & 31)"),
}
CASES = list(PATTERNS)
BASE_METRICS = ("gpu__time_duration.sum", "sm__cycles_elapsed.max", "sm__cycles_elapsed.avg",
                "smsp__inst_executed.sum", "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
                "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
                "l1tex__t_sector_pipe_lsu_mem_global_op_ld_hit_rate.pct")
#: the L1 data-stage counters of global loads, recorded where this ncu has them
OPTIONAL = ("l1tex__data_pipe_lsu_wavefronts_mem_lg_cmd_read.sum",
            "l1tex__data_bank_conflicts_pipe_lsu_mem_global_op_ld.sum",
            "l1tex__data_pipe_lsu_wavefronts_mem_global_op_ld.sum",
            "l1tex__data_pipe_lsu_wavefronts.sum",
            "l1tex__t_output_wavefronts_pipe_lsu_mem_global_op_ld.sum",
            "l1tex__data_pipe_lsu_wavefronts_mem_lg.sum")


def kernel_source(pattern: str) -> str:
    """The Python source of the kernel ``k(table, out, reps)`` of a pattern: eight loads a loop, unrolled."""
    base, word = PATTERNS[pattern]
    loads = "\n".join(f"        i = i0 + {u}\n        s += table[{word}]" for u in range(8))
    return f"""
def k(table, out, reps):
    t = cuda.grid(1)
    l = cuda.threadIdx.x & 31
    b = {base}
    s = np.float32(0.0)
    for r in range(reps):
        i0 = 8 * r
{loads}
    out[t] = s
"""


def _kernel(pattern: str, module=None) -> object:
    return hw_probe.jit_source(kernel_source(pattern), f"<l1_gather {pattern}>", "k", module)


def once() -> None:
    """Each case launched once (what ``ncu`` profiles)."""
    cuda, np = hw_probe.numba_cuda()
    table = cuda.to_device(np.arange(WORDS, dtype=np.float32))
    out = cuda.to_device(np.zeros(BLOCKS * THREADS, np.float32))
    for p in CASES:
        _kernel(p)[BLOCKS, THREADS](table, out, REPS)
        cuda.synchronize()


def available(ncu: str, names) -> list:
    """Those of ``names`` this ncu knows (``ncu --query-metrics``; base names, without the ``.sum``)."""
    try:
        listed = subprocess.run([ncu, "--query-metrics"], capture_output=True, text=True, timeout=120).stdout
    except (OSError, subprocess.SubprocessError):
        return []
    known = {line.split()[0] for line in listed.splitlines() if line.strip()}
    return [n for n in names if n.rsplit(".", 1)[0] in known]


def run(out_path: str, ncu: str) -> None:
    metrics = list(BASE_METRICS) + available(ncu, OPTIONAL)
    rows = []
    for p, m in zip(CASES, hw_probe.ncu_profile(ncu, str(pathlib.Path(__file__).resolve()), metrics, len(CASES))):
        rows.append(dict(name=p, base=PATTERNS[p][0], word=PATTERNS[p][1], metrics=m))
        req = m.get("l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", 0) or 1
        cyc = m["sm__cycles_elapsed.avg"]
        extra = " ".join(f"{k.split('__')[1][:38]} {m[k] / req:5.2f}" for k in OPTIONAL if k in m)
        print(f"{p:16s} {m['gpu__time_duration.sum'] / 1e3:8.1f} us, {cyc * 132 / req:6.2f} SM cycles a request, "
              f"sectors a request {m.get('l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum', 0) / req:5.2f}, "
              f"hit {m.get('l1tex__t_sector_pipe_lsu_mem_global_op_ld_hit_rate.pct', 0):5.1f}% {extra} "
              + hw_probe.top_stalls(m), flush=True)
    hw_probe.write(out_path, threads=THREADS, blocks=BLOCKS, words=WORDS, reps=REPS, metrics=metrics, rows=rows)


def simulated(rows: list, **kw) -> list:
    """smsim's rows for the H200's ``rows`` (``kw``: :func:`hw_probe.simulated`'s)."""
    import numpy as np

    from smsim import cuda

    def launch(r: dict) -> tuple:
        return (_kernel(r["name"], cuda), BLOCKS, THREADS,
                (np.arange(WORDS, dtype=np.float32), np.zeros(BLOCKS * THREADS, np.float32), REPS))
    return hw_probe.simulated(rows, launch, **kw)


def simulate(path: str) -> None:
    """smsim's cycles a request beside the H200's."""
    rows = json.loads(pathlib.Path(path).read_text())["rows"]
    for hw, sim in zip(rows, simulated(rows)):
        h, m = hw["metrics"], sim["metrics"]
        req = h["l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"]
        a, b = h["sm__cycles_elapsed.avg"] * 132 / req, m["sm__cycles_elapsed.avg"] * 132 / req
        print(f"{hw['name']:16s} SM cycles a request: H200 {a:6.2f} smsim {b:6.2f} ({b / a:4.2f}); time "
              f"H200 {h['gpu__time_duration.sum'] / 1e3:7.1f} us smsim {m['gpu__time_duration.sum'] / 1e3:7.1f} us",
              flush=True)


def main(argv=None) -> int:
    return hw_probe.ncu_main(__doc__, run, once, argv, simulate)


if __name__ == "__main__":
    sys.exit(main())

"""Speed of the timing model: simulated warp-instructions per second and peak memory.

Runs, timed on the h100 config: the tiled-padded transpose at 2048x2048 (blocks="share": the blocks one SM
runs), the reduction sequence (every reduction case, 1M elements, share) and the naive matmul at 512 (share).
Prints, per workload, simulated warp-instructions, wall seconds, warp-instructions per second and the peak
traced memory (tracemalloc, a separate run) beside the bytes of the launch's own arrays (which the simulated
device memory must hold a copy of: that part grows with the problem, the rest should not), then the slowest
rate and the overall one (on the project's 2-core CI-class machine: issue "Timing fidelity II" asks 200,000
SASS warp-instructions per second with ``--stream sass``; measured figures and what they include:
``docs/timing_model.md``, "Which instructions are timed"). Compiling a kernel (Python to ISA, numba's first
calls) is a one-off cost per kernel and process, so each case is launched once untimed (one block) before it
is measured; wall time is the best of ``--repeat`` runs, as timeit does, because a shared machine's noise only
ever adds time. The preset's ``l2.sharing = "device"`` runs every block before the last timed one on the
interpreter (for what it leaves in L2: the completion's work, which ``complete=True`` would do anyway, done
first): ``--sharing neighbours`` measures the timing model without it.

    python benchmarks/sim_speed.py [--quick] [--repeat N] [--stream ptx|sass] [--sharing device|neighbours|private]
"""
from __future__ import annotations

import argparse
import resource
import time
import tracemalloc

import smsim
from workloads import case as cases


def _workloads(quick: bool) -> list:
    n = 512 if quick else 2048
    work = [("transpose.tiled_padded", n)]
    work += [(f"reduction.{c.name}", 1 << (16 if quick else 20)) for c in cases.family("reduction")]
    work.append(("matmul.naive", 128 if quick else 512))
    return work


def measure(case_id: str, size: int, repeat: int = 3, stream: str = "ptx", sharing: str | None = None) -> dict:
    """Best-of-``repeat`` wall time of one timed launch; ``stream``: what the schedulers issue (with "sass",
    the rate counts SASS warp-instructions issued); ``sharing``: ``l2.sharing`` (None: the preset's)."""
    case = cases.get(case_id)
    s = case.setup(size, 0)
    kernel = case.kernel.load() if isinstance(case.kernel, cases.PtxKernel) else case.kernel

    overrides = {"scheduler.stream": stream, **({"l2.sharing": sharing} if sharing else {})}

    def run(blocks="share"):
        return smsim.launch(kernel, s.grid, s.block, s.args, shared_bytes=s.shared_bytes, config="h100",
                            blocks=blocks, complete=False, overrides=overrides)
    run(blocks=1)                          # compile the kernel (not what is measured)
    walls = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        res = run()
        walls.append(time.perf_counter() - t0)
    wall = min(walls)
    tracemalloc.start()                   # a separate, traced run for the peak memory (tracing slows it)
    run()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    data = sum(a.nbytes for a in s.args if hasattr(a, "nbytes"))
    count = res.issued_instructions if stream == "sass" else res.warp_instructions
    return {"case": case_id, "size": size, "warp_instructions": count, "wall_s": wall,
            "rate": count / wall, "peak_mb": peak / 2 ** 20, "data_mb": data / 2 ** 20,
            "cycles": res.cycles, "blocks": res.blocks_timed}


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="smaller sizes (a smoke run)")
    ap.add_argument("--repeat", type=int, default=3, help="timed runs per case; the best is reported")
    ap.add_argument("--stream", choices=("ptx", "sass"), default="ptx",
                    help="what the schedulers issue (sass: SASS warp-instructions are counted)")
    ap.add_argument("--sharing", choices=("device", "neighbours", "private"),
                    help="l2.sharing (default: the preset's, device)")
    args = ap.parse_args(argv)
    rows = [measure(c, n, max(1, args.repeat), args.stream, args.sharing) for c, n in _workloads(args.quick)]
    print(f"{'workload':37s} {'size':>8s} {'blocks':>6s} {'warp-instr':>10s} {'wall s':>7s} {'warp-instr/s':>12s} "
          f"{'peak MB':>8s} {'data MB':>8s}")
    for r in rows:
        print(f"{r['case']:37s} {r['size']:8d} {r['blocks']:6d} {r['warp_instructions']:10d} {r['wall_s']:7.2f} "
              f"{r['rate']:12.0f} {r['peak_mb']:8.1f} {r['data_mb']:8.1f}")
    total = sum(r["warp_instructions"] for r in rows) / sum(r["wall_s"] for r in rows)
    print(f"slowest: {min(r['rate'] for r in rows):.0f} warp-instr/s; overall {total:.0f}; "
          f"max RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")


if __name__ == "__main__":
    main()

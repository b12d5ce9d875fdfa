"""Speed of the timing model: simulated warp-instructions per second and peak memory.

Runs, timed on the h100 config: the tiled-padded transpose at 2048x2048 (blocks="share": the blocks one SM
runs), the reduction sequence (every reduction case, 1M elements, share) and the naive matmul at 512
(share). Prints, per workload, simulated warp-instructions, wall seconds, warp-instructions per second and
the peak resident-set growth, then the slowest rate (the target is 50,000 warp-instructions per second on the
project's 2-core CI-class machine). The first launch of a run compiles the numba kernels; a warm-up launch
runs before the measurements.

    python benchmarks/sim_speed.py [--quick]
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


def measure(case_id: str, size: int) -> dict:
    case = cases.get(case_id)
    s = case.setup(size, 0)
    kernel = case.kernel.load() if isinstance(case.kernel, cases.PtxKernel) else case.kernel
    t0 = time.perf_counter()
    res = smsim.launch(kernel, s.grid, s.block, s.args, shared_bytes=s.shared_bytes, config="h100",
                       blocks="share", complete=False)
    wall = time.perf_counter() - t0
    tracemalloc.start()                   # a second, traced run for the peak memory (tracing slows it)
    smsim.launch(kernel, s.grid, s.block, s.args, shared_bytes=s.shared_bytes, config="h100", blocks="share",
                 complete=False)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return {"case": case_id, "size": size, "warp_instructions": res.warp_instructions, "wall_s": wall,
            "rate": res.warp_instructions / wall, "peak_mb": peak / 2 ** 20, "cycles": res.cycles,
            "blocks": res.blocks_timed}


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="smaller sizes (a smoke run)")
    args = ap.parse_args(argv)
    measure("transpose.tiled_padded", 64)        # warm-up: numba compilation, kernel compilation
    rows = [measure(c, n) for c, n in _workloads(args.quick)]
    print(f"{'workload':34s} {'size':>8s} {'blocks':>6s} {'warp-instr':>10s} {'wall s':>7s} {'warp-instr/s':>12s} "
          f"{'peak MB':>8s}")
    for r in rows:
        print(f"{r['case']:34s} {r['size']:8d} {r['blocks']:6d} {r['warp_instructions']:10d} {r['wall_s']:7.2f} "
              f"{r['rate']:12.0f} {r['peak_mb']:8.1f}")
    total = sum(r["warp_instructions"] for r in rows) / sum(r["wall_s"] for r in rows)
    print(f"slowest: {min(r['rate'] for r in rows):.0f} warp-instr/s; overall {total:.0f}; "
          f"max RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")


if __name__ == "__main__":
    main()

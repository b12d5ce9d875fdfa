"""Issue slots per PTX instruction, from the SASS ptxas makes: the statistics behind ``isa/cost.py``.

Without ptxas and nvdisasm (macOS, Windows: no ``smsim[sass]``) smsim times the PTX, each instruction taking
the issue slots :func:`isa.cost.issue_slots` estimates for its SASS. This script measures them: for every
workload kernel (Python through smsim's compiler, the route those users take, and the PTX cases) it maps the
SASS to the PTX (:func:`isa.sass.of`), replays one warp of the test-size launch (:class:`isa.sass.Replay`:
the SASS that warp issues) and counts, per class of PTX instruction (opcode, 64-bit integer or not, state
space), the PTX executions and the SASS issued for them (each SASS instruction counts for the PTX
instruction ptxas made it of), every kernel weighing the same (its executions scaled to 1000, so that
the microbenchmarks' long loops do not decide the fit). It prints per class the measured SASS per PTX instruction
beside ``isa.cost``'s slots, and the total both give against the SASS count. Needs ``smsim[sass]``.

    python benchmarks/cost_fit.py [--family FAMILY]
"""
from __future__ import annotations

import argparse
import sys
from collections import defaultdict

import numpy as np

from isa import Kernel, sass
from isa.cost import _WIDE_INT, issue_slots
from isa.interp import Launch
from isa.trace import trace_blocks
from smsim.launch import _compiled
from workloads import case as cases


def klass(ins) -> str:
    wide = any(m in _WIDE_INT for m in ins.mods) and ins.opcode != "cvt" and "wide" not in ins.mods
    space = [m for m in ins.mods if m in ("param", "global", "shared", "local", "const")]
    return ins.opcode + (".64" if wide else "") + ("." + space[0] if space else "")


def measure(case, counts: dict) -> None:
    s = case.setup("test", 0)
    kernel = case.load_kernel()
    if isinstance(kernel, Kernel):
        comp, args = kernel, s.args
    else:
        comp, flatten = _compiled(kernel, s.args, "smsim")
        args = flatten(s.args)
    mp = sass.of(comp)
    run = Launch(comp, s.grid, s.block, args, s.shared_bytes)
    pcs = trace_blocks(run, [0])[0].warps[0].pcs
    replay = sass.Replay(comp, mp)
    items, _ = replay.stream(pcs)
    n = len(comp.body)
    issued = np.zeros(n, np.int64)
    for i in items:
        pc = (i - replay.nsass) if i >= replay.nsass else replay.sass[i].ptx
        if i >= replay.nsass and replay.lookup[pc]:
            continue                        # a constant-bank lookup: no SASS of its own
        if pc is not None and pc < n:
            issued[pc] += 1
    executed = np.bincount(np.asarray(pcs), minlength=n)
    mine: dict = defaultdict(lambda: [0, 0, 0])
    for pc, ins in enumerate(comp.body):
        if executed[pc] or issued[pc]:
            c = mine[klass(ins)]
            c[0] += executed[pc]
            c[1] += issued[pc]
            c[2] += executed[pc] * issue_slots(ins)
    total = max(1, sum(c[0] for c in mine.values()))
    for k, c in mine.items():           # each kernel weighs the same: its executions scaled to 1000
        for j in range(3):
            counts[k][j] += c[j] * 1000 / total


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--family", help="only these families (comma-separated)")
    args = ap.parse_args(argv)
    if not sass.available():
        print("cost_fit: needs ptxas and nvdisasm (pip install 'smsim[sass]')", file=sys.stderr)
        return 2
    fams = args.family.split(",") if args.family else [f for f in cases.FAMILIES if f != "calib"]
    counts: dict = defaultdict(lambda: [0, 0, 0])
    done = 0
    for fam in fams:
        for case in cases.family(fam):
            try:
                measure(case, counts)
                done += 1
            except Exception as e:          # a case that does not build at its test size: say so, go on
                print(f"  {case.id}: skipped ({type(e).__name__}: {e})", file=sys.stderr)
    print(f"{'PTX class':24s} {'executed':>10s} {'SASS each':>10s} {'isa.cost':>9s}")
    for k, (n, got, est) in sorted(counts.items(), key=lambda kv: -kv[1][0]):
        print(f"{k:24s} {n:10.0f} {got / max(n, 1):10.2f} {est / max(n, 1):9.2f}")
    n, got, est = (sum(c[i] for c in counts.values()) for i in range(3))
    print(f"\n{done} kernels, one warp each, each kernel's executions weighted to 1000: {n:.0f} PTX executions "
          f"-> {got:.0f} SASS (ptxas), {est:.0f} issue slots (isa.cost): {est / got:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""How long a branch holds its warp on the H200: ``scheduler.branch_resolve_cycles`` and ``reconverge_cycles``.

Nsight Compute counts ``branch_resolving`` ("waiting for a branch target to be computed, and the warp PC to be
updated") on top of ``wait`` (the control code's stall): across the validation cases the H200's ``wait`` per
issue is smsim's, and ``branch_resolving`` (0-1.6 warp-cycles per issue) is time smsim did not have. This
script takes, for every case at the test size, the H200's ``branch_resolving`` per issue
(``docs/hardware/validate_hw.json``, as ``smsim validate`` reads it) times the instructions smsim's timed
blocks issue, and the SASS those blocks execute (``BRA`` and the other branches, ``EXIT``, ``BSYNC``), and fits
the first as cycles per instruction of each kind by least squares::

    python benchmarks/branch_fit.py [--case a,b,...]

Prints the fit and each case's cycles per branch. The counts are the SASS the H200 ran (numba's front end),
which no timing change alters.
"""
from __future__ import annotations

import argparse

import numpy as np

import smsim
import workloads
from smsim import validate
from workloads import case as cases

BRANCHES = ("BRA", "BRX", "JMP", "JMX", "RET", "CALL")     # what smsim.sass_stream calls a branch
KINDS = ("branch", "EXIT", "BSYNC")


def executed(case_id: str) -> tuple:
    """``(issued instructions, executions of each of KINDS)`` of the case's timed blocks at the test size."""
    case = cases.get(case_id)
    s = case.setup("test", 0)
    res = smsim.launch(case.load_kernel(), s.grid, s.block, s.args, shared_bytes=s.shared_bytes,
                       config="h200", complete=False)
    count = dict.fromkeys(KINDS, 0)
    for row in res.instructions:
        words = row["text"].split()
        op = (words[1] if words and words[0].startswith("@") and len(words) > 1 else words[0] if words else "")
        base = op.split(".")[0]
        kind = "branch" if base in BRANCHES else base
        if kind in count:
            count[kind] += row["executed"]
    return res.metrics["smsp__inst_executed.sum"], [count[k] for k in KINDS]


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--case", help="comma-separated case ids (default: every validated case)")
    args = ap.parse_args(argv)
    runs = validate.load()["runs"]["test"]
    measured = {cid: validate.hw_stalls(r["metrics"]) for cid, r in runs.items() if r.get("ok") and "metrics" in r}
    ids = args.case.split(",") if args.case else [c.id for f in workloads.FAMILIES if f not in ("microbench", "calib")
                                                  for c in workloads.family(f)]
    x, y = [], []
    for cid in ids:
        if cid not in measured:
            continue
        issued, counts = executed(cid)
        cycles = measured[cid].get("branch_resolving", 0.0) * issued
        x.append(counts)
        y.append(cycles)
        n = sum(counts)
        print(f"{cid:40s} issued {issued:9.0f} " + " ".join(f"{k} {c:6d}" for k, c in zip(KINDS, counts))
              + f"  branch_resolving {cycles:9.0f} ({cycles / n if n else 0:5.2f} a branch)", flush=True)
    coef, *_ = np.linalg.lstsq(np.array(x, float), np.array(y), rcond=None)
    print("cycles each, least squares over", len(y), "cases: " + ", ".join(f"{k} {c:.2f}" for k, c in zip(KINDS, coef)))


if __name__ == "__main__":
    main()

"""SASS of smsim's compiler against numba-cuda's NVVM, per workload: where smsim's own front end falls behind.

For every Python kernel measured on the H200 (``docs/hardware/validate_hw.json``, test size), prints the
SASS instructions ptxas makes of each front end's PTX (static: the kernel's main path) and the SASS warp
instructions a launch issues (dynamic: ``smsp__inst_executed.sum`` of the SASS stream, the timed SM's
blocks scaled to the grid, as ``smsim validate`` compares them), beside what the H200 executed (numba's
NVVM and ptxas, on the GPU), then the cases where smsim's compiler issues over 10% more or fewer than
NVVM's. Needs ``smsim[sass]`` and ``smsim[numba]`` (the README's test set-up installs both).

    python benchmarks/front_ends.py [--family FAMILY] [--json out/front_ends.json]
"""
from __future__ import annotations

import argparse
import json
import sys

import smsim
from isa import sass
from isa.errors import CompileError
from smsim import validate
from smsim.case import PtxKernel
from workloads import case as cases


def static_sass(kernel) -> int:
    """Main-path SASS instructions of a compiled kernel (ptxas's out-of-line slow paths left out)."""
    return sum(not s.outlined for s in sass.of(kernel).listing)


def compare(case_id: str, hw: dict) -> dict:
    case = cases.get(case_id)
    s = case.setup("test", 0)
    row = {"case": case_id, "hw_inst": hw["metrics"]["smsp__inst_executed.sum"]}
    for fe in ("smsim", "numba"):
        row[f"{fe}_static"] = static_sass(smsim.compile(case.load_kernel(), s.args, compiler=fe))
        res = validate.predict(case_id, "test", compiler=fe, stream="sass")
        row[f"{fe}_inst"] = validate.compare(case_id, "test", hw, res).sim_inst     # scaled to the grid
    return row


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--family", help="only these families (comma-separated)")
    ap.add_argument("--json", help="write the rows as JSON")
    args = ap.parse_args(argv)
    if not sass.available():
        print("front_ends: needs ptxas and nvdisasm (pip install 'smsim[sass]')", file=sys.stderr)
        return 2
    runs = validate.load()["runs"]["test"]
    fams = set(args.family.split(",")) if args.family else None
    ids = [cid for cid, rec in sorted(runs.items()) if rec.get("ok")
           and not isinstance(cases.get(cid).kernel, PtxKernel) and (fams is None or cid.split(".")[0] in fams)]
    rows, uncompiled = [], []
    print(f"{'case':38s} {'static smsim':>12s} {'numba':>6s} {'issued smsim':>13s} {'numba':>9s} {'H200':>9s}")
    for cid in ids:
        try:
            r = compare(cid, runs[cid])
        except CompileError as e:          # smsim's compiler refuses it (numba's compiles everything here)
            uncompiled.append(cid)
            print(f"{cid:38s} smsim's compiler: {str(e).splitlines()[0]}", flush=True)
            continue
        rows.append(r)
        print(f"{cid:38s} {r['smsim_static']:12d} {r['numba_static']:6d} {r['smsim_inst']:13.0f} "
              f"{r['numba_inst']:9.0f} {r['hw_inst']:9.0f}", flush=True)
    longer = [r for r in rows if r["smsim_inst"] > 1.1 * r["numba_inst"]]
    shorter = [r for r in rows if r["smsim_inst"] < 0.9 * r["numba_inst"]]
    print(f"\n{len(rows)} kernels: smsim's compiler issues over 10% more SASS than NVVM's on {len(longer)} "
          f"({', '.join(r['case'] for r in longer) or 'none'}), over 10% fewer on {len(shorter)} "
          f"({', '.join(r['case'] for r in shorter) or 'none'}); {len(uncompiled)} not compiled by smsim's "
          f"({', '.join(uncompiled) or 'none'})")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())

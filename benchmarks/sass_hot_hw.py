"""Where an H200 stalls, SASS instruction by SASS instruction: Nsight Compute's source counters of a few cases.

Run on the device machine, from the repository root (python3 with numba-cuda, CuPy and ``ncu``)::

    PYTHONPATH=. python3 benchmarks/sass_hot_hw.py --out $OUT/sass_hot_hw.json
    python benchmarks/sass_hot_hw.py --show docs/hardware/sass_hot_hw.json     # the table, anywhere

Why: the index-heavy cases (``routine.int_divmod``, ``routine.bilinear2x``, ``ordinary.blur3x3``, the
tiled transposes) run 10-20% faster in smsim than on the H200 at the full size, where the H200 shows
``dispatch_stall`` and more ``math_pipe_throttle`` than smsim, and no loop of one instruction kind
(``pipe_mix_hw.py``) explains it. The per-instruction stall samples say which instructions the warps wait at
and for what.

For each case of :data:`CASES` (at ``--size``, default ``full``), :mod:`benchmarks.ncu_workloads`'s worker
launches it once (outputs checked) under ``ncu --clock-control none`` with the ``SourceCounters``,
``WarpStateStats``, ``SchedulerStats``, ``InstructionStats`` and ``ComputeWorkloadAnalysis`` sections and
each pipe's busy cycles (:data:`WANTED`); the report is then read three
ways: ``--page raw`` (every metric), ``--page details`` and ``--page source --print-source sass`` (per SASS
instruction: executed instructions and warp-state samples by reason), each kept as ncu printed it.
"""
from __future__ import annotations

import argparse
import csv
import io
import json
import math
import os
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

import hw_probe  # noqa: E402  (beside this file)
import ncu_workloads as nw  # noqa: E402
CASES = ("routine.int_divmod", "routine.bilinear2x", "ordinary.blur3x3", "transpose.tiled_padded",
         "stencil.sobel_shared", "plain.count_above", "everyday.vadd_b1024", "plain.matadd_2d16")
SECTIONS = ("SourceCounters", "WarpStateStats", "SchedulerStats", "InstructionStats", "ComputeWorkloadAnalysis")
#: each pipe's busy cycles and instructions (the FMA pipe's two halves apart), beside the sections', where
#: this ncu knows the metric (:func:`known`)
WANTED = tuple(f"sm__{m}" for p in ("alu", "fma", "fmaheavy", "fmalite", "fp64", "xu", "lsu", "uniform", "adu",
                                     "cbu")
               for m in (f"pipe_{p}_cycles_active", f"inst_executed_pipe_{p}"))


def known(ncu: str) -> list:
    """The :data:`WANTED` metrics this ncu lists for the GPU (``--query-metrics``), as their ``.avg``
    share of the peak while the SM is active."""
    p = subprocess.run([ncu, "--query-metrics"], capture_output=True, text=True)
    names = {ln.split()[0] for ln in p.stdout.splitlines() if ln.strip()}
    return [f"{m}.avg.pct_of_peak_sustained_active" for m in WANTED if m in names]


def _ncu(cmd: list, timeout: float) -> tuple:
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                       env={**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""),
                            "NUMBA_CUDA_LOW_OCCUPANCY_WARNINGS": "0"})
    return p.returncode, p.stdout, p.stderr[-4000:]


def profile(case: str, size: str, ncu: str, work: pathlib.Path, timeout: float, metrics: list) -> dict:
    """One case under ncu; the report read back as raw metrics, details and the SASS source view."""
    rep = work / case.replace(".", "_")
    man = work / (case.replace(".", "_") + ".jsonl")
    for f in (man, rep.with_suffix(".ncu-rep")):
        if f.exists():
            f.unlink()
    sections = [a for s in SECTIONS for a in ("--section", s)]
    extra = ["--metrics", ",".join(metrics)] if metrics else []
    cmd = [ncu, "--clock-control", "none", *sections, *extra, "--import-source", "no", "-f", "-o", str(rep),
           sys.executable, str(ROOT / "benchmarks" / "ncu_workloads.py"), "--worker", "--manifest", str(man),
           "--size", size, "--seed", "0", case]
    rc, out, err = _ncu(cmd, timeout)
    row = dict(case=case, size=size, command=" ".join(cmd), rc=rc, stderr=err)
    if man.exists():
        row["worker"] = [json.loads(ln) for ln in open(man)]
    report = str(rep) + ".ncu-rep"
    if not os.path.exists(report):
        row["error"] = f"no report (exit {rc})"
        return row
    for page, extra in (("raw", ["--print-units", "base"]), ("details", []),
                        ("source", ["--print-source", "sass"])):
        prc, pout, perr = _ncu([ncu, "--import", report, "--csv", "--page", page, *extra], timeout)
        row[page] = pout
        if prc != 0:
            row[f"{page}_error"] = f"exit {prc}: {perr}"
    return row


def run(args) -> None:
    work = pathlib.Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    rows = []
    metrics = known(args.ncu)
    print("pipe metrics:", metrics, flush=True)
    for case in args.cases.split(","):
        row = profile(case, args.size, args.ncu, work, args.timeout, metrics)
        rows.append(row)
        print(f"{case}: exit {row['rc']}, source page {len(row.get('source', ''))} chars "
              f"{row.get('source_error', '')[:300]}", flush=True)
    hw_probe.write(args.out, sections=SECTIONS, metrics=metrics, rows=rows)


def source_rows(text: str) -> list:
    """The SASS source view's CSV as dicts, one a SASS instruction (ncu prints a "Kernel Name" line first)."""
    lines = text.splitlines()
    head = next((i for i, ln in enumerate(lines) if ln.startswith('"Address"')), None)
    return [] if head is None else list(csv.DictReader(io.StringIO("\n".join(lines[head:]))))


def _num(v, missing: float = 0.0) -> float:
    """An ncu CSV cell as a number (:func:`ncu_workloads._number`); ``missing`` where it is none."""
    v = nw._number(str(v))
    return float(v) if isinstance(v, (int, float)) else missing


def show(path: str, top: int) -> None:
    """Per case: the stall samples by reason over all its SASS, then the instructions with the most samples."""
    data = json.load(open(path))
    for row in data["rows"]:
        src = source_rows(row.get("source", ""))
        print(f"== {row['case']} ({row['size']}): {len(src)} SASS instructions")
        if not src:
            print(row.get("source_error", row.get("error", ""))[:2000])
            continue
        raw = (nw._parse_csv(row.get("raw", "")) or [{}])[0]

        def metric(name: str, raw: dict = raw) -> float:
            return _num(raw.get(name, ""), math.nan)
        print(f"  issue {metric('smsp__issue_active.avg.pct_of_peak_sustained_active'):.0f}%, eligible warps "
              f"{metric('smsp__warps_eligible.avg.per_cycle_active'):.2f} a cycle, busy: ALU "
              f"{metric('sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active'):.0f}%, FMA-heavy "
              f"{metric('sm__pipe_fmaheavy_cycles_active.avg.pct_of_peak_sustained_active'):.0f}%, FMA-lite "
              f"{metric('sm__pipe_fmalite_cycles_active.avg.pct_of_peak_sustained_active'):.0f}%")
        reasons = [k for k in src[0] if k.startswith("stall_") and "(" not in k]
        total = {k: sum(_num(r[k]) for r in src) for k in reasons}
        alls = sum(total.values()) or 1.0
        print("  samples by reason: " + ", ".join(f"{k[6:]} {v / alls:.1%}" for k, v in
                                                  sorted(total.items(), key=lambda kv: -kv[1]) if v > 0))
        samp = "Warp Stall Sampling (All Samples)"
        for r in sorted(src, key=lambda r: -_num(r[samp]))[:top]:
            why = ", ".join(f"{k[6:]} {int(_num(r[k]))}" for k in reasons if _num(r[k]) > 0)
            print(f"  {r['Source'].strip()[:60]:60s} exec {int(_num(r['Instructions Executed'])):>9d} "
                  f"samples {int(_num(r[samp])):>6d}: {why}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out")
    ap.add_argument("--show", metavar="FILE", help="print the hottest SASS lines of a recorded FILE")
    ap.add_argument("--top", type=int, default=12)
    ap.add_argument("--cases", default=",".join(CASES))
    ap.add_argument("--size", default="full")
    ap.add_argument("--ncu", default="ncu")
    ap.add_argument("--work", default="/tmp/sass_hot")
    ap.add_argument("--timeout", type=float, default=240)
    args = ap.parse_args(argv)
    if args.show:
        show(args.show, args.top)
    elif args.out:
        run(args)
    else:
        ap.error("--out or --show is required")
    return 0


if __name__ == "__main__":
    sys.exit(main())

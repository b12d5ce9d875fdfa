"""The hardware validation suite: every workload case timed and counted by Nsight Compute on a real GPU.

Run on the device machine, from the repository root (python3 with numba-cuda, CuPy and ``ncu``)::

    PYTHONPATH=. python3 benchmarks/validate_hw.py --sizes test --out $OUT/validate_hw_test.json --raw-dir $OUT
    PYTHONPATH=. python3 benchmarks/validate_hw.py --sizes full --out $OUT/validate_hw_full.json --raw-dir $OUT

For each size (``test``: the shapes smsim's tests and docs use; ``full``: each case's large shape) and each
family, it runs :mod:`benchmarks.ncu_workloads`'s worker under ``ncu --clock-control none`` with the
``WarpStateStats`` and ``SchedulerStats`` sections and :data:`METRICS` (kernel duration, SM cycles, issued
instructions, DRAM bytes, L2 hit rates, L1/L2 sectors), one launch per case with its outputs checked
against the numpy reference, and reads every metric of the report back (``ncu --import --page raw``).
Kernel time is ``gpu__time_duration.sum`` as ncu measures it: never CUDA events around a numba launch,
which add numba's host-side launch work (~25 us) to a short kernel. The families ``microbench`` and
``calib`` are left out by default (persistent microbenchmarks, measured by ``benchmarks/calib_hw.py``).

The output, committed as ``docs/hardware/validate_hw.json`` (``docs/hardware/validate_hw.md`` tells how it
was collected), holds the commands, GPU, driver and tool versions, and ``runs[size][case id]``: the case's
launch shape, whether its outputs were right, and every numeric metric ncu reported for it. ``smsim
validate`` (:mod:`smsim.validate`) simulates the same cases and compares.
"""
from __future__ import annotations

import argparse
import json
import pathlib
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import ncu_workloads as nw  # noqa: E402  (beside this file)

METRICS = nw.METRICS + (
    "gpu__time_duration.sum",
    "sm__cycles_elapsed.max",
    "sm__cycles_elapsed.avg",
    "sm__cycles_active.avg",
    "dram__bytes_read.sum",
    "dram__bytes_write.sum",
    "lts__t_sector_hit_rate.pct",
    "lts__t_sector_op_read_hit_rate.pct",
    "lts__t_sector_op_write_hit_rate.pct",
    "lts__t_sectors_srcunit_tex_op_read.sum",
    "lts__t_sectors_srcunit_tex_op_write.sum",
    "lts__t_sectors_srcunit_tex_op_atom.sum",
    "lts__t_sectors_srcunit_tex_op_red.sum",
    "l1tex__t_sector_pipe_lsu_mem_global_op_ld_hit_rate.pct",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
    "sm__warps_active.avg.pct_of_peak_sustained_active",
    "sm__maximum_warps_per_active_cycle_pct",
    "launch__waves_per_multiprocessor",
    "launch__occupancy_limit_shared_mem",
    "launch__occupancy_limit_warps",
)
SECTIONS = ("WarpStateStats", "SchedulerStats")
SKIP_FAMILIES = ("microbench", "calib")
#: metric prefixes of the raw page that describe the machine or the profiler, not the kernel (the device
#: attributes are kept once, in ``device_attributes``, by :func:`merge`)
NOT_KERNEL = ("device__", "nvlink__", "numa__", "c2clink__", "profiler__")


def _kernel_metrics(row: dict) -> dict:
    out = {}
    for k, v in row.items():
        if "__" in k and not k.startswith(NOT_KERNEL):
            n = nw._number(v)
            if isinstance(n, (int, float)):
                out[k] = n
    return out


def _record(entry: dict) -> dict:
    """A case's record: its launch and check, and every numeric metric of its ncu row."""
    r = {k: entry.get(k) for k in ("ok", "error", "kind", "kernel", "grid", "block", "shared_bytes", "size",
                                   "seed", "launched", "seconds")}
    row = entry.get("row")
    if row:
        r["hw_kernel_name"] = row.get("Kernel Name")
        r["metrics"] = _kernel_metrics(row)
    elif entry.get("launched"):
        r["counters_error"] = "no matching ncu row"
    if entry.get("traceback") and not entry.get("ok"):
        r["traceback"] = entry["traceback"]
    return r


def merge(paths: list, out: str) -> dict:
    """One file of several runs' outputs (or of earlier merges): the first file's header, every command, and
    each case's latest record (a later file's record of a case and size replaces an earlier one: a
    re-measurement)."""
    data = [json.load(open(p)) for p in paths]
    merged = {k: v for k, v in data[0].items() if k not in ("runs", "ncu_commands", "command", "seconds")}
    merged["commands"] = [c for d in data for c in d.get("commands", [d.get("command")])]   # merged files too
    merged["ncu_commands"] = [c for d in data for c in d["ncu_commands"]]
    merged["seconds"] = sum(d["seconds"] for d in data)
    merged["sizes"] = list(dict.fromkeys(s for d in data for s in d["sizes"]))
    merged["runs"] = {}
    for d in data:
        for size, cases in d["runs"].items():
            for rec in cases.values():
                raw = rec.get("metrics", {})
                if raw and "device_attributes" not in merged:
                    merged["device_attributes"] = {k: v for k, v in raw.items() if k.startswith("device__attribute_")}
                rec["metrics"] = {k: v for k, v in raw.items() if not k.startswith(NOT_KERNEL)}
            merged["runs"].setdefault(size, {}).update(cases)
    with open(out, "w") as f:
        json.dump(merged, f, indent=0, sort_keys=True)
    return merged


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", default="test,full", help="comma-separated: test, full or numbers")
    ap.add_argument("--families", help="comma-separated families (default: all but microbench and calib)")
    ap.add_argument("--cases", help="comma-separated case ids (default: every case of the families)")
    nw.add_run_options(ap, str(ROOT / "docs" / "hardware" / "validate_hw.json"), "/tmp/validate_hw", 400)
    ap.add_argument("--merge", nargs="+", metavar="JSON", help="merge these outputs into --out, and stop")
    args = ap.parse_args(argv)
    if args.merge:
        merge(args.merge, args.out)
        return 0
    chunks, missing = nw.select(args.cases, args.families, SKIP_FAMILIES)
    raw_dir = nw.work_dirs(args)
    t0 = time.time()
    runs: dict = {}
    commands: list = []
    unmatched: list = []
    with open(raw_dir / "validate_hw.log", "w") as log, open(raw_dir / "validate_hw_raw.csv", "w") as csv_out:
        for size in args.sizes.split(","):
            run = argparse.Namespace(ncu=args.ncu, work=args.work, size=size, seed=args.seed, timeout=args.timeout,
                                     metrics=METRICS, sections=SECTIONS, csv_out=csv_out)
            runs[size] = {}
            for fam, fam_ids in chunks.items():
                print(f"[validate_hw] {size} {fam}: {len(fam_ids)} cases", flush=True)
                entries, um, cmds = nw._run_chunk(run, fam_ids, f"{fam}_{size}", log)
                commands += cmds
                unmatched += [{"size": size, "kernel": r.get("Kernel Name"), "grid": r.get("Grid Size")} for r in um]
                for cid in fam_ids:
                    rec = _record(entries.get(cid, {"id": cid, "ok": False, "error": "no record"}))
                    runs[size][cid] = rec
                    m = rec.get("metrics", {})
                    print(f"  {cid:36s} {'ok  ' if rec['ok'] else 'FAIL'} "
                          f"t={m.get('gpu__time_duration.sum')} ns "
                          f"{'' if rec['ok'] else (rec.get('error') or '')[:120]}", flush=True)
    out = {
        "description": "Nsight Compute measurements of every workload case (benchmarks/validate_hw.py): kernel "
                       "duration, cycles, instructions, memory counters, WarpStateStats and SchedulerStats, "
                       "one launch per case and size",
        "metrics": list(METRICS), "sections": list(SECTIONS), "sizes": args.sizes.split(","), "seed": args.seed,
        **nw.provenance(args.ncu, commands, missing, unmatched, t0),
        "runs": runs,
    }
    pathlib.Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(out, f, indent=0, sort_keys=True)
    n = sum(len(r) for r in runs.values())
    ok = sum(rec["ok"] for r in runs.values() for rec in r.values())
    timed = sum("gpu__time_duration.sum" in rec.get("metrics", {}) for r in runs.values() for rec in r.values())
    print(f"[validate_hw] {ok}/{n} correct, {timed} timed, {time.time() - t0:.0f} s; wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

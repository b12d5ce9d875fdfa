"""smsim's counts next to the hardware's: every case measured by ``benchmarks/ncu_workloads.py``, run again in
smsim at the same size and seed.

    python benchmarks/compare_hw.py     # reads docs/hardware/ncu_workloads.json, writes docs/compiler_vs_hardware.md
    python benchmarks/compare_hw.py --json X.json --out Y.md --cases cuda_c.reduce_shfl,vector.vec_add

For each case of the JSON: ``case.setup(size, seed)`` as recorded, ``smsim.launch(kernel, grid, block, args,
shared_bytes=..., timing=False)`` (Python kernels go through smsim's compiler; PTX kernels run as they are),
the outputs checked against the reference, and a table row: smsim's warp-instructions (PTX) and its
SASS-equivalent issue slots (``issued_instructions``) against the hardware's ``smsp__inst_executed.sum`` (a
ratio, not an equality), and the global load/store requests
and 32-byte sectors, smsim's ``counters`` against ``l1tex__t_{requests,sectors}_pipe_lsu_mem_global_op_{ld,st}
.sum``. "match" is yes when all four memory counts are equal. A case that fails to compile or run in smsim
is listed with its error; the script goes on.
"""
from __future__ import annotations

import argparse
import json
import pathlib
import shlex
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

HW = {
    "requests_ld": "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
    "sectors_ld": "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
    "requests_st": "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum",
    "sectors_st": "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
}
HW_INST = "smsp__inst_executed.sum"


def run_smsim(case_id: str, rec: dict) -> dict:
    """smsim's counts for one recorded case: ``{"instructions", "counters", "ok", "error"}``."""
    import smsim
    import workloads
    out = {"instructions": None, "issued": None, "counters": {}, "ok": False, "error": None}
    stage = "setup"
    try:
        case = workloads.get(case_id)
        s = case.setup(int(rec["size"]) if rec.get("size") is not None else "test", int(rec.get("seed") or 0))
        if rec.get("grid") and list(_dims(s.grid)) != list(rec["grid"]):
            out["note"] = f"grid {s.grid} differs from the measured {rec['grid']}"
        kernel = case.kernel.load() if isinstance(case.kernel, workloads.PtxKernel) else case.kernel
        stage = "launch"
        t0 = time.time()
        res = smsim.launch(kernel, s.grid, s.block, s.args, shared_bytes=s.shared_bytes, timing=False)
        out["seconds"] = round(time.time() - t0, 2)
        out["instructions"] = res.warp_instructions
        out["issued"] = getattr(res, "issued_instructions", None) or None
        out["counters"] = dict(res.counters)
        stage = "check"
        workloads.check(s, case_id)
        out["ok"] = True
    except Exception as e:   # noqa: BLE001 - listed in the table, the comparison goes on
        msg = " ".join(str(e).split())
        out["error"] = f"{stage}: {type(e).__name__}: {msg[:300]}"
    return out


def _dims(d) -> tuple:
    d = (d,) if isinstance(d, int) else tuple(d)
    return d + (1,) * (3 - len(d))


def _pair(a, b) -> str:
    return f"{_fmt(a)} / {_fmt(b)}"


def _fmt(v) -> str:
    return "-" if v is None else f"{v:,}" if isinstance(v, int) else str(v)


def compare(data: dict, only=None) -> list:
    rows = []
    for cid, rec in data["cases"].items():
        if only and cid not in only:
            continue
        sm = run_smsim(cid, rec)
        hw_counts = {k: rec.get(m) for k, m in HW.items()}
        have_hw = all(v is not None for v in hw_counts.values())
        have_sm = sm["error"] is None or sm["error"].startswith("check")
        if have_hw and have_sm and sm["counters"]:
            match = "yes" if all(sm["counters"].get(k) == hw_counts[k] for k in HW) else "no"
        else:
            match = "n/a"
        hw_inst = rec.get(HW_INST)
        est = sm["issued"] or sm["instructions"]
        ratio = f"{est / hw_inst:.2f}" if est and isinstance(hw_inst, (int, float)) and hw_inst else "-"
        rows.append({"case": cid, "smsim_inst": sm["instructions"], "smsim_issued": sm["issued"],
                     "hw_inst": hw_inst, "ratio": ratio,
                     "smsim": sm["counters"], "hw": hw_counts, "match": match, "smsim_ok": sm["ok"],
                     "hw_ok": rec.get("ok"), "smsim_error": sm["error"], "hw_error": rec.get("error"),
                     "regs": rec.get("launch__registers_per_thread"), "kind": rec.get("kind"),
                     "note": sm.get("note")})
        print(f"{cid:40s} smsim={_fmt(sm['instructions']):>10s} hw={_fmt(hw_inst):>10s} match={match:3s} "
              f"{sm['error'] or ''}", flush=True)
    return rows


#: probable causes, from reading numba's PTX/SASS for a few of these kernels (not verified case by case)
OUTLIER_NOTES = {
    "microbench": "numba's LLVM unrolls runtime loops (the helper measuring these saw x4 in the SASS) and "
                  "folds a 32-bit index into one `IMAD.WIDE`; smsim's compiler unrolls only loops with constant "
                  "trip counts, so every iteration keeps its 64-bit counter, compare and branch",
    "softmax": "numba calls libdevice's accurate `expf` (about a dozen SASS instructions); smsim emits "
               "`ex2.approx` and a multiply",
    "histogram": "runtime-loop unrolling, as for microbench; the shared-atomic path was not examined",
    "stencil": "LLVM hoists loop-invariant addresses out of the loops and proves some indices non-negative "
               "(no wraparound code); smsim recomputes them",
    "reduction": "runtime-loop unrolling and loop-invariant code motion in numba's LLVM",
}


def _ratio_summary(rows) -> list:
    """How many cases' instruction counts are within 1.5x of the hardware's, and which are not (and why)."""
    out, bad = [], {}
    inside = 0
    for r in rows:
        try:
            q = float(r["ratio"])
        except (TypeError, ValueError):
            continue
        if 1 / 1.5 <= q <= 1.5:
            inside += 1
        else:
            bad.setdefault(r["case"].split(".")[0], []).append(f"{r['case']} ({q:.2f})")
    total = inside + sum(len(v) for v in bad.values())
    out.append(f"Instruction counts (smsim issue slots / hardware) within 1.5x: {inside} of {total} cases.")
    if bad:
        out += ["", "Outside 1.5x, by family:", ""]
        for fam, cases in bad.items():
            note = OUTLIER_NOTES.get(fam, "")
            out.append(f"- **{fam}**: {', '.join(cases)}" + (f". Probable cause: {note}." if note else ""))
    return out + [""]


def _cupy_version(data: dict) -> str:
    found = [data[k] for k in ("cupy-cuda13x", "cupy-cuda12x") if data.get(k, "not installed") != "not installed"]
    return found[0] if found else "?"


def markdown(data: dict, rows: list, json_path: str, command: str) -> str:
    ok = lambda b: "ok" if b else ("FAIL" if b is False else "-")   # noqa: E731
    lines = [
        "# smsim against the hardware: instructions and global-memory requests/sectors per case",
        "",
        "Generated by `benchmarks/compare_hw.py` from the Nsight Compute measurements in "
        f"`{json_path}` (`benchmarks/ncu_workloads.py`). Each case ran once at its test size, seed "
        f"{data.get('seed', 0)}, on the hardware and in smsim (functional interpreter).",
        "",
        f"Hardware: {data.get('gpu', '?')} (compute capability {data.get('compute_capability', '?')}), driver "
        f"{data.get('driver', '?')}, Nsight Compute {data.get('ncu', '?')}, numba-cuda {data.get('numba-cuda', '?')}, "
        f"CuPy {_cupy_version(data)}, numpy {data.get('numpy', '?')}.",
        "",
        "Columns: warp-instructions executed (smsim inst: PTX instructions, summed over warps; smsim issued: "
        "smsim's SASS-equivalent issue slots, `issued_instructions`; hw inst: `smsp__inst_executed.sum`, SASS), "
        "ratio = smsim issued (or inst where no issue count) / hw inst, and the global load/store requests and "
        "32-byte sectors "
        "as smsim / hardware (`l1tex__t_{requests,sectors}_pipe_lsu_mem_global_op_{ld,st}.sum`). "
        "**match**: all four memory counts equal. **ok**: outputs equal the numpy reference (smsim / hardware). "
        "PTX cases run nvcc's PTX (cuda_c) or hand-written PTX; Python cases, smsim's compiler on one side and "
        "numba-cuda on the other, so instruction counts differ by compiler as well as by ISA.",
        "",
        "| case | kind | smsim inst | smsim issued | hw inst | ratio | ld requests | ld sectors | st requests | "
        "st sectors | match | ok | hw regs |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---|---:|",
    ]
    for r in rows:
        s, h = r["smsim"], r["hw"]
        lines.append(f"| {r['case']} | {r['kind'] or '-'} | {_fmt(r['smsim_inst'])} | {_fmt(r['smsim_issued'])} | "
                     f"{_fmt(r['hw_inst'])} | "
                     f"{r['ratio']} | {_pair(s.get('requests_ld'), h['requests_ld'])} | "
                     f"{_pair(s.get('sectors_ld'), h['sectors_ld'])} | "
                     f"{_pair(s.get('requests_st'), h['requests_st'])} | "
                     f"{_pair(s.get('sectors_st'), h['sectors_st'])} | {r['match']} | "
                     f"{ok(r['smsim_ok'])} / {ok(r['hw_ok'])} | {_fmt(r['regs'])} |")
    n = len(rows)
    n_match = sum(r["match"] == "yes" for r in rows)
    n_cmp = sum(r["match"] != "n/a" for r in rows)
    lines += ["", f"{n} cases; memory counts compared for {n_cmp}, equal for {n_match}.", ""]
    lines += _ratio_summary(rows)
    errs = [r for r in rows if r["smsim_error"] or r["hw_error"] or r["note"]]
    if errs:
        lines += ["## Errors and notes", ""]
        for r in errs:
            if r["smsim_error"]:
                lines.append(f"- `{r['case']}` smsim: {r['smsim_error']}")
            if r["hw_error"]:
                lines.append(f"- `{r['case']}` hardware: {' '.join(str(r['hw_error']).split())[:300]}")
            if r["note"]:
                lines.append(f"- `{r['case']}`: {r['note']}")
        lines.append("")
    missing = data.get("families_missing") or {}
    if missing:
        lines += ["Families not measured (absent when the hardware run was made): "
                  + ", ".join(f"{k} ({v})" for k, v in missing.items()) + ".", ""]
    lines += ["## Commands", "", "On the device machine (repository root):", "", "```",
              "PYTHONPATH=. " + _device_command(data.get("command", "?")), "```", "",
              "which ran, per family:", "", "```", *data.get("ncu_commands", []), "```", "",
              "Here:", "", "```", command, "```", ""]
    return "\n".join(lines)


def _device_command(cmd: str) -> str:
    """The recorded command with the device's interpreter path as ``python3`` (and its $OUT as ``$OUT``)."""
    parts = cmd.split(" ", 1)
    if parts[0].endswith(("python", "python3")):
        parts[0] = "python3"
    out = " ".join(parts)
    return out.replace("/root/out/", "$OUT/").replace("/root/out", "$OUT")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--json", default="docs/hardware/ncu_workloads.json")
    ap.add_argument("--out", default="docs/compiler_vs_hardware.md")
    ap.add_argument("--cases", help="comma-separated case ids (default: every case in the JSON)")
    args = ap.parse_args(argv)
    with open(args.json) as f:
        data = json.load(f)
    only = set(args.cases.split(",")) if args.cases else None
    rows = compare(data, only)
    command = shlex.join(["python", "benchmarks/compare_hw.py", *(argv if argv is not None else sys.argv[1:])])
    text = markdown(data, rows, args.json, command)
    if args.out:
        pathlib.Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        pathlib.Path(args.out).write_text(text)
        print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

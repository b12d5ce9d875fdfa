"""What each ``smsim`` command does, once :mod:`smsim.cli` has parsed its arguments.

Life of ``smsim run``: the target becomes cases (:func:`smsim.runner.resolve`), each case is launched timed
(a progress bar of blocks retired and cycles on a terminal), its outputs checked, and its report printed;
``--json``/``--csv``/``--plot``/``--trace`` write files. A Ctrl-C during a launch ends it early: the
report of what was simulated so far is printed, marked partial. ``smsim sweep`` runs every sweep point
in a pool of worker processes (a bar of points done), prints the table and writes the curve. The demo
(the cases in :data:`DEMO`), ``occupancy``, ``compare``, ``asm`` and ``list`` print tables or text;
``validate`` simulates the hardware validation data's cases (:mod:`smsim.validate`). Each
function returns the exit code. This module never imports :mod:`smsim.cli`.
"""
from __future__ import annotations

import argparse
import concurrent.futures as futures
import os
import sys
from typing import TYPE_CHECKING

from . import runner
from .export import metrics_rows, write_csv
from .report import _table

if TYPE_CHECKING:
    import isa


def _bar(total, quiet: bool, unit: str, desc: str = ""):
    from tqdm import tqdm
    return tqdm(total=total, unit=unit, desc=desc, disable=quiet, leave=False, file=sys.stderr,
                dynamic_ncols=True)


def _launch(case, args, **kw):
    """Launch one case for ``run``/the demo, with a progress bar of blocks retired on a terminal."""
    overrides = runner.parse_sets(getattr(args, "set", None))
    blocks = _blocks(getattr(args, "blocks", "share"))
    bar = _bar(None, args.quiet, "block", case.id)

    def progress(done: int, total: int, cycle: float) -> None:
        bar.total = total
        bar.n = done
        bar.set_postfix_str(f"{cycle:.0f} cycles", refresh=False)
        bar.refresh()
    try:
        return runner.launch_case(case, runner.size_of(str(getattr(args, "size", "test"))), args.config, overrides,
                                  blocks, seed=getattr(args, "seed", 0), progress=progress, **kw)
    finally:
        bar.close()


def _blocks(text: str):
    if text in ("share", "all"):
        return text
    try:
        n = int(text)
    except ValueError:
        n = 0
    if n < 1:
        raise runner.UsageError(f"--blocks {text!r}: use share, all or a positive number")
    return n


# --------------------------------------------------------------------------------------------- demo
#: the demo's cases: the three transposes, side by side
DEMO = ("transpose.naive", "transpose.tiled", "transpose.tiled_padded")


def demo(args: argparse.Namespace) -> int:
    print(f"smsim demo: three ways to transpose a {args.size} x {args.size} float matrix, timed on one SM of the "
          f"{args.config} config (the blocks one SM runs)\n")
    rows = [["kernel", "time us", "DRAM GB/s", "ld sect/req", "st sect/req", "bank confl.", "top stall"]]
    for cid in DEMO:
        case = runner.resolve(cid)[0]
        _, res = _launch(case, args)
        r, m = runner.row_of(cid, {}, res), res.metrics
        st_req = m["l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"]
        st = m["l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"] / st_req if st_req else 0.0
        rows.append([case.name, f"{r['time_us']:.1f}", f"{r['dram_gbps']:.0f}", f"{r['sectors_per_request_ld']:.1f}",
                     f"{st:.1f}", f"{r['bank_conflicts']:.0f}", r["top_stall"]])
    print("\n".join(_table(rows, {1, 2, 3, 4, 5})))
    print("\nnaive: each warp's stores touch 32 sectors (uncoalesced); tiled: coalesced through shared memory, but "
          "its\ncolumn reads hit one bank 32 times; padded: one extra column spreads them over all 32 banks.")
    print("\nNext: smsim run transpose.tiled --size 2048   (the full report: memory, stalls, hot lines)")
    print("      smsim sweep vector.vec_add --size full --vary warps_per_sm=8..64   (latency hiding)")
    print("      smsim list   (every workload and config)")
    return 0


# --------------------------------------------------------------------------------------------- run
def run(args: argparse.Namespace) -> int:
    found = runner.resolve(args.target, args.case, args.kernel, ptx={"grid": args.grid, "block": args.block})
    many = len(found) > 1
    for i, case in enumerate(found):
        _, res = _launch(case, args, timeline=bool(args.trace or args.plot))
        if many:
            print(f"{'=' * 20} {case.id} ({i + 1} of {len(found)}) {'=' * 20}")
        print(res.report())
        _write_outputs(args, res, case, many)
        if getattr(res, "partial", False):
            print("smsim: interrupted: the report above is partial", file=sys.stderr)
            return 130
    return 0


def _path(path: str, case, many: bool) -> str:
    if not many:
        return path
    root, ext = os.path.splitext(path)
    return f"{root}.{case.name}{ext}"


def _write_outputs(args, res, case, many: bool) -> None:
    if args.json:
        res.to_json(_path(args.json, case, many))
    if args.csv:
        write_csv(metrics_rows(res.metrics), _path(args.csv, case, many), ["name", "value", "unit"])
    if args.trace:
        _write_trace(res, _path(args.trace, case, many))
    if args.plot:
        from . import plots
        directory = os.path.join(args.plot, case.name) if many else args.plot
        os.makedirs(directory, exist_ok=True)
        for p in plots.save_all(res, directory):
            print(f"wrote {p}", file=sys.stderr)


def _write_trace(res, path: str) -> None:
    from .warp import REASONS
    tl = getattr(res, "timeline", None)
    if not tl:
        raise runner.UsageError("no timeline was recorded for this result")
    w = tl["warps"]
    rows = [{"block": int(b), "warp": int(k), "slot": int(s), "start": float(a), "end": float(e), "state": REASONS[st]}
            for b, k, s, a, e, st in zip(w["block"], w["warp"], w["slot"], w["start"], w["end"], w["state"])]
    write_csv(rows, path, ["block", "warp", "slot", "start", "end", "state"])


# --------------------------------------------------------------------------------------------- sweep
def sweep(args: argparse.Namespace) -> int:
    axes = runner.parse_vary(args.vary)
    ptx = {"grid": args.grid, "block": args.block} if args.target.endswith(".ptx") else None
    found = runner.resolve(args.target, args.case, args.kernel, ptx=ptx)
    sets, blocks, size = runner.parse_sets(args.set), _blocks(args.blocks), runner.size_of(str(args.size))
    tasks = [(args.target, c.name, size, args.config, sets, blocks, p, ptx) for c in found for p in runner.points(axes)]
    rows = _run_tasks(tasks, max(1, args.jobs), args.quiet)
    if args.y not in rows[0]:
        raise runner.UsageError(f"--y {args.y!r}: choose one of {', '.join(rows[0])}")
    cols = ["warps_per_sm_theoretical", "limiter", "time_us", "dram_gbps", "sectors_per_request_ld", "top_stall"]
    if args.y not in cols and args.y not in axes:
        cols.insert(-1, args.y)
    head = ["case", *axes, *[_HEADS.get(c, c) for c in cols]]
    table = [head] + [[r["case"].split(".", 1)[-1], *[_cell(r[a]) for a in axes], *[_cell(r[c]) for c in cols]]
                      for r in rows]
    print("\n".join(_table(table, set(range(1, len(head) - 1)) - {len(axes) + 2})))
    print(f"\n(warps/SM: resident warps the occupancy allows; DRAM GB/s: the device's, {len(rows)} launches; "
          f"--csv has every column)")
    if args.csv:
        write_csv(rows, args.csv)
    if args.plot:
        _sweep_plot(rows, axes, args)
    return 0


_HEADS = {"warps_per_sm_theoretical": "warps/SM", "time_us": "time us", "dram_gbps": "DRAM GB/s",
          "sectors_per_request_ld": "ld sect/req", "top_stall": "top stall", "l2_gbps": "L2 GB/s",
          "achieved_occupancy_pct": "achieved %", "bank_conflicts": "bank confl."}


def _run_tasks(tasks: list, jobs: int, quiet: bool) -> list:
    rows: list = [None] * len(tasks)
    bar = _bar(len(tasks), quiet, "launch", "sweep")
    try:
        if jobs == 1 or len(tasks) == 1:
            for i, t in enumerate(tasks):
                rows[i] = runner.sweep_row(t)
                bar.update()
        else:
            with futures.ProcessPoolExecutor(min(jobs, len(tasks))) as pool:
                todo = {pool.submit(runner.sweep_row, t): i for i, t in enumerate(tasks)}
                for f in futures.as_completed(todo):
                    rows[todo[f]] = f.result()
                    bar.update()
    finally:
        bar.close()
    return rows


def _cell(v) -> str:
    if isinstance(v, float):
        return f"{v:.1f}" if abs(v) < 1e5 else f"{v:.3g}"
    return str(v)


def _sweep_plot(rows: list, axes: dict, args) -> None:
    from . import plots
    x = next((k for k in axes if all(isinstance(r[k], (int, float)) for r in rows)), None)
    if x is None:
        raise runner.UsageError("--plot needs a numeric --vary axis for x")
    os.makedirs(args.plot, exist_ok=True)
    groups: dict = {}
    for r in rows:
        label = " ".join([r["case"]] + [f"{k}={r[k]}" for k in axes if k != x])
        groups.setdefault(label, []).append(r)
    (label, rs), *others = groups.items()    # one curve per case and other axes' values, on one plot
    fig = plots.sweep(rs, x, args.y, label=label, limiter_key="limiter")
    for label, rs in others:
        plots.sweep(rs, x, args.y, label=label, limiter_key="limiter", ax=fig.axes[0])
    for ext in ("png", "svg"):
        path = os.path.join(args.plot, f"sweep_{args.y}_vs_{x}.{ext}")
        fig.savefig(path)
        print(f"wrote {path}", file=sys.stderr)


# --------------------------------------------------------------------------------------------- occupancy
def _bytes(text: str) -> int:
    t = text.strip().upper()
    scale = 1024 if t.endswith("K") else 1024 * 1024 if t.endswith("M") else 1
    try:
        return int(float(t.rstrip("KMB") or 0) * scale)
    except ValueError:
        raise runner.UsageError(f"--smem {text!r}: bytes, e.g. 49152, 48K or 0") from None


def occupancy_cmd(args: argparse.Namespace) -> int:
    from . import config as config_mod
    from .occupancy import occupancy
    cfg = config_mod.load(args.config)
    smem = _bytes(args.smem)
    try:
        occ = occupancy(cfg.sm, args.threads, args.regs, smem)
    except ValueError as e:
        raise runner.UsageError(str(e)) from None
    print(f"{cfg.gpu.name}: {args.threads} threads/block, {args.regs} registers/thread, {smem} B shared/block")
    print(f"  {occ.describe()}")
    print("  limits (blocks/SM): " + ", ".join(f"{k} {v}" for k, v in occ.limits.items()))
    print(f"  L1 left by the carveout: {cfg.sm.unified_l1_shared_bytes - occ.carveout_bytes} B")
    regs = [r for r in (16, 24, 32, 40, 48, 64, 80, 96, 128, 168, 255) if r <= cfg.sm.max_registers_per_thread]
    sizes = [t for t in (32, 64, 128, 256, 384, 512, 768, 1024) if t <= min(1024, cfg.sm.max_threads)]
    by_regs = [(r, occupancy(cfg.sm, args.threads, r, smem)) for r in regs]
    by_size = [(t, occupancy(cfg.sm, t, args.regs, smem)) for t in sizes]
    for title, name, series in (("vs registers/thread", "regs", by_regs), ("vs threads/block", "threads", by_size)):
        print(f"\noccupancy {title}:")
        rows: list[list] = [[name, "blocks/SM", "warps/SM", "occupancy", "limiter"]]
        rows += [[v, o.blocks_per_sm, o.warps_per_sm, f"{100 * o.occupancy:.1f}%", o.limiter] for v, o in series]
        print("\n".join(_table(rows, {0, 1, 2, 3})))
    if args.plot:
        from . import plots
        os.makedirs(args.plot, exist_ok=True)
        for name, series in (("registers", by_regs), ("threads", by_size)):
            points = [{name: v, "occupancy_pct": 100 * o.occupancy, "limiter": o.limiter} for v, o in series]
            fig = plots.sweep(points, name, "occupancy_pct", label=cfg.gpu.name, limiter_key="limiter")
            for ext in ("png", "svg"):
                path = os.path.join(args.plot, f"occupancy_vs_{name}.{ext}")
                fig.savefig(path)
                print(f"wrote {path}", file=sys.stderr)
    return 0


# --------------------------------------------------------------------------------------------- compare
def compare_cmd(args: argparse.Namespace) -> int:
    import json

    from .compare import compare, pick_kernel, read_ncu_csv, render, scope_note
    try:
        with open(args.result) as f:
            result = json.load(f)
    except json.JSONDecodeError as e:
        raise runner.UsageError(f"{args.result}: not JSON (line {e.lineno}): write it with smsim run --json") from None
    if "metrics" not in result:
        raise runner.UsageError(f"{args.result}: no 'metrics' in it: write it with smsim run --json")
    try:
        row = pick_kernel(read_ncu_csv(args.ncu), name=args.kernel, index=args.id)
    except ValueError as e:
        raise runner.UsageError(str(e)) from None
    note = scope_note(result)
    print(render(compare(result, row), f"{result.get('kernel', 'smsim')} vs {row['kernel']} ({args.ncu})",
                 [note] if note else []))
    return 0


# --------------------------------------------------------------------------------------------- asm, list
def asm(args: argparse.Namespace) -> int:
    import isa
    show = _with_sass if getattr(args, "sass", False) else _annotated
    if args.file.endswith(".ptx"):
        with open(args.file) as f:
            module = isa.parse(f.read())
        kernels = [k for k in module if args.kernel is None or args.kernel in k.name]
        if not kernels:
            raise runner.UsageError(f"{args.file}: no kernel matching {args.kernel!r}")
        print("\n".join(show(k) for k in kernels))
        return 0
    import smsim
    for case in runner.resolve(args.file, args.case, args.kernel):
        if hasattr(case.kernel, "load"):
            k = case.kernel.load()
        elif isinstance(case.kernel, isa.Kernel):
            k = case.kernel
        else:
            k = smsim.compile(case.kernel, case.setup("test", 0).args, compiler=getattr(args, "compiler", "auto"))
        print(f"// {case.id}\n{show(k)}")
    return 0


def _with_sass(kernel: isa.Kernel) -> str:
    """The annotated ISA with, under each instruction, the SASS ptxas made of it (``smsim asm --sass``): what
    the SASS stream issues when the instruction's block runs (a SASS instruction that ptxas hoisted or
    unrolled appears under the instruction of the block it runs for; ``xk``: a loop unrolled k times)."""
    from isa import sass
    try:
        mapping = sass.of(kernel)
    except sass.SassUnavailable as e:
        raise runner.UsageError(str(e)) from None
    unrolled = {id(mapping.listing[i]): k for blocks in mapping.at_start.values() for blk, k in blocks
                for i in blk}
    lines = _annotated(kernel).splitlines()
    body = iter(range(len(kernel.body)))
    out = []
    for line in lines:
        out.append(line)
        text = line.strip()
        if not text.endswith(";") and ";\t//" not in line:
            continue
        if text.startswith((".reg", ".shared", ".local", ".param", ".loc", "//")) or text.endswith("{"):
            continue
        i = next(body, None)
        if i is None:
            continue
        for s in mapping.sass[i]:
            k = unrolled.get(id(s), 1)
            tag = (f" (x{k})" if k > 1 else " (once per loop)" if k == 0 else
                   f" (remainder of {-k} unrolled)" if k < 0 else "")
            out.append(f"\t//   {s.addr:05x}  {s.text}{tag}")
    return "\n".join(out)


def _annotated(kernel: isa.Kernel) -> str:
    """The kernel's text with each source line, where the instructions from it begin, as a comment."""
    import linecache
    import re
    files: dict[str, str] = {os.path.basename(i.loc.file): i.loc.file for i in kernel.body
                             if i.loc is not None and i.loc.file}
    out, last = [], None
    for line in kernel.to_text().splitlines():
        m = re.search(r"//\s*(\S+):(\d+)\s*$", line)
        if m and (m.group(1), m.group(2)) != last:
            last = (m.group(1), m.group(2))
            src = linecache.getline(files.get(m.group(1), m.group(1)), int(m.group(2))).strip()
            if src:
                out.append(f"\t// {m.group(1)}:{m.group(2)}: {src}")
        out.append(line)
    return "\n".join(out)


def validate_cmd(args: argparse.Namespace) -> int:
    """``smsim validate``: every measured case simulated, the table and the error summary."""
    from . import validate
    data = validate.load(args.data or validate.DATA)
    sizes = [s.strip() for s in args.sizes.split(",") if s.strip()]
    unknown = [s for s in sizes if s not in data["runs"]]
    if unknown:
        raise runner.UsageError(f"no measurements at size {unknown[0]!r}; the data has {', '.join(data['runs'])}")
    families = set(args.family.split(",")) if args.family else None
    cases = set(args.case.split(",")) if args.case else None

    def only(case_id: str) -> bool:
        return ((families is None or case_id.partition(".")[0] in families)
                and (cases is None or case_id in cases))
    total = sum(1 for s in sizes for c in data["runs"][s] if only(c))
    if not total:
        raise runner.UsageError("no measured case matches --family/--case")
    streams = ("sass", "ptx") if args.stream == "both" else (args.stream,)
    bar = _bar(total * len(streams), args.quiet, "case", "validate")
    uncompiled: list = []
    runs = [validate.rows(data, sizes, only, args.config, progress=lambda _label: bar.update(1),
                          compiler=args.compiler, stream=stream, uncompiled=uncompiled) for stream in streams]
    bar.close()
    rows = runs[0]
    summary = validate.summary(rows)
    print(validate.render(rows, summary))
    for case_id, size, message in dict.fromkeys(uncompiled):
        print(f"left out, {case_id}@{size}: {message}")
    if len(runs) == 2:
        print("\n" + validate.render_streams(*runs))
    if args.json:
        with open(args.json, "w") as f:
            f.write(validate.to_json(rows, summary))
    return 0


def list_all(args: argparse.Namespace) -> int:
    from workloads import case as cases

    from . import config as config_mod
    print("workloads (smsim run FAMILY or FAMILY.CASE):")
    for fam in cases.FAMILIES:
        names = [c.name for c in cases.family(fam)]
        print(f"  {fam:11s} " + _wrap(", ".join(names), 13))
    print("\nconfigs (--config NAME, or a TOML path):")
    for name in config_mod.presets():
        c = config_mod.load(name)
        print(f"  {name:6s} {c.gpu.name}: {c.gpu.num_sms} SMs at {c.gpu.clock_mhz:.0f} MHz, L1+shared "
              f"{c.sm.unified_l1_shared_bytes // 1024} KB, L2 {c.l2.size_bytes // 2 ** 20} MB, "
              f"DRAM {c.dram.bandwidth_gbps:.0f} GB/s")
    return 0


def _wrap(text: str, indent: int, width: int = 100) -> str:
    import textwrap
    return ("\n" + " " * indent).join(textwrap.wrap(text, width - indent)) or "-"


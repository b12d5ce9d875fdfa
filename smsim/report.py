"""A launch result for a person (:func:`render`) and for a program (:func:`to_dict`).

Life of a result through this module: :func:`smsim.launch` returns a :class:`smsim.launch.LaunchResult`;
``res.report()`` calls :func:`render`, which reads only what the result already holds (the flat metrics
dict under Nsight Compute's names, the stall totals, the occupancy and the per-instruction rows) and lays
it out as plain text, at most :data:`WIDTH` columns, no colour codes, so it reads the same in a terminal,
a notebook and a log. A timed result gets up to six sections: summary, memory (global accesses, then L1,
L2 and DRAM traffic), shared memory (wavefronts and n-way bank conflicts), stalls (every reason with a
``#`` bar), the hottest source lines and, when the counts show any, a few findings; a functional result
(``timing=False``) gets a short summary of its counts. ``res.to_dict()`` calls :func:`to_dict`, which
gives the same facts as plain Python values (no numpy types), keys in a fixed order, ready for
``json.dumps``. Nothing here computes a new count: every figure printed is a metric, a stall total or a
row sum, or a ratio of them.
"""
from __future__ import annotations

import dataclasses
import linecache
import os
import textwrap
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from isa import ptxtypes
from isa.ops.memory import space_of, vector_width

if TYPE_CHECKING:
    from .config import Config
    from .launch import LaunchResult
    from .occupancy import Occupancy

WIDTH = 100          # columns at most
BAR = 32             # '#' characters of the largest stall reason
HOT_LINES = 3        # source lines shown
TOP_STALLS = 3       # stall reasons shown per hot line

#: what each stall reason means, in a few words (Nsight Compute's warp states)
MEANING = {
    "selected": "issuing an instruction",
    "not_selected": "ready, but the scheduler picked another warp",
    "long_scoreboard": "waiting for a global/local memory result",
    "short_scoreboard": "waiting for a shared-memory, SFU or shuffle result",
    "wait": "waiting for a fixed-latency result",
    "barrier": "waiting at a block barrier (syncthreads)",
    "mio_throttle": "shared-memory (MIO) queue full",
    "lg_throttle": "global/local memory (LSU) queue full",
    "math_pipe_throttle": "math pipe busy",
    "branch_resolving": "waiting for a branch to resolve",
    "no_instruction": "waiting for an instruction fetch",
    "drain": "exited, waiting for its stores to drain",
    "membar": "waiting at a memory fence",
    "dispatch_stall": "dispatch stall",
    "imc_miss": "waiting for a kernel parameter or constant (constant cache miss)",
}

M_REQ = "l1tex__t_requests_pipe_lsu_mem_global_op_{}.sum"
M_SEC = "l1tex__t_sectors_pipe_lsu_mem_global_op_{}.sum"


# ---------------------------------------------------------------------------------------------- render
def render(res: LaunchResult) -> str:
    """The report of ``res`` as plain text (see the module docstring)."""
    if not res.timed:
        return _functional(res)
    parts = [_summary(res), _memory(res), _shared(res), _stalls(res), _hot_lines(res), _findings(res)]
    return "\n\n".join(p for p in parts if p) + "\n"


def _heading(title: str) -> str:
    return f"{title}\n{'-' * len(title)}"


def _num(x) -> str:
    """An exact figure: integers as integers, other values with up to 3 decimals."""
    x = float(x)
    if x.is_integer():
        return str(int(x))
    return f"{x:.3f}".rstrip("0")


def _dims(d) -> str:
    return "x".join(str(int(v)) for v in d)


def _ratio(a, b, fmt: str = ".1f") -> str:
    return format(a / b, fmt) if b else "-"


def _config_name(cfg) -> str:
    return f"{cfg.gpu.name} ({cfg.source})" if cfg.source and cfg.source != cfg.gpu.name else cfg.gpu.name


def _table(rows: list, right: set) -> list:
    """Rows of cells as aligned lines (columns in ``right`` right-aligned), indented two spaces."""
    widths = [max(len(str(r[i])) for r in rows) for i in range(len(rows[0]))]
    out = []
    for r in rows:
        cells = [str(c).rjust(w) if i in right else str(c).ljust(w) for i, (c, w) in enumerate(zip(r, widths))]
        out.append(("  " + "   ".join(cells)).rstrip()[:WIDTH])
    return out


def _summary(res) -> str:
    m, occ = res.metrics, res.occupancy
    cycles = res.cycles
    issued = m["smsp__inst_executed.sum"]
    rows = [
        ("kernel", res.kernel.name),
        ("config", _config_name(res.config)),
        ("timed", f"{'SASS' if m.get('smsim.stream_sass') else 'PTX'}"
                  + (f" of {res.kernel.origin}" if res.kernel.origin else " stream")),
        ("grid x block", f"{_dims(res.grid)} x {_dims(res.block)} threads"),
        ("blocks timed", f"{res.blocks_timed} of {res.blocks}"),
        *([("PARTIAL", "stopped by Ctrl-C: the figures cover the cycles simulated until then")]
          if getattr(res, "partial", False) else []),
        ("cycles", _num(cycles)),
        ("duration", f"{m['gpu__time_duration.sum'] / 1e3:.3f} us (gpu__time_duration)"),
        ("IPC", f"{_ratio(issued, cycles, '.3f')} ({_num(issued)} issue slots / {_num(cycles)} cycles)"),
        ("occupancy", f"theoretical {100 * occ.occupancy:.1f}%, achieved "
                      f"{m['sm__warps_active.avg.pct_of_peak_sustained_active']:.1f}%"),
        ("resident", occ.describe()),
        ("per block", f"{res.registers_per_thread} registers/thread, {occ.shared_per_block_bytes} B shared "
                      f"(as allocated)"),
    ]
    return _heading(f"Summary: {res.kernel.name}") + "\n" + "\n".join(_table([list(r) for r in rows], set()))


# ---------------------------------------------------------------------------------------------- memory
def _memory(res) -> str:
    m = res.metrics
    rows = [["global access", "requests", "sectors", "sectors/request"]]
    for op, name in (("ld", "load"), ("st", "store")):
        req, sec = m[M_REQ.format(op)], m[M_SEC.format(op)]
        rows.append([name, _num(req), _num(sec), _ratio(sec, req)])
    req, sec = m["l1tex__t_requests_pipe_lsu_mem_local.sum"], m["l1tex__t_sectors_pipe_lsu_mem_local.sum"]
    if req:
        rows.append(["local", _num(req), _num(sec), _ratio(sec, req)])
    for op, name in (("atom", "atomic"), ("red", "reduction")):
        if m.get(f"l1tex__t_requests_pipe_lsu_mem_global_op_{op}.sum"):
            rows.append([name, _num(m[f"l1tex__t_requests_pipe_lsu_mem_global_op_{op}.sum"]), "-", "-"])
    return "\n".join([_heading("Memory"), *_table(rows, {1, 2, 3}), "", *_table(_levels(m), {3, 4, 5, 6, 7}),
                      "  (% of peak: of this SM's share of each level's bandwidth)"])


def _levels(m: dict) -> list:
    """L1, L2 and DRAM: what was read and written, the hit rate and the bytes moved per level."""
    l1_lookups = (m["l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum"]
                  + m["l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_miss.sum"])
    l1_hit = m["l1tex__t_sector_pipe_lsu_mem_global_op_ld_hit_rate.pct"]
    l2_hit = m["lts__t_sector_op_read_hit_rate.pct"]
    cells = {
        "L1": (f"{_num(m[M_SEC.format('ld')])} sectors", f"{_num(m[M_SEC.format('st')])} sectors",
               f"{l1_hit:.1f}%" if l1_lookups else "-"),
        "L2": (f"{_num(m['lts__t_sectors_srcunit_tex_op_read.sum'])} sectors",
               f"{_num(m['lts__t_sectors_srcunit_tex_op_write.sum'])} sectors",
               f"{l2_hit:.1f}%" if m["lts__t_sectors_srcunit_tex_op_read.sum"] else "-"),
        "DRAM": (f"{_num(m['dram__bytes_read.sum'])} B", f"{_num(m['dram__bytes_write.sum'])} B", "-"),
    }
    rows = [["level", "read", "write", "hit rate", "bytes", "bytes/cycle", "GB/s", "% of peak"]]
    for level, (read, write, hit) in cells.items():
        key = f"smsim.{level.lower()}"
        rows.append([level, read, write, hit, _num(m[f"{key}.bytes"]), f"{m[f'{key}.bytes_per_cycle']:.2f}",
                     f"{m[f'{key}.gbps']:.1f}", f"{m[f'{key}.pct_of_peak']:.1f}%"])
    return rows


def _shared(res) -> str:
    m = res.metrics
    rows = [["shared op", "instructions", "wavefronts", "bank conflicts", "n-way"]]
    for op, name in (("ld", "load"), ("st", "store")):
        inst = m[f"smsp__sass_inst_executed_op_shared_{op}.sum"]
        wf = m[f"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{op}.sum"]
        conflicts = m[f"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_{op}.sum"]
        rows.append([name, _num(inst), _num(wf), _num(conflicts), _ratio(wf, inst, ".2f")])
    atom = m["smsp__sass_inst_executed_op_shared_atom.sum"]
    if atom:
        rows.append(["atomic", _num(atom), "-", "-", "-"])
    if not any(m[f"smsp__sass_inst_executed_op_shared_{op}.sum"] for op in ("ld", "st", "atom")):
        return _heading("Shared memory") + "\n  no shared-memory instructions"
    traffic = (f"  {_num(m['smsim.shared.bytes'])} bytes, {m['smsim.shared.bytes_per_cycle']:.2f} bytes/cycle "
               f"(n-way: wavefronts per instruction)")
    return "\n".join([_heading("Shared memory"), *_table(rows, {1, 2, 3, 4}), traffic])


# ---------------------------------------------------------------------------------------------- stalls
def stall_rows(res: LaunchResult) -> list:
    """``(reason, warp-cycles, per issued instruction)`` of every reason with cycles, largest first (ties in
    :data:`smsim.warp.REASONS` order)."""
    per = res.stalls_per_instruction()
    order = {r: i for i, r in enumerate(res.stalls)}
    rows = [(r, v, per[r]) for r, v in res.stalls.items() if v]
    return sorted(rows, key=lambda row: (-row[1], order[row[0]]))


def _stalls(res) -> str:
    rows = stall_rows(res)
    total = sum(v for _, v, _ in rows)
    head = _heading(f"Stalls (warp-cycles by reason, {_num(total)} in all)")
    if not rows:
        return head + "\n  no warp-cycles recorded"
    top = rows[0][1]
    table = [["reason", "warp-cycles", "%", "per instruction", ""]]
    for reason, v, per in rows:
        table.append([reason, _num(v), f"{100 * v / total:.1f}%", f"{per:.2f}", "#" * max(1, round(BAR * v / top))])
    return "\n".join([head, *_table(table, {1, 2, 3})])


# ------------------------------------------------------------------------------------------- hot lines
def line_score(acc: dict) -> float:
    """Warp-cycles spent at a source line: its stall cycles (``selected`` aside) plus its issue slots."""
    return sum(v for r, v in acc["stalls"].items() if r != "selected") + acc["issued"]


def hot_lines(res: LaunchResult, n: int = HOT_LINES) -> list:
    """The ``n`` source lines with the highest :func:`line_score`: ``[(line, acc), ...]``, hottest first."""
    lines = res.lines
    ranked = sorted(lines.items(), key=lambda kv: (-line_score(kv[1]), kv[0] is None, kv[0] or 0))
    return [(line, acc) for line, acc in ranked[:n] if line_score(acc) > 0]


def _source_text(res, line) -> str:
    """``file.py: the source line`` of ``line``, or ``(no line)``."""
    if line is None:
        return "(no line)"
    files = {ins.loc.file for ins in res.kernel.body if ins.loc and ins.loc.line == line}
    if len(files) != 1:
        return f"line {line}"
    path = files.pop()
    return f"line {line}  {os.path.basename(path)}: {linecache.getline(path, line).strip()}"


def _hot_lines(res) -> str:
    hot = hot_lines(res)
    total = sum(line_score(acc) for acc in res.lines.values())
    out = [_heading("Hottest source lines (stall cycles + issue slots)")]
    for rank, (line, acc) in enumerate(hot, 1):
        score = line_score(acc)
        out.append(f"  #{rank} {_source_text(res, line)}"[:WIDTH])
        out.append(_wrap(f"{_num(score)} warp-cycles ({100 * score / total:.1f}%), {_num(acc['issued'])} issue "
                         f"slots, {_num(acc['sectors'])} sectors, {_num(acc['wavefronts'])} wavefronts, "
                         f"{_num(acc['bank_conflicts'])} bank conflicts", "     ", "       "))
        stalls = sorted(((v, r) for r, v in acc["stalls"].items() if r != "selected" and v), key=lambda t: -t[0])
        top = ", ".join(f"{r} {_num(v)}" for v, r in stalls[:TOP_STALLS]) or "none"
        out.append(_wrap(f"top stalls: {top}", "     ", "       "))
    if not hot:
        out.append("  no source lines with warp-cycles")
    return "\n".join(out)


# -------------------------------------------------------------------------------------------- findings
def findings(res: LaunchResult) -> list:
    """A few plain statements that follow directly from the counts (one string each), with what to try."""
    out = _coalescing(res)
    m = res.metrics
    for op, name in (("ld", "loads"), ("st", "stores")):
        conflicts = m[f"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_{op}.sum"]
        if conflicts > 0:
            inst = m[f"smsp__sass_inst_executed_op_shared_{op}.sum"]
            wf = m[f"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{op}.sum"]
            out.append(f"{wf / inst:.1f}-way bank conflicts on shared {name}{_worst_conflict_line(res, op)} "
                       f"({_num(conflicts)} extra wavefronts): pad the shared array (one extra column) or change "
                       f"the index so a warp's lanes fall in different banks")
    occ = cast("Occupancy", res.occupancy)         # timed results have one
    if occ.occupancy < 1:
        out.append(f"occupancy limited by {_LIMITER.get(occ.limiter, occ.limiter)}: {occ.blocks_per_sm} "
                   f"block{'s' if occ.blocks_per_sm != 1 else ''}/SM, {occ.warps_per_sm} warps "
                   f"({100 * occ.occupancy:.1f}% theoretical)")
    rows = [row for row in stall_rows(res) if row[0] != "selected"]
    if rows:
        reason, _, per = rows[0]
        out.append(f"largest stall: {reason} ({MEANING.get(reason, reason)}), {per:.2f} warp-cycles per "
                   f"issued instruction")
    return out


_LIMITER = {"registers": "registers", "shared": "shared memory", "warps": "warps per SM",
            "blocks": "blocks per SM"}


def _worst_conflict_line(res, op: str) -> str:
    """``", most at line N"``: the source line whose shared ``op`` (ld/st) instructions conflict most."""
    per_line: dict = {}
    for row, ins in _rows_with_ins(res):
        if ins.opcode == op and row["bank_conflicts"]:
            per_line[row["line"]] = per_line.get(row["line"], 0) + row["bank_conflicts"]
    if not per_line:
        return ""
    line = max(per_line, key=lambda k: (per_line[k], -(k or 0)))
    return f" at {_where(res, line)}" if line is not None else ""


def _rows_with_ins(res):
    """``(row, PTX instruction)`` of each executed per-instruction row whose instruction the kernel holds (a
    SASS row: the PTX instruction it came from)."""
    body = res.kernel.body
    for row in res.instructions:
        ptx = row.get("ptx", row["pc"])
        if row["executed"] and ptx is not None and ptx < len(body):
            yield row, body[ptx]


def _where(res, line) -> str:
    """``transpose.py:14`` for a source line of the kernel (``line 14`` when its file is unknown)."""
    loc = next((i.loc for i in res.kernel.body if i.loc is not None and i.loc.line == line), None)
    name = getattr(loc, "file", None) if loc is not None else None
    return f"{os.path.basename(name)}:{line}" if name else f"line {line}"


def _coalescing(res) -> list:
    """Global loads/stores moving more sectors per request than a fully coalesced warp needs (one
    32-byte sector per 32 bytes of the warp's 32 accesses)."""
    per_site: dict = {}             # (kind, line or instruction, bytes) -> [sectors, executions]
    for row, ins in _rows_with_ins(res):
        if ins.opcode not in ("ld", "st") or space_of(ins) != "global":
            continue
        nbytes = ptxtypes.size(ins.type) * vector_width(ins)
        where = _where(res, row["line"]) if row["line"] is not None else ins.name
        acc = per_site.setdefault(("loads" if ins.opcode == "ld" else "stores", where, nbytes), [0, 0])
        acc[0] += row["sectors"]
        acc[1] += row["executed"]
    out = []
    for (kind, where, nbytes), (sectors, executed) in per_site.items():
        per = sectors / executed
        if per > nbytes:
            out.append(f"{kind} at {where} touch {per:.1f} sectors per request: uncoalesced (a warp's "
                       f"{nbytes}-byte accesses need {nbytes} sectors when consecutive lanes access consecutive "
                       f"addresses)")
    return out


def _findings(res) -> str:
    items = findings(res)
    if not items:
        return ""
    return "\n".join([_heading("Findings")] + [_wrap(f, "  - ") for f in items])


def _wrap(text: str, first: str, rest: str = "    ") -> str:
    return textwrap.fill(text, WIDTH, initial_indent=first, subsequent_indent=rest, break_on_hyphens=False)


def _functional(res) -> str:
    """The counts of a functional run (``timing=False``)."""
    lines = [_heading(f"Summary: {res.kernel.name} (functional run, timing=False: no cycles)"),
             f"  grid x block        {_dims(res.grid)} x {_dims(res.block)} threads, {res.blocks} blocks",
             f"  warp instructions   {_num(res.warp_instructions)}",
             f"  issue slots         {_num(res.issued_instructions)}"]
    c = res.counters
    for op, name in (("ld", "global loads "), ("st", "global stores")):
        if f"requests_{op}" in c:
            req, sec = c[f"requests_{op}"], c.get(f"sectors_{op}", 0)
            lines.append(f"  {name}       {_num(req)} requests, {_num(sec)} sectors "
                         f"({_ratio(sec, req)} sectors/request)")
    return "\n".join(lines) + "\n"


# ------------------------------------------------------------------------------------------------ dict
def to_dict(res: LaunchResult) -> dict:
    """``res`` as plain Python values (int, float, str, bool, None, list, dict with str keys), keys in a
    fixed order; functional results have ``config`` and ``occupancy`` None and empty timing fields."""
    cfg, occ = cast("Config | None", res.config), cast("Occupancy | None", res.occupancy)
    out = {
        "kernel": res.kernel.name,
        "timed": res.timed,
        "grid": list(res.grid),
        "block": list(res.block),
        "config": {"name": cfg.gpu.name, "source": cfg.source} if cfg is not None else None,
        "cycles": res.cycles,
        "blocks": res.blocks,
        "blocks_timed": res.blocks_timed,
        "warp_instructions": res.warp_instructions,
        "issued_instructions": res.issued_instructions,
        "counters": res.counters,
        "stalls": res.stalls,
        "stalls_per_instruction": res.stalls_per_instruction(),
        "metrics": res.metrics,
        "occupancy": dict(dataclasses.asdict(occ), describe=occ.describe()) if occ is not None else None,
        "lines": {str(k): v for k, v in res.lines.items()},
        "instructions": res.instructions,
    }
    return plain(out)


def plain(x: Any) -> Any:
    """``x`` with numpy scalars/arrays as Python numbers/lists, tuples as lists and dict keys as str."""
    if isinstance(x, dict):
        return {str(k): plain(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [plain(v) for v in x]
    if isinstance(x, np.ndarray):
        return plain(x.tolist())
    if isinstance(x, (bool, np.bool_)):
        return bool(x)
    if isinstance(x, (int, np.integer)):
        return int(x)
    if isinstance(x, (float, np.floating)):
        return float(x)
    return x


__all__ = ["MEANING", "findings", "hot_lines", "line_score", "plain", "render", "stall_rows", "to_dict"]

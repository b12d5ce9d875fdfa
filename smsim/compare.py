"""smsim's metrics next to Nsight Compute's: read an ``ncu --csv`` export and match metrics by name.

Life of a comparison (``smsim compare RESULT.json NCU.csv``): :func:`read_ncu_csv` reads the export,
dropping ncu's ``==PROF==``/``==WARNING==`` chatter, and finds its form from the header row. The wide
form (``ncu --csv --page raw``) has one column per metric, a row of units under the header and one row
per profiled kernel; the long form (``ncu --csv --metrics a,b`` or ``--page details``) has one row per
metric per kernel, keyed by ``ID``. Files that glue several exports together (a header row again) are
read section by section. Either way each kernel becomes one dict: its ``ID``, name, block and grid, and
``metrics`` ``{name: (value, unit)}``, numbers with their thousands separators removed; values that are
not numbers (``n/a``, names, empty cells) are left out. :func:`pick_kernel` chooses the kernel to
compare with (by part of its name, by ID, or the only one). :func:`compare` puts the result's metrics
(a ``res.to_dict()``; a functional result's global-memory counters and issue slots under Nsight's names)
beside the kernel's, after bringing Nsight's scaled units to smsim's (time in ns, bytes in bytes), one
row per metric name of either side. :func:`render` lays the rows found on both sides out as a plain-text
table of at most :data:`WIDTH` columns and counts the rest. :func:`scope_note` warns when smsim timed
only one SM's share of the grid, so its counts cover fewer blocks than Nsight's ``.sum``.
"""
from __future__ import annotations

import csv
import math
import os
import re
import textwrap
from typing import Iterable

WIDTH = 100                     # columns at most
PROF = re.compile(r"^\s*==[A-Z]+==")
#: columns of an export that describe the launch, not a metric
META = frozenset({"ID", "Process ID", "Process Name", "Host Name", "Kernel Name", "Context", "Stream",
                  "Block Size", "Grid Size", "Device", "CC", "Section Name", "Metric Name", "Metric Unit",
                  "Metric Value", "Rule Name", "Rule Type", "Rule Description", "Estimated Speedup Type",
                  "Estimated Speedup"})
#: Nsight's scaled units -> (smsim's unit, factor): time in ns, bytes in bytes (decimal prefixes, as ncu)
UNITS = {
    "nsecond": ("ns", 1.0), "ns": ("ns", 1.0), "usecond": ("ns", 1e3), "us": ("ns", 1e3),
    "msecond": ("ns", 1e6), "ms": ("ns", 1e6), "second": ("ns", 1e9),
    "byte": ("byte", 1.0), "Kbyte": ("byte", 1e3), "Mbyte": ("byte", 1e6), "Gbyte": ("byte", 1e9),
    "Tbyte": ("byte", 1e12), "Kibyte": ("byte", 1024.0), "Mibyte": ("byte", 1024.0 ** 2),
    "Gibyte": ("byte", 1024.0 ** 3),
}
#: a functional result's ``counters`` (whole grid) under Nsight's metric names
COUNTERS = {f"{kind}_{op}": f"l1tex__t_{kind}_pipe_lsu_mem_global_op_{op}.sum"
            for kind in ("requests", "sectors") for op in ("ld", "st")}


# ------------------------------------------------------------------------------------------------- read
def read_ncu_csv(text_or_path: str | os.PathLike[str]) -> list:
    """The kernels of an Nsight Compute CSV export (the text itself, or a path to it), in file order:
    ``[{"id", "kernel", "block", "grid", "metrics": {name: (value, unit)}}, ...]``. ValueError naming the
    file when it is neither form (see the module docstring)."""
    name, text = _source(text_or_path)
    lines = [ln for ln in text.lstrip("\ufeff").splitlines() if ln.strip() and not PROF.match(ln)]
    rows = list(csv.reader(lines))
    if not rows or not _is_header(rows[0]):
        raise ValueError(f"{name}: not an Nsight Compute CSV export: no header row with 'ID' and 'Kernel "
                         f"Name' columns (export with `ncu --csv --page raw` or `ncu --csv --metrics ...`)")
    kernels = []
    for header, body in _sections(rows, name):
        kernels += _long(header, body) if "Metric Name" in header else _wide(header, body)
    if not kernels:
        raise ValueError(f"{name}: an Nsight Compute CSV header but no kernel rows")
    return kernels


def _source(src) -> tuple:
    """``(name for messages, text)`` of a path, or of CSV text (a string that names no file and has a
    newline or a comma)."""
    if isinstance(src, str) and ("\n" in src or "," in src) and not os.path.isfile(src):
        return "<csv text>", src
    path = os.fspath(src)
    try:
        with open(path, encoding="utf-8") as f:
            return path, f.read()
    except UnicodeDecodeError:
        raise ValueError(f"{path}: not text (an .ncu-rep report? export it with `ncu --import {path} "
                         f"--csv --page raw`)") from None


def _is_header(row: list) -> bool:
    return "ID" in row and "Kernel Name" in row


def _sections(rows: list, name: str):
    """``(header, body rows)`` per glued export; a row whose length differs from its header's is an error."""
    start = 0
    for i in range(1, len(rows) + 1):
        if i == len(rows) or _is_header(rows[i]):
            header = rows[start]
            for j in range(start + 1, i):
                if len(rows[j]) != len(header):
                    raise ValueError(f"{name}: CSV row {j + 1} has {len(rows[j])} cells, its header "
                                     f"{len(header)}")
            yield header, rows[start + 1:i]
            start = i


def _kernel(cells: dict) -> dict:
    rid = cells.get("ID", "")
    return {"id": int(rid) if rid.isdigit() else rid, "kernel": cells.get("Kernel Name", ""),
            "block": _dims(cells.get("Block Size", "")), "grid": _dims(cells.get("Grid Size", "")),
            "metrics": {}}


def _wide(header: list, body: list) -> list:
    """``--page raw``: a units row (its ID cell empty), then one row per kernel."""
    has_units = bool(body) and body[0][header.index("ID")] == ""
    units, kernel_rows = (body[0], body[1:]) if has_units else ([""] * len(header), body)
    out = []
    for row in kernel_rows:
        cells = dict(zip(header, row))
        k = _kernel(cells)
        for col, unit, text in zip(header, units, row):
            value = _number(text)
            if col not in META and value is not None:
                k["metrics"][col] = (value, unit)
        out.append(k)
    return out


def _long(header: list, body: list) -> list:
    """``--metrics``/``--page details``: one row per metric per kernel, grouped by ``ID``."""
    kernels: dict = {}
    for row in body:
        cells = dict(zip(header, row))
        k = kernels.setdefault(cells.get("ID", ""), _kernel(cells))
        value = _number(cells.get("Metric Value", ""))
        metric = cells.get("Metric Name", "")
        if metric and value is not None:
            k["metrics"].setdefault(metric, (value, cells.get("Metric Unit", "")))
    return list(kernels.values())


def _number(text: str):
    """``"1,234.5"`` -> 1234.5; None for anything that is not a finite number."""
    try:
        x = float(text.replace(",", "").strip())
    except ValueError:
        return None
    return x if math.isfinite(x) else None


def _dims(text: str):
    """``"(256, 1, 1)"`` -> [256, 1, 1]; None when it is not that."""
    parts = text.strip().strip("()").split(",")
    return [int(p) for p in parts] if all(p.strip().isdigit() for p in parts) else None


def short_name(kernel: str) -> str:
    """A kernel name without its argument list or numba's mangled suffix:
    ``"workloads::copy_stride[abi:v1,...](Array<...>)"`` -> ``"workloads::copy_stride"``."""
    cut = min((i for i in (kernel.find("["), kernel.find("(")) if i > 0), default=len(kernel))
    return kernel[:cut]


# ------------------------------------------------------------------------------------------------- pick
def pick_kernel(rows: list, name: str | None = None, index: int | str | None = None) -> dict:
    """The kernel of ``rows`` (from :func:`read_ncu_csv`) whose name contains ``name`` and whose ID is
    ``index`` (either may be None); the only one when both are None. When several names contain ``name``
    and one is exactly ``name`` (without its arguments), that one. ValueError listing the kernels when
    none or several match."""
    found = [k for k in rows if (name is None or name in k["kernel"])
             and (index is None or str(k["id"]) == str(index))]
    if len(found) > 1 and name is not None:
        exact = [k for k in found if _is_named(k["kernel"], name)]
        found = exact if len(exact) == 1 else found
    if len(found) == 1:
        return found[0]
    asked = ", ".join(f"{k} {v!r}" for k, v in (("name", name), ("ID", index)) if v is not None)
    if not asked:
        why = f"the export has {len(rows)} kernels; pick one by name or ID"
    else:
        why = f"{len(found)} kernels match {asked}" if found else f"no kernel matches {asked}"
    raise ValueError(f"{why}:\n{listing(found or rows)}")


def _is_named(kernel: str, name: str) -> bool:
    short = short_name(kernel)
    return short == name or short.endswith("::" + name)


def listing(rows: list, most: int = 20) -> str:
    """One line per kernel (ID, short name, grid x block), at most ``most`` of them."""
    lines = [f"  ID {k['id']}: {short_name(k['kernel'])}  grid {_fmt_dims(k['grid'])} x block "
             f"{_fmt_dims(k['block'])}" for k in rows[:most]]
    if len(rows) > most:
        lines.append(f"  ... and {len(rows) - most} more")
    return "\n".join(lines)


def _fmt_dims(d) -> str:
    return "x".join(str(v) for v in d) if d else "?"


# ---------------------------------------------------------------------------------------------- compare
def compare(result: dict, kernel_row: dict) -> list:
    """One row per metric name of either side, sorted by name: ``{"metric", "smsim", "ncu", "unit",
    "ratio"}`` with Nsight's value in smsim's unit, ``ratio`` = smsim / ncu (None when ncu is 0 or a side
    lacks the metric; that side's value is None too). ``result`` is a ``res.to_dict()`` (or its JSON)."""
    sim = sim_metrics(result)
    hw = {name: to_base(*vu) for name, vu in kernel_row["metrics"].items()}
    rows = []
    for name in sorted(set(sim) | set(hw)):
        s = sim.get(name)
        n, unit = hw.get(name, (None, ""))
        ratio = s / n if s is not None and n else None
        rows.append({"metric": name, "smsim": s, "ncu": n, "unit": unit, "ratio": ratio})
    return rows


def sim_metrics(result: dict) -> dict:
    """The numeric metrics of a result dict; a functional result's ``counters`` and issue slots under
    Nsight's names (they count the whole grid) where the metrics lack them."""
    out = {k: float(v) for k, v in result.get("metrics", {}).items()
           if isinstance(v, (int, float)) and not isinstance(v, bool)}
    for key, metric in COUNTERS.items():
        if key in (result.get("counters") or {}):
            out.setdefault(metric, float(result["counters"][key]))
    if not result.get("timed") and result.get("issued_instructions"):
        out.setdefault("smsp__inst_executed.sum", float(result["issued_instructions"]))
    return out


def to_base(value: float, unit: str) -> tuple:
    """``(value, unit)`` with a scaled time or byte unit brought to ns or bytes (``"usecond"`` -> ns,
    ``"Kbyte/block"`` -> ``"byte/block"``); other units as they are."""
    num, slash, rest = unit.partition("/")
    base, factor = UNITS.get(num, (num, 1.0))
    return value * factor, base + slash + rest


def scope_note(result: dict) -> str | None:
    """A warning when smsim timed fewer blocks than the grid has (one SM's share): its counts then cover
    those blocks only, Nsight's ``.sum`` counts the whole grid. None otherwise."""
    blocks, timed = result.get("blocks") or 0, result.get("blocks_timed") or 0
    if not result.get("timed") or timed >= blocks:
        return None
    return (f"note: smsim timed {timed} of {blocks} blocks (one SM's share); its counts cover those "
            f"blocks, Nsight's .sum the whole grid (time all blocks to compare counts)")


# ----------------------------------------------------------------------------------------------- render
def render(rows: list, title: str, notes: Iterable[str | None] = ()) -> str:
    """The rows found on both sides as an aligned plain-text table (metric, smsim, ncu, unit, ratio), at
    most :data:`WIDTH` columns, then a line counting them and the metrics only one side has, then
    ``notes`` (lines, e.g. :func:`scope_note`'s)."""
    both = [r for r in rows if r["smsim"] is not None and r["ncu"] is not None]
    only_sim = sum(r["ncu"] is None for r in rows)
    only_ncu = sum(r["smsim"] is None for r in rows)
    cells = [["metric", "smsim", "ncu", "unit", "smsim/ncu"]]
    cells += [[r["metric"], fmt(r["smsim"]), fmt(r["ncu"]), r["unit"] or "-", _fmt_ratio(r["ratio"])]
              for r in both]
    lines = [title, "-" * min(len(title), WIDTH)]
    lines += _table(cells) if both else ["  no metric is on both sides"]
    lines.append(f"{len(both)} metrics on both sides; {only_sim} only in smsim, {only_ncu} only in Nsight "
                 f"Compute")
    lines += [textwrap.fill(n, WIDTH, subsequent_indent='  ') for n in notes if n]
    return "\n".join(lines) + "\n"


def _table(cells: list) -> list:
    """Aligned lines: the metric column left-aligned (long names shortened in the middle to fit
    :data:`WIDTH`), the numbers right-aligned, the unit left-aligned."""
    widths = [max(len(r[i]) for r in cells) for i in range(5)]
    room = WIDTH - 2 - 2 * 4 - sum(widths[1:])
    widths[0] = min(widths[0], max(room, 20))
    out = []
    for r in cells:
        name = _squeeze(r[0], widths[0])
        out.append(f"  {name:<{widths[0]}}  {r[1]:>{widths[1]}}  {r[2]:>{widths[2]}}  "
                   f"{r[3]:<{widths[3]}}  {r[4]:>{widths[4]}}".rstrip())
    return out


def _squeeze(text: str, width: int) -> str:
    """``text`` in ``width`` characters, its middle replaced by ``..`` when it is longer."""
    if len(text) <= width:
        return text
    head = (width - 2) // 2
    return text[:head] + ".." + text[len(text) - (width - 2 - head):]


def fmt(x: float | None) -> str:
    """A value for a person: integers with thousands separators, others with 4 significant digits
    (one decimal from 1000 up)."""
    if x is None:
        return "-"
    if float(x).is_integer() and abs(x) < 1e15:
        return f"{int(x):,}"
    return f"{x:,.1f}" if abs(x) >= 1000 else f"{x:.4g}"


def _fmt_ratio(r) -> str:
    if r is None:
        return "-"
    return f"{r:,.0f}" if abs(r) >= 1000 else f"{r:.3f}"

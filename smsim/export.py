"""Results as files: metrics CSV (name, value, unit) and sweep tables.

Life of an export: the command line (or a program) hands a result's flat metrics dict (Nsight Compute's
names, plus ``smsim.*`` ones) to :func:`metrics_rows`, which gives each its unit from its name the way
Nsight Compute's raw page labels them (``.pct`` is ``%``, ``gpu__time_duration`` is ``nsecond``,
``*_bytes*`` are ``byte`` ...), in sorted order so that two runs' files compare line by line;
:func:`write_csv` writes any list of rows with a header. Sweep rows (plain dicts from
:func:`smsim.runner.row_of`) go through the same writer.
"""
from __future__ import annotations

import csv
from typing import Sequence

_UNITS = (  # (test on the metric name, unit), first match wins
    (lambda n: n.endswith(".pct") or "pct_of_peak" in n or n.endswith("_pct"), "%"),
    (lambda n: n.startswith("gpu__time_duration"), "nsecond"),
    (lambda n: n.endswith(".gbps"), "GB/s"),
    (lambda n: n.endswith("bytes_per_cycle"), "byte/cycle"),
    (lambda n: "bytes" in n, "byte"),
    (lambda n: "cycles" in n, "cycle"),
    (lambda n: "per_cycle" in n, "inst/cycle"),
    (lambda n: "wavefronts" in n or "bank_conflicts" in n, "wavefront"),
    (lambda n: "sectors" in n, "sector"),
    (lambda n: "requests" in n, "request"),
    (lambda n: "inst" in n, "inst"),
    (lambda n: "warps" in n, "warp"),
    (lambda n: "row_hits" in n or "row_misses" in n, "access"),
    (lambda n: "blocks" in n or "block_size" in n, "block"),
)


def metric_unit(name: str) -> str:
    """The unit of a metric, from its name ("" when it has none, e.g. a limiter's name)."""
    for test, unit in _UNITS:
        if test(name):
            return unit
    return ""


def metrics_rows(metrics: dict) -> list:
    """``[{"name", "value", "unit"}]`` for every metric, sorted by name."""
    return [{"name": k, "value": _plain(metrics[k]), "unit": metric_unit(k)} for k in sorted(metrics)]


def _plain(v):
    if isinstance(v, bool) or isinstance(v, str):
        return v
    try:
        f = float(v)
    except (TypeError, ValueError):
        return str(v)
    return int(f) if f.is_integer() else f


def write_csv(rows: list, path: str, columns: Sequence[str] | None = None) -> None:
    """Write dict ``rows`` to ``path`` with a header (``columns``, default: the keys in first-seen order)."""
    if columns is None:
        columns = list(dict.fromkeys(k for r in rows for k in r))
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=columns, extrasaction="ignore")
        w.writeheader()
        for r in rows:
            w.writerow({k: _plain(r[k]) if k in r else "" for k in columns})

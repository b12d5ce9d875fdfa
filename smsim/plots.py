"""Plots of a launch result: matplotlib figures, built without pyplot (no window, no global figure list).

Life of a plot: ``res.plot_stalls()`` (and the other ``res.plot_*`` methods of
:class:`smsim.launch.LaunchResult`) call a function here, which reads only what the result holds and
returns a :class:`matplotlib.figure.Figure`; ``fig.savefig(path)`` writes it (PNG and SVG need no GUI
backend), and a notebook shows it. :func:`stall_breakdown` and :func:`lines` need a timed result;
:func:`warp_timeline` and :func:`bandwidth_over_time` need one recorded with ``timeline=True``
(``res.timeline``: each warp's state intervals, each memory transfer's start cycle and bytes).
:func:`sweep` draws a list of dict rows (one per launch of a sweep), and :func:`save_all` writes every
plot a result allows. Each warp state has one colour in every plot (:data:`STATE_COLORS`).
"""
from __future__ import annotations

import math
import os
from typing import TYPE_CHECKING, Sequence, cast

import numpy as np
from matplotlib.axes import Axes
from matplotlib.colors import to_rgba
from matplotlib.figure import Figure
from matplotlib.patches import Patch

from .report import stall_rows
from .warp import REASONS

if TYPE_CHECKING:
    from .launch import LaunchResult

#: one colour per warp state (Nsight Compute's names, :data:`smsim.warp.REASONS`)
STATE_COLORS = {
    "selected": "#2ca02c", "not_selected": "#98df8a", "long_scoreboard": "#d62728",
    "short_scoreboard": "#ff7f0e", "wait": "#ffd92f", "barrier": "#9467bd", "mio_throttle": "#8c564b",
    "lg_throttle": "#e377c2", "math_pipe_throttle": "#1f77b4", "branch_resolving": "#17becf",
    "no_instruction": "#bcbd22", "drain": "#7f7f7f", "membar": "#393b79", "dispatch_stall": "#000000",
    "imc_miss": "#c5b0d5",
}
LEVELS = (("l1", "L1 data return"), ("l2", "L2 port"), ("dram", "DRAM"))
TIMELINE_COLUMNS = 1000       # at most this many time columns in the warp timeline image
PLOTS = ("stalls", "lines", "timeline", "bandwidth")


def _timed(res) -> None:
    if not res.timed:
        raise ValueError("this plot needs a timed result: launch with timing=True")


def _recorded(res) -> dict:
    _timed(res)
    if res.timeline is None:
        raise ValueError("this plot needs a timeline: launch with timeline=True (smsim.launch(..., timeline=True))")
    return res.timeline


# ---------------------------------------------------------------------------------------------- stalls
def stall_breakdown(res: LaunchResult) -> Figure:
    """Horizontal bars: warp-cycles per issued instruction of each state with cycles, largest on top
    (Nsight Compute's WarpStateStats section)."""
    _timed(res)
    rows = stall_rows(res)
    fig = Figure(figsize=(7, 1.2 + 0.3 * max(len(rows), 1)), layout="constrained")
    ax = fig.add_subplot()
    names = [r for r, _, _ in rows]
    per = [p for _, _, p in rows]
    bars = ax.barh(range(len(rows)), per, color=[STATE_COLORS[r] for r in names])
    ax.bar_label(bars, fmt="%.2f", padding=2, fontsize=8)
    ax.set_yticks(range(len(rows)), names)
    ax.invert_yaxis()
    ax.set_xlabel("warp-cycles per issued instruction")
    ax.set_title(f"{res.kernel.name}: warp states ({res.issued_instructions:,} instructions issued)")
    ax.margins(x=0.15)
    return fig


# -------------------------------------------------------------------------------------------- timeline
def _warp_keys(w: dict) -> list:
    """``(block, warp)`` of every recorded warp, in the order they became resident."""
    keys: dict = {}
    for b, k, s in zip(w["block"].tolist(), w["warp"].tolist(), w["start"].tolist()):
        if (b, k) not in keys or s < keys[(b, k)]:
            keys[(b, k)] = s
    return sorted(keys, key=lambda bk: (keys[bk], bk))


def _dominant(start, end, state, edges) -> np.ndarray:
    """Per time column ``[edges[j], edges[j+1])``: the state one warp spent most of it in (-1: not resident).
    Its intervals tile its resident time, so the cycles spent in a state before ``x`` are linear in ``x``
    between interval boundaries: :func:`numpy.interp` of their running sum gives them at the edges."""
    knots = np.append(start, end[-1])
    per = np.zeros((len(REASONS), len(edges) - 1))
    for s in np.unique(state):
        cum = np.concatenate(([0.0], np.cumsum(np.where(state == s, end - start, 0.0))))
        per[s] = np.diff(np.interp(edges, knots, cum))
    out = per.argmax(axis=0)
    out[per.sum(axis=0) <= 0] = -1
    return out


def warp_timeline(res: LaunchResult, max_warps: int = 64) -> Figure:
    """One row per warp (``b<block>/w<warp>``, the first ``max_warps`` to become resident), coloured by the
    state it spent most of each time column in (columns of ``cycles / 1000`` cycles at most: shorter
    intervals merge into their column), like AerialVision's warp-state timeline."""
    w = _recorded(res)["warps"]
    every = _warp_keys(w)
    keys = every[:max_warps]
    shown = np.isin(w["block"] * (1 << 20) + w["warp"], [b * (1 << 20) + k for b, k in keys])
    t0, t1 = float(w["start"][shown].min()), float(w["end"][shown].max())
    edges = np.linspace(t0, t1, min(TIMELINE_COLUMNS, math.ceil(t1 - t0)) + 1)
    image = np.ones((len(keys), len(edges) - 1, 4))             # white where a warp is not resident
    colors = np.array([to_rgba(STATE_COLORS[r]) for r in REASONS])
    seen = set()
    for row, (b, k) in enumerate(keys):
        m = (w["block"] == b) & (w["warp"] == k)
        dom = _dominant(w["start"][m], w["end"][m], w["state"][m], edges)
        image[row, dom >= 0] = colors[dom[dom >= 0]]
        seen.update(dom[dom >= 0].tolist())
    return _timeline_figure(res, image, keys, (t0, t1), seen, len(every))


def _timeline_figure(res, image, keys, span, seen, total) -> Figure:
    fig = Figure(figsize=(10, 1.6 + 0.16 * max(len(keys), 4)), layout="constrained")
    ax = fig.add_subplot()
    ax.imshow(image, aspect="auto", interpolation="nearest", extent=(*span, len(keys), 0))
    ax.set_yticks(np.arange(len(keys)) + 0.5, [f"b{b}/w{k}" for b, k in keys], fontsize=6 if len(keys) > 24 else 8)
    ax.set_xlabel("cycle")
    ax.set_ylabel("warp (block/warp)")
    shown = f"first {len(keys)} of {total} warps" if len(keys) < total else f"{total} warps"
    ax.set_title(f"{res.kernel.name}: warp states over time ({shown})")
    handles = [Patch(color=STATE_COLORS[REASONS[s]], label=REASONS[s]) for s in sorted(seen)]
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8, title="state")
    return fig


# ------------------------------------------------------------------------------------------- bandwidth
def bandwidth_over_time(res: LaunchResult, bins: int = 100) -> Figure:
    """Bytes per cycle of each memory level over time: the recorded transfers (L1 data returned to the
    SM, bytes through this SM's L2 port, DRAM reads and writes), summed in ``bins`` equal spans of cycles
    by the cycle each transfer starts; a dotted line at each level's peak (this SM's share) where the
    metrics give it (``smsim.<level>.peak_bytes_per_cycle``)."""
    transfers = _recorded(res)["transfers"]
    edges = np.linspace(0.0, max(float(res.cycles), 1.0), bins + 1)
    fig = Figure(figsize=(8, 3.5), layout="constrained")
    ax = fig.add_subplot()
    for level, name in LEVELS:
        tr = transfers.get(level, {"t": np.zeros(0), "bytes": np.zeros(0)})
        total, _ = np.histogram(tr["t"], bins=edges, weights=tr["bytes"])
        st = ax.stairs(total / np.diff(edges), edges, label=f"{name} ({int(tr['bytes'].sum()):,} B)", linewidth=1.5)
        peak = res.metrics.get(f"smsim.{level}.peak_bytes_per_cycle")
        if peak:                                    # this SM's share of the level, when the metrics have it
            ax.axhline(peak, color=st.get_edgecolor(), linestyle=":", linewidth=1)
    ax.set_xlabel("cycle")
    ax.set_ylabel("bytes per cycle")
    ax.set_ylim(bottom=0)
    ax.set_title(f"{res.kernel.name}: memory bandwidth over time (this SM)")
    ax.legend(fontsize=8)
    return fig


# ----------------------------------------------------------------------------------------------- lines
def _line_label(res, line) -> str:
    """``file.py:line`` of a source line (``line N`` if several files have it, ``(no line)`` for None)."""
    if line is None:
        return "(no line)"
    files = {ins.loc.file for ins in res.kernel.body if ins.loc and ins.loc.line == line}
    return f"{os.path.basename(files.pop())}:{line}" if len(files) == 1 else f"line {line}"


def lines(res: LaunchResult) -> Figure:
    """Two bar panels per source line that touched memory (global/local sectors or shared wavefronts), in
    line order: 32-byte sectors, and shared-memory bank conflicts."""
    _timed(res)
    acc = res.lines
    keys = sorted((k for k, v in acc.items() if v["sectors"] or v["wavefronts"]), key=lambda k: (k is None, k or 0))
    labels = [_line_label(res, k) for k in keys]
    fig = Figure(figsize=(10, 1.4 + 0.3 * max(len(keys), 1)), layout="constrained")
    axes = fig.subplots(1, 2, sharey=True)
    for ax, field, title, color in ((axes[0], "sectors", "global/local sectors (32 B)", "#1f77b4"),
                                    (axes[1], "bank_conflicts", "shared-memory bank conflicts", "#d62728")):
        bars = ax.barh(range(len(keys)), [acc[k][field] for k in keys], color=color)
        ax.bar_label(bars, fmt="{:,.0f}", padding=2, fontsize=8)
        ax.set_xlabel(title)
        ax.margins(x=0.2)
        ax.set_xlim(left=0, right=None if any(acc[k][field] for k in keys) else 1)
    axes[0].set_yticks(range(len(keys)), labels)
    axes[0].invert_yaxis()
    fig.suptitle(f"{res.kernel.name}: memory per source line")
    return fig


# ----------------------------------------------------------------------------------------------- sweep
def _powers_of_two(xs: list) -> bool:
    return all(isinstance(x, (int, np.integer)) and x > 0 and not x & (x - 1) for x in xs)


def sweep(rows: list, x: str, y: str, label: str | None = None, limiter_key: str | None = None,
          ax: Axes | None = None) -> Figure:
    """``y`` against ``x`` over ``rows`` (dicts, one per launch), sorted by ``x``; a log2 axis when every x
    is a power of two. With ``limiter_key``, points are coloured by the row's occupancy limiter and a dashed
    line marks each change of limiter between neighbouring points. ``ax``: draw this curve on the axes of
    an earlier sweep figure (in the next colour) instead of a new figure."""
    rows = sorted(rows, key=lambda r: r[x])
    xs, ys = [r[x] for r in rows], [r[y] for r in rows]
    if ax is None:
        fig = Figure(figsize=(7, 4), layout="constrained")
        ax = fig.add_subplot()
        ax.plot(xs, ys, "-", color="#555555", label=label or y)
    else:
        fig = cast(Figure, ax.figure)          # an earlier sweep's axes, on that sweep's Figure
        ax.plot(xs, ys, "-", label=label or y)
    log2 = len(xs) > 1 and _powers_of_two(xs)
    if log2:
        ax.set_xscale("log", base=2)
        ax.set_xticks(xs, [str(v) for v in xs])
    if limiter_key is not None:
        _limiters(ax, xs, ys, [r[limiter_key] for r in rows], log2)
    ax.set_xlabel(x)
    ax.set_ylabel(y)
    ax.legend(fontsize=8)
    return fig


def _limiters(ax, xs, ys, limits, log2: bool) -> None:
    """Colour points by limiter; a labelled dashed line halfway (geometrically on a log axis) at each change."""
    cmap = {v: f"C{i}" for i, v in enumerate(dict.fromkeys(limits))}
    for v, c in cmap.items():
        pts = [(a, b) for a, b, lim in zip(xs, ys, limits) if lim == v]
        ax.scatter(*zip(*pts), color=c, zorder=3, label=f"limiter: {v}")
    for i in range(1, len(xs)):
        if limits[i] != limits[i - 1]:
            at = math.sqrt(xs[i - 1] * xs[i]) if log2 else (xs[i - 1] + xs[i]) / 2
            ax.axvline(at, color="#888888", linestyle="--", linewidth=1)
            ax.annotate(f"{limits[i - 1]} -> {limits[i]}", (at, 1.0), xycoords=("data", "axes fraction"),
                        rotation=90, va="top", ha="right", fontsize=7)


# ------------------------------------------------------------------------------------------------ save
def save_all(res: LaunchResult, directory: str | os.PathLike[str], formats: Sequence[str] = ("png", "svg")) -> list:
    """Write every plot ``res`` allows to ``directory`` (created if missing) as ``<plot>.<format>``
    (:data:`PLOTS`; the timeline and bandwidth plots only for a result recorded with ``timeline=True``):
    the paths written."""
    _timed(res)
    makers = {"stalls": stall_breakdown, "lines": lines, "timeline": warp_timeline,
              "bandwidth": bandwidth_over_time}
    names = [p for p in PLOTS if res.timeline is not None or p not in ("timeline", "bandwidth")]
    os.makedirs(directory, exist_ok=True)
    paths = []
    for name in names:
        fig = makers[name](res)
        for fmt in formats:
            path = os.path.join(os.fspath(directory), f"{name}.{fmt}")
            fig.savefig(path, format=fmt)
            paths.append(path)
    return paths


__all__ = ["STATE_COLORS", "bandwidth_over_time", "lines", "save_all", "stall_breakdown", "sweep", "warp_timeline"]

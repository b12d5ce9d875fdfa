"""``smsim validate``: the timing model against a real H200, case by case, and the summary that says how far
to trust a predicted number.

Life of a validation: :func:`load` reads the hardware measurements (``docs/hardware/validate_hw.json``,
collected by ``benchmarks/validate_hw.py`` with Nsight Compute: every workload case at its ``test`` and
``full`` size). :func:`predict` launches each measured case on the model as a user would (``h200``
config, ``blocks="share"``: the blocks one SM runs; the untimed blocks are not completed, since only the
timing is compared) with the same inputs (the seed the hardware used), and :func:`compare` puts the two
side by side (:class:`Row`): kernel duration (``gpu__time_duration.sum``) and the ratio predicted /
measured, the stall breakdown (warp-cycles per issued instruction by reason, as Nsight's WarpStateStats
gives them: the distance is half the L1 distance of the two normalised breakdowns, 0 equal, 1 disjoint;
the top reason excludes ``selected``), DRAM bytes (smsim's share scaled to the whole grid) and issued
instructions. :func:`summary` reduces the rows to the figures of the issue that set the targets:

* duration MAPE, the share of cases within 10%, the worst case;
* per family and size, the variant ratios (each case's duration over the family's first case's) and
  their MAPE, and the rank order (the share of case pairs, measured more than 5% apart, whose order the
  model keeps);
* the occupancy curve: ``streams.copy_w4 .. copy_w32`` and ``streams.copy`` (64 warps/SM), the largest
  duration error over its points;
* the share of cases whose top stall reason is right, the DRAM read/write bytes' MAPE (over cases that
  move at least 1 MB), and the share of cases whose issued instructions (``smsp__inst_executed``) are within
  5% of the SASS the H200 ran, with the worst case's error. The predicted count is the grid's
  (``smsim.grid.inst_executed``, :mod:`smsim.grid_count`): the timed blocks' and their untimed neighbours'
  streams, the blocks the device's L2 ran by their PTX slots, the rest at their stratum's mean.

:func:`render` prints the table and the summary (``smsim validate``), :func:`render_streams` the SASS and
the PTX streams side by side (``--stream both``); the test suite pins the summary at the test size so that
a model change that worsens it fails.
"""
from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable

DATA = Path(__file__).resolve().parents[1] / "docs" / "hardware" / "validate_hw.json"
STALL = ("smsp__average_warps_issue_stalled_", "_per_issue_active.ratio")
OCCUPANCY_CURVE = ("streams.copy_w4", "streams.copy_w8", "streams.copy_w16", "streams.copy_w32", "streams.copy")
TIE = 0.05              # measured durations closer than this are not ranked against each other
MIN_DRAM_BYTES = 1 << 20


@dataclass
class Row:
    """One case at one size: measured (``hw_*``) and predicted (``sim_*``) figures."""
    case: str
    size: str
    hw_ns: float
    sim_ns: float
    hw_stalls: dict = field(repr=False)
    sim_stalls: dict = field(repr=False)
    hw_dram: tuple = (0, 0)                 # bytes read, written
    sim_dram: tuple = (0, 0)
    hw_inst: float = 0.0
    sim_inst: float = 0.0

    @property
    def ratio(self) -> float:
        return self.sim_ns / self.hw_ns

    @property
    def error(self) -> float:
        return abs(self.ratio - 1.0)

    @property
    def stall_distance(self) -> float:
        return stall_distance(self.hw_stalls, self.sim_stalls)

    @property
    def hw_top(self) -> str:
        return top_stall(self.hw_stalls)

    @property
    def sim_top(self) -> str:
        return top_stall(self.sim_stalls)


def load(path: str | Path = DATA) -> dict:
    """The hardware data (see ``docs/hardware/validate_hw.md``)."""
    with open(path) as f:
        return json.load(f)


def hw_stalls(metrics: dict) -> dict:
    """Warp-cycles per issued instruction by stall reason, from ncu's WarpStateStats metrics."""
    pre, post = STALL
    return {k[len(pre):-len(post)]: float(v) for k, v in metrics.items() if k.startswith(pre) and k.endswith(post)}


def stall_distance(a: dict, b: dict) -> float:
    """Half the L1 distance of two stall breakdowns, each normalised to sum 1 (0: same shares; 1: disjoint)."""
    ta, tb = sum(a.values()), sum(b.values())
    if not ta or not tb:
        return 1.0
    return 0.5 * sum(abs(a.get(r, 0.0) / ta - b.get(r, 0.0) / tb) for r in sorted(set(a) | set(b)))


def top_stall(stalls: dict) -> str:
    """The reason with the most warp-cycles, ``selected`` (issuing, not a stall) left out."""
    rest = {r: v for r, v in stalls.items() if r != "selected"}
    return max(rest, key=lambda r: rest[r]) if rest and max(rest.values()) > 0 else ""


def predict(case_id: str, size: str, seed: int = 0, config: Any = "h200", compiler: str = "auto",
            stream: str | None = None) -> Any:
    """The model's :class:`smsim.LaunchResult` of one case, launched as a user would (``blocks="share"``);
    ``compiler`` for Python kernels (PTX cases are PTX), ``stream`` overrides ``scheduler.stream``."""
    from workloads import case as cases

    from .launch import launch
    case = cases.get(case_id)
    s = case.setup(size, seed)
    return launch(case.load_kernel(), s.grid, s.block, s.args, shared_bytes=s.shared_bytes, config=config,
                  complete=False, overrides=None if stream is None else {"scheduler.stream": stream},
                  compiler=compiler)


def compare(case_id: str, size: str, record: dict, res: Any) -> Row:
    """A :class:`Row` from a hardware record (``runs[size][case]`` of the data) and the model's result."""
    hw = record["metrics"]
    m = res.metrics
    scale = res.blocks / max(res.blocks_timed, 1)
    return Row(case_id, size, float(hw["gpu__time_duration.sum"]), float(m["gpu__time_duration.sum"]),
               hw_stalls(hw), res.stalls_per_instruction(),
               (hw["dram__bytes_read.sum"], hw["dram__bytes_write.sum"]),
               (m["dram__bytes_read.sum"] * scale, m["dram__bytes_write.sum"] * scale),
               float(hw["smsp__inst_executed.sum"]), float(m["smsim.grid.inst_executed"]))


def rows(data: dict, sizes: Iterable[str] = ("test",), only: Callable[[str], bool] | None = None,
         config: Any = "h200", progress: Callable[[str], None] | None = None, compiler: str = "auto",
         stream: str | None = None, uncompiled: list | None = None) -> list:
    """Every measured, correct case of ``sizes`` (that ``only`` accepts) compared with the model
    (``compiler``, ``stream``: see :func:`predict`). A case ``compiler`` cannot compile (smsim's own compiler
    has no float64 ``math.exp``) raises its :class:`isa.errors.CompileError`, or, given ``uncompiled``, is
    left out and listed there as ``(case, size, message)``."""
    from isa.errors import CompileError
    out = []
    seed = data.get("seed", 0)
    for size in sizes:
        for case_id, record in data["runs"].get(size, {}).items():
            if not record.get("ok") or "metrics" not in record or (only is not None and not only(case_id)):
                continue
            if progress is not None:
                progress(f"{case_id} ({size})")
            try:
                res = predict(case_id, size, seed, config, compiler, stream)
            except CompileError as e:
                if uncompiled is None:
                    raise
                uncompiled.append((case_id, size, str(e).splitlines()[0]))
                continue
            out.append(compare(case_id, size, record, res))
    return out


def _mape(errors: list) -> float:
    return 100.0 * sum(errors) / len(errors) if errors else math.nan


def _variants(rows_: list) -> dict:
    """Per ``family@size``: the variant-ratio MAPE and the rank-order agreement (see the module docstring)."""
    groups: dict = {}
    for r in rows_:
        groups.setdefault(f"{r.case.partition('.')[0]}@{r.size}", []).append(r)
    out = {}
    for key, rs in groups.items():
        if len(rs) < 2:
            continue
        base = rs[0]
        errors = [abs((r.sim_ns / base.sim_ns) / (r.hw_ns / base.hw_ns) - 1.0) for r in rs[1:]]
        pairs = kept = 0
        for i, a in enumerate(rs):
            for b in rs[i + 1:]:
                if abs(a.hw_ns / b.hw_ns - 1.0) <= TIE:
                    continue
                pairs += 1
                kept += (a.hw_ns < b.hw_ns) == (a.sim_ns < b.sim_ns)
        out[key] = {"ratio_mape": _mape(errors), "rank_kept": kept / pairs if pairs else 1.0, "cases": len(rs)}
    return out


def summary(rows_: list) -> dict:
    """The figures that say how far to trust the model (see the module docstring)."""
    errors = [r.error for r in rows_]
    worst = max(rows_, key=lambda r: r.error) if rows_ else None
    variants = _variants(rows_)
    curve = {}
    for size in sorted({r.size for r in rows_}):
        points = [r for r in rows_ if r.size == size and r.case in OCCUPANCY_CURVE]
        if points:
            curve[size] = 100.0 * max(r.error for r in points)
    dram = [abs(s / h - 1.0) for r in rows_ for h, s in zip(r.hw_dram, r.sim_dram) if h >= MIN_DRAM_BYTES]
    stalled = [r for r in rows_ if r.hw_top]
    ratio_errors = [v["ratio_mape"] for v in variants.values() if not math.isnan(v["ratio_mape"])]
    return {
        "cases": len(rows_),
        "duration_mape_pct": _mape(errors),
        "within_10pct": sum(e <= 0.10 + 1e-9 for e in errors) / len(errors) if errors else math.nan,
        "worst_case": f"{worst.case}@{worst.size}" if worst else "",
        "worst_error_pct": 100.0 * worst.error if worst else math.nan,
        "variant_ratio_mape_pct": sum(ratio_errors) / len(ratio_errors) if ratio_errors else math.nan,
        "rank_order_kept": (sum(v["rank_kept"] for v in variants.values()) / len(variants)) if variants else math.nan,
        "occupancy_curve_max_error_pct": curve,
        "top_stall_right": sum(r.hw_top == r.sim_top for r in stalled) / len(stalled) if stalled else math.nan,
        "stall_distance_mean": sum(r.stall_distance for r in rows_) / len(rows_) if rows_ else math.nan,
        "dram_bytes_mape_pct": _mape(dram),
        "instructions_within_5pct": (sum(abs(r.sim_inst / r.hw_inst - 1.0) <= 0.05 for r in rows_ if r.hw_inst)
                                     / len(rows_)) if rows_ else math.nan,
        "instructions_worst_pct": max((100.0 * abs(r.sim_inst / r.hw_inst - 1.0) for r in rows_ if r.hw_inst),
                                      default=math.nan),
        "variants": variants,
    }


def render(rows_: list, summ: dict) -> str:
    """The per-case table and the summary, for a person."""
    lines = [f"{'case':38s} {'size':5s} {'hw us':>9s} {'sim us':>9s} {'sim/hw':>7s} {'stall d':>7s} "
             f"{'hw top stall':>18s} {'sim top stall':>18s} {'hw DRAM MB':>11s} {'sim DRAM MB':>11s}"]
    for r in rows_:
        lines.append(f"{r.case:38s} {r.size:5s} {r.hw_ns / 1e3:9.2f} {r.sim_ns / 1e3:9.2f} {r.ratio:7.2f} "
                     f"{r.stall_distance:7.2f} {r.hw_top:>18s} {r.sim_top:>18s} {sum(r.hw_dram) / 1e6:11.2f} "
                     f"{sum(r.sim_dram) / 1e6:11.2f}")
    s = summ
    lines += ["", "family@size                variant-ratio MAPE %   rank order kept   cases"]
    for key, v in sorted(s["variants"].items()):
        lines.append(f"{key:26s} {v['ratio_mape']:20.1f} {v['rank_kept']:17.2f} {v['cases']:7d}")
    curve = ", ".join(f"{k} {v:.0f}%" for k, v in s["occupancy_curve_max_error_pct"].items()) or "-"
    lines += ["", f"summary over {s['cases']} cases: duration MAPE {s['duration_mape_pct']:.1f}%, "
                  f"{100 * s['within_10pct']:.0f}% within 10%, worst {s['worst_case']} "
                  f"({s['worst_error_pct']:.0f}% off); variant-ratio MAPE {s['variant_ratio_mape_pct']:.1f}%, "
                  f"rank order kept {100 * s['rank_order_kept']:.0f}%; occupancy curve max error {curve}; "
                  f"top stall right {100 * s['top_stall_right']:.0f}%, mean stall distance "
                  f"{s['stall_distance_mean']:.2f}; DRAM bytes MAPE {s['dram_bytes_mape_pct']:.1f}%; "
                  f"instructions within 5% {100 * s['instructions_within_5pct']:.0f}% (worst "
                  f"{s['instructions_worst_pct']:.0f}% off)"]
    return "\n".join(lines)


def render_streams(sass_rows: list, ptx_rows: list) -> str:
    """The same cases timed on the SASS stream and on the PTX stream, side by side: duration and issued
    instructions against the H200's, then each stream's summary."""
    ptx = {(r.case, r.size): r for r in ptx_rows}
    lines = [f"{'case':38s} {'size':5s} {'hw us':>9s} {'sass us':>9s} {'ptx us':>9s} {'hw inst':>11s} "
             f"{'sass inst':>11s} {'ptx inst':>11s}"]
    for r in sass_rows:
        p = ptx.get((r.case, r.size))
        if p is None:
            continue
        lines.append(f"{r.case:38s} {r.size:5s} {r.hw_ns / 1e3:9.2f} {r.sim_ns / 1e3:9.2f} {p.sim_ns / 1e3:9.2f} "
                     f"{r.hw_inst:11.0f} {r.sim_inst:11.0f} {p.sim_inst:11.0f}")
    for name, rs in (("sass", sass_rows), ("ptx", ptx_rows)):
        s = summary(rs)
        lines.append(f"{name:4s} stream: duration MAPE {s['duration_mape_pct']:.1f}%, {100 * s['within_10pct']:.0f}% "
                     f"within 10%, variant-ratio MAPE {s['variant_ratio_mape_pct']:.1f}%, instructions within 5% "
                     f"{100 * s['instructions_within_5pct']:.0f}%")
    return "\n".join(lines)


def to_json(rows_: list, summ: dict) -> str:
    """Rows and summary as JSON."""
    return json.dumps({"rows": [{**asdict(r), "ratio": r.ratio, "stall_distance": r.stall_distance,
                                 "hw_top": r.hw_top, "sim_top": r.sim_top} for r in rows_],
                       "summary": summ}, indent=1, default=float)


__all__ = ["Row", "load", "predict", "compare", "rows", "summary", "render", "to_json", "DATA"]

"""Counters of a timed launch and the flat metrics dict, keyed by Nsight Compute's metric names.

Life of a count: the SM and the memory units count as they work (per instruction, here in :class:`Stats`:
executions, stall cycles by reason, sectors, shared-memory wavefronts; per unit, in the unit: requests,
sectors, hits, bytes). When the simulation ends, :func:`metrics` merges them into one flat dict: the SM's
own figures, and what each memory unit reports of itself (:meth:`smsim.contracts.Component.metrics`),
under Nsight's names where one exists (``smsp__inst_executed.sum``,
``l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum`` ...) and clear dotted names otherwise
(``smsim.l2.bytes_per_cycle`` ...); it reads no unit's internals. :func:`per_line` and :func:`per_instruction` give the
same counts per Python source line and per ISA instruction.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterable, Sequence

import numpy as np

from .warp import REASONS

if TYPE_CHECKING:
    from .config import Config
    from .contracts import Component
    from .occupancy import Occupancy


class Stats:
    """Per-instruction counters of one timed launch (``n_ops`` instructions)."""

    def __init__(self, n_ops: int):
        # Python lists while the simulation counts (an element of one is several times cheaper to bump
        # than a numpy element); :meth:`freeze` makes them arrays (hence ``Any``).
        self.stalls: Any = [[0.0] * len(REASONS) for _ in range(n_ops)]
        self.inst: Any = [0] * n_ops                  # warp-level executions
        self.sectors: Any = [0] * n_ops               # global/local sectors
        self.wavefronts: Any = [0] * n_ops            # shared-memory wavefronts
        self.conflicts: Any = [0] * n_ops             # of those, beyond one per phase: bank conflicts
        self.blocks_done = 0
        self.warps = 0
        self.warp_cycles = 0.0                        # resident warp-cycles
        self.end = 0.0

    def freeze(self) -> None:
        """The counts as numpy arrays (``stalls``: [instruction, reason]), once the simulation is over."""
        self.stalls = np.array(self.stalls, dtype=float).reshape(len(self.inst), len(REASONS))
        self.inst, self.sectors, self.wavefronts, self.conflicts = (
            np.array(c, dtype=np.int64) for c in (self.inst, self.sectors, self.wavefronts, self.conflicts))

    def warp_done(self, w: Any) -> None:
        """Warp ``w`` retired: count its resident cycles; the launch ends no earlier than it."""
        self.warps += 1
        self.warp_cycles += w.end - w.start
        if w.end > self.end:
            self.end = w.end

    def stall_totals(self) -> dict:
        """Warp-cycles by stall reason, over all instructions."""
        col = self.stalls.sum(axis=0)
        return {name: float(col[i]) for i, name in enumerate(REASONS)}


def metrics(stats: Stats, infos: Sequence, units: Iterable[Component], cfg: Config, occ: Occupancy,
            time_scale: float) -> dict:
    """The flat metrics dict: the SM's own counts (``stats``: time, instructions, warps, occupancy) merged
    with what each of ``units`` (the memory levels) reports, and per memory level the bandwidth figures
    derived from its ``smsim.<level>.bytes`` and ``smsim.<level>.peak_bytes_per_cycle``."""
    cycles = max(stats.end, 1.0)
    clock_hz = cfg.gpu.clock_mhz * 1e6
    cost = np.array([i.cost for i in infos], np.int64)
    issued = int((stats.inst * cost).sum())
    m: dict = {
        "gpu__time_duration.sum": cycles / clock_hz * 1e9 * time_scale,
        "sm__cycles_elapsed.max": cycles,
        "smsp__inst_executed.sum": issued,
        "smsim.warp_instructions": int(stats.inst.sum()),
        "sm__inst_executed.avg.per_cycle_elapsed": issued / cycles,
        "sm__warps_active.avg.pct_of_peak_sustained_active": 100.0 * stats.warp_cycles / cycles / cfg.sm.max_warps,
        "sm__maximum_warps_per_active_cycle_pct": 100.0 * occ.occupancy,
        "smsim.occupancy.limiter": occ.limiter,
        "smsim.occupancy.blocks_per_sm": occ.blocks_per_sm,
        "launch__occupancy_limit_registers": occ.limits["registers"],
        "launch__occupancy_limit_shared_mem": occ.limits["shared"],
        "launch__occupancy_limit_warps": occ.limits["warps"],
        "launch__occupancy_limit_blocks": occ.limits["blocks"],
        "launch__registers_per_thread": occ.registers_per_thread,
        "smsim.blocks_timed": stats.blocks_done,
    }
    for unit in units:
        reported = unit.metrics(cycles)
        clash = m.keys() & reported.keys()
        if clash:
            raise RuntimeError(f"{type(unit).__name__} reports metrics another part reports too: {sorted(clash)}")
        m.update(reported)
    m["gpu__time_duration.sum"] += m.get("smsim.launch.overhead_ns", 0.0)      # launch and completion
    levels = [k[len("smsim."):-len(".bytes")] for k in list(m) if k.startswith("smsim.") and k.endswith(".bytes")
              and k.count(".") == 2]
    for level in levels:
        nbytes, peak = m[f"smsim.{level}.bytes"], m[f"smsim.{level}.peak_bytes_per_cycle"]
        m[f"smsim.{level}.pct_of_peak"] = 100.0 * nbytes / cycles / peak
        m[f"smsim.{level}.bytes_per_cycle"] = nbytes / cycles
        m[f"smsim.{level}.gbps"] = nbytes / cycles * clock_hz / 1e9
    return m


def per_instruction(stats: Stats, infos: Sequence) -> list:
    """One dict per instruction issued (PTX, or SASS with ``ptx`` the PTX instruction it came from, None if
    none): executions, issue slots, stalls by reason, sectors, wavefronts and bank conflicts."""
    rows = []
    for pc, info in enumerate(infos):
        n = int(stats.inst[pc])
        wf = int(stats.wavefronts[pc])
        rows.append({"pc": pc, "ptx": getattr(info, "ptx", pc), "line": info.line, "text": info.op.ins.text(),
                     "executed": n,
                     "issued": n * info.cost, "sectors": int(stats.sectors[pc]), "wavefronts": wf,
                     "bank_conflicts": int(stats.conflicts[pc]),
                     "stalls": {r: float(stats.stalls[pc, i]) for i, r in enumerate(REASONS) if stats.stalls[pc, i]}})
    return rows


def per_line(rows: list) -> dict:
    """:func:`per_instruction` rows summed per source line (None: instructions with no line)."""
    out: dict = {}
    for row in rows:
        acc = out.setdefault(row["line"], {"executed": 0, "issued": 0, "sectors": 0, "wavefronts": 0,
                                           "bank_conflicts": 0, "stalls": {}})
        for k in ("executed", "issued", "sectors", "wavefronts", "bank_conflicts"):
            acc[k] += row[k]
        for r, v in row["stalls"].items():
            acc["stalls"][r] = acc["stalls"].get(r, 0.0) + v
    return out

"""Counters of a timed launch and the flat metrics dict, keyed by Nsight Compute's metric names.

Life of a count: the SM and the memory units count as they work (per instruction: executions, stall
cycles by reason, sectors, shared-memory wavefronts; per unit: requests, sectors, hits, bytes). When the
simulation ends, :func:`metrics` turns them into one flat dict: Nsight's names where one exists
(``smsp__inst_executed.sum``, ``l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum`` ...) and clear dotted
names otherwise (``smsim.l2.bytes_per_cycle`` ...). :func:`per_line` and :func:`per_instruction` give the
same counts per Python source line and per ISA instruction.
"""
from __future__ import annotations

import numpy as np

from .warp import REASONS


class Stats:
    """Per-instruction counters of one timed launch (``n_ops`` instructions)."""

    def __init__(self, n_ops: int):
        # Python lists while the simulation counts (an element of one is several times cheaper to bump
        # than a numpy element); :meth:`freeze` makes them arrays.
        self.stalls = [[0.0] * len(REASONS) for _ in range(n_ops)]
        self.inst = [0] * n_ops                       # warp-level executions
        self.sectors = [0] * n_ops                    # global/local 32-byte sectors
        self.wavefronts = [0] * n_ops                 # shared-memory wavefronts
        self.conflicts = [0] * n_ops                  # of those, beyond one per phase: bank conflicts
        self.blocks_done = 0
        self.warps = 0
        self.warp_cycles = 0.0                        # resident warp-cycles
        self.end = 0.0

    def freeze(self) -> None:
        """The counts as numpy arrays (``stalls``: [instruction, reason]), once the simulation is over."""
        self.stalls = np.array(self.stalls, dtype=float).reshape(len(self.inst), len(REASONS))
        self.inst, self.sectors, self.wavefronts, self.conflicts = (
            np.array(c, dtype=np.int64) for c in (self.inst, self.sectors, self.wavefronts, self.conflicts))

    def warp_done(self, w) -> None:
        self.warps += 1
        self.warp_cycles += w.end - w.start
        if w.end > self.end:
            self.end = w.end

    def stall_totals(self) -> dict:
        col = self.stalls.sum(axis=0)
        return {name: float(col[i]) for i, name in enumerate(REASONS)}


def metrics(stats: Stats, infos, l1, l2, dram, shared, cfg, occ, time_scale: float) -> dict:
    """The flat metrics dict (see the module docstring)."""
    cycles = max(stats.end, 1.0)
    clock_hz = cfg.gpu.clock_mhz * 1e6
    cost = np.array([i.cost for i in infos], np.int64)
    issued = int((stats.inst * cost).sum())
    c = l1.counts
    m = {
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
        "launch__waves_per_multiprocessor": 0.0,
        "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum": c["requests_ld"],
        "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum": c["requests_st"],
        "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum": c["sectors_ld"],
        "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum": c["sectors_st"],
        "l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum": c["hit_ld"],
        "l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_miss.sum": c["miss_ld"],
        "l1tex__t_requests_pipe_lsu_mem_local.sum": c["requests_local"],
        "l1tex__t_sectors_pipe_lsu_mem_local.sum": c["sectors_local"],
        "l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum": c["requests_atom"],
        "lts__t_sectors_srcunit_tex_op_read.sum": l2.sectors_read,
        "lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum": l2.sectors_read_hit,
        "lts__t_sectors_srcunit_tex_op_write.sum": l2.sectors_write,
        "lts__t_sectors_srcunit_tex_op_atom.sum": l2.sectors_atomic,
        "dram__bytes_read.sum": dram.bytes_read,
        "dram__bytes_write.sum": dram.bytes_write,
        "smsim.dram.row_hits": dram.row_hits,
        "smsim.dram.row_misses": dram.row_misses,
        "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum": shared.wavefronts["ld"],
        "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum": shared.wavefronts["st"],
        "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum": shared.wavefronts["ld"] - shared.ideal["ld"],
        "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum": shared.wavefronts["st"] - shared.ideal["st"],
        "smsp__sass_inst_executed_op_shared_ld.sum": shared.inst["ld"],
        "smsp__sass_inst_executed_op_shared_st.sum": shared.inst["st"],
        "smsp__sass_inst_executed_op_shared_atom.sum": shared.inst["atom"],
        "smsp__sass_inst_executed_op_global_ld.sum": c["requests_ld"],
        "smsp__sass_inst_executed_op_global_st.sum": c["requests_st"],
        "smsim.blocks_timed": stats.blocks_done,
        "smsim.l1.size_bytes": l1.size_bytes,
        "smsim.l2.size_bytes_seen": l2.size_bytes,
    }
    hit = l2.sectors_read_hit / l2.sectors_read if l2.sectors_read else 0.0
    m["lts__t_sector_op_read_hit_rate.pct"] = 100.0 * hit
    lookups = c["hit_ld"] + c["miss_ld"]
    m["l1tex__t_sector_pipe_lsu_mem_global_op_ld_hit_rate.pct"] = 100.0 * c["hit_ld"] / lookups if lookups else 0.0
    levels = {
        "l1": (c["sectors_ld"] + c["sectors_st"] + c["sectors_local"] + c["sectors_atom"]) * cfg.l1.sector_bytes,
        "l2": (l2.sectors_read + l2.sectors_write) * cfg.l2.sector_bytes,
        "dram": dram.bytes_read + dram.bytes_write,
        "shared": (sum(shared.wavefronts.values())) * cfg.shared.banks * cfg.shared.bank_width_bytes,
    }
    peaks = {"l1": cfg.l1.data_bytes_per_cycle, "l2": l2.port.rate, "dram": dram.queue.rate,
             "shared": cfg.shared.wavefronts_per_cycle * cfg.shared.banks * cfg.shared.bank_width_bytes}
    for level, nbytes in levels.items():
        m[f"smsim.{level}.peak_bytes_per_cycle"] = float(peaks[level])      # this SM's share of the level
        m[f"smsim.{level}.pct_of_peak"] = 100.0 * nbytes / cycles / peaks[level]
        m[f"smsim.{level}.bytes"] = int(nbytes)
        m[f"smsim.{level}.bytes_per_cycle"] = nbytes / cycles
        m[f"smsim.{level}.gbps"] = nbytes / cycles * clock_hz / 1e9
    m["dram__throughput.avg.pct_of_peak_sustained_elapsed"] = 100.0 * dram.queue.busy / cycles
    return m


def per_instruction(stats: Stats, infos) -> list:
    """One dict per ISA instruction: executions, issue slots, stalls by reason, sectors, wavefronts and
    bank conflicts."""
    rows = []
    for pc, info in enumerate(infos):
        n = int(stats.inst[pc])
        wf = int(stats.wavefronts[pc])
        rows.append({"pc": pc, "line": info.line, "text": info.op.ins.text(), "executed": n,
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

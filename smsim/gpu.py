"""Wiring: one timed launch on one SM, and how much of the device that SM sees.

Life of a timed launch (:func:`simulate`): the occupancy calculator gives resident blocks per SM and the
shared-memory carveout, which leaves the L1 its size. The blocks to time are chosen (``"share"``: the
blocks this SM would run, every ``num_sms``-th; ``"all"``: the whole grid on this one SM; ``N``: the first
N). The memory levels are built for this SM's view of the device: the launch keeps
``busy = min(num_sms, grid blocks)`` SMs busy, and this SM gets ``1/busy`` of the L2 capacity, of the L2
bandwidth (at most its own port's ``sm_port_bytes_per_cycle``) and of the HBM bandwidth. A one-block
kernel thus has the whole L2 and all of HBM's bandwidth behind one L2 port; a full grid shares them
evenly (data that several SMs read is not shared between their slices: each SM pays its own misses).
Then the SimPy environment runs until the last timed warp retires; the blocks not timed run on the
functional interpreter afterwards (unless ``complete=False``), so the outputs are complete. With
``timeline=True`` a :class:`smsim.warp.Timeline` is passed to the SM (its warps record their state
intervals) and the L1 data return, L2 port and DRAM queues log their transfers into it. ``progress``
is called every few thousand cycles with the blocks retired; Ctrl-C (KeyboardInterrupt) during the
simulation ends it there, and the result, marked ``partial``, holds what was simulated.
"""
from __future__ import annotations

import simpy

from isa.trace import op_infos

from .mem.dram import Dram
from .mem.l1 import L1
from .mem.l2 import L2
from .mem.queue import LoggedQueue
from .mem.shared import SharedMemory
from .occupancy import l1_bytes, occupancy
from .sm import SM
from .stats import Stats, metrics, per_instruction
from .warp import Timeline


def timed_blocks(mode, nblocks: int, num_sms: int) -> list:
    """Indices of the blocks to time for ``blocks=mode``."""
    if mode == "share":
        return list(range(0, nblocks, num_sms))
    if mode == "all":
        return list(range(nblocks))
    if isinstance(mode, bool) or not isinstance(mode, int) or mode < 1:
        raise ValueError(f"blocks must be 'share', 'all' or a positive number of blocks, got {mode!r}")
    return list(range(min(mode, nblocks)))


def record(rec: Timeline, l1, l2, dram) -> None:
    """Log the memory levels' transfers into ``rec`` (their queues are fresh: nothing has moved yet)."""
    l1.data = LoggedQueue(l1.data.rate, rec.log("l1"))
    l2.port = LoggedQueue(l2.port.rate, rec.log("l2"))
    dram.queue = LoggedQueue(dram.queue.rate, rec.log("dram"))


def simulate(launch, cfg, blocks="share", complete: bool = True, registers: int | None = None,
             timeline: bool = False, progress=None) -> dict:
    """Time ``launch`` (an :class:`isa.interp.Launch`) on ``cfg``; the pieces of a timed result
    (``"timeline"``: :meth:`smsim.warp.Timeline.arrays` if ``timeline``, else None)."""
    kernel = launch.prog.kernel
    regs = registers if registers is not None else kernel.registers_per_thread()
    regs = min(max(regs, 1), cfg.sm.max_registers_per_thread)
    occ = occupancy(cfg.sm, launch.threads_per_block, regs, launch.shared_total)
    timed = timed_blocks(blocks, launch.nblocks, cfg.gpu.num_sms)
    busy = min(cfg.gpu.num_sms, launch.nblocks)
    hz = cfg.gpu.clock_mhz * 1e6
    env = simpy.Environment()
    dram = Dram(cfg.dram, cfg.dram.bandwidth_gbps * 1e9 / hz / busy, cfg.l2.sector_bytes)
    l2 = L2(cfg.l2, cfg.l2.size_bytes // busy,
            min(cfg.l2.sm_port_bytes_per_cycle, cfg.l2.bandwidth_bytes_per_cycle / busy), dram, cfg.seed)
    shared = SharedMemory(cfg.shared, cfg.sm.subpartitions)
    infos = op_infos(launch.prog)
    stats = Stats(len(infos))
    l1 = L1(cfg.l1, l1_bytes(cfg, occ), l2, cfg.seed)
    rec = Timeline() if timeline else None
    if rec is not None:
        record(rec, l1, l2, dram)
    sm = SM(env, cfg, launch, timed, occ.blocks_per_sm, shared, l1, stats, rec)
    sm.start()
    if progress is not None:
        env.process(_ticks(env, stats, len(timed), progress))
    partial = False
    try:
        env.run()
    except KeyboardInterrupt:                  # Ctrl-C: report what was simulated, marked partial
        partial = True
        stats.end = max(stats.end, sm.clock.t)
    if not partial and stats.blocks_done != len(timed):   # a model bug, never the user's: say so
        raise RuntimeError(f"smsim timing model stopped with {len(timed) - stats.blocks_done} of {len(timed)} "
                           f"timed blocks unfinished at cycle {env.now:.0f}; please report this kernel")
    stats.freeze()
    if complete and not partial:
        done = set(timed)
        launch.run_blocks([b for b in range(launch.nblocks) if b not in done])
    per_sm = -(-launch.nblocks // cfg.gpu.num_sms)
    scale = per_sm / len(timed)
    m = metrics(stats, infos, l1, l2, dram, shared, cfg, occ, scale)
    m["launch__waves_per_multiprocessor"] = launch.nblocks / (cfg.gpu.num_sms * occ.blocks_per_sm)   # as Nsight
    return {"cycles": stats.end, "stalls": stats.stall_totals(), "metrics": m, "occupancy": occ,
            "instructions": per_instruction(stats, infos), "blocks_timed": len(timed), "regs": regs,
            "issued": m["smsp__inst_executed.sum"], "warp_instructions": int(stats.inst.sum()),
            "timeline": rec.arrays() if rec is not None else None, "partial": partial}


def _ticks(env, stats, total: int, progress, every: int = 2000):
    """Call ``progress(blocks done, blocks to time, cycle)`` every ``every`` cycles while the SM has work."""
    while stats.blocks_done < total:
        progress(stats.blocks_done, total, env.now)
        if env.peek() == float("inf"):         # nothing else is scheduled: do not keep a stalled model alive
            return
        yield env.timeout(every)
    progress(total, total, env.now)

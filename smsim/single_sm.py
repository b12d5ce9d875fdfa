"""One SM's share of a timed launch: the builder that wires the timing model, and the run.

Life of a timed launch (:func:`simulate`): :func:`plan` takes the occupancy calculator's resident blocks
per SM and shared-memory carveout (which leaves the L1 its size) and chooses the blocks to time
(``"share"``: the blocks this SM would run, one of each ``num_sms``, at a place that moves from wave to wave;
``"all"``: the whole grid on this one SM;
``N``: the first N). :func:`device_share` says how much of the device this SM sees: the launch keeps
``busy = min(num_sms, grid blocks)`` SMs busy, and this SM gets ``1/busy`` of the L2 capacity, and of the L2
bandwidth (at most its own port's ``sm_port_bytes_per_cycle``), the HBM bandwidth and the L2's shared units the
part its timed blocks are of the grid's (``1/busy`` where the waves are whole; a short last wave leaves this SM
more blocks than the mean one, :class:`DeviceShare`'s ``weight``). A one-block
kernel thus has the whole L2 and all of HBM's bandwidth behind one L2 port; a full grid shares them
evenly. What the blocks around a timed block read first, and (``l2.sharing = "device"``) what the blocks
before it left in the device's L2, is in L2 for it (:meth:`smsim.sm.SM.neighbours`,
:meth:`smsim.sm.SM._device_until`); blocks that run together all kernel long fetch what they share each.

:func:`build_sm` is the one place that wires components together: it builds each part with the class
the config names for it (:mod:`smsim.registry`: ``dram.model``, ``l2.model``, ``l1.model``,
``shared.model``, ``launch.model``, ``scheduler.policy``; constructor arguments as
:mod:`smsim.contracts` states), DRAM first, each level given the one below it and the bandwidth queues
of this SM's share (logged queues when a :class:`smsim.warp.Timeline` records the launch), the front end
(:mod:`smsim.front_end`) given the number of busy SMs, the instruction stream (:func:`instruction_stream`:
the SASS ptxas makes of the kernel, or its PTX), then the SM with one policy per sub-partition. Then
the SimPy environment runs until the last timed warp retires; the blocks not timed run on the functional
interpreter afterwards (unless ``complete=False``; those the SM ran as neighbours are not run again), so the
outputs are complete. ``progress`` is called every few thousand cycles with the blocks retired; Ctrl-C
(KeyboardInterrupt) during the simulation ends it there, and the result, marked ``partial``, holds what was
simulated. The kernel ends when the slowest of the busy SMs is done: this SM stands for the mean one, and
:meth:`smsim.mem.dram.Dram.slowest_sm_lag` says how much later the slowest ends. The result is a
:class:`TimedRun`.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable

import simpy

from isa.trace import op_infos

from .config import Config
from .mem.l2 import DeviceL2
from .mem.queue import BandwidthQueue, GapQueue, LoggedGapQueue, LoggedQueue
from .occupancy import Occupancy, l1_bytes, occupancy
from .registry import DRAM_MODELS, L1_MODELS, L2_MODELS, LAUNCH_MODELS, SCHEDULER_POLICIES, SHARED_MODELS
from . import sass_stream
from .sm import SM
from .stats import Stats, metrics, per_instruction
from .warp import Timeline

#: Not hardware: how often (in cycles) ``progress`` is called during a simulation
PROGRESS_EVERY_CYCLES = 2000


def timed_blocks(mode: Any, nblocks: int, num_sms: int) -> list:
    """Indices of the blocks to time for ``blocks=mode``. ``"share"``: one block of each ``num_sms`` the device
    dispatches (a wave of one block an SM), block 0 first, the ``k``-th wave's at the place ``k x step`` in it
    (modulo the blocks it has), ``step`` the number coprime to ``num_sms`` nearest ``num_sms / golden ratio``:
    past its first blocks an SM takes whichever block is next when one of its slots frees, so its blocks lie
    anywhere in their waves. Every ``num_sms``-th block would put all of them at one place in the grid's rows
    modulo any divisor of ``num_sms`` (132 = 4 x 33: a 16-wide byte block's x always a multiple of 4, the
    first of the four that share each 64-byte DRAM access, which then fetched twice its part of them:
    ``practice.life_step`` read 2.0x the H200's DRAM bytes at its full size, 1.02x so)."""
    if mode == "share":
        step = share_step(num_sms)
        return [lo + (k * step) % min(num_sms, nblocks - lo) for k, lo in enumerate(range(0, nblocks, num_sms))]
    if mode == "all":
        return list(range(nblocks))
    if isinstance(mode, bool) or not isinstance(mode, int) or mode < 1:
        raise ValueError(f"blocks must be 'share', 'all' or a positive number of blocks, got {mode!r}")
    return list(range(min(mode, nblocks)))


def share_step(num_sms: int) -> int:
    """The step between the places of an SM's blocks in successive waves (:func:`timed_blocks`): the number
    coprime to ``num_sms`` nearest ``num_sms / golden ratio`` (a rotation by it visits every place before any
    twice, as evenly spread as a rotation can: 83 for 132 SMs)."""
    ideal = num_sms * 2 / (1 + math.sqrt(5))
    return min((k for k in range(1, num_sms + 1) if math.gcd(k, num_sms) == 1), key=lambda k: (abs(k - ideal), k))


@dataclass(frozen=True)
class Plan:
    """What one SM runs of a launch: the occupancy, registers per thread, the blocks to time."""
    occupancy: Occupancy
    registers: int
    blocks: list


def plan(cfg: Config, launch: Any, blocks: Any = "share", registers: int | None = None) -> Plan:
    """The :class:`Plan` of ``launch`` (an :class:`isa.interp.Launch`) on ``cfg``; ``registers`` per thread
    (default: the kernel's estimate), clamped to the SM's range."""
    regs = registers if registers is not None else launch.prog.kernel.registers_per_thread()
    regs = min(max(regs, 1), cfg.sm.max_registers_per_thread)
    occ = occupancy(cfg.sm, launch.threads_per_block, regs, launch.shared_total)
    return Plan(occ, regs, timed_blocks(blocks, launch.nblocks, cfg.gpu.num_sms))


@dataclass(frozen=True)
class DeviceShare:
    """This SM's view of the device for a launch keeping ``busy`` SMs busy (see the module docstring);
    ``weight``: how many times this SM's timed work the device does, by which its bandwidths and the L2's
    and HBM's shared units are divided (``busy`` where the grid fills its last wave)."""
    busy: int
    l2_bytes: int
    l2_bytes_per_cycle: float
    dram_bytes_per_cycle: float
    weight: float


def device_share(cfg: Config, nblocks: int, timed: int | None = None) -> DeviceShare:
    """The share of L2 capacity, L2 bandwidth and HBM bandwidth one SM sees when the grid has ``nblocks``, of
    which it times ``timed`` (``blocks="share"``; None: ``busy`` SMs' worth of work alike). The capacity is
    ``1/busy`` of L2's; the bandwidths are ``timed / nblocks`` of the device's: ``"share"`` times one block a
    wave, the last wave's too, so this SM runs ``ceil(nblocks / busy)`` blocks, more than the mean SM's
    ``nblocks / busy`` where the last wave is short, and while the device's bandwidth is spent the blocks get
    it alike, whichever SM runs them (400 blocks on 132 SMs: four SMs run four, the others three; the four
    blocks of this SM get 4/400 of it, not 1/132; a bandwidth-bound kernel then lasts the time the device
    needs for the 400 blocks, where 1/132 would make it 4 x 132 = 528 blocks': ``column_store_hw``'s float32
    transposes of 400 blocks, one wave, 1.18 of the H200's time)."""
    busy = min(cfg.gpu.num_sms, nblocks)
    weight = float(busy) if not timed else min(float(busy), nblocks / timed)
    hz = cfg.gpu.clock_mhz * 1e6
    return DeviceShare(busy, cfg.l2.usable // busy,
                       min(cfg.l2.sm_port_bytes_per_cycle, cfg.l2.bandwidth_bytes_per_cycle / weight),
                       cfg.dram.bandwidth_gbps * 1e9 / hz / weight, weight)


@dataclass(frozen=True)
class Built:
    """A built model: the ``sm`` (its ``env``, ``stats``, ``clock``), its ``units`` (L1, L2, DRAM, shared
    memory, front end: every part that reports metrics besides the SM), its :class:`Plan` and the
    instruction stream it issues."""
    sm: SM
    units: tuple
    plan: Plan
    stream: str = "ptx"        # what the schedulers issued: "sass" or "ptx" (:func:`instruction_stream`)


def build_sm(cfg: Config, launch: Any, recorder: Timeline | None = None, *, blocks: Any = "share",
             registers: int | None = None) -> Built:
    """The SM model of ``launch`` on ``cfg``, every part built by the class its config key names, ready
    to :meth:`~smsim.sm.SM.start` in its own SimPy environment."""
    replay = instruction_stream(cfg, launch.prog.kernel)
    if registers is None and replay is not None:
        registers = replay.registers              # what ptxas allocated, rather than the PTX's estimate
    the_plan = plan(cfg, launch, blocks, registers)
    share = device_share(cfg, launch.nblocks, len(the_plan.blocks) if blocks == "share" else None)

    def queue(level: str, rate: float, gaps: bool = False) -> BandwidthQueue:
        if recorder is None:
            return GapQueue(rate) if gaps else BandwidthQueue(rate)
        return (LoggedGapQueue if gaps else LoggedQueue)(rate, recorder.log(level))

    dram = DRAM_MODELS.get(cfg.dram.model)(cfg.dram, queue("dram", share.dram_bytes_per_cycle),
                                           cfg.l2.sector_bytes, share.weight, cfg.seed)
    l2 = L2_MODELS.get(cfg.l2.model)(cfg.l2, share.l2_bytes, queue("l2", share.l2_bytes_per_cycle), dram, cfg.seed,
                                     share.weight)
    stage = queue("l1", cfg.l1.data_bytes_per_cycle, gaps=True)     # L1's data path, L1TEX's data stage
    l1 = L1_MODELS.get(cfg.l1.model)(cfg.l1, l1_bytes(cfg, the_plan.occupancy), stage, l2, cfg.seed)
    shared = SHARED_MODELS.get(cfg.shared.model)(cfg.shared, cfg.sm.subpartitions,
                                                 stage if cfg.l1.one_data_stage else None)
    front = LAUNCH_MODELS.get(cfg.launch.model)(cfg.launch, share.busy, the_plan.occupancy.blocks_per_sm)
    policy = SCHEDULER_POLICIES.get(cfg.scheduler.policy)
    env = simpy.Environment()
    infos, nregs = op_infos(launch.prog), None
    if replay is not None:
        infos, nregs = sass_stream.infos(launch.prog, replay, infos, cfg)
    stats = Stats(len(infos))
    sm = SM(env, cfg, launch, the_plan.blocks, the_plan.occupancy.blocks_per_sm, shared, l1, stats,
            [policy(cfg.scheduler) for _ in range(cfg.sm.subpartitions)], front, recorder,
            infos, replay, nregs)
    sm.dram = dram
    if cfg.l2.sharing in ("neighbours", "device"):
        sm.share_l2 = l2.held_by_others
        sm.share_lines = getattr(l2, "share_lines", None)
    if cfg.l2.sharing == "device" and len(the_plan.blocks) < launch.nblocks:
        sm.device = DeviceL2(cfg.l2, cfg.dram.access_bytes, share.busy * the_plan.occupancy.blocks_per_sm, cfg.seed)
        sm.busy = share.busy
        sm.share_writes = l2.written_by_others
        sm.share_touched = l2.touched_by_others
        sm.release_l2 = l2.released
        sm.share_atomics = getattr(l2, "atomics_by_others", None)
        if hasattr(l2, "device_holds"):
            l2.device_holds = sm.device.cache.contains
        # what other SMs write and merge, remembered for every resident block (what the device's L2 holds of
        # a block's sectors is held for it while it runs: L2.held_by_others with its block, L2.released)
        l2.others_limit *= max(1, the_plan.occupancy.blocks_per_sm)
    return Built(sm, (l1, l2, dram, shared, front), the_plan, "ptx" if replay is None else "sass")


def instruction_stream(cfg: Config, kernel: Any) -> Any:
    """What the schedulers issue for ``kernel`` under ``scheduler.stream``: the SASS ptxas makes of it (an
    :class:`isa.sass.Replay`), or None for the PTX (with the issue slots of :mod:`isa.cost`). ``"auto"``
    falls back to PTX when ptxas/nvdisasm are missing or reject the kernel; ``"sass"`` then raises
    :class:`isa.sass.SassUnavailable`."""
    if cfg.scheduler.stream == "ptx":
        return None
    from isa import sass
    try:
        return sass.Replay(kernel, sass.of(kernel))
    except sass.SassUnavailable:
        if cfg.scheduler.stream == "sass":
            raise
        return None


@dataclass(frozen=True)
class TimedRun:
    """What :func:`simulate` found: SM ``cycles``, stall warp-cycles by reason, the flat ``metrics``
    (Nsight names), the occupancy, per-instruction counters (:func:`smsim.stats.per_instruction`), the
    blocks timed, registers per thread, issue slots and warp-instructions executed, the timeline arrays
    (``launch(timeline=True)``, else None) and whether Ctrl-C cut the simulation short."""
    cycles: float
    stalls: dict
    metrics: dict
    occupancy: Occupancy
    instructions: list
    blocks_timed: int
    registers: int
    issued: int
    warp_instructions: int
    timeline: dict | None
    partial: bool


def simulate(launch: Any, cfg: Config, blocks: Any = "share", complete: bool = True,
             registers: int | None = None, timeline: bool = False,
             progress: Callable[[int, int, float], None] | None = None) -> TimedRun:
    """Time ``launch`` (an :class:`isa.interp.Launch`) on ``cfg`` (see the module docstring)."""
    rec = Timeline() if timeline else None
    built = build_sm(cfg, launch, rec, blocks=blocks, registers=registers)
    sm, timed = built.sm, built.plan.blocks
    env, stats = sm.env, sm.stats
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
    # the kernel lasts until the slowest of the busy SMs is done and L2 has taken its stores (this SM stands
    # for the mean one), and until L2's atomic units have performed every atomic and reduction: this SM's,
    # and the backlog all busy SMs feed (a lagging SM does not prolong it; the others' requests, booked as
    # arriving with this SM's, come up to a lag earlier or later, so the busiest unit starts on them earlier)
    # every SM makes a round trip to memory (as this one does: it read DRAM, or each of its warps stored), and
    # the slowest ends last
    dram = built.units[2]
    went = dram.bytes_read or (stats.warps and len(sm.storing) >= stats.warps)
    lag = dram.slowest_sm_lag(min(cfg.gpu.num_sms, launch.nblocks)) if went and not partial else 0.0
    lag *= math.sqrt(max(1, sm.dram_chain))
    if not partial:
        stats.end = max(stats.end, sm.l2_done) + lag
        stats.end = max(stats.end, sm.l2_red_done, built.units[1].atomics_done - lag)
    stats.end = math.ceil(stats.end)    # at a cycle boundary (a block's retirement need not fall on one)
    stats.freeze()
    if not partial and launch.nblocks <= cfg.gpu.num_sms:
        sm.count_rest()        # one stratum: the blocks nobody ran counted, not taken at the known ones' mean
    if complete and not partial:
        done = set(timed) | sm.ran_ahead
        launch.run_blocks([b for b in range(launch.nblocks) if b not in done])
    occ = built.plan.occupancy
    per_sm = -(-launch.nblocks // cfg.gpu.num_sms)
    infos = sm.infos
    m = metrics(stats, infos, built.units, cfg, occ, per_sm / len(timed))
    m["launch__waves_per_multiprocessor"] = launch.nblocks / (cfg.gpu.num_sms * occ.blocks_per_sm)   # as Nsight
    m["smsim.grid.inst_executed"] = sm.grid_count.total()
    m["smsim.stream_sass"] = 1.0 if built.stream == "sass" else 0.0
    m["smsim.dram.slowest_sm_lag_cycles"] = lag
    return TimedRun(stats.end, stats.stall_totals(), m, occ, per_instruction(stats, infos), len(timed),
                    built.plan.registers, m["smsp__inst_executed.sum"], int(stats.inst.sum()),
                    rec.arrays() if rec is not None else None, partial)


def _ticks(env: Any, stats: Stats, total: int, progress: Callable, every: int = PROGRESS_EVERY_CYCLES) -> Any:
    """Call ``progress(blocks done, blocks to time, cycle)`` every ``every`` cycles while the SM has work."""
    while stats.blocks_done < total:
        progress(stats.blocks_done, total, env.now)
        if env.peek() == float("inf"):         # nothing else is scheduled: do not keep a stalled model alive
            return
        yield env.timeout(every)
    progress(total, total, env.now)

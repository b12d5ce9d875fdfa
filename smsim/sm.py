"""The SM: resident blocks, their warps, and what issuing an instruction does.

Life of a block: the block scheduler (:meth:`SM.start`) makes resident as many of the blocks to time as
the occupancy allows. A block runs on the functional interpreter when it is dispatched
(:func:`isa.trace.trace_blocks`, together with the next blocks to dispatch, up to :data:`TRACE_LANES`
lanes), which gives each warp its instruction stream and the addresses of its memory accesses; its warps
then replay those streams against the clock, each on a sub-partition: a block takes the lowest free warp
slots, and its warp ``w`` runs on sub-partition ``(k + w) % sm.subpartitions``, ``k`` the block's slot on
the SM (its first warp slot over its warps), so the warp 0s of resident blocks take the sub-partitions in turn
(on an H200 the eight 8-warp blocks an SM holds put their warp 0s two on each, ``%warpid`` shows, and eight
blocks whose warp 0 alone works run as fast as one: ``docs/hardware/warp_slot_hw.md``).
When a block's last warp retires, the next block is dispatched in its place (the front end says when it
starts: :meth:`smsim.front_end.FrontEnd.dispatch_at`). With ``l2.sharing`` the blocks around a timed block
in the grid, which other SMs run, are run once too (:meth:`SM.neighbours`): the sectors they touch before it
does are in the device's L2 when it asks for them; with ``"device"`` (every preset's) the blocks before it
also run, sectors only, through the device's L2 (:meth:`SM._device_until`, :class:`smsim.mem.l2.DeviceL2`),
and what they left there is too; in a kernel with atomics the device's resident blocks around a timed one run
as well, and the slices their atomics fall on take the other SMs' share of L2's atomic work
(:meth:`SM._atomics_around`), and the blocks that retire before a timed one starts run before it does, so
that what its atomics return is what the device's blocks of its wave see (:meth:`SM._retired_before`).

Life of an instruction (:meth:`SM.issue`, called by a sub-partition's scheduler at cycle ``t``): the
warp's waiting cycles are attributed (:meth:`smsim.warp.Warp.account`); then its timing effect: a
fixed-latency result is ready ``latency_cycles`` after the last issue slot and the pipe is busy
``issue_interval_cycles`` per slot; shared memory goes to :class:`~smsim.mem.shared.SharedMemory`;
global and local memory are coalesced and queued to :class:`~smsim.mem.l1.L1`, their destination
registers pending until the data returns (a global store of at most ``l1.merge_sectors`` sectors in
``l1.merge_lines`` lines carries to L2 the bytes of the warp's next stores into the same sectors that follow
it at once, before it is through L1, and those then take L1's tag stage only: :meth:`SM._merge_ahead`); a
special register's read (``S2R``, ``S2UR``) is back when :class:`~smsim.special.SpecialRegisters` says; an indexed
constant load (``LDC R, c[0x3][R]``) when the constant cache's port has read its distinct addresses one at a
time (:meth:`SM._const_load`), a parameter or constant operand when its line is in the constant cache; a branch
holds the warp ``branch`` cycles; a barrier holds it until its block's other warps arrive; a fence until its memory
operations are done; ``exit`` retires it once its stores and reductions have left the SM (``drain``), while
the kernel's end waits until L2 has taken its stores (:attr:`SM.l2_done`) and performed its reductions
(:attr:`SM.l2_red_done`).
With the SASS stream (``scheduler.stream``, :mod:`smsim.sass_stream`) a warp replays the SASS ptxas made of
its PTX execution instead, and :meth:`SM._issue_sass` issues it by its control code: the warp's next issue
waits its stall count and the scoreboards in its wait mask, and a branch's (a ``BSYNC``'s) resolution
after that (``scheduler.branch_resolve_cycles``, ``reconverge_cycles``: ``branch_resolving``); memory
instructions take the accesses of the PTX execution they stand for. Every change to a warp's state goes
through :class:`~smsim.warp.Warp`'s methods.
Given a ``recorder`` (:class:`smsim.warp.Timeline`), the SM hands it to each warp as its hook. The SM is
built, with its memory units and scheduler policies, by :func:`smsim.single_sm.build_sm`; it talks to shared
memory and L1 through their contracts (:mod:`smsim.contracts`).
"""
from __future__ import annotations

from array import array
from collections import deque
from itertools import islice
from typing import Any, Sequence

import numpy as np

from isa.interp import BATCH_LANES
from isa.trace import SPACE_NAMES, first_per_key, global_sectors, op_infos, trace_blocks

from .config import Config
from .contracts import FrontEndModel, L1Model, SchedulerPolicy, SharedMemoryModel
from .fast import banks, coalesce
from .grid_count import GridCount
from .scheduler import Clock, SubPartition
from .stats import Stats
from .sass_stream import READ_SCOREBOARD_CYCLES
from .special import SerialUnit, SpecialRegisters
from .warp import BRANCH, IMC_MISS, LONG, MEMBAR, R, SHORT, WAIT, Timeline, Warp

_THROTTLE = {"fp32": R["math_pipe_throttle"], "fp64": R["math_pipe_throttle"], "int": R["math_pipe_throttle"],
             "imad": R["math_pipe_throttle"], "sfu": R["math_pipe_throttle"], "sync": R["mio_throttle"],
             "branch": R["dispatch_stall"], "barrier": R["dispatch_stall"]}
_LG, _MIO = R["lg_throttle"], R["mio_throttle"]
_LATENCY_REASON = {"fixed": WAIT, "short_scoreboard": SHORT, "long_scoreboard": LONG, "control": WAIT}
#: Not hardware: how many lanes of consecutive pending blocks the functional interpreter runs together when
#: one of them is dispatched (a batch of work for numpy; larger batches trade memory for speed)
TRACE_LANES = 4096
#: the most PTX issue slots (warp-instructions' worth) :meth:`SM.count_rest` traces to count a one-stratum grid
COUNT_REST_SLOTS = 2_000_000
#: Not hardware: where local memory sits in the caches' address space, above any global address (the
#: interpreter's are below 2**48), so local and global lines never alias
LOCAL_BASE = 1 << 56
#: Local memory is interleaved across a warp's lanes in words of this many bytes (the hardware's layout:
#: word k of the 32 lanes of a warp are consecutive)
LOCAL_WORD_BYTES = 4
WARP_LANES = 32


class Block:
    """A resident block: its trace (:class:`isa.trace.BlockTrace`), its warps and its barrier."""

    def __init__(self, sm: "SM", index: int, trace: Any):
        self.sm, self.index, self.trace = sm, index, trace
        self.warps: list = []
        self.arrived: list = []
        self.info: Any = None             # the barrier instruction (OpInfo) the arrived warps wait at
        self.running = 0

    def arrive(self, warp: Warp, t: float) -> None:
        """``warp`` issued its current instruction, a barrier, at ``t``."""
        warp.wait_at_barrier()
        self.arrived.append(warp)
        self.info = warp.info
        self._maybe_release(t)

    def _maybe_release(self, t: float) -> None:
        if not self.arrived or len(self.arrived) < self.running:
            return
        arrived, self.arrived = self.arrived, []
        release = t + self.sm.spec.pipes.barrier.latency_cycles
        for w in arrived:
            w.release_barrier(release, self.info.results)
            self.sm.clock.poke()

    def warp_done(self, t: float) -> None:
        """One of its warps retired at ``t``: the barrier may now be complete, or the block done."""
        self.running -= 1
        if self.running:
            self._maybe_release(t)
        else:
            self.sm.block_retired(self, t)


class SM:
    """One SM running ``blocks`` (indices) of ``launch`` (an :class:`isa.interp.Launch`), at most
    ``blocks_per_sm`` resident: sub-partitions (one per ``policies`` entry), resident blocks, and the
    memory units ``shared`` and ``l1``, fed by its ``front`` end (block dispatch, instruction and constant
    caches); counts go to ``stats``; ``recorder``: a :class:`Timeline` or None. ``infos``: what each
    item of the stream to issue is (default: the PTX's :class:`isa.trace.OpInfo`); with ``replay`` (an
    :class:`isa.sass.Replay`), the SASS stream's :class:`smsim.sass_stream.SassInfo` and ``nregs`` the
    register ids its warps need."""

    def __init__(self, env: Any, spec: Config, launch: Any, blocks: Sequence[int], blocks_per_sm: int,
                 shared: SharedMemoryModel, l1: L1Model, stats: Stats, policies: Sequence[SchedulerPolicy],
                 front: FrontEndModel, recorder: Timeline | None = None, infos: Sequence | None = None,
                 replay: Any = None, nregs: int | None = None):
        self.env, self.spec, self.launch, self.stats = env, spec, launch, stats
        self.recorder = recorder
        self.shared, self.l1, self.front = shared, l1, front
        self.pending = deque(blocks)
        self.blocks_per_sm = blocks_per_sm
        self.infos = op_infos(launch.prog) if infos is None else infos
        self.nregs = len(launch.prog.reg_dtypes) if nregs is None else nregs
        self.replay = replay              # an isa.sass.Replay: warps issue SASS (smsim.sass_stream)
        if replay is not None:
            self.issue = self._issue_sass  # type: ignore[method-assign]   # (one call fewer an issue)
        self.l2_done = 0.0                # when L2 has taken every store so far (the kernel ends then)
        self.l2_red_done = 0.0            # when L2's atomic units have performed every reduction so far
        self.storing: set = set()         # (block, warp) of the warps that stored to global memory
        self.dram: Any = None             # the DRAM model L1's misses end in (set by smsim.single_sm.build_sm)
        self.dram_chain = 0               # the most DRAM round trips a warp made one after another
        self.row_sectors = max(1, spec.dram.row_bytes // spec.l1.sector_bytes)   # sectors in a DRAM row
        self.warps_per_block = -(-launch.threads_per_block // WARP_LANES)
        self.free_slots = list(range(spec.sm.max_warps))
        self.subs = [SubPartition(self, i, p) for i, p in enumerate(policies)]
        self.special = SpecialRegisters(spec.special, len(self.subs), spec.shared.mio_queue)
        #: the constant cache's port: an indexed constant load (SASS ``LDC``) reads one distinct address at a time
        self.const_port = SerialUnit(spec.launch.const_address_cycles, spec.shared.latency_cycles,
                                     len(self.subs), spec.shared.mio_queue)
        self.lg_waiting = False           # a warp found the LSU queue full since its last entry was taken
        self.clock = Clock(env, self.subs)
        self.resident = 0
        self.local_bytes = max(launch.prog.local_bytes, 4)
        self.traces: dict = {}            # blocks run ahead of their dispatch
        self.timed = set(blocks)
        #: other SMs' blocks run here to see what they bring into L2 (:meth:`neighbours`); their sectors go
        #: to ``share_l2`` (an :meth:`smsim.contracts.L2Model.held_by_others`), None: not done
        self.share_l2: Any = None
        #: with ``device``: :meth:`smsim.contracts.L2Model.released`, told when a timed block retires
        self.release_l2: Any = None
        #: with ``share_l2``: :meth:`smsim.mem.l2.L2.share_lines`, told once (at the first blocks' neighbours,
        #: where they store) what part of the touched sectors of the lines the timed blocks touch are theirs,
        #: the rest their neighbours' in the row of the grid (x - 1, x + 1: on other SMs, at the same time; the
        #: rows above and below run a row of blocks apart, and a line they share holds only part of its sectors
        #: meanwhile), a line read whole counting whole. A line whose sectors a block touches only where a
        #: neighbour does too (a stencil's halo) is left out: it is in the share of whichever fetched it
        self.share_lines: Any = None
        self.ran_ahead: set = set()
        self.near: dict = {}              # timed block -> sectors its neighbours brought, until it is dispatched
        #: the issue slots of the blocks this SM ran (timed, traced as neighbours, or on the interpreter only)
        self.grid_count = GridCount(launch.nblocks, spec.gpu.num_sms)
        #: ``l2.sharing = "device"``: the device's L2 as the whole grid fills it (a
        #: :class:`smsim.mem.l2.DeviceL2`); the blocks before a timed one run first (:meth:`_device_until`)
        self.device: Any = None
        self.frontier = 0                 # the next block the device's L2 has not seen
        self.retired = 0                  # with atomics: blocks before it run before the timed ones after it
        self.busy = 1                     # with ``device``: the SMs the launch keeps busy
        self.starts: deque = deque(maxlen=blocks_per_sm + 1)     # when this SM's latest blocks started
        #: with ``device``: block run ahead as a neighbour -> the arguments of its DeviceL2.touch
        self.neighbour_sectors: dict = {}
        self.mine_first: dict = {}        # with ``device``: timed block -> sectors it touches before its neighbours
        self.decided: dict = {}           # with ``device``: timed block -> sectors its grid neighbours touch
        #: with ``device``: timed block -> (sectors blocks of other SMs store into with it, how many blocks in
        #: all, 0 where another SM's L2 share writes the sector back), to ``share_writes`` at its dispatch
        self.shared_writes: dict = {}
        self.share_writes: Any = None     # an :meth:`smsim.contracts.L2Model.written_by_others`
        #: with ``device``: an :meth:`smsim.contracts.L2Model.touched_by_others`, told the sectors of the other
        #: SMs' blocks as the device's L2 takes them (:meth:`_device_to`)
        self.share_touched: Any = None
        #: with ``device``: an :meth:`smsim.mem.l2.L2.atomics_by_others` (None: the L2 model has none), told at
        #: each timed block's dispatch what the blocks around it do atomics on; and, per block run ahead on the
        #: interpreter, its atomics' (sectors, lane operations on each) (:func:`isa.trace.global_sectors`)
        self.share_atomics: Any = None
        self.atomic_blocks: dict = {}
        self.near_timed: set | None = None
        self.has_atomics = any(getattr(i, "mem", None) in ("atom", "red") for i in op_infos(launch.prog))
        self._slots: dict = {}            # a warp's executed pcs (bytes) -> its issue slots: most warps repeat
        self._ptx_cost = [op.cost for op in launch.prog.ops]
        pipes = spec.pipes
        self.throttle = {u: _THROTTLE.get(u, _MIO) for u in {i.unit for i in self.infos}}
        self.throttle.update((b, R["dispatch_stall"]) for i in self.infos for b in i.rf)
        self.execs = [self._exec(i, getattr(pipes, getattr(i, "spec", "") or i.unit, None)) for i in self.infos]
        self.branch_latency = pipes.branch.latency_cycles
        #: with ``replay``, per SASS instruction that is neither memory, barrier nor ``S2UR`` (else None): what
        #: :meth:`_issue_sass` does with it, ``(issue slots, stall, resolve, read scoreboard, results, result
        #: latency, pipe, its issue interval, the cycles it holds its sub-partition's dispatch (0: its slots
        #: only, :meth:`_hold`), the register-file banks it holds past its issue cycle)``
        self.plain = [None if i.mem or i.barrier or i.special or i.fence else
                      (i.cost, i.stall, i.resolve, i.read_sb, i.results, i.latency_cycles, i.unit, e[0],
                       self._hold(i, spec.scheduler), i.rf_book)
                      for i, e in zip(self.infos, self.execs)] if replay is not None else []

    @staticmethod
    def _hold(info, sched) -> float:
        """The cycles the SASS instruction ``info`` holds its sub-partition's dispatch past its issue slot's
        (0: none): a 64-bit integer product's ``scheduler.hi_dispatch_cycles`` or ``.wide_dispatch_cycles``."""
        if info.spec != "imad_wide":
            return 0
        hold = sched.hi_dispatch_cycles if "HI" in info.sass.opcode.split(".") else sched.wide_dispatch_cycles
        return hold if hold > 1 else 0

    @staticmethod
    def _exec(info, pipe) -> tuple:
        """A non-memory instruction's (pipe issue interval per slot, result latency, scoreboard reason)."""
        reason = _LATENCY_REASON[info.latency]
        if pipe is None:
            return 0, 0, reason
        return pipe.issue_interval_cycles, pipe.latency_cycles, reason

    # ------------------------------------------------------------------ blocks
    def start(self) -> None:
        """Ask for the first blocks, as many as may be resident."""
        while self.pending and self.resident < self.blocks_per_sm:
            self._request(self.env.now)

    def _request(self, t: float, refill: bool = False) -> None:
        """A block slot is free at ``t`` (``refill``: a block retired from it): the next pending block takes
        it when the front end hands it over."""
        b = self.pending.popleft()
        self.resident += 1
        start = self.front.dispatch_at(t, refill)
        if start <= t:
            self._dispatch(b, t)
            return
        ev = self.env.timeout(start - self.env.now)
        ev.callbacks.append(lambda _e: self._dispatch(b, start))

    def _dispatch(self, b: int, t: float) -> None:
        self.starts.append(t)
        block = Block(self, b, self._trace(b))
        self._count_issued(block.trace)
        near = self.near.pop(b, None)
        if near is not None:
            self.share_l2(*near[:1], t, *near[1:], block=b if self.device is not None else None)
        writes = self.shared_writes.pop(b, None)
        if writes is not None:
            self.share_writes(*writes)
        code_at = self.front.code_ready(t)
        n = len(self.subs)
        turn = self.free_slots[0] // self.warps_per_block   # the block's slot on the SM: where its warp 0 goes
        for i, wt in enumerate(block.trace.warps):
            slot = self.free_slots.pop(0)
            stream = self.replay.stream(wt.pcs) if self.replay is not None else None
            w = Warp(wt, block, slot, (turn + i) % n, self.nregs, t, self.stats.stalls, self.infos,
                     self.recorder, code_at, stream)
            block.warps.append(w)
            self.subs[w.sp].add(w)
        block.running = len(block.warps)
        if not block.running:
            self.block_retired(block, t)

    def _trace(self, b: int) -> Any:
        """Block ``b``'s trace; the next pending blocks are run with it (up to TRACE_LANES lanes)."""
        trace = self.traces.pop(b, None)
        if trace is None:
            limit = max(1, TRACE_LANES // (WARP_LANES * self.warps_per_block))
            until = self._retired_before(b)
            # with it, the next pending blocks not run yet (that run with it on the device, in a kernel with
            # atomics): a block runs once (a second run would see, and write, memory its first run changed)
            ahead = islice((p for p in self.pending if p not in self.traces and p < until), limit - 1)
            traces = trace_blocks(self.launch, [b] + list(ahead))
            trace = traces[0]
            for tr in traces[1:]:
                self.traces[tr.index] = tr
            if self.share_l2 is not None:
                self.neighbours(traces, limit)
        if self.device is not None:
            self._device_until(b, trace)
        return trace

    def _retired_before(self, b: int) -> int:
        """In a kernel with atomics, with ``device``: what a block's atomics return (a compare-and-swap loop's
        retries, a ticket) depends on what the blocks before it did, so before the timed block ``b`` runs, the
        blocks that retire on the device before it starts (those more than ``DeviceL2.concurrent`` before it,
        not run yet) run on the interpreter, in block order (their sectors wait for the device's L2, as the
        grid neighbours' do), and the pending timed blocks run with ``b`` are only those that run with it on
        the device (fewer than ``concurrent`` after it): ``homework.atomic_max_f32``'s later waves find the
        64 bins near their maxima, as on the H200 (180 K atomic sectors at its mid size, 4 waves; 571 K when
        every timed block ran with the first). The bound for those (the grid's end otherwise)."""
        if self.device is None or not self.has_atomics:
            return self.launch.nblocks
        span = self.device.concurrent
        self._run_for_device(range(max(self.frontier, self.retired), b - span))
        self.retired = max(self.retired, b - span)
        return b + span

    def _run_for_device(self, blocks: range) -> None:
        """Run those of ``blocks`` not run yet (none timed, nor a timed block's grid neighbour, which
        :meth:`neighbours` runs) on the interpreter now, in batches, their sectors waiting for the device's L2
        to take them in block order (:attr:`neighbour_sectors`)."""
        if self.near_timed is None:
            gx = self.launch.grid3[0]
            self.near_timed = {t + dy * gx + dx for t in self.timed for dy in (-1, 0, 1) for dx in (-1, 0, 1)}
        near = self.near_timed
        ahead = [k for k in blocks if k not in self.timed and k not in self.ran_ahead
                 and k not in self.neighbour_sectors and k not in self.traces and k not in near]
        per_batch = max(1, BATCH_LANES // (WARP_LANES * self.warps_per_block))
        for i in range(0, len(ahead), per_batch):
            for k, sectors, firsts in self._run_ahead(ahead[i:i + per_batch]):
                self.neighbour_sectors[k] = (sectors, False, firsts)

    def _device_until(self, b: int, trace: Any) -> None:
        """``l2.sharing = "device"``: the blocks between the last one the device's L2 saw and ``b`` (none of
        them timed: a timed block is dispatched in order) that have not run yet run on the functional
        interpreter, in batches, keeping only the global sectors they touch (:func:`isa.trace.global_sectors`),
        in place of their run in the launch's completion (:attr:`ran_ahead`); their sectors (those of grid
        neighbours :meth:`neighbours` ran already, as it kept them), then the timed block's (``trace``), go
        through the device's L2 in block order, and so do the blocks after it, up to the next timed block or
        half the busy SMs' blocks on. What the device's L2 holds of the timed
        block's sectors when that starts, with what its later grid neighbours touch first (:meth:`neighbours`:
        blocks that run at the same time and start after it), goes to ``share_l2`` at its dispatch
        (:attr:`near`); an access the blocks started with it touch at the same point of their code is the
        timed block's to fetch, or one another SM asks for together with it, by lot (:meth:`_by_lot`); what
        another SM fetches so is that SM's in the device's L2 from then on (:meth:`smsim.mem.l2.DeviceL2.disown`). Of
        what a block of its own wave brought, a sector the timed block touches before its grid neighbours (by
        the step of the warp's stream, as :meth:`neighbours` compares them), or at an earlier global access
        than the blocks before it that touch it (:meth:`_first_in_wave`), is its own: a stencil's block
        fetches its tile though the block before it, running at the same time, reads the tile's first column
        as its halo later, and the row above it, which it reads as its halo first. The sectors blocks of other SMs
        (half the busy SMs' blocks either side) store into at the same point of their code as the timed block
        go to ``share_writes`` at its dispatch (:attr:`shared_writes`), with how many blocks write each and,
        by lot, whether this SM's share writes it back."""
        sb = self.spec.l2.sector_bytes
        self._device_to(b)
        own, firsts = _first_touch(trace, sb, 1, ordinal=True)
        held, there, by = self.device.touch(b, own, mine=True, firsts=firsts)
        self.frontier = max(self.frontier, b + 1)
        held, there = self._first_in_wave(b, held, there)
        half, wide = self._together(), self.busy // 2
        lo, hi = b - half, min(b + half, self.launch.nblocks - 1)
        n = b + 1
        while n <= b + wide and n < self.launch.nblocks and n not in self.timed:
            n += 1
        self._device_to(n)
        top = min(n - 1, hi)
        sectors, writers = self.device.write_sharers(b, b - wide, n - 1, self.timed)
        if len(writers) and writers.max() > 1:
            sectors, writers = sectors[writers > 1], writers[writers > 1]
            self.shared_writes[b] = (sectors, np.where(self._lot(sectors, writers), writers, 0))
        held, there, together = self._by_lot(b, own, held, there, by, lo, top)
        self.device.forget(min(lo, b - wide, b - self.device.concurrent))
        if self.share_atomics is not None and self.has_atomics:
            self._atomics_around(b, n)
        first = self.mine_first.pop(b, None)
        if first is not None and len(held):     # brought by a block that runs with it, but it gets there first
            keep = there | ~np.isin(held, first, assume_unique=True)
            held, there, together = held[keep], there[keep], together[keep]
        near = self.near.pop(b, None)
        if near is not None:                    # what later neighbours touch first, of its own sectors
            extra = np.setdiff1d(np.intersect1d(near[0], own, assume_unique=True), held, assume_unique=True)
            no = np.zeros(len(extra), bool)
            held, there, together = (np.concatenate([held, extra]), np.concatenate([there, no]),
                                     np.concatenate([together, no]))
        if len(held):
            self.near[b] = (held, there, together)
            # what it missed in the device's L2 but another SM fetches is that SM's there from now on
            self.device.disown(b, np.intersect1d(held, own[by == b], assume_unique=True))

    def _atomics_around(self, b: int, n: int) -> None:
        """Tell ``share_atomics`` what the blocks that run on other SMs with the timed block ``b`` do atomics
        on: the ``DeviceL2.concurrent`` blocks the device keeps resident (the ones before it when it starts,
        the ones after it as they take their places: the span of that many centred on it, within the grid),
        as the interpreter ran them; those past ``n`` (the blocks the device's L2 has run) run now and wait,
        with their sectors, for the device's L2 to take them in block order (:attr:`neighbour_sectors`, as
        the grid neighbours do). The timed blocks' grid neighbours, which :meth:`neighbours` traces, are left
        out (a few of hundreds)."""
        span = self.device.concurrent
        nblocks = self.launch.nblocks
        lo = max(0, min(b - span // 2, nblocks - span))
        hi = min(nblocks, lo + span)
        kept = self.atomic_blocks
        for k in [k for k in kept if k < lo]:
            del kept[k]
        self._run_for_device(range(n, hi))
        parts = [v for k, v in kept.items() if lo <= k < hi and k != b]
        if not parts:
            self.share_atomics(np.zeros(0, np.int64), np.zeros(0, np.int64))
            return
        sectors = np.concatenate([p[0] for p in parts])
        ops = np.concatenate([p[1] for p in parts])
        sectors, at = np.unique(sectors, return_inverse=True)
        self.share_atomics(sectors, np.bincount(at, ops, len(sectors)))

    def _first_in_wave(self, b: int, held: np.ndarray, there: np.ndarray) -> tuple:
        """Of the sectors ``held`` that a block of ``b``'s own wave brought into the device's L2 before it (in
        block order; ``there`` False) in a 2-D grid, those whose DRAM access ``b``'s code touches at an
        earlier global access than each of its grid neighbours before it (x - 1, and the three blocks above)
        that touches it are ``b``'s to fetch: they run at the same time, and the first to ask brings it (a
        stencil's block reads the row above it as its halo before the block above reads it as its own last
        row; the block below reads ``b``'s last row first, as :meth:`neighbours` finds by step). Only the
        grid neighbours: other blocks' accesses at data-dependent points (a gathered vector) tell nothing of
        who asks first. ``(held, there)`` less those."""
        pending = ~there
        gx, gy, _ = self.launch.grid3
        if gy < 2 or not pending.any():
            return held, there
        wait = held[pending]
        never = np.iinfo(np.int64).max
        theirs = np.full(len(wait), never)
        for n in (b - 1, b - gx - 1, b - gx, b - gx + 1):
            if b - self.device.concurrent <= n:
                at = self.device.first_touch(n, wait)
                theirs = np.where((at >= 0) & (at < theirs), at, theirs)
        keep = np.ones(len(held), bool)
        keep[pending] = (theirs == never) | (self.device.first_touch(b, wait) >= theirs)
        return held[keep], there[keep]

    def _together(self) -> int:
        """How many blocks before and after the one starting now other SMs start within
        ``dram.row_open_cycles`` of it: the device starts ``busy`` times as many blocks a cycle as this SM
        did over its latest blocks (the first wave's all at once), at most half the busy SMs' on each side
        (the blocks between this SM's)."""
        half = self.busy // 2
        starts = self.starts
        span = starts[-1] - starts[0] if len(starts) > 1 else 0.0
        if span <= 0.0:
            return half
        rate = self.busy * (len(starts) - 1) / span
        return min(half, int(rate * self.spec.dram.row_open_cycles))

    def _by_lot(self, b: int, own: np.ndarray, held: np.ndarray, there: np.ndarray, by: np.ndarray, lo: int,
                hi: int) -> tuple:
        """Of the sectors ``own`` the timed block ``b`` touches, which other SMs' blocks fetch: ``(held,
        there, together)`` for :meth:`smsim.mem.l2.L2.held_by_others`. The device's L2 saw them in block
        order (``held``, ``there``; ``by``: the block that brought each of ``own``,
        :meth:`smsim.mem.l2.DeviceL2.touch`), but the blocks ``lo..hi`` start at about the same time as ``b``:
        a DRAM access one of them makes at the same point of its code as ``b`` (the same global access,
        counted from its start) is asked for by all of them at once, and HBM serves whichever asks first,
        any of them alike. A lot drawn by the access decides: ``b`` fetches it one time in as many as touch
        it so, else another SM's read of it is asked *together* with ``b``'s. The blocks that ask together are
        those that start within ``lo..hi``'s half-width after the first to ask (the block that brought it in
        block order), so that one of them fetches it, one time in as many as are in that group: counted
        around ``b`` instead, a block after the first drew among blocks that start too late to ask with the
        first, and the group's blocks' chances added up to less than one fetch (the first blocks of a row
        that read the same A tile, ``half`` of them after the first: to about ln 2). Accesses a block before
        ``lo`` brought stay its, and sectors a grid neighbour touches (:meth:`neighbours`) are left to its
        steps."""
        unit = own // self.device.per
        accesses, at = np.unique(unit, return_inverse=True)      # the order access_sharers keeps
        first = np.full(len(accesses), hi, np.int64)              # the first asker of each (hi: none in lo..hi)
        np.minimum.at(first, at, np.where(by >= lo, by, hi))
        units, count = self.device.access_sharers(b, lo, hi, self.timed, np.minimum(first + (b - lo), hi))
        decided = self.decided.pop(b, None)
        if not len(units) or count.max() <= 1:
            return held, there, np.zeros(len(held), bool)
        k = count[np.searchsorted(units, unit)]
        is_held = np.isin(own, held, assume_unique=True)
        there_own = np.zeros(len(own), bool)
        there_own[is_held] = there
        lot = (k > 1) & (by >= lo)
        if decided is not None:
            lot &= ~np.isin(own, decided, assume_unique=True)
        draw = self._lot(unit, k)
        mine = np.where(lot, draw, ~is_held)
        return own[~mine], there_own[~mine], (lot & ~draw)[~mine]

    def _lot(self, keys: np.ndarray, k: np.ndarray) -> np.ndarray:
        """A lot drawn by each of ``keys`` (sectors, DRAM accesses) among ``k`` SMs: which fall to this one (one
        in ``k``, by a hash of the key and ``seed``: the same key draws the same way)."""
        key = keys.astype(np.uint64) * np.uint64(0x9E3779B97F4A7C15) + np.uint64(self.spec.seed)
        return (key >> np.uint64(33)) % k.astype(np.uint64) == 0

    def _device_to(self, b: int) -> None:
        """Run the blocks from :attr:`frontier` to ``b`` (not included; none of them timed) through the
        device's L2, in block order (see :meth:`_device_until`)."""
        per_batch = max(1, BATCH_LANES // (WARP_LANES * self.warps_per_block))
        kept, n = self.neighbour_sectors, self.frontier
        blocks: list = []                     # the blocks for the device's L2 to take next, with their sectors
        runs: list = []
        while n < b:
            if n in kept:
                sectors, _, firsts = kept.pop(n)
                blocks.append(n)
                runs.append((sectors, firsts))
                n += 1
                continue
            m = n + 1
            while m < b and m - n < per_batch and m not in kept:
                m += 1
            for k, sectors, firsts in self._run_ahead(list(range(n, m))):
                blocks.append(k)
                runs.append((sectors, firsts))
            n = m
            if len(blocks) >= per_batch:
                self._touch_others(blocks, runs)
                blocks, runs = [], []
        if blocks:
            self._touch_others(blocks, runs)
        self.frontier = max(self.frontier, b)

    def _touch_others(self, blocks: list, runs: list) -> None:
        """Other SMs' ``blocks``, with ``runs`` (:meth:`smsim.mem.l2.DeviceL2.touch_others`), through the
        device's L2, and their sectors to this SM's share (:attr:`share_touched`)."""
        self.device.touch_others(blocks, runs)
        if self.share_touched is not None:
            self.share_touched(np.concatenate([s for s, _ in runs]))

    def _run_ahead(self, run: list) -> list:
        """Run the blocks ``run`` (none timed) on the interpreter, together, in place of their run in the
        launch's completion (:attr:`ran_ahead`), keeping the global sectors each touched and the access that
        first touched each (:func:`isa.trace.global_sectors`), and, in a kernel with atomics, what its
        atomics named (:attr:`atomic_blocks`): ``[(block, sectors, firsts)]``."""
        issued: dict = {}
        atomics = self.atomic_blocks if self.share_atomics is not None and self.has_atomics else None
        got = global_sectors(self.launch, run, self.spec.l2.sector_bytes, firsts=True, issued=issued,
                             atomics=atomics)
        self.grid_count.ran(issued)
        self.ran_ahead.update(run)
        return [(k, sectors, firsts) for k, (sectors, firsts) in zip(run, got)]

    def _stores(self) -> np.ndarray:
        """Per PTX instruction of the kernel, whether it is a global or local store."""
        return np.array([getattr(i, "mem", None) == "st" for i in op_infos(self.launch.prog)], bool)

    def neighbours(self, traces: list, limit: int) -> None:
        """For each timed block of ``traces`` (:class:`isa.trace.BlockTrace`), run its grid neighbours that
        other SMs run at about the same time (x - 1 and x + 1, and the three blocks above and below). What they
        touch is in the device's L2, with the DRAM accesses (``dram.access_bytes``) that held it, except what
        the block touches first itself (by the step of the warp's stream at which each first touches a
        sector; on a tie the lower block index first): a stencil's halo, the sector two blocks of a
        misaligned copy share, table entries later blocks of this SM read. It goes to ``share_l2`` when the
        block is dispatched (:attr:`near`). Each neighbour runs on the functional interpreter once, in place
        of its run in the launch's completion (:attr:`ran_ahead`); one this SM times itself is not run again."""
        gx, gy, _ = self.launch.grid3
        sb = self.spec.l2.sector_bytes
        per = max(1, self.spec.dram.access_bytes // sb)
        mine = {tr.index: tr for tr in traces if tr.index in self.timed}
        todo: dict = {}
        for b in mine:
            x, y = b % gx, b // gx % gy
            for dy in (-1, 0, 1):
                for dx in (-1, 0, 1):
                    n = b + dy * gx + dx
                    if (dx or dy) and 0 <= x + dx < gx and 0 <= y + dy < gy and n not in self.timed \
                            and n not in self.ran_ahead:
                        self.ran_ahead.add(n)
                        todo.setdefault(b, []).append(n)
        order = sorted(n for ns in todo.values() for n in ns)
        first: dict = {}
        stores = self._stores() if self.share_lines is not None else None
        written: dict = {}                          # with stores: neighbour -> the sectors it stores into
        touched: dict = {}                          # with stores: neighbour -> the sectors it touches
        for i in range(0, len(order), limit):
            for tr in trace_blocks(self.launch, order[i:i + limit]):
                first[tr.index] = _first_touch(tr, sb, per)
                sec = None                            # its sectors, one by one (the same set however stepped)
                if self.device is not None:          # for the device's L2, when it gets there
                    sec, firsts = _first_touch(tr, sb, 1, ordinal=True)
                    self.neighbour_sectors[tr.index] = (sec, False, firsts)
                if stores is not None:
                    written[tr.index] = _written(tr, sb, stores)
                    touched[tr.index] = sec if sec is not None else _first_touch(tr, sb, 1)[0]
                self._count_issued(tr)
        if stores is not None:                      # the first blocks: how much of their lines is theirs
            spl = self.spec.l2.line_bytes // sb
            lines = owned = 0.0
            for b, ns in todo.items():              # with the neighbours that run with them: x - 1, x + 1
                row = [n for n in ns if abs(n - b) == 1]
                if not len(_written(mine[b], sb, stores)) and not any(len(written[n]) for n in row):
                    continue
                n_lines, part = _line_parts(_first_touch(mine[b], sb, 1)[0],
                                            [touched[n] for n in row], spl)
                lines, owned = lines + n_lines, owned + part
            if lines:
                self.share_lines(owned / lines)
            self.share_lines = None
        for b, ns in todo.items():
            theirs = np.unique(np.concatenate([first[n][0] for n in ns]))
            if not len(theirs):
                continue
            # the step at which a neighbour first touches each, with a lower block index winning ties
            step = np.full(len(theirs), np.iinfo(np.int64).max)
            lower = np.zeros(len(theirs), bool)
            for n in ns:
                nsec, nstep = first[n]
                at = np.searchsorted(theirs, nsec)
                earlier = (nstep < step[at]) | ((nstep == step[at]) & (n < b))
                step[at] = np.where(earlier, nstep, step[at])
                lower[at] = np.where(earlier, n < b, lower[at])
            sec, own = _first_touch(mine[b], sb, 1)
            at = np.searchsorted(theirs, sec).clip(0, len(theirs) - 1)
            both = theirs[at] == sec
            tie = both & (own == step[at])
            keep = np.ones(len(theirs), bool)
            if self.device is not None:
                # the device's L2 defers to the steps where they differ; a tie is left to its lot (_by_lot)
                mine_first = both & (own < step[at])
                self.mine_first[b] = sec[mine_first]
                self.decided[b] = np.setdiff1d(theirs, sec[tie], assume_unique=True)
                keep[at[tie]] = False
            else:
                mine_first = both & ((own < step[at]) | (tie & ~lower[at]))
            keep[at[mine_first]] = False
            if keep.any():
                self.near[b] = (theirs[keep], None, None)

    def _count_issued(self, trace: Any) -> None:
        """Count the issue slots (``smsp__inst_executed``) the warps of the block ``trace`` take in
        :attr:`grid_count`: the SASS streams they issue, or their PTX's slots, beside their PTX's slots;
        warps that executed the same pcs are counted once."""
        total = ptx = 0
        for wt in trace.warps:
            key = array("l", wt.pcs).tobytes()
            got = self._slots.get(key)
            if got is None:
                items = self.replay.stream(wt.pcs)[0] if self.replay is not None else wt.pcs
                cost = self._ptx_cost
                got = self._slots[key] = (sum(self.infos[i].cost for i in items), sum(cost[p] for p in wt.pcs))
            total += got[0]
            ptx += got[1]
        self.grid_count.traced(trace.index, total, ptx)

    def count_rest(self) -> None:
        """A grid of at most ``num_sms`` blocks (one stratum of :mod:`smsim.grid_count`): run every block no
        one ran (none timed, traced or run ahead) on the interpreter, traced, and count the issue slots of the
        stream its warps take, in place of their run in the launch's completion (:attr:`ran_ahead`), rather
        than take them at the known blocks' mean (the neighbours of block 0 of a triangle,
        ``workshop.transpose_inplace``, issue more than most of its blocks). Only where they are cheap to trace:
        at most :data:`COUNT_REST_SLOTS` PTX issue slots at the known blocks' mean (a persistent grid-stride
        kernel's few large blocks are left at the mean, as its blocks are alike)."""
        rest = [b for b in range(self.launch.nblocks) if b not in self.timed and b not in self.ran_ahead]
        known = [p for _, p in self.grid_count.exact.values()]
        if not rest or not known or len(rest) * sum(known) / len(known) > COUNT_REST_SLOTS:
            return
        limit = max(1, TRACE_LANES // (WARP_LANES * self.warps_per_block))
        for i in range(0, len(rest), limit):
            for tr in trace_blocks(self.launch, rest[i:i + limit]):
                self._count_issued(tr)
        self.ran_ahead.update(rest)

    def block_retired(self, block: Block, t: float) -> None:
        """``block``'s last warp retired at ``t``: once the device has retired the block (the kernel lasts
        until then), the next pending block takes its place."""
        self.resident -= 1
        self.stats.blocks_done += 1
        if self.device is not None:       # what the device's L2 held for it when it started
            self.release_l2(block.index)
        t = self.front.retire_at(t)
        if t > self.stats.end:
            self.stats.end = t
        if self.pending:
            self._request(t, True)

    # ------------------------------------------------------------------ issue
    def mem_blocked(self, w: Warp, sub: SubPartition, t: float) -> float | None:
        """None if ``w``'s next instruction, a memory one, can issue at ``t``; else until when. A global or
        local one that takes an entry of the LSU queue warps were waiting for hands the lead of the next cycles
        to the next sub-partition (:attr:`smsim.scheduler.Clock.lead`: the waiting sub-partitions get the
        entries round-robin)."""
        space = w.info.space
        if space == "shared":
            if self.shared.full(sub.index, t):
                w.block_on(t + 1, _MIO)
                return self.shared.next_free(sub.index)
        elif space == "const" and w.info.cost:   # an indexed constant load waits for room in the port's queue
            room = self.const_port.room_at(sub.index, t)
            if room > t:
                w.block_on(room, _MIO)
                return room
        elif space not in ("param", "const"):
            room = self.l1.space_at(t)
            if room > t:
                w.block_on(room, _LG)
                self.lg_waiting = True
                return room
            if self.lg_waiting:           # an entry warps waited for: the next sub-partition looks first
                self.lg_waiting = False
                self.clock.lead = (sub.index + 1) % len(self.subs)
        return None

    def _const_load(self, w: Warp, sp: int, a: np.ndarray, t: float) -> float:
        """An indexed constant load (``ld.const``, SASS ``LDC``) by warp ``w`` of sub-partition ``sp`` issued at
        ``t`` reading the addresses ``a`` (one a lane): the cycle its data is back, its lines aside. The constant
        cache's port reads one distinct address at a time (lanes reading one address share it), at
        ``launch.const_address_cycles`` of the SM an address; the warp replays the load for each further
        address, ``launch.const_replay_cycles`` each, issuing nothing else meanwhile, and its data is back the
        shared-memory latency after its last address. On an H200 a load at 1 / 2 / 4 / 8 / 32 addresses a warp
        takes 2.0-2.1 cycles of the SM an address at 32 warps an SM, and one warp's loop of such loads 2.6-2.8
        more cycles a load for each further address, nothing of the loop's other work overlapping them
        (``docs/hardware/const_spread_hw.md``)."""
        n = len(np.unique(a)) if len(a) > 1 else 1
        replays = (n - 1) * self.spec.launch.const_replay_cycles
        ready = self.const_port.take(sp, t, n, replays)
        if n > 1:
            w.hold_fetch(max(w.fetch_at, ready - self.const_port.latency), SHORT)
        return ready

    def issue(self, w: Warp, sub: SubPartition, t: float) -> int:
        """Issue ``w``'s next instruction at ``t``; the issue slots it takes."""
        if self.replay is not None:
            return self._issue_sass(w, sub, t)
        info = w.info
        slots = info.cost
        pc = info.op.index
        w.account(t, slots, pc)
        self.stats.inst[pc] += 1
        if info.mem:
            self._memory(w, sub, info, t)
        elif info.barrier:
            w.block.arrive(w, t)
        elif info.fence:
            self._fence(w, info.fence, t)
        else:
            span = slots if slots > 1 else 1
            interval, latency, reason = self.execs[pc]
            if interval:
                sub.book(info.unit, t, interval, span)
            w.results_at(info.dsts, t + span - 1 + latency, reason)
            if info.branch:
                w.hold_fetch(t + span + self.branch_latency, BRANCH)
        if not w.advance():
            self._exit(w, t + (slots if slots > 1 else 1), pc)
        return slots

    def _issue_sass(self, w: Warp, sub: SubPartition, t: float) -> int:
        """Issue ``w``'s next SASS instruction (:mod:`smsim.sass_stream`) at ``t``; the issue slots it takes
        (0 for a constant-bank lookup)."""
        info = w.info
        pc = info.index
        plain = self.plain[pc]
        if plain is not None:                  # the one call to the warp for all the issue does
            slots, stall, resolve, read_sb, results, latency, unit, interval, hold, rf_book = plain
            w.account(t, slots, pc)
            self.stats.inst[pc] += 1
            if interval:                       # SubPartition.book of one issue slot, inline
                sub.pipe_free[unit] = t + interval
                sub.pipe_held[unit] += interval - 1
            for bank, cycles in rf_book:       # register-file banks it reads more than one register from
                sub.pipe_free[bank] = t + cycles
                sub.pipe_held[bank] += cycles - 1
            if not w.issued_sass(t, slots, stall, resolve, read_sb, t + READ_SCOREBOARD_CYCLES, results,
                                 t + latency):
                self._exit(w, t + (slots if slots > 1 else 1), pc)
            if hold:
                sub.hold(w, t, hold)
                return hold
            return slots
        slots = info.cost
        w.account(t, slots, pc)
        self.stats.inst[pc] += 1
        if slots:
            if info.resolve:                    # the control code's stall, then the branch resolving
                w.hold_fetch(t + info.stall + info.resolve, BRANCH, t + info.stall)
            else:
                w.hold_fetch(t + info.stall, WAIT)
        if info.read_sb is not None:
            w.results_by((info.read_sb,), t + READ_SCOREBOARD_CYCLES, SHORT)
        pos = w.position()
        if info.mem and pos >= 0:
            self._memory(w, sub, info, t, pos)
        elif info.barrier:
            w.block.arrive(w, t)
        elif info.fence:
            self._fence(w, info.fence, t)
        elif info.special:                     # S2UR: the SM's special-register unit, behind the MIO queue
            ready = self.special.read(sub.index, t)
            room = self.special.room_at(sub.index, t)
            sub.book(info.unit, t, room - t if room > t else 1)
            w.results_by(info.results, ready, SHORT)
        else:
            interval = self.execs[pc][0]
            if interval:
                sub.book(info.unit, t, interval)
            if info.results:
                w.results_by(info.results, t + info.latency_cycles, SHORT)
        if not w.advance():
            self._exit(w, t + (slots if slots > 1 else 1), pc)
        return slots

    def _fence(self, w: Warp, scope: str, t: float) -> None:
        """``w`` issued a memory fence of ``scope`` at ``t`` (its earlier accesses done as the scope asks:
        :meth:`Warp.refresh`): L1's fence unit takes it, and the warp waits for it (``membar``)."""
        go = self.l1.fence(t, scope)
        if go > w.fetch_at:
            w.hold_fetch(go, MEMBAR)

    def _exit(self, w: Warp, t: float, pc: int) -> None:
        end = w.exit(t)
        self.subs[w.sp].remove(w)
        if end <= t:
            self._retire(w, t, pc)
            return
        ev = self.env.timeout(end - self.env.now)    # retires when its loads are back, its stores sent (drain)
        ev.callbacks.append(lambda _e: self._retire(w, end, pc))

    def _retire(self, w: Warp, t: float, pc: int) -> None:
        w.retire(t, pc)
        chain = w.dram_chain()
        if chain > self.dram_chain:
            self.dram_chain = chain
        self.free_slots.append(w.slot)
        self.free_slots.sort()
        self.stats.warp_done(w)
        w.block.warp_done(w.end)

    # ------------------------------------------------------------------ memory
    def _memory(self, w: Warp, sub: SubPartition, info, t: float, pos: int | None = None) -> None:
        """Time a memory instruction: its accesses are those of the warp's current PTX execution, or, for
        a SASS one, of the PTX execution at ``pos`` in the warp's trace."""
        kind = {"ld": "ld", "st": "st", "red": "red"}.get(info.mem, "atom")
        pc = info.op.index
        parts = w.memory_parts(SPACE_NAMES, pos)
        below = -getattr(info, "shift", 0)        # a SASS access ptxas merged from PTX ones below this one's
        if below:
            parts = [(space, a - a.dtype.type(below), lanes) for space, a, lanes in parts]
        shared_ready, near_reason = t, SHORT
        far, far_lanes = [], []
        for space, a, lanes in parts:
            if info.one_op:                       # the active lanes' count, added once
                a, lanes = a[:1], lanes[:1]
            if space == "shared":
                shared_ready, n, conflicts = self.shared.access(sub.index, "atom" if kind == "red" else kind, a,
                                                                lanes, info.nbytes, t)
                self.stats.wavefronts[pc] += n
                self.stats.conflicts[pc] += conflicts
            elif space in ("global", "local"):
                far.append(self._cache_address(space, a, lanes, w, info.nbytes))
                far_lanes.append(lanes)
            elif space == "const" and info.cost:   # an indexed constant load (LDC): the constant cache's port;
                # a line it misses delays its data (short_scoreboard: no instruction waits on an operand)
                shared_ready = max(self.front.constant(space, a, t), self._const_load(w, sub.index, a, t))
            else:                          # a parameter or constant operand (a lookup): the constant cache
                line_at = self.front.constant(space, a, t)
                shared_ready = max(line_at, t + (0 if space == "param" else self.spec.shared.latency_cycles))
                if line_at > t:
                    near_reason = IMC_MISS
        result = w.results_by if self.replay is not None else w.results_at
        if kind != "st":
            result(info.results, shared_ready, near_reason)
        if not far:
            return
        space = "local" if all(s == "local" for s, _, _ in parts if s in ("global", "local")) else "global"
        a = far[0] if len(far) == 1 else np.concatenate(far)
        l1 = self.spec.l1
        sectors = coalesce.sectors(a, info.nbytes, l1.sector_bytes)
        nlines = coalesce.lines_of(sectors, l1.line_bytes // l1.sector_bytes)
        self.stats.sectors[pc] += len(sectors)
        bypass = info.cache_op in ("cg", "cv") or kind in ("atom", "red")
        waves = carried = 0
        if kind == "ld" and not bypass and nlines > 1 and l1.data_banks:   # the data array's wavefronts
            lanes = far_lanes[0] if len(far_lanes) == 1 else np.concatenate(far_lanes)
            waves = banks.wavefronts(a, lanes, info.nbytes, l1.data_banks, self.spec.shared.bank_width_bytes, True)
            carried = len(a) * info.nbytes
        merged = kind == "st" and w.merged()
        if kind == "st" and not merged and space == "global" and len(sectors) <= l1.merge_sectors \
                and nlines <= l1.merge_lines:
            a = self._merge_ahead(w, info, sectors, nlines, a)
        ops = (coalesce.atomic_ops(a, l1.sector_bytes) if kind in ("atom", "red") else
               coalesce.bytes_written(a, info.nbytes, l1.sector_bytes) if kind == "st" else None)
        whole = None if kind not in ("atom", "red") else coalesce.multi_rounds(a, l1.sector_bytes) if info.swap \
            else coalesce.whole_rounds(a, info.nbytes, l1.sector_bytes)
        read = 0
        if self.dram is not None:
            read = self.dram.bytes_read
        rows = None
        if space == "global":
            if kind == "ld":
                per = self.row_sectors
                w.load_rows = (int(sectors[0]) // per, int(sectors[-1]) // per)
            elif kind == "st":
                rows = w.load_rows
        part = coalesce.part_sectors(a, info.nbytes, l1.sector_bytes) \
            if kind == "st" and info.nbytes < 4 and self.spec.l2.subword_chain_cycles else None
        done = max(self.l1.access(kind, space, sectors, nlines, bypass, ops, t, info.float_add, whole,
                                  merged, w.block.index << 6 | w.index, rows, waves, carried, part, info.swap,
                                  kind in ("atom", "red") and info.nbytes == 8 and not info.float_add),
                   shared_ready)
        if kind in ("ld", "atom") and l1.in_order_fills and self.l1.from_l2:   # after the warp's earlier ones
            if done < w.fill_order:
                done = w.fill_order
            w.fill_order = done
        if self.dram is not None and kind == "ld" and self.dram.bytes_read > read:
            w.dram_read_issued(t, done)
        if kind in ("red", "st"):                 # returns nothing: the warp goes on once it left the SM
            if kind == "red":
                if done > self.l2_red_done:
                    self.l2_red_done = done
            elif done > self.l2_done:
                self.l2_done = done
            sent = self.l1.sent
            if kind == "st":                      # its data crosses the stage shared memory's wavefronts take
                self.storing.add((w.block.index, w.index))
                sent = max(sent, self.shared.store_data(nlines, t))
            w.memory_issued(done, kind == "st", sent)
        else:
            w.memory_issued(done, False)
        if kind != "st":
            result(info.results, done, LONG)

    def _merge_ahead(self, w: Warp, info: Any, sectors: np.ndarray, lines: int, a: np.ndarray) -> np.ndarray:
        """A global store of ``w`` into ``sectors`` in ``lines`` lines (at most ``l1.merge_sectors`` in
        ``l1.merge_lines``), at addresses ``a``: the warp's next memory instructions that store into the same
        sectors, as many as follow one another at once (no other access, barrier or fence between, nor an
        instruction that waits on a result: :meth:`Warp.next_memory`) and issue, at the earliest (one
        instruction a cycle, or a SASS instruction's stall count), before this store is through L1 with the port
        to L2 idle (its tag stage and port cycles), reach L2 with it, as one write
        (``docs/hardware/store_merge_hw.md``: the H200 merges a warp's back-to-back stores so, and not larger
        ones; ``docs/hardware/store_resident_hw.md``: not past a chain of 16 dependent multiply-adds with one
        warp an SM). They are marked merged (:meth:`Warp.merge_store`); the addresses of all of them, whose
        bytes its write carries. A later store of the warp may still join the write while it waits to leave the
        SM (:meth:`smsim.mem.l1.L1._join`)."""
        l1 = self.spec.l1
        sb = l1.sector_bytes
        budget = -(-lines // l1.tag_lookups_per_cycle) + l1.write_cycles(lines, len(sectors))
        infos, pcs = self.infos, w.pcs
        more = [a]
        j = w.k
        while True:
            nxt = w.next_memory(j)
            if nxt is None:
                break
            k, pos = nxt
            budget -= sum(getattr(infos[pcs[i]], "stall", 1) for i in range(j, k))
            if budget <= 0:
                break
            j = k
            other = infos[pcs[j]]
            if other.mem != "st" or other.nbytes != info.nbytes:
                break
            parts = w.peek_parts(SPACE_NAMES, pos)
            if not parts or any(space != "global" for space, _, _ in parts):
                break
            b = parts[0][1] if len(parts) == 1 else np.concatenate([x for _, x, _ in parts])
            if not np.array_equal(coalesce.sectors(b, other.nbytes, sb), sectors):
                break
            w.merge_store(j)
            more.append(b)
        return a if len(more) == 1 else np.concatenate(more)

    def _cache_address(self, space: str, a: np.ndarray, lanes: np.ndarray, w: Warp, nbytes: int) -> np.ndarray:
        """Where an access sits in the caches: global as it is; local interleaved by lane (word ``k`` of
        the 32 lanes of a warp are consecutive, as the hardware lays out local memory, in words of the
        access's width where it is wider than 4 bytes: a lane's float64 stays in one sector), each resident
        warp slot of each block in a region of its own."""
        if space != "local":
            return a
        a = a.astype(np.uint64)
        word, lanes_ = np.uint64(max(LOCAL_WORD_BYTES, nbytes)), np.uint64(WARP_LANES)
        base = LOCAL_BASE + (w.slot + self.spec.sm.max_warps * w.block.index) * self.local_bytes * WARP_LANES
        return np.uint64(base) + (a // word) * (word * lanes_) + lanes.astype(np.uint64) % lanes_ * word + a % word


def _written(trace: Any, sector_bytes: int, stores: np.ndarray) -> np.ndarray:
    """The global sectors a block's trace stores into, sorted (``stores``: per PTX instruction, whether it is
    a store)."""
    g = SPACE_NAMES.index("global")
    parts = []
    for w in trace.warps:
        if not len(w.mem_k):
            continue
        k = np.frombuffer(w.mem_k, np.int64)
        keep = (np.frombuffer(w.mem_space, np.int8) == g) & stores[np.asarray(w.pcs, np.int64)[k]]
        for lo, hi in zip(np.frombuffer(w.mem_lo, np.int64)[keep].tolist(),
                          np.frombuffer(w.mem_hi, np.int64)[keep].tolist()):
            parts.append(trace.addr[lo:hi])
    if not parts:
        return np.zeros(0, np.int64)
    return np.unique(np.concatenate(parts).astype(np.int64) // sector_bytes)


def _line_parts(mine: np.ndarray, theirs: list, per_line: int) -> tuple:
    """Of the lines a block has sectors of that no neighbour touches (``mine``: the sectors it touches, sorted;
    ``theirs``: its row neighbours' sectors, each sorted): how many, and the sum over them of the part of the
    line's touched sectors that are the block's (a line whose sectors it touches only where a neighbour does too,
    a halo, is theirs, not counted)."""
    other = np.unique(np.concatenate(theirs)) if theirs else mine[:0]
    lines = np.unique(np.setdiff1d(mine, other, assume_unique=True) // per_line)
    if not len(lines):
        return 0, 0.0
    every = np.union1d(mine, other)
    own = np.bincount(np.searchsorted(lines, mine[np.isin(mine // per_line, lines)] // per_line),
                      minlength=len(lines))
    both = np.bincount(np.searchsorted(lines, every[np.isin(every // per_line, lines)] // per_line),
                       minlength=len(lines))
    return len(lines), float((own / both).sum())


def _first_touch(trace: Any, sector_bytes: int, per: int, ordinal: bool = False) -> tuple:
    """The global sectors a block's trace touches, sorted, and the step (position in its warp's stream) at
    which a warp of it first touches each; ``per`` > 1: every sector of the ``per``-sector DRAM accesses
    touched, at the step their first sector is; ``ordinal``: the warp's global access (counted from 0) rather
    than its step, as :func:`isa.trace.global_sectors` counts them."""
    g = SPACE_NAMES.index("global")
    los, lens, ks = [], [], []
    for w in trace.warps:
        if not len(w.mem_k):
            continue
        glob = np.frombuffer(w.mem_space, np.int8) == g
        lo = np.frombuffer(w.mem_lo, np.int64)[glob]
        los.append(lo)
        lens.append(np.frombuffer(w.mem_hi, np.int64)[glob] - lo)
        ks.append(np.arange(int(glob.sum()), dtype=np.int64) if ordinal else np.frombuffer(w.mem_k, np.int64)[glob])
    n = int(sum(x.sum() for x in lens))
    if not n:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    lo, length, k = np.concatenate(los), np.concatenate(lens), np.concatenate(ks)
    # the addresses of every global part, one after another: part j's are lo[j] .. lo[j] + length[j] - 1
    idx = np.repeat(lo - (np.cumsum(length) - length), length) + np.arange(n)
    unit = sector_bytes * per                    # sectors, or DRAM accesses of ``per`` sectors
    key, step = trace.addr[idx].astype(np.int64) // unit, np.repeat(k, length)
    # an entry no earlier than the one before it for the same key adds nothing (a warp's lanes in one
    # sector): dropped before sorting
    keep = np.r_[True, (key[1:] != key[:-1]) | (step[1:] < step[:-1])]
    key, step = first_per_key(key[keep], step[keep])
    if per > 1:
        key = (key * per)[:, None] + np.arange(per)
        key, step = key.ravel(), np.repeat(step, per)
    return key, step

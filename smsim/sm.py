"""The SM: resident blocks, their warps, and what issuing an instruction does.

Life of a block: the block scheduler (:meth:`SM.start`) makes resident as many of the blocks to time as
the occupancy allows. A block runs on the functional interpreter when it is dispatched
(:func:`isa.trace.trace_blocks`, together with the next blocks to dispatch, up to ``TRACE_LANES`` lanes),
which gives each warp its instruction stream and the addresses of its
memory accesses; its warps, placed on sub-partition ``warp slot % 4``, then replay those streams against
the clock. When a block's last warp retires, the next block is dispatched in its place.

Life of an instruction (:meth:`SM.issue`, called by a sub-partition's scheduler at cycle ``t``): the
warp's waiting cycles are attributed (:meth:`smsim.warp.Warp.account`); then its timing effect: a
fixed-latency result is ready ``latency_cycles`` after the last issue slot and the pipe is busy
``issue_interval_cycles`` per slot; shared memory goes to :class:`~smsim.mem.shared.SharedMemory`;
global and local memory are coalesced and queued to :class:`~smsim.mem.l1.L1`, their destination
registers pending until the data returns; a branch holds the warp ``branch`` cycles; a barrier holds it
until its block's other warps arrive; a fence until its memory operations are done; ``exit`` retires it.
Given a ``recorder`` (:class:`smsim.warp.Timeline`), the SM makes :class:`~smsim.warp.RecordingWarp` warps.
"""
from __future__ import annotations

from collections import deque
from itertools import islice

import numpy as np

from isa.trace import SPACE_NAMES, op_infos, trace_blocks

from .fast import coalesce
from .scheduler import Clock, SubPartition
from .warp import BARRIER, BRANCH, LONG, R, SHORT, WAIT, RecordingWarp, Warp

_THROTTLE = {"fp32": R["math_pipe_throttle"], "fp64": R["math_pipe_throttle"], "int": R["math_pipe_throttle"],
             "sfu": R["math_pipe_throttle"], "sync": R["mio_throttle"], "branch": R["dispatch_stall"],
             "barrier": R["dispatch_stall"]}
_LG, _MIO = R["lg_throttle"], R["mio_throttle"]
_LATENCY_REASON = {"fixed": WAIT, "short_scoreboard": SHORT, "long_scoreboard": LONG, "control": WAIT}
TRACE_LANES = 4096        # lanes of consecutive blocks run functionally together
LOCAL_BASE = 1 << 56      # local memory's place in the cache's address space (above any global address)


class Block:
    """A resident block: its trace (:class:`isa.trace.BlockTrace`), its warps and its barrier."""

    def __init__(self, sm, index: int, trace, warps: list):
        self.sm, self.index, self.trace, self.warps = sm, index, trace, warps
        self.arrived: list = []
        self.op = None                    # the barrier instruction the arrived warps wait at
        self.running = len(warps)

    def arrive(self, warp, op, t: float) -> None:
        warp.at_barrier = True
        self.arrived.append(warp)
        self.op = op
        self._maybe_release(t)

    def _maybe_release(self, t: float) -> None:
        if not self.arrived or len(self.arrived) < self.running:
            return
        arrived, self.arrived = self.arrived, []
        release = t + self.sm.spec.pipes.barrier.latency_cycles
        for w in arrived:
            w.at_barrier = False
            w.fetch_at, w.fetch_reason = release, BARRIER
            for r in self.sm.infos[self.op.index].dsts:
                w.reg_ready[r], w.reg_reason[r] = release, BARRIER
            w.refresh()
            self.sm.clock.poke()

    def warp_done(self, t: float) -> None:
        self.running -= 1
        if self.running:
            self._maybe_release(t)
        else:
            self.sm.block_retired(self, t)


class SM:
    """One SM: sub-partitions, resident blocks, and the memory units ``shared`` and ``l1``."""

    def __init__(self, env, spec, launch, blocks: list, blocks_per_sm: int, shared, l1, stats, recorder=None):
        self.env, self.spec, self.launch, self.stats = env, spec, launch, stats
        self.recorder = recorder
        self.shared, self.l1 = shared, l1
        self.pending = deque(blocks)
        self.blocks_per_sm = blocks_per_sm
        self.infos = op_infos(launch.prog)
        self.nregs = len(launch.prog.reg_dtypes)
        self.warps_per_block = -(-launch.threads_per_block // 32)
        self.free_slots = list(range(spec.sm.max_warps))
        self.subs = [SubPartition(self, i, spec.scheduler) for i in range(spec.sm.subpartitions)]
        self.clock = Clock(env, self.subs)
        self.resident = 0
        self.local_bytes = max(launch.prog.local_bytes, 4)
        self.traces: dict = {}            # blocks run ahead of their dispatch
        pipes = spec.pipes
        self.throttle = {u: _THROTTLE.get(u, _MIO) for u in {i.unit for i in self.infos}}
        self.execs = [self._exec(i, getattr(pipes, i.unit, None)) for i in self.infos]
        self.branch_latency = pipes.branch.latency_cycles

    @staticmethod
    def _exec(info, pipe) -> tuple:
        """A non-memory instruction's (pipe issue interval per slot, result latency, scoreboard reason)."""
        reason = _LATENCY_REASON[info.latency]
        if pipe is None:
            return 0, 0, reason
        return pipe.issue_interval_cycles, pipe.latency_cycles, reason

    # ------------------------------------------------------------------ blocks
    def start(self) -> None:
        while self.pending and self.resident < self.blocks_per_sm:
            self._dispatch(self.pending.popleft(), self.env.now)

    def _dispatch(self, b: int, t: float) -> None:
        trace = self._trace(b)
        warps = []
        block = Block(self, b, trace, warps)
        for wt in trace.warps:
            slot = self.free_slots.pop(0)
            args = (wt, block, slot, slot % len(self.subs), self.nregs, t, self.stats.stalls)
            w = Warp(*args) if self.recorder is None else RecordingWarp(self.recorder, *args)
            warps.append(w)
            w.info = self.infos[wt.pcs[0]]
            w.refresh()
            self.subs[w.sp].add(w)
        block.running = len(warps)
        self.resident += 1
        if not block.running:
            self.block_retired(block, t)

    def _trace(self, b: int):
        """Block ``b``'s trace; the next pending blocks are run with it (up to TRACE_LANES lanes)."""
        trace = self.traces.pop(b, None)
        if trace is not None:
            return trace
        limit = max(1, TRACE_LANES // (32 * self.warps_per_block))
        traces = trace_blocks(self.launch, [b] + list(islice(self.pending, limit - 1)))
        for tr in traces[1:]:
            self.traces[tr.index] = tr
        return traces[0]

    def block_retired(self, block: Block, t: float) -> None:
        self.resident -= 1
        self.stats.blocks_done += 1
        if self.pending:
            self._dispatch(self.pending.popleft(), t)

    # ------------------------------------------------------------------ issue
    def mem_blocked(self, w: Warp, sub: SubPartition, t: float):
        """None if ``w``'s next instruction, a memory one, can issue at ``t``; else until when."""
        space = w.info.space
        if space == "shared":
            if self.shared.full(sub.index, t):
                w.block_on(t + 1, _MIO)
                return self.shared.next_free(sub.index)
        elif space not in ("param", "const"):
            room = self.l1.space_at(t)
            if room > t:
                w.block_on(room, _LG)
                return room
        return None

    def issue(self, w: Warp, sub: SubPartition, t: float) -> int:
        """Issue ``w``'s next instruction at ``t``; the issue slots it takes."""
        info = w.info
        slots = info.cost
        pc = info.op.index
        w.account(t, slots, pc)
        self.stats.inst[pc] += 1
        if info.mem:
            self._memory(w, sub, info, t)
        elif info.barrier:
            w.block.arrive(w, info.op, t)
        else:
            span = slots if slots > 1 else 1
            interval, latency, reason = self.execs[pc]
            if interval:
                sub.pipe_free[info.unit] = t + interval * span
            ready = t + span - 1 + latency
            rr, why = w.reg_ready, w.reg_reason
            for r in info.dsts:
                rr[r], why[r] = ready, reason
            if info.branch:
                w.fetch_at, w.fetch_reason = t + span + self.branch_latency, BRANCH
        w.k += 1
        if w.k < len(w.pcs):
            w.info = self.infos[w.pcs[w.k]]
            w.refresh()
        else:
            w.info = None
            self._exit(w, t + (slots if slots > 1 else 1), pc)
        return slots

    def _exit(self, w: Warp, t: float, pc: int) -> None:
        w.free_at = max(w.free_at, t)
        self.subs[w.sp].remove(w)
        end = max(t, w.mem_done)
        if end <= t:
            self._retire(w, t, pc)
            return
        ev = self.env.timeout(end - self.env.now)    # retires when its memory operations are done (drain)
        ev.callbacks.append(lambda _e: self._retire(w, end, pc))

    def _retire(self, w: Warp, t: float, pc: int) -> None:
        w.retire(t, pc)
        self.free_slots.append(w.slot)
        self.free_slots.sort()
        self.stats.warp_done(w)
        w.block.warp_done(w.end)

    # ------------------------------------------------------------------ memory
    def _memory(self, w: Warp, sub: SubPartition, info, t: float) -> None:
        kind = {"ld": "ld", "st": "st"}.get(info.mem, "atom")
        pc = info.op.index
        parts = self._parts(w)
        shared_ready = t
        far = []
        for space, a, lanes in parts:
            if space == "shared":
                shared_ready, n, conflicts = self.shared.access(sub.index, kind, a, lanes, info.nbytes, t)
                self.stats.wavefronts[pc] += n
                self.stats.conflicts[pc] += conflicts
            elif space in ("global", "local"):
                far.append(self._cache_address(space, a, lanes, w))
            else:                          # param / const: the constant cache
                shared_ready = t + (0 if space == "param" else self.spec.shared.latency_cycles)
        if kind != "st":
            for r in info.dsts:
                w.reg_ready[r], w.reg_reason[r] = shared_ready, SHORT
        if not far:
            return
        space = "local" if all(s == "local" for s, _, _ in parts if s in ("global", "local")) else "global"
        a = far[0] if len(far) == 1 else np.concatenate(far)
        sectors = coalesce.sectors(a, info.nbytes)
        nlines = coalesce.lines_of(sectors, self.spec.l1.line_bytes // self.spec.l1.sector_bytes)
        self.stats.sectors[pc] += len(sectors)
        bypass = info.cache_op == "cg" or kind == "atom"
        done = max(self.l1.access(kind, space, sectors, nlines, bypass, len(a), t), shared_ready)
        if done > w.mem_done:
            w.mem_done = done
        if kind == "st":
            if done > w.last_store:
                w.last_store = done
        else:
            for r in info.dsts:
                w.reg_ready[r], w.reg_reason[r] = done, LONG

    @staticmethod
    def _parts(w: Warp) -> list:
        """The memory parts of ``w``'s current instruction: ``[(space, addresses, lanes)]``, one per state
        space it touched (none if no lane was active)."""
        tr, blk, c, parts = w.trace, w.block.trace, w.cursor, []
        mk, n = tr.mem_k, len(tr.mem_k)
        while c < n and mk[c] == w.k:
            lo, hi = tr.mem_lo[c], tr.mem_hi[c]
            parts.append((SPACE_NAMES[tr.mem_space[c]], blk.addr[lo:hi], blk.lanes[lo:hi]))
            c += 1
        w.cursor = c
        return parts

    def _cache_address(self, space: str, a: np.ndarray, lanes: np.ndarray, w: Warp) -> np.ndarray:
        """Where an access sits in the caches: global as it is; local interleaved by lane (word ``k`` of
        the 32 lanes of a warp are consecutive, as the hardware lays out local memory)."""
        if space != "local":
            return a
        a = a.astype(np.uint64)
        base = LOCAL_BASE + (w.slot + 64 * w.block.index) * self.local_bytes * 32
        return (np.uint64(base) + (a // np.uint64(4)) * np.uint64(128) + lanes.astype(np.uint64) % np.uint64(32)
                * np.uint64(4) + a % np.uint64(4))

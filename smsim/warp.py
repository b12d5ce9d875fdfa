"""A resident warp's timing state: its scoreboard and where its cycles went.

Life of a warp: the SM dispatches it with its block; it is then, at every cycle until it retires, in one
of the states Nsight Compute names (:data:`REASONS`). Rather than visiting every warp every cycle, a warp
keeps the cycle it could issue its next instruction (:attr:`Warp.ready_at`, the latest of its source
and destination registers' ready cycles, a branch's resolution, a barrier's release, a fence's drain)
and the reason that cycle is what it is (``long_scoreboard`` for a register a global/local load will
write, ``short_scoreboard`` for shared memory/SFU/shuffle results, ``wait`` for a fixed-latency result,
``branch_resolving``, ``barrier``, ``membar``). When the warp issues at cycle ``t`` (:meth:`Warp.account`),
the cycles since its previous issue are split: up to ``ready_at`` that reason; then, while a pipe or
queue it needed was busy, the throttle reason the scheduler noted (``math_pipe_throttle``,
``mio_throttle``, ``lg_throttle``); the rest ``not_selected``; and ``selected`` for its issue slots.
After ``exit`` a warp with stores in flight stays resident as ``drain``.

Recording (``smsim.launch(..., timeline=True)``): the SM then makes :class:`RecordingWarp` warps, which
split their cycles exactly as :class:`Warp` does and also hand each piece, as an interval of cycles in one
state, to a :class:`Timeline`; the memory queues hand it their transfers (:class:`smsim.mem.queue.
LoggedQueue`). Plain warps and queues carry no recording code, so a launch without a timeline pays nothing.
"""
from __future__ import annotations

import math

import numpy as np


REASONS = ("selected", "not_selected", "long_scoreboard", "short_scoreboard", "wait", "barrier", "mio_throttle",
           "lg_throttle", "math_pipe_throttle", "branch_resolving", "no_instruction", "drain", "membar",
           "dispatch_stall")
R = {name: i for i, name in enumerate(REASONS)}
SELECTED, NOT_SELECTED, LONG, SHORT, WAIT, BARRIER = 0, 1, 2, 3, 4, 5
BRANCH, DRAIN, MEMBAR = R["branch_resolving"], R["drain"], R["membar"]
INF = math.inf


class Warp:
    """Timing state of one resident warp of ``block``, replaying its trace (:class:`isa.trace.WarpTrace`:
    its instruction stream ``pcs``, ``k`` the next one; its memory accesses, ``cursor`` the next one)."""
    __slots__ = ("trace", "pcs", "k", "cursor", "index", "block", "slot", "sp", "reg_ready", "reg_reason", "fetch_at",
                 "fetch_reason", "ready_at", "reason", "free_at", "blocked_until", "blocked_reason", "info",
                 "mem_done", "last_store", "at_barrier", "done", "start", "end", "stalls")

    def __init__(self, trace, block, slot: int, sp: int, nregs: int, t: float, stalls: list):
        self.trace, self.index, self.pcs, self.k, self.cursor = trace, trace.index, trace.pcs, 0, 0
        self.block, self.slot, self.sp = block, slot, sp
        self.reg_ready = [0.0] * nregs
        self.reg_reason = [WAIT] * nregs
        self.fetch_at, self.fetch_reason = t, R["no_instruction"]
        self.ready_at, self.reason = t, WAIT
        self.free_at = self.start = t
        self.blocked_until, self.blocked_reason = t, NOT_SELECTED
        self.info = None
        self.mem_done = t           # when its global/local memory instructions in flight are done
        self.last_store = t         # when its last store is done (drain)
        self.at_barrier = False
        self.done = False
        self.end = t
        self.stalls = stalls        # per-pc stall cycles, shared by all warps: [pc, reason]

    def refresh(self) -> None:
        """Recompute :attr:`ready_at` and :attr:`reason` for the next instruction."""
        t, reason = self.fetch_at, self.fetch_reason
        if self.at_barrier:
            t, reason = INF, BARRIER
        info = self.info
        if info is not None:
            rr, why = self.reg_ready, self.reg_reason
            for r in info.srcs:
                if rr[r] > t:
                    t, reason = rr[r], why[r]
            for r in info.dsts:
                if rr[r] > t:
                    t, reason = rr[r], why[r]
            if info.fence and self.mem_done > t:
                t, reason = self.mem_done, MEMBAR
        self.ready_at, self.reason = t, reason

    def block_on(self, until: float, reason: int) -> None:
        """The scheduler found the warp ready but its pipe/queue busy (until ``until``, if known)."""
        if until > self.blocked_until:
            self.blocked_until, self.blocked_reason = until, reason

    def account(self, t: float, slots: int, pc: int) -> None:
        """Attribute the cycles since the previous issue, issuing at ``t`` for ``slots`` cycles."""
        row = self.stalls[pc]
        start = self.free_at
        dep = self.ready_at                      # min(max(ready_at, start), t)
        if dep > t:
            dep = t
        if dep > start:
            row[self.reason] += dep - start
        else:
            dep = start
        blocked = self.blocked_until             # min(max(blocked_until, dep), t)
        if blocked > t:
            blocked = t
        if blocked > dep:
            row[self.blocked_reason] += blocked - dep
        else:
            blocked = dep
        if t > blocked:
            row[NOT_SELECTED] += t - blocked
        row[SELECTED] += slots
        self.free_at = t + slots
        self.blocked_until, self.blocked_reason = self.free_at, NOT_SELECTED

    def retire(self, t: float, pc: int) -> None:
        """The warp has exited at ``t``; it leaves once its stores are done (``drain``)."""
        self.done = True
        end = max(t, self.free_at, self.last_store)
        if end > self.free_at:
            self.stalls[pc][DRAIN] += end - self.free_at
        self.end = end


class RecordingWarp(Warp):
    """A :class:`Warp` that also records each state interval it attributes into ``rec`` (a :class:`Timeline`)."""
    __slots__ = ("rec", "last")

    def __init__(self, rec, *args):
        super().__init__(*args)
        self.rec, self.last = rec, -1       # ``last``: index of its latest interval in ``rec``

    def account(self, t: float, slots: int, pc: int) -> None:
        start, rec = self.free_at, self.rec
        dep = self.ready_at if self.ready_at < t else t          # the same split as Warp.account
        if dep < start:
            dep = start
        blocked = self.blocked_until if self.blocked_until < t else t
        if blocked < dep:
            blocked = dep
        rec.interval(self, start, dep, self.reason)
        rec.interval(self, dep, blocked, self.blocked_reason)
        rec.interval(self, blocked, t, NOT_SELECTED)
        rec.interval(self, t, t + slots, SELECTED)
        super().account(t, slots, pc)

    def retire(self, t: float, pc: int) -> None:
        free = self.free_at
        super().retire(t, pc)
        self.rec.interval(self, free, self.end, DRAIN)


class Timeline:
    """What a recorded launch did over time: each warp's state intervals (consecutive intervals of one
    state merged) and each memory level's transfers (``logs``: level -> list of ``(cycle, bytes)``)."""

    COLUMNS = ("slot", "block", "warp", "start", "end", "state")

    def __init__(self):
        self.rows = {c: [] for c in self.COLUMNS}
        self.logs: dict = {}

    def interval(self, w: RecordingWarp, a: float, b: float, state: int) -> None:
        """Warp ``w`` spent cycles ``[a, b)`` in ``state`` (nothing if empty)."""
        if b <= a:
            return
        rows, i = self.rows, w.last
        if i >= 0 and rows["state"][i] == state and rows["end"][i] == a:
            rows["end"][i] = b
            return
        for key, v in zip(self.COLUMNS, (w.slot, w.block.index, w.index, a, b, state)):
            rows[key].append(v)
        w.last = len(rows["state"]) - 1

    def log(self, level: str) -> list:
        """The transfer log of ``level`` (a new, empty one the first time)."""
        return self.logs.setdefault(level, [])

    def arrays(self) -> dict:
        """``{"warps": {column: array}, "transfers": {level: {"t", "bytes"}}}``, intervals sorted by warp
        block, warp and start."""
        r = self.rows
        warps = {k: np.array(r[k], dtype=float if k in ("start", "end") else np.int64) for k in self.COLUMNS}
        order = np.lexsort((warps["start"], warps["warp"], warps["block"]))
        warps = {k: v[order] for k, v in warps.items()}
        transfers = {}
        for level, log in self.logs.items():
            a = np.array(log, dtype=float).reshape(-1, 2)
            transfers[level] = {"t": a[:, 0], "bytes": a[:, 1].astype(np.int64)}
        return {"warps": warps, "transfers": transfers}

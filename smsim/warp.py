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
"""
from __future__ import annotations

import math


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

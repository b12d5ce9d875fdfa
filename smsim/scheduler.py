"""Warp schedulers: one per sub-partition, each issuing at most one warp-instruction per cycle.

Life of a cycle: the SM's clock (:class:`Clock`, one SimPy process) runs each sub-partition, which asks its
policy for the order in which to consider its resident warps (:mod:`smsim.policies`: ``oldest_block``, ``lrr``, ``gto``,
``two_level``, chosen by ``scheduler.policy``), and issues the first warp whose next instruction is ready
(:attr:`Warp.ready_at`) and whose pipe or queue has room (its sub-partition's pipes, the register-file banks
a SASS instruction reads (:mod:`smsim.sass_stream`), or the SM's memory queues,
:meth:`smsim.sm.SM.mem_blocked`; a warp held up there is noted as throttled, :meth:`smsim.warp.Warp.block_on`).
Issuing takes as many cycles as the instruction's issue slots (0 for
``ld.param`` and ``cvta``, 2-3 for 64-bit integer arithmetic in the PTX stream), or, for a SASS 64-bit
integer product, as long as it holds the sub-partition's dispatch (:meth:`SubPartition.hold`: the other
warps wait as ``dispatch_stall``); then the scheduler looks again. A
scheduler that finds nothing to issue remembers the earliest cycle one of its warps could
(:attr:`SubPartition.idle_until`: every ready time is known in advance, memory results included) and is
not asked again before then unless the clock is poked (a barrier release, a new block). The clock steps
straight to the next cycle any scheduler may issue in: idle cycles cost neither events nor scans.

Within a cycle the sub-partitions look in turn from :attr:`Clock.lead`, the one after the last whose warp took
an entry of the SM's LSU queue that warps were waiting for (:meth:`smsim.sm.SM.mem_blocked`): when the queue
is backed up, its entries go to the sub-partitions round-robin, so their global stores reach L1 interleaved
(``docs/hardware/store_resident_hw.md``: a warp's two 32-sector stores back to back reach L2 as one write at
one warp an SM and not at two warps a sub-partition, whose others' stores come between, ``l1.cross_merge_window``;
with sub-partition 0 always first, one sub-partition's warps took every free entry while the others waited).
"""
from __future__ import annotations

import math
from collections import defaultdict
from typing import Any

from .contracts import SchedulerPolicy
from .warp import DISPATCH, INF, Warp


class SubPartition:
    """One warp scheduler of ``sm``: its resident warps, its ``policy`` (built for it by the builder),
    its dispatch pipes' next-free cycles and the cycle its current instruction's issue slots end."""

    def __init__(self, sm: Any, index: int, policy: SchedulerPolicy):
        self.sm, self.index = sm, index
        self.policy = policy
        self.warps: list = []            # resident warps, oldest first
        self.pipe_free: dict = defaultdict(float)     # each pipe's next free cycle (0.0: free from the start)
        self.pipe_held: dict = defaultdict(float)     # cycles each pipe was busy after its issues (the waiting
                                                      # warps' throttle)
        self.busy_until = 0.0
        self.idle_until = 0.0            # no warp can issue before then, unless the clock is poked

    def book(self, unit: str, t: float, interval: float, span: int = 1) -> None:
        """An instruction of ``span`` issue slots went to pipe ``unit`` at ``t``: the pipe is busy until
        ``t + interval * span``, ``(interval - 1) * span`` cycles past its issue slots (in which the warps
        waiting on it are throttled, :meth:`Warp.account`)."""
        self.pipe_free[unit] = t + interval * span
        self.pipe_held[unit] += (interval - 1) * span

    def hold(self, issuer: Warp, t: float, cycles: float) -> None:
        """``issuer``'s instruction, issued at ``t``, holds this sub-partition's dispatch ``cycles``: no
        other warp issues before ``t + cycles``, and those that could are ``dispatch_stall`` meanwhile."""
        until = t + cycles
        for w in self.warps:                  # Warp.block_on(until, DISPATCH), inline
            if w is not issuer and until > w.blocked_until:
                w.blocked_until, w.blocked_reason = until, DISPATCH

    def add(self, warp: Warp) -> None:
        """A warp becomes resident here (the clock looks again)."""
        self.warps.append(warp)
        self.sm.clock.poke()

    def remove(self, warp: Warp) -> None:
        """A warp has exited."""
        self.warps.remove(warp)

    def cycle(self, t: float) -> float:
        """Issue what can issue at ``t`` (instructions of no issue slots do not end the cycle); the next
        cycle at which this scheduler may have something to do."""
        if self.busy_until > t:
            return self.busy_until
        if self.idle_until > t:
            return self.idle_until
        while True:
            warp, wake = self.select(t)
            if warp is None:
                self.idle_until = wake
                return wake
            self.policy.issued(self.warps, warp)
            slots = self.sm.issue(warp, self, t)
            if slots:
                self.busy_until = t + slots
                return self.busy_until

    def select(self, t: float) -> tuple:
        """(the warp to issue at ``t`` or None, the earliest cycle another might become ready)."""
        wake = INF
        pipe_free, throttle, mem_blocked = self.pipe_free, self.sm.throttle, self.sm.mem_blocked
        for w in self.policy.order(self.warps, t):
            ready = w.ready_at
            if ready > t:
                if ready < wake:
                    wake = ready
                continue
            info = w.info
            if info.mem:
                until = mem_blocked(w, self, t)
                if until is None:
                    return w, wake
            else:
                unit = info.unit
                until = pipe_free[unit]
                rf = info.rf
                if rf:
                    for bank in rf:                     # the register-file banks it reads (SASS)
                        u = pipe_free[bank]
                        if u > until:
                            until, unit = u, bank
                if until <= t:
                    return w, wake
                if until > w.blocked_until:             # ready, but its pipe (or a bank) is busy:
                    if w.pipe_mark is None:             # Warp.block_on(until, its throttle, (self, unit), t),
                        w.pipe_mark = (self, unit, self.pipe_held[unit] - (until - t))    # inline
                    w.blocked_until = until
                    w.blocked_reason = throttle[unit if info.unit != "fp64" else "fp64"]
            if until < wake:
                wake = until
        for w in self.policy.parked:
            if w.ready_at < wake:
                wake = w.ready_at
        return None, wake


class Clock:
    """The SM's issue clock: one SimPy process that runs the sub-partitions' schedulers each cycle in
    which one of them may issue. While nothing else is scheduled before that cycle it steps there itself
    (no event); otherwise it sleeps until the earliest such cycle or until woken (:meth:`poke`: a warp
    retired after draining, a new block). A poke while it runs (a barrier released by an issue) makes it
    look again at the next cycle."""

    def __init__(self, env: Any, subs: list):
        self.env, self.subs = env, subs
        self.wake = None          # the event a sleeping clock waits on
        self.kicked = False
        self.t = 0                # the cycle it is at (SimPy's clock lags it while it steps on its own)
        self.lead = 0             # the sub-partition that looks first in a cycle
        self.orders = [subs[k:] + subs[:k] for k in range(len(subs))]   # the sub-partitions from each lead
        env.process(self.run())

    def poke(self) -> None:
        """Something changed outside an issue (a barrier released, a warp retired, a block arrived): every
        scheduler looks again, from the next cycle the clock runs."""
        for sub in self.subs:               # a warp's state changed outside its scheduler's issue
            sub.idle_until = 0.0
        wake = self.wake
        if wake is None:
            self.kicked = True
        elif not wake.triggered:
            wake.succeed()

    def _alarm(self, event) -> None:
        if event.wake is self.wake:
            self.poke()

    def run(self) -> Any:
        """The SimPy process (started by the constructor)."""
        env, orders = self.env, self.orders
        t = env.now
        while True:
            self.t = t
            self.kicked = False
            nxt = INF
            for sub in orders[self.lead]:
                n = sub.cycle(t)
                if n < nxt:
                    nxt = n
            if nxt <= t + 1 or self.kicked:
                nxt = t + 1
            elif nxt < INF:
                nxt = math.ceil(nxt)
            if nxt < env.peek():              # nothing else happens before then: step there directly
                t = nxt
                continue
            self.wake = env.event()
            if nxt < INF:
                alarm = env.timeout(nxt - env.now)
                alarm.wake = self.wake
                alarm.callbacks.append(self._alarm)
            yield self.wake
            self.wake = None
            t = math.ceil(env.now)
            if env.now != t:                  # woken between cycles: issue from the next one
                yield env.timeout(t - env.now)

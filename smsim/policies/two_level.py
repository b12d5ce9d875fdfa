"""Two-level scheduling (``scheduler.policy = "two_level"``; Narasiman et al., MICRO 2011):
greedy-then-oldest among an active set of ``scheduler.two_level_active`` warps; a warp waiting on a
long-latency load leaves the set for the oldest pending warp."""
from __future__ import annotations

from typing import Any, Iterable

from ..config import SchedulerSpec
from ..registry import SCHEDULER_POLICIES
from ..warp import LONG
from .gto import GreedyThenOldest


@SCHEDULER_POLICIES.register("two_level")
class TwoLevel:
    """Greedy-then-oldest within an active set; the other warps are parked."""

    def __init__(self, spec: SchedulerSpec):
        self.size = spec.two_level_active
        self.active: list = []
        self.parked: list = []
        self.gto = GreedyThenOldest(spec)

    def order(self, warps: list, t: float) -> Iterable:
        """Refresh the active set at ``t`` (drop warps waiting on a long-latency load while others wait,
        fill it with the oldest ready warps), then order it greedy-then-oldest."""
        active = [w for w in self.active if w.info is not None]
        for w in list(active):
            if w.reason == LONG and w.ready_at > t and len(warps) > self.size:
                active.remove(w)
        for w in warps:
            if len(active) >= self.size:
                break
            if w not in active and not (w.reason == LONG and w.ready_at > t):
                active.append(w)
        self.active = active
        self.parked = [w for w in warps if w not in active]
        return self.gto.order(active, t)

    def issued(self, warps: list, w: Any) -> None:
        """Stay with ``w`` (greedy)."""
        self.gto.issued(warps, w)

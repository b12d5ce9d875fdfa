"""Loose round-robin (``scheduler.policy = "lrr"``): the warps in turn, starting after the one that issued
last (as Accel-Sim's Volta-Hopper configs)."""
from __future__ import annotations

from typing import Any

from ..config import SchedulerSpec
from ..registry import SCHEDULER_POLICIES


@SCHEDULER_POLICIES.register("lrr")
class LooseRoundRobin:
    """Warps in turn, starting after the one that issued last."""
    parked = ()                # warps the policy keeps from issuing for now (their readiness still wakes it)

    def __init__(self, spec: SchedulerSpec):
        self.last = -1

    def order(self, warps: list, t: float) -> list:
        """``warps`` rotated to start after the last one issued."""
        n = len(warps)
        if n < 2:
            return warps
        k = (self.last + 1) % n
        return warps[k:] + warps[:k]

    def issued(self, warps: list, w: Any) -> None:
        """Remember where ``w`` stands, to start after it next time."""
        self.last = warps.index(w)

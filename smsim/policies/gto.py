"""Greedy-then-oldest (``scheduler.policy = "gto"``; Rogers et al., MICRO 2012): the warp that issued last,
as long as it can; then the oldest."""
from __future__ import annotations

from itertools import chain
from typing import Any, Iterable

from ..config import SchedulerSpec
from ..registry import SCHEDULER_POLICIES


@SCHEDULER_POLICIES.register("gto")
class GreedyThenOldest:
    """The warp that issued last, as long as it can; then the oldest."""
    parked = ()

    def __init__(self, spec: SchedulerSpec):
        self.last = None

    def order(self, warps: list, t: float) -> Iterable:
        """The last warp issued first (if it has not retired), then ``warps`` oldest first."""
        last = self.last
        if last is None or last.info is None or len(warps) < 2 or warps[0] is last:
            return warps
        return chain((last,), warps)

    def issued(self, warps: list, w: Any) -> None:
        """Stay with ``w``."""
        self.last = w

"""Warp scheduling policies, one per module, each registered in :data:`smsim.registry.SCHEDULER_POLICIES`
under the name ``scheduler.policy`` takes. A policy only orders a sub-partition's warps: the scheduler
(:class:`smsim.scheduler.SubPartition`) issues the first one that can issue. Adding a policy is one module
here (a class with ``parked``, ``order`` and ``issued``, see :class:`smsim.contracts.SchedulerPolicy`,
decorated with ``@SCHEDULER_POLICIES.register("name")``) plus one import line below
(``docs/contributing.md``)."""
from __future__ import annotations

from . import gto, lrr, oldest_block, two_level  # noqa: F401  (each registers its policy on import)

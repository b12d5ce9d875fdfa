"""Special registers: reads of ``%tid``, ``%ctaid`` and their kin (SASS ``S2R`` into a register, ``S2UR``
into a uniform one), and the SM's one unit that serves ``S2UR``.

Life of a read (SASS stream only: :meth:`smsim.sm.SM._issue_sass`): a warp issues ``S2R`` at cycle ``t``; its
result is written ``special.latency_cycles`` later (its variable latency, :func:`smsim.sass_stream.infos`),
and the instruction that reads it waits on its scoreboard (``short_scoreboard``); many warps reading at once
do not slow one another. An ``S2UR`` waits in
its sub-partition's MIO queue (``shared.mio_queue`` entries, as the MIO instructions' queue holds) for the
SM's one uniform special-register unit (:class:`SpecialRegisters`), which starts a read every
``special.uniform_interval_cycles`` whichever sub-partition it came from, in the order they came; its
result is written ``special.uniform_latency_cycles`` after the unit starts it. A warp whose sub-partition's
queue is full cannot issue its ``S2UR`` (``mio_throttle``) until the oldest read there starts
(:meth:`SpecialRegisters.room_at`).

Measured on an H200 (``docs/hardware/validate_hw.json``, test size; warp-cycles of each warp, from Nsight's
stall ratios times the instructions a warp issues): a copy's warp, whose first index arithmetic waits on an
``S2R`` issued four cycles before, stalls ``short_scoreboard`` 18-21 cycles (smsim with ``S2R`` as a
4-cycle ALU instruction: none), alike with one warp an SM (``coalescing.copy_stride1``) and with 31
starting at once (``streams.copy``: 62 reads); an empty kernel's, whose ``LOP3`` waits on an ``S2R`` and an
``S2UR`` issued 7 cycles later, 33 cycles with 4 warps an SM, but 65 (and 33 ``mio_throttle``) when 32
warps start at once (``streams.empty_1block1024``: 32 ``S2UR``).
"""
from __future__ import annotations

from .config import SpecialSpec
from .mem.queue import room_at


class SpecialRegisters:
    """The SM's uniform special-register unit (``spec``: :class:`smsim.config.SpecialSpec`) and the
    ``subpartitions`` sub-partitions' queues of reads waiting for it (``queue`` entries each)."""

    def __init__(self, spec: SpecialSpec, subpartitions: int, queue: int):
        self.spec, self.queue = spec, queue
        self.free = 0.0                   # the cycle the unit can start its next read
        self.waiting: list[list] = [[] for _ in range(subpartitions)]   # start cycles of each one's queued reads

    def read(self, sp: int, t: float) -> float:
        """An ``S2UR`` issued by sub-partition ``sp`` at ``t``: the cycle its result is written."""
        start = t if t > self.free else self.free
        self.free = start + self.spec.uniform_interval_cycles
        self.waiting[sp].append(start)
        return start + self.spec.uniform_latency_cycles

    def room_at(self, sp: int, t: float) -> float:
        """The first cycle from ``t`` at which sub-partition ``sp``'s queue has room for another read."""
        return room_at(self.waiting[sp], self.queue, t)

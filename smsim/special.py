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


class SerialUnit:
    """One unit of the SM that starts a piece of work every ``interval`` cycles, whichever of its
    ``subpartitions`` sub-partitions it came from, in the order they came; the instructions waiting for it hold
    entries of their sub-partition's MIO queue (``queue`` entries each): the uniform special-register unit
    (:class:`SpecialRegisters`) and the constant cache's port for indexed loads (``SM.const_port``,
    :meth:`smsim.sm.SM._const_load`)."""

    def __init__(self, interval: float, latency: float, subpartitions: int, queue: int):
        self.interval, self.latency, self.queue = interval, latency, queue
        self.free = 0.0                   # the cycle the unit can start its next piece of work
        self.waiting: list[list] = [[] for _ in range(subpartitions)]   # start cycles of each one's queued work

    def take(self, sp: int, t: float, pieces: int = 1, extra: float = 0.0) -> float:
        """An instruction of ``pieces`` pieces of work issued by sub-partition ``sp`` at ``t``: the unit starts it
        when free and is busy ``pieces x interval``; the cycle its result is written (``latency + extra`` after
        its start)."""
        start = t if t > self.free else self.free
        self.free = start + pieces * self.interval
        self.waiting[sp].append(start)
        return start + self.latency + extra

    def room_at(self, sp: int, t: float) -> float:
        """The first cycle from ``t`` at which sub-partition ``sp``'s queue has room for another instruction."""
        return room_at(self.waiting[sp], self.queue, t)


class SpecialRegisters(SerialUnit):
    """The SM's uniform special-register unit (``spec``: :class:`smsim.config.SpecialSpec`) and the
    ``subpartitions`` sub-partitions' queues of reads waiting for it (``queue`` entries each)."""

    def __init__(self, spec: SpecialSpec, subpartitions: int, queue: int):
        super().__init__(spec.uniform_interval_cycles, spec.uniform_latency_cycles, subpartitions, queue)

    def read(self, sp: int, t: float) -> float:
        """An ``S2UR`` issued by sub-partition ``sp`` at ``t``: the cycle its result is written."""
        return self.take(sp, t)

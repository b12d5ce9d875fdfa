"""A bandwidth queue: a first-come first-served server that moves a fixed number of bytes per cycle.

Life of a transfer: it arrives at cycle ``t`` with ``nbytes``; it starts when the server is free
(``max(t, free)``), occupies it for ``nbytes / bytes_per_cycle`` cycles and is done then. This is the
exact discrete-event result for a FIFO queue with deterministic service (Lindley's recursion), computed
when the transfer is enqueued rather than with one simulation event per byte or per sector: the memory
levels below L1 use it, so a streaming kernel's millions of sectors cost no events of their own. The
server keeps the bytes it moved and the cycles it was busy, for bandwidth metrics. A launch recorded with
``timeline=True`` uses :class:`LoggedQueue`, which also logs each transfer's start cycle and bytes.
"""
from __future__ import annotations


class BandwidthQueue:
    """FIFO server of ``bytes_per_cycle``."""

    def __init__(self, bytes_per_cycle: float):
        if bytes_per_cycle <= 0:
            raise ValueError(f"bytes_per_cycle must be positive, got {bytes_per_cycle}")
        self.rate = float(bytes_per_cycle)
        self.free = 0.0          # cycle at which the server finishes what it has queued
        self.bytes: float = 0     # bytes moved (a DRAM write counts its turnaround too)
        self.busy = 0.0

    def transfer(self, t: float, nbytes: float) -> tuple:
        """Enqueue ``nbytes`` arriving at ``t``: ``(start, done)`` cycles."""
        start = t if t > self.free else self.free
        service = nbytes / self.rate
        self.free = start + service
        self.bytes += nbytes
        self.busy += service
        return start, self.free

    def backlog(self, t: float) -> float:
        """Cycles of queued work ahead of a transfer arriving at ``t``."""
        return self.free - t if self.free > t else 0.0


class LoggedQueue(BandwidthQueue):
    """A :class:`BandwidthQueue` that appends ``(start cycle, bytes)`` of each transfer to ``log``."""

    def __init__(self, bytes_per_cycle: float, log: list):
        super().__init__(bytes_per_cycle)
        self.log = log

    def transfer(self, t: float, nbytes: float) -> tuple:
        start, done = super().transfer(t, nbytes)
        self.log.append((start, nbytes))
        return start, done

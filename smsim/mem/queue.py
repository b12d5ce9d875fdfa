"""A bandwidth queue: a first-come first-served server that moves a fixed number of bytes per cycle.

Life of a transfer: it arrives at cycle ``t`` with ``nbytes``; it starts when the server is free
(``max(t, free)``), occupies it for ``nbytes / bytes_per_cycle`` cycles and is done then. This is the
exact discrete-event result for a FIFO queue with deterministic service (Lindley's recursion), computed
when the transfer is enqueued rather than with one simulation event per byte or per sector: the memory
levels below L1 use it, so a streaming kernel's millions of sectors cost no events of their own. The
server keeps the bytes it moved and the cycles it was busy, for bandwidth metrics. A launch recorded with
``timeline=True`` uses :class:`LoggedQueue`, which also logs each transfer's start cycle and bytes.

Transfers are served in the order they are enqueued, which is the order of their arrival where arrivals
come in time order (the requests L1 sends to L2, L2's misses to HBM). L1's data return is not such a
server: a miss books its data for the cycle it will come back from L2, hundreds of cycles ahead, and a hit
enqueued after it is back within ``hit_latency_cycles``; the L1 does not hold the hit back behind the
miss (hits are served under misses). :class:`GapQueue` serves a transfer in the free cycles from its
arrival on, wherever earlier-booked transfers left them.
"""
from __future__ import annotations

from bisect import bisect_left, bisect_right


def room_at(leaving: list, capacity: int, t: float) -> float:
    """The first cycle from ``t`` at which a queue of ``capacity`` entries, whose entries leave at the cycles
    ``leaving`` (sorted), has room for one more: ``t`` if it has now. Entries gone by ``t`` are dropped."""
    if leaving and leaving[0] <= t:
        del leaving[:bisect_right(leaving, t)]
    n = len(leaving) - capacity
    return t if n < 0 else leaving[n]


class BandwidthQueue:
    """FIFO server of ``bytes_per_cycle``."""

    def __init__(self, bytes_per_cycle: float):
        if bytes_per_cycle <= 0:
            raise ValueError(f"bytes_per_cycle must be positive, got {bytes_per_cycle}")
        self.rate = float(bytes_per_cycle)
        self.free = 0.0          # cycle at which the server finishes what it has queued
        self.bytes: float = 0     # bytes moved (a DRAM write counts its turnaround too)
        self.busy = 0.0

    def transfer(self, t: float, nbytes: float, now: float | None = None) -> tuple:
        """Enqueue ``nbytes`` arriving at ``t``: ``(start, done)`` cycles (``now``, the cycle it is enqueued
        at, matters to a :class:`GapQueue` only)."""
        start = t if t > self.free else self.free
        service = nbytes / self.rate
        self.free = start + service
        self.bytes += nbytes
        self.busy += service
        return start, self.free

    def backlog(self, t: float) -> float:
        """Cycles of queued work ahead of a transfer arriving at ``t``."""
        return self.free - t if self.free > t else 0.0


class GapQueue(BandwidthQueue):
    """A server of ``bytes_per_cycle`` whose transfers take the free cycles from their arrival on, before
    transfers booked earlier for later cycles: it keeps the busy intervals (``starts``, ``ends``, disjoint,
    in order) from the last enqueueing cycle it was told (``now``) on."""

    def __init__(self, bytes_per_cycle: float):
        super().__init__(bytes_per_cycle)
        self.starts: list = []
        self.ends: list = []

    def transfer(self, t: float, nbytes: float, now: float | None = None) -> tuple:
        """Enqueue ``nbytes`` arriving at ``t`` (enqueued at ``now``: no later transfer arrives before it,
        so what was busy before then is forgotten): ``(start, done)`` cycles, the transfer served in the
        free cycles from ``t`` on."""
        self.bytes += nbytes
        return self.occupy(t, nbytes / self.rate, now)

    def occupy(self, t: float, need: float, now: float | None = None) -> tuple:
        """``need`` cycles of the server, from ``t`` on in its free cycles, for work that is not this level's
        bytes (shared memory's wavefronts on L1's data stage; a logged queue does not log it): ``(start, done)``,
        as :meth:`transfer`."""
        starts, ends = self.starts, self.ends
        if now is not None and ends and ends[0] <= now:
            k = bisect_right(ends, now)
            del starts[:k], ends[:k]
        self.busy += need
        i = bisect_right(ends, t)           # the first interval ending after t
        cur, start = t, None
        while True:
            if i < len(starts) and starts[i] <= cur:          # busy: skip to its end
                cur = ends[i]
                i += 1
                continue
            gap = starts[i] - cur if i < len(starts) else need
            take = need if need < gap else gap
            if start is None:
                start = cur
            self._book(i, cur, cur + take)
            need -= take
            cur += take
            i = bisect_right(ends, cur)
            if need <= 1e-12:
                break
        if cur > self.free:
            self.free = cur
        return start, cur

    def release(self, t: float, cycles: float, until: float = float("inf")) -> None:
        """Give back ``cycles`` of the busy time booked between ``t`` and ``until``, from ``until`` down (work
        booked that turned out not to be needed, none of it before ``t``; what was booked past ``until``, later
        work's, stays where it is)."""
        if until <= t:                               # nothing booked between them
            return
        starts, ends = self.starts, self.ends
        i = bisect_left(starts, until) - 1          # the last interval that begins before ``until``
        while cycles > 1e-12 and i >= 0 and ends[i] > t:
            lo = starts[i] if starts[i] > t else t
            hi = ends[i] if ends[i] < until else until
            take = cycles if cycles < hi - lo else hi - lo
            cut = hi - take                          # [cut, hi) is given back
            if hi < ends[i]:                         # the interval goes on past ``until``: keep that part
                if cut > starts[i]:
                    starts.insert(i + 1, hi)
                    ends.insert(i + 1, ends[i])
                    ends[i] = cut
                else:
                    starts[i] = hi
            elif cut > starts[i]:
                ends[i] = cut
            else:
                del starts[i], ends[i]
            cycles -= take
            self.busy -= take
            i -= 1
        self.free = ends[-1] if ends else min(self.free, t)

    def _book(self, i: int, s: float, e: float) -> None:
        """Mark ``[s, e)`` busy: a new interval before interval ``i``, merged with its neighbours."""
        starts, ends = self.starts, self.ends
        if i > 0 and ends[i - 1] >= s:
            ends[i - 1] = e
            i -= 1
        else:
            starts.insert(i, s)
            ends.insert(i, e)
        if i + 1 < len(starts) and starts[i + 1] <= e:
            ends[i] = ends[i + 1]
            del starts[i + 1], ends[i + 1]


class LoggedQueue(BandwidthQueue):
    """A :class:`BandwidthQueue` that appends ``(start cycle, bytes)`` of each transfer to ``log``."""

    def __init__(self, bytes_per_cycle: float, log: list):
        super().__init__(bytes_per_cycle)
        self.log = log

    def transfer(self, t: float, nbytes: float, now: float | None = None) -> tuple:
        start, done = super().transfer(t, nbytes, now)
        self.log.append((start, nbytes))
        return start, done


class LoggedGapQueue(LoggedQueue, GapQueue):
    """A :class:`GapQueue` that logs each transfer's start cycle and bytes, as :class:`LoggedQueue` does."""

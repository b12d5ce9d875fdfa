"""HBM as this SM sees it: a latency, an open-row window and this SM's share of the device bandwidth.

Life of a request: L2 misses arrive at cycle ``t`` as a set of 32-byte sectors. They queue for this SM's
share of the device bandwidth (:class:`~smsim.mem.queue.BandwidthQueue`: ``bandwidth_gbps`` divided among
the SMs the launch keeps busy, see :mod:`smsim.single_sm`); once their turn comes they take the row-miss latency,
or the shorter row-hit latency when every DRAM row they touch was accessed within ``row_open_cycles``
(an open page). The rows it finds closed are opened one at a time at this SM's share of the device's
activation rate (``activations_per_cycle``, measured with reads of a row each: 2.66 TB/s of 64-byte accesses
where whole lines stream at 4.33), beside the bus: accesses in rows of their own are bound by it, streams
never. Each SM's read opens the rows it finds closed for itself, though the blocks beside its own on other
SMs read the rest of them at about the same time (a 16x16 tile reads 64 bytes of each of 16 matrix rows, the
31 tiles beside it the rest of those 2 KB): on an H200 the same sums in 16x16 blocks take 1.10x the time of
256x1 blocks, reads alone 1.11x (``docs/hardware/block_shape_hw.md``). A write-back opens its rows for the
part of its lines that is this SM's (:attr:`line_part`, told by :meth:`smsim.mem.l2.L2.share_lines`: the
device's L2 writes a line back whole, the sectors other SMs' blocks wrote into it with this SM's, one
opening and one access for all of them), and holds the bus for its own sectors' bytes then.
As the bandwidth share gets busy, latency grows (HBM's *loaded latency*: bank and
refresh conflicts, read/write turnarounds): a read waits in HBM's queues a time drawn from an exponential
distribution of mean ``loaded_latency_cycles x u``, ``u`` the recent utilization of the share (the transfer
time it was asked for, decaying with time constant ``utilization_window_cycles``; at most 1). Drawn, not the
mean, because the warps of a block wait for each other: a block that loads and then meets a barrier, or
retires, waits for its slowest warp's read (on the H200 such kernels stall at the barrier 2-5 times as
long as a model with one wait for every read shows, and in the load queue less). The draws come from a
generator seeded by the config's ``seed``: a launch's are the same every run. A read whose sectors lie
in ``m`` rows waits in as many queues and for the slowest of them: the draw is the largest of ``m``
exponential waits, on average the ``m``-th harmonic number times the mean (a warp reading down a matrix
column, 16 rows a load, waits 24.8 cycles an instruction on the H200 where one reading along rows waits
13.8, ``dram_pitch_hw``). Without the term a deterministic queue serves every byte at the
unloaded latency until the share saturates, and reaches the plateau with too few bytes in flight. The
data arrives at ``start + latency + transfer time``. Reads and writes are counted in bytes
(``dram__bytes_read`` / ``dram__bytes_write``); writes take bandwidth but nobody waits for them, each
written byte holding the bus ``1 + write_turnaround`` times as long as a read one (HBM turns the bus around
between reads and writes: on an H200 a copy bound by the bus moves 4.0 TB/s where reads alone reach 4.4,
``docs/hardware/rw_mix_hw.md``), and a write the bus has not started on holds L2 (:meth:`Dram.write` returns
the cycle it starts). Reads wait behind writes: the memory controller drains
its writes in idle gaps while the bus is quiet, and in forced batches of ``write_drain_cycles`` while it is
busy, reads to those banks waiting; a read takes half a drain more, times the recent write utilization,
times the recent utilization. A row serves row hits only once its activation is done: an access right
behind the one that opened its row comes back no sooner than that one. A row opened for a write takes
``write_activation_cost`` activations (its bank stays busy for the write's recovery before the row can
close: on an H200, whole sectors written at random open 15.2 rows a cycle where reads open 21.0,
``docs/hardware/store_paths_hw.md``), and a write starts once its rows are open and, when a read completes
its data (a sector written in part), once that read is back. HBM moves
``access_bytes`` at a time for reads: L2 asks for every sector of the accesses its read misses fall in
(:meth:`smsim.mem.l2.L2.read`), so a lone missed 32-byte sector reads 64 bytes on an H200. A whole sector
written back holds the bus for its whole access too, though Nsight counts its 32 bytes: a whole float64 sector
stored into each of 2 M lines takes the H200 37.5 us, 1.7 TB/s of the bytes counted (``store_group_hw.md``,
``f64_l4_g1_spread``; 32 bytes on the bus: 22.4 us); ``store_paths_hw``'s ``line_sector``, the same at 8 M lines,
is bound by its blocks' dispatch either way. A sector read alone to complete a partial write (``alone``), and
written back once complete, moves its 32 bytes: ``ordinary.scale_stride16`` (two sectors of a line written in
part, each completed and written back) runs in 20.7 us where whole accesses would hold the bus for 33.

L2's background work (:meth:`Dram.clean`): L2 completes the sectors written in part of the lines it keeps
past ``l2.partial_lines`` and writes them back while no read needs the bus. Their bytes count at once (but what
the bus has not moved when the kernel ends is not the kernel's) and the rows they find closed take their
activations at once (twice: a row the completing read opened is closed again when it is back, a row-miss
latency later, and the write opens it once more), but their bus time is moved into the cycles the bus would
otherwise be idle, before the next read or write that finds it so, up to a backlog L2 can hold (past that,
at once, in turn with the reads): ``ordinary.scale_stride2`` reads its input and completes every sector of
its output at 3.8 TB/s in all on an H200, and is not slowed by the completions the way reads queued behind
them would be (1.44x the H200's time so).

The slowest SM (:meth:`Dram.slowest_sm_lag`): a kernel lasts until its slowest SM is done, and this model is
one SM that behaves as the mean one. On an H200 the time of an SM's memory round trip (a DRAM read, or a
store until L2 has it) varies from SM to SM and from launch to launch (the same SM is not the slow one
twice: ``benchmarks/sm_spread_hw.py``), shared by the SM's warps, so of ``busy`` SMs the last ends
``slowest_sm_cycles`` later than the mean one (interpolated in ``slowest_sm_busy``: 49 cycles for 4 SMs,
422 for 132). A kernel whose SM read DRAM, or whose every warp stored, ends that much later (one whose
block 0 alone writes a word, as the empty kernels, does not), the stores L2 takes from it with it, but not
the backlog of atomics L2's units perform for all SMs, which the kernel waits for less this lag
(:func:`smsim.single_sm.simulate`). Left out: the lag of an L2 round trip (about 70 cycles a step for 132 SMs) and
that of chains of dependent DRAM reads, which grows as the square root of their length (8 steps: 1780
cycles).
Registered as ``dram.model = "hbm"``.
"""
from __future__ import annotations

import math
import random

import numpy as np

from ..config import DramSpec
from ..contracts import level_metrics
from ..registry import DRAM_MODELS
from .queue import BandwidthQueue


@DRAM_MODELS.register("hbm")
class Dram:
    """This SM's share of HBM (``spec``: :class:`smsim.config.DramSpec`; ``queue``: its share of the
    bandwidth; ``sector_bytes``: the size of the sectors L2 asks for)."""

    def __init__(self, spec: DramSpec, queue: BandwidthQueue, sector_bytes: int, busy: float = 1, seed: int = 0):
        self.spec, self.sector_bytes = spec, sector_bytes
        self.rng = random.Random(seed)   # the loaded waits' draws (:meth:`_slowest`)
        self.access_bytes = spec.access_bytes
        self.queue = queue
        #: the device's row activations, shared by the ``busy`` SMs alike (None: not limited)
        self.acts = BandwidthQueue(spec.activations_per_cycle / busy) if spec.activations_per_cycle else None
        self.open_rows: dict = {}        # row -> cycle of its last access
        self.active: dict = {}           # row -> cycle its activation is done (it serves row hits from then)
        #: the part of the lines it writes that is this SM's (:meth:`smsim.mem.l2.L2.share_lines`): the device's
        #: L2 writes a line back whole, its other SMs' sectors with it, one row opening for them all
        self.line_part = 1.0
        self.bytes_read = self.bytes_write = 0
        self.row_hits = self.row_misses = 0
        self.utilization, self.seen = 0.0, 0.0      # recent utilization, as of cycle ``seen``
        self.writing = 0.0               # the part of it writes took, as of ``seen``
        self.backlog = 0.0               # bus bytes of L2's background completions and write-backs not moved yet
        self.backlog_write = 0.0         # of those, the writes' (their turnaround included)

    def read(self, sectors: np.ndarray, t: float, alone: bool = False) -> float:
        """Cycle at which ``sectors`` (global sector indices) arrive, requested at ``t`` (``alone``: each
        sector read by itself, as L2 completing a sector written in part reads it, not its whole access)."""
        self.bytes_read += len(sectors) * self.sector_bytes
        self._idle(t)
        bus = len(sectors) * self.sector_bytes if alone else self._bus_bytes(sectors)
        start, done = self.queue.transfer(t, bus)
        spec = self.spec
        loaded = spec.loaded_latency_cycles * self._load(t, bus) * self._slowest(self._spread(sectors))
        if spec.write_drain_cycles:     # a forced write drain under way: half of one, on average
            loaded += 0.5 * spec.write_drain_cycles * min(self.writing, 1.0) * min(self.utilization, 1.0)
        return self._arrive(sectors, t, start, done)[1] + loaded

    def _slowest(self, m: int) -> float:
        """The wait, in units of the mean loaded wait, of a read that queues in ``m`` places: the largest of
        ``m`` independent exponential draws of mean 1 (on average the ``m``-th harmonic number), drawn as the
        inverse of its distribution function ``(1 - exp(-x)) ** m`` at a uniform draw."""
        return -math.log1p(-(self.rng.random() ** (1.0 / m)))

    def _spread(self, sectors: np.ndarray) -> int:
        """The DRAM rows ``sectors`` lie in: places that queue apart."""
        if len(sectors) <= 1:
            return 1
        return len(np.unique(sectors // (self.spec.row_bytes // self.sector_bytes)))

    def slowest_sm_lag(self, busy: int) -> float:
        """How much later than this (mean) SM the slowest of ``busy`` SMs ends, when each ends on a memory
        round trip: ``slowest_sm_cycles`` interpolated at ``busy``."""
        spec = self.spec
        if not spec.slowest_sm_busy:
            return 0.0
        return float(np.interp(busy, spec.slowest_sm_busy, spec.slowest_sm_cycles, left=0.0))

    def fetched_by_others(self, sectors: np.ndarray, t: float) -> float:
        """Cycle at which ``sectors``, which another SM asked for at ``t``, arrive: the latency of a read (its
        rows open or not, as this SM's accesses left them; it leaves them open), loaded as this SM's share is
        now, with no bytes, bandwidth, row counts or activations of this SM's."""
        return self._arrive(sectors, t, t, t, count=False, activate=False)[1] + \
            self.spec.loaded_latency_cycles * min(self._decayed(t), 1.0)

    def write(self, sectors: np.ndarray, t: float, ready: float | None = None) -> float:
        """Write ``sectors`` at ``t`` (``ready``: the cycle their data is complete, when a read completes
        them): bandwidth and row state; the cycle HBM starts on them (until then L2 holds them), no sooner
        than the data is ready and the rows they found closed are open. Whole sectors hold the bus for every
        ``access_bytes`` access they touch, whole (a lone dirty sector of a line 64 bytes on an H200, though
        counted as its 32); sectors a read completed, each its own 32 bytes. Such a row takes
        ``write_activation_cost`` of the device's activations: a bank a write opened stays busy for its write
        recovery before it can close."""
        spec = self.spec
        self.bytes_write += len(sectors) * self.sector_bytes
        self._idle(t)
        moved = self._bus_bytes(sectors) if ready is None and self.line_part == 1.0 else \
            len(sectors) * self.sector_bytes
        bus = moved * (1.0 + spec.write_turnaround)
        start, _ = self.queue.transfer(t, bus)
        later = ready is not None and ready > start
        if later:
            start = ready
        begins, _ = self._arrive(sectors, t, start, start, weight=spec.write_activation_cost * self.line_part,
                                 serves=not later)
        self._load(t, bus, written=bus)
        return begins

    def clean(self, reads: np.ndarray, writes: np.ndarray, t: float, backlog: int) -> float:
        """L2 completes ``reads`` (sectors written in part, each read alone) and then writes ``writes`` (those
        and the rest of their lines' dirty sectors) back,
        from ``t``, in the background: the bytes are counted now (less, in :meth:`metrics`, what the bus has
        not moved when the kernel ends), the rows they find closed take their activations now (a row the read
        opens is closed again by the time the read is back, a row-miss latency later, and the write opens it
        once more, at ``write_activation_cost``), and their bus time waits for the cycles the bus would be
        idle (moved before the next read or write that finds it so), up to what ``backlog`` sectors'
        completion and write-back hold the bus for: past that, the excess takes its turn on the bus now. The
        cycle the rows are open for the read, or the bus starts on that excess, whichever is later (L2 keeps
        the sectors until then)."""
        spec, sb = self.spec, self.sector_bytes
        self.bytes_read += len(reads) * sb
        self.bytes_write += len(writes) * sb
        self._idle(t)
        reopened = spec.write_activation_cost + (1.0 if len(reads) else 0.0)
        begins, _ = self._arrive(writes, t, t, t, weight=reopened, serves=False)   # reads: some of writes
        wrote = len(writes) * sb * (1.0 + spec.write_turnaround)
        self.backlog += len(reads) * sb + wrote
        self.backlog_write += wrote
        most = backlog * sb * (2.0 + spec.write_turnaround)
        if self.backlog > most:
            start = self._move(t, self.backlog - most)
            if start > begins:
                begins = start
        return begins

    def _idle(self, t: float) -> None:
        """Move background work (:meth:`clean`) in the cycles the bus is idle before ``t``."""
        q = self.queue
        if self.backlog > 0 and t > q.free:
            self._move(q.free, min(self.backlog, (t - q.free) * q.rate))

    def _move(self, t: float, nbytes: float) -> float:
        """``nbytes`` of the background work take the bus from ``t`` (its reads and writes in proportion):
        the cycle they start."""
        q = self.queue
        written = nbytes * self.backlog_write / self.backlog
        start, _ = q.transfer(t, nbytes)
        self.backlog -= nbytes
        self.backlog_write -= written
        self._load(t, nbytes, written)
        return start

    def _arrive(self, sectors: np.ndarray, t: float, start: float, done: float, count: bool = True,
                activate: bool = True, weight: float = 1.0, serves: bool = True) -> tuple:
        """``(when the rows an access to sectors (asked at t, on the bus from start to done) touches are
        open, when it has its data)``: if every row it touches is open, ``start``, and its data a row hit's
        latency after ``done``, but not before the rows' activations are done (an access right behind the
        one that opens its row comes back after that one); else when the rows it found closed have opened
        (``activate``: at the device's activation rate, each taking ``weight`` activations,
        :meth:`_activate`), its data a row miss's latency after that, from when they serve row hits
        (``serves``; False for a write waiting for the read that completes it: it starts after accesses
        enqueued after it, which do not wait for it)."""
        spec = self.spec
        closed, ready = self._rows(sectors, start, count)
        if not closed:
            return start, (done if done > ready else ready) + spec.row_hit_latency_cycles
        if activate:
            at = self._activate(t, done, len(closed) * weight)
        else:
            at = done
        if serves:
            active = self.active
            hits_from = at + spec.latency_cycles - spec.row_hit_latency_cycles
            for row in closed:
                active[row] = hits_from
        return at, at + spec.latency_cycles

    def _activate(self, t: float, done: float, opened: float) -> float:
        """The ``opened`` activations (rows an access found closed, each weighted) take their turn among the
        device's from ``t``: when its data can have moved (``done``, or later if activations are the
        bottleneck)."""
        if self.acts is None:
            return done
        _, act = self.acts.transfer(t, opened)
        return act if act > done else done

    def _bus_bytes(self, sectors: np.ndarray) -> int:
        """The bytes ``sectors`` hold HBM's bus for: every ``access_bytes`` access they touch, whole."""
        per = self.access_bytes // self.sector_bytes
        if per <= 1 or len(sectors) == 0:
            return len(sectors) * self.sector_bytes
        if len(sectors) == 1:
            return self.access_bytes
        return len(np.unique(sectors // per)) * self.access_bytes

    def metrics(self, cycles: float) -> dict:
        """``dram__bytes_{read,write}.sum``, the throughput % of this SM's share, row hits and misses. L2's
        background work (:meth:`clean`) that the bus has not moved by ``cycles``, the kernel's end, is not the
        kernel's (as Nsight counts it: it happens after)."""
        self._idle(cycles)
        late_write = self.backlog_write / (1.0 + self.spec.write_turnaround)
        read = self.bytes_read - round(self.backlog - self.backlog_write)
        written = self.bytes_write - round(late_write)
        return {"dram__bytes_read.sum": read, "dram__bytes_write.sum": written,
                "smsim.dram.row_hits": self.row_hits, "smsim.dram.row_misses": self.row_misses,
                "dram__throughput.avg.pct_of_peak_sustained_elapsed": 100.0 * self.queue.busy / max(cycles, 1.0),
                **level_metrics("dram", read + written, self.queue.rate)}

    def _load(self, t: float, nbytes: float, written: float = 0.0) -> float:
        """Add a transfer of ``nbytes`` at ``t`` to the recent utilization, ``written`` of them writes' (to its
        writes' part); the utilization (0..1)."""
        rate, window = self.queue.rate, self.spec.utilization_window_cycles
        self.utilization = self._decayed(t) + nbytes / rate / window
        if written:
            self.writing += written / rate / window
        return min(self.utilization, 1.0)

    def _decayed(self, t: float) -> float:
        """The recent utilization as of ``t`` (no later than the last transfer: as of then); its writes' part
        decays alike."""
        if t > self.seen:
            f = math.exp((self.seen - t) / self.spec.utilization_window_cycles)
            self.utilization *= f
            self.writing *= f
            self.seen = t
        return self.utilization

    def _rows(self, sectors: np.ndarray, start: float, count: bool = True) -> tuple:
        """``(the rows an access to sectors starting at start finds closed, when the open ones it touches
        serve row hits)``; every row it touches is open from then on (``count``: tally the access in
        ``row_hits``/``row_misses``)."""
        spec = self.spec
        per_row = spec.row_bytes // self.sector_bytes
        rows = np.unique(sectors // per_row) if len(sectors) > 1 else sectors // per_row
        closed = []
        ready = -math.inf
        window = spec.row_open_cycles
        open_rows, active = self.open_rows, self.active
        for row in rows.tolist():
            last = open_rows.get(row)
            if last is None or start - last > window:
                closed.append(row)
            else:
                serves = active.get(row, -math.inf)
                if serves > ready:
                    ready = serves
            if last is None or start > last:
                open_rows[row] = start
        if len(open_rows) > 4096:
            self.open_rows = {r: c for r, c in open_rows.items() if start - c <= window}
            self.active = {r: c for r, c in active.items() if r in self.open_rows}
        if count:
            if closed:
                self.row_misses += 1
            else:
                self.row_hits += 1
        return closed, ready

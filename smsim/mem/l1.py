"""L1 data cache and the LSU queue in front of it (global and local memory).

Life of a request: a warp's global/local instruction is coalesced at issue (:func:`smsim.fast.coalesce.
sectors`: its distinct 32-byte sectors and 128-byte lines) and enters the SM's LSU queue of ``lsu_queue``
entries (a full queue stalls the next memory instruction as ``lg_throttle``; a request holds its entry
until the tag stage takes it, a store or reduction until it may leave the SM, below). The tag stage takes
one request at a time, in order, for one cycle per ``tag_lookups_per_cycle`` lines; a cached load of several
lines (:meth:`L1._wide_load`) instead for the larger of the most of its lines in one of ``tag_banks`` tag banks
(a line of each a cycle) and its wavefronts in the data array (one distinct word of each of ``data_banks``
banks a wavefront, computed by the SM as shared memory's are), or of its missed lines at
``tag_lookups_per_cycle`` if they take longer (``docs/hardware/l1_gather_hw.md``: 32 lanes reading one column
of 32 rows cost an H200 32 cycles, reading them skewed 8). Loads look their sectors
up in the sectored cache (:class:`smsim.fast.cache.SectorCache`, size from the carveout): hits are ready
``hit_latency_cycles`` later; a sector whose fill is already on its way (allocated by an earlier miss)
merges with it; misses each need an MSHR (``mshrs`` outstanding sectors; none free: the request waits
beside the tag stage for the earliest fills to return, its warp in ``long_scoreboard``, as the H200 counts
a load's backlog) and go to L2, and the line is allocated
with the cycle the data will arrive. ``.cg`` loads and atomics bypass L1. A load or atomic that waited
for L2 (a missed sector, or one whose fill was on its way) says so (:attr:`L1.from_l2`): the SM gives a
warp such data in the order the warp issued them (``in_order_fills``; L1 hits do not wait, nor do other
warps': ``docs/hardware/load_order_hw.md``). Stores write through to L2
without allocating; a store into sectors whose fill is on its way first holds the tag stage until it lands
(``store_waits_fill``: an in-place swap's store into the line of its warp's later load,
``docs/hardware/swap_hw.md``), and tell L2 whether the store is one L1 could merge with its warp's next stores (at most
``merge_sectors`` sectors in ``merge_lines`` lines: :meth:`smsim.mem.l2.L2._merge_partial`); a store the SM
merged into an earlier one of its warp (``merged``: its bytes went to L2 with that one,
:meth:`smsim.sm.SM._merge_ahead`) takes the tag stage and nothing more. Past the tag stage a store whose
sectors are those of another warp's store among the latest ``cross_merge_window`` lines' worth, whose write
still waits to leave the SM (for credits or the port), and whose warp's latest load read the same DRAM rows
as this warp's (or neither loaded: warps fed from different rows store apart on an H200; a store L1 could merge
with its warp's next, ``merge_sectors`` in ``merge_lines``, whatever they loaded), joins that write
(:meth:`L1._join`): no credits, no
port time, no write of its own at L2 (:meth:`smsim.mem.l2.L2.merged`); it is done when that write is (the
H200 merges different warps' stores only so: ``docs/hardware/store_cross_hw.md``). A store of the same warp
joins its own earlier write so, within the same window, if it came to L1 (issued) before that write was through
the port (``docs/hardware/store_resident_hw.md``: two field stores with a load's wait between, or any two while
stores back the port up; a warp's two 32-sector stores in 8 lines back to back at one warp an SM, and not with
another sub-partition's between, :attr:`smsim.scheduler.Clock.lead`). A store leaves the
SM once no more than ``store_credits`` of this SM's L2 write requests (one a line a store touches) are in
flight to L2 with its own (sent, and L2's acknowledgement of
taking them not back): it waits for L2 to take earlier ones. Then its write requests go out through the SM's
port to L2, in order, ``write_request_cycles`` a line and ``write_data_cycles`` a sector of data (a store of a
word in each of 32 lines holds it as long as one of 16 lines of four sectors each), and L2 has the request once
its last line is through; while more than ``write_buffer_cycles`` of the port's own time is ahead of it (the
writes before it, not a wait for credits), the store holds the tag stage (the requests behind it, loads too,
wait); a load's misses go out after the writes queued before them (a read request carries no data: it takes
no time of the port). A reduction (an atomic whose result nobody
reads) likewise leaves once no more than ``reduction_credits`` operations of this SM's are in flight to L2
with it (until L2 performs them). Both wait beside the tag stage (which goes on with other requests),
keeping their place in the LSU queue (the H200 shows a store-bound kernel's backlog as ``lg_throttle``), and
their warp, done, waits for them to leave (``drain``): partial stores that L2 completes slowly hold their
warps at ``EXIT``, as on an H200. With ``atomic_holds_reads`` an atomic, once it left, waits in L2's queue
until its slice's unit takes it up (:attr:`smsim.mem.l2.L2.atomic_taken`, after the work queued there before
it, this SM's and the other SMs'), and the read misses the SM sends after it wait behind it
(``docs/hardware/red_stream_hw.md``: one add a block into one word slows a read stream beside it on an H200;
adds spread over many lines do not). The data returns over the L1's ``data_bytes_per_cycle`` path (its sectors'
bytes, or a wide load's lanes' bytes), at a cycle
boundary; then the request's registers are ready and its MSHRs are free. With ``one_data_stage`` that path is
also L1TEX's one data stage, which shared memory's wavefronts and global stores' data take
(:class:`smsim.mem.shared.SharedMemory`): a cached load of several lines whose sectors are all there when it
is read takes it for its data-array wavefronts, a cycle each, as well as the tag stage (a fill's data is
forwarded as it lands: its lanes' bytes; ``docs/hardware/data_stage_hw.md``); the sectors a fill brings from
DRAM (L2's ``fetched``) are written into the array there, ``fill_sector_cycles`` each, booked in its free cycles
from the request on (``docs/hardware/conflict_overlap_hw.md``).

A memory fence (:meth:`L1.fence`; numba's ``threadfence`` is ``MEMBAR.SC.GPU``) issues once its warp's earlier
accesses are done as its scope asks (the SM's :class:`smsim.warp.Warp` holds it: a block-scope fence until its
loads are back and its stores have left the SM, a wider one until L2 has the stores too), then takes the SM's
one fence unit, which starts a fence of scope ``s`` every ``fence_{s}_interval_cycles``, a wider one than the
block's no sooner than L2 has every store the SM sent before it (any warp's: with 32 warps an SM storing and
fencing, ``st_fence_s132``, 0.83 of the H200's time so, 0.57 waiting for the warp's own stores only), and its
warp goes on ``fence_{s}_cycles`` after the unit took it; a GPU- or system-scope fence empties L1
(``fence_invalidates``: the ``CCTL.IVALL`` ptxas puts after it), so the loads after it read L2
(``docs/hardware/fence_hw.md``: 262 cycles a fence alone on an H200, an SM's fences 10.8 cycles apart, 1250 and
33 for the system's scope, the block's none and 4.3).

Every stage here is a first-come first-served server whose timing depends only on the requests before
it (and on L2 and HBM, which are queues of the same kind), so a request's whole journey is computed when
it is submitted (:meth:`L1.access`, Lindley's recursion as in :mod:`smsim.mem.queue`): the caller gets its
completion cycle, and no simulation event is spent on it. What is known of the queue at a cycle (how many
requests hold an entry) is kept as the cycles they leave it. Counters follow Nsight's
``l1tex__t_{requests,sectors}_pipe_lsu_mem_global_op_*`` and ``..._ld_lookup_{hit,miss}``: a merge with a
pending fill counts as a hit, as on an H200, where the load hit rate is exactly 1 - L2 read sectors / load
sectors (``docs/hardware/validate_hw.json``: ``transpose.naive_strided_reads`` 87.5%, ``matmul.naive``
87.5%, ``coalescing.copy_offset1`` 17.5%, all of whose hits are such merges). Registered as
``l1.model = "sectored"``.
"""
from __future__ import annotations

import heapq
import math
from bisect import insort
from typing import Callable

import numpy as np

from ..config import L1Spec
from ..contracts import L2Model, level_metrics
from ..fast import cache, coalesce
from ..fast.cache import SectorCache
from ..registry import L1_MODELS
from .queue import BandwidthQueue, GapQueue, room_at


@L1_MODELS.register("sectored")
class L1:
    """The SM's L1 (``spec``: :class:`smsim.config.L1Spec`; ``size_bytes``: what the carveout leaves,
    rounded down to whole sets; ``data``: the return path, at ``data_bytes_per_cycle``) in front of ``l2``."""

    def __init__(self, spec: L1Spec, size_bytes: int, data: BandwidthQueue, l2: L2Model, seed: int = 0):
        self.spec, self.l2 = spec, l2
        unit = spec.line_bytes * spec.assoc
        self.size_bytes = max(unit, size_bytes // unit * unit)
        self.cache = SectorCache(self.size_bytes, spec.line_bytes, spec.sector_bytes, spec.assoc,
                                 spec.replacement, seed)
        self.data = data
        self.waiting: list = []           # cycles the queued requests leave the LSU queue (sorted)
        self.tag_free = 0.0               # cycle the tag stage can take the next request
        self.mshrs = Pool(spec.mshrs)     # missed sectors in flight, freed when their fill is back
        self.sent = 0.0                   # cycle the last request submitted leaves the SM
        self.port_free = 0.0              # cycle the port to L2 has sent the write requests before
        self.port_queue = 0.0             # ... had none waited for credits: the backlog the tag stage sees
        self.reductions = Pool(spec.reduction_credits)    # reduction operations L2 has not performed yet
        self.stores = Pool(spec.store_credits)            # store requests (lines) L2 has not taken yet
        self.port_start = 0.0             # cycle the last store's write requests started through the port
        #: the latest stores' writes by their sectors: [cycle they start through the port, cycle L2 has them,
        #: the bytes in each sector so far, the lines L2 charged as written in part, the lines of the stores
        #: noted before them, their warp, the DRAM rows of that warp's latest load, cycle they are through the port]
        self.open: dict = {}
        self.n_open = 0                   # lines of the stores noted there so far
        self.joined = 0                   # sectors of stores that joined a waiting write
        self.from_l2 = False              # the latest load or atomic waited for L2 (for a missed or pending sector)
        self.block = -1                   # the grid's block of the request being served (-1: not known)
        self.fill_holds = 0               # stores that held the tag stage for a fill of their sectors to land
        self.fence_free = 0.0             # cycle the SM's fence unit can take the next fence
        self.written = 0.0                # cycle L2 has every store and atomic submitted so far
        self.counts = {k: 0 for k in ("requests_ld", "sectors_ld", "requests_st", "sectors_st", "hit_ld", "miss_ld",
                                      "requests_local", "sectors_local", "requests_atom", "sectors_atom",
                                      "requests_red", "sectors_red")}

    def space_at(self, t: float) -> float:
        """The cycle from which the LSU queue has room for a request arriving at ``t`` (``t`` if it has)."""
        return room_at(self.waiting, self.spec.lsu_queue, t)

    def access(self, kind: str, space: str, sectors: np.ndarray, lines: int, bypass: bool, ops: np.ndarray | None,
               t: float, floating: bool = False, whole: np.ndarray | None = None, merged: bool = False,
               warp: int = -1, rows: tuple | None = None, waves: int = 1, carried: int = 0,
               part: np.ndarray | None = None, swap: bool = False, wide: bool = False) -> float:
        """Submit a request of ``kind`` ("ld", "st", "atom" or "red") at ``t`` (the caller checked
        :meth:`space_at`): the cycle its data is back (a load, an atomic) or L2 has it (a store; ``merged``:
        a store whose bytes an earlier one of its warp carried to L2, which takes the tag stage and no
        more; ``rows``: the DRAM rows of the storing warp's latest load, :meth:`_join`; ``waves``: a load's
        data-array wavefronts, ``l1.data_banks``; ``carried``: the bytes its lanes get, 0: its sectors';
        ``part``: the sectors in which a store writes some 4-byte word in part, :meth:`smsim.mem.l2.L2.write`;
        ``swap``: an atomic compare-and-swap, ``wide``: one on 64-bit integers, :meth:`smsim.mem.l2.L2.atomic`)."""
        spec = self.spec
        self._count(kind, space, len(sectors))
        self.block = warp >> 6 if warp >= 0 else -1       # the grid's block whose warp asks (warp: block << 6 | w)
        if t > self.l2.now:
            self.l2.now = t
        start = t if t > self.tag_free else self.tag_free
        self.from_l2 = kind == "atom"
        if kind == "st" and spec.store_waits_fill and not merged:
            landed = self.cache.filling_until(sectors, start)
            if landed > start:             # a fill of its sectors on its way: the store holds the stage until it lands
                start = landed
                self.fill_holds += 1
        if kind == "ld" and not bypass and lines > 1 and (spec.tag_banks > 1 or waves > 1):
            return self._wide_load(space, sectors, waves, carried, start, t)
        tend = start + max(1, -(-lines // spec.tag_lookups_per_cycle))
        self.tag_free = self.sent = tend
        if merged:
            done = tend
        elif kind == "st":
            narrow = len(sectors) <= spec.merge_sectors and lines <= spec.merge_lines
            cost = spec.write_cycles(lines, len(sectors))             # on the port
            joins = lines <= spec.cross_merge_window and space == "global"
            joined = self._join(sectors, ops, tend, warp, rows, t, narrow) if joins else None
            if joined is not None:
                done, cost = joined, 0
            else:
                done = self._credited(self.stores, lines, tend,
                                      lambda at: self.l2.write(sectors, self._out(at, cost), ops, narrow, part))
                if joins:
                    self._note_waiting(sectors, lines, ops, done, warp, rows)
            if spec.write_buffer_cycles and cost:   # the port's own backlog, whatever the credits
                self.port_queue = (tend if tend > self.port_queue else self.port_queue) + cost
                if self.port_queue - spec.write_buffer_cycles > self.tag_free:
                    self.tag_free = self.port_queue - spec.write_buffer_cycles   # the tag stage waits for room
        elif kind in ("atom", "red"):
            per_sector = ops if ops is not None else np.ones(len(sectors), np.int64)
            done = self._credited(self.reductions, int(per_sector.sum()) if kind == "red" else 0, tend,
                                  lambda at: self.l2.atomic(sectors, at + spec.hit_latency_cycles, per_sector,
                                                            kind == "red", floating, whole, swap, wide))
            if spec.atomic_holds_reads:     # the read misses behind it in L2's queue wait until a slice takes it up
                held = self.l2.atomic_taken - spec.hit_latency_cycles
                if held > self.port_free:
                    self.port_free = held
        else:
            done = self._load(space, sectors, bypass, tend, t)
        if kind != "ld" and done > self.written:
            self.written = done
        leave = self.sent if self.sent > tend else start    # waiting for credits it keeps its place
        if leave > t:
            insort(self.waiting, leave)
        return done

    def _wide_load(self, space: str, sectors: np.ndarray, waves: int, carried: int, start: float, t: float) -> float:
        """A cached load of several lines taking the tag stage at ``start``: its lines looked up a line of each
        of the ``tag_banks`` a cycle, its words read from the data array in ``waves`` wavefronts (a cycle
        each, while the stage holds it), its missed lines sent on ``tag_lookups_per_cycle`` a cycle; the stage is
        held by the longest. The data path then carries the ``carried`` bytes the lanes get (the words, not the
        sectors, of lines the wavefronts read), or, with ``one_data_stage`` and all its sectors there when it is read,
        a cycle a wavefront if that is longer: the stage shared memory's wavefronts take too."""
        spec = self.spec
        per = self.cache.sectors_per_line
        tags = -(-coalesce.bank_lines(sectors, per, spec.tag_banks) // spec.tag_lookups_per_cycle)
        busy = max(tags, waves, 1)
        status, ready = self.cache.lookup(sectors, start + busy)
        miss = cache.missed(sectors, status)
        if len(miss):
            missed = -(-coalesce.lines_of(miss, per) // spec.tag_lookups_per_cycle)
            busy = missed if missed > busy else busy
        tend = start + busy
        self.tag_free = self.sent = tend
        back = carried if spec.data_banks else 0
        array = waves * self.data.rate if spec.one_data_stage and spec.data_banks else 0.0
        done = self._load(space, sectors, False, tend, t, (status, ready, miss), back, array)
        if start > t:
            insort(self.waiting, start)
        return done

    def _note_waiting(self, sectors: np.ndarray, lines: int, ops: np.ndarray | None, done: float, warp: int,
                      rows: tuple | None = None) -> None:
        """A store's write just queued to leave the SM at :attr:`port_start`: later stores into the same
        sectors may join it until then (:meth:`_join`)."""
        written = ops.copy() if ops is not None else np.full(len(sectors), self.spec.sector_bytes, np.int64)
        self.open[sectors.tobytes()] = [self.port_start, done, written, self.l2.paid_lines, self.n_open, warp, rows,
                                         self.port_free]
        self.n_open += lines
        if len(self.open) > self.spec.cross_merge_window:
            for key in [k for k, e in self.open.items() if e[4] < self.n_open - self.spec.cross_merge_window]:
                del self.open[key]

    def _join(self, sectors: np.ndarray, ops: np.ndarray | None, t: float, warp: int, rows: tuple | None,
              arrive: float, narrow: bool = False) -> float | None:
        """A store of ``warp``, into at most ``cross_merge_window`` lines, past the tag stage at ``t``, whose
        bytes join the write of an earlier store of another warp into the same ``sectors`` (its lines and those
        of the stores noted after it within ``cross_merge_window``) that still waits to leave the SM at ``t``
        (for credits or the port), and whose warp's latest load read the same DRAM ``rows`` as ``warp``'s
        (warps whose data came from different rows got it at different times: on an H200 their stores come
        apart, with other warps' between, ``seminar.transpose16_naive``'s stores of 16 lines), unless the
        store is ``narrow`` (at most ``merge_sectors`` sectors in ``merge_lines`` lines, what L1 merges of a
        warp's own stores): those join whatever their warps loaded (``tutorial.transpose_8x32``, two warps'
        16 bytes into each of 8 lines, reaches L2 as 0.73-0.79 of its L1 store sectors on an H200 from 256 K to
        4 M elements, ``docs/hardware/size_sweep_hw.md``; here 1.0 without such joins, 0.83-0.89 with them): no
        credits, no time of the port, no write of its own at L2 (:meth:`smsim.mem.l2.L2.merged`); the cycle L2
        has that write (None: no such write). ``warp``'s own earlier write is joined only by a store that came to L1
        (issued) at ``arrive``, before that write was through the port (a wide one too:
        ``docs/hardware/store_resident_hw.md``, two 32-sector stores in 8 lines merge back to back at one warp an
        SM; the window keeps them apart where other sub-partitions' stores come between, ``store_merge_hw``'s
        ``warp_k1_dense``)."""
        entry = self.open.get(sectors.tobytes()) if self.open else None
        if entry is None or (entry[6] != rows and not narrow) \
                or entry[4] < self.n_open - self.spec.cross_merge_window:
            return None
        if entry[5] == warp:              # its own: only a store that came before the write went through
            if entry[7] <= arrive:
                return None
        elif entry[0] <= t:
            return None
        sb = self.spec.sector_bytes
        written = ops if ops is not None else np.full(len(sectors), sb, np.int64)
        before = entry[2]
        entry[2] = after = np.minimum(before + written, sb)
        spl = self.spec.line_bytes // sb
        lines = sectors // spl
        whole = np.unique(lines[after >= sb])
        if len(whole):                    # lines none of whose sectors is left in part
            whole = whole[~np.isin(whole, np.unique(lines[after < sb]))]
        self.l2.merged(sectors, written, entry[3], whole, t)
        self.joined += len(sectors)
        return entry[1]

    def _credited(self, credits: Pool, units: int, t: float, send: Callable[[float], float]) -> float:
        """A request leaving the tag stage at ``t`` that holds ``units`` of ``credits`` (a limit of 0: none)
        from when it leaves the SM until ``send(cycle it leaves)``, L2's answer, is back: it waits beside the
        tag stage for earlier ones to free theirs. The cycle L2's answer is back."""
        held = units if credits.limit > 0 else 0
        if held:
            self.sent = t = credits.take(held, t)
        done = math.ceil(send(t))
        if held:
            credits.free_at(done, held)
        return done

    def _out(self, t: float, cost: float) -> float:
        """The cycle a store's write requests, free to leave at ``t``, are through the SM's port to L2 (after the
        writes before them; ``cost``: their cycles on it, ``write_request_cycles`` a line and ``write_data_cycles``
        a sector); the store keeps its LSU-queue entry until then."""
        if not cost:
            self.port_start = t
            return t
        start = t if t > self.port_free else self.port_free
        self.port_start = start
        self.port_free = end = start + cost
        if end > self.sent:
            self.sent = end
        return end

    def fence(self, t: float, scope: str) -> float:
        """A memory fence of ``scope`` ("cta", "gpu" or "sys") issued at ``t``: the SM's fence unit takes it in
        turn, ``fence_{scope}_interval_cycles`` after the one before, and a fence wider than the block's once L2
        has every store and atomic the SM sent before it, any warp's; the cycle its warp may go on,
        ``fence_{scope}_cycles`` after the unit took it. A wider fence than the block's empties L1
        (``fence_invalidates``)."""
        spec = self.spec
        interval, latency = getattr(spec, f"fence_{scope}_interval_cycles"), getattr(spec, f"fence_{scope}_cycles")
        start = t if t > self.fence_free else self.fence_free
        if scope != "cta" and self.written > start:
            start = self.written
        self.fence_free = start + interval
        if scope != "cta" and spec.fence_invalidates:
            self.cache.invalidate()
        return start + latency

    def metrics(self, cycles: float) -> dict:
        """``l1tex__t_{requests,sectors}_pipe_lsu_mem_*`` (global loads, stores, atomics; local), lookup
        hits and misses of global loads and their hit rate, the global load/store instruction counts and
        the L1 size the carveout left."""
        c = self.counts
        lookups = c["hit_ld"] + c["miss_ld"]
        sectors = c["sectors_ld"] + c["sectors_st"] + c["sectors_local"] + c["sectors_atom"] + c["sectors_red"]
        return {"l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum": c["requests_ld"],
                "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum": c["requests_st"],
                "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum": c["sectors_ld"],
                "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum": c["sectors_st"],
                "l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum": c["hit_ld"],
                "l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_miss.sum": c["miss_ld"],
                "l1tex__t_requests_pipe_lsu_mem_local.sum": c["requests_local"],
                "l1tex__t_sectors_pipe_lsu_mem_local.sum": c["sectors_local"],
                "l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum": c["requests_atom"],
                "l1tex__t_requests_pipe_lsu_mem_global_op_red.sum": c["requests_red"],
                "smsp__sass_inst_executed_op_global_ld.sum": c["requests_ld"],
                "smsp__sass_inst_executed_op_global_st.sum": c["requests_st"],
                "l1tex__t_sector_pipe_lsu_mem_global_op_ld_hit_rate.pct":
                    100.0 * c["hit_ld"] / lookups if lookups else 0.0,
                "smsim.l1.size_bytes": self.size_bytes, "smsim.l1.store_sectors_joined": self.joined,
                "smsim.l1.stores_held_for_fills": self.fill_holds,
                **level_metrics("l1", sectors * self.spec.sector_bytes, self.spec.data_bytes_per_cycle)}

    def _count(self, kind: str, space: str, n: int) -> None:
        c = self.counts
        key = "local" if space == "local" else kind
        c["requests_" + key] += 1
        c["sectors_" + key] += n

    def _load(self, space: str, sectors: np.ndarray, bypass: bool, t: float, now: float,
              looked: tuple | None = None, back_bytes: int = 0, array: float = 0.0) -> float:
        """A load's data back (``looked``: its lookup made at the tag stage, status, ready cycles and the sectors
        it missed; ``back_bytes``: what the data path carries to the registers, a wide load's lanes' bytes, else
        (0) its sectors'; ``array``: the data stage's time, in its bytes, that reading its words from the data
        array takes, if all were there when it is read, a fill's data being forwarded as it lands)."""
        spec, n = self.spec, len(sectors)
        if bypass:
            hits = pending = 0
            need, latest, miss = n, -np.inf, sectors
        else:
            status, ready = looked[:2] if looked is not None else self.cache.lookup(sectors, t)
            hits, pending, need, latest = cache.tally(status, ready)
            miss = looked[2] if looked is not None else cache.missed(sectors, status) if need else sectors[:0]
        if space != "local":
            self.counts["hit_ld"] += hits + pending
            self.counts["miss_ld"] += need
        self.from_l2 = bool(need or pending)
        if need:
            t = self.mshrs.take(need, t)  # waiting beside the tag stage
        back = t + spec.hit_latency_cycles
        arrive = back if latest < back else latest       # hits: back; pending fills: when they land
        if need:
            ask = self.port_free + spec.hit_latency_cycles   # the misses go out after the writes before them
            got = self.l2.read(miss, back if back > ask else ask, self.block)
            if not bypass:
                self.cache.fill(miss, got)
            last = float(got.max())
            if last > arrive:
                arrive = last
            if spec.fill_sector_cycles and spec.one_data_stage and not bypass and self.l2.fetched \
                    and isinstance(self.data, GapQueue):
                # DRAM's sectors are written into the data array a cycle each: the stage's time, booked in its
                # free cycles from the request on (the data itself is forwarded as it lands)
                self.data.occupy(t, self.l2.fetched * spec.fill_sector_cycles, now)
        moved: float = back_bytes or n * spec.sector_bytes
        if array > moved and arrive == back:
            moved = array
        _, done = self.data.transfer(arrive, moved, now)
        done = math.ceil(done)            # results reach the scoreboard at a cycle boundary
        if need:
            self.mshrs.free_at(done, need)
        return done


class Pool:
    """``limit`` units (MSHRs, store and reduction credits) that requests take and hold until a known cycle: a heap of
    ``(cycle, units)`` they free at."""

    def __init__(self, limit: int):
        self.limit, self.used = limit, 0
        self.freeing: list = []

    def take(self, need: int, t: float) -> float:
        """Take ``need`` units at ``t``, waiting for held ones to free while too few are (one request alone may
        take more than ``limit``): the cycle."""
        freeing = self.freeing
        while freeing and freeing[0][0] <= t:
            self.used -= heapq.heappop(freeing)[1]
        while self.used and self.used + need > self.limit:
            t_free, n = heapq.heappop(freeing)
            t = max(t, t_free)
            self.used -= n
        self.used += need
        return t

    def free_at(self, cycle: float, units: int) -> None:
        """The ``units`` last taken are held until ``cycle``."""
        heapq.heappush(self.freeing, (cycle, units))

"""L2 as one SM sees it: a sectored cache of this SM's share of the capacity, behind this SM's share of
the L2 bandwidth, in front of :class:`~smsim.mem.dram.Dram`.

Life of a request: L1 sends the sectors it missed (or a store's sectors, or an atomic's) at cycle ``t``.
They cross this SM's port to L2 (:class:`~smsim.mem.queue.BandwidthQueue` at the SM's share of L2
bandwidth, at most ``sm_port_bytes_per_cycle``); a read's distinct lines take their turn at their slices'
lookups (:meth:`L2._look_up`: a line ``slices / read_lines_per_cycle`` cycles of a slice of this SM's L2
partition, the other SMs' lookups joining the backlogs, on the same slices for lines other blocks read too:
requests of one sector per line are bound by it, whole lines by the bandwidth, lines every SM reads by their
slice); they are looked up in the sectored cache (``lts__t_sectors_*`` counters): hits
return after ``hit_latency_cycles``; a sector another request already missed on returns
with that fill; misses go to DRAM (the read's ``fetched``, which L1 writes into its data array), whole DRAM
accesses at a time (``dram.access_bytes``: the neighbouring
sectors come along and are filled too), and are filled with their arrival cycle, once the slices have written
them into their data arrays (``fill_sector_cycles`` a sector, in the queue of this SM's share of the slices'
time that the stores' sectors take too: a wave's stores hold up the next wave's fills,
``docs/hardware/mid_stores_hw.md``). Stores are
write-allocate (a written sector is valid in L2) and are written on to DRAM at once (``dram__bytes_write``),
which takes bandwidth but holds nobody up. A sector a store writes only in part
(``smsim.l2.partial_sector_writes``) that L2 did not hold is read from DRAM, that one sector, when its line
leaves L2 still not written whole (``smsim.l2.partial_sectors_completed``), as the H200's write-back L2
completes it for HBM3e's sector-wide ECC: scattered 4-byte stores into 64 MB read 32 bytes from DRAM per
sector they touch (``streams.store_stride8``, ``ordinary.scale_stride16``), into 512 KB none (it stays in
L2), and two stores that fill a sector between them (``ordinary.branchy``) read nothing. A read of such a sector
before then misses: it reads the rest from DRAM and completes the sector (:meth:`L2._short_of_whole`;
``docs/hardware/store_resident_hw.md``: a warp loading the sector it has just written 4 bytes of waits for DRAM
on an H200). The slices take
each written sector ``write_sector_cycles``, and each line a store writes in part
``partial_write_cycles - write_sector_cycles`` more (the read-modify-write of its merge, once per line the
store's request brings: a store of one sector a line pays ``partial_write_cycles`` a sector, one of four
sectors a line much less; a store L1 could have merged, into sectors they hold whole, not: see
:meth:`L2._merge_partial`); the ``slices`` slices
serve all ``busy`` SMs alike, so this SM's written sectors queue at ``slices / busy`` per those cycles (each
in the free cycles from its arrival on, among DRAM's fills: :attr:`L2.slice_writes`), and a
store is acknowledged once taken (``transpose.naive``'s uncoalesced stores are bound by the first on an
H200, ``streams.gs_write_w64``'s coalesced ones by the second).
:class:`smsim.mem.l2_write_back.WriteBackL2` also keeps the written data in L2 until eviction.

What other SMs brought in (``l2.sharing = "neighbours"``): the device has one L2, and a block's grid
neighbours, which other SMs run at about the same time, touch some of its sectors first (a stencil's halo, the
sector two blocks of a misaligned copy share). :meth:`smsim.sm.SM.neighbours` runs them and hands those
sectors over when the block starts (:meth:`held_by_others`); a miss of this SM's share on one is an L2 hit
(``lts__t_sectors_srcunit_tex_op_read_lookup_hit``, ``smsim.l2.sectors_from_other_sms``) with no DRAM traffic
of this SM's, its data there when the other SM's read is back (:meth:`smsim.mem.dram.Dram.fetched_by_others`);
it is not allocated in this SM's share, whose capacity is for this SM's own data (:meth:`_from_others`).
A line whose other sectors grid neighbours on other SMs use (a 16-wide block's half rows, a misaligned row's
ends) is one line slot of the device's L2, that part of it this SM's: told what part of the touched sectors
of their lines the first blocks own, where they store (:meth:`share_lines`; lines read whole count whole), the
share holds as many more lines in its bytes.
With ``l2.sharing = "device"`` the rest of the grid too: :class:`DeviceL2` runs every block's sectors, in
block order, through one cache of the device's usable capacity, and what it holds of a timed block's sectors
when the block starts is handed over the same way (a gathered table, a histogram's bins, a matrix
multiply's tiles that other blocks read before). A DRAM access that blocks started at about the same time
on other SMs touch too (``smsim.sm.SM._by_lot``) is fetched by whichever asks first, any of them alike: a
lot decides whether this SM's block fetches it or finds it asked for by another SM *together* with its
own read, arriving as that read would (``plain.gather_perm4k``, a permutation within each 16 KB that 16
blocks read at once, read 2.7x the H200's DRAM bytes when the first block of each 16 fetched it all).

Atomics (and reductions) are performed at L2, by the atomic unit of the slice that holds the sector
(``slices`` slices, ``slice_bytes`` consecutive bytes each, spread over the slices by a hash). A warp's atomic
needs, per sector, as many operations as the most lanes naming one address in it
(:func:`smsim.fast.coalesce.atomic_ops`: lanes on different words are served together, lanes on one word in
turn); each takes ``atomic_op_cycles`` of its slice's unit (``atomic_wide_cycles`` on a 64-bit integer: an
H200 adds into 1024 int64 bins 1.16x as long an operation as into int32 ones, ``validate_hw.json``'s
``quiz.hist_i64_1024`` against ``classroom.hist1024_i32``), or ``atomic_round_cycles`` where it names every
word of the sector (:func:`smsim.fast.coalesce.whole_rounds`: 32 lanes on a line's 32 words, a merge of
histogram bins), or, for a compare-and-swap, ``cas_round_cycles`` where it names more than one word
(:func:`smsim.fast.coalesce.multi_rounds`; ``docs/hardware/cas_hw.md``: a swap's two operands a word), after the
sector's data is there and the unit has done its backlog. The units serve the
``busy`` SMs of the launch, which all send them work alike (as every shared resource in this share model):
after this SM's own operations, the other SMs' as many join the backlogs, spread over the slices as the
blocks that run with this SM's spread theirs: with ``l2.sharing = "device"`` the device's resident blocks
around a timed one run on the interpreter, which notes their atomics (:meth:`atomics_by_others`;
``docs/hardware/atomic_spread_hw.md``: a segmented sum's blocks each add into their own words, so the other
SMs' adds fall on other slices than this SM's, a histogram's blocks into the same bins). Without it, as this
SM's operations have been so far, smoothed by how much of that is still unseen (Good-Turing: the share of
operations that were the first on their chunk goes evenly to all slices), so 256 samples into 64 K bins load
every slice alike, as 4 M samples on all SMs do, while the same-address reductions of one bin run at
``1/busy`` of one unit's rate. A lone operation waits for nobody. A float add (``floating``) waits for the
previous one on its sector to finish, ``float_atomic_cycles`` (its adder's latency, 3.66 cycles on an H200
where an integer add takes 1.57), unless the unit interleaves other sectors' adds with it: every operation of
a request pays ``float_atomic_cycles / sectors``, never less than ``atomic_op_cycles``, ``sectors`` the
distinct sectors float adds have named at the slice, this SM's and the blocks' around it (a sum into one
scalar, ``everyday.dot_atomic``, pays all of it; 32 lanes on one word whose slice takes other sectors' adds
too pay ``atomic_op_cycles`` each, as the H200's do: ``docs/hardware/atomic_spread_hw.md``); the other SMs'
requests cost what this one did. :attr:`L2.atomics_done` is when the busiest unit has performed all of it, the
other SMs' operations too: the kernel does not end before that, less the SMs' lag (``single_sm.py``; their
requests come spread around this SM's, which the share books first: a warp's 32 lanes on one of 1024 words,
``bootcamp.warp_atomic_same``, ran 0.67 of the H200's time at its test size while the kernel waited for this
SM's own). :attr:`L2.atomic_taken` is when the units take a request up: after the work queued at its slices
before it (:attr:`L2.unit_work`, the operations' cycles as if their data were all there: a miss waits for its
data in L2, not in the queue), which L1 holds the SM's later read misses behind (``l1.atomic_holds_reads``).
Registered as ``l2.model = "write_through"``.
"""
from __future__ import annotations

from itertools import islice
from typing import Any

import numpy as np

from ..config import L2Spec
from ..contracts import DramModel, level_metrics
from ..fast import cache
from ..fast.cache import SectorCache
from ..registry import L2_MODELS
from .queue import BandwidthQueue, GapQueue


def access_sectors(sectors: np.ndarray, per: int) -> np.ndarray:
    """Every sector of the DRAM accesses of ``per`` sectors that hold ``sectors``."""
    return (np.unique(sectors // per * per)[:, None] + np.arange(per)).ravel() if per > 1 else sectors


def join_backlog(backlog: np.ndarray, t: float, added: np.ndarray) -> None:
    """The other SMs' work (``added``: cycles per unit) joins the units' ``backlog`` (the cycle each is free), in
    place, from ``t`` on."""
    np.maximum(backlog, t, out=backlog)
    backlog += added


def forget_oldest(table: dict, limit: int) -> list:
    """Drop the oldest entries of ``table`` (insertion order) past ``limit``: their keys."""
    over = len(table) - limit
    if over <= 0:
        return []
    gone = list(islice(table, over))
    for key in gone:
        del table[key]
    return gone


#: distinct sectors a slice's float adds interleave from which a float add never waits for the previous one on
#: its sector (``float_atomic_cycles / HOT_SECTORS`` is then below ``atomic_op_cycles``)
HOT_SECTORS = 4


#: :attr:`L2.look_first`'s mark of a chunk that several blocks have read
SHARED = -2


#: the first line of the dirty data L2 holds when a kernel starts (``l2.dirty_at_start_bytes``): far above any
#: address a kernel names (global memory starts at :data:`isa.memory.GLOBAL_BASE`, below 2^47)
RESIDUE_LINE = 1 << 50

#: Not hardware: sectors :meth:`L2._chain` remembers before it forgets those whose stores are done
_SECTOR_CHAIN_LIMIT = 1 << 14


def residue_sectors(spec: L2Spec, size_bytes: int) -> np.ndarray:
    """The sectors of the dirty data a cache of ``size_bytes`` (a share of ``l2.usable``) holds when a kernel
    starts: that share of ``l2.dirty_at_start_bytes``, in whole lines that no kernel's address names (none
    for a write-through L2, which holds nothing dirty)."""
    held = spec.dirty_at_start_bytes if spec.model != "write_through" else 0
    lines = held * size_bytes // spec.usable // spec.line_bytes
    spl = spec.line_bytes // spec.sector_bytes
    return ((RESIDUE_LINE + np.arange(lines, dtype=np.int64))[:, None] * spl + np.arange(spl)).ravel()


@L2_MODELS.register("write_through")
class L2:
    """This SM's share of L2 (``spec``: :class:`smsim.config.L2Spec`; ``size_bytes``: its share of the
    capacity, rounded down to whole sets; ``port``: its port at its share of the bandwidth)."""

    def __init__(self, spec: L2Spec, size_bytes: int, port: BandwidthQueue, dram: DramModel, seed: int = 0,
                 busy: float = 1):
        self.spec, self.dram, self.busy = spec, dram, busy
        self.unit_free = np.zeros(spec.slices)   # cycle each slice's atomic unit has done its backlog
        self.unit_ops = np.zeros(spec.slices)    # this SM's atomic operations per slice so far
        #: the cycle the slices' atomic units have performed every atomic the busy SMs sent so far (0: none)
        self.atomics_done = 0.0
        self.unit_sectors: dict = {}        # slice -> distinct sectors float adds named there (up to HOT_SECTORS)
        #: the share of the other SMs' atomic operations each slice gets, from the blocks that run with this
        #: SM's (:meth:`atomics_by_others`), None: unknown (spread as this SM's own)
        self.others_spread: np.ndarray | None = None
        self.others_sectors: dict = {}      # slice -> distinct sectors those blocks' atomics name there (a few)
        self.chunk_ops: dict = {}         # slice_bytes chunk -> this SM's operations on it so far
        self.once = 0                     # chunks that have had exactly one operation
        unit = spec.line_bytes * spec.assoc
        self.size_bytes = max(unit, size_bytes // unit * unit)
        self.cache = SectorCache(self.size_bytes, spec.line_bytes, spec.sector_bytes, spec.assoc,
                                 spec.replacement, seed)
        self.port = port
        #: the read lookups (:meth:`_look_up`): this SM's partition's slices, each a line every ``line_cycles``
        parts = spec.partitions
        self.look_slices = spec.slices // parts
        self.line_cycles = spec.slices / spec.read_lines_per_cycle if spec.read_lines_per_cycle else 0.0
        self.look_sharers = max(busy / parts, 1.0)     # the SMs whose reads this SM's partition serves
        self.look_free = np.zeros(self.look_slices)    # cycle each has done its backlog
        self.look_shared = np.zeros(self.look_slices)  # this SM's lookups there of lines another block read too
        self.look_first: dict = {}                     # slice_bytes chunk -> the block that read it first, or SHARED
        self.looked = self.looked_shared = 0           # lookups so far; of those, into chunks other blocks read
        self.sectors_read = self.sectors_read_hit = self.sectors_write = self.sectors_atomic = 0
        self.atomic_ops = self.red_ops = 0  # operations of atomics (per sector, in turn), of those reductions
        self.partial_writes = 0           # sectors a store writes in part
        self.partial_filled = 0           # of those, read from DRAM to complete them when they left L2
        self.partial: dict = {}           # line -> {sector in it: bytes written} of sectors written in part
        sb = spec.sector_bytes
        #: this SM's share of the slices' time writing their data arrays: a store's sectors and DRAM's fills
        #: (:meth:`_merge_partial`, :meth:`_fetch`), each in the free cycles from its arrival on
        self.slice_writes = GapQueue(1.0)
        self.now = 0.0                    # the latest cycle L1 asked at (no later request arrives before it)
        self.write_end = 0.0              # the cycle the slices are done with the latest store's sectors
        self.paid_lines = _NONE           # the lines the last write paid partial_write_cycles for
        self.sector_free: dict = {}       # sector with words written in part -> cycle the next such store may begin
        self.part_word_writes = 0         # sectors stores wrote some word of in part (:meth:`_chain`)
        self.part_word_wait = 0.0         # cycles the last of each such store's sectors waited for the one before
        self.fetched = 0                  # sectors of the last read this share fetched from DRAM
        self.atomic_taken = 0.0           # cycle the slices' units took up the last atomic (its first operation)
        #: cycle each slice's unit has done the operations sent to it so far, had their data all been there (its
        #: queue of work, which an atomic waits in to be taken up: :attr:`atomic_taken`)
        self.unit_work = np.zeros(spec.slices)
        self.others: dict = {}            # sectors other SMs brought into L2 (held_by_others), oldest first
        self.landing: dict = {}           # of those this SM has read: the cycle their data is there
        self.others_limit = self.size_bytes // sb   # how many are remembered (the builder allows one share for
                                                    # each resident block when l2.sharing = "device" decides)
        self.handed: dict = {}            # a running block -> the sectors handed over for it (held_by_others)
        self.holders: dict = {}           # sector -> how many running blocks it was handed over for
        self.sectors_from_others = 0      # read misses of this share served by them
        #: lines holding sectors written in part this share keeps (``l2.partial_lines``, its part of them)
        self.partial_limit = max(1, spec.partial_lines * self.size_bytes // spec.usable) \
            if spec.partial_lines else 1 << 62

    def share_lines(self, fraction: float) -> None:
        """The timed blocks' sectors are on average ``fraction`` of the touched sectors of the lines they are in,
        in the device's L2 (the rest their grid neighbours', on other SMs: a 16-wide block's rows of 64 bytes, a
        misaligned row's ends; a line read whole is the block's whole): each line takes that part of one of the
        device's line slots, so this share holds ``1 / fraction`` as many lines (at most a sector a line's
        worth) in the bytes it has. Called once, before any block's access, when the cache holds only what it
        held at the kernel's start (kept, in its order). ``lessons.upsample2x`` and the 16x16-block stencils
        write back to DRAM 12-19% more than the H200 (which leaves that much more dirty at the kernel's end) with
        a share of whole lines; ``course.maxpool2x2`` (two rows of 32 floats read for each of 16 written) 4.4
        MB of the H200's 10.2 when the half lines it writes alone set the fraction, 10.2 with the whole lines it
        reads counted. HBM's write-backs of this share take the same part of their rows' openings and
        of their accesses (:attr:`smsim.mem.dram.Dram.line_part`: the device's L2 writes the line back whole)."""
        if not 0.0 < fraction < 1.0:
            return
        self.dram.line_part = fraction
        spec, old = self.spec, self.cache
        unit = spec.line_bytes * spec.assoc
        size = min(self.size_bytes * old.sectors_per_line, int(self.size_bytes / fraction)) // unit * unit
        if size <= old.size_bytes:
            return
        st, w = np.nonzero(old.tags >= 0)
        by_age = np.argsort(old.stamp[st, w], kind="stable")
        st, w = st[by_age], w[by_age]
        k = np.arange(old.sectors_per_line)
        held = (old.tags[st, w][:, None] * old.sectors_per_line + k[None, :])[old.valid[st, w]]
        ready = old.ready[st, w][old.valid[st, w]]
        self.cache = SectorCache(size, spec.line_bytes, spec.sector_bytes, spec.assoc, spec.replacement,
                                 old.seed)
        if len(held):
            self.cache.fill(held, ready)

    def read(self, sectors: np.ndarray, t: float, block: int = -1) -> np.ndarray:
        """Arrival cycle of each of ``sectors`` requested at ``t`` by the grid's block ``block`` (-1: unknown)."""
        return self._get(sectors, t, True, block)

    def _get(self, sectors: np.ndarray, t: float, count: bool, block: int = -1) -> np.ndarray:
        """:meth:`read`'s arrivals; ``count``: a read's (``lts__t_sectors_srcunit_tex_op_read``), not an
        atomic's."""
        spec = self.spec
        _, done = self.port.transfer(t, len(sectors) * spec.sector_bytes)
        if count and self.line_cycles:
            looked = self._look_up(sectors, t, block)
            if looked > done:
                done = looked
        status, ready = self.cache.lookup(sectors, done)
        status = self._short_of_whole(sectors, status)
        hits, _, misses, _ = cache.tally(status, ready)
        if count:
            self.sectors_read += len(sectors)
            self.sectors_read_hit += hits
        back = done + spec.hit_latency_cycles
        arrive = back
        self.fetched = 0
        if misses:
            miss = cache.missed(sectors, status)
            if self.others:
                miss, arrive = self._from_others(miss, done, back, count)
            if len(miss):
                arrive = max(arrive, self._fetch(miss, back))
                self.fetched = len(miss)
        return cache.arrivals(status, ready, back, arrive)

    def _short_of_whole(self, sectors: np.ndarray, status: np.ndarray) -> np.ndarray:
        """A lookup's ``status`` of ``sectors`` with those L2 holds only as the bytes stores wrote into them
        (:meth:`_held_in_part`) missed: the rest of such a sector is in DRAM, which the request now reads, and
        that completes it (``docs/hardware/store_resident_hw.md``: one warp an SM loading the sector it has just
        written 4 of 32 bytes of waits for a DRAM read, 2.5x what smsim gave it as an L2 hit)."""
        if not self.partial:
            return status
        part = (status == cache.HIT) & self._held_in_part(sectors)
        if not part.any():
            return status
        status = status.copy()
        status[part] = cache.MISS
        spl, pending = self.cache.sectors_per_line, self.partial
        for s in sectors[part].tolist():
            line, k = divmod(s, spl)
            got = pending[line]
            del got[k]
            if not got:
                del pending[line]
        return status

    def _look_up(self, sectors: np.ndarray, t: float, block: int) -> float:
        """The read lookups of ``sectors`` (a request of ``block``'s at ``t``): each distinct line takes
        ``line_cycles`` of its slice (``slices / read_lines_per_cycle``), one of this SM's partition's
        (``l2.partitions``: a line every SM reads is looked up in one slice of each), its ``slice_bytes`` chunk
        placed by :meth:`_slices`'s hash: the cycle the last is done. The slices serve the ``busy`` SMs of the
        partition alike: after this SM's own lines, the other SMs' as many join the backlogs, spread as this
        SM's lookups of lines that other blocks read too (the device's hot lines: every block's strong loads of a
        histogram's bins, ``docs/hardware/hot_lines_hw.md``), the rest evenly (a stream's, a block's own
        lines: the other SMs read other lines, on all slices)."""
        spec = self.spec
        spl = self.cache.sectors_per_line
        heads = np.unique(sectors // spl) * spl          # each distinct line's first sector
        chunks = heads // (spec.slice_bytes // spec.sector_bytes)
        units = self._slices(heads, self.look_slices)
        free, c, readers = self.look_free, self.line_cycles, self.look_first
        done = t
        for ch, u in zip(chunks.tolist(), units.tolist()):
            start = free[u] if free[u] > t else t
            free[u] = start + c
            if free[u] > done:
                done = free[u]
            first = readers.setdefault(ch, block)
            if first != block and block >= 0:         # another block's too: so from now on (SHARED)
                readers[ch] = SHARED
                self.look_shared[u] += 1
                self.looked_shared += 1
        n = len(heads)
        self.looked += n
        if self.look_sharers > 1.0:
            others = (self.look_sharers - 1.0) * n * c
            join_backlog(free, t, others * ((self.look_shared + (self.looked - self.looked_shared) / self.look_slices)
                                            / self.looked))
        return float(done)

    def held_by_others(self, sectors: np.ndarray, t: float, there: np.ndarray | None = None,
                       together: np.ndarray | None = None, block: int | None = None) -> None:
        """``sectors`` that other SMs' blocks, started at about ``t``, read (the grid neighbours of a block of
        this SM's: :meth:`smsim.sm.SM.neighbours`; or, ``l2.sharing = "device"``, any block before it:
        :class:`DeviceL2`). A miss of this SM's share on one of them is a hit of the device's L2; where
        ``there`` (a mask) is set, the sector was brought by a block of an earlier wave and its data is there
        already; where ``together`` is, another SM asks for it when this one does (a block running in step
        with this SM's), and it arrives as a read asked then would. Handed over for ``block`` (the device's L2
        decides, when that block starts, what it holds of the block's sectors), they are remembered while it
        runs, until :meth:`released`: what the device's L2 holds is the whole device's capacity, not this
        SM's share (a 2048^2 matrix product's eight resident blocks on an SM read 2 MB of A and B tiles the
        other SMs' blocks read too: remembered as this SM's share holds, 326 KB a block, most were forgotten
        before their tile's turn and fetched again, 17x the H200's DRAM reads). Without a block (the grid
        neighbours of ``l2.sharing = "neighbours"``), up to ``others_limit`` (as many as this SM's share holds):
        the least recently used are forgotten first. One remembered already keeps the earlier of the two."""
        others = self.others
        keys = sectors.tolist()
        old = there.tolist() if there is not None else [False] * len(keys)
        now = together.tolist() if together is not None else [False] * len(keys)
        for s, o, w in zip(keys, old, now):
            a = -np.inf if o else np.inf if w else t
            b = others.pop(s, a)          # remembered already: there, or asked for, no later than it was
            others[s] = a if a < b else b
        if block is not None:
            holders = self.holders
            self.handed.setdefault(block, []).extend(keys)
            for s in keys:
                holders[s] = holders.get(s, 0) + 1
            return
        for s in forget_oldest(others, self.others_limit):
            self.landing.pop(s, None)

    def released(self, block: int) -> None:
        """``block`` retired: what was handed over for it alone is forgotten (a later block of this SM's is
        handed, when it starts, what the device's L2 holds of its sectors then)."""
        holders, others, landing = self.holders, self.others, self.landing
        for s in self.handed.pop(block, ()):
            n = holders[s] - 1
            if n:
                holders[s] = n
            else:
                del holders[s]
                others.pop(s, None)
                landing.pop(s, None)

    def written_by_others(self, sectors: np.ndarray, writers: np.ndarray) -> None:
        """Nothing: a write-through L2 sends every store's bytes to DRAM at once, whoever else writes there."""

    def touched_by_others(self, sectors: np.ndarray) -> None:
        """Nothing: a write-through L2 holds no sector written in part for other SMs' blocks to complete."""

    def _from_others(self, miss: np.ndarray, t: float, back: float, count: bool = True) -> tuple:
        """The sectors of ``miss`` that other SMs brought into L2 are hits there, though their data may still
        be on its way: another SM asked DRAM for them when its block started
        (:meth:`smsim.mem.dram.Dram.fetched_by_others`). ``(the rest, still to fetch; when the others'
        arrive)``, decided at ``t``; no DRAM traffic of this SM's (``count``: read hits, as :meth:`_get`).
        They are not allocated in this SM's share: the device's L2 holds them once for all the SMs that read
        them (a gathered vector, a table, a tile every block reads), outside the capacity this SM's own
        data has, so they stay remembered (the most recently used, their data there when this read's is) and
        take none of it. Allocated, a CSR matrix-vector product's 8 MB vector, gathered at random, evicted
        the matrix's sectors from the share between the loop's iterations (``routine.spmv_csr``: 3x the
        H200's DRAM reads; 1.2x now)."""
        others, landing = self.others, self.landing
        there = np.fromiter((s in others for s in miss.tolist()), bool, len(miss))
        if not there.any():
            return miss, back
        got = miss[there]
        gl = got.tolist()
        if count:
            self.sectors_read_hit += len(got)
        self.sectors_from_others += len(got)
        arrive = back
        fresh = [s for s in gl if s not in landing]      # not read by this SM since they were handed over
        if len(fresh) < len(gl):
            arrive = max(arrive, max(landing[s] for s in gl if s in landing))
        if fresh:
            asked = max(others[s] for s in fresh)
            if asked == np.inf:            # asked by a block in step with this one: as this read would be
                asked = back
            if asked != -np.inf:
                arrive = max(arrive, self.dram.fetched_by_others(np.array(fresh, np.int64), asked))
        for s in gl:                       # the most recently used now; their data there from ``arrive``
            others[s] = others.pop(s)
            if s not in landing:
                landing[s] = arrive
        return miss[~there], arrive

    def _fetch(self, miss: np.ndarray, t: float) -> float:
        """Read the DRAM accesses that hold the sectors ``miss`` at ``t`` and fill what they bring that L2
        does not hold yet (the missed sectors and their neighbours): the cycle they arrive, written into the
        slices' data arrays (``fill_sector_cycles`` each, :attr:`slice_writes`)."""
        fetch = self._access_blocks(miss)
        arrive = self.dram.read(fetch, t)
        new = fetch if len(fetch) == len(miss) else fetch[~self.cache.contains(fetch)]
        if self.spec.fill_sector_cycles and len(new):   # written into the slices' data arrays, among the stores
            arrive = self.slice_writes.occupy(arrive, len(new) * self.spec.fill_sector_cycles * self.busy
                                              / self.spec.slices, self.now)[1]
        self._fill(np.union1d(new, miss), arrive, t)
        return arrive

    def _access_blocks(self, sectors: np.ndarray) -> np.ndarray:
        """Every sector of the DRAM accesses that hold ``sectors``."""
        return access_sectors(sectors, max(1, self.dram.access_bytes // self.spec.sector_bytes))

    def _fill(self, sectors: np.ndarray, ready: float, now: float) -> float:
        """Allocate ``sectors``, their data there at ``ready``, deciding at ``now``; what this evicts leaves
        at ``now`` (:meth:`_evicted`; a write-back L2 also writes its dirty sectors back then, and returns
        the cycle HBM starts on them): ``now``."""
        if self.partial:
            evicted = self.cache.fill_evicting(sectors, ready)
            if len(evicted):
                self._evicted(evicted, now)
        else:
            self.cache.fill(sectors, ready)
        return now

    def write(self, sectors: np.ndarray, t: float, written: np.ndarray | None = None,
              narrow: bool = True, part: np.ndarray | None = None) -> float:
        """A store's sectors, arriving at ``t`` (``written``: the bytes it writes in each, counted as
        ``smsim.l2.partial_sector_writes`` where short of a sector; ``narrow``: see :meth:`_merge_partial`;
        ``part``: those in which it writes some word in part, :meth:`_chain`); the cycle L2 has them."""
        spec = self.spec
        _, done = self.port.transfer(t, len(sectors) * spec.sector_bytes)
        self.sectors_write += len(sectors)
        held = self.cache.contains(sectors)
        merged = self._merge_partial(sectors, written, held, done, narrow)
        self._complete_partial(sectors, written, held, done)
        self._fill(sectors, done, t)
        sent = self.dram.write(sectors, done)         # written through: L2 holds them until HBM starts on them
        return max(done, merged, sent, self._chain(part, max(done, merged))) + spec.hit_latency_cycles

    def _chain(self, part: np.ndarray | None, t: float) -> float:
        """A store whose bytes reach the slices at ``t`` writing some 4-byte word only in part in each of the
        sectors ``part``: into each, after the last such store into that sector, ``subword_chain_cycles`` after
        it began for each of the blocks that store into it at once (this SM's store stands for one of each,
        :meth:`_sharers`); the cycle the last of them begins (``t`` if it waits for none). A sector's stores
        into part of its words take turns: ``docs/hardware/column_store_hw.md``, a byte image transposed in
        32x8 blocks, 32 one-byte stores into each output sector from 32 warps of four blocks at about the same
        time, takes the H200 2400-2600 cycles longer than the same transpose of float32 (the same L2 write
        requests), however many blocks its one wave has (100 or 400: a chain, not a rate), 16-bit values (16 a
        sector) 700-1200; ``docs/hardware/subword_hw.md``: four warps' bytes into each of the words of four
        sectors (four stores a sector) take no longer than whole words (0-250 cycles), nor do bytes one a word;
        a store of whole words waits for none, nor one L1 joined to another warp's write
        (:meth:`smsim.mem.l1.L1._join`), which takes no turn of its own."""
        wait = self.spec.subword_chain_cycles
        if part is None or not len(part) or not wait:
            return t
        free, last = self.sector_free, t
        self.part_word_writes += len(part)
        for s, n in zip(part.tolist(), self._sharers(part).tolist()):
            start = free.get(s, t)
            if start < t:
                start = t
            free[s] = start + wait * n
            if start > last:
                last = start
        if len(free) > _SECTOR_CHAIN_LIMIT:            # forget sectors whose last store is done
            self.sector_free = {s: f for s, f in free.items() if f > t}
        self.part_word_wait += last - t
        return last

    def _sharers(self, sectors: np.ndarray) -> np.ndarray:
        """How many blocks store into each of ``sectors`` at once, this SM's among them: this one alone
        (:class:`smsim.mem.l2_write_back.WriteBackL2` knows the others')."""
        return np.ones(len(sectors), np.int64)

    def _merge_partial(self, sectors: np.ndarray, written: np.ndarray | None, held: np.ndarray, t: float,
                       narrow: bool = True) -> float:
        """The slices take a store's sectors: each costs a slice ``write_sector_cycles``, and each line
        holding sectors written only in part ``partial_write_cycles - write_sector_cycles`` more, once per
        line (a read-modify-write per line request: one sector a line written in part costs
        ``partial_write_cycles`` as the uncoalesced transposes measure, four sectors a line 1.82 cycles a
        sector, ``docs/hardware/store_merge_hw.md``'s ``warp_k1_dense`` against ``warp_k1_spread``'s 3.12).
        Into a sector L2 held whole before the store (``held``; :meth:`_held_in_part` says which of those only
        in part), a ``narrow`` store's part merges at the whole-sector rate: one that L1 could merge with its
        warp's next stores into the same sectors (``l1.merge_sectors`` in ``l1.merge_lines``), as the H200
        merges most of ``particles_aos4``'s two field stores after a wait on their loads, which smsim merges
        where the second comes to L1 before the first's write is through (:meth:`smsim.mem.l1.L1._join`,
        ``docs/hardware/store_resident_hw.md``), those merged paying for one write. A wider store (which the
        H200 merges with its warp's next one only where no other sub-partition's stores come between, as the
        window of :meth:`smsim.mem.l1.L1._join` does here) pays for its part whatever L2 holds:
        ``course.prefix_row32``'s stores of one word a
        line into the sectors its loads just brought take what ``warp_k1_spread``'s into sectors L2 did not hold
        take (274.1 and 274.9 us for the same 16.8 M L2 write sectors). The ``slices`` slices do that for all
        ``busy`` SMs alike, so this SM's writes are served at ``slices / busy`` times those cycles, in the free
        cycles from ``t`` on of :attr:`slice_writes` (which DRAM's fills take too, :meth:`_fetch`): the cycle
        the last of them is done (``t`` if they cost nothing)."""
        spec = self.spec
        n = len(sectors)
        part = 0
        self.paid_lines = _NONE
        if written is not None and spec.partial_write_cycles:
            short = written < spec.sector_bytes
            if short.any():
                merge = short & ~(held & ~self._held_in_part(sectors)) if narrow else short
                if merge.any():
                    self.paid_lines = np.unique(sectors[merge] // self.cache.sectors_per_line)
                    part = len(self.paid_lines)
        cost = part * (spec.partial_write_cycles - spec.write_sector_cycles) + n * spec.write_sector_cycles
        if not cost:
            return t
        self.write_end = self.slice_writes.occupy(t, cost * self.busy / spec.slices, self.now)[1]
        return self.write_end

    def merged(self, sectors: np.ndarray, written: np.ndarray, paid: np.ndarray, whole: np.ndarray,
               t: float) -> None:
        """A store's bytes (``written`` in each of ``sectors``) that L1 merged into an earlier store's write
        still waiting to leave the SM (:meth:`smsim.mem.l1.L1.access`): they reach the slices with it, taking
        no time of theirs, no request and no write sector of their own. ``paid``: the lines the earlier write
        paid ``partial_write_cycles`` for (its sectors in part there); ``whole``: which of those lines the two
        fill whole between them, which reach the slices as whole sectors: what they paid for their part is
        given back (the slices' backlog shrinks by it, not below ``t``)."""
        spec = self.spec
        self._add_bytes(sectors, written)
        n = int(np.isin(paid, whole).sum()) if len(paid) and len(whole) else 0
        if n:
            self.slice_writes.release(t, n * (spec.partial_write_cycles - spec.write_sector_cycles) * self.busy
                                      / spec.slices, self.write_end)

    def _add_bytes(self, sectors: np.ndarray, written: np.ndarray) -> None:
        """Bytes merged into sectors an earlier write brought: those it left in part are that much nearer whole
        (whole: nothing is read from DRAM to complete them)."""
        self._pending_bytes(sectors, written, np.ones(len(sectors), bool))

    def _held_in_part(self, sectors: np.ndarray) -> np.ndarray:
        """Which of ``sectors`` L2 holds only as the bytes stores wrote into them so far."""
        pending, spl = self.partial, self.cache.sectors_per_line
        if not pending:
            return np.zeros(len(sectors), bool)
        return np.array([s % spl in pending.get(s // spl, ()) for s in sectors.tolist()], bool)

    def _complete_partial(self, sectors: np.ndarray, written: np.ndarray | None, held: np.ndarray,
                          t: float) -> None:
        """Count the sectors a store writes only in part, and remember the bytes written into those L2 did
        not hold whole: when such a sector's line leaves L2 still short of a whole sector, it is read from
        DRAM to complete it (:meth:`_evicted`). Later stores that cover the rest complete it for free."""
        if written is None:
            return
        sb = self.spec.sector_bytes
        part = written < sb
        n = int(part.sum())
        if n:
            self.partial_writes += n
        if n or self.partial:
            self._pending_bytes(sectors, written, held)
        while len(self.partial) > self.partial_limit:       # the oldest lines are completed first
            self._evicted(np.array([next(iter(self.partial))], np.int64), t)

    def _pending_bytes(self, sectors: np.ndarray, written: np.ndarray, held: np.ndarray) -> None:
        """Add ``written`` to the bytes of the sectors written in part so far; a sector written in part that L2
        did not hold (``held``) starts with them."""
        sb, pending = self.spec.sector_bytes, self.partial
        spl = self.cache.sectors_per_line
        for s, w, h in zip(sectors.tolist(), written.tolist(), held.tolist()):
            line, k = divmod(s, spl)
            got = pending.get(line)
            if got is not None and k in got:
                got[k] += w
                if got[k] >= sb:
                    del got[k]
                    if not got:
                        del pending[line]
            elif w < sb and not h:
                pending.setdefault(line, {})[k] = w

    def _evicted(self, lines: np.ndarray, t: float) -> None:
        """``lines`` left L2 at ``t``: complete their sectors still written only in part with a DRAM read
        of each (the sector alone: HBM3e's ECC covers whole 32-byte sectors)."""
        spl = self.cache.sectors_per_line
        for line in lines.tolist():
            got = self.partial.pop(line, None)
            if got:
                self.partial_filled += len(got)
                self.dram.read(np.array([line * spl + k for k in got], np.int64), t)

    def atomic(self, sectors: np.ndarray, t: float, ops: np.ndarray, red: bool = False, floating: bool = False,
               whole: np.ndarray | None = None, swap: bool = False, wide: bool = False) -> float:
        """A global atomic on ``sectors`` (``ops``: the operations each needs in turn; ``red``: a reduction;
        ``floating``: a float add; ``whole``: how many of each
        sector's operations name every word of it, or, for a compare-and-swap (``swap``), more than one word,
        each ``cas_round_cycles``; None: none; ``wide``: integer operations on 64-bit words, each
        ``atomic_wide_cycles``) arriving at ``t``, performed by the slices' atomic units: the cycle its results
        are back."""
        ready = self._get(sectors, t, False)
        n_ops = int(ops.sum())
        self.atomic_ops += n_ops
        if red:
            self.red_ops += n_ops
        self.sectors_atomic += len(sectors)
        spec = self.spec
        per_chunk = spec.slice_bytes // spec.sector_bytes
        op = spec.atomic_wide_cycles if wide and spec.atomic_wide_cycles else spec.atomic_op_cycles
        rnd = spec.atomic_round_cycles or op            # an operation on every word of a sector
        if swap:                                        # a swap's on several words
            rnd = spec.cas_round_cycles or rnd
        wholes = whole.tolist() if whole is not None else [0] * len(sectors)
        chunks = sectors // per_chunk
        units = self._slices(sectors)
        seen, load, free, work = self.chunk_ops, self.unit_ops, self.unit_free, self.unit_work
        chain = spec.float_atomic_cycles if floating and spec.float_atomic_cycles > op else 0.0
        if chain:
            self._note_sectors(sectors, units)
        done = t
        taken = np.inf
        cost = 0.0                          # unit cycles of this request, as the other SMs' requests cost too
        for chunk, u, r, n, full in zip(chunks.tolist(), units.tolist(), ready.tolist(), ops.tolist(), wholes):
            k = seen.get(chunk, 0)
            seen[chunk] = k + n
            self.once += (k == 0 and n == 1) - (k == 1)
            load[u] += n
            if chain:       # a float add waits for the last one on its sector: hidden behind adds to others
                hot = self.unit_sectors.get(u, set()) | self.others_sectors.get(u, set())
                wait = chain / (len(hot) or 1)
                c = full * max(rnd, wait) + (n - full) * max(op, wait)
            else:
                c = full * rnd + (n - full) * op
            cost += c
            queued = work[u] if work[u] > t else t      # taken up after the work queued before it (L2 fetches
            if queued < taken:                          # its data meanwhile: a miss waits in L2, not at the SM)
                taken = queued
            work[u] = queued + c
            start = r if r > free[u] else free[u]                       # this SM's own, in turn
            free[u] = start + c
            if free[u] > done:
                done = free[u]
        # the other busy SMs' operations join every unit's backlog, spread as the blocks that run with this
        # SM's spread theirs (known: l2.sharing = "device"), else as this SM's have been
        spread = self.others_spread
        if spread is None:
            total = self.atomic_ops
            covered = 1.0 - self.once / total               # Good-Turing: the share of operations on seen chunks
            spread = covered * load / total + (1.0 - covered) / spec.slices
        self.atomic_taken = float(taken) if len(sectors) else t
        others = (self.busy - 1) * cost * spread
        join_backlog(free, float(ready.min()), others)
        join_backlog(work, t, others)
        self.atomics_done = float(free.max())
        return float(done)

    def atomics_by_others(self, sectors: np.ndarray, ops: np.ndarray) -> None:
        """The blocks other SMs run with this SM's (``l2.sharing = "device"``: the device's resident blocks
        around a timed one, run on the interpreter, :meth:`smsim.sm.SM._atomics_around`) perform atomics on
        ``sectors`` (sorted, distinct), ``ops[i]`` lane operations on sector ``i``: the other busy SMs'
        operations load the slices as theirs do (a segmented sum's blocks each add into their own words, over a
        few slices at a time; a histogram's all into the same bins), and a float add at a slice waits for the
        one before on its sector only while few sectors are named there (:meth:`atomic`)."""
        spec = self.spec
        units = self._slices(sectors)
        total = float(ops.sum())
        self.others_spread = np.bincount(units, ops, spec.slices) / total if total else np.zeros(spec.slices)
        order = np.argsort(units, kind="stable")
        units, sectors = units[order], sectors[order]
        start = np.searchsorted(units, units)                  # each unit's first entry
        keep = np.arange(len(units)) - start < HOT_SECTORS
        self.others_sectors = {}
        for u, sec in zip(units[keep].tolist(), sectors[keep].tolist()):
            self.others_sectors.setdefault(u, set()).add(sec)

    def _slices(self, sectors: np.ndarray, slices: int = 0) -> np.ndarray:
        """The slice holding each of ``sectors``: a hash spreads the ``slice_bytes`` chunks over the slices (or
        over ``slices``, one partition's)."""
        spec = self.spec
        return (sectors // (spec.slice_bytes // spec.sector_bytes) * 2654435761 & 0xFFFFFFFF) % (slices or spec.slices)

    def _note_sectors(self, sectors: np.ndarray, units: np.ndarray) -> None:
        """Remember the distinct sectors float adds have named at each unit (a few: from ``HOT_SECTORS`` on, a
        float add never waits for the one before on its sector)."""
        for sec, u in zip(sectors.tolist(), units.tolist()):
            hot = self.unit_sectors.setdefault(u, set())
            if len(hot) < HOT_SECTORS:
                hot.add(sec)

    def metrics(self, cycles: float) -> dict:
        """``lts__t_sectors_srcunit_tex_*`` (reads, read hits, writes; atomics and reductions counted per
        operation, as the H200 counts ``op_red``: per sector, the most lanes naming one address in it), the
        read hit rate and the capacity this SM sees."""
        read, hit = self.sectors_read, self.sectors_read_hit
        return {"lts__t_sectors_srcunit_tex_op_read.sum": read,
                "lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum": hit,
                "lts__t_sectors_srcunit_tex_op_write.sum": self.sectors_write,
                "lts__t_sectors_srcunit_tex_op_atom.sum": self.atomic_ops - self.red_ops,
                "lts__t_sectors_srcunit_tex_op_red.sum": self.red_ops,
                "smsim.l2.atomic_sectors": self.sectors_atomic,
                "smsim.l2.atomic_ops": self.atomic_ops,
                "smsim.l2.partial_sector_writes": self.partial_writes,
                "smsim.l2.partial_sectors_completed": self.partial_filled,
                "smsim.l2.part_word_sector_writes": self.part_word_writes,
                "smsim.l2.part_word_wait_cycles": self.part_word_wait,
                "smsim.l2.sectors_from_other_sms": self.sectors_from_others,
                "lts__t_sector_op_read_hit_rate.pct": 100.0 * (hit / read if read else 0.0),
                "smsim.l2.size_bytes_seen": self.size_bytes,
                **level_metrics("l2", (read + self.sectors_write) * self.spec.sector_bytes, self.port.rate)}


class DeviceL2:
    """The device's one L2 as the whole grid fills it (``l2.sharing = "device"``), for what other SMs' blocks
    leave there for this SM's: every block's global sectors (:func:`isa.trace.global_sectors`) go through a
    sectored cache of ``usable_bytes`` (what a stream over the whole GPU keeps in L2, measured) in block
    order, the order the device dispatches them; a miss brings its whole DRAM access (``access_bytes``), as
    this SM's own misses do. :meth:`touch` says, of a block of this SM's, which of its sectors other blocks
    left in the device's L2 by the time it starts, and which of those a block of an earlier wave brought
    (more than ``concurrent`` blocks before it: the blocks resident on the device at once), whose data is
    there rather than on its way. A sector's fill time is the index of the block that brought it, negative
    (``-1 - block``) for this SM's own blocks, which its own share of L2 accounts for; a lookup at ``block -
    concurrent`` tells a hit from a pending one. What is handed to this SM's share is consistent with the
    order its own blocks run in: a sector one of them brought first is never another's. It also keeps, for
    the blocks it saw last (until :meth:`forget`), the DRAM accesses and the sectors each touched and when,
    for :meth:`access_sharers`, :meth:`write_sharers` and :meth:`first_touch`."""

    def __init__(self, spec: L2Spec, access_bytes: int, concurrent: int, seed: int = 0):
        unit = spec.line_bytes * spec.assoc
        self.cache = SectorCache(max(unit, spec.usable // unit * unit), spec.line_bytes, spec.sector_bytes,
                                 spec.assoc, spec.replacement, seed)
        self.per = max(1, access_bytes // spec.sector_bytes)
        self.concurrent = max(1, concurrent)
        self.units: dict = {}                # block -> the DRAM accesses it touches (:meth:`_keep_keys`)
        self.sector_keys: dict = {}          # block -> the sectors it touches (:meth:`_keep_keys`)
        self.cache.fill(residue_sectors(spec, self.cache.size_bytes), 0.0)   # the oldest lines, never looked up

    def touch(self, block: int, sectors: np.ndarray, mine: bool = False, firsts: np.ndarray | None = None) -> tuple:
        """Block ``block`` touches ``sectors`` (sorted, distinct; ``mine``: a block of this SM's): ``(those
        other SMs' blocks left in the device's L2 when it started, a mask of those an earlier wave brought,
        the block that brought each of sectors: another's index, ``block`` for those it brings itself, -1
        for those an earlier block of this SM's brought)``; it then holds them all. ``firsts``: the global
        access of the block that first touched each sector (:func:`isa.trace.global_sectors`), which
        :meth:`access_sharers` compares. A sector this SM's blocks brought stays theirs
        while the device's L2 holds it (other SMs' blocks touching it since change nothing: this SM's share,
        which ages as the whole L2 does, keeps it about as long), unless another SM's block fetched it for the
        block that missed it (:meth:`disown`)."""
        now = float(block - self.concurrent)
        status, ready = self.cache.lookup_filling(sectors, now, self.per, float(-1 - block if mine else block))
        miss = status == cache.MISS
        if len(sectors):
            self._keep_keys([block], np.asarray(sectors, np.int64),
                            firsts if firsts is not None else np.zeros(len(sectors), np.int64),
                            np.array([0, len(sectors)], np.int64))
        theirs = ~miss & (ready >= 0)
        by = np.where(miss, block, np.where(theirs, ready, -1)).astype(np.int64)
        return sectors[theirs], ready[theirs] <= now, by

    def touch_others(self, blocks: list, runs: list) -> None:
        """:meth:`touch` of other SMs' ``blocks`` (in block order) with ``runs``, each ``(sectors, firsts)`` (as
        :meth:`touch` takes them), in one call, without its answers: the run-ahead's many blocks."""
        lens = [len(s) for s, _ in runs]
        if not sum(lens):
            return
        sectors = np.concatenate([s for s, _ in runs]).astype(np.int64, copy=False)
        cuts = np.zeros(len(runs) + 1, np.int64)
        np.cumsum(lens, out=cuts[1:])
        at = np.asarray(blocks, np.float64)
        self.cache.lookup_filling_runs(sectors, cuts, at - self.concurrent, self.per, at)
        self._keep_keys(blocks, sectors, np.concatenate([f for _, f in runs]), cuts)

    def _keep_keys(self, blocks: list, sectors: np.ndarray, firsts: np.ndarray, cuts: np.ndarray) -> None:
        """Keep, for each of ``blocks`` that touched a sector, its :attr:`sector_keys` and :attr:`units` from its
        run of ``sectors`` and ``firsts`` (block ``i``'s from ``cuts[i]`` to ``cuts[i + 1]``; its sectors sorted
        and distinct, so its DRAM accesses sorted): each key the index shifted above the least global access
        that first touched it (:data:`_FIRST_BITS`), all runs at once."""
        lens = np.diff(cuts)
        firsts = np.minimum(firsts.astype(np.int64, copy=False), (1 << _FIRST_BITS) - 1)
        keys = sectors << _FIRST_BITS | firsts
        units = sectors // self.per
        owner = np.repeat(np.arange(len(blocks)), lens)
        start = np.empty(len(units), bool)
        start[0] = True
        start[1:] = (units[1:] != units[:-1]) | (owner[1:] != owner[:-1])
        at_unit = np.flatnonzero(start)
        unit_keys = units[at_unit] << _FIRST_BITS | np.minimum.reduceat(firsts, at_unit)
        unit_cuts = np.searchsorted(at_unit, cuts)
        for i, block in enumerate(blocks):
            if lens[i]:
                self.sector_keys[block] = keys[cuts[i]:cuts[i + 1]]
                self.units[block] = unit_keys[unit_cuts[i]:unit_cuts[i + 1]]

    def disown(self, block: int, sectors: np.ndarray) -> None:
        """``sectors``, which this SM's block ``block`` missed, are fetched by another SM's block that runs with
        it (:meth:`smsim.sm.SM._by_lot`, a later grid neighbour's first touch): they, and the sectors of their
        DRAM accesses that came with them, are another SM's from now on, as if block ``block`` were another
        SM's. :meth:`touch` had them this SM's, for its own share of L2 to hold, which does not: a later block of
        this SM's missed them in its share and fetched them (``drills.matmul_tiled8``'s B tiles two blocks'
        wide to a 64-byte access: 2.45x the H200's DRAM reads at its full size with the timed blocks anywhere
        in their waves, where all of them had a column a multiple of 4 and met none of it)."""
        if not len(sectors):
            return
        every = access_sectors(sectors, self.per)
        _, ready = self.cache.lookup(every, float(block - self.concurrent))
        mine = every[ready == float(-1 - block)]
        if len(mine):
            self.cache.fill(mine, float(block))

    def access_sharers(self, block: int, lo: int, hi: int, skip: Any = (), until: np.ndarray | None = None) -> tuple:
        """``(the DRAM accesses block touches, how many of the blocks lo..hi (block among them, none in skip)
        first touch each at the same global access of their code)``: blocks started at about the same time
        that run the same code make that access at about the same time (as :func:`isa.trace.global_sectors`
        counts them). ``until``: for each access (in order), the last block counted for it."""
        return self._sharers(self.units, block, lo, hi, skip, until)

    def write_sharers(self, block: int, lo: int, hi: int, skip: Any = ()) -> tuple:
        """``(the sectors block touches, how many of the blocks lo..hi (block among them, none in skip) first
        touch each at the same global access of their code)``: a sector several blocks store into at the same
        point of their code (a reduction's partial sums, eight blocks' words in one sector; a scatter within a
        window four blocks share) is one dirty sector of the device's L2, which their stores fill between them
        and which leaves it once."""
        return self._sharers(self.sector_keys, block, lo, hi, skip)

    def first_touch(self, block: int, sectors: np.ndarray) -> np.ndarray:
        """The global access of ``block``'s code that first touched the DRAM access of each of ``sectors`` (-1:
        none it touched, or a block forgotten)."""
        keys = self.units.get(block)
        if keys is None or not len(keys) or not len(sectors):
            return np.full(len(sectors), -1, np.int64)
        units, unit = keys >> _FIRST_BITS, sectors // self.per
        at = np.searchsorted(units, unit).clip(0, len(units) - 1)
        return np.where(units[at] == unit, keys[at] & ((1 << _FIRST_BITS) - 1), -1)

    def forget(self, lo: int) -> None:
        """Drop what the blocks before ``lo`` touched (no later call names them)."""
        for table in (self.units, self.sector_keys):
            for b in [b for b in table if b < lo]:
                del table[b]

    @staticmethod
    def _sharers(table: dict, block: int, lo: int, hi: int, skip: Any,
                 until: np.ndarray | None = None) -> tuple:
        """Of ``table``'s keys (:attr:`units`, :attr:`sector_keys`): each one ``block`` touches (sorted), and how
        many of the blocks lo..hi (none in skip; for key ``i`` none past ``until[i]``) touch it at the same
        global access."""
        mine = table.get(block)
        if mine is None or not len(mine):
            return np.zeros(0, np.int64), np.zeros(0, np.int64)
        count = np.ones(len(mine), np.int64)
        blocks = [b for b in range(lo, hi + 1) if b != block and b in table and b not in skip]
        if blocks:
            parts = [table[b] for b in blocks]
            theirs = np.concatenate(parts)
            at = np.searchsorted(mine, theirs).clip(0, len(mine) - 1)
            same = mine[at] == theirs
            if until is not None:
                same &= np.repeat(np.array(blocks, np.int64), [len(r) for r in parts]) <= until[at]
            np.add.at(count, at[same], 1)
        return mine >> _FIRST_BITS, count


#: no lines (:attr:`L2.paid_lines` of a write that paid for no sector in part)
_NONE = np.zeros(0, np.int64)
#: :class:`DeviceL2` keys an access by its index shifted above the global access that first touched it
_FIRST_BITS = 20

"""A write-back L2 (``l2.model = "write_back"``, the h100/h200 default): stores stay in L2 as dirty sectors.

Life of a store: L1 writes a store's sectors through to L2 (:meth:`WriteBackL2.write`), which allocates them
as the write-through model does, but writes nothing to DRAM: each sector becomes dirty, with the bytes written
into it so far (a sector L2 already held is complete, whatever the store covers; so is one other SMs' blocks
touched, which the device's L2 holds, once this SM's share has had to complete sectors: the device's have been
completed too). An atomic's sectors become dirty too, whole (L2 read them to perform it); when this SM's share
lets such a line go, the device's L2 (``l2.sharing = "device"``: :class:`smsim.mem.l2.DeviceL2`, every block's
sectors in block order) decides: a line it still holds stays dirty there (other SMs' atomics keep taking it: a
histogram, adds scattered over 16 MB, which an H200 never writes back), one it let go too is written back
(adds into a vector in turn, each line taken once: ``docs/hardware/atomic_dirty_hw.md``). Life of a dirty
sector: when a fill (a read miss, a store, an atomic) evicts its line, or when more than ``l2.dirty_bytes``
(this SM's share; 0: no limit) are dirty and its line is the oldest dirtied, the line's dirty sectors are
written to DRAM (``dram__bytes_write``, each written byte holding HBM's bus ``1 + dram.write_turnaround``
times as long as a read one), and the store that pushed them out waits until
HBM starts on them; one that was only written in part is first read from DRAM, the sector alone, to complete
it (HBM3e's ECC covers whole sectors: on an H200, ``streams.store_stride32`` reads 32 bytes per partly written
sector, 73.5 MB for 8 MB of input), and written once that read is back; a read of it before then misses and
completes it (:meth:`WriteBackL2._short_of_whole`). A dirty line a store wrote into
where other SMs' blocks had touched it (:meth:`held_by_others`: the device's L2 held it) is the device's too:
when this share lets it go and the device's L2 still holds it, it stays dirty there (:attr:`deferred`; a
scatter from every SM into an array L2 holds writes nothing back during the kernel) and this share writes it
back once the device lets it go (:meth:`_flush`, at its later fills). L2 keeps ``l2.partial_lines`` lines
holding sectors written in part (this SM's share; the H200 57800, however many of a line's sectors are in
part); past that, the oldest line holding one is
completed and written back in the background (:meth:`smsim.mem.dram.Dram.clean`: in the cycles HBM's bus is
idle), each line at its turns among the device's completions (``l2.completions_per_cycle``, 13.5 lines a
cycle on an H200 whatever the warps: a word stored in every line of 1 GiB runs at that rate where the bus
would allow 31), a turn for each store written into it since it held a sector in part (sectors left half
written by two warps' stores take the H200 twice as long to complete as those left so by one:
``docs/hardware/store_read_hw.md``), and the store that pushed it out waits for the first turn and for the
rows to open: partial
stores hold their warps at ``EXIT`` (``drain``) while L2 frees room for them. What is still dirty when the
kernel ends is not written during the kernel, as Nsight Compute sees it (a 64 MB copy writes 48 MB of DRAM on
an H200; a test-size one, none). What was dirty when the kernel started (``l2.dirty_at_start_bytes``: under
Nsight Compute's cache control the H200's L2 holds 2.4 MB) is this share's oldest lines, at addresses no
kernel names: the first written back once the kernel fills L2 or its dirty quota. A sector blocks of other
SMs store into too, at the same point of their code and about the same time (:meth:`written_by_others`, from
:meth:`smsim.mem.l2.DeviceL2.write_sharers`: a reduction's partial sums, eight blocks' words in a sector; a
scatter within a window four blocks share), is one dirty sector of the device's L2, written back once: by
this SM's share one time in as many as write it (a lot), where it has the bytes all of them write, each as
much as this SM's stores (filled between them, it is not read to complete it); in the others' shares it is
not dirty (it takes the slices' time and a place in the share all the same). Everything else (reads, the
atomics themselves, the slices' merging of partial writes, the DRAM access granularity) is :class:`smsim.mem.l2.L2`'s.
"""
from __future__ import annotations

from collections import deque
from itertools import islice
from typing import Callable

import numpy as np

from ..config import L2Spec
from ..contracts import DramModel
from ..fast import cache
from ..registry import L2_MODELS
from .l2 import L2, forget_oldest, residue_sectors
from .queue import BandwidthQueue


@L2_MODELS.register("write_back")
class WriteBackL2(L2):
    """:class:`smsim.mem.l2.L2` with dirty sectors written back on eviction (constructor as L2's)."""

    def __init__(self, spec: L2Spec, size_bytes: int, port: BandwidthQueue, dram: DramModel, seed: int = 0,
                 busy: float = 1):
        super().__init__(spec, size_bytes, port, dram, seed, busy)
        self.dirty: dict = {}             # line -> {sector within the line: bytes written so far}, oldest first
        self.n_dirty = 0                  # dirty sectors
        limit = spec.dirty_bytes * self.size_bytes // spec.usable if spec.dirty_bytes else self.size_bytes
        self.dirty_limit = max(1, limit // spec.sector_bytes)     # this SM's share, in sectors
        self.written_back = 0             # dirty sectors written to DRAM
        self.completed = 0                # of those, read from DRAM first (written in part)
        #: dirty lines holding sectors written in part, oldest first -> the stores written into each since
        self.partial_lines: dict = {}
        self.n_part = 0                   # such sectors
        self.part_count: dict = {}        # line -> its sectors written in part (lines: at most partial_limit)
        #: sectors blocks of other SMs store into too -> how many blocks (0: another SM's share writes it
        #: back), oldest first, as many remembered as :attr:`others`
        self.writers: dict = {}
        self.filled: dict = {}            # dirty sectors other SMs' stores fill too -> how many blocks write them
        self.merging: dict = {}           # sectors other SMs' stores fill too -> this SM's bytes in them so far
        #: the device's completions of lines written in part, shared by the ``busy`` SMs alike (None: no limit)
        self.completing = BandwidthQueue(spec.completions_per_cycle / busy) if spec.completions_per_cycle else None
        self.by_atomic: set = set()       # dirty sectors an atomic changed (:meth:`atomic`)
        #: whether the device's L2 still holds each of some sectors (``DeviceL2.cache.contains``, given where
        #: ``l2.sharing = "device"`` runs the grid through it; None: as this SM's share does)
        self.device_holds: Callable[[np.ndarray], np.ndarray] | None = None
        self.kept_by_device = 0           # atomics' dirty sectors let go while the device's L2 held them
        #: dirty lines stores wrote into where other SMs' blocks had touched them (the device's L2 held them):
        #: the device's lines, which leave it when it evicts them, not when this share lets them go
        self.shared_lines: dict = {}
        #: of those, the lines this share let go while the device's L2 still held them -> their dirty sectors
        #: (line's sector -> bytes), oldest first: written back once the device lets them go (:meth:`_flush`)
        self.deferred: dict = {}
        #: the sectors other SMs' blocks touch, as the device's run-ahead tells them (:meth:`touched_by_others`):
        #: sorted arrays, oldest first, :attr:`n_ahead` sectors in all
        self.ahead: deque = deque()
        self.n_ahead = 0
        start = residue_sectors(spec, self.size_bytes)
        if len(start):                    # dirty when the kernel starts: the oldest lines, first to go
            spl = self.cache.sectors_per_line
            self.cache.fill(start, 0.0)
            for line in (start[::spl] // spl).tolist():
                self.dirty[line] = dict.fromkeys(range(spl), spec.sector_bytes)
            self.n_dirty = len(start)

    def write(self, sectors: np.ndarray, t: float, written: np.ndarray | None = None,
              narrow: bool = True, part: np.ndarray | None = None) -> float:
        """A store's sectors, arriving at ``t`` (``written``: the bytes it writes in each; ``part``: those in
        which it writes some word in part, :meth:`smsim.mem.l2.L2._chain`); the cycle L2 has them. Nothing goes
        to DRAM now."""
        spec = self.spec
        sb = spec.sector_bytes
        _, done = self.port.transfer(t, len(sectors) * sb)
        self.sectors_write += len(sectors)
        if written is None:
            written = np.full(len(sectors), sb, np.int64)
        self.partial_writes += int((written < sb).sum())
        held = self.cache.contains(sectors)
        whole = held                      # for this share's sectors written in part: L2 holds them, or
        if self.others:                   # they are other SMs' (theirs to complete, or completed already)
            theirs = self._theirs(sectors)
            whole = theirs | held
            if self.completed:
                held = whole
            if self.device_holds is not None and theirs.any():
                spl = self.cache.sectors_per_line
                self.shared_lines.update(dict.fromkeys((sectors[theirs] // spl).tolist()))
                forget_oldest(self.shared_lines, self.others_limit)
        if self.deferred:
            self._restore(sectors)
        if self.ahead:                    # in part, but other SMs' blocks complete them (touched_by_others)
            short = ~whole & (written < sb)
            if short.any():
                later = np.zeros(len(sectors), bool)
                later[short] = self._touched_ahead(sectors[short])
                if later.any():
                    whole = whole | later
                    if self.device_holds is not None:
                        spl = self.cache.sectors_per_line
                        self.shared_lines.update(dict.fromkeys((sectors[later] // spl).tolist()))
                        forget_oldest(self.shared_lines, self.others_limit)
        merged = self._merge_partial(sectors, written, held, done, narrow)
        sent = self._fill(sectors, done, t)
        self._dirty_bytes(sectors, written, whole)
        if self.n_dirty > self.dirty_limit or len(self.part_count) > self.partial_limit:
            sent = max(sent, self._clean(t))
        return max(done, merged, sent, self._chain(part, max(done, merged))) + spec.hit_latency_cycles

    def atomic(self, sectors: np.ndarray, t: float, ops: np.ndarray, red: bool = False, floating: bool = False,
               whole: np.ndarray | None = None, swap: bool = False, wide: bool = False) -> float:
        """An atomic (:meth:`smsim.mem.l2.L2.atomic`), after which the sectors it changed are dirty, whole (L2
        read them for it), and noted as an atomic's: when this SM's share lets such a line go, the device's L2
        (:attr:`device_holds`) decides whether it is written back (:meth:`_write_back`)."""
        done = super().atomic(sectors, t, ops, red, floating, whole, swap, wide)
        sb = self.spec.sector_bytes
        self._dirty_bytes(sectors, np.full(len(sectors), sb, np.int64), np.ones(len(sectors), bool))
        self.by_atomic.update(sectors.tolist())
        if self.n_dirty > self.dirty_limit:
            done = max(done, self._clean(t))
        return done

    def _short_of_whole(self, sectors: np.ndarray, status: np.ndarray) -> np.ndarray:
        """:meth:`smsim.mem.l2.L2._short_of_whole` for the dirty sectors this share holds only in part (one
        blocks of other SMs write too excepted): a read misses them and reads the rest from DRAM, which makes
        them whole (dirty, and written back whole)."""
        if not self.n_part:
            return status
        sb, spl, dirty, writers = self.spec.sector_bytes, self.cache.sectors_per_line, self.dirty, self.writers
        part = np.zeros(len(sectors), bool)
        for i, s in enumerate(sectors.tolist()):
            line = dirty.get(s // spl)
            part[i] = line is not None and line.get(s % spl, sb) < sb and status[i] == cache.HIT \
                and not (writers and s in writers)
        if not part.any():
            return status
        n = int(part.sum())              # the read's DRAM bytes fill them: whole from now
        self._dirty_bytes(sectors[part], np.full(n, sb, np.int64), np.ones(n, bool), request=False)
        status = status.copy()
        status[part] = cache.MISS
        return status

    def _add_bytes(self, sectors: np.ndarray, written: np.ndarray) -> None:
        """Bytes merged into dirty sectors an earlier write brought (:meth:`smsim.mem.l2.L2.merged`)."""
        self._dirty_bytes(sectors, written, np.zeros(len(sectors), bool), request=False)

    def _dirty_bytes(self, sectors: np.ndarray, written: np.ndarray, whole: np.ndarray, request: bool = True) -> None:
        """``written`` bytes into each of ``sectors``, dirty from now (``whole``: complete whatever the bytes,
        L2 held them or other SMs' blocks fill them); note those still written only in part, and (``request``:
        a write request of its own, not bytes merged into another's) one more write to merge into each line
        holding such sectors when it is completed."""
        sb, spl = self.spec.sector_bytes, self.cache.sectors_per_line
        writers, filled, merging, lines = self.writers, self.filled, self.merging, set()
        for s, w, h in zip(sectors.tolist(), written.tolist(), whole.tolist()):
            n = writers.get(s, 1) if writers else 1
            if n != 1:                    # this SM's bytes in it so far, for the slices' merging
                merging[s] = min(merging.get(s, sb if h else 0) + w, sb)
                if not n:                 # dirty in another SM's share
                    continue
            ln, k = divmod(s, spl)
            line = self.dirty.setdefault(ln, {})
            was = line.get(k)
            if was is None:
                self.n_dirty += 1
                if n > 1:
                    filled[s] = n
            before = (sb if h else 0) if was is None else was
            line[k] = now = min(before + w, sb)
            if n > 1:                     # the writers' bytes between them, each writing as this SM does
                now, was = now * n, None if was is None else was * n
            moved = (now < sb) - (was is not None and was < sb)
            if moved:
                self.n_part += moved
                left = self.part_count.get(ln, 0) + moved
                if left:
                    self.part_count[ln] = left
                    self.partial_lines.setdefault(ln, 0)
                else:                     # its last sector in part is whole now
                    del self.part_count[ln]
                    self.partial_lines.pop(ln, None)
            lines.add(ln)
        part = self.partial_lines
        for ln in lines if request else ():
            if ln in part:
                part[ln] += 1
        forget_oldest(merging, self.others_limit)

    def written_by_others(self, sectors: np.ndarray, writers: np.ndarray) -> None:
        """Sectors that blocks of other SMs store into as well (see :meth:`smsim.contracts.L2Model`): one
        another SM's share writes back is not dirty in this one (it takes its turn in the slices and its place
        in this share all the same); one this share writes back has, with each store into it, the bytes all
        its ``writers`` write, each as much as this SM's store (a reduction's partial sums fill their sector
        between eight blocks, and nothing is read from DRAM to complete it)."""
        self.writers.update(zip(sectors.tolist(), writers.tolist()))
        forget_oldest(self.writers, self.others_limit)

    def touched_by_others(self, sectors: np.ndarray) -> None:
        """Sectors blocks of other SMs touch (any order, repeated), blocks that start after this
        SM's now running (the device's run-ahead, :meth:`smsim.sm.SM._device_to`, which runs ahead of this
        SM's stores): a sector this share's stores write, or wrote, only in part that they touch is the
        device's, completed in its L2 by their stores (or by the DRAM fill of their read, which is theirs),
        not read from DRAM by this share: a byte image transposed naively, a column's sector holding four
        blocks' bytes 128 blocks apart on four SMs, which the H200 completes without a read and keeps dirty,
        16 MB, to the kernel's end; a bit-reversal scatter, whose sectors' eight words come from blocks all
        over the grid, read nothing either, its 4 MB output in L2. Those this share holds in part now are
        whole from now on (:meth:`_whole_now`); the sectors are remembered (:attr:`ahead`, as many as
        :attr:`others_limit`) for the stores still to come (:meth:`write`). Left out: how many of the
        device's lines are in part at once (``partial_lines`` counts this share's own; a scatter into an
        array L2 does not hold completes some of them from DRAM, as the H200 does)."""
        if not len(sectors):
            return
        touched = np.unique(sectors)
        self.ahead.append(touched)
        self.n_ahead += len(touched)
        while self.n_ahead - len(self.ahead[0]) >= self.others_limit:
            self.n_ahead -= len(self.ahead.popleft())
        if self.part_count:
            spl = self.cache.sectors_per_line
            mine = np.fromiter(self.part_count, np.int64, len(self.part_count))
            self._whole_now(touched[np.isin(touched // spl, mine)])

    def _touched_ahead(self, sectors: np.ndarray) -> np.ndarray:
        """Which of ``sectors`` blocks of other SMs touch, as the device's run-ahead told (:attr:`ahead`)."""
        found = np.zeros(len(sectors), bool)
        for seen in self.ahead:
            at = np.searchsorted(seen, sectors).clip(0, len(seen) - 1)
            found |= seen[at] == sectors
        return found

    def _whole_now(self, sectors: np.ndarray) -> None:
        """``sectors``, which other SMs' blocks touch (:meth:`touched_by_others`): those dirty in this share with
        only its stores' bytes are whole from now on, and their lines the device's (:attr:`shared_lines`)."""
        spl, sb, filled = self.cache.sectors_per_line, self.spec.sector_bytes, self.filled
        for s in sectors.tolist():
            ln, k = divmod(s, spl)
            line = self.dirty.get(ln)
            if line is None or k not in line or line[k] * (filled.get(s, 1) if filled else 1) >= sb:
                continue
            line[k] = sb
            filled.pop(s, None)
            self.n_part -= 1
            left = self.part_count[ln] - 1
            if left:
                self.part_count[ln] = left
            else:
                del self.part_count[ln]
                self.partial_lines.pop(ln, None)
            if self.device_holds is not None:
                self.shared_lines[ln] = None
        forget_oldest(self.shared_lines, self.others_limit)

    def _sharers(self, sectors: np.ndarray) -> np.ndarray:
        """How many blocks store into each of ``sectors`` at the same point of their code, this SM's among them
        (:meth:`written_by_others`; 1 where no other SM's block does)."""
        writers = self.writers
        return np.fromiter((writers.get(s, 1) for s in sectors.tolist()), np.int64, len(sectors))

    def _theirs(self, sectors: np.ndarray) -> np.ndarray:
        """Which of ``sectors`` other SMs' blocks touched before (:meth:`held_by_others`), which this SM's
        share of L2 holds from now on."""
        others = self.others
        return np.fromiter((others.pop(s, None) is not None for s in sectors.tolist()), bool, len(sectors))

    def _held_in_part(self, sectors: np.ndarray) -> np.ndarray:
        """Which of ``sectors`` are dirty with only the bytes stores wrote into them so far (this SM's, in a
        sector other SMs' stores fill too: what the slices have of it when this SM's store comes is not known)."""
        dirty, spl, sb, merging = self.dirty, self.cache.sectors_per_line, self.spec.sector_bytes, self.merging
        if not self.n_part and not merging:
            return np.zeros(len(sectors), bool)
        return np.array([(merging[s] if s in merging else dirty.get(s // spl, {}).get(s % spl, sb)) < sb
                         for s in sectors.tolist()], bool)

    def _clean(self, t: float) -> float:
        """Complete the oldest lines with sectors written in part (:meth:`_complete`) until no more than
        ``partial_lines`` lines hold those, then write back the oldest dirty lines until no more than
        ``dirty_bytes`` are dirty (this SM's shares): the cycle L2 has room again."""
        sent = t
        while len(self.part_count) > self.partial_limit:
            oldest = next(iter(self.partial_lines))
            if oldest in self.part_count:
                sent = max(sent, self._complete(oldest, t))
            else:                         # written back, or whole by now: no longer in part
                del self.partial_lines[oldest]
        while self.n_dirty > self.dirty_limit:
            oldest = next(iter(self.dirty))
            sent = max(sent, self._write_back(np.array([oldest], np.int64), t))
        return sent

    def _complete(self, line: int, t: float) -> float:
        """Complete ``line``'s sectors written in part and write its dirty sectors back, in the background
        (:meth:`smsim.mem.dram.Dram.clean`), the line's turns at the device's completions
        (``completions_per_cycle``) from ``t``, one for each store written into it since it held a sector in
        part (the slices merge each into the sector DRAM sent): the cycle the first comes, or HBM's rows or
        bus are ready for it, whichever is later (until then L2 keeps the line: a store that put it past
        ``partial_lines`` waits)."""
        writes = self.partial_lines.get(line) or 1
        partial, written = self._release(line)
        turn = self.completing.transfer(t, writes)[0] if self.completing is not None and len(partial) else t
        return max(turn, self.dram.clean(partial, written, t, self.partial_limit))

    def _release(self, line: int) -> tuple:
        """``line`` (dirty) leaves the dirty set, its sectors counted as written back: ``(its sectors written
        only in part, counted as completed, all its dirty sectors)``."""
        sb, spl = self.spec.sector_bytes, self.cache.sectors_per_line
        sectors_written = self.dirty.pop(line)
        self.partial_lines.pop(line, None)
        self.part_count.pop(line, None)
        self.n_dirty -= len(sectors_written)
        filled = self.filled
        partial = np.array([line * spl + k for k, b in sectors_written.items()
                            if b * (filled.pop(line * spl + k, 1) if filled else 1) < sb], np.int64)
        self.n_part -= len(partial)
        self.completed += len(partial)
        self.written_back += len(sectors_written)
        return partial, np.array([line * spl + k for k in sectors_written], np.int64)

    def _fill(self, sectors: np.ndarray, ready: float, now: float) -> float:
        """Allocate ``sectors``, writing back the dirty lines they evict: the cycle HBM starts on those."""
        evicted = self.cache.fill_evicting(sectors, ready)
        sent = self._flush(now) if self.deferred else now
        if len(evicted) and self.dirty:
            return max(sent, self._write_back(evicted, now))
        return sent

    def _defer(self, line: int) -> bool:
        """Keep ``line``, which this share lets go, dirty in the device's L2 if it is one of :attr:`shared_lines`
        and the device still holds it (a scatter's words into an array L2 holds, from every SM: the H200 writes
        none of it back during the kernel); True if so."""
        if line not in self.shared_lines or not self._device_has(line):
            return False
        sectors_written = self.dirty.pop(line)
        self.partial_lines.pop(line, None)
        if self.part_count.pop(line, None):
            self.n_part -= self._in_part(line, sectors_written)
        self.n_dirty -= len(sectors_written)
        self.deferred[line] = sectors_written
        return True

    def _device_has(self, line: int) -> bool:
        """Whether the device's L2 (:attr:`device_holds`) holds any sector of ``line``."""
        holds, spl = self.device_holds, self.cache.sectors_per_line
        return holds is not None and bool(holds(np.arange(line * spl, (line + 1) * spl, dtype=np.int64)).any())

    def _in_part(self, line: int, sectors_written: dict) -> int:
        """How many of ``line``'s dirty sectors (sector within the line -> bytes written) are written only in
        part, the bytes of the blocks that fill one between them counted (:attr:`filled`)."""
        spl, sb, filled = self.cache.sectors_per_line, self.spec.sector_bytes, self.filled
        return sum(b * filled.get(line * spl + k, 1) < sb for k, b in sectors_written.items())

    def _restore(self, sectors: np.ndarray) -> None:
        """A store into lines :attr:`deferred` brings them back into this share's dirty lines."""
        deferred = self.deferred
        for line in set((sectors // self.cache.sectors_per_line).tolist()):
            got = deferred.pop(line, None)
            if got is None:
                continue
            self.dirty[line] = got
            self.n_dirty += len(got)
            part = self._in_part(line, got)
            if part:
                self.n_part += part
                self.part_count[line] = part
                self.partial_lines.setdefault(line, 0)

    def _flush(self, t: float) -> float:
        """Look at the four oldest :attr:`deferred` lines: write back those the device's L2 has let go since, and
        put the others last, to be looked at again in turn: the cycle HBM starts on those written."""
        sent, deferred = t, self.deferred
        for line in list(islice(deferred, 4)):
            if self._device_has(line):
                deferred[line] = deferred.pop(line)
                continue
            self.dirty[line] = deferred.pop(line)
            self.n_dirty += len(self.dirty[line])
            sent = max(sent, self._write_back(np.array([line], np.int64), t, defer=False))
        return sent

    def _write_back(self, lines: np.ndarray, t: float, defer: bool = True) -> float:
        """Write the evicted ``lines``' dirty sectors to DRAM at ``t``, completing partly written ones first
        (``defer``: but keep those the device's L2 holds for other SMs too, :meth:`_defer`): the cycle HBM starts
        on the last of them (``t`` if none was dirty)."""
        sent = t
        for line in lines.tolist():
            if not self.dirty.get(line):
                continue
            if self.by_atomic and self._kept(line):
                continue
            if defer and self.shared_lines and self._defer(line):
                continue
            partial, written = self._release(line)
            got = self.dram.read(partial, t, alone=True) if len(partial) else None
            sent = max(sent, self.dram.write(written, t, got))
        return sent

    def _kept(self, line: int) -> bool:
        """``line``'s dirty sectors that atomics changed, which this SM's share lets go: those the device's L2
        still holds stay dirty there (another SM's atomics keep taking them: a histogram, a scatter over 16
        MB), no longer this share's to write; True when none of the line is left to write back."""
        spl = self.cache.sectors_per_line
        mine = self.dirty[line]
        atomic = [k for k in mine if line * spl + k in self.by_atomic]
        if not atomic:
            return False
        for k in atomic:
            self.by_atomic.discard(line * spl + k)
        if self.device_holds is not None:
            held = self.device_holds(np.array([line * spl + k for k in atomic], np.int64))
            for k, h in zip(atomic, held.tolist()):
                if h:
                    del mine[k]
                    self.n_dirty -= 1
                    self.kept_by_device += 1
        if not mine:
            del self.dirty[line]
            self.partial_lines.pop(line, None)
            self.part_count.pop(line, None)
            return True
        return False

    def metrics(self, cycles: float) -> dict:
        """L2's, and the dirty sectors written back (and completed from DRAM first) during the kernel."""
        return {**super().metrics(cycles), "smsim.l2.sectors_written_back": self.written_back,
                "smsim.l2.partial_sectors_completed": self.completed,
                "smsim.l2.dirty_sectors_at_end": sum(len(d) for d in self.dirty.values())
                + sum(len(d) for d in self.deferred.values()),
                "smsim.l2.lines_kept_by_device": len(self.deferred),
                "smsim.l2.atomic_sectors_kept_by_device": self.kept_by_device}

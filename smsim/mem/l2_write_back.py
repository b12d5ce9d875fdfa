"""A write-back L2 (``l2.model = "write_back"``, the h100/h200 default): stores stay in L2 as dirty sectors.

Life of a store: L1 writes a store's sectors through to L2 (:meth:`WriteBackL2.write`), which allocates them
as the write-through model does, but writes nothing to DRAM: each sector becomes dirty, with the bytes written
into it so far (a sector L2 already held is complete, whatever the store covers). Life of a dirty sector: when
a fill (a read miss, a store, an atomic) evicts its line, or when more than ``l2.dirty_bytes`` (this SM's
share; 0: no limit) are dirty and its line is the oldest dirtied, or more than ``l2.partial_bytes`` of sectors
written in part are dirty and its line is the oldest holding one, the line's dirty sectors are written to DRAM
(``dram__bytes_write``, each written byte holding HBM's bus ``1 + dram.write_turnaround`` times as long as a
read one); one that was only written in part is first read from DRAM, the sector alone, to complete it
(HBM3e's ECC covers whole sectors: on an H200, ``streams.store_stride32`` reads 32 bytes per partly written
sector, 73.5 MB for 8 MB of input), and written once that read is back (L2 has the store that evicted it
only then). What is still dirty when the kernel ends is not written during the kernel,
as Nsight Compute sees it (a 64 MB copy writes 48 MB of DRAM on an H200; a test-size one, none). Everything
else (reads, atomics, the slices' merging of partial writes, the DRAM access granularity) is
:class:`smsim.mem.l2.L2`'s.
"""
from __future__ import annotations

import numpy as np

from ..config import L2Spec
from ..contracts import DramModel
from ..registry import L2_MODELS
from .l2 import L2
from .queue import BandwidthQueue


@L2_MODELS.register("write_back")
class WriteBackL2(L2):
    """:class:`smsim.mem.l2.L2` with dirty sectors written back on eviction (constructor as L2's)."""

    def __init__(self, spec: L2Spec, size_bytes: int, port: BandwidthQueue, dram: DramModel, seed: int = 0,
                 busy: int = 1):
        super().__init__(spec, size_bytes, port, dram, seed, busy)
        self.dirty: dict = {}             # line -> {sector within the line: bytes written so far}, oldest first
        self.n_dirty = 0                  # dirty sectors
        limit = spec.dirty_bytes * self.size_bytes // spec.usable if spec.dirty_bytes else self.size_bytes
        self.dirty_limit = max(1, limit // spec.sector_bytes)     # this SM's share, in sectors
        self.written_back = 0             # dirty sectors written to DRAM
        self.completed = 0                # of those, read from DRAM first (written in part)
        self.partial_lines: dict = {}     # dirty lines holding sectors written in part, oldest first
        self.n_part = 0                   # such sectors (at most partial_limit, L2's: l2.partial_bytes)

    def write(self, sectors: np.ndarray, t: float, written: np.ndarray | None = None) -> float:
        """A store's sectors, arriving at ``t`` (``written``: the bytes it writes in each); the cycle L2 has
        them. Nothing goes to DRAM now."""
        spec = self.spec
        sb = spec.sector_bytes
        _, done = self.port.transfer(t, len(sectors) * sb)
        self.sectors_write += len(sectors)
        if written is None:
            written = np.full(len(sectors), sb, np.int64)
        self.partial_writes += int((written < sb).sum())
        held = self.cache.contains(sectors)
        merged = self._merge_partial(sectors, written, held, done)
        sent = self._fill(sectors, done, t)
        spl = self.cache.sectors_per_line
        for s, w, h in zip(sectors.tolist(), written.tolist(), held.tolist()):
            ln, k = divmod(s, spl)
            line = self.dirty.setdefault(ln, {})
            was = line.get(k)
            if was is None:
                self.n_dirty += 1
            before = (sb if h else 0) if was is None else was
            line[k] = now = min(before + w, sb)
            self.n_part += (now < sb) - (was is not None and was < sb)
            if now < sb:
                self.partial_lines.setdefault(ln, None)
        if self.n_dirty > self.dirty_limit or self.n_part > self.partial_limit:
            sent = max(sent, self._clean(t))
        return max(done, merged, sent) + spec.hit_latency_cycles

    def _held_in_part(self, sectors: np.ndarray) -> np.ndarray:
        """Which of ``sectors`` are dirty with only the bytes stores wrote into them so far."""
        dirty, spl, sb = self.dirty, self.cache.sectors_per_line, self.spec.sector_bytes
        if not self.n_part:
            return np.zeros(len(sectors), bool)
        return np.array([dirty.get(s // spl, {}).get(s % spl, sb) < sb for s in sectors.tolist()], bool)

    def _clean(self, t: float) -> float:
        """Write back the oldest lines with sectors written in part until no more than ``partial_bytes`` of
        those are dirty, then the oldest dirty lines until no more than ``dirty_bytes`` (this SM's shares):
        the cycle HBM starts on the last of them."""
        sent = t
        while self.n_part > self.partial_limit:
            oldest = next(iter(self.partial_lines))
            if oldest in self.dirty:
                sent = max(sent, self._write_back(np.array([oldest], np.int64), t))
            else:
                del self.partial_lines[oldest]
        while self.n_dirty > self.dirty_limit:
            oldest = next(iter(self.dirty))
            sent = max(sent, self._write_back(np.array([oldest], np.int64), t))
        return sent

    def _fill(self, sectors: np.ndarray, ready: float, now: float) -> float:
        """Allocate ``sectors``, writing back the dirty lines they evict: the cycle HBM starts on those."""
        evicted = self.cache.fill_evicting(sectors, ready)
        if len(evicted) and self.dirty:
            return self._write_back(evicted, now)
        return now

    def _write_back(self, lines: np.ndarray, t: float) -> float:
        """Write the evicted ``lines``' dirty sectors to DRAM at ``t``, completing partly written ones first:
        the cycle HBM starts on the last of them (``t`` if none was dirty)."""
        sent = t
        sb, spl = self.spec.sector_bytes, self.cache.sectors_per_line
        for line in lines.tolist():
            sectors_written = self.dirty.pop(line, None)
            if not sectors_written:
                continue
            self.n_dirty -= len(sectors_written)
            self.partial_lines.pop(line, None)
            partial = np.array([line * spl + k for k, b in sectors_written.items() if b < sb], np.int64)
            self.n_part -= len(partial)
            got = None
            if len(partial):
                self.completed += len(partial)
                got = self.dram.read(partial, t)
            start = self.dram.write(np.array([line * spl + k for k in sectors_written], np.int64), t, got)
            sent = max(sent, start)
            self.written_back += len(sectors_written)
        return sent

    def metrics(self, cycles: float) -> dict:
        """L2's, and the dirty sectors written back (and completed from DRAM first) during the kernel."""
        return {**super().metrics(cycles), "smsim.l2.sectors_written_back": self.written_back,
                "smsim.l2.partial_sectors_completed": self.completed,
                "smsim.l2.dirty_sectors_at_end": sum(len(d) for d in self.dirty.values())}

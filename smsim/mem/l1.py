"""L1 data cache and the LSU queue in front of it (global and local memory).

Life of a request: a warp's global/local instruction is coalesced at issue (:func:`smsim.fast.coalesce.
sectors`: its distinct 32-byte sectors and 128-byte lines) and put into the SM's LSU queue, a SimPy
``Store`` of ``lsu_queue`` entries (a full queue stalls the next memory instruction as ``lg_throttle``).
The L1 process takes one request at a time through the tag stage (one cycle per
``tag_lookups_per_cycle`` lines). Loads look their sectors up in the sectored cache
(:class:`smsim.fast.cache.SectorCache`, size from the carveout): hits are ready ``hit_latency_cycles``
later; a sector whose fill is already on its way (allocated by an earlier miss) merges with it; misses
each need an MSHR (``mshrs`` outstanding sectors; none free: the L1 waits, the queue fills up) and go to
L2, and the line is allocated with the cycle the data will arrive. ``.cg`` loads and atomics bypass L1.
Stores write through to L2 without allocating. The data returns over the L1's
``data_bytes_per_cycle`` path; then the request's callback marks its registers ready and the MSHRs are
freed. Counters follow Nsight's ``l1tex__t_{requests,sectors}_pipe_lsu_mem_global_op_*`` and
``..._ld_lookup_{hit,miss}`` (a merge with a pending fill counts as a miss).
"""
from __future__ import annotations

import math

import numpy as np
import simpy

from ..fast.cache import SectorCache
from .queue import BandwidthQueue


class Request:
    """One warp memory instruction on its way through L1."""
    __slots__ = ("kind", "space", "sectors", "lines", "bypass", "ops", "on_done")

    def __init__(self, kind, space, sectors, lines, bypass, ops, on_done):
        self.kind, self.space, self.sectors, self.lines = kind, space, sectors, lines
        self.bypass, self.ops, self.on_done = bypass, ops, on_done


class L1:
    """The SM's L1 (``spec``: :class:`smsim.config.L1Spec`) in front of ``l2``."""

    def __init__(self, env, spec, size_bytes: int, l2, on_space, seed: int = 0):
        self.env, self.spec, self.l2, self.on_space = env, spec, l2, on_space
        unit = spec.line_bytes * spec.assoc
        self.size_bytes = max(unit, size_bytes // unit * unit)
        self.cache = SectorCache(self.size_bytes, spec.line_bytes, spec.sector_bytes, spec.assoc,
                                 spec.replacement, seed)
        self.queue = simpy.Store(env, capacity=spec.lsu_queue)
        self.data = BandwidthQueue(spec.data_bytes_per_cycle)
        self.mshr_used = 0
        self._mshr_freed = None
        self.counts = {k: 0 for k in ("requests_ld", "sectors_ld", "requests_st", "sectors_st", "hit_ld", "miss_ld",
                                      "requests_local", "sectors_local", "requests_atom", "sectors_atom")}
        env.process(self._run())

    def full(self) -> bool:
        return len(self.queue.items) >= self.spec.lsu_queue

    def submit(self, req: Request) -> None:
        """Queue ``req`` (the caller checked :meth:`full`)."""
        self._count(req)
        self.queue.put(req)

    def _count(self, req: Request) -> None:
        c, n = self.counts, len(req.sectors)
        if req.space == "local":
            c["requests_local"] += 1
            c["sectors_local"] += n
        elif req.kind == "atom":
            c["requests_atom"] += 1
            c["sectors_atom"] += n
        else:
            c["requests_" + req.kind] += 1
            c["sectors_" + req.kind] += n

    def _run(self):
        env, spec = self.env, self.spec
        while True:
            req = yield self.queue.get()
            self.on_space()
            yield env.timeout(max(1, -(-req.lines // spec.tag_lookups_per_cycle)))
            if req.kind == "st":
                self._finish(req, self.l2.write(req.sectors, env.now), 0)
            elif req.kind == "atom":
                self._finish(req, self.l2.atomic(req.sectors, env.now + spec.hit_latency_cycles, req.ops), 0)
            else:
                yield from self._load(req)

    def _load(self, req: Request):
        spec, sectors = self.spec, req.sectors
        t = self.env.now
        if req.bypass:
            status = np.full(len(sectors), 2, np.int8)
            ready = np.zeros(len(sectors))
        else:
            status, ready = self.cache.lookup(sectors, t)
        miss = status == 2
        need = int(miss.sum())
        if req.space != "local":
            self.counts["hit_ld"] += len(sectors) - need if not req.bypass else 0
            self.counts["miss_ld"] += need + (0 if req.bypass else int((status == 1).sum()))
        while need and self.mshr_used + need > spec.mshrs and self.mshr_used:
            self._mshr_freed = self.env.event()
            yield self._mshr_freed
            t = self.env.now
        back = t + spec.hit_latency_cycles
        arrive = np.where(status == 0, back, np.maximum(ready, back))
        if need:
            self.mshr_used += need
            missed = sectors[miss]
            got = self.l2.read(missed, back)
            if not req.bypass:
                self.cache.fill(missed, got)
            arrive[miss] = got
        _, done = self.data.transfer(float(arrive.max()), len(sectors) * spec.sector_bytes)
        self._finish(req, done, need)

    def _finish(self, req: Request, done: float, mshrs: int) -> None:
        env = self.env
        done = math.ceil(done)            # results reach the scoreboard at a cycle boundary
        ev = env.timeout(max(0.0, done - env.now))
        ev.callbacks.append(lambda _e: self._complete(req, done, mshrs))

    def _complete(self, req: Request, done: float, mshrs: int) -> None:
        if mshrs:
            self.mshr_used -= mshrs
            if self._mshr_freed is not None and not self._mshr_freed.triggered:
                self._mshr_freed.succeed()
        req.on_done(done)

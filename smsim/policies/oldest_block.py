"""Oldest block first, round-robin within a block (``scheduler.policy = "oldest_block"``, the h100/h200
presets'): the warps of the oldest resident block are considered first, taken in turn starting after the one
of that block that issued last; then the next oldest block's, and so on.

Measured on an H200 (``benchmarks/sched_order_hw.py``, ``docs/hardware/sched_order_hw.md``): in issue-,
XU- and store-bound kernels of several blocks per SM the blocks end strictly in the order they started, one
after the other, while the warps of one block end together (a one-block XU loop ends all 32 warps within 2%
of its time). Round-robin over all warps (``lrr``) ends every block together; greedy-then-oldest (``gto``)
starves the youngest warps of one block (the bank-conflict microbenchmark's 32 warps: 100 cycles per
iteration against the H200's 69)."""
from __future__ import annotations

from typing import Any

from ..config import SchedulerSpec
from ..registry import SCHEDULER_POLICIES


@SCHEDULER_POLICIES.register("oldest_block")
class OldestBlock:
    """Blocks oldest first; within a block, its warps in turn after the last one issued. The order is kept
    between calls: an issue rotates its block's run alone, and a change of the resident warps (a warp
    retired or arrived: the list's length or its ends differ) rebuilds it."""
    parked = ()

    def __init__(self, spec: SchedulerSpec):
        self.last: dict = {}        # block -> its warp that issued last on this sub-partition
        self.cached: list = []      # the order
        self.span: dict = {}        # block -> (start, end) of its run in the order
        self.sig: tuple = (0, None, None)   # (length, first, last) of the resident warps the order was built for

    def order(self, warps: list, t: float) -> list:
        """``warps`` (oldest first, so a block's warps lie together) with each block's run rotated to start
        after its warp that issued last."""
        n = len(warps)
        if n < 2:
            return warps
        sig = self.sig
        if n != sig[0] or warps[0] is not sig[1] or warps[-1] is not sig[2]:
            self._rebuild(warps)
            self.sig = (n, warps[0], warps[-1])
        return self.cached

    def _rebuild(self, warps: list) -> None:
        n, last = len(warps), self.last
        out: list = []
        span: dict = {}
        i = 0
        while i < n:
            b = warps[i].block
            j = i + 1
            while j < n and warps[j].block is b:
                j += 1
            w, k = last.get(b), i
            if w is not None:
                for m in range(i, j):
                    if warps[m] is w:
                        k = m + 1
                        break
            out += warps[k:j]
            out += warps[i:k]
            span[b] = (i, j)
            i = j
        self.cached, self.span = out, span
        if len(last) > 2 * n:                     # forget blocks that have left
            self.last = {b: w for b, w in last.items() if b in span}

    def issued(self, warps: list, w: Any) -> None:
        """Its block starts after ``w`` next time."""
        b = w.block
        self.last[b] = w
        run = self.span.get(b)
        if run is None or len(warps) < 2:
            return
        i, j = run
        if j - i < 3:                              # a run of one or two: at most a swap
            cached = self.cached
            if j - i == 2 and cached[i] is w:
                cached[i], cached[j - 1] = cached[j - 1], w
            return
        g = self.cached[i:j]
        try:
            k = g.index(w) + 1
        except ValueError:                         # not in its block's run of this order
            return
        self.cached[i:j] = g[k:] + g[:k]

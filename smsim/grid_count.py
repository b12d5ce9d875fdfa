"""The grid's issued instructions (``smsim.grid.inst_executed``, Nsight's ``smsp__inst_executed.sum`` over the
whole launch), estimated from the blocks one SM's simulation knows.

Life of a count: the SM times its own blocks (``blocks="share"``: one of each ``num_sms``, from block 0) and runs
others on the functional interpreter, either traced (a timed block's grid neighbours, :meth:`smsim.sm.SM.
neighbours`), whose issue slots of the stream timed (SASS or PTX) are known exactly (:meth:`traced`), or only for
what they leave in L2 (``l2.sharing = "device"``: every block up to the last timed one,
:meth:`smsim.sm.SM._device_to`), whose PTX issue slots (:mod:`isa.cost`) the interpreter counts (:meth:`ran`): those
become timed slots by a line through the traced blocks' (PTX slots, timed slots) (:meth:`GridCount.slots`). The grid
is cut into strata of ``num_sms`` consecutive blocks, each holding a timed block (the blocks the device runs beside
it); a block nobody ran counts as the mean of the known ones of its stratum, or of all where its stratum has none.
Blocks differ where a grid-stride loop's grid exceeds its data (``plain.saxpy_gs512``: only the first 128 of 512
blocks loop) or a 2-D grid's edge blocks skip work: the neighbours of block 0 alone (two of the timed block's eight)
stood for the first stratum and the count came out 17% low.
"""
from __future__ import annotations

import numpy as np


class GridCount:
    """Issue slots per block of a grid of ``nblocks`` blocks whose strata are ``num_sms`` blocks long."""

    def __init__(self, nblocks: int, num_sms: int):
        self.nblocks, self.num_sms = nblocks, num_sms
        self.exact: dict = {}         # traced block -> (slots of the timed stream, PTX slots)
        self.ptx: dict = {}           # block run on the interpreter only -> its PTX slots

    def traced(self, block: int, slots: float, ptx: float) -> None:
        """Block ``block``'s warps issue ``slots`` of the timed stream, ``ptx`` PTX slots."""
        self.exact[block] = (slots, ptx)

    def ran(self, ptx: dict) -> None:
        """Blocks run on the interpreter only: block -> its PTX slots."""
        for b, p in ptx.items():
            self.ptx.setdefault(b, p)

    def slots(self, ptx: np.ndarray) -> np.ndarray:
        """Timed-stream slots of blocks of ``ptx`` PTX slots: a line through the traced blocks' (PTX slots, slots)
        (least squares; their ratio where they all have the same PTX slots), as a block's slots are a fixed part
        (its set-up and exit) and so many per PTX slot of its loops: blocks that skip a loop issue more SASS per
        PTX slot than those that run it (``workshop.grid_stride_2d``: 1.61 against 1.12), so one ratio over all
        counts the idle blocks' overhead in the working ones. The estimate against the grid's count with every
        block traced (``blocks="all"``), test size: ``plain.saxpy_gs512`` and ``course.upper_tri`` exact (251.6 K
        and 49.8 K by one ratio against 254.0 K and 50.2 K), ``workshop.grid_stride_2d`` 479 K (473 K by one
        ratio, 492 K traced; the H200 issued 425 K). Never below the lowest traced ratio times ``ptx``."""
        known = np.array([(p, s) for s, p in self.exact.values() if p > 0], float).reshape(-1, 2)
        if not len(known):
            return ptx.astype(float)
        p, s = known.T
        low = float((s / p).min())
        if np.ptp(p) == 0:
            return ptx * float(s.sum() / p.sum())
        slope, fixed = np.polyfit(p, s, 1)
        return np.maximum(fixed + slope * ptx, low * ptx)

    def total(self) -> float:
        """The grid's issue slots: known blocks as counted, the rest at their stratum's mean."""
        if not self.exact:
            return 0.0
        per = np.full(self.nblocks, np.nan)
        if self.ptx:
            blocks = np.fromiter(self.ptx, np.int64, len(self.ptx))
            ptx = np.fromiter(self.ptx.values(), float, len(self.ptx))
            per[blocks] = self.slots(ptx)
        for b, (s, _) in self.exact.items():
            per[b] = s
        known = ~np.isnan(per)
        if known.all():
            return float(per.sum())
        overall = float(per[known].mean())
        for lo in range(0, self.nblocks, self.num_sms):
            part = per[lo:lo + self.num_sms]
            have = ~np.isnan(part)
            part[~have] = part[have].mean() if have.any() else overall
        return float(per.sum())

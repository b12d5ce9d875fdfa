"""Contracts: what each swappable part of the timing model offers the rest, as :class:`typing.Protocol`.

Life of a memory request through the contracts: the SM coalesces a warp's global/local access into
sectors and asks its :class:`L1Model` whether the LSU queue has room (:meth:`L1Model.space_at`), then
submits it (:meth:`L1Model.access`), which returns the cycle the data is back; the L1 sends what it
misses to its :class:`L2Model`, which sends its misses and writes to its :class:`DramModel`. A
shared-memory access goes to the :class:`SharedMemoryModel` (MIO queue, banks). Every request's
completion is computed when it is submitted (the levels are first-come first-served queues), so the
methods take the cycle ``t`` the request arrives and return cycles. Each part counts what it did and
reports it, under Nsight Compute's metric names where one exists, from :meth:`Component.metrics`;
:func:`smsim.stats.metrics` only merges what the parts report. A memory level also reports
``smsim.<level>.bytes`` (bytes it moved) and ``smsim.<level>.peak_bytes_per_cycle`` (its peak, as this
SM sees it), from which the merge derives bandwidth and % of peak for every level alike.

A :class:`SchedulerPolicy` orders a sub-partition's warps for issue.

Constructors take these arguments, in this order (the builder, :func:`smsim.single_sm.build_sm`, calls
them so; a new implementation registered in :mod:`smsim.registry` must accept them):

* scheduler policy: ``(spec: SchedulerSpec)``, one instance per sub-partition;
* shared memory: ``(spec: SharedSpec, subpartitions: int, stage: GapQueue | None)`` (``stage``: L1's data path,
  which its wavefronts take too where ``l1.one_data_stage`` says the two are one stage; None: its own);
* L1: ``(spec: L1Spec, size_bytes: int, data: BandwidthQueue, l2: L2Model, seed: int)`` (``size_bytes``:
  what the shared-memory carveout leaves; ``data``: the return path to the registers);
* L2: ``(spec: L2Spec, size_bytes: int, port: BandwidthQueue, dram: DramModel, seed: int, busy: float)``
  (this SM's share of the capacity, its port at its share of the bandwidth, how many times this SM's work
  its slices and atomic units take: the busy SMs, fewer where a short last wave leaves this SM more blocks
  than the mean one, :func:`smsim.single_sm.device_share`'s ``weight``);
* DRAM: ``(spec: DramSpec, queue: BandwidthQueue, sector_bytes: int, busy: float, seed: int)`` (this SM's
  share of the bandwidth; as many times this SM's work the device's row activations take; the seed of its
  random draws);
* front end: ``(spec: LaunchSpec, busy: int, resident: int)`` (``busy``: the SMs the launch keeps busy;
  ``resident``: the blocks one SM holds at once).
"""
from __future__ import annotations

from typing import Any, Protocol, Sequence

import numpy as np


class Component(Protocol):
    """Any part of the model that counts: its counters as a flat dict, ``cycles`` being the launch's
    elapsed cycles on this SM."""

    def metrics(self, cycles: float) -> dict[str, Any]: ...


class DramModel(Component, Protocol):
    """DRAM as this SM sees it. ``sectors`` are global sector indices (``address // sector_bytes``);
    ``access_bytes``: what one read moves (L2 asks for whole accesses); ``bytes_read``: read so far."""
    access_bytes: int
    bytes_read: int
    #: the part of the lines its write-backs touch that is this SM's (the rest other SMs' blocks wrote: the
    #: device's L2 writes the line back whole), set by L2 (:meth:`smsim.mem.l2.L2.share_lines`); 1.0: all
    line_part: float

    def read(self, sectors: np.ndarray, t: float, alone: bool = False) -> float:
        """The cycle ``sectors`` requested at ``t`` arrive at L2 (``alone``: each sector by itself, not its
        whole access: L2 completing a sector written in part)."""
        ...

    def clean(self, reads: np.ndarray, writes: np.ndarray, t: float, backlog: int) -> float:
        """L2 completes ``reads`` and writes ``writes`` back from ``t`` in the background, in the cycles the
        bus is idle, owing at most what ``backlog`` sectors' completion and write-back take: the cycle HBM
        is ready for them (until then L2 keeps them)."""
        ...

    def write(self, sectors: np.ndarray, t: float, ready: float | None = None) -> float:
        """Write ``sectors`` back at ``t`` (takes bandwidth; ``ready``: the cycle their data is complete, if
        later): the cycle HBM starts on them. Nobody waits for a write, but L2 can pass on no more than HBM
        takes: a store whose sectors are written on waits for it."""
        ...

    def fetched_by_others(self, sectors: np.ndarray, t: float) -> float:
        """The cycle ``sectors``, which another SM asked for at ``t``, arrive at L2 (no traffic of this SM's)."""
        ...

    def slowest_sm_lag(self, busy: int) -> float:
        """Cycles the slowest of ``busy`` SMs ends after this one, which stands for the mean SM."""
        ...


class L2Model(Component, Protocol):
    """L2 as this SM sees it, in front of a :class:`DramModel`."""
    size_bytes: int
    paid_lines: np.ndarray            # the lines the last write was charged for as written in part
    fetched: int                      # sectors of the last read that this SM's share fetched from DRAM
    atomics_done: float               # when the atomics all busy SMs sent so far are performed (0: none)
    atomic_taken: float               # when the slices' units took up the last atomic (the work before it done)
    now: float                        # the latest cycle L1 asked at, which L1 keeps (no later request arrives
                                      # before it: what the slices were busy with until then is done)

    def read(self, sectors: np.ndarray, t: float, block: int = -1) -> np.ndarray:
        """The arrival cycle of each of ``sectors`` (sorted, distinct) requested at ``t`` by the grid's block
        ``block`` (-1: not known; lines that several blocks read are the ones all SMs may read at once)."""
        ...

    def write(self, sectors: np.ndarray, t: float, written: np.ndarray | None = None,
              narrow: bool = True, part: np.ndarray | None = None) -> float:
        """A store's sectors arriving at ``t`` (``written``: bytes the store writes in each, if known;
        ``narrow``: a store L1 could merge with its warp's next stores, ``l1.merge_sectors`` sectors in
        ``l1.merge_lines`` lines at most; ``part``: the sectors in which it writes some 4-byte word only in
        part, :func:`smsim.fast.coalesce.part_sectors`): the cycle L2 has them."""
        ...

    def merged(self, sectors: np.ndarray, written: np.ndarray, paid: np.ndarray, whole: np.ndarray,
               t: float) -> None:
        """Bytes of a store (``written`` in each of ``sectors``) that L1 merged into an earlier write still
        waiting to leave the SM: no time, request or write sector of their own; ``paid``: that write's lines
        L2 charged as written in part (its :attr:`paid_lines`), ``whole``: those the two fill whole."""
        ...

    def atomic(self, sectors: np.ndarray, t: float, ops: np.ndarray, red: bool = False, floating: bool = False,
               whole: np.ndarray | None = None, swap: bool = False, wide: bool = False) -> float:
        """A global atomic on ``sectors`` at ``t``, ``ops[i]`` operations in turn on sector ``i`` (``red``: a
        reduction, whose result nobody reads; ``floating``: a float add; ``whole[i]``: how many of sector
        ``i``'s operations name every word of it, or, for a compare-and-swap (``swap``), more than one word,
        None: none; ``wide``: an integer operation on 64-bit words): the cycle its results are back."""
        ...

    def held_by_others(self, sectors: np.ndarray, t: float, there: np.ndarray | None = None,
                       together: np.ndarray | None = None, block: int | None = None) -> None:
        """``sectors`` (any order) that other SMs asked for at about ``t``, bringing them into the device's L2:
        a miss of this SM's share on one of them is an L2 hit, its data there once theirs is (at once where
        the mask ``there`` is set: brought long before; where ``together`` is, as a read this SM asked for
        when it looks the sector up would be). ``block``: handed over for that block of this SM's, and held
        for it until :meth:`released`."""
        ...

    def released(self, block: int) -> None:
        """Block ``block`` of this SM's retired: what was handed over for it alone is no longer held."""
        ...

    def written_by_others(self, sectors: np.ndarray, writers: np.ndarray) -> None:
        """Blocks of other SMs store into ``sectors`` with the block starting now, ``writers[i]`` blocks in all
        (this one among them) into sector ``i``, alike: the device's L2 holds each once, filled by them all,
        written back once, by this SM's share where ``writers[i]`` is set (0: another SM's)."""
        ...

    def touched_by_others(self, sectors: np.ndarray) -> None:
        """Blocks of other SMs that start after this SM's blocks now running touch ``sectors`` (any order): what
        this SM's stores left written in part there, the device's L2 completes with theirs."""
        ...


class L1Model(Component, Protocol):
    """The SM's L1 and LSU queue (global and local memory), in front of an :class:`L2Model`."""
    size_bytes: int
    tag_free: float          # the cycle the last request submitted leaves the tag stage (toward L2)
    sent: float              # the cycle the last request submitted leaves the SM (stores, reductions wait for credits)
    from_l2: bool            # the last load or atomic submitted waited for L2 (the SM keeps a warp's such in order)

    def space_at(self, t: float) -> float:
        """The cycle from which the LSU queue has room for a request arriving at ``t`` (``t`` if it has)."""
        ...

    def access(self, kind: str, space: str, sectors: np.ndarray, lines: int, bypass: bool, ops: np.ndarray | None,
               t: float, floating: bool = False, whole: np.ndarray | None = None, merged: bool = False,
               warp: int = -1, rows: tuple | None = None, waves: int = 1, carried: int = 0,
               part: np.ndarray | None = None, swap: bool = False, wide: bool = False) -> float:
        """Submit a request (``kind`` "ld", "st", "atom" or "red", an atomic whose result nobody reads;
        ``space`` "global" or "local"; ``lines``
        distinct cache lines among ``sectors``; ``bypass``: skip L1 allocation, as ``.cg``; ``ops``: per
        sector, an atomic's operations (:func:`smsim.fast.coalesce.atomic_ops`) or a store's bytes written
        (:func:`smsim.fast.coalesce.bytes_written`), else None) at ``t`` (whether an atomic is a ``floating``
        add and its operations on ``whole`` sectors, :func:`smsim.fast.coalesce.whole_rounds`, go on to L2):
        the cycle its data is back (load, atomic) or L2 has it (store; ``merged``: a store whose bytes an
        earlier store of its warp carried to L2 takes the tag stage and nothing more; ``warp``: who makes it,
        a number no other warp of the launch has, for stores that may join another warp's write; ``rows``:
        the DRAM rows of that warp's latest load, which a store's join also asks of the waiting write's;
        ``waves``: a cached load's wavefronts in the data array, ``l1.data_banks``; ``carried``: the bytes its
        lanes get, which the data path carries, 0: its sectors'; ``part``: the sectors in which a store writes
        some 4-byte word in part, :func:`smsim.fast.coalesce.part_sectors`; ``wide``: an atomic's integer
        operations on 64-bit words)."""
        ...

    def fence(self, t: float, scope: str) -> float:
        """A memory fence of ``scope`` ("cta", "gpu" or "sys") issued at ``t``, once its warp's earlier memory
        operations are as done as the scope asks: the cycle its warp may go on."""
        ...


class SharedMemoryModel(Component, Protocol):
    """The SM's shared memory and the per-sub-partition MIO queues in front of it."""

    def full(self, sp: int, t: float) -> bool:
        """Is sub-partition ``sp``'s MIO queue full at ``t``?"""
        ...

    def next_free(self, sp: int) -> float:
        """The cycle sub-partition ``sp``'s MIO queue next frees an entry."""
        ...

    def access(self, sp: int, kind: str, offsets: np.ndarray, lanes: np.ndarray, nbytes: int,
               t: float) -> tuple[float, int, int]:
        """An access of ``kind`` ("ld", "st", "atom") issued at ``t`` by sub-partition ``sp``, one byte
        offset per active lane (``lanes``: 0..31): ``(ready cycle, wavefronts, bank conflicts)``."""
        ...

    def store_data(self, lines: int, t: float) -> float:
        """A global store issued at ``t`` writing ``lines`` 128-byte lines moves its data through the data
        stage shared-memory wavefronts take: the cycle it has crossed it."""
        ...


class FrontEndModel(Component, Protocol):
    """What getting work onto the SM costs: block dispatch, the cold instruction cache, the constant cache."""

    def dispatch_at(self, t: float, refill: bool = False) -> float:
        """A block for this SM is asked for at ``t`` (``refill``: into the slot of a block that retired then):
        the cycle it starts."""
        ...

    def retire_at(self, t: float) -> float:
        """A block of this SM finished at ``t``: the cycle it is retired (its slot free again)."""
        ...

    def code_ready(self, t: float) -> float:
        """The cycle a warp starting at ``t`` has its first instruction."""
        ...

    def constant(self, space: str, addr: np.ndarray, t: float) -> float:
        """Parameter or constant addresses read at ``t``: the cycle they are in the constant cache."""
        ...


class SchedulerPolicy(Protocol):
    """The order in which one sub-partition's scheduler considers its warps. ``parked``: warps the policy
    keeps from issuing for now (their readiness still wakes the scheduler)."""
    parked: Sequence

    def order(self, warps: list, t: float) -> Sequence:
        """``warps`` (resident, oldest first) in the order to consider them at cycle ``t``."""
        ...

    def issued(self, warps: list, w: Any) -> None:
        """``w`` (one of ``warps``) was just issued."""
        ...


def level_metrics(level: str, nbytes: float, peak_bytes_per_cycle: float) -> dict[str, float]:
    """The two figures every memory level reports for the bandwidth table (see the module docstring)."""
    return {f"smsim.{level}.bytes": int(nbytes), f"smsim.{level}.peak_bytes_per_cycle": float(peak_bytes_per_cycle)}


__all__ = ["Component", "DramModel", "L2Model", "L1Model", "SharedMemoryModel", "FrontEndModel", "SchedulerPolicy",
           "level_metrics"]

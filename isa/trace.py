"""Block traces: what each warp of a block executed, for the timing model to replay against its clock.

Life of a trace (:func:`trace_blocks`): the timing model dispatches a block; the block runs on the
functional interpreter (:class:`isa.engine.Batch`, all its warps together, exactly as ``isa.run`` runs
it) with a :class:`isa.engine.TraceLog` given to it: the engine notes there, per step, the instruction and
which warps executed it, and the memory instructions the addresses each access touched, by state space and
lane. The result,
per warp, is its instruction stream (pcs, in order) and, per memory instruction in it, the addresses
its lanes touched (:class:`WarpTrace`, :class:`BlockTrace`: compact arrays, a few bytes per lane access,
so that a long kernel's trace stays small). The timing model then decides *when* each instruction issues; the
values were computed when the block ran. So a block's outputs are exactly the functional interpreter's,
and what a warp does cannot depend on timing: ``%clock`` reads do not give simulated cycles, and a block
cannot wait on another block that has not run yet (as in the functional interpreter).

:class:`OpInfo` gives the timing model each instruction's static facts: registers read and written, the
execution unit and latency class, issue slots, memory space and access width.
"""
from __future__ import annotations

import weakref
from array import array
from typing import Any

import numpy as np
from numba import njit

from . import ptxtypes
from .decode import Op, flatten
from .engine import TraceLog
from .opcodes import latency_of, unit_of
from .ops.memory import SPACES, space_of, vector_width
from .program import Addr, Reg


class OpInfo:
    """What the timing model needs to know about one instruction, computed once per program."""
    __slots__ = ("op", "srcs", "dsts", "results", "unit", "latency", "cost", "space", "nbytes", "mem", "cache_op",
                 "barrier", "fence", "branch", "line", "float_add", "swap", "one_op", "rf")

    def __init__(self, op: Op, prog: Any):
        ins = op.ins
        self.op, self.cost, self.line = op, op.cost, (ins.loc.line if ins.loc else None)
        self.unit, self.latency = unit_of(ins), latency_of(ins)
        name = ins.opcode
        nd = 0 if name in ("st", "red") else op.fam.ndst
        regs = lambda ops: tuple(dict.fromkeys(  # noqa: E731
            prog.reg_id(o.name) for o in _reg_operands(ops) if o.name != "_" and o.name in prog.reg_index))
        self.dsts = regs(ins.operands[:nd])
        srcs = list(ins.operands[nd:])
        if ins.guard is not None:
            srcs.append(ins.guard)
        self.srcs = regs(srcs)
        self.results = self.dsts          # the registers its result is written to
        self.mem = name if op.kind == "mem" and name != "cvta" else None
        self.space = space_of(ins) if self.mem else None
        self.nbytes = ptxtypes.size(ins.type) * vector_width(ins) if self.mem else 0
        self.cache_op = cache_op(name, ins.mods)
        self.float_add = name in ("atom", "red") and (ins.type or "")[:1] == "f" and "add" in ins.mods
        self.swap = name == "atom" and "cas" in ins.mods         # a compare-and-swap
        self.barrier = name in ("bar", "barrier") and not ins.has("warp")
        self.fence = fence_scope(ins.mods) if name == "membar" else ""   # a fence's scope ("": not one)
        self.branch = name == "bra"
        self.one_op = False               # a SASS atomic that adds its active lanes' count once (``.POPC``)
        self.rf: tuple = ()               # register-file banks it reads (the SASS stream's only)


def cache_op(name: str, mods) -> str | None:
    """A memory instruction's cache operator (``ca``, ``cg``, ``cs``, ``lu``, ``cv``, ``nc``; None: the default),
    a strong load of the GPU's or the system's scope read as ``cv`` (fetched from L2 again, never from L1, which
    is coherent only within a block): ``ld.volatile`` (PTX: ``.relaxed.sys``; SASS ``LDG.E.STRONG.SYS``, numba's
    float ``atomic.max`` reads its word so) and ``ld.relaxed``/``ld.acquire`` of ``.gpu``, ``.cluster``, ``.sys``
    (``docs/hardware/hot_lines_hw.md``: every such load of a warp reaches L2 on an H200)."""
    op = next((m for m in mods if m in ("ca", "cg", "cs", "lu", "cv", "nc")), None)
    if op is None and name == "ld" and ("volatile" in mods or (("relaxed" in mods or "acquire" in mods)
                                                                 and "cta" not in mods)):
        return "cv"
    return op


def fence_scope(mods) -> str:
    """The scope of a fence by its PTX modifiers (``membar``/``fence``) or its SASS opcode's parts (``MEMBAR.SC.GPU``,
    either case): "cta" (``.cta``, and the ``.proxy``/``.async`` fences, which order one thread's own accesses),
    "sys", or "gpu" (``membar.gl``, ``.gpu``, ``.cluster``)."""
    m = {x.lower() for x in mods}
    return "sys" if "sys" in m else "cta" if m & {"cta", "proxy", "async"} else "gpu"


def _reg_operands(ops):
    for o in flatten(ops):
        if isinstance(o, Addr):
            if isinstance(o.base, Reg):
                yield o.base
        elif isinstance(o, Reg):
            yield o


_INFOS: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def op_infos(prog: Any) -> list:
    """:class:`OpInfo` of every instruction of a prepared program (computed once per program; the
    program itself is not written to)."""
    infos = _INFOS.get(prog)
    if infos is None:
        infos = _INFOS[prog] = [OpInfo(op, prog) for op in prog.ops]
    return infos


class WarpTrace:
    """One warp's execution: ``pcs``, the instructions it executed in order; and its memory accesses in
    the order it made them, one *part* per state space an instruction touched: ``mem_k[j]`` the position
    in ``pcs`` of the instruction, ``mem_space[j]`` an index into :data:`SPACE_NAMES`, and
    ``mem_lo[j]:mem_hi[j]`` the part's slice of its block's ``addr`` and ``lanes``."""
    __slots__ = ("index", "pcs", "mem_k", "mem_space", "mem_lo", "mem_hi")

    def __init__(self, index: int, pcs: list, mem_k: array, mem_space: array, mem_lo: array, mem_hi: array):
        self.index, self.pcs = index, pcs
        self.mem_k, self.mem_space, self.mem_lo, self.mem_hi = mem_k, mem_space, mem_lo, mem_hi


class BlockTrace:
    """One block's execution: its warps (:class:`WarpTrace`, those with live threads) and, for all their
    memory accesses, the space addresses (``addr``, uint64) and lanes (``lanes``, 0..31, uint8) touched."""
    __slots__ = ("index", "warps", "addr", "lanes")

    def __init__(self, index: int, warps: list, addr: np.ndarray, lanes: np.ndarray):
        self.index, self.warps, self.addr, self.lanes = index, warps, addr, lanes


SPACE_NAMES = SPACES
_SPACE_CODE = {name: i for i, name in enumerate(SPACE_NAMES)}


def _ints(x: np.ndarray, code: str = "q") -> array:
    """A compact array of Python-int-indexable values (4-8 bytes each rather than a list's 36)."""
    return array(code, np.ascontiguousarray(x, np.int64 if code == "q" else np.int8).tobytes())


def trace_blocks(launch: Any, blocks: list) -> list:
    """Run ``blocks`` (block indices) of ``launch`` (an :class:`isa.interp.Launch`) functionally, together,
    and return their :class:`BlockTrace` objects."""
    count = len(blocks)
    log = TraceLog()
    batch = launch.batch(blocks, log=log)
    batch.run()
    steps, acc = log.steps, log.accesses
    nwarps = batch.nlanes // 32
    per_block = batch.lpb // 32
    pcs = np.fromiter((p for p, _ in steps), np.int32, len(steps))
    executing = np.stack([w for _, w in steps]) if steps else np.zeros((0, nwarps), bool)
    # Every recorded access, lane by lane, sorted by warp, then by the order they were made; a part is a
    # run of one record within one warp. A record's lanes ascend, so its accesses of one warp are such a run
    # already: the parts are sorted (stably, by warp: records are in execution order), not the accesses.
    sizes = np.fromiter((a.size for _, _, a, _ in acc), np.int64, len(acc))
    rec_step = np.fromiter((st for st, _, _, _ in acc), np.int64, len(acc)) - 1
    rec_space = np.fromiter((_SPACE_CODE[sp] for _, sp, _, _ in acc), np.int8, len(acc))
    n = int(sizes.sum())
    addr = np.concatenate([a for _, _, a, _ in acc]).astype(np.uint64, copy=False) if n else np.zeros(0, np.uint64)
    lane = np.concatenate([ln for _, _, _, ln in acc]).astype(np.int32) if n else np.zeros(0, np.int32)
    acc.clear()
    rec = np.repeat(np.arange(len(sizes), dtype=np.int32), sizes)
    warp = lane >> 5
    start = np.flatnonzero(np.r_[True, (warp[1:] != warp[:-1]) | (rec[1:] != rec[:-1])]) if n else \
        np.zeros(0, np.int64)
    length = np.diff(np.r_[start, n])
    part_warp, part_rec = warp[start], rec[start]
    del rec, warp
    # (a stable sort of 16-bit keys is a radix sort: a few times faster than of 32-bit ones)
    order = np.argsort(part_warp.astype(np.int16 if nwarps < 1 << 15 else np.int32), kind="stable")
    start, length, part_warp, part_rec = start[order], length[order], part_warp[order], part_rec[order]
    hi = np.cumsum(length, dtype=np.int64)
    lo = hi - length
    at = np.repeat(start - lo, length) + np.arange(n)      # sorted access i is access at[i] as made
    addr, lane = addr[at], lane[at]
    del at, order
    part_step = rec_step[part_rec]
    part_space = rec_space[part_rec]
    lanes = (lane % 32).astype(np.uint8)
    traces = []
    # where each block's accesses and each warp's parts start (searched with values of the arrays' own
    # type: a Python int would have numpy convert the whole array for each search)
    block_at = np.searchsorted(lane, np.arange(count + 1, dtype=lane.dtype) * batch.lpb).tolist()
    warp_at = np.searchsorted(part_warp, np.arange(nwarps + 1, dtype=part_warp.dtype)).tolist()
    for b in range(count):
        first_lane, last_lane = block_at[b], block_at[b + 1]     # this block's accesses, as one slice
        warps = []
        for w in range(per_block):
            gw = b * per_block + w
            idx = np.flatnonzero(executing[:, gw])
            if not idx.size:
                continue
            p0, p1 = warp_at[gw], warp_at[gw + 1]
            warps.append(WarpTrace(w, pcs[idx].tolist(), _ints(np.searchsorted(idx, part_step[p0:p1])),
                                   _ints(part_space[p0:p1], "b"), _ints(lo[p0:p1] - first_lane),
                                   _ints(hi[p0:p1] - first_lane)))
        traces.append(BlockTrace(blocks[b], warps, addr[first_lane:last_lane].copy(),
                                 lanes[first_lane:last_lane].copy()))
    return traces


#: :func:`global_sectors` keys a touched sector by its block's slot in the batch shifted above the sector
#: index (global addresses are below 2**48, so sectors of 16 bytes or more are below 2**44)
_SLOT_SHIFT = 44
#: :func:`global_sectors` folds the keys it has gathered into their distinct values past this many
_SECTOR_FOLD = 1 << 22


class _Drop:
    """A log's step list that keeps nothing (:func:`global_sectors` needs no instruction stream)."""
    __slots__ = ()

    def append(self, _item: Any) -> None:
        """Keep nothing."""


@njit(cache=True)
def _slot_sector_keys(lanes: np.ndarray, addr: np.ndarray, lpb: int, lpb_shift: int, sector_bytes: int,
                      sector_shift: int) -> np.ndarray:
    """``(lane // lpb) << _SLOT_SHIFT | address // sector_bytes`` of each lane (a shift where ``lpb_shift`` or
    ``sector_shift`` is not -1: powers of two), the first of each run of equal neighbours only (neighbouring
    lanes mostly share a sector), in one pass."""
    out = np.empty(len(addr), np.int64)
    m = 0
    prev = np.int64(0)
    for i in range(len(addr)):
        lane = np.int64(lanes[i])
        a = np.uint64(addr[i])
        slot = lane >> lpb_shift if lpb_shift >= 0 else lane // lpb
        sector = np.int64(a >> np.uint64(sector_shift)) if sector_shift >= 0 else np.int64(a // np.uint64(sector_bytes))
        key = slot << _SLOT_SHIFT | sector
        if m == 0 or key != prev:
            out[m] = key
            m += 1
            prev = key
    return out[:m]


def first_per_key(keys: np.ndarray, values: np.ndarray, ordered: bool = False) -> tuple:
    """``(keys sorted, each once; the least of values for each)``. ``ordered``: ``values`` do not decrease
    along the arrays (the first of each key's entries holds its least: a stable sort of the keys alone)."""
    if len(keys) < 2:
        return keys, values
    if ordered:
        o = np.argsort(keys, kind="stable")
    elif (keys[1:] >= keys[:-1]).all():       # sorted already: the least of each run
        start = _run_starts(keys)
        if start.all():
            return keys, values
        at = np.flatnonzero(start)
        return keys[at], np.minimum.reduceat(values, at)
    else:
        o = np.lexsort((values, keys))
    keys, values = keys[o], values[o]
    keep = _run_starts(keys)
    return keys[keep], values[keep]


def _run_starts(keys: np.ndarray) -> np.ndarray:
    """Which of ``keys`` (at least one) differ from the one before them: the first of each run."""
    start = np.empty(len(keys), bool)
    start[0] = True
    np.not_equal(keys[1:], keys[:-1], out=start[1:])
    return start


class _SectorSink:
    """A log's access list that keeps, of each global access, only the distinct (block slot, sector) keys,
    each with the first global access (counted from 0 in the batch's order of execution) that touched it."""
    __slots__ = ("lpb", "sector_bytes", "keys", "firsts", "n", "k", "lpb_shift", "sector_shift")

    def __init__(self, lpb: int, sector_bytes: int):
        self.lpb, self.sector_bytes = lpb, sector_bytes
        # division by a power of two as a shift (-1: not one)
        self.lpb_shift = lpb.bit_length() - 1 if lpb & (lpb - 1) == 0 else -1
        self.sector_shift = sector_bytes.bit_length() - 1 if sector_bytes & (sector_bytes - 1) == 0 else -1
        self.keys: list = []
        self.firsts: list = []
        self.n = 0
        self.k = 0                  # global accesses so far

    def append(self, record: tuple) -> None:
        _, space, addr, lanes = record
        if space != "global" or not len(addr):
            return
        key = _slot_sector_keys(lanes, addr, self.lpb, self.lpb_shift, self.sector_bytes, self.sector_shift)
        self.keys.append(key)
        self.firsts.append(np.full(len(key), self.k, np.int64))
        self.k += 1
        self.n += len(key)
        if self.n > _SECTOR_FOLD:
            keys, firsts = self.distinct()
            self.keys, self.firsts, self.n = [keys], [firsts], len(keys)

    def distinct(self) -> tuple:
        """``(the keys gathered so far, sorted, each once; the first access that touched each)``."""
        if not self.keys:
            return np.zeros(0, np.int64), np.zeros(0, np.int64)
        # the accesses are numbered in the order they came (a fold's keys first): a stable sort finds each key's first
        return first_per_key(np.concatenate(self.keys), np.concatenate(self.firsts), ordered=True)


def global_sectors(launch: Any, blocks: list, sector_bytes: int, firsts: bool = False,
                   issued: dict | None = None, atomics: dict | None = None) -> list:
    """Run ``blocks`` (block indices) of ``launch`` functionally, together, keeping of what they did only the
    global sectors (``address // sector_bytes``) each touched: one sorted int64 array per block, in the order
    of ``blocks`` (``firsts``: a pair per block, the sectors and the global access, counted from 0 in
    execution order, that first touched each: the warps of a batch execute together, so blocks running the
    same code count their accesses alike; ``issued``: a dict given the PTX issue slots, :mod:`isa.cost`, each
    block's warps took; ``atomics``: a dict given, for each block with global atomics, ``(sectors, lanes)``: the
    sectors its atomics named, sorted, and how many lane operations each). Much lighter than
    :func:`trace_blocks` (no instruction streams, no addresses kept), for blocks that are not timed but whose
    traffic matters (what they leave in L2, the slices their atomics keep busy)."""
    log = TraceLog()
    batch = launch.batch(blocks, log=log)
    sink = _SectorSink(batch.lpb, sector_bytes)
    log.steps, log.accesses = _Drop(), sink      # type: ignore[assignment]
    if atomics is not None:
        log.atomics = []
    batch.run()
    if issued is not None:
        issued.update(zip(blocks, batch.warp_issued.reshape(len(blocks), -1).sum(axis=1).tolist()))
    if log.atomics:
        addr = np.concatenate([a for a, _ in log.atomics]).astype(np.int64) // sector_bytes
        slot = np.concatenate([ln for _, ln in log.atomics]).astype(np.int64) // batch.lpb
        keys, ops = np.unique((slot << _SLOT_SHIFT) | addr, return_counts=True)
        slots = keys >> _SLOT_SHIFT
        cut = np.searchsorted(slots, np.arange(len(blocks) + 1))
        for i in np.flatnonzero(np.diff(cut)).tolist():
            atomics[blocks[i]] = (keys[cut[i]:cut[i + 1]] & ((1 << _SLOT_SHIFT) - 1), ops[cut[i]:cut[i + 1]])
    keys, first = sink.distinct()
    slot = keys >> _SLOT_SHIFT
    sectors = keys & ((1 << _SLOT_SHIFT) - 1)
    cut = np.searchsorted(slot, np.arange(len(blocks) + 1))
    if firsts:
        return [(sectors[cut[i]:cut[i + 1]], first[cut[i]:cut[i + 1]]) for i in range(len(blocks))]
    return [sectors[cut[i]:cut[i + 1]] for i in range(len(blocks))]

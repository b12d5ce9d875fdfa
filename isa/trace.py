"""Block traces: what each warp of a block executed, for the timing model to replay against its clock.

Life of a trace (:func:`trace_blocks`): the timing model dispatches a block; the block runs on the
functional interpreter (:class:`isa.engine.Batch`, all its warps together, exactly as ``isa.run`` runs
it) with two recorders attached: the engine notes, per step, the instruction and which warps executed it,
and the memory instructions note the addresses each access touched, by state space and lane. The result,
per warp, is its instruction stream (pcs, in order) and, per memory instruction in it, the addresses
its lanes touched (:class:`BlockTrace`). The timing model then decides *when* each instruction issues; the
values were computed when the block ran. So a block's outputs are exactly the functional interpreter's,
and what a warp does cannot depend on timing: ``%clock`` reads do not give simulated cycles, and a block
cannot wait on another block that has not run yet (as in the functional interpreter).

:class:`OpInfo` gives the timing model each instruction's static facts: registers read and written, the
execution unit and latency class, issue slots, memory space and access width.
"""
from __future__ import annotations

import numpy as np

from . import ptxtypes
from .decode import flatten
from .opcodes import latency_of, unit_of
from .ops.memory import space_of, vector_width
from .program import Addr, Reg


class OpInfo:
    """What the timing model needs to know about one instruction, computed once per program."""
    __slots__ = ("op", "srcs", "dsts", "unit", "latency", "cost", "space", "nbytes", "mem", "cache_op",
                 "barrier", "fence", "branch", "line")

    def __init__(self, op, prog):
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
        self.mem = name if op.kind == "mem" and name != "cvta" else None
        self.space = space_of(ins) if self.mem else None
        self.nbytes = ptxtypes.size(ins.type) * vector_width(ins) if self.mem else 0
        self.cache_op = next((m for m in ins.mods if m in ("ca", "cg", "cs", "lu", "cv", "nc")), None)
        self.barrier = name in ("bar", "barrier") and not ins.has("warp")
        self.fence = name == "membar"
        self.branch = name == "bra"


def _reg_operands(ops):
    for o in flatten(ops):
        if isinstance(o, Addr):
            if isinstance(o.base, Reg):
                yield o.base
        elif isinstance(o, Reg):
            yield o


def op_infos(prog) -> list:
    """:class:`OpInfo` of every instruction of a prepared program (cached on it)."""
    infos = getattr(prog, "_op_infos", None)
    if infos is None:
        infos = prog._op_infos = [OpInfo(op, prog) for op in prog.ops]
    return infos


class BlockTrace:
    """One block's execution: per warp (of those with live threads) the pcs it executed and the step of
    each; ``accesses[(warp, step)]``: the memory parts ``[(space, space addresses, lanes 0..31)]``."""
    __slots__ = ("index", "warps", "accesses")

    def __init__(self, index: int, warps: list, accesses: dict):
        self.index, self.warps, self.accesses = index, warps, accesses


def trace_blocks(launch, first: int, count: int = 1) -> list:
    """Run blocks ``first .. first+count-1`` of ``launch`` (an :class:`isa.interp.Launch`) functionally
    and return their :class:`BlockTrace` objects."""
    batch = launch.batch(first, count)
    steps = batch.recorder = []
    acc = batch.spaces.tracer = []
    batch.run()
    nwarps = batch.nlanes // 32
    pcs = np.fromiter((p for p, _ in steps), np.int32, len(steps))
    executing = np.stack([w for _, w in steps]) if steps else np.zeros((0, nwarps), bool)
    per_block = batch.lpb // 32
    accesses = [{} for _ in range(count)]          # per block: (warp in block, step) -> parts
    for step, space, addr, lanes in acc:
        warp = lanes // 32
        cuts = np.flatnonzero(np.diff(warp)) + 1
        for lo, hi in zip(np.r_[0, cuts], np.r_[cuts, lanes.size]):
            b, w = divmod(int(warp[lo]), per_block)
            accesses[b].setdefault((w, step - 1), []).append((space, addr[lo:hi], lanes[lo:hi] % 32))
    blocks = []
    for b in range(count):
        warps = []
        for w in range(per_block):
            idx = np.flatnonzero(executing[:, b * per_block + w])
            if idx.size:
                warps.append((w, pcs[idx].tolist(), idx.tolist()))
        blocks.append(BlockTrace(first + b, warps, accesses[b]))
    batch.recorder = batch.spaces.tracer = None
    return blocks

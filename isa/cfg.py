"""Control-flow analysis of a kernel: basic blocks, immediate post-dominators and register liveness.

The interpreter asks :func:`reconvergence_points` where each branch's diverged lanes meet again (the
immediate post-dominator of the branch's block, or the kernel's end when the paths only meet at exit),
so hand-written and nvcc-emitted code reconverge alike. :func:`max_live_registers` is the simple register
allocation a kernel reports for occupancy: the most 32-bit register slots live at any instruction.
"""
from __future__ import annotations

from dataclasses import dataclass

from . import opcodes, ptxtypes
from .program import Addr, Instruction, Kernel, Pair, Reg, Sym, Vec

_TERMINATORS = ("exit", "ret", "trap")


@dataclass(frozen=True)
class Block:
    start: int
    end: int            # one past the last instruction
    succs: tuple


def _branch_target(kernel: Kernel, ins) -> int:
    return kernel.labels[ins.operands[-1].name]


def basic_blocks(kernel: Kernel) -> list:
    """Split the body into basic blocks with successor block indices; ``len(blocks)`` is the exit node."""
    body, n = kernel.body, len(kernel.body)
    leaders = {0} | set(kernel.labels.values())
    for i, ins in enumerate(body):
        if ins.opcode == "bra":
            leaders.add(_branch_target(kernel, ins))
            leaders.add(i + 1)
        elif ins.opcode in _TERMINATORS:
            leaders.add(i + 1)
    starts = sorted(x for x in leaders if x < n)
    index = {s: b for b, s in enumerate(starts)}
    exit_node = len(starts)
    blocks = []
    for b, s in enumerate(starts):
        e = starts[b + 1] if b + 1 < len(starts) else n
        last = body[e - 1]
        succs = []
        unconditional = last.guard is None
        if last.opcode == "bra":
            succs.append(index.get(_branch_target(kernel, last), exit_node))
        if last.opcode in _TERMINATORS:
            succs.append(exit_node)
        if not ((last.opcode == "bra" or last.opcode in _TERMINATORS) and unconditional):
            succs.append(index.get(e, exit_node))
        blocks.append(Block(s, e, tuple(dict.fromkeys(succs))))
    return blocks


def immediate_postdominators(blocks: list) -> list:
    """``ipdom[b]`` for each block (the exit node ``len(blocks)`` where only exit post-dominates)."""
    n = len(blocks)
    exit_node = n
    full = frozenset(range(n + 1))
    pdom = [full] * n + [frozenset([exit_node])]
    changed = True
    while changed:
        changed = False
        for b in reversed(range(n)):
            succs = blocks[b].succs
            new = frozenset.intersection(*(pdom[s] for s in succs)) if succs else frozenset()
            new = new | {b}
            if new != pdom[b]:
                pdom[b] = new
                changed = True
    ipdom = []
    for b in range(n):
        strict = pdom[b] - {b}
        if pdom[b] == full:   # no path to exit (an endless loop): reconverge at exit
            strict = frozenset([exit_node])
        # the immediate post-dominator: the strict post-dominator that every other one post-dominates
        cands = [c for c in strict if all(o == c or o in pdom[c] for o in strict)]
        best = cands[0] if cands else exit_node
        ipdom.append(best)
    return ipdom


def reconvergence_points(kernel: Kernel) -> dict:
    """Instruction index of each ``bra`` -> index where its diverged lanes reconverge (``len(body)``:
    only at kernel exit)."""
    blocks = basic_blocks(kernel)
    ipdom = immediate_postdominators(blocks)
    n = len(kernel.body)
    out = {}
    for b, blk in enumerate(blocks):
        last = blk.end - 1
        if kernel.body[last].opcode == "bra":
            p = ipdom[b]
            out[last] = blocks[p].start if p < len(blocks) else n
    return out


# ---------------------------------------------------------------- liveness
def _regs_in(op) -> list:
    if isinstance(op, Reg):
        return [op.name]
    if isinstance(op, Pair):
        return [op.first.name, op.second.name]
    if isinstance(op, Vec):
        return [r for item in op.items for r in _regs_in(item)]
    if isinstance(op, Addr) and isinstance(op.base, Reg):
        return [op.base.name]
    return []


def defs_uses(ins: Instruction) -> tuple[list[str], list[str]]:
    """Registers an instruction writes and reads (special registers and the sink ``_`` excluded)."""
    fam = opcodes.family(ins.opcode)
    nd = fam.ndst
    defs = [r for op in ins.operands[:nd] if not isinstance(op, Addr) for r in _regs_in(op)]
    uses = [r for op in ins.operands[nd:] if not isinstance(op, Sym) for r in _regs_in(op)]
    uses += [r for op in ins.operands[:nd] if isinstance(op, Addr) for r in _regs_in(op)]
    if ins.guard is not None:
        uses.append(ins.guard.name)
    return defs, uses


def max_live_registers(kernel: Kernel) -> int:
    """Most 32-bit register slots live at once (64-bit registers count 2; predicates are not counted)."""
    types = kernel.register_types()
    weight = {r: (0 if t == "pred" else max(1, ptxtypes.size(t) // 4)) for r, t in types.items()}
    blocks = basic_blocks(kernel)
    du = [defs_uses(ins) for ins in kernel.body]
    live_in = [set() for _ in blocks]
    changed = True
    while changed:
        changed = False
        for b in reversed(range(len(blocks))):
            live = set().union(*(live_in[s] for s in blocks[b].succs if s < len(blocks)))
            for i in range(blocks[b].end - 1, blocks[b].start - 1, -1):
                d, u = du[i]
                if kernel.body[i].guard is None:
                    live.difference_update(d)
                live.update(r for r in u if r in weight)
            if live != live_in[b]:
                live_in[b] = live
                changed = True
    best = 0
    for blk in blocks:
        live = set().union(*(live_in[s] for s in blk.succs if s < len(blocks)))
        for i in range(blk.end - 1, blk.start - 1, -1):
            d, u = du[i]
            live_at = live | {r for r in d if r in weight}
            best = max(best, sum(weight[r] for r in live_at))
            if kernel.body[i].guard is None:
                live.difference_update(d)
            live.update(r for r in u if r in weight)
        best = max(best, sum(weight[r] for r in live))
    return best

"""Clean-up passes over the lowered instruction list, as a register allocator and peephole optimizer would.

Life of the code in :func:`optimize`: merge moves are put in place (:class:`~.ir.Slot`); then, three times
over the prologue and body together, copies are propagated and coalesced (a value computed only to be
moved into a variable's register is computed there directly), ``mul`` + ``add`` of floats contract to
``fma`` (nvcc's default ``-fmad=true``; numba-cuda's NVVM does the same) and unused pure instructions are
removed. Last, in the body only, unconditional branches to the next instruction are dropped, a branch over
at most :data:`PREDICATE_MAX` simple instructions becomes those instructions under a guard predicate, and
branches to the next instruction are dropped once more.
"""
from __future__ import annotations

from collections import Counter

from .ir import SIDE_EFFECTS, VREG, Ins, Label, Mem, Slot

PREDICATE_MAX = 4


def flatten(body: list) -> list:
    out = []
    for x in body:
        if isinstance(x, Slot):
            out += x.moves
        else:
            out.append(x)
    return out


def _counts(code):
    defs, uses = Counter(), Counter()
    for ins in code:
        if isinstance(ins, Ins):
            defs.update(ins.dsts)
            uses.update(ins.uses())
    return defs, uses


def _is_copy(ins) -> bool:
    return (isinstance(ins, Ins) and ins.opcode == "mov" and ins.guard is None and len(ins.dsts) == 1
            and len(ins.srcs) == 1 and isinstance(ins.srcs[0], str) and VREG.match(ins.srcs[0]) is not None
            and ins.op != "mov.b64.pack")


def _rename_uses(ins, old, new):
    ins.srcs = [new if s == old else (Mem(new, s.offset) if isinstance(s, Mem) and s.base == old else s)
                for s in ins.srcs]
    if ins.guard and ins.guard[0] == old:
        ins.guard = (new, ins.guard[1])


def coalesce(code: list) -> list:
    """``T = op ...; mov M, T`` -> ``M = op ...`` when T is used only there and M is untouched between."""
    defs, uses = _counts(code)
    drop = set()
    for k, ins in enumerate(code):
        if not _is_copy(ins):
            continue
        m, t = ins.dsts[0], ins.srcs[0]
        if defs[t] != 1 or uses[t] != 1 or m.rstrip("0123456789") != t.rstrip("0123456789"):
            continue
        j = k - 1
        while j >= 0 and isinstance(code[j], Ins) and t not in code[j].dsts and code[j].opcode != "bra":
            if m in code[j].dsts or m in code[j].uses():
                break
            j -= 1
        else:
            if j >= 0 and isinstance(code[j], Ins) and t in code[j].dsts and code[j].guard is None \
                    and len(code[j].dsts) == 1 and code[j].opcode != "bra":
                code[j].dsts = [m]
                drop.add(k)
    return [x for k, x in enumerate(code) if k not in drop]


def propagate(code: list) -> list:
    """``mov T2, T1`` with both defined once: uses of T2 read T1."""
    defs, _ = _counts(code)
    alias = {}
    for ins in code:
        if _is_copy(ins) and defs[ins.dsts[0]] == 1 and defs[ins.srcs[0]] == 1:
            src = ins.srcs[0]
            alias[ins.dsts[0]] = alias.get(src, src)
    if not alias:
        return code
    out = []
    for ins in code:
        if isinstance(ins, Ins):
            if _is_copy(ins) and ins.dsts[0] in alias:
                continue
            for old in set(ins.uses()) & alias.keys():
                _rename_uses(ins, old, alias[old])
        out.append(ins)
    return out


def contract(code: list) -> list:
    """float ``mul`` feeding one ``add`` -> ``fma.rn``."""
    defs, uses = _counts(code)
    where = {ins.dsts[0]: k for k, ins in enumerate(code) if isinstance(ins, Ins) and ins.dsts and
             ins.op in ("mul.f32", "mul.f64") and ins.guard is None}
    drop = set()
    for k, ins in enumerate(code):
        if not (isinstance(ins, Ins) and ins.op in ("add.f32", "add.f64")):
            continue
        for i, s in enumerate(ins.srcs):
            j = where.get(s)
            if j is None or j in drop or uses[s] != 1 or defs[s] != 1 or j > k:
                continue
            mul = code[j]
            if any(isinstance(code[x], Label) or (isinstance(code[x], Ins) and set(code[x].dsts) & set(mul.srcs))
                   for x in range(j + 1, k)):
                continue
            other = ins.srcs[1 - i]
            ins.op = "fma.rn." + ins.op.split(".")[1]
            ins.srcs = [mul.srcs[0], mul.srcs[1], other]
            drop.add(j)
            break
    return [x for k, x in enumerate(code) if k not in drop]


def dce(code: list) -> list:
    while True:
        _, uses = _counts(code)
        out = [x for x in code if not (isinstance(x, Ins) and x.dsts and x.opcode not in SIDE_EFFECTS
                                       and not any(uses[d] for d in x.dsts))]
        if len(out) == len(code):
            return out
        code = out


def jumps(code: list) -> list:
    """Drop ``bra L`` when L comes next (only labels between)."""
    out = []
    for k, ins in enumerate(code):
        if isinstance(ins, Ins) and ins.opcode == "bra" and ins.guard is None:
            j = k + 1
            while j < len(code) and isinstance(code[j], Label):
                if code[j].name == ins.srcs[0]:
                    break
                j += 1
            if j < len(code) and isinstance(code[j], Label) and code[j].name == ins.srcs[0]:
                continue
        out.append(ins)
    return out


def _at_end(code: list, j: int) -> bool:
    """Whether nothing but labels and the return follow ``code[j]``: a branch there is ptxas's predicated
    ``EXIT`` (the threads that skip the body leave at once, as NVVM's code for ``if t == 0: ...`` does)."""
    return all(isinstance(x, Label) or x.opcode in ("ret", "exit") for x in code[j:])


def predicate(code: list) -> list:
    """``@!p bra L; a; b; L:`` -> ``@p a; @p b`` for short, simple bodies (but for a body at the kernel's
    end: :func:`_at_end`)."""
    out, k = [], 0
    while k < len(code):
        ins = code[k]
        if isinstance(ins, Ins) and ins.opcode == "bra" and ins.guard is not None:
            j = k + 1
            while j < len(code) and isinstance(code[j], Ins) and code[j].guard is None and \
                    code[j].opcode not in ("bra", "bar", "ret", "exit", "atom", "red", "shfl", "vote") and \
                    ins.guard[0] not in code[j].dsts:
                j += 1
            n = j - k - 1
            if 0 < n <= PREDICATE_MAX and j < len(code) and isinstance(code[j], Label) and \
                    code[j].name == ins.srcs[0] and not _at_end(code, j):
                g = (ins.guard[0], not ins.guard[1])
                for x in code[k + 1:j]:
                    x.guard = g
                    out.append(x)
                k = j
                continue
        out.append(ins)
        k += 1
    return out


def optimize(prologue: list, body: list) -> tuple[list, list]:
    code = flatten(body)
    whole = prologue + code
    for _ in range(3):
        whole = propagate(whole)
        whole = coalesce(whole)
        whole = contract(whole)
        whole = dce(whole)
    ids = {id(x) for x in prologue}
    pro = [x for x in whole if id(x) in ids]
    rest = [x for x in whole if id(x) not in ids]
    rest = jumps(rest)
    rest = predicate(rest)
    rest = jumps(rest)
    return pro, rest

"""Carry chains: ``add.cc``/``sub.cc``/``mad.cc`` write the carry flag, ``addc``/``subc``/``madc`` read it
(and write it again with ``.cc``): multi-word integer arithmetic, as libdevice's trigonometric argument
reduction emits it (``mad.lo.cc.u32`` / ``madc.hi.u32`` ...).

PTX has one condition-code register per thread, ``CC.CF``. The interpreter keeps it in a hidden ``u32``
register named :data:`CARRY` (a name no PTX text can declare): :class:`isa.interp.Program` declares it
when a kernel uses carry, and :func:`attach` gives such an instruction's decoded Op one more source (the
carry in, for ``addc subc madc``) and/or one more destination (the carry out, for ``.cc``). The
semantics here take the carry in as their last source and return ``(d, carry out)`` when the instruction
writes the flag. For subtraction the flag is the borrow: ``subc`` computes ``a - (b + CC.CF)``, as the
PTX ISA writes it. The operands' types are treated as raw bits of their width (signedness only matters
for ``mad.hi``'s product).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ..opcodes import OpcodeError
from ..program import Instruction, Reg
from .alu_int import lanewise, mul_hi, optype

#: the hidden register holding each lane's carry flag
CARRY = "%cc.cf"
#: opcodes that read the carry flag
CARRY_IN = ("addc", "subc", "madc")
#: integer types carry arithmetic takes
CARRY_TYPES = ("u32", "s32", "u64", "s64")


def carry_in(ins: Instruction) -> bool:
    """Does ``ins`` read the carry flag?"""
    return ins.opcode in CARRY_IN


def carry_out(ins: Instruction) -> bool:
    """Does ``ins`` write the carry flag?"""
    return "cc" in ins.mods


def uses_carry(ins: Instruction) -> bool:
    return carry_in(ins) or carry_out(ins)


def check(ins: Instruction) -> None:
    """``.cc``/``addc``...: 32- or 64-bit integer types only, no ``.sat`` or ``.wide``."""
    if ins.type not in CARRY_TYPES:
        raise OpcodeError(f"'{ins.name}': carry arithmetic takes " + ", ".join("." + t for t in CARRY_TYPES))
    if ins.has("sat") or ins.has("wide"):
        raise OpcodeError(f"'{ins.name}': .sat and .wide do not go with the carry flag")


def attach(op: Any) -> None:
    """Give a decoded alu Op (:class:`isa.decode.Op`) its carry source and/or destination."""
    ins = op.ins
    if carry_in(ins):
        op.readers = tuple(op.readers) + (op.reader(Reg(CARRY), "u32"),)
    if carry_out(ins):
        op.writers = tuple(op.writers) + (op.writer(Reg(CARRY), "u32"),)
        op.single = False


def _bits(x: np.ndarray, width: int) -> np.ndarray:
    """The unsigned bits of a 32- or 64-bit integer array, as uint64."""
    if width == 32:
        return x.view(np.uint32).astype(np.uint64)
    return x.view(np.uint64)


def _add(a: np.ndarray, b: np.ndarray, cin: np.ndarray | int, width: int) -> tuple:
    """(a + b + cin) mod 2^width and its carry out, on unsigned bits."""
    c = np.asarray(cin).astype(np.uint64)
    if width == 32:
        s = a + b + c
        return s & np.uint64(0xFFFFFFFF), (s >> np.uint64(32)).astype(np.uint32)
    s1 = a + b
    s2 = s1 + c
    return s2, ((s1 < a) | (s2 < s1)).astype(np.uint32)


def _result(ins: Instruction, d: np.ndarray, cout: np.ndarray) -> Any:
    t = optype(ins)
    out = d.astype(np.uint32).view(np.int32 if t == "s32" else np.uint32) if t.endswith("32") \
        else d.view(np.int64 if t == "s64" else np.uint64)
    return (out, cout) if carry_out(ins) else out


def _cin(ins: Instruction, srcs: tuple) -> tuple:
    """(explicit sources, carry in)."""
    if carry_in(ins):
        return srcs[:-1], srcs[-1].astype(np.uint64) & np.uint64(1)
    return srcs, 0


@lanewise
def add(ins: Instruction, *srcs: np.ndarray) -> Any:
    """add.cc / addc: a + b + CC.CF."""
    (a, b), cin = _cin(ins, srcs)
    w = 32 if optype(ins).endswith("32") else 64
    d, cout = _add(_bits(a, w), _bits(b, w), cin, w)
    return _result(ins, d, cout)


@lanewise
def sub(ins: Instruction, *srcs: np.ndarray) -> Any:
    """sub.cc / subc: a - (b + CC.CF); the flag out is the borrow."""
    (a, b), bin_ = _cin(ins, srcs)
    w = 32 if optype(ins).endswith("32") else 64
    ua, ub = _bits(a, w), _bits(b, w)
    bn = np.asarray(bin_).astype(np.uint64)
    if w == 32:
        diff = ua.astype(np.int64) - ub.astype(np.int64) - bn.astype(np.int64)
        return _result(ins, diff.view(np.uint64) & np.uint64(0xFFFFFFFF), (diff < 0).astype(np.uint32))
    d1 = ua - ub
    d2 = d1 - bn
    return _result(ins, d2, ((ua < ub) | (d1 < bn)).astype(np.uint32))


@lanewise
def mad(ins: Instruction, *srcs: np.ndarray) -> Any:
    """mad.lo/.hi.cc / madc: (the low or high half of a * b) + c + CC.CF."""
    (a, b, c), cin = _cin(ins, srcs)
    t = optype(ins)
    w = 32 if t.endswith("32") else 64
    prod = mul_hi(a, b, t) if "hi" in ins.mods else a * b
    d, cout = _add(_bits(prod, w), _bits(c, w), cin, w)
    return _result(ins, d, cout)

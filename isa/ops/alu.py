"""ALU opcode families (``kind='alu'``): arithmetic, logic, comparison, selection, moves and conversions.

Importing this module registers every ALU family. Integer-only families live in :mod:`.alu_int`,
float-only ones in :mod:`.alu_float`, ``cvt`` in :mod:`.convert`; the families that take both integer and
float types (``add sub mul mad div abs neg min max setp selp mov``) are registered here and dispatch on
the instruction type, and so is ``rem``, whose check rejects float types.

Behaviour choices (PTX leaves them open): integer x/0 and x%0 give all ones (unsigned) or -1 (signed), as
measured on an H200; INT_MIN/-1 = INT_MIN and INT_MIN%-1 = 0; float min/max return
the non-NaN operand (``.NaN``: NaN) and order -0.0 below +0.0; f32 NaN results are canonical (0x7FFFFFFF).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ..opcodes import FLOAT_TYPES, OpcodeError, OpFamily, by_type, register, require
from ..program import Instruction, Pair, Vec
from . import alu_float as fl
from . import alu_int as it
from . import carry
from . import convert  # noqa: F401  (registers cvt)
from .alu_int import INT_ARITH, WIDE, check_unique, lanewise, optype, pick_one, type_error

SELP_TYPES = ("b16", "b32", "b64", "u16", "u32", "u64", "s16", "s32", "s64", "f32", "f64")
MOV_TYPES = ("pred",) + SELP_TYPES
SIGNED = ("s16", "s32", "s64")
MUL_MODES = ("hi", "lo", "wide")


# ---------------------------------------------------------------- checks
def _check_arith(ins, int_types=INT_ARITH, int_mods=(), f32_mods=(), f64_mods=(), rnd=(), need_rnd=False):
    """Shared check: type class, allowed modifiers, at most one (or exactly one) rounding modifier."""
    check_unique(ins)
    if carry.uses_carry(ins):
        if ins.opcode not in ("add", "sub", "mad") + carry.CARRY_IN:
            raise OpcodeError(f"'{ins.name}': .cc is only for add, sub, mad, addc, subc, madc")
        carry.check(ins)
        int_mods = tuple(int_mods) + ("cc",)
    t = ins.type
    if t in FLOAT_TYPES:
        require(ins, FLOAT_TYPES, f32_mods if t == "f32" else f64_mods)
        if rnd:
            pick_one(ins, rnd, need_rnd, "rounding")
    elif t in int_types:
        require(ins, int_types, int_mods)
    else:
        raise type_error(ins, int_types + FLOAT_TYPES)


def _sat_only(ins, types):
    """.sat only with the listed types."""
    if ins.has("sat") and ins.type not in types:
        raise OpcodeError(f"'{ins.name}': .sat is only allowed with " + ", ".join("." + t for t in types))


def _check_addsub(ins):
    """add/sub: .sat (s32, f32), rounding and .ftz for floats."""
    _check_arith(ins, int_mods=("sat",), f32_mods=fl.RND + ("ftz", "sat"), f64_mods=fl.RND, rnd=fl.RND)
    _sat_only(ins, ("s32", "f32"))


def _check_int_mode(ins):
    """Exactly one of .hi/.lo/.wide; .wide only for 16/32-bit types."""
    mode = pick_one(ins, MUL_MODES, True, "mode (.hi, .lo or .wide)")
    if mode == "wide" and ins.type not in WIDE:
        raise OpcodeError(f"'{ins.name}': .wide needs a 16- or 32-bit type")
    return mode


def _check_mul(ins):
    """mul: integer mode, or float rounding/.ftz/.sat."""
    _check_arith(ins, int_mods=MUL_MODES, f32_mods=fl.RND + ("ftz", "sat"), f64_mods=fl.RND, rnd=fl.RND)
    if ins.type not in FLOAT_TYPES:
        _check_int_mode(ins)


def _check_mad(ins):
    """mad: integer mode (.hi.sat.s32 only), or a mandatory float rounding."""
    _check_arith(ins, int_mods=MUL_MODES + ("sat",), f32_mods=fl.RND + ("ftz", "sat"), f64_mods=fl.RND,
                 rnd=fl.RND, need_rnd=True)
    if ins.type not in FLOAT_TYPES:
        mode = _check_int_mode(ins)
        if ins.has("sat") and not (mode == "hi" and ins.type == "s32"):
            raise OpcodeError(f"'{ins.name}': integer .sat is only mad.hi.sat.s32")


def _check_div(ins):
    """div: integers bare; f32 .approx/.full/.rnd (+.ftz); f64 .rnd."""
    _check_arith(ins, f32_mods=fl.RND + ("approx", "full", "ftz"), f64_mods=fl.RND)
    if ins.type == "f32":
        pick_one(ins, fl.RND + ("approx", "full"), True, "rounding (.approx, .full or .rn/.rz/.rm/.rp)")
    elif ins.type == "f64":
        pick_one(ins, fl.RND, True, "rounding")


def _check_rem(ins):
    """rem: integers only."""
    if ins.type in FLOAT_TYPES:
        raise type_error(ins, INT_ARITH)
    _check_arith(ins)


def _check_absneg(ins):
    """abs/neg: signed integers, f32 (.ftz), f64."""
    _check_arith(ins, int_types=SIGNED, f32_mods=("ftz",))


def _check_minmax(ins):
    """min/max: .relu (s32); f32 .ftz .NaN .xorsign.abs; f64 bare."""
    _check_arith(ins, int_mods=("relu",), f32_mods=("ftz", "NaN", "xorsign", "abs"))
    if ins.has("relu") and ins.type != "s32":
        raise OpcodeError(f"'{ins.name}': .relu is only allowed with .s32")
    if ins.has("xorsign") != ins.has("abs"):
        raise OpcodeError(f"'{ins.name}': .xorsign and .abs go together (.xorsign.abs)")


# ---------------------------------------------------------------- types and units
def _same(n: int):
    """types(): destination and ``n`` sources all of the instruction type."""
    return lambda ins: ((ins.type,), (ins.type,) * n)


def _mul_types(ins):
    """mul.wide doubles the destination width."""
    t = ins.type
    return ((WIDE[t] if ins.has("wide") else t),), (t, t)


def _mad_types(ins):
    """mad.wide doubles the destination and addend widths."""
    t = ins.type
    if ins.has("wide"):
        return (WIDE[t],), (t, t, WIDE[t])
    return (t,), (t, t, t)


def _div_unit(ins) -> str:
    """div.approx/.full.f32 issue to the SFU; other forms by type."""
    if ins.type == "f32" and ins.has("approx", "full"):
        return "sfu"
    return by_type()(ins)


def _mixed(int_fn, float_fn):
    """Semantics dispatching on the instruction type (float math under ``np.errstate(all='ignore')``)."""
    @lanewise(quiet=False)
    def semantics(ins: Instruction, *srcs: np.ndarray) -> Any:
        if optype(ins) in FLOAT_TYPES:
            with np.errstate(all="ignore"):
                return float_fn(ins, *srcs)
        return int_fn(ins, *srcs)
    semantics.__doc__ = f"{int_fn.__name__} / {float_fn.__name__ if float_fn else '-'} by type"
    return semantics


def _no_float(ins, *srcs):
    """Placeholder float semantics of integer-only families (check rejects floats first)."""
    raise OpcodeError(f"'{ins.name}': no float form")


def _or_carry(int_fn, carry_fn):
    """Integer semantics: ``carry_fn`` when the instruction reads or writes the carry flag."""
    def semantics(ins, *srcs):
        return carry_fn(ins, *srcs) if carry.uses_carry(ins) else int_fn(ins, *srcs)
    semantics.__name__ = int_fn.__name__
    return semantics


_ARITH = (
    # name, signature, nsrc, int semantics, float semantics, types, check, doc
    ("add", "d, a, b", 2, _or_carry(it.int_add, carry.add), fl.f_add, _same(2), _check_addsub,
     "a + b (.sat: s32/f32; .cc: writes the carry flag)"),
    ("sub", "d, a, b", 2, _or_carry(it.int_sub, carry.sub), fl.f_sub, _same(2), _check_addsub, "a - b"),
    ("mul", "d, a, b", 2, it.int_mul, fl.f_mul, _mul_types, _check_mul, "product (.hi/.lo/.wide for ints)"),
    ("mad", "d, a, b, c", 3, _or_carry(it.int_mad, carry.mad), fl.f_fma, _mad_types, _check_mad,
     "a * b + c (float: fused)"),
    ("addc", "d, a, b", 2, carry.add, _no_float, _same(2), _check_addsub, "a + b + carry flag"),
    ("subc", "d, a, b", 2, carry.sub, _no_float, _same(2), _check_addsub, "a - (b + carry flag)"),
    ("madc", "d, a, b, c", 3, carry.mad, _no_float, _mad_types, _check_mad, "a * b (.lo/.hi) + c + carry flag"),
    ("div", "d, a, b", 2, it.int_div, fl.f_div, _same(2), _check_div, "quotient (ints truncate)"),
    ("rem", "d, a, b", 2, it.int_rem, _no_float, _same(2), _check_rem, "remainder, sign of a"),
    ("abs", "d, a", 1, it.int_abs, fl.f_abs, _same(1), _check_absneg, "|a|"),
    ("neg", "d, a", 1, it.int_neg, fl.f_neg, _same(1), _check_absneg, "-a"),
    ("min", "d, a, b", 2, it.int_min, fl.f_minmax, _same(2), _check_minmax, "minimum (-0 < +0, NaN lost)"),
    ("max", "d, a, b", 2, it.int_max, fl.f_minmax, _same(2), _check_minmax, "maximum (+0 > -0, NaN lost)"),
)

def _div_latency(ins) -> str:
    """SFU results come back through the scoreboard."""
    return "short_scoreboard" if _div_unit(ins) == "sfu" else "fixed"


for _name, _sig, _n, _ifn, _ffn, _types, _check, _doc in _ARITH:
    _div = _name == "div"
    register(OpFamily(_name, _sig, 1, (_n,), _mixed(_ifn, _ffn), _div_unit if _div else by_type(),
                      _div_latency if _div else "fixed", types=_types, check=_check, doc=_doc))


# ---------------------------------------------------------------- setp
CMP_SIGNED = ("eq", "ne", "lt", "le", "gt", "ge")
CMP_UNSIGNED = CMP_SIGNED + ("lo", "ls", "hi", "hs")
CMP_FLOAT = CMP_SIGNED + ("equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan")
CMP_ALL = CMP_UNSIGNED + CMP_FLOAT[6:]
BOOL_OPS = {"and": np.logical_and, "or": np.logical_or, "xor": np.logical_xor}


def _cmp_ops_for(t: str):
    """Comparison operators PTX defines for type ``t``."""
    if t in FLOAT_TYPES:
        return CMP_FLOAT
    if t.startswith("s"):
        return CMP_SIGNED
    if t.startswith("u"):
        return CMP_UNSIGNED
    return ("eq", "ne")              # bit-size types: no ordering comparisons (PTX ISA 9.3.1.1)


def _check_setp(ins):
    """setp: one CmpOp valid for the type, optional BoolOp iff a third source, .ftz for f32."""
    check_unique(ins)
    require(ins, SELP_TYPES, CMP_ALL + tuple(BOOL_OPS) + ("ftz",))
    cmp = pick_one(ins, CMP_ALL, True, "comparison")
    if cmp not in _cmp_ops_for(ins.type):
        raise OpcodeError(f"'{ins.name}': comparison .{cmp} is not defined for .{ins.type} (use one of "
                          + ", ".join("." + c for c in _cmp_ops_for(ins.type)) + ")")
    boolop = pick_one(ins, tuple(BOOL_OPS), False, "boolean")
    nsrc = len(ins.operands) - 1
    if (boolop is None) != (nsrc == 2):
        raise OpcodeError(f"'{ins.name}': a third source predicate goes with .and/.or/.xor (and only then)")
    if ins.has("ftz") and ins.type != "f32":
        raise OpcodeError(f"'{ins.name}': .ftz applies to .f32 only")


_CMP_FN = {"eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal, "gt": np.greater,
           "ge": np.greater_equal, "lo": np.less, "ls": np.less_equal, "hi": np.greater, "hs": np.greater_equal}


def _compare(ins, a, b):
    """a CmpOp b; float ``ne`` is ordered, the ``u`` forms are true when either operand is NaN."""
    cmp = next(m for m in ins.mods if m in CMP_ALL)
    if optype(ins) not in FLOAT_TYPES:
        return _CMP_FN[cmp](a, b)
    a, b = fl.prologue(ins, a, b)
    if cmp in ("num", "nan", "ne") or cmp.endswith("u"):
        unordered = np.isnan(a) | np.isnan(b)
        if cmp in ("num", "nan"):
            return ~unordered if cmp == "num" else unordered
        if cmp == "ne":
            return (a != b) & ~unordered
        return _CMP_FN[cmp[:2]](a, b) | unordered
    return _CMP_FN[cmp](a, b)


def _pair_dst(ins) -> bool:
    """True when the destination is ``p|q``."""
    return bool(ins.operands) and isinstance(ins.operands[0], Pair)


@lanewise(quiet=False)
def _setp(ins, a, b, *c):
    """p = BoolOp(a CmpOp b, c), q = BoolOp(!(a CmpOp b), c)."""
    t = _compare(ins, a, b)
    boolop = next((m for m in ins.mods if m in BOOL_OPS), None)
    if boolop is None:
        p, q = t, ~t
    else:
        p, q = BOOL_OPS[boolop](t, c[0]), BOOL_OPS[boolop](~t, c[0])
    return (p, q) if _pair_dst(ins) else p


def _setp_types(ins):
    """One or two predicate destinations; (a, b[, c]) sources."""
    dst = ("pred", "pred") if _pair_dst(ins) else ("pred",)
    nsrc = 3 if any(m in BOOL_OPS for m in ins.mods) else 2
    return dst, (ins.type, ins.type, "pred")[:nsrc]


register(OpFamily("setp", "p[|q], a, b[, {!}c]", 1, (2, 3), _setp, by_type(), "fixed", types=_setp_types,
                  check=_check_setp, doc="compare, optionally combined with predicate c; q gets !cmp"))


# ---------------------------------------------------------------- selp
@lanewise(quiet=False)
def _selp(ins, a, b, c):
    """d = c ? a : b."""
    return np.where(c, a, b)


register(OpFamily("selp", "d, a, b, c", 1, (3,), _selp, "int", "fixed",
                  types=lambda ins: ((ins.type,), (ins.type, ins.type, "pred")),
                  check=lambda ins: require(ins, SELP_TYPES), doc="d = c ? a : b"))


# ---------------------------------------------------------------- mov (with pack / unpack)
def _vec_side(ins):
    """('unpack', n) for mov {..}, x; ('pack', n) for mov x, {..}; (None, 1) otherwise."""
    ops = ins.operands
    if len(ops) >= 1 and isinstance(ops[0], Vec):
        return "unpack", len(ops[0].items)
    if len(ops) >= 2 and isinstance(ops[1], Vec):
        return "pack", len(ops[1].items)
    return None, 1


def _elem_type(ins, n: int) -> str:
    """Element type of an n-way vector pack/unpack of the instruction type."""
    return f"b{it.nbits(ins.type) // n}"


def _mov_types(ins):
    """Vector operands count as n elements of width/n bits."""
    side, n = _vec_side(ins)
    t = ins.type
    if side == "unpack":
        return (_elem_type(ins, n),) * n, (t,)
    if side == "pack":
        return (t,), (_elem_type(ins, n),) * n
    return (t,), (t,)


@lanewise(quiet=False)
def _mov(ins, *srcs):
    """Copy, pack {lo, ..., hi} into one value, or unpack it (first element = low bits)."""
    side, n = _vec_side(ins)
    if side is None:
        return srcs[0]
    w = it.nbits(ins.type) // n
    full = it.dt(ins.type)
    if side == "pack":
        out = np.zeros(srcs[0].shape, dtype=full)
        for i, x in enumerate(srcs):
            out |= x.astype(full) << full.type(i * w)
        return out
    elem = it.dt(_elem_type(ins, n))
    return tuple((srcs[0] >> full.type(i * w)).astype(elem) for i in range(n))


def _check_mov(ins):
    """mov types; vectors only with .b16/.b32/.b64 split in 2 or 4 parts of >= 8 bits."""
    check_unique(ins)
    require(ins, MOV_TYPES)
    side, n = _vec_side(ins)
    if side is not None:
        if ins.type not in ("b16", "b32", "b64"):
            raise OpcodeError(f"'{ins.name}': vector pack/unpack needs a .b16/.b32/.b64 type")
        if n not in (2, 4) or it.nbits(ins.type) // n < 8:
            raise OpcodeError(f"'{ins.name}': cannot split .{ins.type} into {n} parts")


register(OpFamily("mov", "d, a", 1, (1,), _mov, "int", "fixed", types=_mov_types, check=_check_mov,
                  doc="copy; mov.bN with a {lo, hi[, ...]} vector packs or unpacks (first = low part)"))

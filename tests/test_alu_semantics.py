"""Semantics of the ALU opcode families (isa/ops/alu*.py, convert.py), called straight through the table.

References are pure Python: big integers for integer arithmetic, per-bit loops for bit operations, and
exact ``fractions.Fraction`` arithmetic with an explicit IEEE rounding routine for floating point.
"""
from __future__ import annotations

import json
import math
import random
import re
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from isa import ptxtypes
from isa.opcodes import TABLE, OpcodeError, latency_of, unit_of, validate
from isa.ops import alu  # noqa: F401  (registers the families)
from isa.program import Imm, Instruction, Pair, Reg, Vec

SEED = 20240611
N = 400


# ---------------------------------------------------------------- helpers
def make(opcode: str, mods: str = "", operands=None) -> Instruction:
    """Instruction with placeholder operands (one destination plus as many sources as the family takes)."""
    fam = TABLE[opcode]
    if operands is None:
        operands = (Reg("%d"),) + tuple(Reg(f"%s{i}") for i in range(fam.nsrc[0]))
    return Instruction(opcode, tuple(mods.split(".")) if mods else (), tuple(operands))


def sem(opcode: str, mods: str, *srcs, operands=None):
    ins = make(opcode, mods, operands)
    return TABLE[opcode].semantics(ins, *srcs)


def dtype_of(t: str) -> np.dtype:
    from isa.ptxtypes import DTYPES
    return DTYPES[t]


def arr(t: str, values) -> np.ndarray:
    """Array of PTX type ``t``; integers given as Python ints are wrapped to the type's width."""
    d = dtype_of(t)
    if d.kind in "iu":
        bits = 8 * d.itemsize
        raw = np.array([int(v) & ((1 << bits) - 1) for v in values], dtype=f"uint{bits}")
        return raw.view(d)
    with np.errstate(over="ignore"):       # e.g. 1e30 as f16 is meant to become inf
        return np.array(values, dtype=d)


def signed(v: int, bits: int) -> int:
    v &= (1 << bits) - 1
    return v - (1 << bits) if v >> (bits - 1) else v


def wrap(v: int, t: str) -> int:
    bits = 8 * dtype_of(t).itemsize
    return signed(v, bits) if t[0] == "s" else v & ((1 << bits) - 1)


def rand_ints(rng: random.Random, t: str, n: int = N) -> list:
    """Random values of type ``t`` with the edge values mixed in."""
    bits = 8 * dtype_of(t).itemsize
    lo, hi = (-(1 << bits - 1), (1 << bits - 1) - 1) if t[0] == "s" else (0, (1 << bits) - 1)
    edges = [lo, hi, 0, 1, -1 if t[0] == "s" else 2, lo + 1, hi - 1]
    return edges + [rng.randint(lo, hi) for _ in range(n - len(edges))]


def f32bits(x) -> int:
    return int(np.asarray(x, np.float32).view(np.uint32))


def f64bits(x) -> int:
    return int(np.asarray(x, np.float64).view(np.uint64))


FORMATS = {"f16": (11, -14, 15), "f32": (24, -126, 127), "f64": (53, -1022, 1023)}


def round_frac(x: Fraction, fmt: str, mode: str) -> float:
    """Exact IEEE rounding of a rational to f16/f32/f64 (``mode`` rn/rz/rm/rp), as a Python float."""
    p, emin, emax = FORMATS[fmt]
    if x == 0:
        return 0.0
    sign = -1 if x < 0 else 1
    ax = abs(x)
    e = ax.numerator.bit_length() - ax.denominator.bit_length()
    if Fraction(2) ** e > ax:
        e -= 1
    quantum = Fraction(2) ** (max(e, emin) - p + 1)
    q = ax / quantum
    n = q.numerator // q.denominator
    rem = q - n
    up = {"rz": False, "rm": sign < 0 and rem > 0, "rp": sign > 0 and rem > 0,
          "rn": rem > Fraction(1, 2) or (rem == Fraction(1, 2) and n % 2 == 1)}[mode]
    r = (n + up) * quantum
    biggest = (2 - Fraction(2) ** (1 - p)) * Fraction(2) ** emax
    if r > biggest:
        to_inf = mode == "rn" or (mode == "rp" and sign > 0) or (mode == "rm" and sign < 0)
        return sign * math.inf if to_inf else sign * float(biggest)
    return sign * float(r)


def rand_floats(rng: random.Random, t: str, n: int = N, emax: int = 60) -> np.ndarray:
    """Random finite floats of type ``t`` with a spread of exponents and both signs."""
    vals = [rng.choice((-1, 1)) * rng.uniform(1, 2) * 2.0 ** rng.randint(-emax, emax) for _ in range(n)]
    return np.array(vals, dtype=dtype_of(t))


# ---------------------------------------------------------------- registration, types, units
ALU_FAMILIES = ["mov", "add", "sub", "mul", "mad", "fma", "div", "rem", "neg", "abs", "min", "max", "and", "or",
                "xor", "not", "cnot", "shl", "shr", "popc", "clz", "brev", "bfe", "bfi", "prmt", "setp", "selp",
                "rcp", "sqrt", "rsqrt", "ex2", "lg2", "sin", "cos", "cvt", "copysign", "testp", "lop3", "shf",
                "bfind", "dp4a"]


@pytest.mark.parametrize("name", ALU_FAMILIES)
def test_registered_as_alu(name):
    assert TABLE[name].kind == "alu"
    assert TABLE[name].types is not None and TABLE[name].check is not None


@pytest.mark.parametrize("opcode, mods, expect", [
    ("add", "s32", (("s32",), ("s32", "s32"))),
    ("mul", "wide.s32", (("s64",), ("s32", "s32"))),
    ("mul", "wide.u16", (("u32",), ("u16", "u16"))),
    ("mul", "hi.u64", (("u64",), ("u64", "u64"))),
    ("mad", "wide.u32", (("u64",), ("u32", "u32", "u64"))),
    ("mad", "lo.s16", (("s16",), ("s16", "s16", "s16"))),
    ("shl", "b64", (("b64",), ("b64", "u32"))),
    ("shr", "s16", (("s16",), ("s16", "u32"))),
    ("popc", "b64", (("u32",), ("b64",))),
    ("clz", "b32", (("u32",), ("b32",))),
    ("brev", "b64", (("b64",), ("b64",))),
    ("bfe", "s64", (("s64",), ("s64", "u32", "u32"))),
    ("bfi", "b32", (("b32",), ("b32", "b32", "u32", "u32"))),
    ("prmt", "b32.f4e", (("b32",), ("b32", "b32", "b32"))),
    ("selp", "f32", (("f32",), ("f32", "f32", "pred"))),
    ("cvt", "rn.f32.s64", (("f32",), ("s64",))),
    ("cvt", "u8.s32", (("u8",), ("s32",))),
    ("setp", "lt.s32", (("pred",), ("s32", "s32"))),
    ("testp", "finite.f64", (("pred",), ("f64",))),
    ("dp4a", "s32.s32", (("s32",), ("s32", "s32", "s32"))),
    ("dp4a", "u32.s32", (("s32",), ("u32", "s32", "s32"))),
    ("dp4a", "u32.u32", (("u32",), ("u32", "u32", "u32"))),
])
def test_types(opcode, mods, expect):
    assert TABLE[opcode].types(make(opcode, mods)) == expect


def test_types_setp_pair_and_boolop():
    ins = make("setp", "ge.or.f64", (Pair(Reg("%p1"), Reg("%p2")), Reg("%a"), Reg("%b"), Reg("%p3")))
    assert TABLE["setp"].types(ins) == (("pred", "pred"), ("f64", "f64", "pred"))


@pytest.mark.parametrize("mods, operands, expect", [
    ("b64", (Reg("%rd"), Vec((Reg("%r1"), Reg("%r2")))), (("b64",), ("b32", "b32"))),
    ("b64", (Vec((Reg("%r1"), Reg("%r2"))), Reg("%rd")), (("b32", "b32"), ("b64",))),
    ("b32", (Reg("%r"), Vec((Reg("%h1"), Reg("%h2")))), (("b32",), ("b16", "b16"))),
    ("b64", (Reg("%rd"), Vec(tuple(Reg(f"%h{i}") for i in range(4)))), (("b64",), ("b16",) * 4)),
    ("f32", (Reg("%f1"), Reg("%f2")), (("f32",), ("f32",))),
])
def test_types_mov(mods, operands, expect):
    ins = make("mov", mods, operands)
    validate(ins)
    assert TABLE["mov"].types(ins) == expect


@pytest.mark.parametrize("text, unit, latency", [
    ("add.s32", "int", "fixed"), ("add.f32", "fp32", "fixed"), ("add.f64", "fp64", "fixed"),
    ("fma.rn.f32", "fp32", "fixed"), ("fma.rn.f64", "fp64", "fixed"), ("mul.lo.u64", "int", "fixed"),
    ("rcp.approx.f32", "sfu", "short_scoreboard"), ("rcp.rn.f64", "fp64", "fixed"),
    ("sqrt.approx.ftz.f32", "sfu", "short_scoreboard"), ("sqrt.rn.f64", "fp64", "fixed"),
    ("ex2.approx.f32", "sfu", "short_scoreboard"), ("sin.approx.f32", "sfu", "short_scoreboard"),
    ("div.approx.f32", "sfu", "short_scoreboard"), ("div.full.f32", "sfu", "short_scoreboard"),
    ("div.rn.f64", "fp64", "fixed"), ("div.rn.f32", "fp32", "fixed"),
    ("div.u32", "int", "fixed"),
    ("setp.lt.f32", "fp32", "fixed"), ("setp.eq.s32", "int", "fixed"), ("mov.f32", "int", "fixed"),
    ("cvt.rn.f32.s32", "sfu", "short_scoreboard"), ("cvt.rn.f64.s32", "fp64", "fixed"),
    ("cvt.u32.u16", "int", "fixed"),
])
def test_units(text, unit, latency):
    op, *mods = text.split(".")
    ins = make(op, ".".join(mods))
    assert unit_of(ins) == unit
    assert latency_of(ins) == latency


# ---------------------------------------------------------------- validation
@pytest.mark.parametrize("text, nsrc, words", [
    ("add.cc.sat.s32", 2, ["sat"]), ("add.sat.u32", 2, ["sat"]), ("add.f16", 2, ["f16"]),
    ("add.b32", 2, ["b32"]), ("add.ftz.f64", 2, ["ftz"]), ("add.rn.rz.f32", 2, ["rn", "rz"]),
    ("mul.s32", 2, ["mode"]), ("mul.wide.s64", 2, ["wide"]), ("mul.hi.lo.u32", 2, ["hi", "lo"]),
    ("mad.f32", 3, ["rounding"]), ("mad.lo.sat.s32", 3, ["sat"]), ("fma.f32", 3, ["rounding"]),
    ("fma.rn.s32", 3, ["s32"]), ("div.f32", 2, ["rounding"]), ("div.full.f64", 2, ["full"]),
    ("div.rn.s32", 2, ["rn"]), ("rem.f32", 2, ["f32"]), ("neg.u32", 1, ["u32"]), ("abs.u16", 1, ["u16"]),
    ("min.relu.u32", 2, ["relu"]), ("max.xorsign.f32", 2, ["xorsign"]), ("min.NaN.f64", 2, ["NaN"]),
    ("and.s32", 2, ["s32"]), ("cnot.pred", 1, ["pred"]), ("shl.u32", 2, ["u32"]), ("shr.f32", 2, ["f32"]),
    ("popc.u32", 1, ["u32"]), ("bfe.b32", 3, ["b32"]), ("bfi.u32", 4, ["u32"]),
    ("prmt.b32.f4e.b4e", 3, ["f4e", "b4e"]), ("prmt.u32", 3, ["u32"]),
    ("setp.lt.b32", 2, ["lt"]), ("setp.lo.s32", 2, ["lo"]), ("setp.equ.s32", 2, ["equ"]),
    ("setp.eq.ftz.f64", 2, ["ftz"]), ("setp.s32", 2, ["comparison"]), ("selp.pred", 3, ["pred"]),
    ("rcp.f32", 1, ["approx"]), ("sqrt.approx.f64", 1, ["approx"]), ("rsqrt.f32", 1, ["approx"]),
    ("ex2.approx.f64", 1, ["f64"]), ("sin.rn.f32", 1, ["rn"]),
    ("cvt.s32.f32", 1, ["rounding"]), ("cvt.f32.s32", 1, ["rounding"]), ("cvt.f32.f64", 1, ["rounding"]),
    ("cvt.rn.s32.s16", 1, ["rn"]), ("cvt.rni.f64.f32", 1, ["rni"]), ("cvt.rn.f32.f32", 1, ["rn"]),
    ("cvt.rn.f64.f32", 1, ["rn"]), ("cvt.sat.s32.s16", 1, ["sat"]), ("cvt.ftz.rn.f64.s32", 1, ["ftz"]),
    ("cvt.rn.bf16.f32", 1, ["bf16"]), ("cvt.b32.u32", 1, ["b32"]), ("cvt.rzi.s32", 1, ["type"]),
    ("mov.b32.foo", 1, ["foo"]), ("testp.f32", 1, ["test"]), ("shf.l.b32", 3, ["wrap"]),
    ("copysign.f16", 2, ["f16"]), ("lop3.b64", 4, ["b64"]), ("dp4a.s32", 3, ["dp4a"]),
    ("dp4a.s64.s32", 3, ["dp4a"]),
])
def test_validate_rejects(text, nsrc, words):
    op, *mods = text.split(".")
    ins = Instruction(op, tuple(mods), (Reg("%d"),) + tuple(Reg(f"%s{i}") for i in range(nsrc)))
    with pytest.raises(OpcodeError) as err:
        validate(ins)
    msg = str(err.value)
    assert any(w in msg for w in words), msg


@pytest.mark.parametrize("text, nsrc", [
    ("add.s32", 2), ("add.sat.s32", 2), ("add.rz.ftz.sat.f32", 2), ("sub.rm.f64", 2), ("mul.lo.u16", 2),
    ("mul.wide.s32", 2), ("mul.rp.f64", 2), ("mad.hi.sat.s32", 3), ("mad.wide.u16", 3), ("mad.rn.f64", 3),
    ("fma.rz.ftz.sat.f32", 3), ("div.approx.ftz.f32", 2), ("div.full.f32", 2), ("div.rp.f64", 2),
    ("div.u64", 2), ("rem.s16", 2), ("abs.ftz.f32", 1), ("neg.s64", 1), ("min.relu.s32", 2),
    ("max.NaN.ftz.f32", 2), ("min.xorsign.abs.f32", 2), ("max.f64", 2), ("and.pred", 2), ("not.b16", 1),
    ("cnot.b64", 1), ("shl.b16", 2), ("shr.s64", 2), ("shr.u32", 2), ("popc.b64", 1), ("clz.b32", 1),
    ("brev.b64", 1), ("bfe.s64", 3), ("bfi.b64", 4), ("prmt.b32", 3), ("prmt.b32.rc16", 3),
    ("setp.lt.u32", 2), ("setp.hs.u64", 2), ("setp.ne.b16", 2), ("setp.gtu.ftz.f32", 2),
    ("selp.b64", 3), ("rcp.rn.ftz.f32", 1), ("rcp.approx.ftz.f64", 1), ("sqrt.rz.f64", 1),
    ("rsqrt.approx.f64", 1), ("lg2.approx.ftz.f32", 1), ("cos.approx.f32", 1),
    ("cvt.rzi.s32.f32", 1), ("cvt.rn.f32.u64", 1), ("cvt.rz.f32.f64", 1), ("cvt.f64.f32", 1),
    ("cvt.rni.f32.f32", 1), ("cvt.ftz.sat.f32.f32", 1), ("cvt.u32.u16", 1), ("cvt.sat.u8.s32", 1),
    ("cvt.rn.f16.f32", 1), ("cvt.f32.f16", 1), ("cvt.rpi.s64.f16", 1), ("copysign.f64", 2),
    ("testp.notanumber.f32", 1), ("lop3.b32", 4), ("shf.r.clamp.b32", 3), ("bfind.shiftamt.s32", 1),
    ("mov.u64", 1), ("mov.pred", 1), ("dp4a.s32.s32", 3), ("dp4a.u32.u32", 3),
])
def test_validate_accepts(text, nsrc):
    op, *mods = text.split(".")
    validate(Instruction(op, tuple(mods), (Reg("%d"),) + tuple(Reg(f"%s{i}") for i in range(nsrc))))


def test_validate_setp_boolop_needs_c():
    two = (Reg("%p"), Reg("%a"), Reg("%b"))
    three = two + (Reg("%c"),)
    validate(Instruction("setp", ("lt", "and", "s32"), three))
    validate(Instruction("setp", ("lt", "s32"), (Pair(Reg("%p"), Reg("%q")), Reg("%a"), Reg("%b"))))
    with pytest.raises(OpcodeError):
        validate(Instruction("setp", ("lt", "and", "s32"), two))
    with pytest.raises(OpcodeError):
        validate(Instruction("setp", ("lt", "s32"), three))


def test_validate_mov_vector_shapes():
    with pytest.raises(OpcodeError):
        validate(make("mov", "u64", (Reg("%rd"), Vec((Reg("%r1"), Reg("%r2"))))))
    with pytest.raises(OpcodeError):
        validate(make("mov", "b32", (Reg("%r"), Vec((Reg("%a"), Reg("%b"), Reg("%c"))))))


# ---------------------------------------------------------------- broadcasting and dtypes
def test_scalar_immediates_broadcast():
    r = sem("add", "s32", np.int32(5), arr("s32", [1, 2, 3]))
    assert r.dtype == np.int32 and r.tolist() == [6, 7, 8]
    r = sem("add", "u32", np.uint32(5), np.uint32(7))
    assert np.asarray(r).shape == () and int(r) == 12
    p, q = sem("setp", "gt.s32", arr("s32", [1, 5]), np.int32(3),
               operands=(Pair(Reg("%p"), Reg("%q")), Reg("%a"), Imm(3, "3")))
    assert p.tolist() == [False, True] and q.tolist() == [True, False]


# ---------------------------------------------------------------- integer arithmetic
INT_TYPES = ("u16", "s16", "u32", "s32", "u64", "s64")


@pytest.mark.parametrize("t", INT_TYPES)
@pytest.mark.parametrize("op, fn", [("add", lambda a, b: a + b), ("sub", lambda a, b: a - b),
                                    ("mul", lambda a, b: a * b)])
def test_wraparound(t, op, fn):
    rng = random.Random(SEED)
    a, b = rand_ints(rng, t), rand_ints(rng, t)[::-1]
    got = sem(op, ("lo." if op == "mul" else "") + t, arr(t, a), arr(t, b))
    assert got.dtype == dtype_of(t)
    assert got.tolist() == [wrap(fn(x, y), t) for x, y in zip(a, b)]


@pytest.mark.parametrize("t", INT_TYPES)
def test_mul_hi(t):
    rng = random.Random(SEED + 1)
    bits = 8 * dtype_of(t).itemsize
    a, b = rand_ints(rng, t), rand_ints(rng, t)[::-1]
    got = sem("mul", "hi." + t, arr(t, a), arr(t, b))
    assert got.tolist() == [wrap((x * y) >> bits, t) for x, y in zip(a, b)]


@pytest.mark.parametrize("t", ("u16", "s16", "u32", "s32"))
def test_mul_wide_and_mad_wide(t):
    rng = random.Random(SEED + 2)
    wide = {"u16": "u32", "s16": "s32", "u32": "u64", "s32": "s64"}[t]
    a, b, c = rand_ints(rng, t), rand_ints(rng, t)[::-1], rand_ints(rng, wide)
    got = sem("mul", "wide." + t, arr(t, a), arr(t, b))
    assert got.dtype == dtype_of(wide)
    assert got.tolist() == [x * y for x, y in zip(a, b)]
    got = sem("mad", "wide." + t, arr(t, a), arr(t, b), arr(wide, c))
    assert got.tolist() == [wrap(x * y + z, wide) for x, y, z in zip(a, b, c)]


@pytest.mark.parametrize("t", INT_TYPES)
def test_mad_lo_hi(t):
    rng = random.Random(SEED + 3)
    bits = 8 * dtype_of(t).itemsize
    a, b, c = rand_ints(rng, t), rand_ints(rng, t)[::-1], rand_ints(rng, t)
    lo = sem("mad", "lo." + t, arr(t, a), arr(t, b), arr(t, c))
    hi = sem("mad", "hi." + t, arr(t, a), arr(t, b), arr(t, c))
    assert lo.tolist() == [wrap(x * y + z, t) for x, y, z in zip(a, b, c)]
    assert hi.tolist() == [wrap(((x * y) >> bits) + z, t) for x, y, z in zip(a, b, c)]


def test_mad_hi_sat_s32():
    a, b, c = [2**31 - 1, -2**31, -2**31, 7], [2**31 - 1, 2**31 - 1, -2**31, 3], [2**31 - 1, -2**31, 2**31 - 1, 5]
    got = sem("mad", "hi.sat.s32", arr("s32", a), arr("s32", b), arr("s32", c))
    assert got.tolist() == [max(-2**31, min(2**31 - 1, ((x * y) >> 32) + z)) for x, y, z in zip(a, b, c)]


@pytest.mark.parametrize("op, fn", [("add", lambda a, b: a + b), ("sub", lambda a, b: a - b)])
def test_add_sub_sat_s32(op, fn):
    a = [2**31 - 1, -2**31, 5, -2**31, 2**31 - 1]
    b = [1, 1, -9, -1, -1]
    got = sem(op, "sat.s32", arr("s32", a), arr("s32", b))
    assert got.tolist() == [max(-2**31, min(2**31 - 1, fn(x, y))) for x, y in zip(a, b)]


def _div_ref(a: int, b: int, t: str):
    bits = 8 * dtype_of(t).itemsize
    if b == 0:                        # all ones for both, as measured on an H200
        ones = (1 << bits) - 1 if t[0] == "u" else -1
        return ones, ones
    q = abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1)
    return wrap(q, t), wrap(a - q * b, t)


@pytest.mark.parametrize("t", INT_TYPES)
def test_div_rem_random(t):
    rng = random.Random(SEED + 4)
    a = rand_ints(rng, t)
    b = rand_ints(rng, t)[::-1]
    b[::7] = [0] * len(b[::7])
    b[1::11] = [rng.randint(1, 100) * rng.choice((1, -1) if t[0] == "s" else (1,)) for _ in b[1::11]]
    q = sem("div", t, arr(t, a), arr(t, b))
    r = sem("rem", t, arr(t, a), arr(t, b))
    ref = [_div_ref(x, y, t) for x, y in zip(a, b)]
    assert q.tolist() == [x for x, _ in ref]
    assert r.tolist() == [y for _, y in ref]


@pytest.mark.parametrize("t, a, b, q, r", [
    ("s32", -2**31, -1, -2**31, 0), ("s64", -2**63, -1, -2**63, 0), ("s16", -2**15, -1, -2**15, 0),
    ("s32", 7, 0, -1, -1), ("s32", -7, 0, -1, -1), ("u32", 7, 0, 2**32 - 1, 2**32 - 1),
    ("u64", 9, 0, 2**64 - 1, 2**64 - 1), ("u16", 9, 0, 2**16 - 1, 2**16 - 1),
    ("s32", -7, 2, -3, -1), ("s32", 7, -2, -3, 1), ("s32", -7, -2, 3, -1),
])
def test_div_rem_edges(t, a, b, q, r):
    assert sem("div", t, arr(t, [a]), arr(t, [b])).tolist() == [q]
    assert sem("rem", t, arr(t, [a]), arr(t, [b])).tolist() == [r]


@pytest.mark.parametrize("t", ("s16", "s32", "s64"))
def test_neg_abs_wrap(t):
    bits = 8 * dtype_of(t).itemsize
    vals = [-(1 << bits - 1), -5, 0, 5, (1 << bits - 1) - 1]
    assert sem("neg", t, arr(t, vals)).tolist() == [wrap(-v, t) for v in vals]
    assert sem("abs", t, arr(t, vals)).tolist() == [wrap(abs(v), t) for v in vals]


@pytest.mark.parametrize("t", INT_TYPES)
def test_min_max_int(t):
    rng = random.Random(SEED + 5)
    a, b = rand_ints(rng, t), rand_ints(rng, t)[::-1]
    assert sem("min", t, arr(t, a), arr(t, b)).tolist() == [min(x, y) for x, y in zip(a, b)]
    assert sem("max", t, arr(t, a), arr(t, b)).tolist() == [max(x, y) for x, y in zip(a, b)]


def test_min_max_relu():
    a, b = arr("s32", [-5, -5, 3]), arr("s32", [-7, 2, 9])
    assert sem("min", "relu.s32", a, b).tolist() == [0, 0, 3]
    assert sem("max", "relu.s32", a, b).tolist() == [0, 2, 9]


# ---------------------------------------------------------------- logic and shifts
@pytest.mark.parametrize("t", ("b16", "b32", "b64"))
def test_logic_bits(t):
    rng = random.Random(SEED + 6)
    a, b = rand_ints(rng, t), rand_ints(rng, t)[::-1]
    mask = (1 << 8 * dtype_of(t).itemsize) - 1
    A, B = arr(t, a), arr(t, b)
    assert sem("and", t, A, B).tolist() == [x & y for x, y in zip(a, b)]
    assert sem("or", t, A, B).tolist() == [x | y for x, y in zip(a, b)]
    assert sem("xor", t, A, B).tolist() == [x ^ y for x, y in zip(a, b)]
    assert sem("not", t, A).tolist() == [~x & mask for x in a]
    assert sem("cnot", t, A).tolist() == [int(x == 0) for x in a]


def test_logic_pred():
    a, b = np.array([True, True, False, False]), np.array([True, False, True, False])
    assert sem("and", "pred", a, b).tolist() == [True, False, False, False]
    assert sem("or", "pred", a, b).tolist() == [True, True, True, False]
    assert sem("xor", "pred", a, b).tolist() == [False, True, True, False]
    assert sem("not", "pred", a).tolist() == [False, False, True, True]


@pytest.mark.parametrize("t", ("b16", "u16", "s16", "b32", "u32", "s32", "b64", "u64", "s64"))
def test_shifts(t):
    rng = random.Random(SEED + 7)
    bits = 8 * dtype_of(t).itemsize
    a = rand_ints(rng, t)
    amounts = [rng.choice([0, 1, bits - 1, bits, bits + 1, 255, 2**32 - 1, rng.randint(0, bits + 3)])
               for _ in a]
    A, S = arr(t, a), arr("u32", amounts)
    if t[0] == "b":
        shl = sem("shl", t, A, S)
        assert shl.tolist() == [(x << s) & ((1 << bits) - 1) if s < bits else 0 for x, s in zip(a, amounts)]
    shr = sem("shr", t, A, S)
    if t[0] == "s":
        ref = [x >> min(s, bits - 1) for x, s in zip(a, amounts)]
    else:
        ref = [x >> s if s < bits else 0 for x, s in zip(a, amounts)]
    assert shr.tolist() == ref


def test_shift_clamp_examples():
    assert sem("shl", "b32", arr("b32", [1]), arr("u32", [32])).tolist() == [0]
    assert sem("shr", "u32", arr("u32", [2**31]), arr("u32", [32])).tolist() == [0]
    assert sem("shr", "s32", arr("s32", [-2**31, 2**30]), arr("u32", [100, 100])).tolist() == [-1, 0]
    assert sem("shr", "b64", arr("b64", [2**63]), arr("u32", [63])).tolist() == [1]


# ---------------------------------------------------------------- bit manipulation vs per-bit references
def _bits(t):
    return 8 * dtype_of(t).itemsize


@pytest.mark.parametrize("t", ("b32", "b64"))
def test_popc_clz_brev(t):
    rng = random.Random(SEED + 8)
    n = _bits(t)
    a = rand_ints(rng, t) + [1 << k for k in range(n)]
    A = arr(t, a)
    assert sem("popc", t, A).tolist() == [x.bit_count() for x in a]
    assert sem("clz", t, A).tolist() == [n - x.bit_length() for x in a]
    assert sem("brev", t, A).tolist() == [int(format(x, f"0{n}b")[::-1], 2) for x in a]
    assert sem("popc", t, A).dtype == np.uint32 and sem("clz", t, A).dtype == np.uint32


def _bfe_ref(a: int, pos: int, length: int, t: str) -> int:
    """PTX ISA bfe pseudo-code, bit by bit (64-bit forms: pos and len not cut to 8 bits, as measured)."""
    msb = _bits(t) - 1
    if msb < 32:
        pos, length = pos & 0xFF, length & 0xFF
    ubits = a & ((1 << msb + 1) - 1)
    sbit = 0 if t[0] == "u" or length == 0 else (ubits >> min(pos + length - 1, msb)) & 1
    d = 0
    for i in range(msb + 1):
        bit = (ubits >> (pos + i)) & 1 if (i < length and pos + i <= msb) else sbit
        d |= bit << i
    return wrap(d, t)


@pytest.mark.parametrize("t", ("u32", "s32", "u64", "s64"))
def test_bfe(t):
    rng = random.Random(SEED + 9)
    n = _bits(t)
    a = rand_ints(rng, t)
    pos = [rng.choice([0, 1, n - 1, n, n + 5, 255, 256 + 3, rng.randint(0, n)]) for _ in a]
    length = [rng.choice([0, 1, n, n + 1, 255, 0x1FF, rng.randint(0, n)]) for _ in a]
    got = sem("bfe", t, arr(t, a), arr("u32", pos), arr("u32", length))
    assert got.tolist() == [_bfe_ref(x, p, ln, t) for x, p, ln in zip(a, pos, length)]


def _bfi_ref(a: int, b: int, pos: int, length: int, t: str) -> int:
    msb = _bits(t) - 1
    if msb < 32:                      # 64-bit: whole 32-bit pos and len, as measured on an H200
        pos, length = pos & 0xFF, length & 0xFF
    f = b
    i = 0
    while i < length and pos + i <= msb:
        f = (f & ~(1 << pos + i)) | (((a >> i) & 1) << pos + i)
        i += 1
    return f


@pytest.mark.parametrize("t", ("b32", "b64"))
def test_bfi(t):
    rng = random.Random(SEED + 10)
    n = _bits(t)
    a, b = rand_ints(rng, t), rand_ints(rng, t)[::-1]
    pos = [rng.choice([0, 1, n - 1, n, 255, 0x100, rng.randint(0, n)]) for _ in a]
    length = [rng.choice([0, 1, n, n + 7, 255, rng.randint(0, n)]) for _ in a]
    got = sem("bfi", t, arr(t, a), arr(t, b), arr("u32", pos), arr("u32", length))
    assert got.tolist() == [_bfi_ref(x, y, p, ln, t) for x, y, p, ln in zip(a, b, pos, length)]


# PTX ISA prmt table: for each mode and selector c[1:0], the source byte of d.b3, d.b2, d.b1, d.b0.
PRMT_TABLE = {
    "f4e": {0: (3, 2, 1, 0), 1: (4, 3, 2, 1), 2: (5, 4, 3, 2), 3: (6, 5, 4, 3)},
    "b4e": {0: (5, 6, 7, 0), 1: (6, 7, 0, 1), 2: (7, 0, 1, 2), 3: (0, 1, 2, 3)},
    "rc8": {0: (0, 0, 0, 0), 1: (1, 1, 1, 1), 2: (2, 2, 2, 2), 3: (3, 3, 3, 3)},
    "ecl": {0: (3, 2, 1, 0), 1: (3, 2, 1, 1), 2: (3, 2, 2, 2), 3: (3, 3, 3, 3)},
    "ecr": {0: (0, 0, 0, 0), 1: (1, 1, 1, 0), 2: (2, 2, 1, 0), 3: (3, 2, 1, 0)},
    "rc16": {0: (1, 0, 1, 0), 1: (3, 2, 3, 2), 2: (1, 0, 1, 0), 3: (3, 2, 3, 2)},
}


def _prmt_ref(a: int, b: int, c: int, mode) -> int:
    src = [((b << 32 | a) >> 8 * k) & 0xFF for k in range(8)]
    out = 0
    for i in range(4):
        if mode is None:
            sel = (c >> 4 * i) & 0xF
            byte = src[sel & 7]
            if sel & 8:
                byte = 0xFF if byte & 0x80 else 0
        else:
            byte = src[PRMT_TABLE[mode][c & 3][3 - i]]
        out |= byte << 8 * i
    return out


@pytest.mark.parametrize("mode", [None, "f4e", "b4e", "rc8", "ecl", "ecr", "rc16"])
def test_prmt(mode):
    rng = random.Random(SEED + 11)
    a, b, c = rand_ints(rng, "b32"), rand_ints(rng, "b32")[::-1], rand_ints(rng, "b32")
    got = sem("prmt", "b32" + ("." + mode if mode else ""), arr("b32", a), arr("b32", b), arr("b32", c))
    assert got.tolist() == [_prmt_ref(x, y, z, mode) for x, y, z in zip(a, b, c)]


def test_prmt_known_value():
    # selector 0x5410 picks bytes 0,1 of a and 0,1 of b: the common "pack two halves" idiom
    got = sem("prmt", "b32", arr("b32", [0x33221100]), arr("b32", [0x77665544]), arr("b32", [0x5410]))
    assert got.tolist() == [0x55441100]


def test_lop3():
    rng = random.Random(SEED + 12)
    a, b, c = rand_ints(rng, "b32"), rand_ints(rng, "b32")[::-1], rand_ints(rng, "b32")
    lut = [rng.randint(0, 255) for _ in a]
    got = sem("lop3", "b32", *(arr("b32", v) for v in (a, b, c, lut)))
    ref = []
    for x, y, z, t in zip(a, b, c, lut):
        ref.append(sum(((t >> ((x >> k & 1) << 2 | (y >> k & 1) << 1 | (z >> k & 1))) & 1) << k
                       for k in range(32)))
    assert got.tolist() == ref
    # the documented idiom: immLut = F(0xF0, 0xCC, 0xAA)
    assert sem("lop3", "b32", *(arr("b32", [v]) for v in (0xF0, 0xCC, 0xAA, 0xF0 & 0xCC | 0xAA))).tolist() == [
        0xF0 & 0xCC | 0xAA]


@pytest.mark.parametrize("mods", ["l.wrap", "l.clamp", "r.wrap", "r.clamp"])
def test_shf(mods):
    rng = random.Random(SEED + 13)
    a, b = rand_ints(rng, "b32"), rand_ints(rng, "b32")[::-1]
    c = [rng.choice([0, 1, 31, 32, 33, 64, rng.randint(0, 40)]) for _ in a]
    got = sem("shf", mods + ".b32", arr("b32", a), arr("b32", b), arr("u32", c))
    ref = []
    for x, y, s in zip(a, b, c):
        n = min(s, 32) if "clamp" in mods else s & 31
        v = y << 32 | x
        ref.append(((v << n) >> 32) & 0xFFFFFFFF if mods[0] == "l" else (v >> n) & 0xFFFFFFFF)
    assert got.tolist() == ref


@pytest.mark.parametrize("t", ("u32", "s32", "u64", "s64"))
def test_bfind(t):
    rng = random.Random(SEED + 14)
    n = _bits(t)
    a = rand_ints(rng, t)
    ref = []
    for x in a:
        y = ~x if x < 0 else x
        ref.append(y.bit_length() - 1 if y else 0xFFFFFFFF)
    assert sem("bfind", t, arr(t, a)).tolist() == ref
    shift = sem("bfind", "shiftamt." + t, arr(t, a)).tolist()
    assert shift == [n - 1 - r if r != 0xFFFFFFFF else r for r in ref]


# ---------------------------------------------------------------- float: NaN, signed zero, comparisons
NAN32 = np.float32("nan")


@pytest.mark.parametrize("t", ("f32", "f64"))
def test_min_max_nan_and_zero(t):
    a = arr(t, [np.nan, 1.0, np.nan, 0.0, -0.0, -3.0, np.inf])
    b = arr(t, [2.0, np.nan, np.nan, -0.0, 0.0, -np.inf, 5.0])
    mn, mx = sem("min", t, a, b), sem("max", t, a, b)
    assert mn[:2].tolist() == [2.0, 1.0] and mx[:2].tolist() == [2.0, 1.0]
    assert np.isnan(mn[2]) and np.isnan(mx[2])
    assert np.signbit(mn[3]) and np.signbit(mn[4]), "min(+0, -0) is -0 either way round"
    assert not np.signbit(mx[3]) and not np.signbit(mx[4]), "max(+0, -0) is +0 either way round"
    assert mn[5:].tolist() == [-np.inf, 5.0] and mx[5:].tolist() == [-3.0, np.inf]
    if t == "f32":
        assert mn.view(np.uint32)[2] == 0x7FFFFFFF


def test_min_max_nan_modifier_and_xorsign():
    a, b = arr("f32", [np.nan, 1.0, -2.0, 3.0]), arr("f32", [2.0, np.nan, 1.5, -4.0])
    mn = sem("min", "NaN.f32", a, b)
    assert mn.view(np.uint32)[:2].tolist() == [0x7FFFFFFF] * 2 and mn[2:].tolist() == [-2.0, -4.0]
    mx = sem("max", "xorsign.abs.f32", a, b)
    assert mx.tolist() == [2.0, 1.0, -2.0, -4.0]     # NaN ignored; sign = xor of the input signs


def test_min_max_ftz():
    tiny = np.float32(1e-40)
    got = sem("max", "ftz.f32", arr("f32", [tiny, -tiny]), arr("f32", [0.0, -0.0]))
    assert got.tolist() == [0.0, 0.0] and not np.signbit(got[0])


CMP_CASES = [(1.0, 2.0), (2.0, 1.0), (1.0, 1.0), (np.nan, 1.0), (1.0, np.nan), (np.nan, np.nan),
             (0.0, -0.0), (-np.inf, np.inf)]


def _cmp_ref(op: str, x: float, y: float) -> bool:
    unordered = math.isnan(x) or math.isnan(y)
    base = {"eq": x == y, "ne": x != y and not unordered, "lt": x < y, "le": x <= y, "gt": x > y,
            "ge": x >= y}
    if op == "num":
        return not unordered
    if op == "nan":
        return unordered
    if op.endswith("u"):
        return unordered or base[op[:2]]
    return base[op] and not unordered


@pytest.mark.parametrize("t", ("f32", "f64"))
@pytest.mark.parametrize("op", ["eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu", "geu",
                                "num", "nan"])
def test_setp_float(t, op):
    a, b = arr(t, [x for x, _ in CMP_CASES]), arr(t, [y for _, y in CMP_CASES])
    got = sem("setp", f"{op}.{t}", a, b)
    assert got.dtype == np.bool_
    assert got.tolist() == [_cmp_ref(op, x, y) for x, y in CMP_CASES]


@pytest.mark.parametrize("t, op, fn", [
    ("s32", "lt", lambda x, y: x < y), ("s64", "ge", lambda x, y: x >= y), ("s16", "ne", lambda x, y: x != y),
    ("u32", "lo", lambda x, y: x < y), ("u32", "lt", lambda x, y: x < y), ("u64", "hs", lambda x, y: x >= y),
    ("u16", "hi", lambda x, y: x > y), ("u64", "ls", lambda x, y: x <= y), ("b32", "eq", lambda x, y: x == y),
    ("b64", "ne", lambda x, y: x != y), ("s32", "le", lambda x, y: x <= y), ("s32", "gt", lambda x, y: x > y),
])
def test_setp_int(t, op, fn):
    rng = random.Random(SEED + 15)
    a = rand_ints(rng, t)
    b = a[:50] + rand_ints(rng, t)[50:]
    rng.shuffle(b)
    assert sem("setp", f"{op}.{t}", arr(t, a), arr(t, b)).tolist() == [fn(x, y) for x, y in zip(a, b)]


@pytest.mark.parametrize("boolop, fn", [("and", lambda t, c: t and c), ("or", lambda t, c: t or c),
                                        ("xor", lambda t, c: t != c)])
def test_setp_boolop_pair(boolop, fn):
    a, b = arr("s32", [1, 1, 5, 5]), arr("s32", [2, 2, 3, 3])
    c = np.array([True, False, True, False])
    ops = (Pair(Reg("%p"), Reg("%q")), Reg("%a"), Reg("%b"), Reg("%c"))
    p, q = sem("setp", f"lt.{boolop}.s32", a, b, c, operands=ops)
    t = [True, True, False, False]
    assert p.tolist() == [fn(x, y) for x, y in zip(t, c.tolist())]
    assert q.tolist() == [fn(not x, y) for x, y in zip(t, c.tolist())]
    single = sem("setp", f"lt.{boolop}.s32", a, b, c, operands=(Reg("%p"),) + ops[1:])
    assert single.tolist() == p.tolist()


def test_setp_ftz():
    tiny = np.float32(1e-40)
    assert sem("setp", "eq.ftz.f32", arr("f32", [tiny]), arr("f32", [0.0])).tolist() == [True]
    assert sem("setp", "eq.f32", arr("f32", [tiny]), arr("f32", [0.0])).tolist() == [False]


def test_testp():
    vals = arr("f32", [0.0, -0.0, 1.0, 1e-40, np.inf, -np.inf, np.nan])
    expect = {"finite": [1, 1, 1, 1, 0, 0, 0], "infinite": [0, 0, 0, 0, 1, 1, 0],
              "number": [1, 1, 1, 1, 1, 1, 0], "notanumber": [0, 0, 0, 0, 0, 0, 1],
              "normal": [1, 1, 1, 0, 0, 0, 0], "subnormal": [0, 0, 0, 1, 0, 0, 0]}
    for op, ref in expect.items():
        assert sem("testp", f"{op}.f32", vals).tolist() == [bool(x) for x in ref], op


# ---------------------------------------------------------------- selp, mov pack/unpack, copysign
@pytest.mark.parametrize("t, a, b", [("s32", [1, -2], [3, 4]), ("f64", [1.5, 2.5], [-1.0, -2.0]),
                                     ("b16", [0xFFFF, 1], [2, 3])])
def test_selp(t, a, b):
    c = np.array([True, False])
    got = sem("selp", t, arr(t, a), arr(t, b), c)
    assert got.dtype == dtype_of(t) and got.tolist() == [a[0], b[1]]


def test_mov_pack_unpack():
    vec2 = Vec((Reg("%r1"), Reg("%r2")))
    lo, hi = arr("b32", [0x11111111, 0xDEADBEEF]), arr("b32", [0x22222222, 0x01234567])
    packed = sem("mov", "b64", lo, hi, operands=(Reg("%rd"), vec2))
    assert packed.dtype == np.uint64 and packed.tolist() == [0x2222222211111111, 0x01234567DEADBEEF]
    a, b = sem("mov", "b64", packed, operands=(vec2, Reg("%rd")))
    assert a.dtype == np.uint32 and a.tolist() == lo.tolist() and b.tolist() == hi.tolist()
    h = sem("mov", "b32", arr("b16", [0xBEEF]), arr("b16", [0xDEAD]), operands=(Reg("%r"), vec2))
    assert h.tolist() == [0xDEADBEEF]
    parts = sem("mov", "b32", arr("b32", [0xDEADBEEF]), operands=(vec2, Reg("%r")))
    assert [p.tolist() for p in parts] == [[0xBEEF], [0xDEAD]] and parts[0].dtype == np.uint16
    vec4 = Vec(tuple(Reg(f"%h{i}") for i in range(4)))
    four = sem("mov", "b64", *(arr("b16", [v]) for v in (1, 2, 3, 4)), operands=(Reg("%rd"), vec4))
    assert four.tolist() == [0x0004000300020001]
    assert [x.tolist() for x in sem("mov", "b64", four, operands=(vec4, Reg("%rd")))] == [[1], [2], [3], [4]]


def test_mov_plain():
    assert sem("mov", "f32", arr("f32", [1.5])).tolist() == [1.5]
    assert sem("mov", "pred", np.array([True, False])).tolist() == [True, False]


def test_copysign():
    got = sem("copysign", "f32", arr("f32", [-1.0, 1.0, -0.0]), arr("f32", [2.0, -3.0, 4.0]))
    assert got.tolist() == [-2.0, 3.0, -4.0]


# ---------------------------------------------------------------- floating point rounding
F32_TINY = np.float32(1e-40)


def test_f32_nan_is_canonical():
    got = sem("add", "f32", arr("f32", [np.inf, np.nan]), arr("f32", [-np.inf, 1.0]))
    assert got.view(np.uint32).tolist() == [0x7FFFFFFF, 0x7FFFFFFF]
    got = sem("mul", "rz.f32", arr("f32", [0.0]), arr("f32", [np.inf]))
    assert got.view(np.uint32).tolist() == [0x7FFFFFFF]


def test_ftz_and_sat():
    assert sem("add", "f32", arr("f32", [F32_TINY]), arr("f32", [0.0])).tolist() == [F32_TINY]
    r = sem("add", "ftz.f32", arr("f32", [F32_TINY, -F32_TINY]), arr("f32", [0.0, -0.0]))
    assert r.tolist() == [0.0, 0.0] and np.signbit(r[1])
    r = sem("mul", "ftz.f32", arr("f32", [1e-20]), arr("f32", [1e-20]))    # subnormal result flushed
    assert r.tolist() == [0.0]
    r = sem("add", "sat.f32", arr("f32", [0.5, 2.0, -3.0, np.nan, -0.0]), arr("f32", [0.25, 0, 0, 0, 0]))
    assert r.tolist() == [0.75, 1.0, 0.0, 0.0, 0.0] and not np.signbit(r[4])


def _check_binary(op, t, mode, a, b, ref_fn):
    got = sem(op, f"{mode}.{t}", a, b)
    assert got.dtype == dtype_of(t)
    for x, y, g in zip(a.tolist(), b.tolist(), got.tolist()):
        ref = round_frac(ref_fn(Fraction(x), Fraction(y)), t, mode)
        assert g == ref, (op, mode, x, y, g, ref)


@pytest.mark.parametrize("t", ("f32", "f64"))
@pytest.mark.parametrize("mode", ("rn", "rz", "rm", "rp"))
@pytest.mark.parametrize("op, fn", [("add", lambda x, y: x + y), ("sub", lambda x, y: x - y),
                                    ("mul", lambda x, y: x * y), ("div", lambda x, y: x / y)])
def test_rounding_modes_random(t, mode, op, fn):
    rng = random.Random(SEED + 16)
    a, b = rand_floats(rng, t), rand_floats(rng, t)
    if op in ("add", "sub"):      # also close magnitudes, for cancellation
        b[::3] = (a[::3] * (1 + np.array([rng.uniform(-1e-6, 1e-6) for _ in a[::3]]))).astype(a.dtype)
    _check_binary(op, t, mode, a, b, fn)


@pytest.mark.parametrize("mode", ("rz", "rm", "rp"))
def test_rounding_modes_overflow_and_subnormal(mode):
    big, small = np.float32(3e38), np.float32(1e-30)
    a, b = arr("f32", [big, -big, small, -small]), arr("f32", [big, big, small, small])
    _check_binary("mul", "f32", mode, a, b, lambda x, y: x * y)
    a, b = arr("f64", [1e300, -1e300]), arr("f64", [1e10, 1e10])
    _check_binary("mul", "f64", mode, a, b, lambda x, y: x * y)


def test_exact_zero_sign_round_down():
    assert np.signbit(sem("add", "rm.f32", arr("f32", [1.0]), arr("f32", [-1.0]))[0])
    assert not np.signbit(sem("add", "rn.f32", arr("f32", [1.0]), arr("f32", [-1.0]))[0])
    assert np.signbit(sem("sub", "rm.f64", arr("f64", [2.5]), arr("f64", [2.5]))[0])
    assert np.signbit(sem("fma", "rm.f32", arr("f32", [1.0]), arr("f32", [1.0]), arr("f32", [-1.0]))[0])


def _fma_ref(x, y, z, t, mode):
    x, y, z = float(x), float(y), float(z)
    return round_frac(Fraction(x) * Fraction(y) + Fraction(z), t, mode)


def test_fma_f32_known_double_rounding_case():
    # exact a*b + c lies just below a tie between two floats; rounding a*b + c to float64 first lands
    # exactly on the tie and the second rounding then goes the wrong way.
    a = np.float32(1 + 2**-15)
    b = np.float32(2**-24 * (1 - 2**-15))
    c = np.float32(1 + 2**-23)
    naive = np.float32(np.float64(a) * np.float64(b) + np.float64(c))
    exact = _fma_ref(a, b, c, "f32", "rn")
    assert float(naive) != exact == 1 + 2**-23
    assert sem("fma", "rn.f32", arr("f32", [a]), arr("f32", [b]), arr("f32", [c])).tolist() == [exact]
    assert sem("mad", "rn.f32", arr("f32", [a]), arr("f32", [b]), arr("f32", [c])).tolist() == [exact]


def test_fma_f32_single_rounding_search():
    """Random inputs built to hit double-rounding: ours must match the exact reference on all of them."""
    rng = random.Random(SEED + 17)
    a, b, c = [], [], []
    for _ in range(2000):
        k = rng.randint(1, 180) * rng.choice((1, -1))
        e = rng.randint(-20, 20)
        a.append((1 + k * 2**-23) * 2.0**e)
        b.append(2.0**(-24 - e + rng.randint(-1, 1)) * (1 - k * 2**-23) * rng.choice((1, -1)))
        c.append(rng.choice((1, -1)) * (1 + rng.randint(0, 2**23 - 1) * 2**-23))
    A, B, C = arr("f32", a), arr("f32", b), arr("f32", c)
    naive = (A.astype(np.float64) * B.astype(np.float64) + C.astype(np.float64)).astype(np.float32)
    got = sem("fma", "rn.f32", A, B, C)
    ref = [_fma_ref(x, y, z, "f32", "rn") for x, y, z in zip(A.tolist(), B.tolist(), C.tolist())]
    differs = sum(float(n) != r for n, r in zip(naive.tolist(), ref))
    assert differs > 20, "the search should find double-rounding cases"
    assert got.tolist() == ref


@pytest.mark.parametrize("t", ("f32", "f64"))
@pytest.mark.parametrize("mode", ("rn", "rz", "rm", "rp"))
def test_fma_random(t, mode):
    rng = random.Random(SEED + 18)
    a, b = rand_floats(rng, t, emax=40), rand_floats(rng, t, emax=40)
    c = rand_floats(rng, t, emax=80)
    c[::2] = -(a[::2].astype(np.float64) * b[::2]).astype(a.dtype)      # heavy cancellation
    got = sem("fma", f"{mode}.{t}", a, b, c)
    ref = [_fma_ref(x, y, z, t, mode) for x, y, z in zip(a.tolist(), b.tolist(), c.tolist())]
    assert got.tolist() == ref


@pytest.mark.parametrize("mode", ("rn", "rz", "rm", "rp"))
def test_fma_f32_extreme_ranges(mode):
    """Products and sums that overflow f32 or land in its subnormal range, in every rounding mode."""
    rng = random.Random(SEED + 25)
    a, b = rand_floats(rng, "f32", 1500, emax=100), rand_floats(rng, "f32", 1500, emax=100)
    c = rand_floats(rng, "f32", 1500, emax=126)
    with np.errstate(over="ignore"):
        c[::3] = -(a[::3].astype(np.float64) * b[::3]).astype(np.float32)
    got = sem("fma", f"{mode}.f32", a, b, c)
    for x, y, z, g in zip(a.tolist(), b.tolist(), c.tolist(), got.tolist()):
        if all(map(math.isfinite, (x, y, z))):
            assert g == _fma_ref(x, y, z, "f32", mode), (x, y, z, mode)


@pytest.mark.parametrize("mode, expect", [("rn", 3.4028234663852886e38), ("rz", 3.4028234663852886e38),
                                          ("rm", 3.4028234663852886e38), ("rp", math.inf)])
def test_fma_f32_overflow_tie(mode, expect):
    # a*b = max + ulp/2, the tie that rounds to infinity; c = -2^70 is below float64 resolution there, so
    # a*b + c rounds to the tie in float64 although the exact value is below it
    a, b, c = 18631 * 2.0**60, 1801 * 2.0**43, -(2.0**70)        # 18631 * 1801 = 2^25 - 1
    assert _fma_ref(a, b, c, "f32", "rn") == 3.4028234663852886e38
    got = sem("fma", f"{mode}.f32", arr("f32", [a]), arr("f32", [b]), arr("f32", [c]))
    assert got.tolist() == [expect]


def test_fma_scalar_operands():
    one = np.float32(1.0)
    assert float(sem("fma", "rn.f32", one, np.float32(2.0), one)) == 3.0
    got = sem("fma", "rn.f64", arr("f64", [1.0, 2.0]), np.float64(3.0), np.float64(0.5))
    assert got.tolist() == [3.5, 6.5]


def test_fma_special_values():
    inf, nan = np.inf, np.nan
    got = sem("fma", "rn.f64", arr("f64", [inf, 0.0, 1.0, inf]), arr("f64", [0.0, 5.0, 1.0, 1.0]),
              arr("f64", [1.0, -0.0, nan, -inf]))
    assert np.isnan(got[0]) and got[1] == 0.0 and not np.signbit(got[1]) and np.isnan(got[2])
    assert np.isnan(got[3])
    got = sem("fma", "rn.f32", arr("f32", [3e38]), arr("f32", [10.0]), arr("f32", [-np.inf]))
    assert got.tolist() == [-np.inf]


@pytest.mark.parametrize("t", ("f32", "f64"))
@pytest.mark.parametrize("mode", ("rn", "rz", "rm", "rp"))
def test_sqrt_rcp_rounding(t, mode):
    rng = random.Random(SEED + 19)
    a = np.abs(rand_floats(rng, t))
    s = sem("sqrt", f"{mode}.{t}", a)
    nxt = np.nextafter(s, dtype_of(t).type(np.inf))
    prv = np.nextafter(s, dtype_of(t).type(0))
    for x, r, up, down in zip(a.tolist(), s.tolist(), nxt.tolist(), prv.tolist()):
        x, r, up, down = map(Fraction, (x, r, up, down))
        if mode in ("rz", "rm"):
            assert r * r <= x < up * up
        elif mode == "rp":
            assert down * down < x <= r * r
        else:
            assert abs(r * r - x) <= min(abs(up * up - x), abs(down * down - x))
    rc = sem("rcp", f"{mode}.{t}", a)
    assert rc.tolist() == [round_frac(1 / Fraction(x), t, mode) for x in a.tolist()]


def test_div_f32_variants():
    a, b = arr("f32", [1.0, 10.0, -3.0, 1.0]), arr("f32", [3.0, 4.0, 0.0, 3e38])
    rn = sem("div", "rn.f32", a, b)
    assert rn.tolist() == [np.float32(1 / 3), 2.5, -np.inf, np.float32(1 / 3e38)]
    assert sem("div", "full.f32", a, b).tolist() == rn.tolist()
    approx = sem("div", "approx.f32", a, b)
    assert approx[:3].tolist() == rn[:3].tolist()
    assert sem("div", "approx.ftz.f32", a, b)[3] == 0.0      # 1/b is subnormal, flushed


@pytest.mark.parametrize("op, x, y", [("rcp", 4.0, 0.25), ("sqrt", 16.0, 4.0), ("rsqrt", 4.0, 0.5),
                                      ("ex2", 3.0, 8.0), ("ex2", -np.inf, 0.0), ("lg2", 8.0, 3.0),
                                      ("lg2", 0.0, -np.inf), ("sin", 0.0, 0.0), ("cos", 0.0, 1.0)])
def test_approx_functions(op, x, y):
    assert sem(op, "approx.f32", arr("f32", [x])).tolist() == [y]


def test_approx_nan_cases():
    assert np.isnan(sem("lg2", "approx.f32", arr("f32", [-1.0]))[0])
    assert np.isnan(sem("sin", "approx.f32", arr("f32", [np.inf]))[0])
    assert sem("sin", "approx.f32", arr("f32", [0.5])).tolist() == [np.float32(math.sin(0.5))]


def test_abs_neg_float():
    assert sem("abs", "f32", arr("f32", [-1.5, -0.0])).tolist() == [1.5, 0.0]
    r = sem("neg", "f64", arr("f64", [0.0, -2.0]))
    assert np.signbit(r[0]) and r[1] == 2.0
    assert sem("neg", "ftz.f32", arr("f32", [F32_TINY])).tolist() == [0.0]


# ---------------------------------------------------------------- cvt
@pytest.mark.parametrize("d, s", [("s8", "s32"), ("u8", "s32"), ("u16", "u64"), ("s16", "s64"), ("s32", "u32"),
                                  ("u32", "s32"), ("s64", "s16"), ("u64", "s16"), ("u32", "u16"),
                                  ("s32", "u8"), ("u64", "s32")])
def test_cvt_int_int(d, s):
    rng = random.Random(SEED + 20)
    a = rand_ints(rng, s, 60)
    got = sem("cvt", f"{d}.{s}", arr(s, a))
    assert got.dtype == dtype_of(d)
    assert got.tolist() == [wrap(x, d) for x in a]


@pytest.mark.parametrize("d, s", [("s8", "s32"), ("u8", "s32"), ("u16", "s16"), ("s32", "u32"), ("u32", "s64"),
                                  ("s16", "u64"), ("u64", "s64"), ("s64", "u64")])
def test_cvt_int_sat(d, s):
    rng = random.Random(SEED + 21)
    a = rand_ints(rng, s, 60)
    info = np.iinfo(dtype_of(d))
    got = sem("cvt", f"sat.{d}.{s}", arr(s, a))
    assert got.tolist() == [max(int(info.min), min(int(info.max), x)) for x in a]


@pytest.mark.parametrize("s", ("f16", "f32", "f64"))
@pytest.mark.parametrize("d", ("s8", "u8", "s16", "u16", "s32", "u32", "s64", "u64"))
@pytest.mark.parametrize("irnd, fn", [("rni", round), ("rzi", math.trunc), ("rmi", math.floor),
                                      ("rpi", math.ceil)])
def test_cvt_float_to_int(s, d, irnd, fn):
    rng = random.Random(SEED + 22)
    vals = [0.5, 1.5, 2.5, -0.5, -1.5, -2.7, 2.7, -0.0, 1e30, -1e30, np.inf, -np.inf, 65504.0, 127.5, 128.0,
            -128.5, 255.5, 256.0, 2.0**31, -2.0**31, 2.0**32, 2.0**63, -2.0**63, 2.0**64, 3e9]
    vals += [rng.uniform(-300, 300) for _ in range(40)]
    a = arr(s, vals)
    info = np.iinfo(dtype_of(d))
    ref = []
    for x in a.tolist():
        v = fn(x) if math.isfinite(x) else (info.max if x > 0 else info.min)
        ref.append(max(int(info.min), min(int(info.max), v)))
    assert sem("cvt", f"{irnd}.{d}.{s}", a).tolist() == ref


@pytest.mark.parametrize("s, d, expect", [
    ("f32", "s32", 0), ("f32", "u32", 0), ("f16", "s16", 0), ("f32", "u8", 0),
    ("f64", "s32", -2**31), ("f64", "u32", 2**31), ("f64", "s16", -2**15), ("f32", "s64", -2**63),
    ("f32", "u64", 2**63), ("f64", "u64", 2**63),
])
def test_cvt_nan_to_int(s, d, expect):
    """PTX ISA cvt: NaN -> 0, except 1 << (N-1) with an .f64 source or a 64-bit destination."""
    assert sem("cvt", f"rni.{d}.{s}", arr(s, [np.nan])).tolist() == [expect]


@pytest.mark.parametrize("s", ("s32", "u32", "s64", "u64", "s16", "u8"))
@pytest.mark.parametrize("d", ("f16", "f32", "f64"))
@pytest.mark.parametrize("mode", ("rn", "rz", "rm", "rp"))
def test_cvt_int_to_float(s, d, mode):
    rng = random.Random(SEED + 23)
    a = rand_ints(rng, s, 200)
    bits = 8 * dtype_of(s).itemsize
    if bits > 24:   # values with bits beyond the float's precision: ties and near-ties
        a += [(rng.randint(1, 2**22) << rng.randint(0, bits - 24)) | rng.choice((0, 1)) for _ in range(50)]
        a = [wrap(x, s) for x in a]
    got = sem("cvt", f"{mode}.{d}.{s}", arr(s, a))
    assert got.dtype == dtype_of(d)
    assert got.tolist() == [round_frac(Fraction(x), d, mode) for x in a]


@pytest.mark.parametrize("s, d", [("f64", "f32"), ("f64", "f16"), ("f32", "f16")])
@pytest.mark.parametrize("mode", ("rn", "rz", "rm", "rp"))
def test_cvt_float_narrowing(s, d, mode):
    rng = random.Random(SEED + 24)
    emax = 20 if d == "f16" else 140
    a = rand_floats(rng, s, emax=emax if s == "f64" else min(emax, 120))
    got = sem("cvt", f"{mode}.{d}.{s}", a)
    assert got.tolist() == [round_frac(Fraction(x), d, mode) for x in a.tolist()]


def test_cvt_float_misc():
    r = sem("cvt", "rni.f32.f32", arr("f32", [0.5, 1.5, -2.5, -0.4, 3.7]))
    assert r.tolist() == [0.0, 2.0, -2.0, -0.0, 4.0] and np.signbit(r[3])
    assert sem("cvt", "rmi.f64.f64", arr("f64", [-0.5, 2.5])).tolist() == [-1.0, 2.0]
    assert sem("cvt", "rpi.f32.f32", arr("f32", [0.1])).tolist() == [1.0]
    assert sem("cvt", "rzi.f32.f32", arr("f32", [-1.9])).tolist() == [-1.0]
    assert sem("cvt", "f64.f32", arr("f32", [0.1])).tolist() == [float(np.float32(0.1))]
    assert sem("cvt", "f32.f16", arr("f16", [65504.0])).tolist() == [65504.0]
    assert sem("cvt", "ftz.f32.f32", arr("f32", [F32_TINY])).tolist() == [0.0]
    assert sem("cvt", "f32.f32", arr("f32", [F32_TINY])).tolist() == [F32_TINY]
    assert sem("cvt", "rn.ftz.f32.f64", arr("f64", [1e-40])).tolist() == [0.0]
    assert sem("cvt", "rzi.ftz.s32.f32", arr("f32", [F32_TINY])).tolist() == [0]
    sat = sem("cvt", "rn.sat.f32.s32", arr("s32", [-5, 0, 1, 7]))
    assert sat.tolist() == [0.0, 0.0, 1.0, 1.0]
    sat = sem("cvt", "sat.f32.f32", arr("f32", [np.nan, 0.25, 2.0]))
    assert sat.tolist() == [0.0, 0.25, 1.0]


def test_cvt_nan_canonical():
    # f64 -> f32 keeps the NaN's sign and drops its payload (measured on an H200)
    r = sem("cvt", "rn.f32.f64", arr("f64", [np.nan, -np.nan]))
    assert r.view(np.uint32).tolist() == [0x7FC00000, 0xFFC00000]
    r = sem("cvt", "rn.f16.f32", arr("f32", [np.nan]))
    assert r.view(np.uint16).tolist() == [0x7FFF]


def test_cvt_overflow_directed():
    big = arr("f64", [1e300, -1e300, 3.5e38])
    assert sem("cvt", "rn.f32.f64", big).tolist() == [np.inf, -np.inf, np.inf]
    assert sem("cvt", "rz.f32.f64", big).tolist() == [np.finfo(np.float32).max, -np.finfo(np.float32).max] * 1 + [
        np.finfo(np.float32).max]
    assert sem("cvt", "rm.f32.f64", big).tolist()[:2] == [np.finfo(np.float32).max, -np.inf]
    assert sem("cvt", "rp.f32.f64", big).tolist()[:2] == [np.inf, -np.finfo(np.float32).max]


# ---------------------------------------------------------------- measured H100 results, when present
HW_FILE = Path(__file__).parent / "data" / "ptx_hw_edge.json"
#: register width in bytes of each letter of a probe signature ("r=rr": 32-bit result from two 32-bit regs)
SIG_BYTES = {"r": 4, "f": 4, "l": 8, "d": 8, "h": 2}
#: probed instructions whose hardware results are approximations (not bit-exact in the simulator)
APPROXIMATE = ("approx", "full", "ex2", "lg2", "sin", "cos", "rsqrt")
_SETP_IDIOM = re.compile(r"^\{ \.reg \.pred p; (setp\.\S+) p, a, b; selp\.u32 d, 1, 0, p; \}$")


def _hw_groups() -> dict:
    if not HW_FILE.exists():
        return {}
    groups = {}
    for case in json.loads(HW_FILE.read_text()).get("cases", []):
        groups.setdefault((case["ptx"], case["sig"]), []).append(case)
    return groups


HW_GROUPS = _hw_groups()


def _hw_instruction(ptx: str):
    """(Instruction, as_bool) for a probe text like ``div.s32 d, a, b`` or the setp-selp idiom."""
    setp = _SETP_IDIOM.match(ptx)
    if setp:
        ptx = setp.group(1) + " d, a, b"
    head, _, rest = ptx.partition(" ")
    opcode, *mods = head.split(".")
    operands = []
    for tok in (t.strip() for t in rest.split(",")):
        operands.append(Imm(int(tok, 0), tok) if tok[0] in "-0123456789" else Reg("%" + tok))
    return Instruction(opcode, tuple(mods), tuple(operands)), bool(setp)


def _hw_run(ins, sig: str, as_bool: bool, inputs: list) -> int:
    """Run the semantics on one probed input set; the result as the destination register's bits."""
    from isa.decode import imm_value
    dst_t, src_t = TABLE[ins.opcode].types(ins)
    letters = iter(sig.split("=")[1])
    srcs = []
    for op, t in zip(ins.operands[1:], src_t):
        if isinstance(op, Imm):
            srcs.append(imm_value(op, t))
            continue
        width = SIG_BYTES[next(letters)]
        bits = np.array([int(inputs.pop(0), 16)], ptxtypes.BITS[width])
        srcs.append(ptxtypes.as_type(bits, t))
    out = np.asarray(TABLE[ins.opcode].semantics(ins, *srcs)).reshape(1)
    if as_bool:
        return int(out[0])
    reg = ptxtypes.BITS[SIG_BYTES[sig[0]]]
    return int(ptxtypes.to_bits(out, reg, ptxtypes.is_signed(dst_t[0]))[0])


def _alu_probe(ptx: str):
    """The probed instruction as (Instruction, as_bool), or None when it is not one ALU instruction of the
    table (the probe also holds vector/setp idioms, memory and warp instructions, checked elsewhere)."""
    try:
        ins, as_bool = _hw_instruction(ptx)
        validate(ins)
    except (OpcodeError, ValueError, IndexError):
        return None
    return (ins, as_bool) if TABLE[ins.opcode].kind == "alu" else None


def _is_approximate(ptx: str) -> bool:
    return any(w in ptx.split(" ")[0] for w in APPROXIMATE)


HW_ALU = {key: probe for key in sorted(HW_GROUPS) if (probe := _alu_probe(key[0])) is not None}
HW_EXACT = sorted(k for k in HW_ALU if not _is_approximate(k[0]))
HW_APPROX = sorted(k for k in HW_ALU if _is_approximate(k[0]))


def test_hardware_data_present():
    """The measured H200 results are checked in and cover most ALU families."""
    assert len(HW_EXACT) > 150 and len(HW_APPROX) >= 8
    assert len({k[0].split(".")[0] for k in HW_EXACT}) >= 20


@pytest.mark.parametrize("key", HW_EXACT, ids=[f"{p}|{s}" for p, s in HW_EXACT])
def test_matches_measured_hardware(key):
    """Every bit-exact probed case of tests/hw/edge_probe.cu gives the hardware's result."""
    ins, as_bool = HW_ALU[key]
    bad = []
    for case in HW_GROUPS[key]:
        got = _hw_run(ins, key[1], as_bool, list(case["inputs"]))
        if got != int(case["outputs"][0], 16):
            bad.append(f"{case['inputs']} -> {got:#x}, hardware {case['outputs'][0]}")
    assert not bad, f"{key[0]}: " + "; ".join(bad[:8])


def _as_float(bits: int, nbytes: int) -> float:
    return float(np.array([bits], ptxtypes.BITS[nbytes]).view(np.float32 if nbytes == 4 else np.float64)[0])


@pytest.mark.parametrize("key", HW_APPROX, ids=[f"{p}|{s}" for p, s in HW_APPROX])
def test_approximate_instructions_near_hardware(key):
    """.approx instructions are computed correctly rounded; hardware's approximations stay within the
    error measured for them (docs/hardware/ptx_edge_cases.md): 4 ulp; 2^-15 absolute for sin/cos on
    |x| <= 100 (larger arguments lose all accuracy on hardware and are not compared); 2^-21 absolute for
    lg2 (near 1); 2^-19 relative for the f64 approximations (about 20 bits on hardware)."""
    ins, as_bool = HW_ALU[key]
    nbytes = SIG_BYTES[key[1][0]]
    bad = []
    for case in HW_GROUPS[key]:
        x = _as_float(int(case["inputs"][0], 16), SIG_BYTES[key[1].split("=")[1][0]])
        trig = ins.opcode in ("sin", "cos")
        if trig and not abs(x) <= 100:
            continue
        got = _as_float(_hw_run(ins, key[1], as_bool, list(case["inputs"])), nbytes)
        hw = _as_float(int(case["outputs"][0], 16), nbytes)
        if np.isnan(hw) or np.isnan(got) or np.isinf(hw) or np.isinf(got):
            ok = (np.isnan(hw) and np.isnan(got)) or hw == got
        else:
            ulp = np.spacing(np.float32(abs(hw))) if nbytes == 4 else np.spacing(abs(hw))
            tol = 2.0 ** -15 if trig else 4 * ulp
            if ins.opcode == "lg2":
                tol = max(tol, 2.0 ** -21)
            if nbytes == 8:
                tol = abs(hw) * 2.0 ** -19
            ok = abs(got - hw) <= tol
        if not ok:
            bad.append(f"{case['inputs']} -> {got!r}, hardware {hw!r}")
    assert not bad, f"{key[0]}: " + "; ".join(bad[:8])


def _dp4a_ref(a: int, b: int, c: int, sa: bool, sb: bool) -> int:
    def byte(x, k, signed):
        v = (x >> 8 * k) & 0xFF
        return v - 256 if signed and v & 0x80 else v
    total = c + sum(byte(a, k, sa) * byte(b, k, sb) for k in range(4))
    return total & 0xFFFFFFFF


@pytest.mark.parametrize("ta, tb", [("s32", "s32"), ("u32", "s32"), ("s32", "u32"), ("u32", "u32")])
def test_dp4a_against_a_reference(ta, tb):
    """dp4a (numba-cuda's PTX for a dot product of int8 quadruples): c plus the four byte products."""
    rng = random.Random(7)
    a = [rng.randrange(1 << 32) for _ in range(64)] + [0x80808080, 0x7F7F7F7F, 0xFFFFFFFF]
    b = [rng.randrange(1 << 32) for _ in range(64)] + [0x80808080, 0x80808080, 0xFFFFFFFF]
    dt = "s32" if "s32" in (ta, tb) else "u32"
    c = [rng.randrange(1 << 32) for _ in range(len(a))]
    got = sem("dp4a", f"{ta}.{tb}", arr(ta, a), arr(tb, b), arr(dt, c))
    want = [_dp4a_ref(x, y, z, ta == "s32", tb == "s32") for x, y, z in zip(a, b, c)]
    assert (got.view(np.uint32).tolist()) == want and got.dtype == dtype_of(dt)

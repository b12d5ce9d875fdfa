"""``cvt``: conversions among u8..u64, s8..s64, f16, f32 and f64 (PTX ISA 9.7.9.21, "cvt").

Rules implemented (quoted from the PTX ISA cvt section):

* A rounding modifier is mandatory for float-to-int (``.rni .rzi .rmi .rpi``), int-to-float and narrowing
  float-to-float (``.rn .rz .rm .rp``); same-size float-to-float takes an optional integer rounding (round
  to integral in the same format); any other rounding modifier is illegal.
* int -> int: widening sign- or zero-extends by the *source* type, narrowing keeps the low bits; ``.sat``
  clamps to the destination range and is illegal where the destination range is a superset of the
  source range.
* float -> int always saturates to the destination range (``.sat`` is redundant). NaN converts to 0,
  except that with an .f64 source or a 64-bit destination it converts to ``1 << (N-1)`` (MININT for
  signed, (MAXINT >> 1) + 1 for unsigned).
* int -> float and narrowing float -> float are exact in every rounding mode for every source width
  (64-bit integers are split into two exact halves and combined with TwoSum / round-to-odd).
* ``.ftz`` (needs an .f32 source or destination) flushes subnormal f32 inputs and f32 results;
  ``.sat`` with a float destination clamps to [0.0, 1.0], NaN -> +0.0.
* NaN float results (measured on H200, docs/hardware/ptx_edge_cases.md): f64 -> f32 gives 0x7FC00000 with
  the source's sign (payload dropped) in every rounding mode; f64 -> f64 keeps the payload, quieted; f32 ->
  f64 keeps the payload, quieted, except that with ``.ftz`` every NaN gives 0x7FFFFFFFE0000000 (the widened
  canonical f32 NaN); any other f32 result is 0x7FFFFFFF, f16 0x7FFF.
"""
from __future__ import annotations

import numpy as np

from ..opcodes import OpcodeError, OpFamily, register
from .alu_float import F32, F64, RND, canon, flush, nan64, sat01
from .alu_int import check_unique, dt, lanewise, pick_one
from .fpexact import directed64, round_odd, round_to, two_sum

CVT_INT = ("u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64")
CVT_FLOAT = ("f16", "f32", "f64")
IRND = ("rni", "rzi", "rmi", "rpi")
_INTEGRAL = {"rni": np.rint, "rzi": np.trunc, "rmi": np.floor, "rpi": np.ceil}
CANON_NAN16 = np.uint16(0x7FFF).view(np.float16)
NARROW_NAN32 = np.uint32([0x7FC00000, 0xFFC00000]).view(np.float32)   # f64 -> f32 NaN, by sign


def _is_int(t: str) -> bool:
    """True for cvt integer types."""
    return t in CVT_INT


# ---------------------------------------------------------------- checking
def _check_types(ins):
    """Exactly two supported types: destination, source."""
    types = ins.types
    if len(types) != 2:
        raise OpcodeError(f"'{ins.name}' needs a destination and a source type (e.g. cvt.rn.f32.s32)")
    for t in types:
        if t not in CVT_INT + CVT_FLOAT:
            raise OpcodeError(f"'{ins.name}': type .{t} is not supported by cvt here (use one of "
                              + ", ".join("." + x for x in CVT_INT + CVT_FLOAT) + ")")
    return types


def _rounding_rule(d: str, s: str):
    """(allowed rounding modifiers, required?) for a cvt from ``s`` to ``d``."""
    if _is_int(d) and _is_int(s):
        return (), False
    if _is_int(d):
        return IRND, True
    if _is_int(s):
        return RND, True
    sd, ss = dt(d).itemsize, dt(s).itemsize
    if sd < ss:
        return RND, True                  # narrowing
    if sd == ss:
        return IRND, False                # same size: optional round-to-integral
    return (), False                      # widening is exact


def _check_cvt(ins):
    """Rounding legality, .ftz (needs f32) and .sat (only where it can clamp)."""
    check_unique(ins)
    d, s = _check_types(ins)
    for m in ins.mods:
        if m not in (d, s) and m not in RND + IRND + ("ftz", "sat"):
            raise OpcodeError(f"'{ins.name}': modifier .{m} is not supported (supported: "
                              ".rn .rz .rm .rp .rni .rzi .rmi .rpi .ftz .sat)")
    rnd = pick_one(ins, RND + IRND, False, "rounding")
    allowed, required = _rounding_rule(d, s)
    if rnd is not None and rnd not in allowed:
        what = ", ".join("." + r for r in allowed) if allowed else "none"
        raise OpcodeError(f"'{ins.name}': rounding .{rnd} is illegal for .{s} -> .{d} (allowed: {what})")
    if rnd is None and required:
        raise OpcodeError(f"'{ins.name}': .{s} -> .{d} needs a rounding modifier (one of "
                          + ", ".join("." + r for r in allowed) + ")")
    if ins.has("ftz") and "f32" not in (d, s):
        raise OpcodeError(f"'{ins.name}': .ftz needs an .f32 source or destination")
    if ins.has("sat") and _is_int(d) and _is_int(s) and not _can_overflow(d, s):
        raise OpcodeError(f"'{ins.name}': .sat is illegal: .{s} always fits in .{d}")


def _can_overflow(d: str, s: str) -> bool:
    """Whether some value of ``s`` does not fit in ``d``."""
    si, di = np.iinfo(dt(s)), np.iinfo(dt(d))
    return si.min < di.min or si.max > di.max


# ---------------------------------------------------------------- conversions
def int_to_int(a: np.ndarray, d: str, sat: bool) -> np.ndarray:
    """Wrap/extend (numpy astype does exactly PTX's truncate / sign- or zero-extend), or clamp."""
    if sat:
        si, di = np.iinfo(a.dtype), np.iinfo(dt(d))
        a = np.clip(a, max(si.min, di.min), min(si.max, di.max))
    return a.astype(dt(d))


def nan_to_int(s: str, d: str) -> int:
    """What NaN converts to: 0, or 1 << (N-1) with an .f64 source or a 64-bit destination."""
    n = 8 * dt(d).itemsize
    if s != "f64" and n != 64:
        return 0
    return -(1 << (n - 1)) if d.startswith("s") else 1 << (n - 1)


def float_to_int(a: np.ndarray, d: str, irnd: str, s: str) -> np.ndarray:
    """Round to integral, saturate to the range of ``d``; NaN per :func:`nan_to_int`."""
    v = _INTEGRAL[irnd](a.astype(F64))
    info = np.iinfo(dt(d))
    n = 8 * dt(d).itemsize
    if n < 64:                                       # both bounds exact in float64
        out = np.clip(v, float(info.min), float(info.max))
    else:                                            # 2^63 - 1 / 2^64 - 1 are not: clamp after the cast
        top = 2.0 ** (n - 1 if info.min < 0 else n)
        out = np.where(v >= top, 0.0, np.maximum(v, float(info.min)))
    nan = np.isnan(v)
    out = np.where(nan, 0.0, out).astype(dt(d))
    if n == 64:
        out = np.where(v >= top, info.max, out).astype(dt(d))
    return np.where(nan, nan_to_int(s, d), out).astype(dt(d)) if nan.any() else out


def _int64_exact(a):
    """(s, e): RN(a) in float64 and the exact remainder, for 64-bit integer arrays."""
    hi = (a >> np.uint64(32)) if a.dtype == np.uint64 else (a >> 32)
    lo = a & a.dtype.type(0xFFFFFFFF)
    return two_sum(hi.astype(F64) * 4294967296.0, lo.astype(F64))


def int_to_float(a: np.ndarray, d: str, rnd: str) -> np.ndarray:
    """Integer to float, one rounding in ``rnd`` (exact for every width)."""
    if a.dtype.itemsize < 8:
        x = a.astype(F64)               # exact
        return x if d == "f64" else round_to(x, dt(d), rnd)
    s, e = _int64_exact(a)
    if d == "f64":
        return directed64(s, e, rnd)
    return round_to(round_odd(s, e), dt(d), rnd)


def float_to_float(a: np.ndarray, d: str, rnd: str | None) -> np.ndarray:
    """Round to integral (same size), narrow with rounding, or widen exactly."""
    if rnd in IRND:
        return _INTEGRAL[rnd](a)
    if dt(d).itemsize < a.dtype.itemsize:
        return round_to(a.astype(F64), dt(d), rnd or "rn")
    return a.astype(dt(d))


def _float_nan(r, a):
    """The NaN rule for a float result ``r`` converted from ``a`` (see the module docstring)."""
    if r.dtype == np.float16:
        return np.where(np.isnan(r), CANON_NAN16, r)
    if r.dtype == F64:
        return nan64(r, a if a.dtype == F64 else r)      # payload kept, quieted
    if a.dtype == F64:
        return np.where(np.isnan(r), NARROW_NAN32[np.signbit(a).astype(np.intp)], r)
    return canon(r)


def _finish_float(ins, r, d: str, a):
    """.ftz (f32 results), .sat, then the NaN rule of :func:`_float_nan` (``a`` is the source)."""
    if ins.has("ftz") and d == "f32":
        r = flush(r)
    if ins.has("sat"):
        r = sat01(r)
    return _float_nan(r, a)


@lanewise
def _cvt(ins, a):
    """Dispatch on (destination, source) type classes."""
    d, s = ins.types
    rnd = next((m for m in ins.mods if m in RND + IRND), None)
    if ins.has("ftz") and a.dtype == F32:
        a = canon(flush(a))             # .ftz also canonicalises NaN inputs (cvt.ftz.f64.f32: 0x7FFFFFFFE0000000)
    if _is_int(d):
        return int_to_int(a, d, ins.has("sat")) if _is_int(s) else float_to_int(a, d, rnd, s)
    r = int_to_float(a, d, rnd or "rn") if _is_int(s) else float_to_float(a, d, rnd)
    return _finish_float(ins, r, d, a)


def _cvt_unit(ins) -> str:
    """int<->int: int; anything with f64: fp64; f32<->f32: fp32; other float conversions: sfu."""
    types = ins.types
    if len(types) != 2 or all(_is_int(t) for t in types):
        return "int"
    if "f64" in types:
        return "fp64"
    return "fp32" if types == ("f32", "f32") else "sfu"


register(OpFamily("cvt", "d, a", 1, (1,), _cvt, _cvt_unit,
                  lambda ins: "short_scoreboard" if _cvt_unit(ins) == "sfu" else "fixed",
                  types=lambda ins: ((ins.types[0],), (ins.types[1],)), check=_check_cvt,
                  doc="type conversion with PTX rounding / saturation rules"))

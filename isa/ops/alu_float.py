"""Floating-point semantics (f32, f64) with PTX rounding modifiers, plus the float-only families.

Exactness strategy (building blocks in :mod:`.fpexact`)
-------------------------------------------------------
* ``.rn`` add/sub/mul/div/sqrt use numpy's IEEE operations in the operation type (correctly rounded).
* f32 with a directed mode (``.rz .rm .rp``): the exact result is carried in float64 as a *round-to-odd*
  value (a product of two f32 is exact in f64; sums, quotients and square roots get their exact error
  term from TwoSum / Dekker TwoProduct residuals) and rounded once to f32 in the requested mode. That is
  correct for every mode, subnormals included.
* f64 directed modes step the round-to-nearest result by the sign of the exact error term.
* ``fma`` (and float ``mad``) run compiled numba kernels: exact for f32 in every mode; for f64 the
  Boldo-Melquiond emulation (see :mod:`.fpexact` for its proved scope and residual limits).
* Residual inexactness (f64 only): Dekker splitting needs operands below about 2^996 and products above
  about 2^-969; outside that range f64 ``fma`` and f64 directed modes may be off by one ulp.
* ``.approx`` operations (rcp, sqrt, rsqrt, ex2, lg2, sin, cos, div.approx) and ``div.full`` return the
  correctly rounded (or float64-evaluated) value, not NVIDIA's hardware approximation bits
  (``div.approx`` does flush its reciprocal below 2^-126, as the hardware does).

NaN results (measured on H200, docs/hardware/ptx_edge_cases.md): every f32 NaN result is the canonical NaN
0x7FFFFFFF (``neg``/``abs`` included: no sign flip). f64 results follow :func:`nan64`: the winning NaN
operand, quieted (``neg``/``abs`` leave its sign alone); the second operand wins two-operand ties, and
``fma``/``mad`` prefer b, then c, then a; an invalid operation on non-NaN inputs (0/0, inf - inf, 0 * inf)
gives the default NaN 0xFFF8000000000000. min/max return the non-NaN operand (signalling NaNs included);
two NaNs give 0x7FFFFFFF (f32) or quiet(b) (f64); ``.NaN`` gives 0x7FFFFFFF if either operand is NaN.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .. import ptxtypes
from ..opcodes import OpcodeError, OpFamily, register, require
from .alu_int import check_unique, lanewise, pick_one
from .fpexact import MODES, directed64, fma32, fma64, round_odd, round_to, two_prod, two_sum, zero_sign

if TYPE_CHECKING:
    from ..program import Instruction

F32 = np.dtype(np.float32)
F64 = np.dtype(np.float64)
RND = ("rn", "rz", "rm", "rp")
CANON_NAN32 = np.uint32(0x7FFFFFFF).view(np.float32)
DEFAULT_NAN64 = np.uint64(0xFFF8000000000000).view(np.float64)
QUIET_BIT64 = np.uint64(1 << 51)
RCP_APPROX_NAN64 = np.uint64(0x7FFFFFFF00000000).view(np.float64)


# ---------------------------------------------------------------- rounding helpers
def rounding(ins: Instruction, default: str = "rn") -> str:
    """The instruction's rounding modifier (.rn .rz .rm .rp), ``default`` when absent."""
    mods = ins.mods
    for m in RND:
        if m in mods:
            return m
    return default


def flush(x: np.ndarray) -> np.ndarray:
    """Flush subnormals to sign-preserving zero (``.ftz``)."""
    tiny = np.finfo(x.dtype).smallest_normal
    return np.where(np.abs(x) < tiny, np.copysign(x.dtype.type(0), x), x)


def canon(x: np.ndarray) -> np.ndarray:
    """f32 NaNs -> canonical NaN 0x7FFFFFFF (f64 left alone)."""
    if x.dtype == F32:
        nan = np.isnan(x)
        if nan.any():
            return np.where(nan, CANON_NAN32, x)
    return x


def quiet64(x: np.ndarray) -> np.ndarray:
    """f64 values with the quiet bit (bit 51) set: signalling NaNs become quiet, payload and sign kept."""
    return (np.asarray(x, F64).view(np.uint64) | QUIET_BIT64).view(F64)


def nan64(r: np.ndarray, *srcs: np.ndarray) -> np.ndarray:
    """f64 NaN propagation of the hardware: NaN lanes of ``r`` take the first NaN among ``srcs`` (listed in
    the hardware's priority order), quieted, or the default NaN 0xFFF8000000000000 when no source is NaN."""
    nan = np.isnan(r)
    if not nan.any():
        return r
    out = np.where(nan, DEFAULT_NAN64, r)
    for x in reversed(srcs):
        out = np.where(nan & np.isnan(x), quiet64(x), out)
    return out


def sat01(x: np.ndarray) -> np.ndarray:
    """``.sat``: clamp to [+0.0, 1.0]; NaN -> +0.0."""
    return np.where(x > 0, np.minimum(x, x.dtype.type(1)), x.dtype.type(0))


def prologue(ins: Instruction, *xs: np.ndarray) -> tuple[np.ndarray, ...]:
    """Inputs after ``.ftz`` (flush subnormals to sign-preserving zero)."""
    if "ftz" in ins.mods:
        return tuple(flush(x) for x in xs)
    return xs


def epilogue(ins: Instruction, r: np.ndarray, *srcs: np.ndarray) -> np.ndarray:
    """Result after ``.ftz``, ``.sat`` and the NaN rules: f32 canonical, f64 per :func:`nan64` over ``srcs``
    (the operands in the hardware's NaN priority order)."""
    mods = ins.mods
    if "ftz" in mods:
        r = flush(r)
    if "sat" in mods:
        r = sat01(r)
    if r.dtype == F64:
        return nan64(r, *srcs)
    return canon(r)


def _allfinite(*xs):
    """Lanes where every array is finite."""
    out = np.isfinite(xs[0])
    for x in xs[1:]:
        out = out & np.isfinite(x)
    return out


# ---------------------------------------------------------------- exact-ish kernels
def add_core(a: np.ndarray, b: np.ndarray, mode: str) -> np.ndarray:
    """a + b rounded once in ``mode`` (a, b already flushed)."""
    if mode == "rn":
        return a + b
    if a.dtype == F32:
        s, e = two_sum(a.astype(F64), b.astype(F64))
        r = round_to(round_odd(s, e), F32, mode)
    else:
        s, e = two_sum(a, b)
        r = directed64(s, e, mode, _allfinite(a, b))
    return zero_sign(r, a, b, mode)


def mul_core(a: np.ndarray, b: np.ndarray, mode: str) -> np.ndarray:
    """a * b rounded once in ``mode``."""
    if mode == "rn":
        return a * b
    if a.dtype == F32:
        return round_to(a.astype(F64) * b.astype(F64), F32, mode)
    return directed64(*two_prod(a, b), mode, _allfinite(a, b))


def fma_core(a: np.ndarray, b: np.ndarray, c: np.ndarray, mode: str) -> np.ndarray:
    """a * b + c with a single rounding (numba kernels, see :mod:`.fpexact`)."""
    kernel = fma32 if a.dtype == F32 else fma64
    a, b, c = (np.ascontiguousarray(x) for x in (a, b, c))      # one compiled signature per dtype
    return kernel(a, b, c, MODES[mode], np.empty(a.shape, a.dtype))


def _quot_error(a, b, q):
    """Sign (as a float) of a/b - q, for a float64 quotient q = RN(a/b)."""
    p, pe = two_prod(q, b)
    r = (a - p) - pe
    ok = np.isfinite(q) & (q != 0) & np.isfinite(b)
    return np.where(ok, r * np.sign(b), 0.0)


def div_core(a: np.ndarray, b: np.ndarray, mode: str) -> np.ndarray:
    """a / b rounded once in ``mode``."""
    if mode == "rn":
        return a / b
    a64, b64 = a.astype(F64), b.astype(F64)
    q = a64 / b64
    err = _quot_error(a64, b64, q)
    if a.dtype == F32:
        return round_to(round_odd(q, err), F32, mode)
    return directed64(q, err, mode)


def sqrt_core(a: np.ndarray, mode: str) -> np.ndarray:
    """sqrt(a) rounded once in ``mode``."""
    if mode == "rn":
        return np.sqrt(a)
    a64 = a.astype(F64)
    s = np.sqrt(a64)
    p, pe = two_prod(s, s)
    err = np.where(np.isfinite(s) & (s > 0), (a64 - p) - pe, 0.0)
    if a.dtype == F32:
        return round_to(round_odd(s, err), F32, mode)
    return directed64(s, err, mode)


# ---------------------------------------------------------------- float halves of mixed families
def f_add(ins: Instruction, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Float add with rounding, .ftz, .sat."""
    a, b = prologue(ins, a, b)
    return epilogue(ins, add_core(a, b, rounding(ins)), b, a)


def f_sub(ins: Instruction, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Float subtract with rounding, .ftz, .sat."""
    a, b = prologue(ins, a, b)
    return epilogue(ins, add_core(a, -b, rounding(ins)), b, a)


def f_mul(ins: Instruction, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Float multiply with rounding, .ftz, .sat."""
    a, b = prologue(ins, a, b)
    return epilogue(ins, mul_core(a, b, rounding(ins)), b, a)


def f_fma(ins: Instruction, a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """fma / float mad: a * b + c, one rounding; an f64 NaN comes from b, else c, else a (measured)."""
    a, b, c = prologue(ins, a, b, c)
    return epilogue(ins, fma_core(a, b, c, rounding(ins)), b, c, a)


def f_div(ins: Instruction, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """div.approx (a * RN(1/b), the reciprocal flushed to zero below 2^-126 as on hardware, so |b| > 2^126
    gives 0, or NaN for an infinite a), div.full and div.rnd (correctly rounded)."""
    a, b = prologue(ins, a, b)
    if ins.has("approx"):
        r = a * flush((1.0 / b.astype(F64)).astype(F32))
    else:
        r = div_core(a, b, rounding(ins))
    return epilogue(ins, r, b, a)


def f_neg(ins: Instruction, a: np.ndarray) -> np.ndarray:
    """Float negation (.ftz); a NaN keeps its sign (f32: canonical, f64: quieted)."""
    (a,) = prologue(ins, a)
    return epilogue(ins, -a, a)


def f_abs(ins: Instruction, a: np.ndarray) -> np.ndarray:
    """Float absolute value (.ftz); a NaN keeps its sign (f32: canonical, f64: quieted)."""
    (a,) = prologue(ins, a)
    return epilogue(ins, np.abs(a), a)


def f_minmax(ins: Instruction, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """PTX min/max: a NaN operand (quiet or signalling) yields the other; two NaNs give NaN (f32 canonical,
    f64 quiet(b)); .NaN: canonical NaN if either is NaN; -0.0 < +0.0.

    Equal operands (the +-0 case) are combined bitwise: OR of the bits for min (negative zero wins), AND
    for max. ``.xorsign.abs`` takes the sign from both original operands, a NaN's sign included.
    """
    mods = ins.mods
    a, b = prologue(ins, a, b)
    xs = np.signbit(a) ^ np.signbit(b) if "xorsign" in mods else None
    if "abs" in mods:
        a, b = np.abs(a), np.abs(b)
    is_max = ins.opcode == "max"
    na, nb = np.isnan(a), np.isnan(b)
    r = (np.maximum if is_max else np.minimum)(a, b)
    ua, ub = a.view(ptxtypes.BITS[a.itemsize]), b.view(ptxtypes.BITS[a.itemsize])
    r = np.where(a == b, ((ua & ub) if is_max else (ua | ub)).view(a.dtype), r)
    r = np.where(na, b, np.where(nb, a, r))
    if "NaN" in mods:
        r = np.where(na | nb, a.dtype.type(np.nan), r)
    if xs is not None:
        r = np.where(np.isnan(r), r, np.copysign(r, np.where(xs, -1.0, 1.0).astype(r.dtype)))
    return epilogue(ins, r, b, a)


# ---------------------------------------------------------------- float-only families
def _float_unit(ins, approx_unit: str = "sfu") -> str:
    """fp64 for f64, ``approx_unit`` (SFU) for f32 .approx, else fp32."""
    if ins.type == "f64":
        return "fp64"
    return approx_unit if ins.has("approx") else "fp32"


def _latency(ins) -> str:
    """SFU results come back through the scoreboard."""
    return "short_scoreboard" if _float_unit(ins) == "sfu" else "fixed"


def _types(n: int):
    """types(): destination and ``n`` sources all of the instruction type."""
    return lambda ins: ((ins.type,), (ins.type,) * n)


def _check_fma(ins):
    """fma.rnd{.ftz}{.sat}.f32, fma.rnd.f64 (rounding mandatory)."""
    check_unique(ins)
    require(ins, ("f32", "f64"), RND + (("ftz", "sat") if ins.type == "f32" else ()))
    pick_one(ins, RND, True, "rounding")


register(OpFamily("fma", "d, a, b, c", 1, (3,), lanewise(f_fma), _float_unit, "fixed",
                  types=_types(3), check=_check_fma, doc="fused multiply-add, single rounding"))


@lanewise
def _rcp(ins, a):
    """Reciprocal: .approx is RN(1/a) (evaluated in f64); .rnd is exact in its mode.

    rcp.approx.ftz.f64 of a NaN gives 0x7FFFFFFF00000000 (measured), whatever the NaN.
    """
    (a,) = prologue(ins, a)
    if ins.has("approx"):
        r = (1.0 / a.astype(F64)).astype(a.dtype)
    else:
        r = div_core(np.ones_like(a), a, rounding(ins))
    r = epilogue(ins, r, a)
    if ins.has("approx") and r.dtype == F64:
        return np.where(np.isnan(a), RCP_APPROX_NAN64, r)
    return r


@lanewise
def _sqrt(ins, a):
    """Square root; .approx returns the correctly rounded value."""
    (a,) = prologue(ins, a)
    return epilogue(ins, sqrt_core(a, "rn" if ins.has("approx") else rounding(ins)), a)


_TRANSCENDENTAL = {
    "rsqrt": lambda x: 1.0 / np.sqrt(x), "ex2": np.exp2, "lg2": np.log2, "sin": np.sin, "cos": np.cos,
}


@lanewise
def _transcendental(ins, a):
    """rsqrt/ex2/lg2/sin/cos .approx, evaluated in float64 and rounded to the type."""
    (a,) = prologue(ins, a)
    return epilogue(ins, _TRANSCENDENTAL[ins.opcode](a.astype(F64)).astype(a.dtype), a)


def _check_rcp_sqrt(ins):
    """rcp/sqrt: .approx{.ftz}.f32, .rnd{.ftz}.f32, .rnd.f64 (rcp also .approx.ftz.f64)."""
    check_unique(ins)
    require(ins, ("f32", "f64"), RND + ("approx", "ftz"))
    mode = pick_one(ins, RND + ("approx",), True, "rounding (.approx or .rn/.rz/.rm/.rp)")
    if ins.type == "f64":
        if mode == "approx" and not (ins.opcode == "rcp" and ins.has("ftz")):
            raise OpcodeError(f"'{ins.name}': .approx.f64 is only rcp.approx.ftz.f64")
        if mode != "approx" and ins.has("ftz"):
            raise OpcodeError(f"'{ins.name}': .ftz applies to .f32 only")


def _check_approx(ins):
    """rsqrt .approx{.ftz}.f32 / .approx{.ftz}.f64; ex2, lg2, sin, cos .approx{.ftz}.f32."""
    check_unique(ins)
    types = ("f32", "f64") if ins.opcode == "rsqrt" else ("f32",)
    require(ins, types, ("approx", "ftz"))
    if not ins.has("approx"):
        raise OpcodeError(f"'{ins.name}' needs the .approx modifier")


register(OpFamily("rcp", "d, a", 1, (1,), _rcp, _float_unit, _latency, types=_types(1),
                  check=_check_rcp_sqrt, doc="reciprocal (.approx returns the correctly rounded value)"))
register(OpFamily("sqrt", "d, a", 1, (1,), _sqrt, _float_unit, _latency, types=_types(1),
                  check=_check_rcp_sqrt, doc="square root (.approx returns the correctly rounded value)"))
for _name in _TRANSCENDENTAL:
    register(OpFamily(_name, "d, a", 1, (1,), _transcendental, _float_unit, _latency, types=_types(1),
                      check=_check_approx, doc=f"{_name}.approx, evaluated in float64 then rounded"))


@lanewise
def _copysign(ins, a, b):
    """d = |b| with the sign of a."""
    return np.copysign(b, a)


register(OpFamily("copysign", "d, a, b", 1, (2,), _copysign, _float_unit, "fixed", types=_types(2),
                  check=lambda ins: require(ins, ("f32", "f64")), doc="d = |b| with the sign of a"))

_TESTP = ("finite", "infinite", "number", "notanumber", "normal", "subnormal")


@lanewise
def _testp(ins, a):
    """testp classes (+-0 is normal, as PTX says)."""
    op = next(m for m in ins.mods if m in _TESTP)
    tiny = np.finfo(a.dtype).smallest_normal
    mag = np.abs(a)
    return {"finite": np.isfinite(a), "infinite": np.isinf(a), "number": ~np.isnan(a),
            "notanumber": np.isnan(a), "normal": np.isfinite(a) & ((mag >= tiny) | (mag == 0)),
            "subnormal": (mag < tiny) & (mag > 0)}[op]


def _check_testp(ins):
    """testp.op.{f32,f64} with exactly one op."""
    check_unique(ins)
    require(ins, ("f32", "f64"), _TESTP)
    pick_one(ins, _TESTP, True, "test")


register(OpFamily("testp", "p, a", 1, (1,), _testp, _float_unit, "fixed",
                  types=lambda ins: (("pred",), (ins.type,)), check=_check_testp,
                  doc="floating-point class test (+-0 counts as normal, as PTX says)"))

"""Floating-point semantics (f32, f64) with PTX rounding modifiers, plus the float-only families.

Exactness strategy
------------------
* ``.rn`` add/sub/mul/div/sqrt use numpy's IEEE operations in the operation type (correctly rounded).
* f32 with a directed mode (``.rz .rm .rp``) and every f32 ``fma``: the exact result is carried in float64
  as a *round-to-odd* value (products of two f32 are exact in f64; sums, quotients and square roots get
  their exact error term from TwoSum / Dekker TwoProduct residuals), then rounded once to f32 in the
  requested mode. Round-to-odd at 53 bits followed by one rounding to <= 24 bits is correct for every
  mode, so f32 results are exact, subnormals included.
* f64 directed modes use the sign of the exact error term (TwoSum / TwoProduct residual) to step the
  round-to-nearest result one ulp. f64 ``fma`` is the Boldo-Melquiond emulation
  ``RN(uh + RO(ul + pl))`` (correct in round-to-nearest). Residual inexactness: Dekker splitting needs
  operands below about 2^996 and products above about 2^-969; outside that range (overflowing splits,
  underflowing error terms) f64 ``fma`` and f64 directed modes may be off by one ulp. Directed-mode f64
  ``fma`` rounds ``uh + RO(ul + pl)`` in the directed mode, which is correct except, possibly, in rare
  near-tie cases that would need a third error term.
* ``.approx`` operations (rcp, sqrt, rsqrt, ex2, lg2, sin, cos, div.approx) and ``div.full`` return the
  correctly rounded (or float64-evaluated) value, not NVIDIA's hardware approximation bits.

NaN results of f32 arithmetic are the canonical NaN 0x7FFFFFFF, as NVIDIA GPUs produce; f64 NaNs are
whatever numpy produces (payloads of NaN inputs propagate, generated NaNs are the x86 default NaN).
"""
from __future__ import annotations

import numpy as np

from ..opcodes import OpcodeError, OpFamily, register, require
from .alu_int import check_unique, lanewise, pick_one

F32 = np.dtype(np.float32)
F64 = np.dtype(np.float64)
RND = ("rn", "rz", "rm", "rp")
CANON_NAN32 = np.uint32(0x7FFFFFFF).view(np.float32)
_SPLIT = 134217729.0        # 2^27 + 1, Dekker's splitter for float64


# ---------------------------------------------------------------- rounding helpers
def rounding(ins, default: str = "rn") -> str:
    """The instruction's rounding modifier (.rn .rz .rm .rp), ``default`` when absent."""
    return next((m for m in ins.mods if m in RND), default)


def flush(x: np.ndarray) -> np.ndarray:
    """Flush subnormals to sign-preserving zero (``.ftz``)."""
    tiny = np.finfo(x.dtype).smallest_normal
    return np.where(np.abs(x) < tiny, np.copysign(x.dtype.type(0), x), x)


def canon(x: np.ndarray) -> np.ndarray:
    """f32 NaNs -> canonical NaN 0x7FFFFFFF (f64 left alone)."""
    if x.dtype == F32:
        return np.where(np.isnan(x), CANON_NAN32, x)
    return x


def sat01(x: np.ndarray) -> np.ndarray:
    """``.sat``: clamp to [+0.0, 1.0]; NaN -> +0.0."""
    return np.where(x > 0, np.minimum(x, x.dtype.type(1)), x.dtype.type(0))


def prologue(ins, *xs):
    """Inputs after ``.ftz`` (flush subnormals to sign-preserving zero)."""
    if ins.has("ftz"):
        return tuple(flush(x) for x in xs)
    return xs


def epilogue(ins, r):
    """Result after ``.ftz``, ``.sat`` and NaN canonicalisation."""
    if ins.has("ftz"):
        r = flush(r)
    if ins.has("sat"):
        r = sat01(r)
    return canon(r)


def two_sum(a, b):
    """(s, e) with s = RN(a + b) and a + b = s + e exactly (e = 0 where s is not finite)."""
    s = a + b
    bb = s - a
    e = (a - (s - bb)) + (b - bb)
    return s, np.where(np.isfinite(s), e, 0.0)


def _split(a):
    c = _SPLIT * a
    hi = c - (c - a)
    return hi, a - hi


def two_prod(a, b):
    """(p, e) with p = RN(a * b) and a * b = p + e (Dekker; exact away from overflow/underflow)."""
    p = a * b
    ah, al = _split(a)
    bh, bl = _split(b)
    e = ((ah * bh - p) + ah * bl + al * bh) + al * bl
    return p, np.where(np.isfinite(p), e, 0.0)


def round_odd(s, e):
    """Round-to-odd float64 of the exact value s + e (s = RN of it)."""
    even = (s.view(np.uint64) & np.uint64(1)) == 0
    step = (e != 0) & even
    return np.where(step, np.nextafter(s, np.copysign(np.inf, e)), s)


def round_to(o, dtype, mode: str):
    """Round float64 ``o`` (exact, or round-to-odd of the exact value) to ``dtype`` in ``mode``."""
    y = o.astype(dtype)
    if mode == "rn":
        return y
    yd = y.astype(F64)
    step, target = {"rz": (np.abs(yd) > np.abs(o), 0.0), "rm": (yd > o, -np.inf),
                    "rp": (yd < o, np.inf)}[mode]
    return np.where(step, np.nextafter(y, dtype.type(target)), y)


def directed64(s, e, mode: str, finite_in=None):
    """Step f64 s = RN(x) to the directed rounding of x = s + e; fix overflow when inputs were finite."""
    if mode == "rn":
        return s
    step, target = {"rz": ((e != 0) & (np.signbit(e) != np.signbit(s)), 0.0),
                    "rm": (e < 0, -np.inf), "rp": (e > 0, np.inf)}[mode]
    r = np.where(step, np.nextafter(s, target), s)
    if finite_in is not None:
        big = np.finfo(F64).max
        back = finite_in & np.isinf(r) & {"rz": True, "rm": r > 0, "rp": r < 0}[mode]
        r = np.where(back, np.copysign(big, r), r)
    return r


def zero_sign(r, x, y, mode: str):
    """IEEE sign of an exact zero sum x + y: -0 in round-down unless both addends are +0."""
    if mode != "rm":
        return r
    plus = (x == 0) & (y == 0) & ~np.signbit(x) & ~np.signbit(y)
    return np.where((r == 0) & ~plus, -0.0, r).astype(r.dtype)


def _allfinite(*xs):
    out = np.isfinite(xs[0])
    for x in xs[1:]:
        out = out & np.isfinite(x)
    return out


# ---------------------------------------------------------------- exact-ish kernels
def add_core(a, b, mode: str):
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


def mul_core(a, b, mode: str):
    if a.dtype == F32:
        return round_to(a.astype(F64) * b.astype(F64), F32, mode)
    if mode == "rn":
        return a * b
    return directed64(*two_prod(a, b), mode, _allfinite(a, b))


def fma_core(a, b, c, mode: str):
    """a * b + c with a single rounding."""
    if a.dtype == F32:
        p = a.astype(F64) * b.astype(F64)
        s, e = two_sum(p, c.astype(F64))
        r = round_to(round_odd(s, e), F32, mode)
        return zero_sign(r, p, c, mode)
    ph, pl = two_prod(a, b)
    uh, ul = two_sum(c, ph)
    v = round_odd(*two_sum(ul, pl))
    s, e = two_sum(uh, v)
    r = directed64(s, e, mode, _allfinite(a, b, c))
    naive = a * b + c
    r = np.where(_allfinite(a, b, c, ph), r, naive)
    return zero_sign(r, ph, c, mode)


def _quot_error(a, b, q):
    """Sign (as a float) of a/b - q, for a float64 quotient q = RN(a/b)."""
    p, pe = two_prod(q, b)
    r = (a - p) - pe
    ok = np.isfinite(q) & (q != 0) & np.isfinite(b)
    return np.where(ok, r * np.sign(b), 0.0)


def div_core(a, b, mode: str):
    if mode == "rn":
        return a / b
    a64, b64 = a.astype(F64), b.astype(F64)
    q = a64 / b64
    err = _quot_error(a64, b64, q)
    if a.dtype == F32:
        return round_to(round_odd(q, err), F32, mode)
    return directed64(q, err, mode)


def sqrt_core(a, mode: str):
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
def f_add(ins, a, b):
    a, b = prologue(ins, a, b)
    return epilogue(ins, add_core(a, b, rounding(ins)))


def f_sub(ins, a, b):
    a, b = prologue(ins, a, b)
    return epilogue(ins, add_core(a, -b, rounding(ins)))


def f_mul(ins, a, b):
    a, b = prologue(ins, a, b)
    return epilogue(ins, mul_core(a, b, rounding(ins)))


def f_fma(ins, a, b, c):
    a, b, c = prologue(ins, a, b, c)
    return epilogue(ins, fma_core(a, b, c, rounding(ins)))


def f_div(ins, a, b):
    a, b = prologue(ins, a, b)
    if ins.has("approx"):
        rcp = (1.0 / b.astype(F64)).astype(F32)
        r = a * (flush(rcp) if ins.has("ftz") else rcp)
    else:
        r = div_core(a, b, rounding(ins))
    return epilogue(ins, r)


def f_neg(ins, a):
    (a,) = prologue(ins, a)
    return epilogue(ins, -a)


def f_abs(ins, a):
    (a,) = prologue(ins, a)
    return epilogue(ins, np.abs(a))


def f_minmax(ins, a, b):
    """PTX min/max: a NaN operand yields the other (.NaN: NaN wins); -0.0 < +0.0."""
    a, b = prologue(ins, a, b)
    xs = np.signbit(a) ^ np.signbit(b)
    if ins.has("abs"):
        a, b = np.abs(a), np.abs(b)
    if ins.opcode == "max":
        first = (a > b) | ((a == b) & ~np.signbit(a))
    else:
        first = (a < b) | ((a == b) & np.signbit(a))
    r = np.where(np.isnan(a), b, np.where(np.isnan(b), a, np.where(first, a, b)))
    if ins.has("NaN"):
        r = np.where(np.isnan(a) | np.isnan(b), a.dtype.type(np.nan), r)
    if ins.has("xorsign"):
        r = np.where(np.isnan(r), r, np.copysign(r, np.where(xs, -1.0, 1.0).astype(r.dtype)))
    return epilogue(ins, r)


# ---------------------------------------------------------------- float-only families
def _float_unit(ins, approx_unit: str = "sfu") -> str:
    if ins.type == "f64":
        return "fp64"
    return approx_unit if ins.has("approx") else "fp32"


def _latency(ins) -> str:
    return "short_scoreboard" if _float_unit(ins) == "sfu" else "fixed"


def _types(n: int):
    return lambda ins: ((ins.type,), (ins.type,) * n)


def _check_fma(ins):
    check_unique(ins)
    require(ins, ("f32", "f64"), RND + (("ftz", "sat") if ins.type == "f32" else ()))
    pick_one(ins, RND, True, "rounding")


register(OpFamily("fma", "d, a, b, c", 1, (3,), lanewise(f_fma), _float_unit, "fixed",
                  types=_types(3), check=_check_fma, doc="fused multiply-add, single rounding"))


@lanewise
def _rcp(ins, a):
    (a,) = prologue(ins, a)
    if ins.has("approx"):
        r = (1.0 / a.astype(F64)).astype(a.dtype)
    else:
        r = div_core(np.ones_like(a), a, rounding(ins))
    return epilogue(ins, r)


@lanewise
def _sqrt(ins, a):
    (a,) = prologue(ins, a)
    return epilogue(ins, sqrt_core(a, "rn" if ins.has("approx") else rounding(ins)))


_TRANSCENDENTAL = {
    "rsqrt": lambda x: 1.0 / np.sqrt(x), "ex2": np.exp2, "lg2": np.log2, "sin": np.sin, "cos": np.cos,
}


@lanewise
def _transcendental(ins, a):
    (a,) = prologue(ins, a)
    return epilogue(ins, _TRANSCENDENTAL[ins.opcode](a.astype(F64)).astype(a.dtype))


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
    return np.copysign(b, a)


register(OpFamily("copysign", "d, a, b", 1, (2,), _copysign, _float_unit, "fixed", types=_types(2),
                  check=lambda ins: require(ins, ("f32", "f64")), doc="d = |b| with the sign of a"))

_TESTP = ("finite", "infinite", "number", "notanumber", "normal", "subnormal")


@lanewise
def _testp(ins, a):
    op = next(m for m in ins.mods if m in _TESTP)
    tiny = np.finfo(a.dtype).smallest_normal
    mag = np.abs(a)
    return {"finite": np.isfinite(a), "infinite": np.isinf(a), "number": ~np.isnan(a),
            "notanumber": np.isnan(a), "normal": np.isfinite(a) & ((mag >= tiny) | (mag == 0)),
            "subnormal": (mag < tiny) & (mag > 0)}[op]


def _check_testp(ins):
    check_unique(ins)
    require(ins, ("f32", "f64"), _TESTP)
    pick_one(ins, _TESTP, True, "test")


register(OpFamily("testp", "p, a", 1, (1,), _testp, _float_unit, "fixed",
                  types=lambda ins: (("pred",), (ins.type,)), check=_check_testp,
                  doc="floating-point class test (+-0 counts as normal, as PTX says)"))

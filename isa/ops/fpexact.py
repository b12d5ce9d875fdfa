"""Exact floating-point building blocks: error-free transformations and single roundings in any mode.

numpy helpers (used by the directed-rounding paths of add/sub/mul/div/sqrt/rcp and by cvt):

* :func:`two_sum` / :func:`two_prod` give ``s + e`` equal to ``a + b`` / ``a * b`` exactly
  (Knuth TwoSum; Dekker TwoProduct, exact while operands stay below ~2^996 and products above ~2^-969).
* :func:`round_odd` turns ``s + e`` into its round-to-odd float64; rounding that once more to a format
  of <= 51 bits (f32, f16) in any mode equals rounding the exact value (Boldo & Melquiond, "Emulation
  of FMA and correctly rounded sums: proved algorithms using rounding to odd", IEEE TC 2008).
* :func:`round_to` rounds float64 values to a narrower dtype in rn/rz/rm/rp; :func:`directed64` steps a
  float64 ``s = RN(x)`` to the directed rounding of ``x = s + e``.

numba kernels (:func:`fma32`, :func:`fma64`): FMA is the most frequent floating-point instruction, so it
gets compiled loops instead of ~25 numpy calls. f32: the product of two f32 is exact in f64, TwoSum gives
``p + c = s + e`` exactly and :func:`_round32` rounds ``s + e`` to f32 once (only a float64 result lying
exactly on an f32 tie, or a directed mode, needs the error term). f64: Boldo-Melquiond emulation
``round(uh + RO(ul + pl))`` with ``(ph, pl) = TwoProduct(a, b)``, ``(uh, ul) = TwoSum(c, ph)``; proved for
round-to-nearest; for directed modes the final step rounds ``uh + RO(ul + pl)`` in that mode (no
counterexample found in 10^5 random and near-tie trials, not proved). Outside Dekker's range (huge
operands, underflowing products) f64 results may be off by one ulp; non-finite cases use ``a * b + c``.
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

F64 = np.dtype(np.float64)
_SPLIT = 134217729.0        # 2^27 + 1, Dekker's splitter for float64
MODES = {"rn": 0, "rz": 1, "rm": 2, "rp": 3}


# ---------------------------------------------------------------- numpy helpers
def two_sum(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(s, e) with s = RN(a + b) and a + b = s + e exactly (e = 0 where s is not finite)."""
    s = a + b
    bb = s - a
    e = (a - (s - bb)) + (b - bb)
    return s, np.where(np.isfinite(s), e, 0.0)


def _split(a):
    """Dekker split of a into 26-bit high and low halves."""
    c = _SPLIT * a
    hi = c - (c - a)
    return hi, a - hi


def two_prod(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(p, e) with p = RN(a * b) and a * b = p + e (Dekker; exact away from overflow/underflow)."""
    p = a * b
    ah, al = _split(a)
    bh, bl = _split(b)
    e = ((ah * bh - p) + ah * bl + al * bh) + al * bl
    return p, np.where(np.isfinite(p), e, 0.0)


def round_odd(s: np.ndarray, e: np.ndarray) -> np.ndarray:
    """Round-to-odd float64 of the exact value s + e (s = RN of it)."""
    even = (s.view(np.uint64) & np.uint64(1)) == 0
    step = (e != 0) & even
    return np.where(step, np.nextafter(s, np.copysign(np.inf, e)), s)


def round_to(o: np.ndarray, dtype: np.dtype, mode: str) -> np.ndarray:
    """Round float64 ``o`` (exact, or round-to-odd of the exact value) to ``dtype`` in ``mode``."""
    y = o.astype(dtype)
    if mode == "rn":
        return y
    yd = y.astype(F64)
    step, target = {"rz": (np.abs(yd) > np.abs(o), 0.0), "rm": (yd > o, -np.inf),
                    "rp": (yd < o, np.inf)}[mode]
    return np.where(step, np.nextafter(y, dtype.type(target)), y)


def directed64(s: np.ndarray, e: np.ndarray, mode: str, finite_in: np.ndarray | None = None) -> np.ndarray:
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


def zero_sign(r: np.ndarray, x: np.ndarray, y: np.ndarray, mode: str) -> np.ndarray:
    """IEEE sign of an exact zero sum x + y: -0 in round-down unless both addends are +0."""
    if mode != "rm":
        return r
    plus = (x == 0) & (y == 0) & ~np.signbit(x) & ~np.signbit(y)
    return np.where((r == 0) & ~plus, -0.0, r).astype(r.dtype)


# ---------------------------------------------------------------- numba scalar kernels
@njit(cache=True)
def _two_sum1(a, b):
    """Scalar TwoSum."""
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


@njit(cache=True)
def _two_prod1(a, b):
    """Scalar Dekker TwoProduct."""
    p = a * b
    c = _SPLIT * a
    ah = c - (c - a)
    c = _SPLIT * b
    bh = c - (c - b)
    al, bl = a - ah, b - bh
    return p, ((ah * bh - p) + ah * bl + al * bh) + al * bl


@njit(cache=True)
def _step(y, up):
    """The float32 next to y toward +inf (up) or -inf."""
    return np.nextafter(y, np.float32(np.inf) if up else np.float32(-np.inf))


@njit(cache=True)
def _overflow32(y, s, e, mode):
    """f32 result when a finite float64 s rounds to +-inf: largest finite value in the modes that say so."""
    biggest = np.float32(math.copysign(3.4028234663852886e38, s))
    if mode == 0:       # only x just below the tie max + ulp/2 = 2^128 - 2^103 rounds back to max
        tie = abs(s) == 3.4028235677973366e38 and (e < 0.0) == (s > 0.0)
        return biggest if tie else y
    if mode == 1 or (mode == 2 and s > 0.0) or (mode == 3 and s < 0.0):
        return biggest
    return y


@njit(cache=True)
def _round32(s, e, mode):
    """f32 rounding (mode 0..3 = rn rz rm rp) of x = s + e, where s = RN64(x) and s + e is exact."""
    y = np.float32(s)
    if not math.isfinite(s) or (e == 0.0 and mode == 0):
        return y
    if not math.isfinite(y):
        return _overflow32(y, s, e, mode)
    diff = np.float64(y) - s                      # exact; y - x = diff - e
    if mode == 0:
        # s is an f32 tie iff 2s - y (exact) is the f32 on s's other side; then x lies past or before it
        other = 2.0 * s - np.float64(y)
        if diff != 0.0 and np.float64(np.float32(other)) == other and (e > 0.0) == (diff < 0.0):
            return np.float32(other)
        return y
    over, under = diff > e, diff < e
    if mode == 1:
        if (s > 0.0 and over) or (s < 0.0 and under):
            return _step(y, s < 0.0)
        return y
    if mode == 2 and over:
        return _step(y, False)
    if mode == 3 and under:
        return _step(y, True)
    return y


@njit(cache=True)
def _zero_sign1(r, x, y, mode):
    """Scalar :func:`zero_sign` for an exact zero r = x + y."""
    if mode == 2 and r == 0.0 and not (x == 0.0 and y == 0.0 and math.copysign(1.0, x) > 0.0
                                       and math.copysign(1.0, y) > 0.0):
        return -0.0 * abs(r)
    return r


@njit(cache=True)
def fma32(a: np.ndarray, b: np.ndarray, c: np.ndarray, mode: int, out: np.ndarray) -> np.ndarray:
    """out = a * b + c rounded once to f32 (a, b, c float32 arrays of equal length)."""
    for i in range(a.shape[0]):
        p = np.float64(a[i]) * np.float64(b[i])
        z = np.float64(c[i])
        s, e = _two_sum1(p, z)
        if not math.isfinite(s):
            e = 0.0
        r = _round32(s, e, mode)
        out[i] = _zero_sign1(r, p, z, mode) if r == 0.0 else r
    return out


@njit(cache=True)
def _odd64(t, te, scratch, bits):
    """Round-to-odd of t + te (t = RN of it); ``scratch``/``bits`` are a float64 cell and its int64 view."""
    if te == 0.0:
        return t
    scratch[0] = t
    if bits[0] & 1:
        return t
    return np.nextafter(t, np.inf if te > 0.0 else -np.inf)


@njit(cache=True)
def _directed1(s, e, mode):
    """Scalar :func:`directed64`."""
    if mode == 0 or e == 0.0:
        return s
    if mode == 1 and (e > 0.0) != (s > 0.0):
        return np.nextafter(s, 0.0)
    if mode == 2 and e < 0.0:
        return np.nextafter(s, -np.inf)
    if mode == 3 and e > 0.0:
        return np.nextafter(s, np.inf)
    return s


@njit(cache=True)
def fma64(a: np.ndarray, b: np.ndarray, c: np.ndarray, mode: int, out: np.ndarray) -> np.ndarray:
    """out = a * b + c rounded once to f64 (Boldo-Melquiond emulation, see module docstring)."""
    big = 1.7976931348623157e308
    scratch = np.empty(1, np.float64)
    bits = scratch.view(np.int64)
    for i in range(a.shape[0]):
        x, y, z = a[i], b[i], c[i]
        ph, pl = _two_prod1(x, y)
        naive = x * y + z
        if not (math.isfinite(x) and math.isfinite(y) and math.isfinite(z) and math.isfinite(ph)):
            out[i] = naive
            continue
        uh, ul = _two_sum1(z, ph)
        t, te = _two_sum1(ul, pl)
        v = _odd64(t, te, scratch, bits)
        s, e = _two_sum1(uh, v)
        r = _directed1(s, e if math.isfinite(s) else 0.0, mode)
        if math.isinf(r) and ((mode == 1) or (mode == 2 and r > 0) or (mode == 3 and r < 0)):
            r = math.copysign(big, r)
        out[i] = _zero_sign1(r, ph, z, mode) if r == 0.0 else r
    return out

"""Arithmetic on compile-time values: constant folding, ``reg + constant`` offsets, strength reduction and
type conversions, emitting instructions through the :class:`~.ir.Builder` only when a value is not known.

Integer semantics are the two's-complement wrap of the value's type; ``//`` and ``%`` follow Python
(floor division, remainder with the divisor's sign), as numba does.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from . import types as T
from .ir import Const, Off, Reg, Value, literal


def wrap(v: Any, t: str) -> int | float | bool:
    """A Python number as type ``t`` (integers wrap, floats round to the type)."""
    if t == "b1":
        return bool(v)
    if T.is_float(t):
        return float(T.np_dtype(t).type(v))
    b = T.bits(t)
    v = int(v) & ((1 << b) - 1)
    if T.is_signed(t) and v >= 1 << (b - 1):
        v -= 1 << b
    return v


def pow2(c: object) -> int | None:
    """k when ``c`` is a positive integer power of two 2**k."""
    if isinstance(c, (int, np.integer)) and not isinstance(c, bool) and c > 0 and c & (c - 1) == 0:
        return int(c).bit_length() - 1
    return None


class Arith:
    """Mixin for the lowerer: needs ``self.b`` (the Builder)."""

    # ------------------------------------------------------------------ registers and operands
    def nonneg(self, v: Value) -> bool:
        """Whether ``v`` is known to be >= 0 (so an index needs no wraparound, as LLVM would prove)."""
        if isinstance(v, Const):
            return v.value >= 0
        if not T.is_signed(v.t):
            return True
        least = self.least(v)
        return least is not None and least >= 0

    def least(self, v: Value) -> int | None:
        """The least value a signed integer ``v`` is known to hold (None: nothing known): its register's
        (:attr:`~.ir.Builder.nonneg`: 0; :attr:`~.ir.Builder.lower`, where a guard or a range says more) plus
        its offset. Only what LLVM proves of numba's code: not the sign of ``cuda.grid``'s values, which numba
        computes from the special registers as signed 32-bit numbers (its index wraparound stays), nor of sums
        and products, which may overflow."""
        if isinstance(v, Const):
            return int(v.value)
        name, c = (v.reg.name, v.c) if isinstance(v, Off) else (v.name, 0)
        least = self.b.lower.get(name)
        if name in self.b.nonneg and (least is None or least < 0):
            least = 0
        return None if least is None else least + int(c)

    def positive(self, v: Value) -> bool:
        """Whether ``v`` is known to be at least 1 (block and grid sizes: loop steps whose sign is known)."""
        return isinstance(v, Reg) and v.name in self.b.positive

    def opnd(self, v: Value) -> str:
        if isinstance(v, Const):
            return literal(v)
        return self.reg_of(v).name

    def reg_of(self, v: Value) -> Reg:
        if isinstance(v, Reg):
            return v
        if isinstance(v, Off):
            if v.c == 0:
                return Reg(v.reg.name, v.t)
            return self.b.op(f"add.{T.ptx(v.t)}", v.t, v.reg.name, str(wrap(v.c, v.t)))
        if v.t == "b1":
            return self.b.op("setp.ne.s32", "b1", "1" if v.value else "0", "0")
        return self.b.op(f"mov.{T.ptx(v.t)}", v.t, literal(v))

    # ------------------------------------------------------------------ conversions
    def convert(self, v: Value, t: str) -> Value:
        """``v`` as type ``t`` (numba's implicit and explicit casts)."""
        if v.t == t:
            return v
        if isinstance(v, Const):
            if T.is_int(t) and T.is_float(v.t):
                x = v.value
                if not np.isfinite(x):
                    return Const(0, t)
                return Const(wrap(int(x), t), t)
            return Const(wrap(v.value, t), t)
        s = v.t
        if t == "b1":
            if T.is_float(s):
                return self.b.op(f"setp.neu.{s}", "b1", self.opnd(v), literal(Const(0.0, s)))
            return self.b.op(f"setp.ne.{T.ptx(s)}", "b1", self.opnd(v), "0")
        if s == "b1":
            one, zero = (literal(Const(1.0, t)), literal(Const(0.0, t))) if T.is_float(t) else ("1", "0")
            return self.b.op(f"selp.{T.ptx(t)}", t, one, zero, self.opnd(v))
        if T.is_int(s) and T.is_int(t):
            return self._int_convert(v, s, t)
        if T.is_float(s) and T.is_float(t):
            rnd = ".rn" if T.bits(t) < T.bits(s) else ""
            return self.b.op(f"cvt{rnd}.{t}.{s}", t, self.opnd(v))
        if T.is_float(t):
            return self.b.op(f"cvt.rn.{t}.{T.ptx(s)}", t, self.opnd(v))
        r = self.b.op(f"cvt.rzi.{T.ptx(t)}.{s}", t, self.opnd(v))
        return self._narrow(r, t) if T.bits(t) < 32 else r

    def _int_convert(self, v, s: str, t: str):
        bs, bt = max(T.bits(s), 32), max(T.bits(t), 32)
        if bs == bt:
            out = self._retype(v, t)
        elif bt > bs:
            out = self.b.op(f"cvt.{T.ptx(t)}.{T.ptx(s)}", t, self.opnd(v))
            if bs == 32 and isinstance(v, Reg):
                self.b.widened[out.name] = Reg(v.name, s)
            if self.positive(v):
                self.b.positive.add(out.name)
            if T.is_signed(s) and self.nonneg(v):
                self.b.nonneg.add(out.name)
        else:
            if isinstance(v, Off) and T.bits(t) >= 32:
                return Off(self.b.op("cvt.u32.u64", t, v.reg.name), wrap(v.c, t), t)
            out = self.b.op("cvt.u32.u64", t, self.opnd(v))
        if T.bits(t) < 32 and T.bits(t) < T.bits(s):
            return self._narrow(out, t)
        return out

    def _retype(self, v, t: str):
        if isinstance(v, Off):
            return Off(Reg(v.reg.name, t), v.c, t)
        return Reg(v.name, t)

    def _narrow(self, v, t: str):
        """Keep the low bits of a 32-bit register holding an 8/16-bit type, sign/zero-extended."""
        r = self.reg_of(v)
        return self.b.op(f"bfe.{'s' if T.is_signed(t) else 'u'}32", t, r.name, "0", str(T.bits(t)))

    # ------------------------------------------------------------------ integer arithmetic with offsets
    def iadd(self, a: Value, b: Value, t: str) -> Value:
        if isinstance(a, Const) and isinstance(b, Const):
            return Const(wrap(a.value + b.value, t), t)
        if isinstance(a, Const):
            a, b = b, a
        if isinstance(b, Const):
            if isinstance(a, Off):
                return Off(a.reg, wrap(a.c + b.value, t), t) if a.c + b.value else Reg(a.reg.name, t)
            return Off(a, b.value, t) if b.value else a
        ca = a.c if isinstance(a, Off) else 0
        cb = b.c if isinstance(b, Off) else 0
        ra = a.reg if isinstance(a, Off) else a
        rb = b.reg if isinstance(b, Off) else b
        x, y = sorted((ra.name, rb.name))
        s = self.b.op(f"add.{T.ptx(t)}", t, x, y)
        return Off(s, wrap(ca + cb, t), t) if ca + cb else s

    def isub(self, a: Value, b: Value, t: str) -> Value:
        if isinstance(b, Const):
            return self.iadd(a, Const(wrap(-b.value, t), t), t)
        if isinstance(a, Off) and isinstance(b, Off) and a.reg.name == b.reg.name:
            return Const(wrap(a.c - b.c, t), t)
        cb = b.c if isinstance(b, Off) else 0
        rb = b.reg if isinstance(b, Off) else b
        ca = a.c if isinstance(a, Off) else 0
        ra = a.reg if isinstance(a, Off) else a
        d = self.b.op(f"sub.{T.ptx(t)}", t, self.opnd(ra), rb.name)
        return self.iadd(d, Const(wrap(ca - cb, t), t), t)

    def imul(self, a: Value, b: Value, t: str) -> Value:
        if isinstance(a, Const) and isinstance(b, Const):
            return Const(wrap(a.value * b.value, t), t)
        if isinstance(a, Const):
            a, b = b, a
        if isinstance(b, Const):
            c = b.value
            if c == 0:
                return Const(0, t)
            if c == 1:
                return a
            base, off = (a.reg, a.c) if isinstance(a, Off) else (a, 0)
            k = pow2(c)
            if k is not None:
                r = self.b.op(f"shl.b{max(T.bits(t), 32)}", t, base.name, str(k))
            else:
                r = self.b.op(f"mul.lo.{T.ptx(t)}", t, base.name, str(wrap(c, t)))
            if k is not None and 0 < k < 16:          # k i + c is k i | c: LLVM sees its sign is k i's
                self.b.multiple[r.name] = int(c)
            return self.iadd(r, Const(wrap(off * c, t), t), t)
        x, y = sorted((self.opnd(a), self.opnd(b)))
        return self.b.op(f"mul.lo.{T.ptx(t)}", t, x, y)

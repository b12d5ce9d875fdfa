"""The compiler's types, with numba's typing rules.

Scalars are short names: ``b1`` (bool), ``i8 i16 i32 i64``, ``u8 u16 u32 u64``, ``f32 f64``. Arrays are
:class:`ArrayT` (dtype, rank, state space, static shape for shared/local/const arrays). The promotion rules
follow numba's scalar typing: integer arithmetic is 64-bit, signed when either operand is signed
(``int32 + int32 -> int64``, ``uint32 + uint32 -> uint64``, ``uint64 + int64 -> int64``); with floats,
numpy's ``promote_types`` (``float32 + int64 -> float64``); Python int literals are int64 and float
literals float64 (``float32 * 2.0 -> float64``, as in numba).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Union

import numpy as np

SCALARS = ("b1", "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "f32", "f64")
_NP = {"b1": np.bool_, "i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64, "u8": np.uint8,
       "u16": np.uint16, "u32": np.uint32, "u64": np.uint64, "f32": np.float32, "f64": np.float64}
_FROM_NP = {np.dtype(v): k for k, v in _NP.items()}


@dataclass(frozen=True)
class ArrayT:
    """An array: element type, rank, state space ("global", "shared", "local", "const") and, for the
    on-chip spaces, its static shape (``None`` for dynamic shared memory)."""
    dtype: str
    ndim: int
    space: str = "global"
    shape: tuple | None = None

    def __str__(self):
        return f"{self.space} array({numpy_name(self.dtype)}, {self.ndim}d)"


@dataclass(frozen=True)
class TupleT:
    items: tuple

    def __str__(self):
        return "tuple(" + ", ".join(map(str, self.items)) + ")"


#: a compiler type: a scalar's short name, an array or a tuple
Type = Union[str, ArrayT, TupleT]


def np_dtype(t: str) -> np.dtype:
    return np.dtype(_NP[t])


def from_numpy(dt: object) -> str | None:
    """The scalar type of a numpy dtype (or scalar type), or None when unsupported."""
    try:
        return _FROM_NP.get(np.dtype(dt))
    except TypeError:
        return None


def numpy_name(t: object) -> str:
    return np_dtype(t).name if isinstance(t, str) and t in _NP else str(t)


def is_int(t: object) -> bool:
    return isinstance(t, str) and t[0] in "iu"


def is_float(t: object) -> bool:
    return isinstance(t, str) and t[0] == "f"


def is_signed(t: str) -> bool:
    return t[0] == "i"


def bits(t: str) -> int:
    return 1 if t == "b1" else int(t[1:])


def promote(a: str, b: str) -> str:
    """numpy's promotion of two scalar types (bool with bool stays bool)."""
    return from_numpy(np.promote_types(np_dtype(a), np_dtype(b)))


def arith(a: str, b: str) -> str:
    """Result type of ``+ - * // % & | ^ << >>`` in numba. Integers (and bools): 64 bits, signed when
    either operand is signed (numba's ``choose_result_int``: ``uint64 + int64 -> int64``,
    ``uint32 * uint32 -> uint64``); with a float, numpy's promotion (``float32 + int64 -> float64``)."""
    a, b = ("i64" if a == "b1" else a), ("i64" if b == "b1" else b)
    if is_int(a) and is_int(b):
        return "i64" if is_signed(a) or is_signed(b) else "u64"
    return widen(promote(a, b))


def widen(t: str) -> str:
    if is_int(t):
        return "i64" if is_signed(t) else "u64"
    return "i64" if t == "b1" else t


def truediv(a: str, b: str) -> str:
    t = arith(a, b)
    return "f64" if is_int(t) else t


def unify(a: Type | None, b: Type | None) -> Type | None:
    """The type a variable assigned both ``a`` and ``b`` gets (numba unifies to the wider type)."""
    if a is None or a == b:
        return b
    if b is None:
        return a
    if isinstance(a, str) and isinstance(b, str):
        if a == "b1" or b == "b1":
            return b if a == "b1" else a
        return promote(a, b)
    return None


def ptx(t: str) -> str:
    """The PTX type an operation on ``t`` uses (small integers live in 32-bit registers)."""
    if t == "b1":
        return "pred"
    if is_int(t):
        return ("s" if is_signed(t) else "u") + str(max(bits(t), 32))
    return t


def reg_class(t: str) -> str:
    """The register declaration type holding a value of ``t``."""
    return {"pred": "pred", "s32": "b32", "u32": "b32", "s64": "b64", "u64": "b64", "f32": "f32",
            "f64": "f64"}[ptx(t)]


def mem(t: str) -> str:
    """The PTX type of a load/store of an element of ``t``."""
    if t == "b1":
        return "u8"
    if is_int(t):
        return ("s" if is_signed(t) else "u") + str(bits(t))
    return t


def itemsize(t: str) -> int:
    return 1 if t == "b1" else bits(t) // 8

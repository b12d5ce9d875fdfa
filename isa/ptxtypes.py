"""PTX fundamental types and how the interpreter stores them.

A PTX type name (``.s32``, ``.f32``, ``.b64``, ``.pred`` ...) fixes an operand's width and how its bits
are read. Registers hold raw bits in unsigned numpy arrays of their declared width (``pred`` in ``bool``);
an instruction views those bits as its own type with :func:`as_type`, which also applies PTX's rules for
registers wider or narrower than the instruction type (truncate, or zero/sign-extend).
"""
from __future__ import annotations

import numpy as np

#: numpy dtype that holds values of each PTX type.
DTYPES: dict[str, np.dtype] = {
    "pred": np.dtype(np.bool_),
    "b8": np.dtype(np.uint8), "u8": np.dtype(np.uint8), "s8": np.dtype(np.int8),
    "b16": np.dtype(np.uint16), "u16": np.dtype(np.uint16), "s16": np.dtype(np.int16),
    "f16": np.dtype(np.float16),
    "b32": np.dtype(np.uint32), "u32": np.dtype(np.uint32), "s32": np.dtype(np.int32),
    "f32": np.dtype(np.float32),
    "b64": np.dtype(np.uint64), "u64": np.dtype(np.uint64), "s64": np.dtype(np.int64),
    "f64": np.dtype(np.float64),
}

#: unsigned "bits" dtype per width in bytes, the storage format of registers.
BITS = {1: np.dtype(np.uint8), 2: np.dtype(np.uint16), 4: np.dtype(np.uint32), 8: np.dtype(np.uint64)}

TYPE_NAMES = frozenset(DTYPES)


def is_type(name: str) -> bool:
    """True when ``name`` (without the dot) is a PTX fundamental type."""
    return name in DTYPES


def size(ptype: str) -> int:
    """Width in bytes of a PTX type (``pred`` counts as 1)."""
    return DTYPES[ptype].itemsize


def is_float(ptype: str) -> bool:
    return ptype[0] == "f"


def is_signed(ptype: str) -> bool:
    return ptype[0] == "s"


def storage_dtype(ptype: str) -> np.dtype:
    """How a register declared with ``ptype`` is stored: raw unsigned bits, or bool for predicates."""
    if ptype == "pred":
        return DTYPES["pred"]
    return BITS[size(ptype)]


def as_type(bits: np.ndarray, ptype: str) -> np.ndarray:
    """View register contents ``bits`` as PTX type ``ptype``.

    Same width: a zero-copy view. Register wider than the type: truncate to the low bits. Register
    narrower: zero-extend (sign-extend for ``.s`` types), as PTX does for ``ld``/``cvt`` sources.
    """
    want = DTYPES[ptype]
    if bits.dtype == want:
        return bits
    if ptype == "pred":
        return bits != 0
    if bits.dtype == np.bool_:
        return bits.astype(want)
    have = bits.dtype.itemsize
    if have == want.itemsize:
        return bits.view(want)
    if have > want.itemsize:
        return bits.astype(BITS[want.itemsize]).view(want)
    if is_signed(ptype):
        # sign-extend: reinterpret the narrow value as signed first
        narrow = bits.view(np.dtype(f"int{8 * have}"))
        return narrow.astype(want)
    return bits.astype(BITS[want.itemsize]).view(want)


def to_bits(values: np.ndarray, reg_dtype: np.dtype, signed: bool = False) -> np.ndarray:
    """Convert a typed result into a register's storage dtype (truncate or extend as PTX does)."""
    if values.dtype == reg_dtype:
        return values
    if reg_dtype == np.bool_:
        return values != 0
    if values.dtype == np.bool_:
        return values.astype(reg_dtype)
    have = values.dtype.itemsize
    want = reg_dtype.itemsize
    if have == want:
        return values.view(reg_dtype)
    raw = values.view(BITS[have]) if values.dtype.kind == "f" else values
    if have > want:
        return raw.astype(reg_dtype)
    if signed or raw.dtype.kind == "i":
        return raw.view(np.dtype(f"int{8 * have}")).astype(np.dtype(f"int{8 * want}")).view(reg_dtype)
    return raw.astype(reg_dtype)

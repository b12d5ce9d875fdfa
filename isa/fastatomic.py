"""Atomic read-modify-write over a typed memory view, lane by lane in order (numba-jitted).

``apply(op, view, idx, b, c)`` performs, for i = 0, 1, ... in order, ``old[i] = view[idx[i]]`` then
``view[idx[i]] = f(old[i], b[i], c[i])`` and returns ``old``: later lanes see earlier lanes' updates,
exactly like a serialised sequence of atomics. :func:`apply_reference` is the plain-Python twin the
tests compare against.
"""
from __future__ import annotations

import numpy as np
from numba import njit

_CODES = {"add": 0, "min": 1, "max": 2, "exch": 3, "cas": 4, "inc": 5, "dec": 6, "and": 7, "or": 8, "xor": 9}


@njit(cache=True)
def _arith(view, idx, b, c, code):
    old = np.empty(idx.size, view.dtype)
    for i in range(idx.size):
        j = idx[i]
        o = view[j]
        old[i] = o
        if code == 0:
            view[j] = o + b[i]
        elif code == 1:
            if b[i] < o:
                view[j] = b[i]
        elif code == 2:
            if b[i] > o:
                view[j] = b[i]
        elif code == 3:
            view[j] = b[i]
        elif code == 4:
            if o == b[i]:
                view[j] = c[i]
    return old


@njit(cache=True)
def _bits(view, idx, b, code):
    old = np.empty(idx.size, view.dtype)
    for i in range(idx.size):
        j = idx[i]
        o = view[j]
        old[i] = o
        if code == 5:
            if o >= b[i]:
                view[j] = 0
            else:
                view[j] = o + 1
        elif code == 6:
            if o == 0 or o > b[i]:
                view[j] = b[i]
            else:
                view[j] = o - 1
        elif code == 7:
            view[j] = o & b[i]
        elif code == 8:
            view[j] = o | b[i]
        else:
            view[j] = o ^ b[i]
    return old


def apply(op: str, view: np.ndarray, idx: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """Apply atomic ``op`` for each (index, operand) in order; returns the old values."""
    code = _CODES[op]
    idx = np.ascontiguousarray(idx, np.int64)
    b = np.ascontiguousarray(b, view.dtype)
    if code <= 4:
        return _arith(view, idx, b, np.ascontiguousarray(c, view.dtype), code)
    return _bits(view, idx, b, code)


_REFERENCE = {
    "add": lambda o, b, c: o + b, "min": lambda o, b, c: min(o, b), "max": lambda o, b, c: max(o, b),
    "exch": lambda o, b, c: b, "cas": lambda o, b, c: c if o == b else o,
    "inc": lambda o, b, c: 0 if o >= b else o + 1, "dec": lambda o, b, c: b if o == 0 or o > b else o - 1,
    "and": lambda o, b, c: o & b, "or": lambda o, b, c: o | b, "xor": lambda o, b, c: o ^ b,
}


def apply_reference(op: str, values: list, idx: list, b: list, c: list, wrap: int | None = None) -> list:
    """Plain-Python model of :func:`apply` on a list (``wrap`` reduces integer results, e.g. 2**32)."""
    f = _REFERENCE[op]
    old = []
    for j, bj, cj in zip(idx, b, c):
        o = values[j]
        old.append(o)
        new = f(o, bj, cj)
        values[j] = new % wrap if wrap else new
    return old

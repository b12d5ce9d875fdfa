"""Byte layout of variables in a state space (shared, local, const, global): aligned offsets."""
from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

if TYPE_CHECKING:
    from .program import VarDecl


def align_up(x: int, a: int) -> int:
    return (x + a - 1) // a * a


def layout(decls: Sequence[VarDecl]) -> tuple[dict[str, int], int]:
    """Offsets of ``decls`` (VarDecl) laid out in order with their alignment: ``({name: offset}, size)``.

    Unsized ``extern`` arrays get the aligned offset after everything else and no size; they are where
    dynamic shared memory starts.
    """
    offsets, end = {}, 0
    for v in decls:
        if v.extern or v.count == 0:
            continue
        end = align_up(end, v.alignment)
        offsets[v.name] = end
        end += v.size
    for v in decls:
        if v.extern or v.count == 0:
            offsets[v.name] = align_up(end, max(v.alignment, 16))
    return offsets, end

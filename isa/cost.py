"""Issue slots: how many SASS instructions one PTX instruction becomes on sm_90, approximately.

PTX is a virtual ISA; ``ptxas`` maps most instructions one to one but not all, and Nsight Compute's
``smsp__inst_executed`` counts SASS. The rules (from the SASS that ptxas emits for sm_90, as listed by
``cuobjdump -sass`` for the kernels in ``tests/kernels`` and numba-cuda output):

* ``ld.param`` and ``cvta`` cost nothing: parameters are constant-bank operands (``c[0x0][...]``) of the
  instructions that use them, and generic/global addresses are the same.
* Integer ALU operations on 64-bit values take two slots (Hopper's integer datapath is 32 bits wide:
  ``IADD3`` + ``IADD3.X``, a ``LOP3`` per half, ``SHF.L``/``SHF.R`` pairs, ``ISETP`` + ``ISETP.EX``); a
  64-bit ``mul.lo``/``mad.lo`` takes three (``IMAD.WIDE.U32`` + two ``IMAD``). ``mul.wide``/``mad.wide``
  from 32-bit operands is one ``IMAD.WIDE``.
* Everything else: one slot (double-precision arithmetic is one ``DADD``/``DFMA``; ``div``/``rem`` on
  integers and ``div.rn`` on floats really expand into longer sequences or calls, which is not modelled).

``python benchmarks/cost_fit.py`` measures the SASS ptxas issues per PTX execution by class over every
workload kernel (each weighing the same): ptxas folds most shifts and conversions into ``LEA``/``IMAD``
(``shl.64`` 0.02, ``cvt`` 0.19), a 64-bit multiply takes about one (0.94), ``div`` 15, ``sqrt`` 14, ``ex2``
4, while the SASS every warp runs whatever its PTX (the stack-pointer ``LDC``, ``EXIT``) belongs to no
class. Slots refitted to those classes, rounded, cut the PTX stream's duration MAPE only from 17.2% to
16.9% on the validation data and its SASS counts within 5% of the H200's from 36% to 3% of the cases
(these rules overcount index arithmetic about as much as they miss the per-warp SASS), so they stay.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .program import Instruction

_WIDE_INT = ("s64", "u64", "b64")
_TWO = ("add", "sub", "and", "or", "xor", "not", "neg", "shl", "shr", "min", "max", "abs", "selp", "setp")


def issue_slots(ins: Instruction) -> int:
    op = ins.opcode
    if op == "cvta" or (op == "ld" and "param" in ins.mods):
        return 0
    types = [m for m in ins.mods if m in _WIDE_INT]
    if not types or op == "cvt" or "wide" in ins.mods:
        return 1
    if op in _TWO:
        return 2
    if op in ("mul", "mad"):
        return 3
    return 1

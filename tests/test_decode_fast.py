"""The one-pass forms of common ALU instructions (:func:`isa.decode._fast_alu`) against the families'
semantics: the same register bits, written lanes and errors, for every lane active and for some."""
from __future__ import annotations

import numpy as np
import pytest

import isa
from isa.errors import KernelError
from ptxutil import kernel

FAST = [
    "add.s64 %rd1, %rd2, %rd3", "add.s64 %rd1, %rd2, -5", "sub.u32 %r1, %r2, %r3", "sub.s32 %r1, 7, %r3",
    "add.s16 %rs1, %rs2, %rs3", "add.u64 %rd2, %rd2, %rd2", "mul.lo.s64 %rd1, %rd2, %rd3",
    "mul.lo.u32 %r1, %r2, 7", "and.b64 %rd1, %rd2, -9223372036854775808", "or.b32 %r1, %r2, %r3",
    "xor.b16 %rs1, %rs2, 255", "and.pred %p1, %p2, %p3", "or.pred %p1, %p2, !%p3", "shl.b64 %rd1, %rd2, 2",
    "shl.b32 %r1, %r2, 31", "shr.s64 %rd1, %rd2, 63", "shr.u64 %rd1, %rd2, 58", "shr.b32 %r1, %r2, 26",
    "shr.s32 %r1, %r2, 5", "shr.s16 %rs1, %rs2, 3", "setp.lt.s64 %p1, %rd2, -8", "setp.gt.u32 %p1, %r2, %r3",
    "setp.ne.s64 %p1, %rd2, 0", "setp.hi.u64 %p1, %rd2, %rd3", "setp.le.s32 %p1, 3, %r3",
    "setp.eq.b32 %p1, %r2, %r3", "selp.b64 %rd1, -1, 0, %p2", "selp.u32 %r1, %r2, %r3, %p2",
    "selp.s64 %rd1, %rd2, -1, %p3", "mov.u64 %rd1, 0", "mov.f32 %f1, 0f3F800000", "mov.b32 %r1, %r2",
    "mov.pred %p1, %p2", "mov.f64 %fd1, %fd2", "mov.s16 %rs1, -3",
]
SLOW = ["add.sat.s32 %r1, %r2, %r3", "shl.b32 %r1, %r2, 40", "shr.u32 %r1, %r2, %r3", "mul.wide.s32 %rd1, %r2, %r3",
        "setp.lt.and.s32 %p1, %r2, %r3, %p2", "selp.f32 %f1, %f2, %f3, %p2", "mov.u32 %r1, %tid.x",
        "add.f32 %f1, %f2, %f3", "add.u32 %r1, %r2, %rd3"]
LANES = 96


def _batch(text: str):
    k = kernel(f"    {text};\n    ret;")
    b = isa.interp.Launch(k, 1, LANES, (np.zeros(1, np.uint32),)).batch(0)
    return b, b.prog.ops[0]


def _fill(b, seed: int) -> None:
    rng = np.random.default_rng(seed)
    for i, r in enumerate(b.regs):
        raw = rng.integers(0, 256, r.nbytes, dtype=np.uint8)
        raw[:8 * r.itemsize] = 0xFF            # some lanes all ones, some zero, at the edges of the ranges
        raw[8 * r.itemsize:16 * r.itemsize] = 0
        b.regs[i] = raw.view(np.uint8).view(r.dtype).copy() if r.dtype != np.bool_ else raw % 2 == 1
        b.written[i] = True


def _run(text: str, active, full: bool, fast: bool, seed: int, unwritten: bool = False):
    b, op = _batch(text)
    _fill(b, seed)
    if unwritten:                              # a source register half written
        src = op.ins.operands[1]
        rid = b.prog.reg_id(src.name)
        b.written[rid] = np.arange(LANES) < LANES // 2
    if not fast:
        op.fast = None
    try:
        op.run_alu(b, active, full)
    except KernelError as e:
        return "error", str(e)
    return [r.tobytes() for r in b.regs], [w if w is True or w is None else w.tobytes() for w in b.written]


@pytest.mark.parametrize("text", FAST)
def test_fast_form_gives_the_semantics_bits(text):
    assert _batch(text)[1].fast is not None
    rng = np.random.default_rng(1)
    for seed in range(4):
        for active, full in ((np.ones(LANES, bool), True), (rng.random(LANES) < 0.5, False)):
            assert _run(text, active, full, True, seed) == _run(text, active, full, False, seed)


@pytest.mark.parametrize("text", [t for t in FAST if "%" in t.split(",", 1)[1].split(",")[0]])
def test_fast_form_reads_an_unwritten_register_as_an_error(text):
    active = np.ones(LANES, bool)
    got = _run(text, active, False, True, 0, unwritten=True)
    assert got[0] == "error" and got == _run(text, active, False, False, 0, unwritten=True)


@pytest.mark.parametrize("text", SLOW)
def test_other_forms_have_no_fast_form(text):
    try:
        op = _batch(text)[1]
    except Exception:                          # a form the parser or the checks reject: none either
        return
    assert op.fast is None

"""The opcode table: every family declares a unit and latency class the timing model can use, and adding
an opcode is one entry plus one semantics function."""
from __future__ import annotations

import numpy as np
import pytest

import isa
from isa import opcodes
from ptxutil import PROLOGUE, kernel

REQUIRED = ["mov", "cvta", "cvt", "add", "sub", "mul", "mad", "fma", "div", "rem", "neg", "abs", "min", "max",
            "and", "or", "xor", "not", "shl", "shr", "popc", "clz", "brev", "bfe", "bfi", "prmt", "setp", "selp",
            "rcp", "sqrt", "rsqrt", "ex2", "lg2", "sin", "cos", "ld", "st", "atom", "red", "bar", "barrier",
            "membar", "fence", "shfl", "vote", "activemask", "bra", "ret", "exit"]


def test_required_families_present_with_valid_classes():
    opcodes.family("add")          # loads the table
    missing = [op for op in REQUIRED if op not in opcodes.TABLE]
    assert not missing
    for name, fam in opcodes.TABLE.items():
        assert fam.kind in opcodes.KINDS, name
        if isinstance(fam.unit, str):
            assert fam.unit in opcodes.UNITS, name
        if isinstance(fam.latency, str):
            assert fam.latency in opcodes.LATENCIES, name
        assert fam.kind != "alu" or fam.types is not None, name


@pytest.mark.parametrize("text, unit, latency", [
    ("add.f32 %f1, %f2, %f3", "fp32", "fixed"),
    ("fma.rn.f32 %f1, %f2, %f3, %f4", "fp32", "fixed"),
    ("add.f64 %fd1, %fd2, %fd3", "fp64", "fixed"),
    ("add.s32 %r1, %r2, %r3", "int", "fixed"),
    ("mad.lo.s32 %r1, %r2, %r3, %r4", "int", "fixed"),
    ("ld.global.f32 %f1, [%rd1]", "lsu-global", "long_scoreboard"),
    ("st.global.f32 [%rd1], %f1", "lsu-global", "long_scoreboard"),
    ("ld.shared.f32 %f1, [%r1]", "lsu-shared", "short_scoreboard"),
    ("ld.local.f32 %f1, [%rd1]", "lsu-local", "long_scoreboard"),
    ("atom.global.add.u32 %r1, [%rd1], 1", "lsu-global", "long_scoreboard"),
    ("sin.approx.f32 %f1, %f2", "sfu", "short_scoreboard"),
    ("rsqrt.approx.f32 %f1, %f2", "sfu", "short_scoreboard"),
    ("bra $L", "branch", "control"),
    ("bar.sync 0", "barrier", "control"),
    ("shfl.sync.bfly.b32 %r1, %r2, 1, 31, -1", "sync", "short_scoreboard"),
])
def test_unit_and_latency_of_instructions(text, unit, latency):
    k = kernel(f"$L:\n    {text};\n    ret;")
    ins = k.body[0]
    assert isa.unit_of(ins) == unit
    assert isa.latency_of(ins) == latency


def test_adding_an_opcode_is_one_entry_and_one_function():
    def avg(ins, a, b):                      # (a + b) >> 1 without overflow, PTX-style name "havg"
        return (a & b) + ((a ^ b) >> 1)
    fam = opcodes.OpFamily("havg", "d, a, b", 1, (2,), avg, "int", "fixed",
                           types=lambda ins: ((ins.type,), (ins.type, ins.type)),
                           check=lambda ins: opcodes.require(ins, ("u32",)))
    opcodes.register(fam)
    try:
        k = kernel(PROLOGUE + """
            mov.u32 %r2, -1;
            havg.u32 %r3, %r2, %r1;
            st.global.u32 [%rd2], %r3;
            ret;""")
        out = np.zeros(64, np.uint32)
        isa.run(k, 2, 32, (out,))
        assert np.array_equal(out, (0xFFFFFFFF + np.arange(64, dtype=np.uint64)) // 2)
        with pytest.raises(isa.ParseError, match=r"type \.s32 is not supported"):
            kernel("havg.s32 %r3, %r2, %r1;\nret;")
    finally:
        del opcodes.TABLE["havg"]

"""Parser and printer: accepted syntax, the program model it builds, round trips and parse errors."""
from __future__ import annotations

import pathlib

import pytest

import isa
from isa.program import Addr, Imm, Pair, Reg, SourceLoc, Sym, Vec
from ptxutil import HEADER, kernel

KERNELS = pathlib.Path(__file__).parent / "kernels"
BENCH = pathlib.Path(__file__).parent.parent / "benchmarks"

SAMPLE = HEADER + r"""
// a comment
/* a block
   comment */
.const .align 4 .b8 coef[8] = {1, 0, 0, 0, 2, 0, 0, 0};
	// .globl	_Z4testPfi
.visible .entry _Z4testPfi(
	.param .u64 _Z4testPfi_param_0,
	.param .u32 _Z4testPfi_param_1
)
.maxntid 256, 1, 1
{
	.reg .pred 	%p<3>;
	.reg .f32 	%f<5>;
	.reg .b32 	%r<22>;
	.reg .b64 	%rd<16>;
	.shared .align 4 .b8 tile[4224];
	.extern .shared .align 16 .b8 dyn[];
	.loc	1 3 3
	ld.param.u64 	%rd1, [_Z4testPfi_param_0];
	mov.u32 	%r1, %tid.x;
	mov.u32 	%r2, tile;
	mov.f32 	%f1, 0f3F800000;
	mov.b32 	%r3, 0x1F;
	.loc	2 440 9, function_name $L__info_string0, inlined_at 1 12 3
	shfl.sync.down.b32 	%r4|%p1, %r3, 16, 31, -1;
	.loc	1 4 3
	@%p1 bra 	$L__BB0_2;
	{
	.reg .b32 inner;
	@!%p1 st.shared.v2.f32 	[%r2+1056], {%f1, %f1};
	}
$L__BB0_2:
	setp.lt.and.s32 	%p2, %r1, 7, !%p1;
	ld.global.nc.v4.f32 	{%f1, %f2, %f3, %f4}, [%rd1];
	ret;

}
	.file	1 "/src/test.cu"
	.file	2 "/cuda/include/sm_30_intrinsics.hpp"
	.section	.debug_str
	{
$L__info_string0:
.b8 95,90,0
	}
"""


@pytest.fixture(scope="module")
def sample():
    return isa.parse(SAMPLE)


def test_model_of_sample(sample):
    k = sample.find("test")
    assert k.name == "_Z4testPfi" and k.visible
    assert [(p.name, p.type) for p in k.params] == [("_Z4testPfi_param_0", "u64"), ("_Z4testPfi_param_1", "u32")]
    assert k.directives == (("maxntid", (256, 1, 1)),)
    assert [(r.type, r.name, r.count) for r in k.regs][:4] == [("pred", "%p", 3), ("f32", "%f", 5),
                                                               ("b32", "%r", 22), ("b64", "%rd", 16)]
    shared = {v.name: v for v in k.shared_vars()}
    assert shared["tile"].size == 4224 and shared["tile"].align == 4 and not shared["tile"].extern
    assert shared["dyn"].extern and shared["dyn"].count == 0 and shared["dyn"].align == 16
    assert k.static_shared_bytes() == 4224
    assert sample.globals[0].space == "const" and sample.globals[0].init == (1, 0, 0, 0, 2, 0, 0, 0)
    assert k.labels == {"$L__BB0_2": 8}


def test_operands_and_locations(sample):
    body = sample.find("test").body
    assert body[0].operands == (Reg("%rd1"), Addr(Sym("_Z4testPfi_param_0"), 0))
    assert body[1].operands[1] == Reg("%tid.x")
    assert body[3].operands[1] == Imm(1.0, "0f3F800000")
    assert body[4].operands[1] == Imm(31, "0x1F")
    shfl = body[5]
    assert shfl.opcode == "shfl" and shfl.mods == ("sync", "down", "b32")
    assert shfl.operands[0] == Pair(Reg("%r4"), Reg("%p1")) and shfl.operands[-1] == Imm(-1, "-1")
    # inlined code is attributed to the user's call site
    assert shfl.loc == SourceLoc("/src/test.cu", 12, 3)
    assert body[0].loc == SourceLoc("/src/test.cu", 3, 3)
    assert body[6].guard == Reg("%p1") and body[6].operands == (Sym("$L__BB0_2"),)
    st = body[7]
    assert st.guard == Reg("%p1", neg=True)
    assert st.operands == (Addr(Reg("%r2"), 1056), Vec((Reg("%f1"), Reg("%f1"))))
    assert body[8].operands[-1] == Reg("%p1", neg=True)
    ld = body[9]
    assert ld.mods == ("global", "nc", "v4", "f32") and ld.type == "f32" and ld.has("nc")


def test_inner_scope_registers_are_declared(sample):
    assert "inner" in sample.find("test").register_types()


def test_round_trip_sample(sample):
    text = sample.to_text()
    again = isa.parse(text)
    assert again == sample
    assert "// test.cu:12" in text       # source locations annotated for people


def _all_ptx():
    files = sorted(KERNELS.glob("*.ptx")) + sorted(BENCH.glob("*.ptx"))
    return [pytest.param(f, id=f.name) for f in files]


@pytest.mark.parametrize("path", _all_ptx())
def test_round_trip_nvcc_output(path):
    module = isa.parse(path.read_text())
    assert len(module) >= 1
    again = isa.parse(module.to_text())
    assert again == module
    for k in module:
        assert isa.parse(HEADER + k.to_text())[k.name] == k


def test_find_and_getitem(sample):
    assert sample["_Z4testPfi"] is sample.find("4test")
    with pytest.raises(KeyError, match="no kernel"):
        sample.find("nothere")
    with pytest.raises(KeyError, match="no kernel named"):
        sample["test"]


def test_find_ambiguous():
    text = HEADER + ".visible .entry ab() { ret; }\n.visible .entry abc() { ret; }\n"
    m = isa.parse(text)
    assert m.find("abc").name == "abc"      # an exact name wins
    with pytest.raises(KeyError, match="matches 2 kernels"):
        m.find("a")


def test_immediate_forms():
    k = kernel("""
        mov.u32 %r1, 0x10;
        mov.u32 %r2, -5;
        mov.f64 %fd1, 0d3FF8000000000000;
        mov.f32 %f1, 0f7F800000;
        mov.u32 %r3, 0b101;
        ret;""")
    vals = [ins.operands[1].value for ins in k.body[:5]]
    assert vals == [16, -5, 1.5, float("inf"), 5]


@pytest.mark.parametrize("body, message, line, col", [
    ("    frobnicate.u32 %r1, %r2;", "unsupported instruction 'frobnicate'", 15, 5),
    ("    add.cc.f32 %r1, %r2, %r3;", ".cc", 15, 5),
    ("    add.u32 %r1, %r2;", "operands", 15, 5),
    ("    bra $L_nowhere;", "undefined label $L_nowhere", 15, 5),
    ("    add.u32 %r1, %r2, %r3", "expected ';'", 16, 5),
    ("    ld.global.f32 %f1, [%rd1+];", "address offset", 15, 30),
    ("    mov.u32 %r1, #;", "unexpected character", 15, 18),
    ("    shfl.down.b32 %r1, %r2, 1, 31;", "shfl.sync", 15, 5),
])
def test_parse_errors_point_at_the_problem(body, message, line, col):
    with pytest.raises(isa.ParseError) as info:
        kernel(body + "\n    ret;")
    err = info.value
    assert message in str(err)
    assert (err.line, err.col) == (line, col)
    text = str(err).splitlines()
    assert text[0].startswith(f"line {line}, column {col}:")
    if err.source_line:
        caret_line = text[2]
        assert caret_line.index("^") - 4 == col - 1


def test_device_functions_are_inlined_and_a_recursive_one_rejected_clearly():
    # tests/test_inline.py has the calls; a function nobody calls is dropped, one that calls itself is an error
    assert not isa.parse(HEADER + ".func foo() { ret; }\n").kernels
    with pytest.raises(isa.ParseError, match=r"foo calls itself"):
        isa.parse(HEADER + ".func foo() { call.uni foo, (); ret; }\n"
                  ".visible .entry k() { call.uni foo, (); ret; }\n")


def test_register_count_is_live_registers_not_declared():
    k = kernel("""
        ld.param.u64 %rd1, [out];
        mov.u32 %r1, 1;
        add.u32 %r2, %r1, 1;
        add.u32 %r3, %r2, 1;
        add.u32 %r4, %r3, 1;
        cvt.u64.u32 %rd2, %r4;
        add.s64 %rd3, %rd1, %rd2;
        st.global.u32 [%rd3], %r4;
        ret;""")
    # 64 b32, 16 b16, 32 b64 ... are declared; at most %rd1, %rd2 (64-bit) and %r4 are live at once
    assert k.registers_per_thread() == 5

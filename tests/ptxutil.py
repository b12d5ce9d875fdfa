"""Helpers for tests that write small PTX kernels by hand."""
from __future__ import annotations

import isa

HEADER = ".version 8.0\n.target sm_90\n.address_size 64\n"
REGS = """
    .reg .pred %p<16>;
    .reg .b16 %rs<16>;
    .reg .b32 %r<64>;
    .reg .f32 %f<32>;
    .reg .b64 %rd<32>;
    .reg .f64 %fd<16>;
"""


def kernel(body: str, params: str = ".param .u64 out", name: str = "k", decls: str = "") -> isa.Kernel:
    """Parse one kernel ``name`` with the usual register files declared and ``body`` as its code."""
    plist = ",\n".join("    " + p.strip() for p in params.split(",") if p.strip())
    text = f"{HEADER}.visible .entry {name}(\n{plist}\n)\n{{{REGS}{decls}\n{body}\n}}\n"
    return isa.parse(text)[name]


#: prologue: %r1 = global thread index (x), %rd2 = &out[%r1] (4-byte elements)
PROLOGUE = """
    ld.param.u64 %rd1, [out];
    cvta.to.global.u64 %rd1, %rd1;
    mov.u32 %r10, %tid.x;
    mov.u32 %r11, %ctaid.x;
    mov.u32 %r12, %ntid.x;
    mad.lo.s32 %r1, %r11, %r12, %r10;
    mul.wide.u32 %rd3, %r1, 4;
    add.s64 %rd2, %rd1, %rd3;
"""

"""shfl.sync through the interpreter against the results measured on an H200 (tests/data/ptx_hw_edge.json,
made by tests/hw/edge_probe.cu): one warp, lanes in the probe's ``active`` mask execute the shuffle with the
probe's a, b, c and membermask; every executing lane's value and predicate must equal the hardware's."""
from __future__ import annotations

import json
import pathlib

import numpy as np
import pytest

import isa
from ptxutil import kernel

DATA = json.loads((pathlib.Path(__file__).parent / "data" / "ptx_hw_edge.json").read_text())

BODY = """
    ld.param.u64 %rd1, [out];
    ld.param.u64 %rd4, [a];
    ld.param.u64 %rd5, [b];
    mov.u32 %r1, %laneid;
    mul.wide.u32 %rd2, %r1, 4;
    add.s64 %rd6, %rd4, %rd2;
    add.s64 %rd7, %rd5, %rd2;
    ld.global.u32 %r2, [%rd6];
    ld.global.u32 %r3, [%rd7];
    shl.b32 %r8, 1, %r1;
    and.b32 %r9, %r8, {active};
    setp.eq.u32 %p1, %r9, 0;
    @%p1 bra $OFF;
    shfl.sync.{mode}.b32 %r4|%p2, %r2, %r3, {c}, {member};
    selp.u32 %r5, 1, 0, %p2;
    mul.wide.u32 %rd8, %r1, 8;
    add.s64 %rd9, %rd1, %rd8;
    st.global.v2.u32 [%rd9], {{%r4, %r5}};
$OFF:
    ret;
"""


@pytest.mark.parametrize("case", DATA["shfl"], ids=[f"{c['mode']}-{c['note']}" for c in DATA["shfl"]])
def test_shfl_matches_hardware(case):
    k = kernel(BODY.format(active=case["active"], mode=case["mode"], c=case["c"], member=case["membermask"]),
               params=".param .u64 out, .param .u64 a, .param .u64 b")
    out = np.zeros((32, 2), np.uint32)
    a = np.array(case["a"], np.uint64).astype(np.uint32)
    b = np.array(case["b"], np.uint64).astype(np.uint32)
    isa.run(k, 1, 32, (out, a, b))
    lanes = [i for i in range(32) if int(case["active"], 16) >> i & 1]
    want_d = [int(case["d"][i]) & 0xFFFFFFFF for i in lanes]
    want_p = [int(case["p"][i]) for i in lanes]
    assert out[lanes, 0].tolist() == want_d
    assert out[lanes, 1].tolist() == want_p

"""Per-launch state is per launch: a prepared program is shared by every launch of its kernel and holds
nothing of any one of them (module-variable addresses, active masks, recorders)."""
from __future__ import annotations

import numpy as np

import isa
from isa import interp
from isa.trace import trace_blocks

# gbuf, a module .global variable, is placed in each launch's own device memory: a copy of inp through it
MODULE = """.version 8.0
.target sm_90
.address_size 64
.global .align 4 .b8 gbuf[1024];
.visible .entry k(.param .u64 out, .param .u64 inp, .param .u32 add)
{
    .reg .pred %p<2>;
    .reg .b32 %r<8>;
    .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [out];
    ld.param.u64 %rd2, [inp];
    ld.param.u32 %r5, [add];
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, %ctaid.x;
    mov.u32 %r3, %ntid.x;
    mad.lo.s32 %r1, %r2, %r3, %r1;
    mul.wide.u32 %rd3, %r1, 4;
    add.s64 %rd4, %rd2, %rd3;
    ld.global.u32 %r4, [%rd4];
    mov.u64 %rd5, gbuf;
    add.s64 %rd5, %rd5, %rd3;
    st.global.u32 [%rd5], %r4;
    ld.global.u32 %r6, [%rd5];
    add.u32 %r6, %r6, %r5;
    add.s64 %rd6, %rd1, %rd3;
    st.global.u32 [%rd6], %r6;
    ret;
}
"""


def _launch(kernel, n: int, add: int, seed: int):
    inp = np.random.default_rng(seed).integers(0, 1000, n).astype(np.uint32)
    out = np.zeros(n, np.uint32)
    return interp.Launch(kernel, n // 64, 64, (out, inp, add)), out, inp + np.uint32(add)


def test_two_live_launches_of_one_kernel_interleaved_both_correct():
    kernel = isa.parse(MODULE)["k"]
    # different array sizes put gbuf at different addresses in the two launches' memories
    a, out_a, want_a = _launch(kernel, 256, 7, 1)
    b, out_b, want_b = _launch(kernel, 128, 1000, 2)
    assert a.prog is b.prog                               # one prepared program, shared
    assert a.global_addresses["gbuf"] != b.global_addresses["gbuf"]
    a.run_blocks([0])
    b.run_blocks([0])
    a.run_blocks([1, 2, 3])
    b.run_blocks([1])
    a.finish()
    b.finish()
    np.testing.assert_array_equal(out_a, want_a)
    np.testing.assert_array_equal(out_b, want_b)


def test_traces_of_two_live_launches_record_their_own_accesses():
    kernel = isa.parse(MODULE)["k"]
    a, _, _ = _launch(kernel, 256, 7, 1)
    b, _, _ = _launch(kernel, 128, 1000, 2)
    ta = trace_blocks(a, [0])[0]
    tb = trace_blocks(b, [0])[0]
    ta2 = trace_blocks(a, [0])[0]
    gbuf_a, gbuf_b = a.global_addresses["gbuf"], b.global_addresses["gbuf"]
    assert np.any(ta.addr == gbuf_a) and not np.any(ta.addr == gbuf_b)
    assert np.any(tb.addr == gbuf_b) and not np.any(tb.addr == gbuf_a)
    np.testing.assert_array_equal(ta.addr, ta2.addr)
    assert [w.pcs for w in ta.warps] == [w.pcs for w in ta2.warps]

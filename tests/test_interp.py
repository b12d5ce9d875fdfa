"""The interpreter: SIMT divergence and reconvergence, memory spaces, special registers, launch checks and
run-time errors, on hand-written PTX."""
from __future__ import annotations

import numpy as np
import pytest

import isa
from isa import interp
from ptxutil import PROLOGUE, kernel


def run1(body, n=96, block=32, decls="", params=".param .u64 out", args=None, **kw):
    k = kernel(PROLOGUE + body, params=params, decls=decls)
    out = np.full(n, 0xDEAD, np.uint32)
    isa.run(k, -(-n // block), block, args if args is not None else (out,), **kw)
    return out


def test_nested_if_else_by_lane():
    out = run1("""
        and.b32 %r2, %r1, 3;
        setp.eq.u32 %p1, %r2, 0;
        @%p1 bra $A;
        setp.eq.u32 %p2, %r2, 1;
        @%p2 bra $B;
        mov.u32 %r3, 30;
        bra $J2;
    $B:
        mov.u32 %r3, 20;
    $J2:
        add.u32 %r3, %r3, 1;
        bra $J;
    $A:
        mov.u32 %r3, 10;
    $J:
        add.u32 %r3, %r3, %r1;
        st.global.u32 [%rd2], %r3;
        ret;""")
    i = np.arange(96)
    want = np.select([i % 4 == 0, i % 4 == 1], [10, 21], 31) + i
    assert np.array_equal(out, want)


def test_loop_with_per_lane_trip_counts():
    # out[i] = sum(range(i % 37)), the loop runs a different number of times in every lane
    out = run1("""
        rem.u32 %r2, %r1, 37;
        mov.u32 %r3, 0;
        mov.u32 %r4, 0;
        setp.eq.u32 %p1, %r2, 0;
        @%p1 bra $DONE;
    $LOOP:
        add.u32 %r3, %r3, %r4;
        add.u32 %r4, %r4, 1;
        setp.lt.u32 %p2, %r4, %r2;
        @%p2 bra $LOOP;
    $DONE:
        activemask.b32 %r5;
        setp.eq.u32 %p3, %r5, -1;
        selp.u32 %r6, 1000000, 0, %p3;
        add.u32 %r3, %r3, %r6;
        st.global.u32 [%rd2], %r3;
        ret;""")
    m = np.arange(96) % 37
    # after the loop every lane is back: activemask is full (reconvergence at the post-dominator)
    assert np.array_equal(out, m * (m - 1) // 2 + 1_000_000)


def test_early_exit_leaves_rest_untouched():
    out = run1("""
        setp.ge.u32 %p1, %r1, 50;
        @%p1 exit;
        st.global.u32 [%rd2], %r1;
        ret;""")
    assert np.array_equal(out[:50], np.arange(50)) and (out[50:] == 0xDEAD).all()


def test_reconvergence_with_else_block_laid_out_after_the_join():
    # hand-written layout: the else side sits at the end and jumps back; IPDOM still reconverges at $J
    out = run1("""
        and.b32 %r2, %r1, 1;
        setp.eq.u32 %p1, %r2, 1;
        @%p1 bra $ODD;
        mov.u32 %r3, 2;
    $J:
        activemask.b32 %r4;
        add.u32 %r3, %r3, %r4;
        st.global.u32 [%rd2], %r3;
        ret;
    $ODD:
        mov.u32 %r3, 1;
        bra $J;""")
    # even lanes: 2 + full mask 0xFFFFFFFF wraps to 1; odd lanes: 1 + 0xFFFFFFFF wraps to 0
    assert np.array_equal(out, np.where(np.arange(96) % 2 == 0, 1, 0))


def test_divergence_is_per_warp_not_per_batch():
    # warp 1 takes the branch entirely, warp 0 not at all: neither is divergent, each sees a full mask
    out = run1("""
        setp.ge.u32 %p1, %r1, 32;
        @%p1 bra $W1;
        activemask.b32 %r3;
        bra $J;
    $W1:
        activemask.b32 %r3;
    $J:
        st.global.u32 [%rd2], %r3;
        ret;""", n=64)
    assert (out == 0xFFFFFFFF).all()


def test_partial_warp_block_and_multi_dim_ids():
    k = kernel("""
        ld.param.u64 %rd1, [out];
        cvta.to.global.u64 %rd1, %rd1;
        mov.u32 %r1, %tid.x; mov.u32 %r2, %tid.y; mov.u32 %r3, %tid.z;
        mov.u32 %r4, %ctaid.x; mov.u32 %r5, %ctaid.y; mov.u32 %r6, %nctaid.x;
        mov.u32 %r7, %ntid.x; mov.u32 %r8, %ntid.y; mov.u32 %r9, %laneid; mov.u32 %r13, %warpid;
        mad.lo.s32 %r20, %r3, %r8, %r2;
        mad.lo.s32 %r20, %r20, %r7, %r1;
        mad.lo.s32 %r21, %r5, %r6, %r4;
        mul.lo.s32 %r22, %r7, %r8;
        mov.u32 %r23, %ntid.z;
        mul.lo.s32 %r22, %r22, %r23;
        mad.lo.s32 %r24, %r21, %r22, %r20;
        mul.wide.u32 %rd3, %r24, 16;
        add.s64 %rd2, %rd1, %rd3;
        st.global.v4.u32 [%rd2], {%r1, %r2, %r3, %r9};
        ret;""")
    block, grid = (5, 3, 2), (3, 2)
    n = 30 * 6
    out = np.zeros((n, 4), np.uint32)
    isa.run(k, grid, block, (out,))
    t = np.arange(30)
    want = np.stack([t % 5, t // 5 % 3, t // 15, t % 32], axis=1)
    assert np.array_equal(out, np.tile(want, (6, 1)))


def test_many_batches(monkeypatch):
    monkeypatch.setattr(interp, "BATCH_LANES", 64)
    out = run1("""
        mul.lo.u32 %r2, %r1, 3;
        st.global.u32 [%rd2], %r2;
        ret;""", n=1000, block=40)
    assert np.array_equal(out, np.arange(1000) * 3)


def test_shared_memory_per_block_and_dynamic_extern():
    decls = ".shared .align 4 .b8 s[128];\n.extern .shared .align 16 .b8 dyn[];"
    k = kernel(PROLOGUE + """
        mov.u32 %r5, s;
        shl.b32 %r6, %r10, 2;
        add.u32 %r7, %r5, %r6;
        st.shared.u32 [%r7], %r11;
        mov.u32 %r8, dyn;
        add.u32 %r9, %r8, %r6;
        st.shared.u32 [%r9], %r1;
        bar.sync 0;
        xor.b32 %r14, %r10, 31;
        shl.b32 %r15, %r14, 2;
        add.u32 %r16, %r8, %r15;
        ld.shared.u32 %r17, [%r16];
        add.u32 %r18, %r5, %r15;
        ld.shared.u32 %r19, [%r18];
        mad.lo.s32 %r20, %r19, 1000, %r17;
        st.global.u32 [%rd2], %r20;
        ret;""", decls=decls)
    out = np.zeros(64, np.uint32)
    isa.run(k, 2, 32, (out,), shared_bytes=128)
    i = np.arange(64)
    assert np.array_equal(out, (i // 32) * 1000 + (i // 32) * 32 + (31 - i % 32))
    with pytest.raises(isa.KernelError, match="out of bounds shared"):
        isa.run(k, 2, 32, (out,), shared_bytes=64)     # dyn[] needs 128 bytes


def test_generic_addressing_and_local_memory():
    decls = ".local .align 4 .b8 depot[16];\n.shared .align 4 .b8 s[4];"
    out = run1("""
        mov.u64 %rd10, depot;
        cvta.local.u64 %rd11, %rd10;
        st.u32 [%rd11+4], %r1;
        ld.local.u32 %r2, [%rd10+4];
        mov.u64 %rd12, s;
        cvta.shared.u64 %rd13, %rd12;
        setp.eq.u32 %p1, %r10, 0;
        @%p1 st.u32 [%rd13], 7;
        bar.sync 0;
        ld.u32 %r3, [%rd13];
        add.u32 %r4, %r2, %r3;
        cvta.global.u64 %rd14, %rd2;
        st.u32 [%rd14], %r4;
        ret;""", decls=decls)
    assert np.array_equal(out, np.arange(96) + 7)


def test_const_variable_with_initializer():
    text = ("\n.version 8.0\n.target sm_90\n.address_size 64\n.const .align 4 .u32 tab[4] = {5, 6, 7, 8};\n"
            ".visible .entry k(.param .u64 out) { .reg .b32 %r<8>; .reg .b64 %rd<8>;\n"
            "ld.param.u64 %rd1, [out]; mov.u32 %r1, %tid.x; and.b32 %r2, %r1, 3; mul.wide.u32 %rd2, %r2, 4;"
            "mov.u64 %rd3, tab; add.s64 %rd4, %rd3, %rd2; ld.const.u32 %r3, [%rd4];"
            "mul.wide.u32 %rd5, %r1, 4; add.s64 %rd6, %rd1, %rd5; st.global.u32 [%rd6], %r3; ret; }")
    m = isa.parse(text)
    out = np.zeros(8, np.uint32)
    isa.run(m["k"], 1, 8, (out,))
    assert out.tolist() == [5, 6, 7, 8] * 2


def test_narrow_loads_extend_and_vector_access():
    k = kernel("""
        ld.param.u64 %rd1, [out];
        ld.param.u64 %rd5, [inp];
        mov.u32 %r1, %tid.x;
        cvt.u64.u32 %rd2, %r1;
        add.s64 %rd3, %rd5, %rd2;
        ld.global.s8 %r2, [%rd3];
        ld.global.u8 %rd4, [%rd3];
        mul.wide.u32 %rd6, %r1, 16;
        add.s64 %rd7, %rd1, %rd6;
        cvt.u32.u64 %r3, %rd4;
        st.global.v2.u32 [%rd7], {%r2, %r3};
        st.global.v2.u32 [%rd7+8], {%r1, %r1};
        ret;""", params=".param .u64 out, .param .u64 inp")
    inp = np.array([-1, 5, -128, 127], np.int8)
    out = np.zeros((4, 4), np.uint32)
    isa.run(k, 1, 4, (out, inp))
    assert out[:, 0].view(np.int32).tolist() == [-1, 5, -128, 127]
    assert out[:, 1].tolist() == [255, 5, 128, 127]
    assert out[:, 2].tolist() == [0, 1, 2, 3]


# ---------------------------------------------------------------- run-time errors
def test_out_of_bounds_names_thread_block_instruction_and_line():
    k = kernel(PROLOGUE + """
        .loc 1 7 3
        st.global.u32 [%rd2+4], %r1;
        ret;""")
    out = np.zeros(64, np.uint32)
    keep = out.copy()
    out[:] = 42
    keep[:] = 42
    with pytest.raises(isa.KernelError) as info:
        isa.run(k, 2, 32, (out,))
    msg = str(info.value)
    assert "out of bounds global access" in msg and "kernel k" in msg
    assert "block (1, 0, 0)" in msg and "thread (31, 0, 0)" in msg
    assert "st.global.u32" in msg and ":7" in msg
    assert info.value.block == (1, 0, 0) and info.value.threads == [(31, 0, 0)]
    assert np.array_equal(out, keep)          # the caller's array is not touched


def test_misaligned_access():
    with pytest.raises(isa.KernelError, match="misaligned global access"):
        run1("""
            st.global.u32 [%rd2+2], %r1;
            ret;""")


def test_local_out_of_bounds():
    with pytest.raises(isa.KernelError, match="out of bounds local"):
        run1("""
            mov.u64 %rd10, depot;
            st.local.u32 [%rd10+16], %r1;
            ret;""", decls=".local .align 4 .b8 depot[16];")


def test_divergent_barrier_is_a_deadlock_error():
    # threads 16.. skip the barrier but do not exit: the barrier would wait for them forever
    with pytest.raises(isa.KernelError, match=r"barrier deadlock.*warps \[0\]"):
        run1("""
            setp.lt.u32 %p1, %r10, 16;
            @!%p1 bra $SKIP;
            bar.sync 0;
        $SKIP:
            st.global.u32 [%rd2], %r10;
            ret;""", n=64, block=64)


def test_barrier_after_early_exit_of_whole_warps_is_fine():
    out = run1("""
        setp.ge.u32 %p1, %r10, 32;
        @%p1 exit;
        bar.sync 0;
        st.global.u32 [%rd2], %r10;
        ret;""", n=64, block=64)
    assert np.array_equal(out[:32], np.arange(32)) and (out[32:] == 0xDEAD).all()


def test_early_return_branch_then_barrier_like_nvcc_emits():
    # `if (i >= 40) return; ... __syncthreads();` compiles to a branch straight to the final ret: the
    # returning threads have exited, so the barrier is complete without them (as on Volta and later)
    out = run1("""
        setp.ge.u32 %p1, %r10, 40;
        @%p1 bra $END;
        bar.sync 0;
        st.global.u32 [%rd2], %r10;
    $END:
        ret;""", n=64, block=64)
    assert np.array_equal(out[:40], np.arange(40)) and (out[40:] == 0xDEAD).all()


def test_an_early_return_is_counted_whether_or_not_the_batch_diverges():
    """``if (i == 0) out[0] = 1;``: the warps whose lanes all skip the body still execute the return, whether
    the batch they run in diverges at the branch (block 0 with block 1) or not (block 1 alone): each warp's
    instruction count is the same either way, and block 0's first warp executes the return once."""
    from isa.trace import trace_blocks
    k = kernel(PROLOGUE + """
        setp.ne.u32 %p1, %r1, 0;
        @%p1 bra $END;
        st.global.u32 [%rd2], %r1;
    $END:
        ret;""")
    out = np.zeros(128, np.uint32)
    launch = interp.Launch(k, 2, 64, (out,))
    together = {t.index: [len(w.pcs) for w in t.warps] for t in trace_blocks(launch, [0, 1])}
    alone = {b: [len(w.pcs) for w in trace_blocks(launch, [b])[0].warps] for b in (0, 1)}
    assert together == alone == {0: [12, 11], 1: [11, 11]}
    assert isa.run(k, 2, 64, (out,))["warp_instructions"] == 12 + 3 * 11


def test_runaway_loop_hits_instruction_budget():
    with pytest.raises(isa.KernelError, match="instruction budget exceeded"):
        run1("""
        $L:
            add.u32 %r2, %r1, 1;
            bra $L;""", n=32, max_instructions=5000)


def test_read_of_never_written_register():
    with pytest.raises(isa.KernelError, match=r"register %r40 is read before it was ever written"):
        run1("""
            add.u32 %r2, %r40, 1;
            ret;""")


def test_register_written_on_one_path_read_on_other_is_an_error():
    with pytest.raises(isa.KernelError, match=r"%r3 is read before"):
        run1("""
            setp.lt.u32 %p1, %r10, 5;
            @%p1 mov.u32 %r3, 1;
            add.u32 %r4, %r3, 1;
            ret;""")


# ---------------------------------------------------------------- launch checks
@pytest.fixture
def store_kernel():
    return kernel(PROLOGUE + "st.global.u32 [%rd2], %r1;\nret;", params=".param .u64 out, .param .u32 n")


@pytest.mark.parametrize("grid, block, args, shared, message", [
    (1, 1025, "ok", 0, "block.x = 1025 exceeds the maximum 1024"),
    (1, (32, 32, 2), "ok", 0, "2048 threads per block exceeds the maximum 1024"),
    (1, (32, 1, 65), "ok", 0, "block.z = 65 exceeds"),
    (0, 32, "ok", 0, "grid.x = 0"),
    ((1, 0), 32, "ok", 0, "grid.y = 0"),
    (1, 32, "missing", 0, "2 argument"),
    (1, 32, "array_for_u32", 0, "pass a scalar, not an array"),
    (1, 32, "float_for_u32", 0, "expected an integer"),
    (1, 32, "negative_u32", 0, "does not fit in .u32"),
    (1, 32, "string_ptr", 0, "expected an integer"),
    (1, 32, "ok", 300 * 1024, "exceed the limit"),
    (1, 32, "overlap", 0, "overlaps"),
    ("x", 32, "ok", 0, "grid must be an int or a tuple"),
])
def test_invalid_launches(store_kernel, grid, block, args, shared, message):
    out = np.zeros(64, np.uint32)
    n = 5
    arg = {"ok": (out, n), "missing": (out,), "array_for_u32": (out, out), "float_for_u32": (out, 2.5),
           "negative_u32": (out, -1), "string_ptr": ("out", n), "overlap": None}[args]
    if args == "overlap":
        k = kernel(PROLOGUE + "ret;", params=".param .u64 out, .param .u64 b")
        with pytest.raises(isa.KernelError, match=message):
            isa.run(k, grid, block, (out[:10], out[5:]))
        return
    with pytest.raises(isa.KernelError, match=message):
        isa.run(store_kernel, grid, block, arg, shared_bytes=shared)


def test_same_array_twice_is_one_allocation():
    k = kernel("""
        ld.param.u64 %rd1, [out];
        ld.param.u64 %rd4, [b];
        mov.u32 %r1, %tid.x;
        mul.wide.u32 %rd2, %r1, 4;
        add.s64 %rd3, %rd1, %rd2;
        add.s64 %rd5, %rd4, %rd2;
        ld.global.u32 %r2, [%rd3];
        add.u32 %r2, %r2, 1;
        st.global.u32 [%rd5], %r2;
        ret;""", params=".param .u64 out, .param .u64 b")
    a = np.arange(8, dtype=np.uint32)
    isa.run(k, 1, 8, (a, a))
    assert a.tolist() == list(range(1, 9))


def test_scalar_params_and_results_count():
    k = kernel(PROLOGUE + """
        ld.param.f32 %f1, [x];
        ld.param.s64 %rd9, [y];
        cvt.rn.f32.s64 %f2, %rd9;
        add.f32 %f3, %f1, %f2;
        st.global.f32 [%rd2], %f3;
        ret;""", params=".param .u64 out, .param .f32 x, .param .s64 y")
    out = np.zeros(40, np.float32)
    res = isa.run(k, 2, 20, (out, np.float32(1.5), -4))
    assert (out == -2.5).all()
    assert res["warp_instructions"] == 2 * 14 and res["blocks"] == 2


def test_clock_timer_and_sm_registers():
    k = kernel(PROLOGUE + """
        mov.u64 %rd10, %clock64;
        mov.u32 %r2, %clock;
        add.u32 %r3, %r2, 1;
        mov.u64 %rd11, %clock64;
        sub.s64 %rd12, %rd11, %rd10;
        cvt.u32.u64 %r4, %rd12;
        mov.u64 %rd13, %globaltimer;
        mov.u32 %r5, %smid;
        mov.u32 %r6, %nsmid;
        mov.u32 %r7, %lanemask_lt;
        popc.b32 %r8, %r7;
        mul.wide.u32 %rd14, %r1, 16;
        add.s64 %rd15, %rd1, %rd14;
        st.global.v4.u32 [%rd15], {%r4, %r5, %r6, %r8};
        ret;""")
    out = np.zeros((64, 4), np.uint32)
    isa.run(k, 2, 32, (out,))
    assert (out[:, 0] > 0).all()                       # the clock advances between the two reads
    assert (out[:, 1] == 0).all() and (out[:, 2] == 1).all()   # one simulated SM
    assert np.array_equal(out[:, 3], np.arange(64) % 32)       # %lanemask_lt has laneid bits set

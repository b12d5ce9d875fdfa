"""Device functions (``.func``) inlined where they are called (isa/inline.py), and what cannot be."""
import math

import numpy as np
import pytest

import isa
import smsim
from isa.inline import inline_calls
from smsim import cuda, numba_front
from tests.ptxutil import HEADER

#: a kernel calling a function that calls another: out[i] = twice(i) + 1 for i < 16, else -(i) via an early
#: return; the callee keeps a value in its local depot, returns through a predicated ret and a plain one
MODULE = HEADER + """
.func (.param .b32 func_retval0) add_one(.param .b32 add_one_param_0)
{
    .reg .b32 %r<3>;
    ld.param.b32 %r1, [add_one_param_0];
    add.s32 %r2, %r1, 1;
    st.param.b32 [func_retval0+0], %r2;
    ret;
}
.func (.param .b32 func_retval0) twice_plus(.param .b32 twice_plus_param_0)
{
    .local .align 4 .b8 __local_depot1[8];
    .reg .b64 %SPL;
    .reg .pred %p<2>;
    .reg .b32 %r<6>;
    mov.u64 %SPL, __local_depot1;
    ld.param.b32 %r1, [twice_plus_param_0];
    setp.ge.s32 %p1, %r1, 16;
    neg.s32 %r5, %r1;
    st.param.b32 [func_retval0+0], %r5;
    @%p1 ret;
    shl.b32 %r2, %r1, 1;
    st.local.b32 [%SPL+4], %r2;
    ld.local.b32 %r3, [%SPL+4];
    {
    .param .b32 param0;
    st.param.b32 [param0+0], %r3;
    .param .b32 retval0;
    call.uni (retval0), add_one, (param0);
    ld.param.b32 %r4, [retval0+0];
    }
    st.param.b32 [func_retval0+0], %r4;
$L__BB1_1:
    ret;
}
.visible .entry k(.param .u64 out)
{
    .reg .b32 %r<8>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [out];
    cvta.to.global.u64 %rd1, %rd1;
    mov.u32 %r1, %tid.x;
    { // callseq 0, 0
    .param .b32 param0;
    st.param.b32 [param0+0], %r1;
    .param .b32 retval0;
    call.uni (retval0),
    twice_plus,
    (
    param0
    );
    ld.param.b32 %r2, [retval0+0];
    } // callseq 0
    mul.wide.u32 %rd2, %r1, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r2;
    ret;
}
"""


def test_a_kernel_calling_functions_computes_what_the_calls_would():
    out = np.zeros(32, np.int32)
    smsim.launch(isa.parse(MODULE)["k"], 1, 32, (out,), timing=False)
    i = np.arange(32)
    assert out.tolist() == np.where(i >= 16, -i, 2 * i + 1).tolist()


def test_the_inlined_kernel_times_and_each_call_site_gets_its_own_names():
    text = inline_calls(MODULE)
    assert ".func" not in text and "call" not in text.replace("callseq", "")
    assert "__local_depot1_i2" in text and "%i2_r" in text and "%i2_i1_r" in text    # renamed for each call site
    out = np.zeros(32, np.int32)
    res = smsim.launch(isa.parse(MODULE)["k"], 1, 32, (out,), config="h200")
    assert res.metrics["gpu__time_duration.sum"] > 0
    assert out[5] == 11 and out[20] == -20


@pytest.mark.parametrize("body, message", [
    (".func r(.param .b32 r_param_0)\n{\n.reg .b32 %r<2>;\n{\n.param .b32 param0;\nst.param.b32 [param0+0], %r1;\n"
     "call.uni r, (param0);\n}\nret;\n}\n", "calls itself"),
    (".func g()\n{\nret;\n}\n", None),                                  # defined, never called: dropped
])
def test_functions_recursive_ones_rejected(body, message):
    kernel = ".visible .entry k(.param .u64 out)\n{\n.reg .b32 %r<2>;\n" + \
        ("{\n.param .b32 param0;\nst.param.b32 [param0+0], %r1;\ncall.uni r, (param0);\n}\n" if message else "") + \
        "ret;\n}\n"
    if message is None:
        assert "k" in isa.parse(HEADER + body + kernel).kernels
    else:
        with pytest.raises(isa.ParseError, match=message):
            isa.parse(HEADER + body + kernel)


def test_indirect_guarded_and_external_calls_are_clear_errors():
    head = HEADER + ".func g()\n{\nret;\n}\n.visible .entry k(.param .u64 out)\n{\n.reg .b64 %rd<2>;\n" \
        ".reg .pred %p<2>;\n"
    with pytest.raises(isa.ParseError, match="indirect call"):
        isa.parse(head + "call.uni %rd1, ();\nret;\n}\n")
    with pytest.raises(isa.ParseError, match="guard predicate"):
        isa.parse(head + "@%p1 call.uni g, ();\nret;\n}\n")
    with pytest.raises(isa.ParseError, match="vprintf"):
        isa.parse(head + "call.uni vprintf, ();\nret;\n}\n")


@cuda.jit
def _f64_math(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i, 0] = math.sin(x[i])
        out[i, 1] = math.cos(x[i])
        out[i, 2] = math.pow(math.fabs(x[i]), 0.7)


@pytest.mark.skipif(not numba_front.available(), reason="numba-cuda is not installed")
def test_numbas_float64_sin_cos_pow_run_through_its_out_of_line_slow_paths():
    """numba's NVVM leaves libdevice's float64 trig argument reduction (taken from 2**31 on) and its accurate
    pow as functions; smsim inlines them (timed on the SASS ptxas makes of the inlined kernel, where the
    tools are installed)."""
    x = np.concatenate([np.linspace(-3, 3, 64), np.geomspace(1e9, 1e300, 64)])
    out = np.zeros((x.size, 3))
    res = smsim.launch(_f64_math, 1, 128, (x, out), config="h200", compiler="numba")
    np.testing.assert_allclose(out, np.stack([np.sin(x), np.cos(x), np.abs(x) ** 0.7], 1), rtol=1e-15, atol=1e-15)
    assert res.metrics["gpu__time_duration.sum"] > 0


@cuda.jit
def _f64_local(x, idx, out):
    i = cuda.grid(1)
    if i < x.size:
        loc = cuda.local.array(4, np.float64)
        for k in range(4):
            loc[k] = x[i] * k
        out[i] = loc[idx[i]]


def test_a_float64_local_array_indexed_by_data_is_timed():
    """Local memory interleaved by lane in words of the access's width: a lane's float64 stays in one sector
    (8-byte local stores at 4-byte interleave crossed sectors and stopped the L2 model)."""
    x = np.linspace(0, 1, 256)
    idx = (np.arange(256) % 4).astype(np.int32)
    out = np.zeros(256)
    smsim.launch(_f64_local, 1, 256, (x, idx, out), config="h200")
    np.testing.assert_allclose(out, x * idx)

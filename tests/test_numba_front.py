"""compiler="numba": workload kernels compiled by numba-cuda's NVVM (on the CPU) and run by smsim.

Outputs must equal the references functionally and timed; numba's array ABI (meminfo, parent, nitems,
itemsize, data, shape, strides) and scalar parameters must be packed right; numba's PTX must survive
smsim's printer and ptxas; bad compiler names, a missing numba-cuda and kernels numba or smsim cannot take
are errors that say what to do.
"""
from __future__ import annotations

import importlib.util
import math
import os
import shutil
import subprocess
import sys
import types

import numpy as np
import pytest

import isa
import smsim
import workloads
from isa.printer import ptxas_text
from smsim import cuda, numba_front

pytestmark = pytest.mark.skipif(not numba_front.available(), reason="numba-cuda is not installed")

#: at least one case of every family with Python kernels
CASES = ["vector.saxpy", "coalescing.particles_aos4", "transpose.tiled_padded", "matmul.tiled16",
         "reduction.warp_shuffle", "reduction.grid_stride", "stencil.sobel_shared", "histogram.shared_atomics",
         "softmax.warp_shuffle", "microbench.chase_l1", "microbench.bank_stride2", "streams.grid_stride_w4",
         "streams.hist_bins16"]


@pytest.mark.parametrize("case_id", CASES)
def test_workload_case_functional(case_id: str) -> None:
    case = workloads.get(case_id)
    workloads.run_case(case, "test", compiler="numba")


@pytest.mark.parametrize("case_id", ["transpose.tiled_padded", "reduction.warp_shuffle", "histogram.shared_atomics"])
def test_workload_case_timed(case_id: str) -> None:
    case = workloads.get(case_id)
    _, res = workloads.run_case(case, "test", launch=smsim.launch, config="h200", compiler="numba")
    assert res.cycles > 0 and res.issued_instructions > 0


@pytest.mark.slow
def test_every_python_workload_case() -> None:
    for case in workloads.all_cases():
        if not isinstance(case.kernel, workloads.PtxKernel):
            workloads.run_case(case, "test", compiler="numba")


@cuda.jit
def _scale2d(out, x, k, bias):
    i, j = cuda.grid(2)
    if i < x.shape[0] and j < x.shape[1]:
        out[j, i] = x[i, j] * k + bias + x.shape[1]


@pytest.mark.parametrize("layout", ["C", "strided", "F"])
def test_2d_arrays_shape_and_strides(layout: str) -> None:
    base = np.arange(30 * 40, dtype=np.float32).reshape(30, 40)
    x = {"C": base[:, :20].copy(), "strided": base[:, ::2], "F": np.asfortranarray(base[:, :20])}[layout]
    out = np.zeros((20, 30), np.float32)
    smsim.launch(_scale2d, (2, 2), (16, 16), (out, x, np.float32(2), 1.5), timing=False, compiler="numba")
    np.testing.assert_array_equal(out, (x * 2 + 1.5 + 20).T)
    sig = numba_front.signature_of((out, x, np.float32(2), 1.5))
    assert [a.layout for a in sig[:2]] == ["C", "C" if layout == "C" else "A"]


@cuda.jit
def _scalars(out, a, b, c, d, e, f, g, h, u8):
    if cuda.grid(1) == 0:
        out[0] = a
        out[1] = b
        out[2] = c
        out[3] = d
        out[4] = e
        out[5] = f
        out[6] = 1.0 if g else 2.0
        out[7] = h
        out[8] = u8


def test_scalar_parameters_of_several_types() -> None:
    args = (np.int8(-3), np.uint16(65000), np.int32(-7), -(2 ** 40), 2.5, np.float32(1.25), True,
            np.uint64(2 ** 40 + 5), np.uint8(200))
    out = np.zeros(9, np.float64)
    k, flatten = numba_front.compile_kernel(_scalars, (out,) + args)
    assert [p.type for p in k.params[7:]] == ["u8", "u16", "u32", "u64", "f64", "f32", "u8", "u64", "u8"]
    flat = flatten((out,) + args)
    assert flat[:4] == (0, 0, 9, 8) and flat[4] is out and flat[5:7] == (9, 8)
    smsim.launch(_scalars, 1, 32, (out,) + args, timing=False, compiler="numba")
    np.testing.assert_array_equal(out, [-3, 65000, -7, -(2 ** 40), 2.5, 1.25, 1.0, 2 ** 40 + 5, 200])


def test_signature_types_python_numbers_as_numba_does() -> None:
    from numba import types as nt
    sig = numba_front.signature_of((np.zeros((2, 3), np.int16), 3, 2.0, False, np.float64(1)))
    assert sig == (nt.Array(nt.int16, 2, "C"), nt.int64, nt.float64, nt.boolean, nt.float64)


def test_compiled_kernel_is_cached_per_signature() -> None:
    out, x = np.zeros((4, 4), np.float32), np.zeros((4, 4), np.float32)
    k1, _ = numba_front.compile_kernel(_scale2d, (out, x, np.float32(1), 1.0))
    k2, _ = numba_front.compile_kernel(_scale2d, (out.copy(), x.copy(), np.float32(3), 2.0))
    k3, _ = numba_front.compile_kernel(_scale2d, (out, x, np.float64(1), 1.0))
    assert k1 is k2 and k3 is not k1
    assert smsim.compile(_scale2d, (out, x, np.float32(1), 1.0), compiler="numba") is k1
    assert k1.name == "_scale2d"


def test_bad_compiler_name() -> None:
    with pytest.raises(ValueError, match="'smsim', 'numba'"):
        smsim.launch(_scale2d, 1, 1, (), compiler="nvcc")
    with pytest.raises(ValueError, match="'smsim', 'numba'"):
        smsim.compile(_scale2d, (), compiler="llvm")


def test_missing_numba_cuda_says_how_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(numba_front, "available", lambda: False)
    with pytest.raises(ImportError, match=r"pip install 'smsim\[numba\]'"):
        smsim.launch(_scalars, 1, 1, (np.zeros(9),) + (0,) * 9, timing=False, compiler="numba")


@cuda.jit
def _uses_a_list(out):
    items = [1, 2, 3]
    out[0] = items.index(cuda.threadIdx.x)


@cuda.jit
def _f64_sin(out, x):
    i = cuda.grid(1)
    out[i] = math.sin(x[i])


def test_kernels_numba_or_smsim_cannot_take_name_the_kernel_and_problem() -> None:
    with pytest.raises(isa.errors.CompileError, match="numba cannot compile kernel _uses_a_list"):
        smsim.launch(_uses_a_list, 1, 1, (np.zeros(1, np.int64),), timing=False, compiler="numba")
    # numba's float64 sin calls libdevice's argument reduction, a .func: inlined (tests/test_inline.py)
    x, out = np.linspace(0, 1e12, 32), np.zeros(32)
    smsim.launch(_f64_sin, 1, 32, (out, x), timing=False, compiler="numba")
    np.testing.assert_allclose(out, np.sin(x), rtol=1e-12, atol=1e-15)


@cuda.jit
def _trig(out, x):
    i = cuda.grid(1)
    if i < x.size:
        out[i, 0] = math.sin(x[i])
        out[i, 1] = math.cos(x[i])
        out[i, 2] = math.exp(math.sin(x[i]))


def test_libdevice_float32_math_with_carry_chains() -> None:
    """Large arguments take libdevice's Payne-Hanek reduction: mad.lo.cc / madc.hi chains."""
    x = np.concatenate([np.linspace(-3, 3, 64), np.geomspace(1e5, 3e38, 64)]).astype(np.float32)
    out = np.zeros((x.size, 3), np.float32)
    k, _ = numba_front.compile_kernel(_trig, (out, x))
    assert any(ins.opcode == "madc" for ins in k.body)
    smsim.launch(_trig, 1, 128, (out, x), timing=False, compiler="numba")
    x64 = x.astype(np.float64)
    np.testing.assert_allclose(out, np.stack([np.sin(x64), np.cos(x64), np.exp(np.sin(x64))], 1), rtol=2e-6,
                               atol=2e-7)


CARRY_PTX = """
.version 8.0
.target sm_90
.address_size 64
.visible .entry carry(.param .u64 p_out, .param .u64 p_in)
{
    .reg .b32 %r<20>;
    .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [p_out];
    ld.param.u64 %rd2, [p_in];
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd3, %r1, 16;
    add.s64 %rd4, %rd2, %rd3;
    ld.global.v4.u32 {%r2, %r3, %r4, %r5}, [%rd4];
    add.cc.u32 %r6, %r2, %r4;
    addc.cc.u32 %r7, %r3, %r5;
    addc.u32 %r8, 0, 0;
    sub.cc.u32 %r9, %r2, %r4;
    subc.cc.u32 %r10, %r3, %r5;
    subc.u32 %r11, 0, 0;
    mad.lo.cc.u32 %r12, %r2, %r3, %r4;
    madc.hi.u32 %r13, %r2, %r3, %r5;
    mul.wide.u32 %rd5, %r1, 32;
    add.s64 %rd6, %rd1, %rd5;
    st.global.v4.u32 [%rd6], {%r6, %r7, %r8, %r9};
    st.global.v4.u32 [%rd6+16], {%r10, %r11, %r12, %r13};
}
"""


def test_carry_chain_semantics_match_multiword_arithmetic() -> None:
    rng = np.random.default_rng(1)
    words = rng.integers(0, 2 ** 32, (64, 4), dtype=np.uint64).astype(np.uint32)
    words[:8] = 0xFFFFFFFF
    out = np.zeros((64, 8), np.uint32)
    isa.run(isa.parse(CARRY_PTX)["carry"], 1, 64, (out, words))
    for (a0, a1, b0, b1), got in zip(words.astype(object), out.astype(object)):
        a, b, m = a0 | a1 << 32, b0 | b1 << 32, (1 << 96) - 1
        s, d = (a + b) & m, (a - b) & m
        prod = a0 * a1
        lo = (prod & 0xFFFFFFFF) + b0
        hi = (prod >> 32) + b1 + (lo >> 32)
        assert list(got[:3]) == [s & 0xFFFFFFFF, s >> 32 & 0xFFFFFFFF, s >> 64]
        assert [got[3], got[4], got[5]] == [d & 0xFFFFFFFF, d >> 32 & 0xFFFFFFFF, d >> 64 & 0xFFFFFFFF]
        assert [got[6], got[7]] == [lo & 0xFFFFFFFF, hi & 0xFFFFFFFF]


def _ptxas() -> str | None:
    found = os.environ.get("SMSIM_PTXAS") or shutil.which("ptxas")
    spec = importlib.util.find_spec("nvidia.cuda_nvcc") if importlib.util.find_spec("nvidia") else None
    if not found and spec is not None and spec.submodule_search_locations:
        path = os.path.join(list(spec.submodule_search_locations)[0], "bin", "ptxas")
        found = path if os.path.exists(path) else None
    return found


@pytest.mark.skipif(_ptxas() is None, reason="ptxas is not installed")
@pytest.mark.parametrize("case_id", ["transpose.tiled_padded", "softmax.warp_shuffle", "histogram.global_atomics"])
@pytest.mark.parametrize("index_lines", [False, True])
def test_ptxas_accepts_printed_numba_ptx(case_id: str, index_lines: bool, tmp_path) -> None:
    case = workloads.get(case_id)
    k, _ = numba_front.compile_kernel(case.kernel, case.setup("test", 0).args)
    src = tmp_path / "k.ptx"
    src.write_text(ptxas_text(k, index_lines=index_lines))
    run = subprocess.run([_ptxas(), "-arch=sm_90", str(src), "-o", str(tmp_path / "k.cubin")],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr


@cuda.jit
def _axpy_lto(out, x, a):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = a * x[i] + out[i]


def test_numba_code_is_link_time_optimized_and_reports_say_so() -> None:
    """With nvJitLink (installed by the test set-up) numba's kernel is LTO-IR linked as on a GPU: PTX for
    sm_90a (ptxas is asked for that target), and the report names the code it timed."""
    x = np.arange(64, dtype=np.float32)
    ptx = numba_front.compile_ptx(_axpy_lto, numba_front.signature_of((x, x, 2.0)))
    assert ".target sm_90a" in ptx and "_axpy_lto" in ptx
    from isa import sass
    if sass.available():
        assert "LDG.E" in sass.listing(ptx)          # assembled for sm_90a, not refused for sm_90
    res = smsim.launch(_axpy_lto, 1, 64, (np.zeros(64, np.float32), x, 2.0), config="h200", compiler="numba")
    assert res.kernel.origin == "numba-cuda's code, link-time optimized as on a GPU"
    from smsim.report import render
    stream = "SASS" if res.metrics["smsim.stream_sass"] else "PTX"
    assert f"timed          {stream} of numba-cuda's code, link-time optimized as on a GPU" in render(res)


@cuda.jit
def _axpy_plain(out, x, a):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = a * x[i] - out[i]


def test_without_nvjitlink_numba_code_is_compile_ptx_s_and_says_so(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("SMSIM_CACHE", str(tmp_path))       # the stand-in's PTX stays out of the real cache
    monkeypatch.setattr(numba_front, "_lto_ptx", lambda *a: None)
    x = np.arange(64, dtype=np.float32)
    out = np.ones(64, np.float32)
    res = smsim.launch(_axpy_plain, 1, 64, (out, x, 2.0), timing=False, compiler="numba")
    assert res.kernel.origin == "numba-cuda's code, not link-time optimized (no nvJitLink)"
    assert np.array_equal(out, 2.0 * x - 1.0)


_GAIN = 3.0


@cuda.jit
def _gain(out, x):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = x[i] * _GAIN


def _offset_kernel(k):
    @cuda.jit
    def add(out, x):
        i = cuda.grid(1)
        if i < x.size:
            out[i] = x[i] + k
    return add


class _Opaque:
    value = 1.0


_OPAQUE = _Opaque()


@cuda.jit
def _reads_opaque(out):
    out[0] = _OPAQUE.value


def test_numbas_ptx_is_cached_on_disk_per_kernel_and_signature(tmp_path, monkeypatch) -> None:
    """A kernel compiled once is read back from ``$SMSIM_CACHE/numba`` (as another process would) without
    numba-cuda; the same PTX, and the same outputs."""
    monkeypatch.setenv("SMSIM_CACHE", str(tmp_path))
    x = np.arange(100, dtype=np.float32)
    sig = numba_front.signature_of((np.zeros_like(x), x))
    first = numba_front._compile_cached(_gain, sig)
    assert len(list((tmp_path / "numba").glob("*.json"))) == 1
    calls = []
    monkeypatch.setattr(numba_front, "_compile", lambda *a: calls.append(a) or ("", ""))
    assert numba_front._compile_cached(_gain, sig) == first and calls == []
    # another signature is another entry: compiled (here by the stand-in)
    numba_front._compile_cached(_gain, numba_front.signature_of((np.zeros(3), np.zeros(3))))
    assert len(calls) == 1
    # a damaged entry is compiled again, not trusted
    for f in (tmp_path / "numba").glob("*.json"):
        f.write_text("{not json")
    numba_front._compile_cached(_gain, sig)
    assert len(calls) == 2


def test_the_cache_key_follows_the_globals_and_closures_a_kernel_reads(monkeypatch) -> None:
    """What the PTX depends on changes the key: a global constant the kernel reads, a closure's value; a
    value of a kind the key cannot vouch for (an object's attribute) leaves the kernel uncached."""
    before = numba_front._fingerprint(_gain.py_func)
    monkeypatch.setattr(sys.modules[__name__], "_GAIN", 4.0)
    assert numba_front._fingerprint(_gain.py_func) != before
    one, two, one_again = _offset_kernel(1.0), _offset_kernel(2.0), _offset_kernel(1.0)
    assert numba_front._fingerprint(one.py_func) != numba_front._fingerprint(two.py_func)
    assert numba_front._fingerprint(one.py_func) == numba_front._fingerprint(one_again.py_func)
    assert numba_front._fingerprint(_reads_opaque.py_func) is None


@cuda.jit
def _half_to_float(a, o):
    i = cuda.grid(1)
    if i < a.size:
        o[i] = np.float32(a[i]) * 2


@cuda.jit
def _float_to_half(a, o):
    i = cuda.grid(1)
    if i < a.size:
        o[i] = np.float16(a[i] * 2)


@cuda.jit
def _half_product(a, o):
    i = cuda.grid(1)
    if i < a.size:
        o[i] = a[i] * a[i]


def test_float16_arrays_convert_and_half_arithmetic_is_named() -> None:
    """float16 arrays read into float32 and float32 stored as float16 run; arithmetic on halves, which numba
    calls CUDA C++ operators for (linked, as a launch links them, from NVRTC's LTO-IR), reaches the
    interpreter as ``mul.f16``, which it does not run: an error that names it, not an unresolved call."""
    h = (np.arange(256) / 64).astype(np.float16)
    out = np.zeros(256, np.float32)
    smsim.launch(_half_to_float, 2, 128, (h, out), timing=False, compiler="numba")
    assert np.array_equal(out, h.astype(np.float32) * 2)
    x = np.linspace(0, 3, 256).astype(np.float32)
    half = np.zeros(256, np.float16)
    smsim.launch(_float_to_half, 2, 128, (x, half), timing=False, compiler="numba")
    assert np.array_equal(half, (x * 2).astype(np.float16))
    with pytest.raises(isa.errors.CompileError, match=r"mul\.f16.*not supported"):
        smsim.launch(_half_product, 2, 128, (h, np.zeros(256, np.float16)), timing=False, compiler="numba")


@cuda.jit
def _warps_of(out):
    i = cuda.grid(1)
    out[i] = i // cuda.warpsize * 100 + cuda.laneid


@pytest.mark.parametrize("compiler", ["numba", "smsim"])
def test_warpsize_is_ptxs_warp_sz_constant(compiler: str) -> None:
    """numba spells ``cuda.warpsize`` as PTX's ``WARP_SZ`` operand, which reads 32 (it was an unknown symbol)."""
    out = np.zeros(96, np.int64)
    smsim.launch(_warps_of, 1, 96, (out,), config="h200", compiler=compiler)
    assert np.array_equal(out, np.arange(96) // 32 * 100 + np.arange(96) % 32)


_CONSTS = types.ModuleType("_consts")
_CONSTS.SCALE = 2.0
_CONSTS.SHIFT = 1.0


@cuda.jit(device=True)
def _shifted(v):
    return v + _CONSTS.SHIFT


@cuda.jit
def _scaled_shifted(out, x):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = _shifted(x[i]) * _CONSTS.SCALE


def test_the_cache_key_follows_each_attribute_of_a_module_the_kernel_and_its_device_functions_read(monkeypatch):
    before = numba_front._fingerprint(_scaled_shifted.py_func)
    monkeypatch.setattr(_CONSTS, "SHIFT", 3.0)       # read by the device function only
    assert numba_front._fingerprint(_scaled_shifted.py_func) != before

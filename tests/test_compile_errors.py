"""Compile errors name file:line:col, show the source line with a caret and say what is supported; runtime
errors of compiled kernels name the Python source line."""
import math
import re

import numpy as np
import pytest

import smsim
from smsim import cuda

A = np.zeros(64, np.float32)
A2 = np.zeros((8, 8), np.float32)


def k_float_index(a):
    i = cuda.grid(1)
    a[i * 0.5] = 1


def k_negative_index(a):
    a[-1] = 1


def k_unknown_attr(a):
    a[0] = a.foo


def k_unknown_cuda(a):
    a[0] = cuda.warp_reduce(a[0])


def k_shared_dtype(a):
    s = cuda.shared.array(32, "float128")
    s[0] = a[0]


def k_shared_shape(a, n):
    s = cuda.shared.array(n, np.float32)
    s[0] = a[0]


def k_with(a):
    with open("x") as f:
        a[0] = f


def k_list(a):
    xs = [1, 2, 3]
    a[0] = xs[0]


def k_print(a):
    print(a[0])


def k_index_count(a):
    a[1] = 0


def k_return_value(a):
    return a[0]


def k_undefined(a):
    a[0] = undefined_name       # noqa: F821


def k_range_float(a):
    for i in range(0.5):
        a[0] = i


def k_slice(a):
    a[0:2] = 1


def k_f64_exp(a):
    a[0] = math.exp(np.float64(a[0]))


def k_float_atomic_max(a):
    cuda.atomic.max(a, 0, np.float32(1.0))


def k_int_pow(a, n):
    a[0] = n ** n


@cuda.jit(device=True)
def dev_recursive(x):
    return dev_recursive(x)


def k_recursion(a):
    a[0] = dev_recursive(a[0])


def k_float_bitand(a):
    a[0] = a[1] & 3


def k_loop_var_after(a, n):
    for k in range(n):
        a[k] = 0
    a[0] = k


CASES = [
    (k_loop_var_after, (A, 4), r"loop variable 'k' is not available after its loop", "a[0] = k", "inside the loop"),
    (k_float_index, (A,), r"array index must be an integer, got float64", "a[i * 0.5] = 1", "int("),
    (k_negative_index, (A,), r"negative index -1", "a[-1] = 1", "a[n - 1]"),
    (k_unknown_attr, (A,), r"unknown attribute 'foo' of an array", "a.foo", ".shape"),
    (k_unknown_cuda, (A,), r"cuda.warp_reduce is not supported", "cuda.warp_reduce", "shfl_sync"),
    (k_shared_dtype, (A,), r"not a supported dtype", "float128", "np.float32"),
    (k_shared_shape, (A, 4), r"array shapes must be constant", "cuda.shared.array(n", "module-level constant"),
    (k_with, (A,), r"With statements are not supported", "with open", "for ... in range"),
    (k_list, (A,), r"List expressions are not supported", "[1, 2, 3]", "array elements"),
    (k_print, (A,), r"calling print is not supported", "print(a[0])", "math functions"),
    (k_index_count, (A2,), r"1 index\(es\) for a 2-dimensional array", "a[1] = 0", "a[i, j]"),
    (k_return_value, (A,), r"a kernel cannot return a value", "return a[0]", "array argument"),
    (k_undefined, (A,), r"name 'undefined_name' is not defined", "undefined_name", ""),
    (k_range_float, (A,), r"range\(\) arguments must be integers", "range(0.5)", ""),
    (k_slice, (A,), r"slices are not supported", "a[0:2]", "index every dimension"),
    (k_f64_exp, (A,), r"math.exp on float64 is not supported", "math.exp", "float32"),
    (k_float_atomic_max, (A,), r"atomic.max on float32 is not supported by smsim's compiler",
     "cuda.atomic.max(a, 0", "integer array"),
    (k_int_pow, (A, 3), r"integer \*\* integer needs a constant exponent", "n ** n", "float operands"),
    (k_recursion, (A,), r"calls itself", "dev_recursive(x)", "no recursion"),
    (k_float_bitand, (A,), r"operator & needs integers", "a[1] & 3", ""),
]


@pytest.mark.parametrize("kernel, args, message, source, hint", CASES, ids=[c[0].__name__ for c in CASES])
def test_compile_error_names_place_and_alternative(kernel, args, message, source, hint):
    with pytest.raises(smsim.CompileError) as info:
        smsim.compile(kernel, args, compiler="smsim")
    e = info.value
    text = str(e)
    assert re.search(message, text), text
    assert e.file.endswith("test_compile_errors.py")
    assert e.line > 0 and e.col > 0
    assert source in e.source_line
    first, src_line, caret = text.splitlines()[:3]
    assert first.startswith(f"{e.file}:{e.line}:{e.col}: ")
    assert caret.index("^") == src_line.index(e.source_line) + e.col - 1   # caret under the column
    if hint:
        assert hint in e.hint and "supported instead:" in text


def test_error_column_points_at_the_offending_expression():
    with pytest.raises(smsim.CompileError) as info:
        smsim.compile(k_float_index, (A,), compiler="smsim")
    e = info.value
    assert e.source_line[e.col - 1:].startswith("i * 0.5")


def k_oob(a, n):
    i = cuda.grid(1)
    a[i + n] = 1.0


def test_runtime_error_names_the_python_line():
    with pytest.raises(smsim.KernelError) as info:
        smsim.launch(k_oob, 1, 32, (A, 1000), compiler="smsim")
    e = info.value
    line = k_oob.__code__.co_firstlineno + 2
    assert "out of bounds global access" in str(e)
    assert e.loc.line == line and e.loc.file.endswith("test_compile_errors.py")
    assert f"test_compile_errors.py:{line}" in str(e)


def test_launch_argument_errors_are_clear():
    with pytest.raises(smsim.KernelError, match=r"takes 2 argument\(s\) \(a, n\), got 1"):
        smsim.launch(k_oob, 1, 32, (A,), compiler="smsim")
    with pytest.raises(smsim.KernelError, match="not C-contiguous"):
        smsim.launch(k_oob, 1, 32, (A2.T, 1), compiler="smsim")
    with pytest.raises(smsim.KernelError, match="float16 array"):
        smsim.launch(k_oob, 1, 32, (A.astype(np.float16), 1), compiler="smsim")


def test_device_function_cannot_be_launched():
    with pytest.raises(smsim.CompileError, match="device function"):
        smsim.compile(dev_recursive, (1.0,), compiler="smsim")
    with pytest.raises(TypeError, match="device function"):
        dev_recursive[1, 1]
    with pytest.raises(TypeError, match="only inside a kernel"):
        dev_recursive(1.0)


def test_syntax_error_in_kernel_source(tmp_path):
    p = tmp_path / "bad.py"
    p.write_text("def k(a):\n    a[0] = 1\n")
    ns = {}
    exec(compile(p.read_text(), str(p), "exec"), ns)
    p.write_text("def k(a):\n    a[0] = = 1\n")            # source changed on disk after definition
    import linecache
    linecache.checkcache(str(p))
    with pytest.raises(smsim.CompileError, match="syntax error"):
        smsim.compile(ns["k"], (A,), compiler="smsim")

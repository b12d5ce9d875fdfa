"""The Python-kernel compiler: every language feature of the supported subset, checked by running the
kernel functionally against numpy, plus the code-quality properties the timing model relies on."""
import math

import numba
import numpy as np
import pytest
from numba import cuda as ncuda

import smsim
from smsim import cuda

N = 200
BLOCK = 64
GRID = (N + BLOCK - 1) // BLOCK
SCALE = 3
TILE = 8


def run(kernel, *args, grid=GRID, block=BLOCK, shared=0):
    return smsim.launch(kernel, grid, block, args, shared_bytes=shared)


def opcodes(kernel, *args):
    return [ins.opcode + "." + ".".join(ins.mods) for ins in smsim.compile(kernel, args).body]


def smsim_opcodes(kernel, *args):
    """As :func:`opcodes`, of smsim's own compiler whatever numba-cuda is installed."""
    return [ins.opcode + "." + ".".join(ins.mods) for ins in smsim.compile(kernel, args, compiler="smsim").body]


# ---------------------------------------------------------------- parameters, arithmetic, typing
@cuda.jit
def k_arith(out, a, b, n):
    i = cuda.grid(1)
    if i < n:
        x = a[i]
        y = b[i]
        out[i, 0] = x + y
        out[i, 1] = x - y
        out[i, 2] = x * y
        out[i, 3] = x // y
        out[i, 4] = x % y
        out[i, 5] = x ** 2
        out[i, 6] = (x & 0xF) | (y ^ 3)
        out[i, 7] = (x << 2) >> 1
        out[i, 8] = -x + abs(y) - SCALE
        out[i, 9] = min(x, y, 5) + max(x, y)
        out[i, 10] = ~x


def test_integer_operators_follow_python():
    a = np.arange(-100, 100, dtype=np.int64)
    b = np.array([(k % 7) - 3 or 5 for k in range(N)], dtype=np.int64)
    out = np.zeros((N, 11), np.int64)
    run(k_arith, out, a, b, N)
    want = np.stack([a + b, a - b, a * b, a // b, a % b, a ** 2, (a & 0xF) | (b ^ 3), (a << 2) >> 1,
                     -a + abs(b) - SCALE, np.minimum(np.minimum(a, b), 5) + np.maximum(a, b), ~a], 1)
    np.testing.assert_array_equal(out, want)


@cuda.jit
def k_float(out, a, b, n):
    i = cuda.grid(1)
    if i < n:
        x = a[i]
        y = b[i]
        out[i, 0] = x / y
        out[i, 1] = x // y
        out[i, 2] = x % y
        out[i, 3] = x ** np.float32(1.5)
        out[i, 4] = x * y + np.float32(1)
        out[i, 5] = np.float32(round(x))
        out[i, 6] = -x if x < y else y


def test_float_operators():
    rng = np.random.default_rng(1)
    a = rng.uniform(0.5, 9, N).astype(np.float32)
    b = rng.uniform(0.5, 3, N).astype(np.float32)
    out = np.zeros((N, 7), np.float32)
    run(k_float, out, a, b, N)
    want = np.stack([a / b, a // b, a % b, a ** np.float32(1.5), a * b + 1, np.round(a), np.where(a < b, -a, b)], 1)
    np.testing.assert_allclose(out, want, rtol=2e-6, atol=1e-6)


@cuda.jit
def k_math(out, a, n):
    i = cuda.grid(1)
    if i < n:
        x = a[i]
        out[i, 0] = math.sqrt(x)
        out[i, 1] = math.exp(x)
        out[i, 2] = math.log(x)
        out[i, 3] = math.log2(x)
        out[i, 4] = math.pow(np.float32(2.0), x)
        out[i, 5] = math.sin(x)
        out[i, 6] = math.cos(x)
        out[i, 7] = math.tan(x)
        out[i, 8] = math.tanh(x)
        out[i, 9] = math.pow(x, np.float32(0.5))
        out[i, 10] = math.fabs(-x)
        out[i, 11] = math.floor(x)
        out[i, 12] = math.ceil(x)
        out[i, 13] = math.isnan(x) + 2 * math.isinf(x * np.float32(math.inf))
        out[i, 14] = np.float32(math.pi) * x


def test_math_functions():
    a = np.linspace(0.1, 3, N).astype(np.float32)
    out = np.zeros((N, 15), np.float32)
    run(k_math, out, a, N)
    want = np.stack([np.sqrt(a), np.exp(a), np.log(a), np.log2(a), np.exp2(a), np.sin(a), np.cos(a), np.tan(a),
                     np.tanh(a), a ** 0.5, a, np.floor(a), np.ceil(a), np.full(N, 2.0), np.float32(np.pi) * a], 1)
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-6)


@pytest.mark.skipif(not hasattr(math, "exp2"), reason="math.exp2 is Python 3.11's (a kernel on 3.10 cannot name it)")
def test_math_exp2():
    @cuda.jit
    def k_exp2(out, a, n):
        i = cuda.grid(1)
        if i < n:
            out[i] = math.exp2(a[i])

    a = np.linspace(-3, 3, N).astype(np.float32)
    out = np.zeros(N, np.float32)
    run(k_exp2, out, a, N)
    np.testing.assert_allclose(out, np.exp2(a), rtol=1e-5, atol=1e-6)


@cuda.jit
def k_types(out, i32, u8, f64, flag):
    i = cuda.grid(1)
    if i < out.shape[0]:
        a = i32[i] + i32[i]                 # int32 + int32 -> int64 (numba)
        b = u8[i] * np.uint8(200)           # uint8 arithmetic -> uint64, no wrap at 8 bits
        c = np.int8(a)                      # explicit narrowing wraps
        d = f64[i] * 2                      # float64
        e = np.float32(d) + np.float32(0.25)
        out[i, 0] = a
        out[i, 1] = b
        out[i, 2] = c
        out[i, 3] = d
        out[i, 4] = e
        out[i, 5] = flag and i % 2 == 0
        out[i, 6] = int(f64[i] * 3.7)
        out[i, 7] = float(i32[i]) / 4


def test_types_casts_and_promotion():
    i32 = np.arange(N, dtype=np.int32) * 3
    u8 = (np.arange(N) % 256).astype(np.uint8)
    f64 = np.linspace(-5, 5, N)
    out = np.zeros((N, 8), np.float64)
    run(k_types, out, i32, u8, f64, True)
    a = i32.astype(np.int64) * 2
    want = np.stack([a, u8.astype(np.uint64) * 200, a.astype(np.int8), f64 * 2,
                     (f64 * 2).astype(np.float32) + np.float32(0.25), (np.arange(N) % 2 == 0),
                     np.trunc(f64 * 3.7), i32 / 4], 1)
    np.testing.assert_allclose(out, want, rtol=1e-7)


# ---------------------------------------------------------------- control flow
@cuda.jit
def k_control(out, n):
    i = cuda.grid(1)
    if i >= n:
        return
    s = 0
    for k in range(i % 5):                  # runtime bound
        s += k
    for k in range(20, 2, -4):              # negative step, unrolled
        s += k
    for _k in range(i % 3, 9, i % 4 + 1):   # runtime start and step
        s += 1
    j = 0
    while True:
        j += 1
        if j > 6:
            break
        if j % 3 == 0:
            continue
        s += 10
    if i % 4 == 0:
        s += 1
    elif i % 4 == 1:
        s += 2
    else:
        s -= 1
    if 0 < i % 10 < 5 and not i % 2 == 0 or i == 7:
        s *= 2
    out[i] = s if s > 50 else -s


def ref_control(i):
    s = sum(range(i % 5)) + sum(range(20, 2, -4)) + len(range(i % 3, 9, i % 4 + 1))
    j = 0
    while True:
        j += 1
        if j > 6:
            break
        if j % 3 == 0:
            continue
        s += 10
    s += 1 if i % 4 == 0 else 2 if i % 4 == 1 else -1
    if 0 < i % 10 < 5 and not i % 2 == 0 or i == 7:
        s *= 2
    return s if s > 50 else -s


def test_control_flow():
    out = np.zeros(N, np.int64)
    run(k_control, out, N)
    np.testing.assert_array_equal(out, [ref_control(i) for i in range(N)])


@cuda.jit
def k_short_circuit(out, a, n):
    i = cuda.grid(1)
    # a[i] is only read when i < n: the short circuit keeps the access in bounds
    if i < n and a[i] > 0:
        out[i] = 1
    t = i < n or a[0] > 100
    if i < n:
        out[i] += 10 * t


@cuda.jit
def k_negative_index(out, a, n):
    i = cuda.grid(1)
    if i < n:
        out[i] = a[i - 1] + a[i - n]             # numba wraps negative indices: a[-1] is the last element


def test_negative_runtime_indices_wrap_around_like_numba():
    a = np.arange(N, dtype=np.int64)
    out = np.zeros(N, np.int64)
    run(k_negative_index, out, a, N)
    np.testing.assert_array_equal(out, np.roll(a, 1) + a)


@cuda.jit
def k_guarded_index(out, a, n):
    i = cuda.grid(1)
    if 0 < i < n - 1:
        out[i] = a[i - 1] + a[i + 1]            # the guard says i >= 1: no wraparound code
    elif i < n:
        out[i] = a[i - 1]                       # i == 0 here too: a[-1] is the last element
    if i > 0 and i < n:
        j = i - 2                               # i == 1 makes it -1: wraps
        out[n + i] = a[j]


@cuda.jit
def k_range_from_one(out, a, n):
    if cuda.grid(1) == 0:
        for k in range(1, n):
            out[k] = a[k - 1] + a[k // 3] + a[k % 5]   # k >= 1: no wraparound, no floor correction


def test_guards_and_ranges_prove_indices_non_negative_as_llvm_does():
    a = np.arange(N, dtype=np.int64) + 1
    out = np.zeros(2 * N, np.int64)
    run(k_guarded_index, out, a, N)
    want = np.zeros(2 * N, np.int64)
    i = np.arange(N)
    want[:N] = np.where((i > 0) & (i < N - 1), a[i - 1] + a[(i + 1) % N], a[i - 1])
    want[N + 1:] = a[i[1:] - 2]
    np.testing.assert_array_equal(out, want)
    ops = smsim_opcodes(k_guarded_index, out, a, N)
    # none in the guarded out[i] = a[i - 1] + a[i + 1]; the elif's a[i - 1] and out[i], a[i - 2] and out[n + i]
    # wrap (cuda.grid's value may be negative as far as numba's LLVM knows: its index wraparound stays too)
    assert ops.count("shr.s64") == 4, ops
    out = np.zeros(N, np.int64)
    run(k_range_from_one, out, a, N)
    k = np.arange(1, N)
    np.testing.assert_array_equal(out[1:], a[k - 1] + a[k // 3] + a[k % 5])
    ops = smsim_opcodes(k_range_from_one, out, a, N)
    assert "shr.s64" not in ops and not any(o.startswith(("xor", "selp")) for o in ops), ops


@cuda.jit
def k_strided_pairs(out, a, n, first):
    i = cuda.grid(1) - first                    # -2 and -1 first: a[3 i + 2] and a[2 i + 1] wrap around
    if i < n - first:
        out[cuda.grid(1)] = a[3 * i] + a[3 * i + 2] + a[2 * i] + a[2 * i + 1]


def test_k_i_plus_c_wraps_as_k_i_does_and_folds_c_into_the_address():
    a = np.arange(3 * N, dtype=np.int64) * 7 + 1
    out = np.zeros(N, np.int64)
    run(k_strided_pairs, out, a, N, 2)
    i = np.arange(N) - 2
    np.testing.assert_array_equal(out, a[3 * i] + a[3 * i + 2] + a[2 * i] + a[2 * i + 1])
    k = smsim.compile(k_strided_pairs, (out, a, N, 2), compiler="smsim")
    ops = [ins.opcode + "." + ".".join(ins.mods) for ins in k.body]
    # one wraparound for 2 i and 2 i + 1 (2 i | 1: the sign LLVM sees is 2 i's), and one each for 3 i, 3 i + 2
    # and out[cuda.grid(1)]
    assert ops.count("shr.s64") == 4, ops
    loads = [ins for ins in k.body if ins.opcode == "ld" and "global" in ins.mods]
    assert sorted(ins.operands[1].offset for ins in loads) == [0, 0, 0, 8]


def test_short_circuit_protects_loads():
    a = np.array([(-1) ** k for k in range(N)], np.int32)
    out = np.zeros(N, np.int32)
    run(k_short_circuit, out, a, N, grid=GRID + 1)
    np.testing.assert_array_equal(out, (a > 0) + 10)


@cuda.jit(device=True)
def dev_clamp(x, lo, hi):
    if x < lo:
        return lo
    return min(x, hi)


@cuda.jit(device=True)
def dev_axpy(y, x, i, a):
    y[i] = a * x[i] + y[i]


@cuda.jit
def k_device(y, x, n):
    i = cuda.grid(1)
    if i < n:
        dev_axpy(y, x, i, dev_clamp(x[i], np.float32(0.25), np.float32(0.75)))


def test_device_functions_inline():
    x = np.linspace(0, 1, N).astype(np.float32)
    y = np.ones(N, np.float32)
    run(k_device, y, x, N)
    np.testing.assert_allclose(y, np.clip(x, 0.25, 0.75) * x + 1, rtol=1e-6)


# ---------------------------------------------------------------- arrays: global, shared, local, const
LUT = np.array([3, 1, 4, 1, 5, 9, 2, 6], np.int32)


@cuda.jit
def k_arrays(out, img, n):
    x, y = cuda.grid(2)
    h, w = img.shape[0], img.shape[1]
    tile = cuda.shared.array((TILE, TILE + 1), np.float32)
    loc = cuda.local.array(4, np.int32)
    lut = cuda.const.array_like(LUT)
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    if y < h and x < w:
        tile[ty, tx] = img[y, x]
    cuda.syncthreads()
    for k in range(4):
        loc[k] = lut[(tx + k) % 8]
    if y < h and x < w:
        out[y, x, 0] = tile[ty, tx] * 2 + loc[0] + loc[3]
        out[y, x, 1] = len(img) + img.size + img.ndim
        out[y, x, 2] = cuda.gridsize(2)[0]


def test_arrays_in_every_space():
    img = np.arange(24 * 20, dtype=np.float32).reshape(24, 20)
    out = np.zeros((24, 20, 3), np.float32)
    run(k_arrays, out, img, 0, grid=(3, 3), block=(TILE, TILE))
    tx = np.arange(20) % TILE
    want0 = img * 2 + LUT[tx % 8] + LUT[(tx + 3) % 8]
    np.testing.assert_array_equal(out[:, :, 0], want0)
    assert (out[:, :, 1] == 24 + 480 + 2).all()
    assert (out[:, :, 2] == 3 * TILE).all()


@cuda.jit
def k_dynamic_shared(out, a):
    buf = cuda.shared.array(0, np.float32)
    t = cuda.threadIdx.x
    buf[t] = a[t]
    cuda.syncthreads()
    out[t] = buf[cuda.blockDim.x - 1 - t]


def test_dynamic_shared_memory():
    a = np.arange(64, dtype=np.float32)
    out = np.zeros(64, np.float32)
    run(k_dynamic_shared, out, a, grid=1, block=64, shared=64 * 4)
    np.testing.assert_array_equal(out, a[::-1])


@cuda.jit
def k_aug(out, n):
    i = cuda.grid(1)
    if i < n:
        out[i] += 5
        out[i] *= 3
        out[i] -= i
        out[i] //= 2


def test_augmented_assignment_on_elements():
    out = np.arange(N, dtype=np.int64)
    run(k_aug, out, N)
    np.testing.assert_array_equal(out, ((np.arange(N) + 5) * 3 - np.arange(N)) // 2)


# ---------------------------------------------------------------- synchronization, atomics, warp primitives
@cuda.jit
def k_atomics(res, fres, cas, n):
    i = cuda.grid(1)
    if i < n:
        cuda.atomic.add(res, 0, 1)
        cuda.atomic.sub(res, 1, 2)
        cuda.atomic.max(res, 2, i)
        cuda.atomic.min(res, 3, i)
        cuda.atomic.and_(res, 4, ~(1 << (i % 8)))
        cuda.atomic.or_(res, 5, 1 << (i % 16))
        cuda.atomic.xor(res, 6, i)
        old = cuda.atomic.exch(res, 7, i)
        res[8 + i] = old >= 0
        cuda.atomic.add(fres, 0, np.float32(0.5))
        cuda.atomic.compare_and_swap(cas, 0, i + 1)
        cuda.atomic.cas(cas, 1, i, i + 1)


def test_atomics():
    res = np.zeros(N + 10, np.int64)
    res[3] = 1 << 40
    res[4] = -1
    fres = np.zeros(1, np.float32)
    cas = np.array([0, 5], np.int32)
    run(k_atomics, res, fres, cas, N)
    assert cas[0] == 1 and cas[1] == N           # thread i swaps i -> i + 1: a chain from 5 up to N
    assert res[0] == N and res[1] == -2 * N and res[2] == N - 1 and res[3] == 0
    assert res[4] == ~0xFF and res[5] == 0xFFFF and res[6] == np.bitwise_xor.reduce(np.arange(N))
    assert fres[0] == N / 2


@cuda.jit
def k_warp(out):
    t = cuda.threadIdx.x
    v = np.float32(t)
    s = v
    off = 16
    while off > 0:
        s += cuda.shfl_down_sync(0xFFFFFFFF, s, off)
        off //= 2
    out[t, 0] = s
    out[t, 1] = cuda.shfl_sync(0xFFFFFFFF, v, 3)
    out[t, 2] = cuda.shfl_up_sync(0xFFFFFFFF, v, 1)
    out[t, 3] = cuda.shfl_xor_sync(0xFFFFFFFF, v, 1)
    out[t, 4] = cuda.ballot_sync(0xFFFFFFFF, t % 2 == 0) == 0x55555555
    out[t, 5] = cuda.all_sync(0xFFFFFFFF, t < 32) + 2 * cuda.any_sync(0xFFFFFFFF, t == 5)
    out[t, 6] = cuda.activemask() == 0xFFFFFFFF
    out[t, 7] = cuda.laneid + cuda.warpsize
    out[t, 8] = cuda.syncthreads_count(t < 10) + cuda.syncthreads_and(t < 64) * 100 + \
        cuda.syncthreads_or(t == 3) * 1000
    cuda.syncwarp()
    cuda.threadfence()
    cuda.threadfence_block()
    w = cuda.shfl_xor_sync(0xFFFFFFFF, np.int64(t) << 33, 1)
    out[t, 9] = w >> 33


def test_warp_primitives_and_block_reductions():
    out = np.zeros((32, 10), np.float64)
    run(k_warp, out, grid=1, block=32)
    t = np.arange(32)
    assert out[0, 0] == t.sum()
    np.testing.assert_array_equal(out[:, 1], 3)
    np.testing.assert_array_equal(out[:, 2], np.maximum(t - 1, 0) + (t == 0) * 0)
    np.testing.assert_array_equal(out[:, 3], t ^ 1)
    assert (out[:, 4] == 1).all() and (out[:, 5] == 3).all() and (out[:, 6] == 1).all()
    np.testing.assert_array_equal(out[:, 7], t + 32)
    np.testing.assert_array_equal(out[:, 8], 10 + 100 + 1000)
    np.testing.assert_array_equal(out[:, 9], t ^ 1)


# ---------------------------------------------------------------- spellings: numba.cuda, numpy, plain functions
@ncuda.jit
def k_numba_spelling(out, a):
    i = ncuda.grid(1)
    if i < a.shape[0]:
        sh = ncuda.shared.array(64, numba.float32)
        sh[ncuda.threadIdx.x] = a[i]
        ncuda.syncthreads()
        out[i] = numba.float32(sh[ncuda.threadIdx.x]) * numba.int32(2) + cuda.float32(1)


def k_plain(out, a):
    i = cuda.grid(1)
    if i < a.shape[0]:
        out[i] = np.float64(a[i]) + np.int16(1)


def test_numba_and_numpy_spellings():
    a = np.arange(64, dtype=np.float32)
    out = np.zeros(64, np.float32)
    run(k_numba_spelling, out, a, grid=1, block=64)
    np.testing.assert_array_equal(out, a * 2 + 1)
    out2 = np.zeros(64, np.float64)
    run(k_plain, out2, a, grid=1, block=64)
    np.testing.assert_array_equal(out2, a + 1)


def test_launch_syntax_and_cache():
    a = np.arange(64, dtype=np.float32)
    out = np.zeros(64, np.float64)
    k = cuda.jit(k_plain)
    k[1, 64](out, a)
    np.testing.assert_array_equal(out, a + 1)
    assert len(k.compiled) == 1
    k[1, 64](out, a.astype(np.float64))
    assert len(k.compiled) == 2                         # one compilation per argument-type signature
    k[1, 64](out, a)
    assert len(k.compiled) == 2


# ---------------------------------------------------------------- code quality
@cuda.jit
def k_cse(out, a, n):
    i = cuda.grid(1)
    if i < n:
        out[i] = a[i] * a[i] + a[i]        # one load of a[i]
        out[i + 1] = a[i]                   # a[i] again: a store since, so loaded again


def test_common_subexpressions_and_redundant_loads():
    ops = opcodes(k_cse, np.zeros(N + 1, np.float32), np.zeros(N, np.float32), N)
    assert ops.count("ld.global.f32") == 2
    assert ops.count("st.global.f32") == 2
    assert ops.count("mov.u32") == 3                    # tid, ntid, ctaid read once each


@cuda.jit
def k_pow2(out, a, n):
    i = cuda.grid(1)
    if i < n:
        out[i] = a[i // 8] * 4 + a[i % 16]


@cuda.jit
def k_pred(out, n):
    i = cuda.grid(1)
    if i == n:
        out[0] = 7
    if i == n + 1:                  # at the kernel's end: a branch to the exit (ptxas's predicated EXIT)
        out[1] = 8


def test_strength_reduction():
    ops = opcodes(k_pow2, np.zeros(N, np.int64), np.zeros(N, np.int64), N)
    assert not any(o.startswith(("div", "rem", "mul.lo")) for o in ops), ops
    assert "shr.s64" in ops and "and.b64" in ops


def test_short_conditional_is_predicated():
    k = smsim.compile(k_pred, (np.zeros(N, np.int64), N), compiler="smsim")
    stores = [ins for ins in k.body if ins.opcode == "st"]
    assert [ins.guard is not None for ins in stores] == [True, False]
    assert [ins.opcode for ins in k.body].count("bra") == 1
    out = np.zeros(2, np.int64)
    run(k_pred, out, GRID * BLOCK - 1)             # no thread i == n + 1
    assert out.tolist() == [7, 0]
    run(k_pred, out, 5)
    assert out.tolist() == [7, 8]


@cuda.jit
def k_shared_addr(out):
    s = cuda.shared.array(128, np.float32)
    t = cuda.threadIdx.x
    s[t] = np.float32(t)
    cuda.syncthreads()
    out[t] = s[127 - t]


def test_shared_addresses_are_32_bit_and_offsets_fold():
    k = smsim.compile(k_shared_addr, (np.zeros(128, np.float32),), compiler="smsim")
    shared = [ins for ins in k.body if ins.opcode in ("ld", "st") and "shared" in ins.mods]
    assert shared and all(ins.operands[0 if ins.opcode == "st" else 1].base.name.startswith("%r") for ins in shared)
    assert k.registers_per_thread() <= 12


@cuda.jit
def k_unroll(out, a):
    t = cuda.threadIdx.x
    acc = np.float32(0)
    for k in range(8):
        acc += a[t, k]                      # t is unsigned and k constant: no wraparound code
    out[t] = acc


def test_constant_loops_unroll_into_address_offsets():
    k = smsim.compile(k_unroll, (np.zeros(32, np.float32), np.zeros((32, 8), np.float32)))
    loads = [ins for ins in k.body if ins.opcode == "ld" and "global" in ins.mods]
    assert len(loads) == 8 and not any(ins.opcode == "bra" for ins in k.body)
    assert sorted(ins.operands[1].offset for ins in loads) == [0, 4, 8, 12, 16, 20, 24, 28]


def test_text_is_annotated_with_python_lines():
    text = smsim.compile(k_pow2, (np.zeros(N, np.int64), np.zeros(N, np.int64), N)).to_text()
    assert "test_compiler.py" in text
    line = k_pow2.py_func.__code__.co_firstlineno + 4
    assert f"test_compiler.py:{line}" in text


@pytest.mark.parametrize("kernel", [k_arith, k_control, k_warp])
def test_registers_reported(kernel):
    sig = {k_arith: (np.zeros((N, 11), np.int64), np.zeros(N, np.int64), np.zeros(N, np.int64), N),
           k_control: (np.zeros(N, np.int64), N), k_warp: (np.zeros((32, 10)),)}[kernel]
    r = smsim.compile(kernel, sig).registers_per_thread()
    assert 4 <= r <= 64

"""End-to-end tests of the functional interpreter on PTX that nvcc produced from CUDA C.

The kernels live in ``tests/kernels/*.cu``; the checked-in ``*.ptx`` next to them were made by
``tests/kernels/build.sh`` (``nvcc -ptx -arch=sm_90 -lineinfo -O3``) and are what these tests read: CI does
not run nvcc. Every test loads a module with :func:`isa.parse`, finds a kernel by a substring of its
(mangled) name, runs it with :func:`isa.run` on seeded random inputs and compares with a numpy reference.

Comparisons are exact wherever the kernel's order of evaluation is fixed (integer results, float adds in a
fixed order, correctly rounded ``sqrt``/``div``/``fma`` - the reference emulates the rounding, including
nvcc's contraction of ``a * b + c`` into ``fma.rn.f32``). Tolerances appear only where the result depends
on the order of atomics or on the precision of ``.approx`` instructions; each one says why.
"""
from __future__ import annotations

import functools
import re
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

import isa

KDIR = Path(__file__).parent / "kernels"

INT_MIN = -(2 ** 31)
INT_MAX = 2 ** 31 - 1


# ---------------------------------------------------------------- helpers
@functools.lru_cache(maxsize=None)
def module(name: str):
    return isa.parse((KDIR / f"{name}.ptx").read_text())


def kernel(file: str, part: str):
    return module(file).find(part)


def cdiv(a: int, b: int) -> int:
    return -(-a // b)


def launch(file, part, grid, block, args, **kw):
    isa.run(kernel(file, part), grid, block, args, **kw)


def fma_f32(a, b, c):
    """Correctly rounded float32 fma(a, b, c), elementwise.

    a*b is exact in float64 (24+24 bits); a*b + c is computed in float64 with its rounding error (TwoSum).
    Rounding that float64 sum to float32 is right except when it lies exactly on a float32 midpoint while
    the exact sum is off it: then the error term decides the direction.
    """
    a, b, c = (np.asarray(v, dtype=np.float32) for v in np.broadcast_arrays(a, b, c))
    p = a.astype(np.float64) * b.astype(np.float64)
    c64 = c.astype(np.float64)
    s = p + c64
    bb = s - p
    e = (p - (s - bb)) + (c64 - bb)
    r = s.astype(np.float32)
    r64 = r.astype(np.float64)
    other = np.nextafter(r, np.where(s > r64, np.float32(np.inf), np.float32(-np.inf))).astype(np.float32)
    mid = (r64 + other.astype(np.float64)) / 2
    fix = (s != r64) & (s == mid) & (e != 0)
    # on a midpoint, round towards the side the exact value lies on
    lo = np.minimum(r64, other.astype(np.float64))
    hi = np.maximum(r64, other.astype(np.float64))
    pick = np.where(e > 0, hi, lo).astype(np.float32)
    return np.where(fix, pick, r)


def fma_f64(a, b, c):
    """Correctly rounded float64 fma via exact rationals (int / int division rounds correctly)."""
    out = np.empty(len(a), dtype=np.float64)
    for k, (x, y, z) in enumerate(zip(a.tolist(), b.tolist(), c.tolist())):
        out[k] = float(Fraction(x) * Fraction(y) + Fraction(z))
    return out


def rand_f32(rng, n, lo=-10.0, hi=10.0):
    return rng.uniform(lo, hi, n).astype(np.float32)


def rand_i32(rng, n, lo=INT_MIN, hi=INT_MAX):
    return rng.integers(lo, hi, n, endpoint=True, dtype=np.int64).astype(np.int32)


def check_chain(init, old, vals, final, op):
    """All atomics on one address form a chain: op(old_k, v_k) is the next old (or the final value).
    So the multiset {init} + {op(old, v)} equals the multiset {old} + {final}."""
    new = op(old, vals)
    lhs = np.sort(np.concatenate([np.asarray([init], dtype=old.dtype), np.asarray(new, dtype=old.dtype)]))
    rhs = np.sort(np.concatenate([old, np.asarray([final], dtype=old.dtype)]))
    np.testing.assert_array_equal(lhs, rhs)


# ================================================================ basic.cu
def test_vec_add():
    rng = np.random.default_rng(1)
    n = 5000
    a, b = rand_f32(rng, n), rand_f32(rng, n)
    c = np.zeros(n, np.float32)
    launch("basic", "vec_add", cdiv(n, 256), 256, [a, b, c, n])
    np.testing.assert_array_equal(c, a + b)


def test_saxpy_fma():
    rng = np.random.default_rng(2)
    n = 4100
    alpha = np.float32(2.7182817)
    x, y = rand_f32(rng, n), rand_f32(rng, n)
    y0 = y.copy()
    launch("basic", "saxpy", cdiv(n, 128), 128, [n, float(alpha), x, y])
    # nvcc contracts a * x + y into fma.rn.f32: one rounding
    np.testing.assert_array_equal(y, fma_f32(alpha, x, y0))


def test_copy_stride():
    rng = np.random.default_rng(3)
    n, stride = 3000, 3
    src = rand_f32(rng, n * stride)
    out = np.zeros(n, np.float32)
    launch("basic", "copy_stride", cdiv(n, 128), 128, [out, src, n, stride])
    np.testing.assert_array_equal(out, src[::stride])


def test_copy_offset():
    rng = np.random.default_rng(4)
    n, off = 4000, 17
    src = rand_f32(rng, n + off)
    out = np.zeros(n, np.float32)
    launch("basic", "copy_offset", cdiv(n, 256), 256, [out, src, n, off])
    np.testing.assert_array_equal(out, src[off:])


def test_grid_stride_loop():
    rng = np.random.default_rng(5)
    n = 10000
    src = rand_i32(rng, n, -10 ** 6, 10 ** 6)
    out = np.zeros(n, np.int32)
    launch("basic", "grid_stride", 8, 128, [out, src, n])       # 1024 threads for 10000 elements
    np.testing.assert_array_equal(out, (3 * src.astype(np.int64) - np.arange(n)).astype(np.int32))


# ================================================================ transpose.cu
ROWS, COLS = 70, 100   # not multiples of 32: exercises the bounds checks


@pytest.mark.parametrize("part,block", [("transpose_naive", (16, 16)),
                                        ("transpose_tiled32", (32, 32)),
                                        ("transpose_padded", (32, 8))])
def test_transpose(part, block):
    rng = np.random.default_rng(6)
    a = rand_f32(rng, ROWS * COLS)
    out = np.full(ROWS * COLS, -1.0, np.float32)
    if part == "transpose_naive":
        grid = (cdiv(COLS, block[0]), cdiv(ROWS, block[1]))
    else:
        grid = (cdiv(COLS, 32), cdiv(ROWS, 32))
    launch("transpose", part, grid, block, [out, a, ROWS, COLS])
    np.testing.assert_array_equal(out.reshape(COLS, ROWS), a.reshape(ROWS, COLS).T)


# ================================================================ reduce.cu
def _block_partials(x, n, block, tree):
    grid = cdiv(n, block)
    sd = np.zeros(grid * block, np.float32)
    sd[:n] = x
    sd = sd.reshape(grid, block)
    if tree == "interleaved":
        s = 1
        while s < block:
            sd[:, 0::2 * s] += sd[:, s::2 * s]
            s *= 2
    else:
        s = block // 2
        while s > 0:
            sd[:, :s] += sd[:, s:2 * s]
            s //= 2
    return sd[:, 0].copy()


@pytest.mark.parametrize("tree", ["interleaved", "sequential"])
def test_reduce_shared(tree):
    rng = np.random.default_rng(7)
    n, block = 5000, 256
    x = rand_f32(rng, n, -1, 1)
    out = np.zeros(cdiv(n, block), np.float32)
    launch("reduce", f"reduce_{tree}", len(out), block, [out, x, n])
    # the tree order is fixed, so the float32 emulation of the same tree is exact
    np.testing.assert_array_equal(out, _block_partials(x, n, block, tree))


def test_reduce_warp_shuffle():
    rng = np.random.default_rng(8)
    n, block = 5000, 256
    grid = cdiv(n, block)
    x = rand_f32(rng, n, -1, 1)
    total = np.zeros(1, np.float32)
    nwarps = grid * block // 32
    warp_sums = np.full(nwarps, np.nan, np.float32)
    launch("reduce", "reduce_warp_shuffle", grid, block, [total, warp_sums, x, n])
    v = np.zeros(grid * block, np.float32)
    v[:n] = x
    w = v.reshape(nwarps, 32)
    for off in (16, 8, 4, 2, 1):
        # shfl.down: lanes whose source lane is >= 32 get their own value
        src = np.concatenate([w[:, off:], w[:, 32 - off:]], axis=1)
        w = w + src
    ref_ws = w[:, 0]
    np.testing.assert_array_equal(warp_sums, ref_ws)        # the shuffle tree order is fixed: exact
    # The per-warp sums are added to *total by float atomics in an order the schedule decides.
    # Recursive summation of m terms in any order is within (m-1) * u * sum|terms| (u = 2^-24) of the
    # exact sum, so that is the tolerance against the exact (float64, then exactly representable) sum.
    exact = float(np.sum(ref_ws.astype(np.float64)))
    bound = (nwarps - 1) * 2.0 ** -24 * float(np.sum(np.abs(ref_ws.astype(np.float64))))
    assert abs(float(total[0]) - exact) <= bound + 2.0 ** -24 * abs(exact)


# ================================================================ stencil.cu
def test_stencil1d():
    rng = np.random.default_rng(9)
    n, R = 5000, 3
    x = rand_f32(rng, n)
    out = np.zeros(n, np.float32)
    launch("stencil", "stencil1d", cdiv(n, 128), 128, [out, x, n])
    pad = np.concatenate([np.zeros(R, np.float32), x, np.zeros(R, np.float32)])
    ref = np.zeros(n, np.float32)
    for k in range(-R, R + 1):           # same order as the kernel: result += temp[l + k]
        ref = ref + pad[R + k:R + k + n]
    np.testing.assert_array_equal(out, ref)


def test_stencil2d():
    rng = np.random.default_rng(10)
    w, h = 100, 70
    c = np.float32(-3.7)
    x = rand_f32(rng, w * h)
    out = np.zeros(w * h, np.float32)
    launch("stencil", "stencil2d", (cdiv(w, 16), cdiv(h, 8)), (16, 8), [out, x, w, h, float(c)])
    a = x.reshape(h, w)
    ref = a.copy()
    nb = ((a[:-2, 1:-1] + a[2:, 1:-1]) + a[1:-1, :-2]) + a[1:-1, 2:]
    ref[1:-1, 1:-1] = fma_f32(c, a[1:-1, 1:-1], nb)          # c * in + nb contracted to fma
    np.testing.assert_array_equal(out.reshape(h, w), ref)


# ================================================================ histogram.cu
NBINS = 64


def test_hist_shared():
    rng = np.random.default_rng(11)
    n = 10000
    data = rng.integers(0, 2 ** 32, n, dtype=np.uint64).astype(np.uint32)
    hist = np.zeros(NBINS, np.uint32)
    launch("histogram", "hist_shared", 16, 256, [hist, data, n])
    np.testing.assert_array_equal(hist, np.bincount(data % NBINS, minlength=NBINS))


def test_hist_global():
    rng = np.random.default_rng(12)
    n = 10000
    data = (rng.normal(32, 10, n).clip(0, 1000)).astype(np.uint32)   # skewed: many collisions per warp
    hist = np.zeros(NBINS, np.uint32)
    launch("histogram", "hist_global", cdiv(n, 256), 256, [hist, data, n])
    np.testing.assert_array_equal(hist, np.bincount(data % NBINS, minlength=NBINS))


# ================================================================ atomics.cu
def test_atomic_reduce_ops():
    rng = np.random.default_rng(13)
    n = 3000
    common = np.int64(rng.integers(0, 2 ** 32)) & 0x7ffffff0
    x = (rand_i32(rng, n).astype(np.int64) | common).astype(np.int32)
    x[::7] = rand_i32(rng, len(x[::7]), -100, 100)
    res = np.array([INT_MIN, INT_MAX], np.int32)
    ures = np.array([0, 0xffffffff, 0xffffffff, 0, 0], np.uint32)
    launch("atomics", "atomic_reduce_ops", cdiv(n, 256), 256, [res, ures, x, n])
    u = x.view(np.uint32)
    np.testing.assert_array_equal(res, [x.max(), x.min()])
    np.testing.assert_array_equal(ures, [u.max(), u.min(),
                                         np.bitwise_and.reduce(u | np.uint32(0x80000001)),
                                         np.bitwise_or.reduce(u & np.uint32(0x0f0f0f0f)),
                                         np.bitwise_xor.reduce(u)])


def test_atomic_fetch_ops():
    rng = np.random.default_rng(14)
    n = 2000
    x = rand_i32(rng, n)
    x[::5] = rand_i32(rng, len(x[::5]), -50, 50)
    init = np.array([INT_MIN, INT_MAX, -1, 0, 0x1234], np.int32)
    res = init.copy()
    old = np.zeros(5 * n, np.int32)
    launch("atomics", "atomic_fetch_ops", cdiv(n, 128), 128, [res, old, x, n])
    old = old.reshape(n, 5)
    ops = [np.maximum, np.minimum,
           lambda o, v: o & (v | np.int32(0x40000001)),
           lambda o, v: o | (v & np.int32(0x00ff00ff)),
           lambda o, v: o ^ v]
    final = init.copy()
    for k, op in enumerate(ops):
        f = init[k]
        for v in ([x.max()] if k == 0 else [x.min()] if k == 1 else x):
            f = op(np.int32(f), np.int32(v))
        final[k] = f
    np.testing.assert_array_equal(res, final)
    for k, op in enumerate(ops):
        check_chain(init[k], old[:, k], x, res[k], op)


def test_atomic_exch():
    n, nslots = 1000, 7
    init = -np.arange(1, nslots + 1, dtype=np.int32)
    slot = init.copy()
    old = np.zeros(n, np.int32)
    launch("atomics", "atomic_exch_ids", cdiv(n, 128), 128, [slot, old, n, nslots])
    ids = np.arange(n)
    for k in range(nslots):
        sel = ids % nslots == k
        check_chain(init[k], old[sel], (ids[sel] + 1).astype(np.int32), slot[k], lambda o, v: v)


def test_atomic_cas_claim():
    n, nslots = 1000, 13
    slot = np.zeros(nslots, np.int32)
    won = np.full(n, -1, np.int32)
    launch("atomics", "atomic_cas_claim", cdiv(n, 256), 256, [slot, won, n, nslots])
    ids = np.arange(n)
    assert set(np.unique(won)) <= {0, 1}
    for k in range(nslots):
        winners = ids[(ids % nslots == k) & (won == 1)]
        assert len(winners) == 1, (k, winners)
        assert slot[k] == winners[0] + 1


def test_atomic_cas_loop():
    rng = np.random.default_rng(15)
    n, ncnt = 512, 5
    init = rand_i32(rng, ncnt, -1000, 1000)
    counter = init.copy()
    launch("atomics", "atomic_cas_loop_add", cdiv(n, 128), 128, [counter, n, ncnt])
    ids = np.arange(n)
    ref = init + np.bincount(ids % ncnt, weights=(ids & 7) + 1, minlength=ncnt).astype(np.int32)
    np.testing.assert_array_equal(counter, ref)


def test_atomic_inc_dec():
    n, limit = 1000, 37
    init = np.array([5, 20], np.uint32)
    ctr = init.copy()
    old_inc = np.zeros(n, np.uint32)
    old_dec = np.zeros(n, np.uint32)
    launch("atomics", "atomic_inc_dec", cdiv(n, 128), 128, [ctr, old_inc, old_dec, n, limit])
    lim = np.uint32(limit)

    def inc(o, v=None):
        return np.where(o >= lim, np.uint32(0), o + np.uint32(1)).astype(np.uint32)

    def dec(o, v=None):
        return np.where((o == 0) | (o > lim), lim, o - np.uint32(1)).astype(np.uint32)

    fi, fd = init[0], init[1]
    for _ in range(n):
        fi, fd = inc(fi), dec(fd)
    np.testing.assert_array_equal(ctr, [fi, fd])
    check_chain(init[0], old_inc, old_inc, ctr[0], inc)
    check_chain(init[1], old_dec, old_dec, ctr[1], dec)


def test_atomic_compact():
    rng = np.random.default_rng(16)
    n, thr = 5000, 0
    x = rand_i32(rng, n, -1000, 1000)
    out = np.zeros(n, np.int32)
    count = np.zeros(1, np.int32)
    launch("atomics", "atomic_compact", cdiv(n, 256), 256, [out, count, x, n, thr])
    keep = x[x > thr]
    assert count[0] == len(keep)
    np.testing.assert_array_equal(np.sort(out[:count[0]]), np.sort(keep))   # order is the schedule's


# ================================================================ warp.cu
def test_warp_vote_uniform():
    rng = np.random.default_rng(17)
    nthreads, thr = 256, 90
    v = rand_i32(rng, nthreads, -50, 50)
    w = v.reshape(-1, 32)
    for k in range(w.shape[0]):
        if k & 1:
            w[k, (5 * k) % 32] = 95          # any(v > thr) true for this warp
        if k & 2:
            w[k, (7 * k + 3) % 32] = -95     # all(v > -thr) false for this warp
    out = np.zeros(4 * nthreads, np.uint32)
    launch("warp", "warp_vote_uniform", 2, 128, [out, v, thr])
    out = out.reshape(-1, 32, 4)
    lanes = np.arange(32, dtype=np.uint64)
    ballot = ((w & 1).astype(np.uint64) << lanes).sum(axis=1).astype(np.uint32)
    np.testing.assert_array_equal(out[:, :, 0], np.repeat(ballot[:, None], 32, 1))
    np.testing.assert_array_equal(out[:, :, 1], np.repeat((w > thr).any(1)[:, None], 32, 1).astype(np.uint32))
    np.testing.assert_array_equal(out[:, :, 2], np.repeat((w > -thr).all(1)[:, None], 32, 1).astype(np.uint32))
    np.testing.assert_array_equal(out[:, :, 3], np.uint32(0xffffffff))


def test_warp_vote_divergent():
    rng = np.random.default_rng(18)
    nthreads = 128
    v = rand_i32(rng, nthreads, -20, 20)
    out = np.zeros(2 * nthreads, np.uint32)
    launch("warp", "warp_vote_divergent", 1, nthreads, [out, v])
    out = out.reshape(-1, 32, 2)
    w = v.reshape(-1, 32)
    lanes = np.arange(32)
    odd = (lanes & 1) == 1
    bits = np.uint64(1) << lanes.astype(np.uint64)
    b_odd = ((w > 0) & odd).astype(np.uint64) @ bits          # ballot over odd lanes of v > 0
    b_even = ((w < 0) & ~odd).astype(np.uint64) @ bits        # ballot over even lanes of v < 0
    for k in range(w.shape[0]):
        np.testing.assert_array_equal(out[k, odd, 0], np.uint32(0xaaaaaaaa))
        np.testing.assert_array_equal(out[k, ~odd, 0], np.uint32(0x55555555))
        np.testing.assert_array_equal(out[k, odd, 1], np.uint32(b_odd[k]))
        np.testing.assert_array_equal(out[k, ~odd, 1], np.uint32(b_even[k]))


def test_warp_shfl_width():
    rng = np.random.default_rng(19)
    nthreads, src, delta, mask = 128, 11, 3, 5
    v = rand_i32(rng, nthreads)
    out = np.zeros(4 * nthreads, np.int32)
    launch("warp", "warp_shfl_width", 2, 64, [out, v, src, delta, mask])
    out = out.reshape(-1, 32, 4)
    w = v.reshape(-1, 32)
    lane = np.arange(32)

    # CUDA semantics with width w: lanes form groups of w; sources outside the group give the own value
    def pick(srcl):
        return w[:, srcl]

    idx = (lane // 8) * 8 + src % 8
    up = np.where(lane % 16 >= delta, lane - delta, lane)
    down = np.where(lane % 4 + delta < 4, lane + delta, lane)
    bfly = lane ^ mask
    bfly = np.where(bfly // 16 <= lane // 16, bfly, lane)
    np.testing.assert_array_equal(out[:, :, 0], pick(idx))
    np.testing.assert_array_equal(out[:, :, 1], pick(up))
    np.testing.assert_array_equal(out[:, :, 2], pick(down))
    np.testing.assert_array_equal(out[:, :, 3], pick(bfly))


def test_warp_shfl_full():
    rng = np.random.default_rng(20)
    nthreads, src = 96, 13
    v = rand_f32(rng, nthreads)
    out = np.zeros(3 * nthreads, np.float32)
    launch("warp", "warp_shfl_full", 1, nthreads, [out, v, src])
    out = out.reshape(-1, 32, 3)
    w = v.reshape(-1, 32)
    lane = np.arange(32)
    s = w.copy()
    for m in (1, 2, 4, 8, 16):
        s = s + s[:, lane ^ m]      # float add is commutative, so every lane holds the same sum
    np.testing.assert_array_equal(out[:, :, 0], np.repeat(w[:, src:src + 1], 32, 1))
    np.testing.assert_array_equal(out[:, :, 1], w[:, (lane + 1) % 32])
    np.testing.assert_array_equal(out[:, :, 2], s)


# ================================================================ divergence.cu
def test_diverge_nested():
    rng = np.random.default_rng(21)
    n = 5000
    v = rand_i32(rng, n, -1000, 1000)
    out = np.zeros(n, np.int32)
    launch("divergence", "diverge_nested", cdiv(n, 128), 128, [out, v, n])
    lane = np.arange(n) % 128 % 32
    lo = np.where(v > 0, np.where(lane & 1, v * 3, v + 100), -v)
    hi = np.where((v & 3) == 0, v >> 2, np.where((v & 3) == 1, v ^ 0x5a5a, lane - v))
    np.testing.assert_array_equal(out, np.where(lane < 16, lo, hi))


def test_diverge_collatz():
    rng = np.random.default_rng(22)
    n, cap = 2000, 150
    x0 = rng.integers(1, 10000, n).astype(np.uint32)
    steps = np.full(n, -1, np.int32)
    launch("divergence", "diverge_collatz", cdiv(n, 128), 128, [steps, x0, n, cap])
    x = x0.astype(np.int64)
    s = np.zeros(n, np.int64)
    active = (x != 1) & (s < cap)
    while active.any():
        x = np.where(active, np.where(x & 1, 3 * x + 1, x >> 1), x)
        s = s + active
        active = (x != 1) & (s < cap)
    np.testing.assert_array_equal(steps, s)


def test_diverge_loop_break():
    rng = np.random.default_rng(23)
    n, limit = 3000, 5000
    cnt = rng.integers(0, 40, n).astype(np.int32)
    out = np.zeros(n, np.int32)
    launch("divergence", "diverge_loop_break", cdiv(n, 128), 128, [out, cnt, n, limit])
    ref = np.zeros(n, np.int64)
    for i in range(n):
        s = 0
        for k in range(cnt[i]):
            s += (k * k) ^ i
            if s > limit:
                break
        ref[i] = s
    np.testing.assert_array_equal(out, ref)


def test_diverge_early_return():
    rng = np.random.default_rng(24)
    n = 5000
    v = rand_i32(rng, n, -500, 4095)
    out = np.zeros(n, np.int32)
    launch("divergence", "diverge_early_return", cdiv(n, 256), 256, [out, v, n])
    ref = np.empty(n, np.int64)
    for i in range(n):
        if v[i] < 0:
            ref[i] = -1
            continue
        acc = int(v[i])
        for k in range(v[i] & 7):
            acc = acc * 5 + k
        ref[i] = acc
    np.testing.assert_array_equal(out, ref)


def test_local_array():
    rng = np.random.default_rng(25)
    n = 3000
    x = rand_i32(rng, n, -1000, 1000)
    idx = rng.integers(0, 256, n).astype(np.int32)
    out = np.zeros(n, np.int32)
    launch("divergence", "local_array", cdiv(n, 128), 128, [out, x, idx, n])
    k = np.arange(16)
    buf = x[:, None].astype(np.int64) * (k + 1) + k
    rows = np.arange(n)
    buf[rows, idx & 15] += 1000
    ref = buf[rows, (idx >> 4) & 15] - buf[rows, (rows * 7) & 15]
    np.testing.assert_array_equal(out, ref)


def test_int_divmod():
    rng = np.random.default_rng(26)
    n = 5000
    a = rand_i32(rng, n)
    b = np.concatenate([rand_i32(rng, n // 2), rand_i32(rng, n - n // 2, -70, 70)])
    rng.shuffle(b)
    b[b == 0] = 7
    a[(a == INT_MIN) & (b == -1)] = 5
    a[:4] = [7, -7, 7, -7]
    b[:4] = [2, 2, -2, -2]                 # C truncates: 3, -3, -3, 3 and remainders 1, -1, 1, -1
    q, r = np.zeros(n, np.int32), np.zeros(n, np.int32)
    uq, ur = np.zeros(n, np.uint32), np.zeros(n, np.uint32)
    launch("divergence", "int_divmod", cdiv(n, 256), 256, [q, r, uq, ur, a, b, n])
    a64, b64 = a.astype(np.int64), b.astype(np.int64)
    qref = np.sign(a64) * np.sign(b64) * (np.abs(a64) // np.abs(b64))
    np.testing.assert_array_equal(q, qref)
    np.testing.assert_array_equal(r, a64 - qref * b64)
    ua, ub = a.view(np.uint32), b.view(np.uint32)
    np.testing.assert_array_equal(uq, ua // ub)
    np.testing.assert_array_equal(ur, ua % ub)


# ================================================================ fmath.cu
def test_fmath_exact():
    rng = np.random.default_rng(27)
    n = 4096
    x = (rng.normal(0, 1, n) * 10.0 ** rng.integers(-6, 6, n)).astype(np.float32)
    y = (rng.normal(0, 1, n) * 10.0 ** rng.integers(-6, 6, n)).astype(np.float32)
    y[y == 0] = 1
    out = np.zeros(6 * n, np.float32)
    launch("fmath", "fmath_exact", cdiv(n, 256), 256, [out, x, y, n])
    out = out.reshape(n, 6)
    # sqrt.rn, div.rn, min, max, abs, sub and mul are correctly rounded: exact against numpy float32
    np.testing.assert_array_equal(out[:, 0], np.sqrt(np.abs(x)))
    np.testing.assert_array_equal(out[:, 1], x / y)
    np.testing.assert_array_equal(out[:, 2], np.minimum(x, y))
    np.testing.assert_array_equal(out[:, 3], np.maximum(x, y))
    np.testing.assert_array_equal(out[:, 4], np.abs(x - y))
    np.testing.assert_array_equal(out[:, 5], x * y)


def test_fmath_approx():
    rng = np.random.default_rng(28)
    n = 4096
    x = rand_f32(rng, n, -3.0, 3.0)
    out = np.zeros(6 * n, np.float32)
    launch("fmath", "fmath_approx", cdiv(n, 256), 256, [out, x, n])
    out = out.reshape(n, 6).astype(np.float64)
    xd = x.astype(np.float64)
    ax = np.abs(x)
    # rsqrt.approx / div.approx: PTX guarantees about 2 ulp (relative error ~2^-22.9 / 2^-22), so 1e-6
    np.testing.assert_allclose(out[:, 0], 1 / np.sqrt((ax + np.float32(1)).astype(np.float64)), rtol=1e-6)
    np.testing.assert_allclose(out[:, 5], 1 / (ax + np.float32(2)).astype(np.float64), rtol=1e-6)
    # __expf(x) = ex2.approx(x * log2(e)): the float32 product carries a relative error up to 2^-24 of
    # |x log2 e| <= 4.33, i.e. an exponent error <= 2.6e-7 -> 1.8e-7 relative, plus ex2's 2 ulp: 2e-6
    np.testing.assert_allclose(out[:, 1], np.exp(xd), rtol=2e-6)
    # __logf(y) = lg2.approx(y) * ln 2: lg2.approx has an absolute error of about 2^-22 near 1 and a
    # relative one of 2 ulp elsewhere: rtol 1e-6 plus atol 1e-6
    np.testing.assert_allclose(out[:, 2], np.log((ax + np.float32(0.5)).astype(np.float64)), rtol=1e-6, atol=1e-6)
    # sin.approx / cos.approx: absolute error 2^-20.9 (5e-7) on [-pi, pi]
    np.testing.assert_allclose(out[:, 3], np.sin(xd), rtol=0, atol=1e-6)
    np.testing.assert_allclose(out[:, 4], np.cos(xd), rtol=0, atol=1e-6)


def test_fmath_convert():
    rng = np.random.default_rng(29)
    n = 4096
    x = rng.uniform(-1e5, 1e5, n).astype(np.float32)
    x[:400] = (rng.integers(-100, 100, 400) + 0.5).astype(np.float32)   # exact halves: ties to even
    x[400:450] = rng.integers(-50, 50, 50).astype(np.float32)             # exact integers
    k = rand_i32(rng, n)
    k[:10] = [0, 1, -1, 2 ** 24 + 1, -(2 ** 24 + 1), 2 ** 25 + 3, INT_MAX, INT_MIN, 16777217, -16777219]
    iout = np.zeros(5 * n, np.int32)
    uout = np.zeros(n, np.uint32)
    fout = np.zeros(3 * n, np.float32)
    launch("fmath", "fmath_convert", cdiv(n, 256), 256, [iout, uout, fout, x, k, n])
    iout, fout = iout.reshape(n, 5), fout.reshape(n, 3)
    np.testing.assert_array_equal(iout[:, 0], np.trunc(x).astype(np.int32))
    np.testing.assert_array_equal(iout[:, 1], np.rint(x).astype(np.int32))
    np.testing.assert_array_equal(iout[:, 2], np.floor(x).astype(np.int32))
    np.testing.assert_array_equal(iout[:, 3], np.ceil(x).astype(np.int32))
    np.testing.assert_array_equal(iout[:, 4], np.trunc(x).astype(np.int32))
    np.testing.assert_array_equal(uout, np.trunc(np.abs(x)).astype(np.uint32))
    rn = k.astype(np.float32)                 # int -> float32 rounds to nearest even
    np.testing.assert_array_equal(fout[:, 0], rn)
    too_big = np.abs(rn.astype(np.float64)) > np.abs(k.astype(np.float64))
    rz = np.where(too_big, np.nextafter(rn, np.float32(0)), rn)
    np.testing.assert_array_equal(fout[:, 1], rz)
    np.testing.assert_array_equal(fout[:, 2], k.view(np.uint32).astype(np.float32))


def test_int64_ops():
    rng = np.random.default_rng(30)
    n = 2000
    a = rng.integers(-2 ** 63, 2 ** 63 - 1, n, dtype=np.int64, endpoint=True)
    b = rng.integers(-2 ** 63, 2 ** 63 - 1, n, dtype=np.int64, endpoint=True)
    b[::3] = rng.integers(-1000, 1000, len(b[::3]))
    a[::4] = rng.integers(-10 ** 6, 10 ** 6, len(a[::4]))
    sh = rng.integers(0, 200, n).astype(np.int32)
    out = np.zeros(8 * n, np.int64)
    total = np.zeros(1, np.uint64)
    launch("fmath", "int64_ops", cdiv(n, 128), 128, [out, total, a, b, sh, n])
    out = out.reshape(n, 8)
    s = (sh & 63).astype(np.int64)
    M = 2 ** 64

    def wrap(v):
        v %= M
        return v - M if v >= 2 ** 63 else v

    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(out[:, 0], a + b)
        np.testing.assert_array_equal(out[:, 1], a - 3 * b)
        np.testing.assert_array_equal(out[:, 2], a * b)
    np.testing.assert_array_equal(out[:, 3], a << s)
    np.testing.assert_array_equal(out[:, 4], a >> s)
    np.testing.assert_array_equal(out[:, 5], (a.view(np.uint64) >> s.astype(np.uint64)).view(np.int64))
    div = []
    hi = []
    for x, y in zip(a.tolist(), b.tolist()):
        d = y | 1
        q = abs(x) // abs(d)
        div.append(wrap(q if (x < 0) == (d < 0) else -q))
        hi.append(wrap(((x % M) * (y % M)) >> 64))
    np.testing.assert_array_equal(out[:, 6], np.array(div, np.int64))
    np.testing.assert_array_equal(out[:, 7], np.array(hi, np.int64))
    assert int(total[0]) == sum(x % M for x in a.tolist()) % M


def test_double_ops():
    rng = np.random.default_rng(31)
    n = 2000
    x = rng.normal(0, 1, n) * 10.0 ** rng.integers(-30, 30, n)
    y = rng.normal(0, 1, n) * 10.0 ** rng.integers(-30, 30, n)
    y[y == 0] = 1.0
    out = np.zeros(5 * n, np.float64)
    launch("fmath", "double_ops", cdiv(n, 128), 128, [out, x, y, n])
    out = out.reshape(n, 5)
    np.testing.assert_array_equal(out[:, 0], x + y)
    np.testing.assert_array_equal(out[:, 1], x * y)
    np.testing.assert_array_equal(out[:, 2], x / y)
    np.testing.assert_array_equal(out[:, 3], np.sqrt(np.abs(x)))
    np.testing.assert_array_equal(out[:, 4], fma_f64(x, y, np.full(n, -1.5)))


def test_double_convert():
    rng = np.random.default_rng(32)
    n = 3000
    f = rand_f32(rng, n, -100, 100)
    d = rng.normal(0, 1, n) * 10.0 ** rng.integers(-5, 5, n)
    fout = np.zeros(n, np.float32)
    dout = np.zeros(n, np.float64)
    launch("fmath", "double_convert", cdiv(n, 128), 128, [fout, dout, f, d, n])
    t = d * f.astype(np.float64)
    np.testing.assert_array_equal(dout, t)
    np.testing.assert_array_equal(fout, t.astype(np.float32) - f)


# ================================================================ misc.cu
def test_grid2d_block3d():
    gx, gy = 3, 2
    bx, by, bz = 8, 4, 2
    w = 7
    tpb = bx * by * bz
    out = np.full(2 * gx * gy * tpb, -1, np.int32)
    launch("misc", "grid2d_block3d", (gx, gy), (bx, by, bz), [out, w])
    ref = np.empty_like(out)
    for cy in range(gy):
        for cx in range(gx):
            for tz in range(bz):
                for ty in range(by):
                    for tx in range(bx):
                        t = (tz * by + ty) * bx + tx
                        i = (cy * gx + cx) * tpb + t
                        ref[2 * i] = (cx << 24) | (cy << 16) | (tz << 8) | (ty << 4) | tx
                        ref[2 * i + 1] = i * w + gy * 100 + bz
    np.testing.assert_array_equal(out, ref)


def test_dyn_shared_reverse():
    rng = np.random.default_rng(33)
    n, block = 1000, 128
    grid = cdiv(n, block)
    x = rand_f32(rng, n)
    data = x.copy()
    launch("misc", "dyn_shared_reverse", grid, block, [data, n], shared_bytes=block * 4)
    ref = x.copy()
    for b in range(grid):
        base = b * block
        for t in range(block):
            src = block - 1 - t
            if base + t < n and base + src < n:
                ref[base + t] = x[base + src]
    np.testing.assert_array_equal(data, ref)


def test_sync_reduce():
    rng = np.random.default_rng(34)
    nblocks, block, thr = 4, 128, 40
    v = rand_i32(rng, nblocks * block, -30, 30)
    blk = v.reshape(nblocks, block)
    for b in range(nblocks):
        if b & 1:
            blk[b, rng.choice(block, b + 2, replace=False)] = 45
        if b & 2:
            blk[b, 17] = -45
        if b == 3:
            blk[b, 100] = thr
    out = np.full(3 * nblocks, -7, np.int32)
    launch("misc", "sync_reduce", nblocks, block, [out, v, thr])
    out = out.reshape(nblocks, 3)
    np.testing.assert_array_equal(out[:, 0], (blk > thr).sum(1))
    np.testing.assert_array_equal(out[:, 1] != 0, (blk > -thr).all(1))
    np.testing.assert_array_equal(out[:, 2] != 0, (blk == thr).any(1))


# ================================================================ bugs.cu: error reporting
def bug_line(tag: str) -> int:
    for no, line in enumerate((KDIR / "bugs.cu").read_text().splitlines(), 1):
        if f"BUG:{tag}" in line:
            return no
    raise AssertionError(tag)


def run_bug(tag):
    if tag == "oob":
        n = 1000
        out = np.zeros(n, np.int32)
        launch("bugs", "bug_oob_write", cdiv(n + 1, 128), 128, [out, n])
    elif tag == "barrier":
        launch("bugs", "bug_divergent_barrier", 1, 64, [np.zeros(64, np.int32)])
    elif tag == "loop":
        launch("bugs", "bug_infinite_loop", 1, 32, [np.zeros(1, np.int32), np.zeros(32, np.int32)],
               max_instructions=20000)
    elif tag == "misaligned":
        launch("bugs", "bug_misaligned", 1, 32, [np.zeros(256, np.uint8), 1])


BUGS = [("oob", "bug_oob_write", r"(?i)out of bounds"),
        ("barrier", "bug_divergent_barrier", r"(?i)barrier"),
        ("loop", "bug_infinite_loop", r"(?i)instruction budget"),
        ("misaligned", "bug_misaligned", r"(?i)misaligned")]


@pytest.mark.parametrize("tag,name,pattern", BUGS)
def test_bug_raises(tag, name, pattern):
    with pytest.raises(isa.KernelError, match=pattern):
        run_bug(tag)


@pytest.mark.parametrize("tag,name,pattern", BUGS)
def test_bug_message_names_source(tag, name, pattern):
    with pytest.raises(isa.KernelError) as info:
        run_bug(tag)
    msg = str(info.value)
    assert name in msg, msg                                  # the kernel (mangled names contain it)
    lines = [int(m) for m in re.findall(r"bugs\.cu:(\d+)", msg)]
    assert lines, f"no bugs.cu:LINE in {msg!r}"
    assert bug_line(tag) in lines, (bug_line(tag), msg)
    if tag == "oob":                                         # only thread 1000 = block 7, thread 104 faults
        assert re.search(r"block\D{0,4}7\b", msg) and re.search(r"thread\D{0,4}104\b", msg), msg


def test_kernel_error_is_exception():
    assert issubclass(isa.KernelError, Exception)


# ================================================================ every module parses
PTX_FILES = sorted(p.stem for p in KDIR.glob("*.ptx"))


@pytest.mark.parametrize("name", PTX_FILES)
def test_parse_all(name):
    text = (KDIR / f"{name}.ptx").read_text()
    mod = module(name)
    entries = re.findall(r"\.entry\s+(\w+)", text)
    assert sorted(k.name for k in mod) == sorted(entries)

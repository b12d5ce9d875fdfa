"""Warp-synchronous instructions, barriers and atomics of the functional interpreter, on hand-written PTX.

Each test builds a small kernel from PTX text (:func:`build`), runs it with :func:`isa.run` over several
warps and blocks, and compares with an independent plain-Python reference:

* ``shfl.sync``: the PTX ISA pseudocode written out lane by lane, and the CUDA-level meaning of
  ``__shfl_{up,down,xor,}_sync(mask, v, b, width)``;
* ``vote.sync`` / ``activemask``: which lanes are on which path, computed in Python;
* atomics: :func:`isa.fastatomic.apply_reference` in ascending global thread order (block-linear index,
  then linear thread index), which is the order the interpreter documents;
* ``bar.red``: per-block counts over the live threads.

Misuse of warp-synchronous instructions and divergent barriers must raise :class:`isa.KernelError`.
"""
from __future__ import annotations

import numpy as np
import pytest

import isa
import isa.interp
from isa import fastatomic
from isa.fastatomic import apply_reference

HEAD = ".version 8.0\n.target sm_90\n.address_size 64\n\n"
REGS = """\
    .reg .b32 %r<64>;
    .reg .b64 %rd<64>;
    .reg .f32 %f<64>;
    .reg .f64 %fd<64>;
    .reg .pred %p<16>;
"""
# %r1 = tid.x, %r2 = ctaid.x, %r3 = ntid.x, %r4 = global thread index (1-D launches), %r5 = lane
PROLOGUE = """\
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, %ctaid.x;
    mov.u32 %r3, %ntid.x;
    mad.lo.s32 %r4, %r2, %r3, %r1;
    mov.u32 %r5, %laneid;
"""
FULL = 0xFFFFFFFF
SENTINEL = 0xDEADBEEF


def build(body: str, nptr: int = 1, shared: str = "", name: str = "k", module_vars: str = ""):
    """A kernel ``name(.param .u64 p0 .. p<nptr-1>)`` with the standard registers, ``body`` then ``ret``."""
    params = ", ".join(f".param .u64 p{i}" for i in range(nptr))
    text = f"{HEAD}{module_vars}.visible .entry {name}({params})\n{{\n{REGS}{shared}\n{PROLOGUE}{body}\n    ret;\n}}\n"
    return isa.parse(text)[name]


#: work after the join, so the lanes that skipped the barrier are still running (not merely exiting:
#: threads that exit are no longer expected at a barrier, as on Volta and later GPUs)
AFTER = "    add.u32 %r6, %r1, 1;\n"


def addr(dst: str, param: str, idx: str = "%r4", size: int = 4) -> str:
    """PTX computing ``dst = &param[idx]`` (global, elements of ``size`` bytes)."""
    return (f"    ld.param.u64 %rd60, [{param}];\n"
            f"    cvta.to.global.u64 %rd61, %rd60;\n"
            f"    mul.wide.u32 %rd62, {idx}, {size};\n"
            f"    add.s64 {dst}, %rd61, %rd62;\n")


def c_operand(mode: str, width: int) -> int:
    """The ``c`` operand nvcc emits for ``__shfl_*_sync(..., width)``."""
    return ((32 - width) << 8) | (0 if mode == "up" else 31)


def warps(arr: np.ndarray) -> np.ndarray:
    return arr.reshape(-1, 32)


# ================================================================ shfl.sync
def shfl_ptx_ref(mode: str, a, b, c: int):
    """PTX ISA pseudocode of shfl.sync for one warp (all 32 lanes active); returns (d, p) lists."""
    cval, segmask = c & 31, (c >> 8) & 31
    d, p = [], []
    for lane in range(32):
        bval = b[lane] & 31
        max_lane = (lane & segmask) | (cval & ~segmask)
        min_lane = lane & segmask
        if mode == "up":
            j = lane - bval
            pval = j >= max_lane
        elif mode == "down":
            j = lane + bval
            pval = j <= max_lane
        elif mode == "bfly":
            j = lane ^ bval
            pval = j <= max_lane
        else:
            j = min_lane | (bval & ~segmask)
            pval = j <= max_lane
        if not pval:
            j = lane
        d.append(int(a[j]))
        p.append(bool(pval))
    return d, p


def shfl_cuda_ref(mode: str, a, delta, width: int):
    """What CUDA documents for __shfl_{up,down,xor,}_sync(FULL, a, delta, width): (d, in-range) lists."""
    d, p = [], []
    for lane in range(32):
        dl = delta[lane] & 31          # the hardware uses b[4:0]
        base = lane - lane % width
        if mode == "up":
            ok = lane % width >= dl
            src = lane - dl
        elif mode == "down":
            ok = lane % width + dl < width
            src = lane + dl
        elif mode == "bfly":
            src = lane ^ dl
            ok = src < base + width     # earlier groups may be read, later ones not
        else:
            src, ok = base + dl % width, True
        d.append(int(a[src if ok else lane]))
        p.append(ok)
    return d, p


SHFL_IMMS = [0, 1, 2, 3, 4, 7, 8, 15, 16, 17, 31, 32, 33, 36, 63, 100, 0xFFFFFFF3]
NB = 2, 64      # two blocks of two warps


def _shfl_kernel(mode: str, width: int, with_pred: bool, n: int, c_reg: bool = False):
    c = c_operand(mode, width)
    lines = [addr("%rd10", "p0"), "    ld.global.u32 %r6, [%rd10];\n",
             addr("%rd11", "p1"), "    ld.global.u32 %r7, [%rd11];\n",
             addr("%rd12", "p2"), addr("%rd13", "p3")]
    if c_reg:
        lines.append(f"    mov.u32 %r8, {c};\n")
    cop = "%r8" if c_reg else str(c)
    for k, b in enumerate(SHFL_IMMS + ["%r7"]):
        off = 4 * k * n
        if with_pred:
            lines.append(f"    shfl.sync.{mode}.b32 %r20|%p1, %r6, {b}, {cop}, 0xffffffff;\n"
                         f"    selp.u32 %r21, 1, 0, %p1;\n"
                         f"    st.global.u32 [%rd13+{off}], %r21;\n")
        else:
            lines.append(f"    shfl.sync.{mode}.b32 %r20, %r6, {b}, {cop}, -1;\n")
        lines.append(f"    st.global.u32 [%rd12+{off}], %r20;\n")
    return build("".join(lines), nptr=4)


@pytest.mark.parametrize("with_pred", [True, False], ids=["pred", "nopred"])
@pytest.mark.parametrize("width", [32, 16, 8, 4, 2, 1])
@pytest.mark.parametrize("mode", ["up", "down", "bfly", "idx"])
def test_shfl_modes_widths(mode, width, with_pred):
    rng = np.random.default_rng([len(mode), ord(mode[0]), width, with_pred])
    n = NB[0] * NB[1]
    a = rng.integers(0, 2 ** 32, n, dtype=np.uint64).astype(np.uint32)
    breg = rng.integers(0, 256, n, dtype=np.uint64).astype(np.uint32)
    nvar = len(SHFL_IMMS) + 1
    out = np.full(nvar * n, SENTINEL, np.uint32)
    pout = np.full(nvar * n, 7, np.uint32)
    isa.run(_shfl_kernel(mode, width, with_pred, n), NB[0], NB[1], (a, breg, out, pout))
    c = c_operand(mode, width)
    for k in range(nvar):
        for w in range(n // 32):
            aw = a[32 * w:32 * w + 32]
            bw = [SHFL_IMMS[k]] * 32 if k < len(SHFL_IMMS) else [int(x) for x in breg[32 * w:32 * w + 32]]
            d, p = shfl_ptx_ref(mode, aw, bw, c)
            d2, p2 = shfl_cuda_ref(mode, aw, bw, width)
            assert (d, p) == (d2, p2)        # the two references agree
            got = out[k * n + 32 * w:k * n + 32 * w + 32].tolist()
            assert got == d, f"b={bw[:4]}..., warp {w}"
            gotp = pout[k * n + 32 * w:k * n + 32 * w + 32].tolist()
            assert gotp == ([int(x) for x in p] if with_pred else [7] * 32), f"b={bw[:4]}..., warp {w}"


@pytest.mark.parametrize("mode", ["up", "down", "bfly", "idx"])
def test_shfl_c_from_register(mode):
    n = NB[0] * NB[1]
    rng = np.random.default_rng(5)
    a = rng.integers(0, 2 ** 32, n, dtype=np.uint64).astype(np.uint32)
    breg = rng.integers(0, 64, n, dtype=np.uint64).astype(np.uint32)
    nvar = len(SHFL_IMMS) + 1
    out = np.zeros(nvar * n, np.uint32)
    pout = np.zeros(nvar * n, np.uint32)
    isa.run(_shfl_kernel(mode, 8, True, n, c_reg=True), NB[0], NB[1], (a, breg, out, pout))
    for k in range(nvar):
        for w in range(n // 32):
            bw = [SHFL_IMMS[k]] * 32 if k < len(SHFL_IMMS) else breg[32 * w:32 * w + 32].tolist()
            d, p = shfl_ptx_ref(mode, a[32 * w:32 * w + 32], bw, c_operand(mode, 8))
            assert out[k * n + 32 * w:k * n + 32 * w + 32].tolist() == d
            assert pout[k * n + 32 * w:k * n + 32 * w + 32].tolist() == [int(x) for x in p]


@pytest.mark.parametrize("mode", ["up", "down", "bfly", "idx"])
def test_shfl_nonstandard_c(mode):
    """c values nvcc would not emit (clamp inside a segment) still follow the ISA pseudocode."""
    n = 64
    a = (np.arange(n, dtype=np.uint32) * 2654435761).astype(np.uint32)
    breg = (np.arange(n, dtype=np.uint32) * 7 % 40).astype(np.uint32)
    cs = [0x0, 0x5, 0x1F, 0x1805, 0x1C1F, 0x1002, 0x1F00, 0x101F]
    lines = [addr("%rd10", "p0"), "    ld.global.u32 %r6, [%rd10];\n",
             addr("%rd11", "p1"), "    ld.global.u32 %r7, [%rd11];\n",
             addr("%rd12", "p2"), addr("%rd13", "p3")]
    for k, c in enumerate(cs):
        lines.append(f"    shfl.sync.{mode}.b32 %r20|%p1, %r6, %r7, {c}, 0xffffffff;\n"
                     f"    selp.u32 %r21, 1, 0, %p1;\n"
                     f"    st.global.u32 [%rd12+{4 * k * n}], %r20;\n"
                     f"    st.global.u32 [%rd13+{4 * k * n}], %r21;\n")
    out = np.zeros(len(cs) * n, np.uint32)
    pout = np.zeros(len(cs) * n, np.uint32)
    isa.run(build("".join(lines), nptr=4), 1, n, (a, breg, out, pout))
    for k, c in enumerate(cs):
        for w in range(2):
            d, p = shfl_ptx_ref(mode, a[32 * w:32 * w + 32], breg[32 * w:32 * w + 32].tolist(), c)
            assert out[k * n + 32 * w:k * n + 32 * w + 32].tolist() == d, hex(c)
            assert pout[k * n + 32 * w:k * n + 32 * w + 32].tolist() == [int(x) for x in p], hex(c)


def test_shfl_warp_reduction_in_place():
    """The classic __shfl_down_sync tree reduction with d == a: every lane reads before any writes."""
    body = (addr("%rd10", "p0") + "    ld.global.u32 %r6, [%rd10];\n"
            + "".join(f"    shfl.sync.down.b32 %r7, %r6, {s}, 31, -1;\n    add.s32 %r6, %r6, %r7;\n"
                      for s in (16, 8, 4, 2, 1))
            + "    shfl.sync.idx.b32 %r6, %r6, 0, 31, -1;\n"
            + addr("%rd11", "p1") + "    st.global.u32 [%rd11], %r6;\n")
    n = 3 * 96
    rng = np.random.default_rng(1)
    x = rng.integers(0, 2 ** 32, n, dtype=np.uint64).astype(np.uint32)
    out = np.zeros(n, np.uint32)
    isa.run(build(body, nptr=2), 3, 96, (x, out))
    sums = warps(x).astype(np.uint64).sum(axis=1) % 2 ** 32
    assert (warps(out) == sums[:, None].astype(np.uint32)).all()


@pytest.mark.parametrize("upper", [False, True], ids=["lanes0-15", "lanes16-31"])
def test_shfl_partial_membermask(upper):
    """Only half the warp executes, with a membermask naming exactly that half (width 16)."""
    mask = 0xFFFF0000 if upper else 0x0000FFFF
    c = c_operand("bfly", 16)
    body = (addr("%rd10", "p0") + "    ld.global.u32 %r6, [%rd10];\n" + addr("%rd12", "p1")
            + "    setp.lt.u32 %p2, %r5, 16;\n"
            + f"    @{'' if upper else '!'}%p2 bra DONE;\n"
            + "".join(f"    shfl.sync.bfly.b32 %r20, %r6, {b}, {c}, {mask};\n"
                      f"    st.global.u32 [%rd12+{4 * k * 128}], %r20;\n" for k, b in enumerate((1, 2, 4, 8)))
            + f"    shfl.sync.idx.b32 %r20|%p3, %r6, 5, {c}, {mask};\n"
            + f"    st.global.u32 [%rd12+{4 * 4 * 128}], %r20;\n"
            + "DONE:\n")
    a = (np.arange(128, dtype=np.uint32) * 40503 + 11).astype(np.uint32)
    out = np.full(5 * 128, SENTINEL, np.uint32)
    isa.run(build(body, nptr=2), 2, 64, (a, out))
    lanes = range(16, 32) if upper else range(16)
    for w in range(4):
        aw = a[32 * w:32 * w + 32]
        for k, b in enumerate((1, 2, 4, 8, None)):
            got = out[k * 128 + 32 * w:k * 128 + 32 * w + 32]
            for lane in range(32):
                if lane in lanes:
                    src = lane ^ b if b is not None else (lane & 16) | 5
                    assert got[lane] == aw[src], (w, b, lane)
                else:
                    assert got[lane] == SENTINEL


# ================================================================ vote.sync, activemask
VOTE_FLAGS = ("all", "any", "uni", "all!", "any!", "uni!")


def _vote_body(mask: str) -> str:
    lines = [addr("%rd10", "p0"), "    ld.global.u32 %r6, [%rd10];\n", "    setp.ne.s32 %p1, %r6, 0;\n"]
    lines.append("    mov.u32 %r30, 0;\n")
    for k, f in enumerate(VOTE_FLAGS):
        src = "!%p1" if f.endswith("!") else "%p1"
        lines.append(f"    vote.sync.{f.rstrip('!')}.pred %p2, {src}, {mask};\n"
                     f"    selp.u32 %r31, {1 << k}, 0, %p2;\n"
                     f"    or.b32 %r30, %r30, %r31;\n")
    lines.append(f"    vote.sync.ballot.b32 %r32, %p1, {mask};\n")
    lines.append(f"    vote.sync.ballot.b32 %r33, !%p1, {mask};\n")
    lines += [addr("%rd11", "p1"), "    st.global.u32 [%rd11], %r30;\n",
              addr("%rd12", "p2"), "    st.global.u32 [%rd12], %r32;\n",
              addr("%rd13", "p3"), "    st.global.u32 [%rd13], %r33;\n"]
    return "".join(lines)


def _vote_ref(pred, members):
    """(flags, ballot, not-ballot) for one warp: pred, members: 32 bools each."""
    vals = [p for p, m in zip(pred, members, strict=True) if m]
    nvals = [not p for p in vals]
    res = {"all": all(vals), "any": any(vals), "uni": all(vals) or not any(vals),
           "all!": all(nvals), "any!": any(nvals), "uni!": all(nvals) or not any(nvals)}
    flags = sum(1 << k for k, f in enumerate(VOTE_FLAGS) if res[f])
    ballot = sum(1 << lane for lane in range(32) if members[lane] and pred[lane])
    nballot = sum(1 << lane for lane in range(32) if members[lane] and not pred[lane])
    return flags, ballot, nballot


def _vote_inputs(n: int) -> np.ndarray:
    rng = np.random.default_rng(7)
    x = np.zeros(n, np.int32)
    x[0:32] = rng.integers(1, 100, 32)                  # warp 0: all true
    x[32:64] = 0                                        # warp 1: all false
    x[64:96] = rng.integers(0, 2, 32)                   # warp 2: random
    x[96 + 17] = -5                                     # warp 3: one lane true
    x[128:160] = -1                                     # warp 4: all true but lane 31
    x[128 + 31] = 0
    x[160:192] = rng.integers(-3, 3, 32)                # warp 5: random, negatives too
    x[160:176] = 9                                      # ... with lanes 0-15 all true
    return x


@pytest.mark.parametrize("mask", ["0xffffffff", "reg"])
def test_vote_full_mask(mask):
    n = 192
    body = _vote_body(mask)
    if mask == "reg":
        body = "    mov.u32 %r40, -1;\n" + _vote_body("%r40")
    x = _vote_inputs(n)
    flags, ballot, nballot = (np.full(n, SENTINEL, np.uint32) for _ in range(3))
    isa.run(build(body, nptr=4), 3, 64, (x, flags, ballot, nballot))
    for w in range(n // 32):
        f, b, nb = _vote_ref((x[32 * w:32 * w + 32] != 0).tolist(), [True] * 32)
        assert flags[32 * w:32 * w + 32].tolist() == [f] * 32, w
        assert ballot[32 * w:32 * w + 32].tolist() == [b] * 32, w
        assert nballot[32 * w:32 * w + 32].tolist() == [nb] * 32, w


def test_vote_partial_warp_block():
    """A block of 48 threads: the second warp has 16 live lanes; a full membermask votes over those."""
    n = 96
    x = _vote_inputs(192)[64:64 + n]
    x[32:48] = 1           # warp 1 of block 0: its 16 live lanes all true
    flags, ballot, nballot = (np.full(n, SENTINEL, np.uint32) for _ in range(3))
    isa.run(build(_vote_body("0xffffffff"), nptr=4), 2, 48, (x, flags, ballot, nballot))
    for blk in range(2):
        for w, lanes in ((0, 32), (1, 16)):
            lo = 48 * blk + 32 * w
            pred = (x[lo:lo + lanes] != 0).tolist() + [False] * (32 - lanes)
            f, b, nb = _vote_ref(pred, [lane < lanes for lane in range(32)])
            assert flags[lo:lo + lanes].tolist() == [f] * lanes, (blk, w)
            assert ballot[lo:lo + lanes].tolist() == [b] * lanes, (blk, w)
            assert nballot[lo:lo + lanes].tolist() == [nb] * lanes, (blk, w)
    assert ballot[32] == 0xFFFF and flags[32] & 0b101 == 0b101      # all, uni over the live lanes


def test_vote_partial_membermask():
    """Only lanes < 16 execute, with membermask 0xFFFF: the votes see those lanes only."""
    n = 192
    body = ("    setp.lt.u32 %p7, %r5, 16;\n    @!%p7 bra DONE;\n" + _vote_body("0xffff") + "DONE:\n")
    x = _vote_inputs(n)
    flags, ballot, nballot = (np.full(n, SENTINEL, np.uint32) for _ in range(3))
    isa.run(build(body, nptr=4), 3, 64, (x, flags, ballot, nballot))
    for w in range(n // 32):
        members = [lane < 16 for lane in range(32)]
        f, b, nb = _vote_ref((x[32 * w:32 * w + 32] != 0).tolist(), members)
        assert flags[32 * w:32 * w + 16].tolist() == [f] * 16, w
        assert ballot[32 * w:32 * w + 16].tolist() == [b] * 16, w
        assert nballot[32 * w:32 * w + 16].tolist() == [nb] * 16, w
        for arr in (flags, ballot, nballot):
            assert (arr[32 * w + 16:32 * w + 32] == SENTINEL).all()
    # warp 5: lanes 0-15 all true, so 'all' and 'uni' hold over the members (not over the whole warp)
    assert flags[160] & 0b111 == 0b111 and ballot[160] == 0xFFFF and nballot[160] == 0


def test_activemask_divergent():
    """activemask inside nested divergent branches is exactly the warp's lanes on that path."""
    body = (addr("%rd10", "p0") + "    ld.global.u32 %r6, [%rd10];\n"
            + addr("%rd11", "p1") + addr("%rd12", "p2") + addr("%rd13", "p3")
            + """\
    activemask.b32 %r7;
    st.global.u32 [%rd11], %r7;
    setp.lt.u32 %p1, %r5, 5;
    @%p1 bra LOW;
    and.b32 %r8, %r6, 1;
    setp.eq.u32 %p2, %r8, 1;
    @%p2 bra ODD;
    activemask.b32 %r9;
    st.global.u32 [%rd12], %r9;
    bra.uni JOIN;
ODD:
    activemask.b32 %r9;
    st.global.u32 [%rd12], %r9;
    bra.uni JOIN;
LOW:
    activemask.b32 %r9;
    st.global.u32 [%rd12], %r9;
JOIN:
    activemask.b32 %r10;
    st.global.u32 [%rd13], %r10;
""")
    tpb, nblk = 48, 2
    n = tpb * nblk
    rng = np.random.default_rng(3)
    x = rng.integers(0, 2 ** 16, n).astype(np.uint32)
    outer, inner, after = (np.full(n, SENTINEL, np.uint32) for _ in range(3))
    isa.run(build(body, nptr=4), nblk, tpb, (x, outer, inner, after))
    for g in range(n):
        t = g % tpb
        warp0 = g - t % 32                       # global index of the warp's lane 0
        lanes = [lane for lane in range(32) if t - t % 32 + lane < tpb]   # live lanes of this warp

        def path(lane, warp0=warp0):
            return "low" if lane < 5 else ("odd" if x[warp0 + lane] & 1 else "even")
        live = sum(1 << lane for lane in lanes)
        same = sum(1 << lane for lane in lanes if path(lane) == path(t % 32))
        assert outer[g] == live, g
        assert inner[g] == same, g
        assert after[g] == live, g


def test_activemask_with_guard_predicate():
    """Lanes whose guard is false do not execute activemask: their destination keeps its value."""
    body = (addr("%rd11", "p0") + "    setp.lt.u32 %p1, %r5, 3;\n"
            "    mov.u32 %r7, 0;\n    @%p1 activemask.b32 %r7;\n    st.global.u32 [%rd11], %r7;\n")
    out = np.full(64, SENTINEL, np.uint32)
    isa.run(build(body), 1, 64, (out,))
    assert (warps(out)[:, 3:] == 0).all()
    assert ((warps(out)[:, :3] & 0x7) == 0x7).all()


# ================================================================ errors
def _assert_unchanged(arr, value):
    assert (arr == value).all(), "arrays must be left as they were after a KernelError"


def test_shfl_full_mask_in_divergent_branch():
    body = (addr("%rd11", "p0") + "    setp.lt.u32 %p1, %r5, 16;\n    @!%p1 bra DONE;\n"
            "    shfl.sync.idx.b32 %r6, %r5, 0, 31, 0xffffffff;\n    st.global.u32 [%rd11], %r6;\nDONE:\n" + AFTER)
    out = np.full(64, 3, np.uint32)
    with pytest.raises(isa.KernelError, match="membermask") as err:
        isa.run(build(body), 1, 64, (out,))
    _assert_unchanged(out, 3)
    assert err.value.block == (0, 0, 0)
    assert (16, 0, 0) in err.value.threads        # a lane named by the mask that did not come


def test_shfl_lane_not_in_membermask():
    body = (addr("%rd11", "p0") + "    shfl.sync.bfly.b32 %r6, %r5, 1, 31, 0xffff;\n"
            "    st.global.u32 [%rd11], %r6;\n")
    out = np.full(64, 3, np.uint32)
    with pytest.raises(isa.KernelError, match="not in its membermask") as err:
        isa.run(build(body), 1, 64, (out,))
    assert (16, 0, 0) in err.value.threads
    _assert_unchanged(out, 3)


@pytest.mark.parametrize("ins", ["vote.sync.ballot.b32 %r6, %p1, 0xffffffff",
                                 "vote.sync.any.pred %p2, %p1, -1",
                                 "shfl.sync.down.b32 %r6|%p2, %r5, 1, 31, 0xffffffff"])
def test_warp_sync_full_mask_in_data_dependent_branch(ins):
    body = (addr("%rd10", "p0") + "    ld.global.u32 %r7, [%rd10];\n    setp.ne.u32 %p1, %r7, 0;\n"
            "    @%p1 bra DONE;\n" + f"    {ins};\nDONE:\n" + AFTER)
    x = np.zeros(96, np.uint32)
    x[40] = 1                                  # one lane of warp 1 of block 0 goes elsewhere
    with pytest.raises(isa.KernelError, match="membermask"):
        isa.run(build(body), 2, 48, (x,))


def test_vote_lane_not_in_membermask():
    body = "    setp.lt.u32 %p1, %r5, 8;\n    vote.sync.all.pred %p2, %p1, 0x7fffffff;\n"
    with pytest.raises(isa.KernelError, match="membermask"):
        isa.run(build(body), 1, 32, (np.zeros(1, np.uint32),))


@pytest.mark.parametrize("cut", [40, 16, 1])
def test_bar_sync_in_divergent_branch(cut):
    body = (addr("%rd11", "p0") + f"    setp.lt.u32 %p1, %r1, {cut};\n    @!%p1 bra DONE;\n"
            "    bar.sync 0;\n    st.global.u32 [%rd11], %r1;\nDONE:\n" + AFTER)
    out = np.full(128, 9, np.uint32)
    with pytest.raises(isa.KernelError, match="barrier"):
        isa.run(build(body), 2, 64, (out,))
    _assert_unchanged(out, 9)


def test_bar_red_in_divergent_branch():
    body = ("    setp.lt.u32 %p1, %r1, 50;\n    @!%p1 bra DONE;\n"
            "    bar.red.popc.u32 %r6, 0, %p1;\nDONE:\n" + AFTER)
    with pytest.raises(isa.KernelError, match="barrier"):
        isa.run(build(body), 1, 64, (np.zeros(1, np.uint32),))


def test_bar_warp_sync_full_mask_in_divergent_code():
    body = "    setp.lt.u32 %p1, %r5, 16;\n    @!%p1 bra DONE;\n    bar.warp.sync 0xffffffff;\nDONE:\n" + AFTER
    with pytest.raises(isa.KernelError, match="membermask"):
        isa.run(build(body), 1, 64, (np.zeros(1, np.uint32),))


def test_bar_warp_sync_lane_not_in_mask():
    body = "    bar.warp.sync 0xfffffffe;\n"
    with pytest.raises(isa.KernelError, match="membermask"):
        isa.run(build(body), 1, 32, (np.zeros(1, np.uint32),))


def test_valid_barriers_do_not_raise():
    """bar.warp.sync naming exactly the lanes present, and bar.sync after some threads exited."""
    body = (addr("%rd11", "p0")
            + "    setp.lt.u32 %p1, %r5, 16;\n    @!%p1 bra SKIP;\n    bar.warp.sync 0xffff;\nSKIP:\n"
            + "    bar.warp.sync -1;\n"
            + "    setp.ge.u32 %p2, %r1, 40;\n    @%p2 exit;\n    bar.sync 0;\n"
            + "    st.global.u32 [%rd11], %r1;\n")
    out = np.full(128, SENTINEL, np.uint32)
    isa.run(build(body), 2, 64, (out,))
    expect = np.array([t if t < 40 else SENTINEL for t in list(range(64)) * 2], np.uint32)
    assert (out == expect).all()


# ================================================================ bar.red
def test_bar_red_popc_and_or():
    """__syncthreads_count/and/or: per-block results over the live threads, 2 blocks of 3 warps (and 80)."""
    body = (addr("%rd10", "p0") + "    ld.global.u32 %r6, [%rd10];\n    setp.ne.u32 %p1, %r6, 0;\n"
            + """\
    bar.red.popc.u32 %r7, 0, %p1;
    bar.red.and.pred %p2, 0, %p1;
    bar.red.or.pred %p3, 0, %p1;
    bar.red.popc.u32 %r8, 0, !%p1;
    bar.red.and.pred %p4, 0, !%p1;
    barrier.red.or.pred %p5, 0, !%p1;
    selp.u32 %r9, 1, 0, %p2;
    selp.u32 %r10, 2, 0, %p3;
    or.b32 %r9, %r9, %r10;
    selp.u32 %r10, 4, 0, %p4;
    or.b32 %r9, %r9, %r10;
    selp.u32 %r10, 8, 0, %p5;
    or.b32 %r9, %r9, %r10;
""" + addr("%rd11", "p1") + "    st.global.u32 [%rd11], %r7;\n"
            + addr("%rd12", "p2") + "    st.global.u32 [%rd12], %r8;\n"
            + addr("%rd13", "p3") + "    st.global.u32 [%rd13], %r9;\n")
    kern = build(body, nptr=4)
    rng = np.random.default_rng(11)
    for tpb in (96, 80):
        for pattern in ("ones", "zeros", "random", "one"):
            nblk = 2
            n = tpb * nblk
            if pattern == "ones":
                x = np.ones(n, np.uint32)
                x[tpb:] = rng.integers(0, 2, tpb)
            elif pattern == "zeros":
                x = np.zeros(n, np.uint32)
            elif pattern == "random":
                x = rng.integers(0, 2, n).astype(np.uint32)
            else:
                x = np.zeros(n, np.uint32)
                x[tpb - 1] = 1                    # the last (live) thread of block 0 only
                x[tpb] = 1
            cnt, ncnt, fl = (np.full(n, SENTINEL, np.uint32) for _ in range(3))
            isa.run(kern, nblk, tpb, (x, cnt, ncnt, fl))
            for b in range(nblk):
                xs = [v != 0 for v in x[b * tpb:(b + 1) * tpb]]
                c = sum(xs)
                nxs = [not v for v in xs]
                f = all(xs) * 1 | any(xs) * 2 | all(nxs) * 4 | any(nxs) * 8
                sl = slice(b * tpb, (b + 1) * tpb)
                assert (cnt[sl] == c).all(), (tpb, pattern, b)
                assert (ncnt[sl] == tpb - c).all(), (tpb, pattern, b)
                assert (fl[sl] == f).all(), (tpb, pattern, b, fl[sl][:4], f)


def test_bar_sync_orders_shared_memory():
    """bar.sync between a shared store and the neighbour's load: each thread reads its neighbour's value."""
    body = ("    mov.u32 %r20, s;\n    shl.b32 %r21, %r1, 2;\n    add.u32 %r22, %r20, %r21;\n"
            "    mul.lo.u32 %r6, %r4, 3;\n    st.shared.u32 [%r22], %r6;\n    bar.sync 0;\n"
            "    add.u32 %r7, %r1, 1;\n    rem.u32 %r7, %r7, %r3;\n    shl.b32 %r7, %r7, 2;\n"
            "    add.u32 %r7, %r20, %r7;\n    ld.shared.u32 %r8, [%r7];\n"
            + addr("%rd11", "p0") + "    st.global.u32 [%rd11], %r8;\n")
    out = np.zeros(160, np.uint32)
    isa.run(build(body, shared="    .shared .align 4 .b8 s[320];\n"), 2, 80, (out,))
    g = np.arange(160)
    assert (out == ((g // 80) * 80 + (g % 80 + 1) % 80) * 3).all()


# ================================================================ atomics
REG = {"u32": "%r", "s32": "%r", "b32": "%r", "f32": "%f", "u64": "%rd", "s64": "%rd", "b64": "%rd",
       "f64": "%fd"}
NP = {"u32": np.uint32, "s32": np.int32, "b32": np.uint32, "f32": np.float32, "u64": np.uint64,
      "s64": np.int64, "b64": np.uint64, "f64": np.float64}


def to_dtype(values, dt) -> np.ndarray:
    """Python numbers as an array of ``dt``; integers taken modulo 2**bits (two's complement)."""
    dt = np.dtype(dt)
    if dt.kind == "f":
        return np.array(values, dt)
    bits = 8 * dt.itemsize
    u = np.dtype(f"u{dt.itemsize}")
    return np.array([int(v) % 2 ** bits for v in values], np.uint64).astype(u).view(dt)


def reference(op: str, dt, mem, idx, b, c):
    """(final memory, old values) by :func:`apply_reference` on Python numbers (np.float32 for f32)."""
    dt = np.dtype(dt)
    if dt.kind == "f":
        conv = (lambda v: np.float32(v)) if dt == np.float32 else float
        vals = [conv(v) for v in mem]
        old = apply_reference(op, vals, list(idx), [conv(v) for v in b], [conv(v) for v in c])
    else:
        vals = [int(v) for v in mem]
        wrap = 2 ** (8 * dt.itemsize) if op == "add" else None
        old = apply_reference(op, vals, list(idx), [int(v) for v in b], [int(v) for v in c], wrap=wrap)
    return to_dtype(vals, dt), to_dtype(old, dt)


def atom_inputs(op: str, typ: str, nmem: int, n: int, seed: int):
    """(memory, b, c) arrays for ``op`` on ``typ`` that make the op do something interesting."""
    rng = np.random.default_rng(seed)
    dt = np.dtype(NP[typ])
    if dt.kind == "f":
        mem = (rng.standard_normal(nmem) * 100).astype(dt)
        b = (rng.standard_normal(n) * 10).astype(dt)
        if op in ("cas", "exch"):
            mem, b = np.round(mem / 100).astype(dt), np.round(b / 10).astype(dt)
        c = rng.standard_normal(n).round().astype(dt)
        return mem, b, c
    info = np.iinfo(dt)

    def full(k):
        return rng.integers(info.min, info.max, k, dtype=dt, endpoint=True)
    if op == "cas":
        mem, b, c = (rng.integers(0, 4, k).astype(dt) for k in (nmem, n, n))
        if dt.kind == "i":
            mem, b, c = mem - 2, b - 2, c - 2
        return mem, b, c
    if op in ("inc", "dec"):
        mem = rng.integers(0, 5, nmem).astype(dt)
        b = rng.integers(0, 7, n).astype(dt)
        b[::17] = 0
        b[5::29] = info.max
        return mem, b, np.zeros(n, dt)
    if op == "and":
        mem = np.full(nmem, info.max if dt.kind == "u" else -1, dt)
        b = ~(np.array(1, dt) << rng.integers(0, 8 * dt.itemsize, n).astype(dt))
        b = np.where(rng.random(n) < 0.85, ~np.zeros(n, dt), b).astype(dt)
        return mem, b, np.zeros(n, dt)
    if op == "add" and dt.kind == "u":
        mem = np.array(info.max, dt) - rng.integers(0, 1000, nmem).astype(dt)      # wraps around at once
    else:
        mem = full(nmem)
    return mem, full(n), np.zeros(n, dt)


ATOM_CASES = [("add", "u32"), ("add", "s32"), ("add", "f32"), ("add", "u64"), ("add", "f64"), ("add", "s64"),
              ("min", "u32"), ("max", "u32"), ("min", "s32"), ("max", "s32"), ("min", "u64"), ("max", "s64"),
              ("exch", "b32"), ("exch", "u32"), ("exch", "s32"), ("exch", "f32"), ("exch", "b64"),
              ("cas", "b32"), ("cas", "u32"), ("cas", "s32"), ("cas", "b64"),
              ("inc", "u32"), ("dec", "u32"),
              ("and", "b32"), ("or", "b32"), ("xor", "b32"), ("and", "u32"), ("or", "s32"), ("xor", "s32"),
              ("and", "b64"), ("or", "b64"), ("xor", "b64")]


def _atom_kernel(op: str, typ: str, red: bool = False, nmod: int = 3):
    r, size = REG[typ], np.dtype(NP[typ]).itemsize
    ldt = "b32" if typ == "b32" else typ
    lines = [f"    rem.u32 %r6, %r1, {nmod};\n",
             addr("%rd10", "p0", "%r6", size), addr("%rd11", "p1", "%r4", size),
             f"    ld.global.{ldt} {r}20, [%rd11];\n"]
    if op == "cas":
        lines += [addr("%rd12", "p2", "%r4", size), f"    ld.global.{ldt} {r}21, [%rd12];\n"]
    extra = f", {r}21" if op == "cas" else ""
    if red:
        lines.append(f"    red.global.{op}.{typ} [%rd10], {r}20;\n")
    else:
        lines += [f"    atom.global.{op}.{typ} {r}22, [%rd10], {r}20{extra};\n",
                  addr("%rd13", "p3", "%r4", size), f"    st.global.{ldt} [%rd13], {r}22;\n"]
    return build("".join(lines), nptr=4)


def _run_atom(op, typ, nblk, tpb, seed, red=False):
    n = nblk * tpb
    mem, b, c = atom_inputs(op, typ, 3, n, seed)
    mem0 = mem.copy()
    old = np.zeros(n, NP[typ])
    isa.run(_atom_kernel(op, typ, red), nblk, tpb, (mem, b, c, old))
    idx = [t % tpb % 3 for t in range(n)]
    want_mem, want_old = reference(op, NP[typ], mem0, idx, b, c)
    return mem, old, want_mem, want_old


@pytest.mark.parametrize("op,typ", ATOM_CASES, ids=[f"{o}.{t}" for o, t in ATOM_CASES])
def test_atom_global_same_addresses(op, typ):
    """3 blocks of 3 warps hit 3 addresses (tid % 3); memory and olds follow ascending thread order."""
    mem, old, want_mem, want_old = _run_atom(op, typ, 3, 96, seed=len(op) * 31 + len(typ))
    np.testing.assert_array_equal(mem, want_mem)
    np.testing.assert_array_equal(old, want_old)


def test_atom_min_max_negatives():
    """Signed min/max: negatives compare below positives (an unsigned compare would get this wrong)."""
    n = 96
    b = np.array([(-1) ** t * (t * 1000 + 7) for t in range(n)], np.int32)
    for op, init, want in (("min", 5, [min(5, *b[k::3]) for k in range(3)]),
                           ("max", -(2 ** 31), [max(b[k::3]) for k in range(3)])):
        mem = np.full(3, init, np.int32)
        old = np.zeros(n, np.int32)
        isa.run(_atom_kernel(op, "s32"), 1, n, (mem, b, np.zeros(n, np.int32), old))
        assert mem.tolist() == want
        assert old[:3].tolist() == [init] * 3
        assert min(want) < 0 if op == "min" else max(want) > 0


def test_atom_add_u32_wraps_and_s32_overflows():
    mem = np.array([0xFFFFFFF0, 0, 0x7FFFFFFF], np.uint32)
    b = np.full(96, 1, np.uint32)
    old = np.zeros(96, np.uint32)
    isa.run(_atom_kernel("add", "u32"), 1, 96, (mem, b, np.zeros(96, np.uint32), old))
    assert mem.tolist() == [(0xFFFFFFF0 + 32) % 2 ** 32, 32, 0x7FFFFFFF + 32]
    assert old[0::3].tolist() == [(0xFFFFFFF0 + k) % 2 ** 32 for k in range(32)]
    smem = np.array([2 ** 31 - 10, 0, -(2 ** 31)], np.int32)
    sb = np.full(96, -1, np.int32)
    sold = np.zeros(96, np.int32)
    sb[::3] = 1
    isa.run(_atom_kernel("add", "s32"), 1, 96, (smem, sb, np.zeros(96, np.int32), sold))
    assert smem.tolist() == [-(2 ** 31) + 22, -32, 2 ** 31 - 32]


def test_atom_inc_dec_semantics():
    """inc: old >= b ? 0 : old + 1; dec: old == 0 || old > b ? b : old - 1 (b = 2 everywhere)."""
    n = 7
    for op, init, olds, final in (("inc", 0, [0, 1, 2, 0, 1, 2, 0], 1), ("dec", 0, [0, 2, 1, 0, 2, 1, 0], 2),
                                  ("inc", 9, [9, 0, 1, 2, 0, 1, 2], 0), ("dec", 9, [9, 2, 1, 0, 2, 1, 0], 2)):
        mem = np.array([init, 77, 77], np.uint32)
        old = np.zeros(n, np.uint32)
        isa.run(_atom_kernel(op, "u32", nmod=1), 1, n, (mem, np.full(n, 2, np.uint32), np.zeros(n, np.uint32),
                                                         old))
        assert old.tolist() == olds, (op, init)
        assert mem.tolist() == [final, 77, 77], (op, init)


def test_atom_order_2d_grid_and_block():
    """Ascending order = block-linear index (x fastest), then linear thread index within the block."""
    body = """\
    mov.u32 %r10, %tid.y;
    mov.u32 %r11, %ntid.x;
    mad.lo.s32 %r12, %r10, %r11, %r1;
    mov.u32 %r13, %ntid.y;
    mul.lo.u32 %r14, %r11, %r13;
    mov.u32 %r15, %ctaid.y;
    mov.u32 %r16, %nctaid.x;
    mad.lo.s32 %r17, %r15, %r16, %r2;
    mad.lo.s32 %r18, %r17, %r14, %r12;
    mov.u32 %r19, 1;
""" + addr("%rd10", "p0", "%r19", 0) + "    atom.global.add.u32 %r20, [%rd10], %r19;\n" \
        + addr("%rd11", "p1", "%r18") + "    st.global.u32 [%rd11], %r20;\n"
    ctr = np.zeros(1, np.uint32)
    out = np.zeros(2 * 3 * 8 * 5, np.uint32)
    isa.run(build(body, nptr=2), (2, 3), (8, 5), (ctr, out))
    assert ctr[0] == out.size
    assert out.tolist() == list(range(out.size))


def test_atom_order_across_batches(monkeypatch):
    """Blocks spread over several batches still apply atomics in global thread order."""
    monkeypatch.setattr(isa.interp, "BATCH_LANES", 64)
    mem, old, want_mem, want_old = _run_atom("exch", "b32", 7, 48, seed=3)
    np.testing.assert_array_equal(mem, want_mem)
    np.testing.assert_array_equal(old, want_old)
    mem, old, want_mem, want_old = _run_atom("add", "u32", 7, 48, seed=4)
    np.testing.assert_array_equal(old, want_old)


def test_red_global_add():
    for typ in ("u32", "f64", "u64"):
        mem, old, want_mem, _ = _run_atom("add", typ, 3, 96, seed=8, red=True)
        np.testing.assert_array_equal(mem, want_mem)
        assert (old == 0).all()


@pytest.mark.parametrize("op,typ", [("max", "s32"), ("and", "b32"), ("or", "b32"), ("inc", "u32"),
                                    ("min", "u32"), ("add", "f32")])
def test_red_other_ops(op, typ):
    mem, old, want_mem, _ = _run_atom(op, typ, 2, 96, seed=12, red=True)
    np.testing.assert_array_equal(mem, want_mem)


@pytest.mark.parametrize("op,typ", [("add", "u32"), ("max", "s32"), ("exch", "b32"), ("inc", "u32"),
                                    ("cas", "b32"), ("add", "f32")])
def test_atom_shared(op, typ):
    """atom.shared on a .shared .b8 s[16] per block: initialise, bar.sync, atomics, bar.sync, copy out."""
    r = REG[typ]
    extra = f", {r}25" if op == "cas" else ""
    body = ("    mov.u32 %r20, s;\n    setp.lt.u32 %p1, %r1, 4;\n    shl.b32 %r21, %r1, 2;\n"
            "    add.u32 %r22, %r20, %r21;\n"
            + addr("%rd12", "p2", "%r1") + f"    @%p1 ld.global.{typ} {r}23, [%rd12];\n"
            + f"    @%p1 st.shared.{typ} [%r22], {r}23;\n    bar.sync 0;\n"
            + "    rem.u32 %r6, %r1, 3;\n    shl.b32 %r7, %r6, 2;\n    add.u32 %r8, %r20, %r7;\n"
            + addr("%rd11", "p1") + f"    ld.global.{typ} {r}24, [%rd11];\n"
            + (addr("%rd14", "p4") + f"    ld.global.{typ} {r}25, [%rd14];\n" if op == "cas" else "")
            + f"    atom.shared.{op}.{typ} {r}26, [%r8], {r}24{extra};\n"
            + addr("%rd13", "p3") + f"    st.global.{typ} [%rd13], {r}26;\n    bar.sync 0;\n"
            + "    mad.lo.s32 %r9, %r2, 4, %r1;\n" + addr("%rd15", "p0", "%r9")
            + f"    @%p1 ld.shared.{typ} {r}27, [%r22];\n    @%p1 st.global.{typ} [%rd15], {r}27;\n")
    kern = build(body, nptr=5, shared="    .shared .align 4 .b8 s[16];\n")
    nblk, tpb = 3, 96
    n = nblk * tpb
    dt = NP[typ]
    init, b, c = atom_inputs(op, typ, 4, n, seed=21)
    out = np.zeros(4 * nblk, dt)
    old = np.zeros(n, dt)
    isa.run(kern, nblk, tpb, (out, b, init, old, c))
    for blk in range(nblk):
        sl = slice(blk * tpb, (blk + 1) * tpb)
        want_mem, want_old = reference(op, dt, init, [t % 3 for t in range(tpb)], b[sl], c[sl])
        np.testing.assert_array_equal(out[4 * blk:4 * blk + 4], want_mem)
        np.testing.assert_array_equal(old[sl], want_old)


def test_atom_generic_mixed_global_and_shared():
    """One generic atom.add whose lanes address global (even tid) and shared (odd tid) memory."""
    body = ("    mov.u64 %rd20, s;\n    cvta.shared.u64 %rd21, %rd20;\n"
            "    ld.param.u64 %rd22, [p0];\n    cvta.to.global.u64 %rd23, %rd22;\n"
            "    setp.lt.u32 %p1, %r1, 2;\n    @%p1 st.shared.u32 [%rd20], 0;\n    bar.sync 0;\n"
            "    and.b32 %r6, %r1, 1;\n    setp.eq.u32 %p2, %r6, 1;\n"
            "    selp.b64 %rd24, %rd21, %rd23, %p2;\n"
            "    add.u32 %r7, %r4, 1;\n    atom.add.u32 %r8, [%rd24], %r7;\n"
            + addr("%rd11", "p1") + "    st.global.u32 [%rd11], %r8;\n    bar.sync 0;\n"
            "    setp.eq.u32 %p3, %r1, 0;\n    @%p3 ld.shared.u32 %r9, [%rd20];\n"
            + addr("%rd12", "p2", "%r2") + "    @%p3 st.global.u32 [%rd12], %r9;\n")
    kern = build(body, nptr=3, shared="    .shared .align 4 .b8 s[4];\n")
    g = np.array([100], np.uint32)
    old = np.zeros(128, np.uint32)
    sh = np.zeros(2, np.uint32)
    isa.run(kern, 2, 64, (g, old, sh))
    vals = np.arange(1, 129, dtype=np.uint64)
    even = vals[0::2]
    assert g[0] == 100 + even.sum()
    assert old[0::2].tolist() == (100 + np.concatenate([[0], np.cumsum(even)[:-1]])).tolist()
    for blk in range(2):
        odd = vals[blk * 64 + 1:(blk + 1) * 64:2]
        assert sh[blk] == odd.sum()
        prefix = np.concatenate([[0], np.cumsum(odd)[:-1]])
        assert old[blk * 64 + 1:(blk + 1) * 64:2].tolist() == prefix.tolist()


def test_cas_single_shot_counter():
    """cas(ctr, gtid, gtid + 1) once per thread: in ascending thread order every attempt succeeds."""
    body = (addr("%rd10", "p0", "%r6") + "    add.u32 %r7, %r4, 1;\n"
            "    atom.global.cas.b32 %r8, [%rd10], %r4, %r7;\n"
            + addr("%rd11", "p1") + "    st.global.u32 [%rd11], %r8;\n")
    body = "    mov.u32 %r6, 0;\n" + body
    ctr = np.zeros(1, np.uint32)
    old = np.full(256, SENTINEL, np.uint32)
    isa.run(build(body, nptr=2), 4, 64, (ctr, old))
    assert ctr[0] == 256
    assert old.tolist() == list(range(256))


def test_cas_loop_counter():
    """Lock-free counter (load, then cas old -> old + 1 until it succeeds): N increments, each old once."""
    body = ("    mov.u32 %r6, 0;\n" + addr("%rd10", "p0", "%r6") + """\
    ld.volatile.global.u32 %r10, [%rd10];
LOOP:
    add.u32 %r11, %r10, 1;
    atom.global.cas.b32 %r12, [%rd10], %r10, %r11;
    setp.ne.u32 %p1, %r12, %r10;
    mov.u32 %r10, %r12;
    @%p1 bra LOOP;
""" + addr("%rd11", "p1") + "    st.global.u32 [%rd11], %r10;\n")
    ctr = np.array([1000], np.uint32)
    old = np.zeros(160, np.uint32)
    isa.run(build(body, nptr=2), 2, 80, (ctr, old))
    assert ctr[0] == 1160
    assert sorted(old.tolist()) == list(range(1000, 1160))


# ================================================================ fastatomic.apply vs apply_reference
DIRECT = ([(op, dt) for op in ("add", "min", "max", "exch", "cas", "and", "or", "xor")
           for dt in ("uint32", "int32", "uint64", "int64")]
          + [("inc", "uint32"), ("dec", "uint32")]
          + [(op, dt) for op in ("add", "exch", "cas") for dt in ("float32", "float64")])
_TYP = {"uint32": "u32", "int32": "s32", "uint64": "u64", "int64": "s64", "float32": "f32", "float64": "f64"}


@pytest.mark.parametrize("op,dt", DIRECT, ids=[f"{o}-{d}" for o, d in DIRECT])
def test_fastatomic_apply_matches_reference(op, dt):
    rng = np.random.default_rng(sum(map(ord, op + dt)))
    n, size = 400, 6
    view, b, c = atom_inputs(op, _TYP[dt], size, n, seed=int(rng.integers(1 << 30)))
    idx = rng.integers(0, size, n)
    view0 = view.copy()
    old = fastatomic.apply(op, view, idx, b, c)
    want_mem, want_old = reference(op, dt, view0, idx.tolist(), b, c)
    assert old.dtype == np.dtype(dt)
    np.testing.assert_array_equal(view, want_mem)
    np.testing.assert_array_equal(old, want_old)


def test_fastatomic_apply_small_cases():
    v = np.array([0xFFFFFFFF, 5], np.uint32)
    old = fastatomic.apply("add", v, np.array([0, 0, 1]), np.array([1, 2, 3], np.uint32),
                           np.zeros(3, np.uint32))
    assert old.tolist() == [0xFFFFFFFF, 0, 5] and v.tolist() == [2, 8]
    v = np.array([3], np.uint32)
    old = fastatomic.apply("inc", v, np.zeros(5, np.int64), np.full(5, 4, np.uint32), np.zeros(5, np.uint32))
    assert old.tolist() == [3, 4, 0, 1, 2] and v.tolist() == [3]
    v = np.array([1], np.uint32)
    old = fastatomic.apply("dec", v, np.zeros(5, np.int64), np.full(5, 3, np.uint32), np.zeros(5, np.uint32))
    assert old.tolist() == [1, 0, 3, 2, 1] and v.tolist() == [0]
    v = np.array([7], np.uint32)      # old > b: dec resets to b, inc wraps to 0
    assert fastatomic.apply("dec", v, [0], np.array([4], np.uint32), [0]).tolist() == [7] and v[0] == 4
    v = np.array([7], np.uint32)
    assert fastatomic.apply("inc", v, [0], np.array([4], np.uint32), [0]).tolist() == [7] and v[0] == 0
    v = np.array([-5, 3], np.int32)
    fastatomic.apply("min", v, [0, 1, 1], np.array([-2, -9, 4], np.int32), [0, 0, 0])
    assert v.tolist() == [-5, -9]
    fastatomic.apply("max", v, [0, 1], np.array([-2, -10], np.int32), [0, 0])
    assert v.tolist() == [-2, -9]
    v = np.array([1.5], np.float32)
    old = fastatomic.apply("cas", v, [0, 0, 0], np.array([1.5, 1.5, 2.0], np.float32),
                           np.array([2.0, 9.0, 3.0], np.float32))
    assert old.tolist() == [1.5, 2.0, 2.0] and v.tolist() == [3.0]


# ================================================================ guards, immediates, exited threads
def test_atom_guarded_immediate_operand_and_offset():
    """@p atom with an immediate operand and an address offset: only guarded-in lanes act and get olds."""
    body = ("    and.b32 %r6, %r4, 1;\n    setp.eq.u32 %p1, %r6, 1;\n    mov.u32 %r7, 12345;\n"
            "    mov.u32 %r8, 0;\n" + addr("%rd10", "p0", "%r8")
            + "    @%p1 atom.global.add.u32 %r7, [%rd10+8], 3;\n"
            + "    atom.global.inc.u32 %r9, [%rd10+4], 1000;\n"
            + "    red.global.add.u32 [%rd10], 1;\n"
            + addr("%rd11", "p1") + "    st.global.u32 [%rd11], %r7;\n"
            + addr("%rd12", "p2") + "    st.global.u32 [%rd12], %r9;\n")
    mem = np.array([5, 990, 100], np.uint32)
    old, old2 = np.zeros(192, np.uint32), np.zeros(192, np.uint32)
    isa.run(build(body, nptr=3), 2, 96, (mem, old, old2))
    assert mem.tolist() == [5 + 192, (990 + 192) % 1001, 100 + 3 * 96]
    assert old[0::2].tolist() == [12345] * 96
    assert old[1::2].tolist() == [100 + 3 * k for k in range(96)]
    assert old2.tolist() == [(990 + k) % 1001 for k in range(192)]


def test_bar_red_and_activemask_after_exit():
    """Exited threads leave barriers and masks: bar.red counts, activemask and ballots the rest only."""
    body = (addr("%rd10", "p0") + "    ld.global.u32 %r6, [%rd10];\n"
            + "    setp.ge.u32 %p5, %r1, 70;\n    @%p5 exit;\n"
            + "    setp.ne.u32 %p1, %r6, 0;\n"
            + "    bar.red.popc.u32 %r7, 0, %p1;\n    bar.red.and.pred %p2, 0, %p1;\n"
            + "    selp.u32 %r8, 1, 0, %p2;\n    activemask.b32 %r9;\n"
            + "    vote.sync.ballot.b32 %r10, %p1, %r9;\n"
            + addr("%rd11", "p1") + "    st.global.u32 [%rd11], %r7;\n"
            + addr("%rd12", "p2") + "    st.global.u32 [%rd12], %r8;\n"
            + addr("%rd13", "p3") + "    st.global.u32 [%rd13], %r9;\n"
            + addr("%rd14", "p4") + "    st.global.u32 [%rd14], %r10;\n")
    tpb, nblk = 80, 2
    n = tpb * nblk
    x = np.zeros(n, np.uint32)
    x[:70] = 1                         # block 0: every remaining thread true, the exited ones false
    x[tpb:] = np.arange(tpb) % 3 == 0  # block 1: a third
    cnt, allp, am, bal = (np.full(n, SENTINEL, np.uint32) for _ in range(4))
    isa.run(build(body, nptr=5), nblk, tpb, (x, cnt, allp, am, bal))
    for b in range(nblk):
        xs = x[b * tpb:b * tpb + 70]
        for t in range(tpb):
            g = b * tpb + t
            if t >= 70:
                assert cnt[g] == allp[g] == am[g] == bal[g] == SENTINEL
                continue
            w0 = t - t % 32
            lanes = [lane for lane in range(32) if w0 + lane < 70]
            assert cnt[g] == int((xs != 0).sum())
            assert allp[g] == int((xs != 0).all())
            assert am[g] == sum(1 << lane for lane in lanes)
            assert bal[g] == sum(1 << lane for lane in lanes if xs[w0 + lane])


def test_bar_sync_with_thread_count():
    """bar.sync 1, 64 reached by exactly the first two warps of a 128-thread block is fine."""
    body = (addr("%rd11", "p0") + "    setp.lt.u32 %p1, %r1, 64;\n    @!%p1 bra DONE;\n"
            "    bar.sync 1, 64;\n    bar.red.popc.u32 %r6, 2, 64, %p1;\n    st.global.u32 [%rd11], %r6;\n"
            "DONE:\n")
    out = np.zeros(256, np.uint32)
    isa.run(build(body), 2, 128, (out,))
    assert out.tolist() == ([64] * 64 + [0] * 64) * 2


def test_shfl_pred_result_as_guard():
    """The p of d|p guards a later add: the usual shfl.down reduction that skips out-of-range lanes."""
    body = (addr("%rd10", "p0") + "    ld.global.u32 %r6, [%rd10];\n"
            + "".join(f"    shfl.sync.down.b32 %r7|%p1, %r6, {s}, {c_operand('down', 8)}, -1;\n"
                      "    @%p1 add.u32 %r6, %r6, %r7;\n" for s in (1, 2, 4))
            + addr("%rd11", "p1") + "    st.global.u32 [%rd11], %r6;\n")
    n = 128
    x = np.random.default_rng(2).integers(0, 1000, n).astype(np.uint32)
    out = np.zeros(n, np.uint32)
    isa.run(build(body, nptr=2), 2, 64, (x, out))
    # after the 3 steps lane i of each 8-lane group holds the sum of lanes i..7 of its group
    want = [int(x[g - g % 8 + g % 8:g - g % 8 + 8].sum()) for g in range(n)]
    assert out.tolist() == want


def test_warp_sync_in_warp_uniform_branches():
    """Whole warps take different paths (warp 0 vs warp 1, and a whole block): full masks are fine there."""
    body = (addr("%rd10", "p0") + "    ld.global.u32 %r6, [%rd10];\n" + addr("%rd11", "p1")
            + "    setp.lt.u32 %p1, %r1, 32;\n    setp.eq.u32 %p2, %r2, 1;\n    or.pred %p1, %p1, %p2;\n"
            + """\
    @%p1 bra WARP0;
    shfl.sync.bfly.b32 %r7, %r6, 1, 31, 0xffffffff;
    vote.sync.ballot.b32 %r8, %p2, 0xffffffff;
    add.u32 %r7, %r7, %r8;
    bra.uni JOIN;
WARP0:
    shfl.sync.idx.b32 %r7, %r6, 3, 31, 0xffffffff;
    activemask.b32 %r8;
    xor.b32 %r7, %r7, %r8;
JOIN:
    st.global.u32 [%rd11], %r7;
""")
    n = 192
    x = (np.arange(n, dtype=np.uint32) * 977 + 5).astype(np.uint32)
    out = np.zeros(n, np.uint32)
    isa.run(build(body, nptr=2), 2, 96, (x, out))
    want = []
    for g in range(n):
        blk, t = divmod(g, 96)
        w0 = g - t % 32
        if t < 32 or blk == 1:
            want.append(int(x[w0 + 3]) ^ FULL)
        else:
            want.append(int(x[g ^ 1]))
    assert out.tolist() == want


def test_vote_with_activemask_in_loop():
    """Lanes leave a loop at different iterations; each iteration ballots over __activemask()."""
    body = (addr("%rd11", "p0") + """\
    and.b32 %r6, %r5, 7;
    mov.u32 %r7, 0;
    mov.u32 %r8, 0;
LOOP:
    activemask.b32 %r9;
    setp.eq.u32 %p1, %r7, %r6;
    vote.sync.ballot.b32 %r10, %p1, %r9;
    add.u32 %r8, %r8, %r10;
    add.u32 %r7, %r7, 1;
    setp.le.u32 %p2, %r7, %r6;
    @%p2 bra LOOP;
    st.global.u32 [%rd11], %r8;
""")
    out = np.zeros(64, np.uint32)
    isa.run(build(body), 1, 64, (out,))
    want = []
    for lane in range(32):
        total = 0
        for it in range(lane % 8 + 1):                   # iterations this lane runs
            total += sum(1 << m for m in range(32) if m % 8 == it)   # lanes with count == it ballot true
        want.append(total % 2 ** 32)
    assert out.tolist() == want * 2


def test_shfl_vote_3d_block():
    """Warps are consecutive linear thread indices (x fastest) in a 3-D block."""
    body = """\
    mov.u32 %r10, %tid.y;
    mov.u32 %r11, %tid.z;
    mov.u32 %r12, %ntid.y;
    mad.lo.s32 %r13, %r11, %r12, %r10;
    mad.lo.s32 %r14, %r13, %r3, %r1;
    shfl.sync.idx.b32 %r15, %r14, 0, 31, -1;
    setp.eq.u32 %p1, %r10, 1;
    vote.sync.ballot.b32 %r16, %p1, -1;
    shl.b32 %r17, %r16, 0;
    xor.b32 %r15, %r15, %r17;
""" + addr("%rd11", "p0", "%r14") + "    st.global.u32 [%rd11], %r15;\n"
    out = np.zeros(64, np.uint32)
    isa.run(build(body), 1, (4, 4, 4), (out,))
    want = []
    for t in range(64):
        w0 = t - t % 32
        ballot = sum(1 << lane for lane in range(32) if (w0 + lane) // 4 % 4 == 1)
        want.append(w0 ^ ballot)
    assert out.tolist() == want


@pytest.mark.parametrize("offset,msg", [(2, "misaligned"), (4 * 3, "out of bounds")])
def test_atom_bad_address(offset, msg):
    body = ("    mov.u32 %r6, 0;\n" + addr("%rd10", "p0", "%r6")
            + f"    atom.global.add.u32 %r7, [%rd10+{offset}], 1;\n")
    mem = np.zeros(3, np.uint32)
    with pytest.raises(isa.KernelError, match=msg):
        isa.run(build(body), 1, 32, (mem,))
    assert (mem == 0).all()


@pytest.mark.parametrize("sem", ["", ".relaxed", ".acquire", ".release", ".acq_rel"])
@pytest.mark.parametrize("scope", ["", ".cta", ".gpu", ".sys"])
def test_atom_memory_semantics_and_scope(sem, scope):
    """atom{.sem}{.scope}.global.add (PTX ISA: .sem = .relaxed/.acquire/.release/.acq_rel), e.g. what
    cuda::atomic_ref<int, cuda::thread_scope_device>::fetch_add(1, memory_order_acq_rel) emits."""
    body = ("    mov.u32 %r6, 0;\n" + addr("%rd10", "p0", "%r6")
            + f"    atom{sem}{scope}.global.add.u32 %r7, [%rd10], 2;\n"
            + addr("%rd11", "p1") + "    st.global.u32 [%rd11], %r7;\n")
    ctr = np.array([10], np.uint32)
    old = np.zeros(64, np.uint32)
    isa.run(build(body, nptr=2), 2, 32, (ctr, old))
    assert ctr[0] == 10 + 2 * 64
    assert old.tolist() == [10 + 2 * k for k in range(64)]


@pytest.mark.parametrize("align", [4, 16, 128, 1024])
def test_atom_dynamic_shared(align):
    """atom.shared.add on dynamic shared memory (.extern .shared .align A .b8 dyn[]) next to a static
    array: the launch's shared_bytes must be enough whatever the extern array's alignment (CUDA's
    extern __shared__ __align__(128) char smem[] with exactly the bytes it uses)."""
    body = ("    mov.u32 %r20, dyn;\n    mov.u32 %r21, s;\n    shl.b32 %r22, %r1, 2;\n"
            "    setp.lt.u32 %p1, %r1, 16;\n    setp.lt.u32 %p2, %r1, 5;\n"
            "    add.u32 %r23, %r20, %r22;\n    add.u32 %r24, %r21, %r22;\n"
            "    @%p1 st.shared.u32 [%r23], %r2;\n    @%p2 st.shared.u32 [%r24], 7;\n    bar.sync 0;\n"
            "    rem.u32 %r6, %r1, 16;\n    shl.b32 %r6, %r6, 2;\n    add.u32 %r7, %r20, %r6;\n"
            "    atom.shared.add.u32 %r8, [%r7], %r1;\n    bar.sync 0;\n"
            "    mad.lo.s32 %r9, %r2, 16, %r1;\n" + addr("%rd11", "p0", "%r9")
            + "    @%p1 ld.shared.u32 %r10, [%r23];\n    @%p1 st.global.u32 [%rd11], %r10;\n"
            + "    mad.lo.s32 %r9, %r2, 5, %r1;\n" + addr("%rd12", "p1", "%r9")
            + "    @%p2 ld.shared.u32 %r11, [%r24];\n    @%p2 st.global.u32 [%rd12], %r11;\n"
            + addr("%rd13", "p2") + "    st.global.u32 [%rd13], %r8;\n")
    kern = build(body, nptr=3, shared="    .shared .align 4 .b8 s[20];\n",
                 module_vars=f".extern .shared .align {align} .b8 dyn[];\n\n")
    dyn, st, old = np.zeros(32, np.uint32), np.zeros(10, np.uint32), np.zeros(128, np.uint32)
    isa.run(kern, 2, 64, (dyn, st, old), shared_bytes=64)
    for blk in range(2):
        want_mem, want_old = reference("add", np.uint32, [blk] * 16, [t % 16 for t in range(64)],
                                       list(range(64)), [0] * 64)
        np.testing.assert_array_equal(dyn[16 * blk:16 * blk + 16], want_mem)
        np.testing.assert_array_equal(old[64 * blk:64 * blk + 64], want_old)
    assert st.tolist() == [7] * 10          # the static array is not overlapped

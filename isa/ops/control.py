"""Control flow, barriers and warp-synchronous instructions: bra, exit, ret, trap, bar/barrier (sync, red,
warp.sync), membar/fence, shfl.sync, vote.sync and activemask.

Branches and exits are carried out by the SIMT stack (:mod:`isa.engine`); here they only declare
themselves. A barrier checks, per block, that every live thread is among the active lanes (otherwise the
block would deadlock: an error naming the waiting warps). Warp-synchronous instructions look at the
active lanes warp by warp (arrays reshaped to ``(warps, 32)``): every executing lane must be in the
membermask, and every live lane the membermask names must be executing.
"""
from __future__ import annotations

import numpy as np

from ..opcodes import OpcodeError, OpFamily, register

_LANE = np.arange(32, dtype=np.uint32)


def _no_semantics(ins, ctx):   # carried out by the engine's SIMT stack
    raise AssertionError(f"{ins.opcode} is executed by the engine")


def _check_bra(ins) -> None:
    if any(m != "uni" for m in ins.mods):
        raise OpcodeError(f"'{ins.name}': only bra and bra.uni are supported")
    from ..program import Sym
    if not isinstance(ins.operands[0], Sym):
        raise OpcodeError("bra needs a label operand (indirect branches are not supported)")


def _check_none(ins) -> None:
    if ins.mods:
        raise OpcodeError(f"'{ins.name}': no modifiers are supported on {ins.opcode}")


# ---------------------------------------------------------------- barriers
def _block_view(ctx, arr):
    return arr.reshape(-1, ctx.st.lpb)


def _barrier(ins, ctx) -> None:
    st = ctx.st
    if ins.has("warp"):
        _warp_members(ctx, 0, "bar.warp.sync")
        return
    if ins.has("arrive"):
        raise ctx.fail("bar.arrive (split barriers) is not supported", ctx.lanes())
    red = ins.has("red")
    active = _block_view(ctx, ctx.active)
    live = _block_view(ctx, st.live)
    arrived = active.any(axis=1)
    if len(ins.operands) - 2 * red == 2:       # a thread count: bar.sync a, b / bar.red d, a, b, c
        count = int(np.max(ctx.src(red + 1, "u32")))
        warps = active.reshape(active.shape[0], -1, 32).any(axis=2).sum(axis=1) * 32
        bad = arrived & (warps != count)
        what = f"expected {count} threads (bar with a thread count)"
    else:
        bad = arrived & (live & ~active).any(axis=1)
        what = "not every thread of the block reached it"
    if bad.any():
        slot = int(np.flatnonzero(bad)[0])
        waiting = np.flatnonzero(active[slot].reshape(-1, 32).any(axis=1))
        missing = np.flatnonzero(live[slot] & ~active[slot]) + slot * st.lpb
        raise ctx.fail(f"barrier deadlock: {what}; warps {waiting.tolist()} wait here while the threads "
                       f"listed are elsewhere (divergent barrier)", missing if missing.size else ctx.lanes())
    if red:
        _barrier_reduce(ins, ctx, active)


def _barrier_reduce(ins, ctx, active) -> None:
    pred = np.broadcast_to(ctx.src(len(ins.operands) - 1, "pred"), ctx.active.shape)
    p = _block_view(ctx, pred) & active
    if ins.has("popc"):
        per_block = p.sum(axis=1).astype(np.uint32)
        ctx.dst(0, np.repeat(per_block, ctx.st.lpb), "u32")
    elif ins.has("and"):
        ctx.dst(0, np.repeat((p | ~active).all(axis=1), ctx.st.lpb), "pred")
    else:
        ctx.dst(0, np.repeat(p.any(axis=1), ctx.st.lpb), "pred")


def _check_bar(ins) -> None:
    mods = set(ins.mods)
    allowed = [{"sync"}, {"sync", "aligned"}, {"warp", "sync"}, {"arrive"}, {"arrive", "aligned"},
               {"red", "popc", "u32"}, {"red", "and", "pred"}, {"red", "or", "pred"},
               {"red", "popc", "aligned", "u32"}, {"red", "and", "aligned", "pred"},
               {"red", "or", "aligned", "pred"}]
    if mods not in allowed:
        raise OpcodeError(f"'{ins.name}' is not supported (bar.sync, barrier.sync[.aligned], bar.warp.sync, "
                          f"bar.red.{{popc.u32,and.pred,or.pred}})")
    n = len(ins.operands)
    if "red" in mods and n not in (3, 4):
        raise OpcodeError(f"'{ins.name}' takes d, a[, b], c")
    if "red" not in mods and n not in (1, 2):
        raise OpcodeError(f"'{ins.name}' takes a barrier id (and an optional thread count)")


# ---------------------------------------------------------------- warp-synchronous
def _warp_members(ctx, i: int, what: str) -> np.ndarray:
    """Membermask operand ``i`` per lane as (warps, 32) booleans, after checking it against the lanes."""
    mask = np.broadcast_to(ctx.src(i, "b32"), ctx.active.shape).reshape(-1, 32)
    active = ctx.active.reshape(-1, 32)
    # each lane's own view of the mask: bit l set -> lane l is a member
    own = ((mask >> _LANE) & 1).astype(bool)
    if (active & ~own).any():
        lanes = np.flatnonzero((active & ~own).ravel())
        raise ctx.fail(f"{what}: executing lane not in its membermask", lanes)
    first = np.where(active.any(axis=1), active.argmax(axis=1), 0)
    warp_mask = mask[np.arange(mask.shape[0]), first]
    members = ((warp_mask[:, None] >> _LANE) & 1).astype(bool) & active.any(axis=1)[:, None]
    live = ctx.st.live.reshape(-1, 32)
    absent = members & live & ~active
    if absent.any():
        raise ctx.fail(f"{what}: membermask names lanes that did not reach this instruction "
                       f"(lanes {np.flatnonzero(absent.any(axis=0)).tolist()} of the warp); they must "
                       f"execute it together", np.flatnonzero(absent.ravel()))
    return members & active


def _shfl(ins, ctx) -> None:
    mode = next(m for m in ins.mods if m in ("up", "down", "bfly", "idx"))
    has_p = len(ins.operands) == 5 and hasattr(ins.operands[0], "second")
    _warp_members(ctx, 4, "shfl.sync")
    # a source lane that is not executing (exited, or on another path) reads as 0, as measured on an H200
    # (PTX leaves it undefined; tests/data/ptx_hw_edge.json)
    a = np.where(ctx.active, ctx.src(1, "b32"), np.uint32(0)).reshape(-1, 32)
    b = (np.broadcast_to(ctx.src(2, "b32"), ctx.active.shape).reshape(-1, 32) & 31).astype(np.int64)
    c = np.broadcast_to(ctx.src(3, "b32"), ctx.active.shape).reshape(-1, 32).astype(np.int64)
    lane = _LANE.astype(np.int64)[None, :]
    clamp, seg = c & 31, (c >> 8) & 31
    max_lane = (lane & seg) | (clamp & ~seg)
    min_lane = lane & seg
    if mode == "up":
        j = lane - b
        ok = j >= max_lane
    else:
        j = {"down": lane + b, "bfly": lane ^ b, "idx": min_lane | (b & ~seg)}[mode]
        ok = j <= max_lane
    j = np.where(ok, j, lane)
    d = np.take_along_axis(a, j, axis=1)
    if has_p:
        pair = ins.operands[0]
        ctx.write_lanes(pair.first, "b32", ctx.lanes(), d.ravel()[ctx.lanes()])
        ctx.write_lanes(pair.second, "pred", ctx.lanes(), ok.ravel()[ctx.lanes()])
    else:
        ctx.dst(0, d.ravel(), "b32")


def _check_shfl(ins) -> None:
    modes = [m for m in ins.mods if m in ("up", "down", "bfly", "idx")]
    if "sync" not in ins.mods:
        raise OpcodeError(f"'{ins.name}': shfl without .sync is not supported on sm_70+; use shfl.sync")
    if len(modes) != 1 or ins.types != ("b32",) or len(ins.mods) != 3:
        raise OpcodeError(f"'{ins.name}': expected shfl.sync.{{up,down,bfly,idx}}.b32")


def _vote(ins, ctx) -> None:
    members = _warp_members(ctx, 2, "vote.sync")
    p = np.broadcast_to(ctx.src(1, "pred"), ctx.active.shape).reshape(-1, 32) & members
    if ins.has("ballot"):
        bits = (p.astype(np.uint32) << _LANE).sum(axis=1, dtype=np.uint64).astype(np.uint32)
        ctx.dst(0, np.repeat(bits, 32), "b32")
        return
    if ins.has("all"):
        r = (p | ~members).all(axis=1)
    elif ins.has("any"):
        r = p.any(axis=1)
    else:
        r = ~(p.any(axis=1) & (~p & members).any(axis=1))
    ctx.dst(0, np.repeat(r, 32), "pred")


def _check_vote(ins) -> None:
    if "sync" not in ins.mods:
        raise OpcodeError(f"'{ins.name}': vote without .sync is not supported on sm_70+; use vote.sync")
    ok = {("sync", "all", "pred"), ("sync", "any", "pred"), ("sync", "uni", "pred"), ("sync", "ballot", "b32")}
    if tuple(ins.mods) not in ok:
        raise OpcodeError(f"'{ins.name}': expected vote.sync.{{all,any,uni}}.pred or vote.sync.ballot.b32")


def _activemask(ins, ctx) -> None:
    act = ctx.active.reshape(-1, 32)
    bits = (act.astype(np.uint32) << _LANE).sum(axis=1, dtype=np.uint64).astype(np.uint32)
    ctx.dst(0, np.repeat(bits, 32), "b32")


def _check_activemask(ins) -> None:
    if ins.mods != ("b32",):
        raise OpcodeError(f"'{ins.name}': expected activemask.b32")


def _fence(ins, ctx) -> None:
    """Memory ordering: a no-op for the functional model, whose memory is sequentially consistent."""


def _check_fence(ins) -> None:
    ok = {"cta", "gl", "sys", "gpu", "sc", "acq_rel", "cluster", "proxy", "async"}
    bad = [m for m in ins.mods if m not in ok]
    if bad:
        raise OpcodeError(f"'{ins.name}': modifier .{bad[0]} is not supported")


register(OpFamily("bra", "label", 0, (1,), _no_semantics, "branch", "control", kind="ctrl", check=_check_bra))
register(OpFamily("exit", "", 0, (0,), _no_semantics, "branch", "control", kind="ctrl", check=_check_none))
register(OpFamily("ret", "", 0, (0,), _no_semantics, "branch", "control", kind="ctrl",
                  check=lambda ins: None if set(ins.mods) <= {"uni"} else _check_none(ins)))
register(OpFamily("trap", "", 0, (0,), _no_semantics, "branch", "control", kind="ctrl", check=_check_none))
register(OpFamily("bar", "a[, b] | d, a[, b], c", 0, (1, 2, 3, 4), _barrier, "barrier", "control",
                  kind="sync", check=_check_bar, doc="block barrier, barrier reduction, warp barrier"),
         "barrier")
register(OpFamily("membar", "", 0, (0,), _fence, "sync", "control", kind="sync", check=_check_fence), "fence")
register(OpFamily("shfl", "d[|p], a, b, c, membermask", 1, (4,), _shfl, "sync", "short_scoreboard",
                  kind="sync", check=_check_shfl))
register(OpFamily("vote", "d, {!}a, membermask", 1, (2,), _vote, "sync", "fixed", kind="sync",
                  check=_check_vote))
register(OpFamily("activemask", "d", 1, (0,), _activemask, "sync", "fixed", kind="sync",
                  check=_check_activemask))

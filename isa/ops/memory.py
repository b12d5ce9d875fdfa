"""Memory instructions: ld, st, atom, red and cvta.

Life of a load: the address operand gives one address per active lane; generic addresses are split by
window into global/shared/local/const; each part is bounds- and alignment-checked
(:meth:`~isa.decode.ExecContext.access`) and gathered from a typed view of the space's buffer; the values
land in the destination register(s), zero- or sign-extended to the register width. Stores scatter the
same way (several lanes storing to one address: the highest lane's value stays). Atomics run lane by lane
in ascending thread order in a numba loop (:mod:`isa.fastatomic`), returning the old values. When the
batch traces for the timing model, each part's space addresses and lanes go into its
:class:`~isa.engine.TraceLog`.
"""
from __future__ import annotations

import numpy as np

from .. import fastatomic, ptxtypes
from ..memory import CONST_WINDOW, LOCAL_WINDOW, SHARED_WINDOW
from ..opcodes import OpcodeError, OpFamily, register
from ..program import Instruction

SPACES = ("global", "shared", "local", "param", "const")
_CACHE_OPS = ("ca", "cg", "cs", "lu", "cv", "wb", "wt", "nc", "volatile", "relaxed", "acquire", "release",
              "weak", "cta", "gpu", "sys", "cluster", "L1::evict_last", "L1::no_allocate", "L2::64B",
              "L2::128B", "L2::256B", "L1::evict_normal", "L1::evict_first", "L1::evict_unchanged")
_MEM_TYPES = ("b8", "u8", "s8", "b16", "u16", "s16", "f16", "b32", "u32", "s32", "f32", "b64", "u64", "s64",
              "f64")
#: log2 of an element's bytes: a byte offset (never negative) >> it is the element's index
_SHIFT = {1: 0, 2: 1, 4: 2, 8: 3}
_ATOM_OPS = ("add", "min", "max", "inc", "dec", "exch", "cas", "and", "or", "xor")


def space_of(ins: Instruction) -> str:
    """The state space named by ``ins`` (``generic`` when none is)."""
    for m in ins.mods:
        if m in SPACES:
            return m
    return "generic"


def vector_width(ins: Instruction) -> int:
    """Elements per lane of a memory instruction: 4 for ``.v4``, 2 for ``.v2``, else 1."""
    return 4 if "v4" in ins.mods else 2 if "v2" in ins.mods else 1


def _check_mem(ins, allowed_extra=()) -> None:
    types = ins.types
    if len(types) != 1 or types[0] not in _MEM_TYPES:
        raise OpcodeError(f"'{ins.name}' needs one memory type such as .f32, .u32, .b64")
    for m in ins.mods:
        if m in SPACES or m in _CACHE_OPS or m in ("v2", "v4") or m in allowed_extra or ptxtypes.is_type(m):
            continue
        raise OpcodeError(f"'{ins.name}': modifier .{m} is not supported")


def _parts(ctx, space: str, addr: np.ndarray):
    """(space, positions, addresses) for each state space the addresses fall in."""
    if space != "generic":
        return [(space, slice(None), addr)]
    return [(sp, pos, a) for sp, (pos, a) in ctx.st.spaces.split_generic(addr).items()]


def _offsets(ctx, space, addr, lanes, nbytes, count=None, atomic=False):
    """Yield (buffer, positions, element index) of each part of an access; global parts of loads and
    stores are counted (``count`` = "ld"/"st") when the run counts memory traffic, and global parts of an
    ``atomic`` go to the log's ``atomics`` where it keeps them."""
    for sp, pos, a in _parts(ctx, space, addr):
        lanes_here = lanes[pos]
        off = ctx.access(sp, a, lanes_here, nbytes)
        if count and sp == "global":
            ctx.st.spaces.gmem.count(count, a, lanes_here)
        log = ctx.st.log
        if log is not None:
            log.accesses.append((ctx.st.steps, sp, a, lanes_here))
            if atomic and sp == "global" and log.atomics is not None:
                log.atomics.append((a, lanes_here))
        yield ctx.st.spaces.buffer(sp), pos, off


def _ld(ins, ctx) -> None:
    t, nv = ins.type, vector_width(ins)
    dt = ptxtypes.DTYPES[t]
    w = dt.itemsize
    lanes = ctx.lanes()
    addr = ctx.addresses(1, lanes)
    parts = list(_offsets(ctx, space_of(ins), addr, lanes, w * nv, "ld"))
    shift = _SHIFT[w]
    if len(parts) == 1 and isinstance(parts[0][1], slice):     # one state space: gathered as they are
        buf, _, off = parts[0]
        view, idx = buf.view(dt), off >> shift
        out = [view[idx + k] if k else view[idx] for k in range(nv)]
    else:
        out = [np.empty(lanes.size, dt) for _ in range(nv)]
        for buf, pos, off in parts:
            view, idx = buf.view(dt), off >> shift
            for k in range(nv):
                out[k][pos] = view[idx + k]
    ctx.dst(0, out if nv > 1 else out[0], t, lanes)


def _st(ins, ctx) -> None:
    t, nv = ins.type, vector_width(ins)
    dt = ptxtypes.DTYPES[t]
    w = dt.itemsize
    lanes = ctx.lanes()
    addr = ctx.addresses(0, lanes)
    vals = [v if np.ndim(v) else np.full(ctx.active.size, v) for v in ctx.src_items(1, t)]
    if space_of(ins) in ("param", "const"):
        raise ctx.fail(f"cannot store to .{space_of(ins)} space", lanes)
    shift = _SHIFT[w]
    for buf, pos, off in _offsets(ctx, space_of(ins), addr, lanes, w * nv, "st"):
        view, idx = buf.view(dt), off >> shift
        for k in range(nv):
            view[idx + k] = vals[k][lanes[pos]]


def _atomic(ins, ctx, has_dst: bool) -> None:
    op = next(m for m in ins.mods if m in _ATOM_OPS)
    t = ins.type
    dt = ptxtypes.DTYPES["u32" if t == "b32" else "u64" if t == "b64" else t]
    lanes = ctx.lanes()
    first = 1 if has_dst else 0
    addr = ctx.addresses(first, lanes)
    b = np.broadcast_to(ctx.src(first + 1, t), ctx.active.shape)[lanes].view(dt)
    c = np.broadcast_to(ctx.src(first + 2, t), ctx.active.shape)[lanes].view(dt) if op == "cas" else b
    old = np.empty(lanes.size, dt)
    for buf, pos, off in _offsets(ctx, space_of(ins), addr, lanes, dt.itemsize, atomic=True):
        view = buf.view(dt)
        old[pos] = fastatomic.apply(op, view, off // dt.itemsize, b[pos], c[pos])
    if has_dst:
        ctx.dst(0, old, t, lanes)


def _check_atom(ins) -> None:
    ops = [m for m in ins.mods if m in _ATOM_OPS]
    if len(ops) != 1:
        raise OpcodeError(f"'{ins.name}' needs one operation ({', '.join('.' + o for o in _ATOM_OPS)})")
    if space_of(ins) not in ("global", "shared", "generic"):
        raise OpcodeError(f"'{ins.name}': atomics work on .global or .shared memory")
    if ins.type not in ("b32", "b64", "u32", "u64", "s32", "s64", "f32", "f64"):
        raise OpcodeError(f"'{ins.name}': type .{ins.type} is not supported for atomics")
    if ops[0] in ("and", "or", "xor") and ins.type.startswith("f"):
        raise OpcodeError(f"'{ins.name}': bitwise atomics need a .b32/.b64 type")
    if ops[0] in ("inc", "dec") and ins.type != "u32":
        raise OpcodeError(f"'{ins.name}': atom.{ops[0]} needs type .u32")
    _check_mem(ins, _ATOM_OPS + ("acq_rel",))


def _mem_unit(ins) -> str:
    sp = space_of(ins)
    return {"shared": "lsu-shared", "local": "lsu-local"}.get(sp, "lsu-global")


def _mem_latency(ins) -> str:
    return "short_scoreboard" if space_of(ins) == "shared" else "long_scoreboard"


_WINDOWS = {"shared": SHARED_WINDOW, "local": LOCAL_WINDOW, "const": CONST_WINDOW, "global": 0}


def _cvta_space(ins) -> str:
    return next(m for m in ins.mods if m in _WINDOWS)


def _cvta(ins, a):
    base = _WINDOWS[_cvta_space(ins)]
    dt = a.dtype
    wide = np.asarray(a).astype(np.uint64)
    out = wide - np.uint64(base) if ins.has("to") else wide + np.uint64(base)
    return out.astype(dt)


def _check_cvta(ins) -> None:
    spaces = [m for m in ins.mods if m in _WINDOWS]
    if len(spaces) != 1 or ins.type not in ("u32", "u64") or len(ins.mods) != len(spaces) + 1 + ins.has("to"):
        raise OpcodeError(f"'{ins.name}': expected cvta[.to].{{global,shared,local,const}}.{{u32,u64}}")


register(OpFamily("ld", "d, [a]", 1, (1,), _ld, _mem_unit, _mem_latency, kind="mem",
                  check=_check_mem, doc="load from a state space (.v2/.v4 vectors)"))
register(OpFamily("st", "[a], b", 1, (1,), _st, _mem_unit, _mem_latency, kind="mem",
                  check=_check_mem, doc="store to a state space"))
register(OpFamily("atom", "d, [a], b[, c]", 1, (2, 3), lambda ins, ctx: _atomic(ins, ctx, True), _mem_unit,
                  _mem_latency, kind="mem", check=_check_atom, doc="atomic read-modify-write, returns old"))
register(OpFamily("red", "[a], b", 1, (1,), lambda ins, ctx: _atomic(ins, ctx, False), _mem_unit,
                  _mem_latency, kind="mem", check=_check_atom, doc="atomic reduction, no result"))
register(OpFamily("cvta", "d, a", 1, (1,), _cvta, "int", "fixed", kind="alu",
                  types=lambda ins: ((ins.type,), (ins.type,)), check=_check_cvta,
                  doc="convert between generic and state-space addresses"))

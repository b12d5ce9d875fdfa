"""Decoding: each instruction becomes an :class:`Op` with its operands pre-resolved to fast readers and
writers over the interpreter's register arrays.

An Op belongs to a prepared program (:class:`isa.interp.Program`), which every launch of the kernel
shares, so it holds nothing of any one execution: readers and writers take the batch state (``st``, an
:class:`isa.engine.Batch`) and the active-lane mask as arguments. ``mem``, ``sync`` and ``special``
semantics receive an :class:`ExecContext` (``ctx``) made for one execution of one instruction: the Op,
the batch and the active lanes. It offers :meth:`ExecContext.src` / :meth:`ExecContext.dst` for operands
by position, :meth:`ExecContext.addresses` for an address operand, :meth:`ExecContext.access` to turn
addresses into checked buffer offsets, and :meth:`ExecContext.fail` for a kernel error. Registers hold
raw bits (:mod:`isa.ptxtypes`); every write records which lanes have been written so a read of a
never-written register is an error rather than garbage. The commonest integer instructions (``add``,
``shl``, ``setp``, ``selp``, ``mov`` ... on registers of their own width) also get a one-pass form
(:attr:`Op.fast`, made by :func:`_fast_alu`) that computes straight into the destination register the
bits their semantics would give, without the per-operand conversions. A module ``.global`` variable's
address belongs to the launch (:attr:`isa.engine.Batch.global_addresses`), so it is read from the batch,
never stored on the Op.
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from . import opcodes, ptxtypes
from .cost import issue_slots
from .memory import Fault
from .program import Addr, Imm, Instruction, Pair, Reg, Sym, Vec

SPECIAL_PREFIXES = ("%tid", "%ntid", "%ctaid", "%nctaid", "%laneid", "%warpid", "%nwarpid", "%smid",
                    "%nsmid", "%gridid", "%clock", "%clock64", "%globaltimer", "%lanemask_eq", "%lanemask_lt",
                    "%lanemask_le", "%lanemask_gt", "%lanemask_ge", "%dynamic_smem_size",
                    "%total_smem_size")


class DecodeError(Exception):
    """An instruction the interpreter cannot run as written (bad operand for its opcode)."""


def is_special(name: str) -> bool:
    """Is ``name`` a special register (``%tid.x``, ``%clock`` ...)?"""
    return name.split(".")[0] in SPECIAL_PREFIXES


def flatten(ops: Any) -> list:
    """Operands with Pair and Vec expanded into their elements."""
    out = []
    for op in ops:
        if isinstance(op, Pair):
            out += [op.first, op.second]
        elif isinstance(op, Vec):
            out += list(op.items)
        else:
            out.append(op)
    return out


def imm_value(op: Imm, ptype: str) -> Any:
    """An immediate as a numpy scalar of ``ptype`` (integers wrap; PTX float literals used as bits)."""
    dt = ptxtypes.DTYPES[ptype]
    v = op.value
    if ptype == "pred":
        return np.bool_(v != 0)
    if isinstance(v, float) and dt.kind in "iu":
        if op.text.lstrip("-")[:2] in ("0f", "0F", "0d", "0D"):
            raw = np.array([v], np.float32 if op.text.lstrip("-")[1] in "fF" else np.float64)
            return ptxtypes.as_type(raw.view(ptxtypes.BITS[raw.itemsize]), ptype)[0]
        v = int(v)
    if dt.kind in "iu":
        bits = 8 * dt.itemsize
        return np.array([v & ((1 << bits) - 1)], ptxtypes.BITS[dt.itemsize]).view(dt)[0]
    return dt.type(v)


class Op:
    """One decoded instruction (see module docstring)."""

    def __init__(self, ins: Instruction, index: int, prog: Any):
        self.ins, self.index, self.prog = ins, index, prog
        self.fam = opcodes.family(ins.opcode)
        self.cost = issue_slots(ins)
        self.kind = self.fam.kind
        self.loc = ins.loc
        self.guard = None
        if ins.guard is not None:
            self.guard = (prog.reg_id(ins.guard.name), ins.guard.neg, ins.guard.name)
        self.readers = self.writers = ()
        self.fast: Callable | None = None     # the one-pass form of a common ALU instruction (_fast_alu)
        self._access = {}       # (operand, ptype, reader?) -> reader/writer, for mem and sync semantics
        if self.kind == "alu":
            self._decode_alu()

    # -- alu
    def _decode_alu(self):
        ins, nd = self.ins, self.fam.ndst
        dst_t, src_t = self.fam.types(ins)
        dsts, srcs = flatten(ins.operands[:nd]), flatten(ins.operands[nd:])
        if len(dsts) != len(dst_t) or len(srcs) != len(src_t):
            raise DecodeError(f"'{ins.text()}': expected {len(dst_t)} destination and {len(src_t)} source "
                              f"operand(s)")
        self.readers = tuple(self.reader(op, t) for op, t in zip(srcs, src_t))
        self.writers = tuple(self.writer(op, t) for op, t in zip(dsts, dst_t))
        self.single = len(self.writers) == 1
        self.sem = self.fam.semantics
        self.fast = _fast_alu(self, ins, dsts, srcs)

    def run_alu(self, st: Any, active: np.ndarray, full: bool) -> None:
        if self.fast is not None:
            self.fast(st, active, full)
            return
        vals = [r(st, active) for r in self.readers]
        res = self.sem(self.ins, *vals)
        if self.single:
            self.writers[0](st, res, active, full)
        else:
            for w, v in zip(self.writers, res):
                w(st, v, active, full)

    # -- operand access
    def reader(self, op: Any, ptype: str) -> Callable:
        """A function ``(state, active) -> array`` reading ``op`` as ``ptype`` (full width)."""
        prog = self.prog
        if isinstance(op, Imm):
            value = imm_value(op, ptype)
            return lambda st, active: value
        if isinstance(op, Sym):
            if op.name in prog.globals:      # module variables move with each launch's allocations
                name, ins = op.name, self.ins
                return lambda st, active: imm_value(Imm(st.symbol_address(name, ins), name), ptype)
            value = imm_value(Imm(prog.symbol_address(op.name, self.ins), op.name), ptype)
            return lambda st, active: value
        if isinstance(op, Reg):
            if op.name == "_":
                raise DecodeError("the sink '_' cannot be read")
            if is_special(op.name):
                name = op.name
                return lambda st, active: ptxtypes.as_type(st.special(name), ptype)
            rid, neg, name = prog.reg_id(op.name), op.neg, op.name

            def read(st, active):
                if st.written[rid] is not True:
                    st.check_written(rid, active, name, self)
                v = ptxtypes.as_type(st.regs[rid], ptype)
                return ~v if neg else v
            return read
        raise DecodeError(f"operand '{op}' cannot be used as a value here")

    def writer(self, op: Any, ptype: str) -> Callable:
        """A function ``(state, values, active, full)`` storing typed ``values`` into register ``op``."""
        if not isinstance(op, Reg) or op.neg or is_special(op.name):
            raise DecodeError(f"'{op}' cannot be a destination")
        if op.name == "_":
            return lambda st, values, active, full: None
        rid = self.prog.reg_id(op.name)
        signed = ptxtypes.is_signed(ptype)
        dtype = self.prog.reg_dtype(rid)

        def write(st, values, active, full):
            _put(st, rid, ptxtypes.to_bits(np.asarray(values), dtype, signed), active, full)
        return write

    # -- operand access by position, for :class:`ExecContext`
    def operand_fn(self, op: Any, ptype: str, read: bool) -> Callable:
        """The reader (or writer) of ``op`` as ``ptype``, built once per instruction."""
        key = (op, ptype, read)
        fn = self._access.get(key)
        if fn is None:
            fn = self._access[key] = self.reader(op, ptype) if read else self.writer(op, ptype)
        return fn


class ExecContext:
    """One execution of a ``mem``/``sync``/``special`` instruction: its :class:`Op`, the batch state ``st``
    (:class:`isa.engine.Batch`), the active lanes ``active`` and ``full`` (every live lane is active)."""
    __slots__ = ("op", "st", "active", "full")

    def __init__(self, op: Op, st: Any, active: np.ndarray, full: bool):
        self.op, self.st, self.active, self.full = op, st, active, full

    def src(self, i: int, ptype: str) -> Any:
        """Operand ``i`` (by position in the instruction, Vec elements not expanded) as ``ptype``."""
        return self.op.operand_fn(self.op.ins.operands[i], ptype, True)(self.st, self.active)

    def src_items(self, i: int, ptype: str) -> list:
        """Elements of a (possibly vector) source operand ``i``."""
        return [self.op.operand_fn(op, ptype, True)(self.st, self.active) for op in flatten([self.op.ins.operands[i]])]

    def dst(self, i: int, values: Any, ptype: str, lanes: np.ndarray | None = None) -> None:
        """Write ``values`` into destination operand ``i`` (a Vec takes a list). With ``lanes``, values
        are compressed: one per index in ``lanes``."""
        ops = flatten([self.op.ins.operands[i]])
        vals = values if isinstance(self.op.ins.operands[i], Vec) else [values]
        for op, v in zip(ops, vals):
            if lanes is None:
                self.op.operand_fn(op, ptype, False)(self.st, v, self.active, self.full)
            else:
                self.write_lanes(op, ptype, lanes, v)

    def write_lanes(self, op: Reg, ptype: str, lanes: np.ndarray, values: Any) -> None:
        """Write ``values`` (one per index in ``lanes``) into register ``op``."""
        if op.name == "_":
            return
        rid = self.op.prog.reg_id(op.name)
        reg = self.st.regs[rid]
        bits = ptxtypes.to_bits(np.asarray(values), reg.dtype, ptxtypes.is_signed(ptype))
        if lanes.size == reg.size:              # every lane (``lanes`` ascend): no scatter
            reg[...] = bits
        else:
            reg[lanes] = bits
        if self.full:
            self.st.written[rid] = True
        else:
            self.st.mark_written(rid, self.active)

    def lanes(self) -> np.ndarray:
        """Indices of the active lanes."""
        return np.flatnonzero(self.active)

    def addresses(self, i: int, lanes: np.ndarray) -> np.ndarray:
        """uint64 addresses of address operand ``i`` for ``lanes``."""
        op = self.op.ins.operands[i]
        if not isinstance(op, Addr):
            raise DecodeError(f"operand {i + 1} of '{self.op.ins.text()}' must be an address [..]")
        base = op.base
        if isinstance(base, Reg):
            wide = self.op.prog.reg_dtype(self.op.prog.reg_id(base.name)).itemsize == 8
            bits = self.op.operand_fn(base, "u64" if wide else "u32", True)(self.st, self.active)
            # a new array (never the register itself: the trace keeps the addresses); every lane: no gather
            addr = bits.astype(np.uint64) if lanes.size == bits.size else bits[lanes].astype(np.uint64, copy=False)
        elif isinstance(base, Sym):
            addr = np.full(lanes.size, self.st.symbol_address(base.name, self.op.ins), np.uint64)
        else:
            addr = np.zeros(lanes.size, np.uint64)
        offset = op.offset & 0xFFFF_FFFF_FFFF_FFFF
        if offset:
            addr += np.uint64(offset)
        return addr

    def access(self, space: str, addr: np.ndarray, lanes: np.ndarray, nbytes: int) -> np.ndarray:
        """Checked byte offsets into ``space``'s buffer; a bad address is a kernel error."""
        try:
            return self.st.spaces.locate(space, addr, lanes, nbytes)
        except Fault as f:
            bad = lanes[f.lanes]
            first = int(addr[f.lanes[0]])
            raise self.st.error(f"{f.message} at address {first:#x}", bad, self.op) from None

    def fail(self, message: str, lanes: np.ndarray) -> Exception:
        """A kernel error naming ``lanes`` (absolute lane indices)."""
        return self.st.error(message, lanes, self.op)


def _put(st: Any, rid: int, bits: Any, active: np.ndarray, full: bool) -> None:
    """Store ``bits`` (the register's storage type) into register ``rid``: every lane when ``full`` (the
    register then written whole), else the ``active`` ones."""
    reg = st.regs[rid]
    if full:
        reg[...] = bits
        st.written[rid] = True
    else:
        np.copyto(reg, bits, where=active)
        st.mark_written(rid, active)


# ---------------------------------------------------------------- one-pass forms of common ALU instructions
_INT = ("u16", "u32", "u64", "s16", "s32", "s64", "b16", "b32", "b64")
_WRAP = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "and": np.bitwise_and, "or": np.bitwise_or,
         "xor": np.bitwise_xor}
_CMP = {"eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal, "gt": np.greater,
        "ge": np.greater_equal, "lo": np.less, "ls": np.less_equal, "hi": np.greater, "hs": np.greater_equal}


def _fast_alu(op: Op, ins: Instruction, dsts: list, srcs: list) -> Callable | None:
    """The one-pass form of ``op`` (``fn(st, active, full)``), or None: integer ``add sub mul.lo and or xor``
    (wrapping: computed on the registers' unsigned bits, which two's complement makes the same bits; logic
    also on ``.pred``),
    ``shl``/``shr`` by an immediate below the width, ``setp`` of one integer comparison, ``selp`` and ``mov``
    (bits selected or copied), with registers of the instruction's width (so reading one is a view, as
    :func:`isa.ptxtypes.as_type` gives) and immediates. The result goes straight into the destination
    register (every lane when ``full``, else the active ones), as the family's semantics and
    :meth:`Op.writer` would write it; a source never written is the same error."""
    name, t, mods = ins.opcode, ins.type, ins.mods
    if len(dsts) != 1 or not isinstance(dsts[0], Reg) or dsts[0].name == "_" or dsts[0].neg \
            or is_special(dsts[0].name):
        return None
    if name in _WRAP:
        logic = name in ("and", "or", "xor")
        ok = (t in _INT or (logic and t == "pred")) and (mods == (t,) or (name == "mul" and mods == ("lo", t))) \
            and (not logic or t[0] == "b" or t == "pred")
        if not ok:
            return None
        src_t, dst_t = (t, t), t
    elif name in ("shl", "shr"):
        if t not in _INT or mods != (t,) or len(srcs) != 2 or not isinstance(srcs[1], Imm):
            return None
        amount = int(imm_value(srcs[1], "u32"))
        if amount >= 8 * ptxtypes.size(t):
            return None
        src_t, dst_t = (t,), t
        srcs = srcs[:1]
    elif name == "setp":
        if t not in _INT or len(mods) != 2 or mods[1] != t or mods[0] not in _CMP or len(srcs) != 2:
            return None
        src_t, dst_t = (t, t), "pred"
    elif name == "selp":
        if t not in _INT or mods != (t,):
            return None
        src_t, dst_t = (t, t, "pred"), t
    elif name == "mov":
        if t not in _INT + ("f32", "f64", "pred") or mods != (t,) or len(srcs) != 1:
            return None
        src_t, dst_t = (t,), t
    else:
        return None
    prog = op.prog
    rd = prog.reg_id(dsts[0].name)
    if prog.reg_dtype(rd) != ptxtypes.storage_dtype(dst_t):
        return None
    # each source: (register id or None, its name, the immediate's bits)
    reads = []
    nreg = 0
    for o, st_t in zip(srcs, src_t):
        storage = ptxtypes.storage_dtype(st_t)
        if isinstance(o, Imm):
            reads.append((None, None, ptxtypes.to_bits(np.asarray(imm_value(o, st_t)), storage)[()]))
        elif isinstance(o, Reg) and o.name != "_" and not is_special(o.name) and (not o.neg or st_t == "pred"):
            rid = prog.reg_id(o.name)
            if prog.reg_dtype(rid) != storage:
                return None
            reads.append((rid, o.name, o.neg))
            nreg += 1
        else:
            return None
    if not nreg and name != "mov":
        return None
    signed = t[0] == "s"
    sview = ptxtypes.DTYPES[t]                  # a comparison's or an arithmetic shift's typed view

    def read(st: Any, active: np.ndarray) -> list:
        vals = []
        for rid, rname, x in reads:
            if rid is None:
                vals.append(x)
                continue
            if st.written[rid] is not True:
                st.check_written(rid, active, rname, op)
            v = st.regs[rid]
            vals.append(~v if x else v)
        return vals

    if name in _WRAP:
        fn = _WRAP[name]

        def run(st: Any, active: np.ndarray, full: bool) -> None:
            a, b = read(st, active)
            if full:
                fn(a, b, out=st.regs[rd])
                st.written[rd] = True
            else:
                _put(st, rd, fn(a, b), active, False)
    elif name in ("shl", "shr"):
        k = amount
        arith = name == "shr" and signed

        def run(st: Any, active: np.ndarray, full: bool) -> None:
            a, = read(st, active)
            if name == "shl":
                _put(st, rd, a << a.dtype.type(k), active, full)
            elif arith:
                _put(st, rd, (a.view(sview) >> sview.type(k)).view(a.dtype), active, full)
            else:
                _put(st, rd, a >> a.dtype.type(k), active, full)
    elif name == "setp":
        cmp = _CMP[mods[0]]
        views = [(rid, rname, x if rid is not None else np.asarray(x).view(sview)[()]) for rid, rname, x in reads]
        reads[:] = views

        def run(st: Any, active: np.ndarray, full: bool) -> None:
            a, b = read(st, active)
            a = a.view(sview) if isinstance(a, np.ndarray) else a
            b = b.view(sview) if isinstance(b, np.ndarray) else b
            if full:
                cmp(a, b, out=st.regs[rd])
                st.written[rd] = True
            else:
                _put(st, rd, cmp(a, b), active, False)
    elif name == "selp":
        def run(st: Any, active: np.ndarray, full: bool) -> None:
            a, b, c = read(st, active)
            _put(st, rd, np.where(c, a, b), active, full)
    else:
        def run(st: Any, active: np.ndarray, full: bool) -> None:
            a, = read(st, active)
            _put(st, rd, a, active, full)
    return run

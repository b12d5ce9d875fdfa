"""The compiler's intermediate form: values, instructions over virtual registers, and the value table.

Life of an expression: lowering (:mod:`.lower`) turns it into a :class:`Const` (folded at compile time),
a :class:`Reg` (a virtual register) or an :class:`Off` (``reg + constant``, an integer kept symbolic so
constant parts of indices fold into address offsets such as ``[%rd4+12]``). :meth:`Builder.op` emits an
instruction unless the :class:`ValueTable` already holds the same operation on the same operands (common
subexpressions, loads of an address with no store or barrier since). The instruction list later goes
through :mod:`.optimize` and is printed as PTX text by :mod:`.emit`.
"""
from __future__ import annotations

import re
import struct
from dataclasses import dataclass, field
from typing import Any, Iterable, Union

from . import types as T

VREG = re.compile(r"^%(p|r|rd|f|fd)\d+$")
_PREFIX = {"pred": "%p", "b32": "%r", "b64": "%rd", "f32": "%f", "f64": "%fd"}


@dataclass(frozen=True)
class Const:
    value: object
    t: str


@dataclass(frozen=True)
class Reg:
    name: str
    t: str


@dataclass(frozen=True)
class Off:
    """``reg + c`` for integer values (never emitted until something needs the sum in a register)."""
    reg: Reg
    c: int
    t: str


#: what lowering an arithmetic expression gives: a constant, a register, or a register plus a constant
Value = Union[Const, Reg, Off]


@dataclass(frozen=True)
class Mem:
    """An address operand ``[base+offset]``: base a register name or a symbol."""
    base: str
    offset: int = 0

    def text(self) -> str:
        if not self.offset:
            return f"[{self.base}]"
        return f"[{self.base}{'+' if self.offset > 0 else ''}{self.offset}]"


@dataclass
class Ins:
    op: str
    dsts: list
    srcs: list
    guard: tuple | None = None        # (predicate register, negated)
    loc: tuple = (0, 0)

    def uses(self) -> list:
        out = [s for s in self.srcs if isinstance(s, str) and VREG.match(s)]
        out += [s.base for s in self.srcs if isinstance(s, Mem) and VREG.match(s.base)]
        if self.guard:
            out.append(self.guard[0])
        return out

    @property
    def opcode(self) -> str:
        return self.op.split(".")[0]


@dataclass
class Label:
    name: str


@dataclass
class Slot:
    """A place at the end of a branch where the moves that merge variables at the join will go."""
    moves: list = field(default_factory=list)


SIDE_EFFECTS = ("st", "atom", "red", "bar", "barrier", "membar", "fence", "bra", "ret", "exit", "trap", "vote",
                "shfl", "activemask")


def literal(c: Const) -> str:
    """PTX text of a constant operand."""
    v = c.value
    if c.t == "f32":
        return "0f%08X" % struct.unpack("<I", struct.pack("<f", float(v)))[0]
    if c.t == "f64":
        return "0d%016X" % struct.unpack("<Q", struct.pack("<d", float(v)))[0]
    if c.t == "b1":
        return "1" if v else "0"
    return str(int(v))


class ValueTable:
    """Available expressions: key -> value. Snapshots scope it to the structured region being lowered;
    clobbers (a store, atomic or barrier) drop the loads they may change, also from every snapshot
    restored later."""

    def __init__(self) -> None:
        self.map: dict = {}
        self.log: list = []

    def get(self, key: tuple) -> Any:
        return self.map.get(key)

    def put(self, key: tuple, value: Any) -> None:
        self.map[key] = value

    def snapshot(self) -> tuple[dict, int]:
        return dict(self.map), len(self.log)

    def restore(self, snap: tuple[dict, int]) -> None:
        self.map = dict(snap[0])
        for space in self.log[snap[1]:]:
            self._drop(space)

    def clobber(self, space: str) -> None:
        self.log.append(space)
        self._drop(space)

    def _drop(self, space):
        self.map = {k: v for k, v in self.map.items()
                    if not (k[0] == "ld" and (space == "all" or k[1] == space))}


class Builder:
    """Emits instructions; owns registers, labels, the prologue (parameter loads and special registers,
    executed once at kernel entry) and the value table."""

    def __init__(self) -> None:
        self.body: list = []
        self.prologue: list = []
        self.counts: dict = {}
        self.nlabels = 0
        self.loc = (0, 0)
        self.vt = ValueTable()
        self.once: dict = {}          # prologue values by key
        self.positive: set = set()    # registers known to hold values >= 1 (block/grid dimensions)
        self.nonneg: set = set()      # registers known to hold values >= 0 (counting-up loop variables)
        self.multiple: dict = {}      # register -> the power of two it is a multiple of (k i: k i + c, which
                                      # is k i | c for 0 <= c < k, has k i's sign)
        self.widened: dict = {}       # 64-bit register -> the 32-bit register it extends (a compare with a
                                      # constant narrows to it, as LLVM does)
        self.lower: dict = {}         # register -> the least value it holds where the code now lowered runs
                                      # (an ``if`` guard's ``0 < y``, a range's start)

    def reg(self, t: str) -> Reg:
        cls = T.reg_class(t)
        n = self.counts.get(cls, 0) + 1
        self.counts[cls] = n
        return Reg(f"{_PREFIX[cls]}{n}", t)

    def label(self) -> str:
        self.nlabels += 1
        return f"$L__{self.nlabels}"

    def place(self, name: str) -> None:
        self.body.append(Label(name))

    def emit(self, op: str, dsts: list, srcs: Iterable, guard: tuple | None = None, into: list | None = None) -> Ins:
        ins = Ins(op, [d.name if isinstance(d, Reg) else d for d in dsts], list(srcs), guard, self.loc)
        (self.body if into is None else into).append(ins)
        return ins

    def op(self, op: str, t: str, *srcs: str, pure: bool = True) -> Reg:
        """``op`` producing a new register of type ``t`` from operand texts ``srcs`` (CSE'd when pure)."""
        key = ("op", op, srcs)
        if pure:
            hit = self.vt.get(key)
            if hit is not None:
                return hit
        d = self.reg(t)
        self.emit(op, [d], srcs)
        if pure:
            self.vt.put(key, d)
        return d

    def load(self, space: str, mtype: str, t: str, addr: Mem, extra: str = "") -> Reg:
        key = ("ld", space, mtype + extra, addr)
        hit = self.vt.get(key)
        if hit is not None and hit.t == t:
            return hit
        d = self.reg(t)
        self.emit(f"ld.{space}{extra}.{mtype}", [d], [addr])
        self.vt.put(key, d)
        return d

    def entry(self, key: tuple, t: str, op: str, srcs: list) -> Reg:
        """A value computed once in the prologue (parameters, special registers, symbol addresses)."""
        hit = self.once.get(key)
        if hit is None:
            hit = self.once[key] = self.reg(t)
            self.emit(op, [hit], srcs, into=self.prologue)
            self.prologue[-1].loc = self.loc
        return hit

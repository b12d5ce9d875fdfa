"""The declarative opcode table.

Each opcode family (``add``, ``ld``, ``shfl`` ...) is one :class:`OpFamily` entry: its operand signature,
the modifiers it accepts, its warp-wide numpy semantics, the execution-unit class it issues to and its
latency class. The parser rejects opcodes that are not in :data:`TABLE` and modifiers a family's ``check``
refuses; the interpreter calls ``semantics``; the timing model reads ``unit_of`` and ``latency_of``.

Adding an opcode is one :func:`register` call plus one semantics function. This module is the registry
only: it imports none of the implementations. They live in :mod:`isa.ops`, whose modules register their
families when imported, and ``import isa`` imports them all first, so the table is complete whenever any
part of :mod:`isa` is in use.

Semantics conventions, by ``kind``:

``alu``
    ``semantics(ins, *srcs) -> value | tuple``. ``types(ins)`` returns ``(dst_types, src_types)``, the
    PTX type of each destination and source operand (a :class:`~isa.program.Pair` destination counts as
    two). The interpreter hands the sources over as numpy arrays of those types (one element per active
    lane; immediates broadcast) and stores the results back, converting to the registers' widths.
``mem``, ``ctrl``, ``sync``, ``special``
    ``semantics(ins, ctx)``: these read and write machine state (memory, masks, other lanes) through the
    interpreter's execution context; see :mod:`isa.interp`.

Execution-unit classes (:data:`UNITS`) and latency classes (:data:`LATENCIES`) are what the timing model
keys its pipes and dependency tracking on: ``fixed`` results are ready after the pipe's fixed latency
(tracked by the scheduler, stall ``wait``); ``short_scoreboard`` results come back through the MIO queue
(shared memory, SFU: stall ``short_scoreboard``); ``long_scoreboard`` through L1TEX (global/local
memory: stall ``long_scoreboard``); ``control`` instructions have no register result to wait on.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Union

from . import ptxtypes

UNITS = ("fp32", "fp64", "int", "sfu", "lsu-global", "lsu-shared", "lsu-local", "branch", "barrier", "sync")
LATENCIES = ("fixed", "short_scoreboard", "long_scoreboard", "control")
KINDS = ("alu", "mem", "ctrl", "sync", "special")

Selector = Union[str, Callable]


class OpcodeError(ValueError):
    """An instruction the table does not accept (unknown opcode, bad modifier, wrong operand count)."""


@dataclass(frozen=True)
class OpFamily:
    """One opcode family of the table."""
    name: str
    signature: str                  # documentation of the operands, e.g. "d, a, b"
    ndst: int                       # leading destination operands (a Pair counts as one operand)
    nsrc: tuple                     # allowed numbers of source operands
    semantics: Callable
    unit: Selector                  # a UNITS name, or f(ins) -> name
    latency: Selector               # a LATENCIES name, or f(ins) -> name
    kind: str = "alu"
    types: Union[Callable, None] = None   # alu: f(ins) -> (dst_types, src_types)
    check: Union[Callable, None] = None   # f(ins) -> None, raises OpcodeError naming the problem
    doc: str = ""


TABLE: dict = {}


def register(family: OpFamily, *aliases: str) -> OpFamily:
    """Add ``family`` to the table (under its name and any aliases)."""
    if family.kind not in KINDS:
        raise ValueError(f"{family.name}: kind {family.kind!r} not in {KINDS}")
    if isinstance(family.unit, str) and family.unit not in UNITS:
        raise ValueError(f"{family.name}: unit {family.unit!r} not in {UNITS}")
    if isinstance(family.latency, str) and family.latency not in LATENCIES:
        raise ValueError(f"{family.name}: latency {family.latency!r} not in {LATENCIES}")
    for name in (family.name,) + aliases:
        if name in TABLE:
            raise ValueError(f"opcode {name} registered twice")
        TABLE[name] = family
    return family


def family(opcode: str) -> OpFamily:
    """The family of ``opcode``; :class:`OpcodeError` if the table has none."""
    try:
        return TABLE[opcode]
    except KeyError:
        raise OpcodeError(f"unsupported instruction '{opcode}'") from None


def _select(sel: Selector, ins: Any) -> str:
    return sel if isinstance(sel, str) else sel(ins)


def unit_of(ins: Any) -> str:
    """Execution-unit class of an instruction (one of :data:`UNITS`)."""
    return _select(family(ins.opcode).unit, ins)


def latency_of(ins: Any) -> str:
    """Latency class of an instruction (one of :data:`LATENCIES`)."""
    return _select(family(ins.opcode).latency, ins)


def validate(ins: Any) -> None:
    """Raise :class:`OpcodeError` if the table does not accept ``ins``."""
    fam = family(ins.opcode)
    if fam.check is not None:
        fam.check(ins)
    n = len(ins.operands)
    if n - fam.ndst not in fam.nsrc or n < fam.ndst:
        counts = " or ".join(str(fam.ndst + k) for k in fam.nsrc)
        raise OpcodeError(f"'{ins.name}' takes {counts} operands ({fam.signature}), got {n}")


# ---------------------------------------------------------------- helpers for entries
def by_type(fp32: str = "fp32", fp64: str = "fp64", integer: str = "int") -> Callable:
    """Unit selector on the instruction's type: f64 -> fp64, other floats -> fp32, integers -> int."""
    def select(ins) -> str:
        t = ins.type
        if t == "f64":
            return fp64
        if t.startswith("f"):
            return fp32
        return integer
    return select


def require(ins: Any, allowed_types: tuple | None = None, allowed_mods: tuple = (), ntypes: int = 1) -> None:
    """Common ``check``: exactly ``ntypes`` type modifiers from ``allowed_types``; other modifiers from
    ``allowed_mods``. Raises :class:`OpcodeError` naming the offending modifier."""
    types = ins.types
    if len(types) != ntypes:
        raise OpcodeError(f"'{ins.name}' needs {ntypes} type modifier(s), got {len(types)}")
    if allowed_types is not None:
        for t in types:
            if t not in allowed_types:
                raise OpcodeError(f"'{ins.name}': type .{t} is not supported here "
                                  f"(use one of {', '.join('.' + a for a in allowed_types)})")
    for m in ins.mods:
        if not ptxtypes.is_type(m) and m not in allowed_mods:
            raise OpcodeError(f"'{ins.name}': modifier .{m} is not supported"
                              + (f" (supported: {', '.join('.' + a for a in allowed_mods)})" if allowed_mods
                                 else ""))


INT_TYPES = ("b16", "b32", "b64", "u16", "u32", "u64", "s16", "s32", "s64")
SINT_TYPES = ("s16", "s32", "s64")
UINT_TYPES = ("u16", "u32", "u64")
FLOAT_TYPES = ("f32", "f64")
BIT_TYPES = ("b16", "b32", "b64")

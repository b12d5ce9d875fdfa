"""The program model: modules, kernels, declarations, instructions and operands.

A :class:`Module` is what one PTX text holds: header directives, module-level variables and kernels.
A :class:`Kernel` has typed parameters, register declarations, variable declarations (``.shared`` static
and ``extern``, ``.local``), and a flat list of :class:`Instruction` with labels mapping to indices.
Every instruction may carry a :class:`SourceLoc` (the user's file and line, taken from ``.loc``), which
later statistics are keyed by. Operands, instructions and declarations are frozen dataclasses;
:class:`Kernel` and :class:`Module` are plain (mutable) dataclasses, because the parser fills in a kernel's
body once the module's ``.file`` table is known. All compare by value, so two programs compare equal
exactly when they would print the same text.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Union

from . import ptxtypes


class ProgramError(ValueError):
    """A structurally invalid program (unknown label, undeclared register ...)."""


# ---------------------------------------------------------------- operands
@dataclass(frozen=True)
class Reg:
    """A register (``%r1``), special register (``%tid.x``) or the sink ``_``; ``neg`` for ``!%p1``."""
    name: str
    neg: bool = False

    def __str__(self) -> str:
        return ("!" if self.neg else "") + self.name


@dataclass(frozen=True)
class Imm:
    """An immediate. ``text`` keeps the spelling (``0f3F800000``, ``0x10``) so printing round-trips."""
    value: Union[int, float]
    text: str

    def __str__(self) -> str:
        return self.text


@dataclass(frozen=True)
class Sym:
    """A symbol: a label (branch target), a variable or a parameter name."""
    name: str

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True)
class Addr:
    """An address operand ``[base+offset]``; ``base`` is a Reg, a Sym, or None for ``[imm]``."""
    base: Union[Reg, Sym, None]
    offset: int = 0

    def __str__(self) -> str:
        if self.base is None:
            return f"[{self.offset}]"
        if self.offset == 0:
            return f"[{self.base}]"
        return f"[{self.base}+{self.offset}]"        # [%rd1+-12]: ptxas reads no bare minus


@dataclass(frozen=True)
class Vec:
    """A vector operand ``{%f1, %f2}``."""
    items: tuple

    def __str__(self) -> str:
        return "{" + ", ".join(str(i) for i in self.items) + "}"


@dataclass(frozen=True)
class Pair:
    """A two-destination operand ``%r1|%p1`` (shfl.sync, setp)."""
    first: Reg
    second: Reg

    def __str__(self) -> str:
        return f"{self.first}|{self.second}"


Operand = Union[Reg, Imm, Sym, Addr, Vec, Pair]


# ---------------------------------------------------------------- instructions
@dataclass(frozen=True)
class SourceLoc:
    """Where an instruction came from: the user's file, line and column (outermost inlining site)."""
    file: str
    line: int
    col: int = 0

    def __str__(self) -> str:
        return f"{self.file}:{self.line}"


@dataclass(frozen=True)
class Instruction:
    """One PTX instruction: ``@guard opcode.mods operands``.

    ``opcode`` is the first dotted component (``ld``), ``mods`` the rest in order
    (``('global', 'nc', 'v4', 'f32')``).
    """
    opcode: str
    mods: tuple = ()
    operands: tuple = ()
    guard: Union[Reg, None] = None
    loc: Union[SourceLoc, None] = field(default=None, compare=True)

    @property
    def name(self) -> str:
        """Full dotted opcode, e.g. ``ld.global.nc.v4.f32``."""
        return ".".join((self.opcode,) + self.mods)

    @property
    def types(self) -> tuple:
        """The PTX type modifiers in order (``cvt.rn.f32.s32`` -> ``('f32', 's32')``)."""
        return tuple(m for m in self.mods if ptxtypes.is_type(m))

    @property
    def type(self) -> str:
        """The last type modifier (the operation type for most instructions)."""
        t = self.types
        return t[-1] if t else ""

    def has(self, *mods: str) -> bool:
        """True when any of ``mods`` is among the modifiers."""
        return any(m in self.mods for m in mods)

    def text(self) -> str:
        """The instruction as PTX text (no trailing semicolon)."""
        guard = f"@{self.guard} " if self.guard is not None else ""
        ops = ", ".join(str(o) for o in self.operands)
        return f"{guard}{self.name}" + (f"\t{ops}" if ops else "")

    def where(self) -> str:
        return str(self.loc) if self.loc else "<no source location>"


# ---------------------------------------------------------------- declarations
@dataclass(frozen=True)
class Param:
    """A kernel parameter: ``.param .u64 name`` (pointers are 64-bit integers) or a byte array."""
    name: str
    type: str
    align: Union[int, None] = None
    count: Union[int, None] = None   # ``.param .align 8 .b8 p[16]``
    ptr: bool = False                # ``.param .u64 .ptr .global .align 4 p``

    @property
    def size(self) -> int:
        return ptxtypes.size(self.type) * (self.count or 1)


@dataclass(frozen=True)
class RegDecl:
    """``.reg .b32 %r<22>;`` (count 22, registers %r0..%r21) or ``.reg .b64 %SP;`` (count None)."""
    type: str
    name: str
    count: Union[int, None] = None

    def names(self) -> list:
        if self.count is None:
            return [self.name]
        return [f"{self.name}{i}" for i in range(self.count)]


@dataclass(frozen=True)
class VarDecl:
    """A variable in a state space: ``.shared .align 4 .b8 tile[4224];``, ``.extern .shared ...[]``."""
    space: str                       # shared | local | const | global
    name: str
    type: str
    count: Union[int, None] = None   # None: scalar; 0: unsized ``[]`` (extern)
    align: Union[int, None] = None
    extern: bool = False
    init: Union[tuple, None] = None  # initial values for .const/.global

    @property
    def size(self) -> int:
        return ptxtypes.size(self.type) * (self.count if self.count is not None else 1)

    @property
    def alignment(self) -> int:
        return self.align or ptxtypes.size(self.type)


# ---------------------------------------------------------------- kernel and module
@dataclass(eq=True)
class Kernel:
    """An ``.entry``: parameters, declarations, instructions and labels (label -> instruction index)."""
    name: str
    params: tuple = ()
    regs: tuple = ()
    vars: tuple = ()
    body: tuple = ()
    labels: dict = field(default_factory=dict)
    visible: bool = True
    directives: tuple = ()           # performance directives, e.g. (('maxntid', (256, 1, 1)),)
    #: module-level variables the kernel can name (set by the parser; printed with the module, not here)
    globals: tuple = field(default=(), compare=False, repr=False)
    #: ``.pragma`` statements of the body, as (index of the instruction they precede, text), e.g. nvcc's
    #: ``"nounroll"`` for ``#pragma unroll 1``: the interpreter ignores them, ptxas must see them again
    pragmas: tuple = field(default=(), compare=False, repr=False)
    #: how the PTX was made, for reports ("numba-cuda's code, link-time optimized as on a GPU"); "" unknown
    origin: str = field(default="", compare=False, repr=False)

    def __post_init__(self):
        self.params = tuple(self.params)
        self.regs = tuple(self.regs)
        self.vars = tuple(self.vars)
        self.body = tuple(self.body)
        n = len(self.body)
        for label, idx in self.labels.items():
            if not 0 <= idx <= n:
                raise ProgramError(f"kernel {self.name}: label {label} points outside the body")

    # -- queries used by the interpreter and the timing model
    def shared_vars(self) -> list:
        """Shared variables of the kernel, module-level ones (e.g. ``.extern .shared``) included."""
        return [v for v in self.vars + self.globals if v.space == "shared"]

    def static_shared_bytes(self) -> int:
        """Bytes of static ``.shared`` storage (extern arrays excluded), laid out with alignment."""
        from .layout import layout
        return layout([v for v in self.shared_vars() if not v.extern])[1]

    def register_types(self) -> dict:
        """Register name -> declared PTX type, for every declared register."""
        out = {}
        for decl in self.regs:
            for n in decl.names():
                out[n] = decl.type
        return out

    def registers_per_thread(self) -> int:
        """Registers per thread after a simple allocation: the most 32-bit registers live at once."""
        from .cfg import max_live_registers
        return max_live_registers(self)

    def to_text(self) -> str:
        from .printer import kernel_text
        return kernel_text(self)

    def __str__(self) -> str:
        return self.to_text()


@dataclass(eq=True)
class Module:
    """A PTX module: header, module-level variables and kernels (ordered by appearance)."""
    kernels: dict = field(default_factory=dict)
    version: str = "8.0"
    target: str = "sm_90"
    address_size: int = 64
    globals: tuple = ()

    def __getitem__(self, name: str) -> Kernel:
        try:
            return self.kernels[name]
        except KeyError:
            raise KeyError(f"no kernel named {name!r}; kernels: {', '.join(self.kernels) or 'none'}") from None

    def __iter__(self):
        return iter(self.kernels.values())

    def __len__(self) -> int:
        return len(self.kernels)

    def find(self, part: str) -> Kernel:
        """The one kernel whose (possibly mangled) name contains ``part``."""
        if part in self.kernels:
            return self.kernels[part]
        hits = [k for n, k in self.kernels.items() if part in n]
        if len(hits) == 1:
            return hits[0]
        names = ", ".join(self.kernels) or "none"
        if not hits:
            raise KeyError(f"no kernel name contains {part!r}; kernels: {names}")
        raise KeyError(f"{part!r} matches {len(hits)} kernels: {', '.join(k.name for k in hits)}")

    def to_text(self) -> str:
        from .printer import module_text
        return module_text(self)

    def __str__(self) -> str:
        return self.to_text()

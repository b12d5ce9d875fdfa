"""SASS: the sm_90 machine code ``ptxas`` makes of a kernel, tied back to the PTX the interpreter runs.

The functional interpreter executes PTX; the SM executes what ``ptxas`` makes of it, which folds address
arithmetic into ``IMAD.WIDE``/``LEA``, narrows 64-bit index math, moves parameters into constant-bank
operands, turns divisions and ``ex2`` into short sequences and unrolls loops. The timing model should
issue that, not the PTX. Everything needed runs without a GPU, from pip (the ``smsim[sass]`` extra):
``nvidia-cuda-nvcc`` 13.0 ships ``ptxas``, ``nvidia-cuda-nvdisasm`` ships ``nvdisasm``. The version is the
one the measured H200 compiled with (CUDA 13.0, its driver 580; ``docs/hardware/numba_code_hw.md``): the
SASS of the same PTX differs between ptxas releases, and smsim should time what the GPU ran.

Life of a kernel through this module (:func:`of`):

1. :func:`isa.printer.ptxas_text` prints the kernel as a module ``ptxas`` accepts, each instruction
   preceded by ``.loc 1 N 0`` where ``N - 1`` is its index in the kernel body;
2. ``ptxas -arch=sm_90 -lineinfo -v`` (``sm_90a`` for PTX that targets it) assembles it (noting the
   registers it allocated, which the occupancy uses) and ``nvdisasm -g -hex`` disassembles it: each SASS
   instruction then carries the PTX line (so the PTX index) it came from, and its 128-bit encoding, whose
   top bits are the control code ptxas wrote (:class:`Control`: stall cycles, yield, the scoreboard it
   sets for a variable-latency result, the scoreboards it waits on); both steps are cached on disk, keyed
   by the PTX text and the ptxas release (``$SMSIM_CACHE`` or ``~/.cache/smsim``), so a sweep pays them
   once;
3. :func:`parse` reads the listing into :class:`SassIns` (address, guard, opcode and modifiers,
   operands, PTX index, control), the code after the kernel's final self-branch or from its first named
   subroutine on (out-of-line code, such as the slow path of a 64-bit division) marked ``outlined``;
4. :func:`per_ptx` attributes each SASS instruction to the PTX basic block it runs for (:class:`Mapping`): a
   SASS basic block belongs to the earliest PTX basic block its instructions came from (parameter loads that
   ptxas repeats near their uses aside): code ptxas hoisted goes with the block it now runs in, and a branch
   ptxas turned into predicated code runs as often as the block that held the branch. A SASS block of nothing
   but a ``BSYNC`` (the join a branch around an ``if`` lands on, stamped with the body's last line) goes with
   the code after it: a warp that skips the body runs it too (a warp whose lanes split at the branch runs it
   twice on the H200, once here). A SASS block inside
   SASS loops belongs to the earliest of those PTX blocks that lie in as many PTX loops: code ptxas sank
   into a loop from the set-up (numba's 3-D indexing recomputes shape-derived values there) runs with the
   loop. A SASS block holding an unpredicated store, atomic or barrier (:data:`PINNED_OPS`, which ptxas does not
   move ahead of the branch that decides whether they run) runs no earlier than that instruction's PTX block:
   after ``v = 0; if in bounds: v = load; s[t] = v; syncthreads()`` ptxas puts the store, the barrier and
   index arithmetic it sank from the set-up in one block after the join, which the earliest block issued ahead
   of the load (a load in such a block makes the access its warp made last: :attr:`Replay.late`; the constant
   lookups of a PTX block whose SASS runs later stay at its start). The call of
   a slow path inside one PTX instruction's code (a float32 division's or square root's,
   which ptxas branches around) is not taken. Loops: a SASS block
   that holds ``k`` copies of its PTX block's anchors (:data:`ANCHOR_OPS`: memory, floating-point
   arithmetic, barriers, shuffles, which ptxas makes one for one) is ``k`` unrolled iterations; a block in a
   SASS loop runs once per ``k`` iterations of its PTX loop (of several SASS loops for one PTX loop, the
   unrolled body and its remainder loops, only the most unrolled one, which runs nearly every iteration, is
   counted), a block in none that holds whole copies of the PTX block beside an unrolled loop (a remainder
   ptxas unrolled into straight code) where the iterations the loop leaves cover it (the trip count of the
   loop's instance, read ahead in the warp's trace: :func:`_plan`), and any other block in none (set-up
   code, a loop unrolled whole) once per entry into the PTX loop. The result: per PTX block the SASS to
   issue (:attr:`Mapping.at_start`) and, per PTX instruction, the SASS attributed to it (for ``smsim asm
   --sass``);
5. :class:`Replay` turns a warp's PTX execution into the SASS stream it issues (see there).

Rules chosen where the mapping is ambiguous, and what they cost: guards are not evaluated (an early
``@P EXIT`` does not end the warp's stream), except those around an unrolled loop, which the trip count
stands for: the loop runs while more iterations are left than its unrolled remainders hold, then each
remainder the iterations left cover (ptxas's usual guards; ``course.rowmax_block`` issued 1.56x the H200's
instructions when every version of its loop ran); SASS blocks with no line information are not issued.

Without the tools, :func:`available` is False and :func:`of` raises :class:`SassUnavailable`; callers
fall back to PTX timing (:mod:`isa.cost`).
"""
from __future__ import annotations

import functools
import hashlib
import os
import re
import shutil
import subprocess
import tempfile
from array import array
from collections import Counter
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from .printer import ptxas_text

#: Not hardware: how long ptxas or nvdisasm may run on one kernel before it is given up
TOOL_TIMEOUT_S = 120
#: Not hardware: how many distinct warp streams a :class:`Replay` keeps for reuse before it starts afresh
STREAMS_KEPT = 4096


class SassUnavailable(RuntimeError):
    """ptxas or nvdisasm is missing, or failed on the kernel (the message says which and why)."""


@dataclass(frozen=True)
class Control:
    """The control code of a Volta+ instruction (bits 105..125 of its 128-bit encoding)."""
    stall: int            # cycles before the warp's next instruction may issue
    yield_: bool          # the scheduler may switch warps after it (the bit is set when it must not)
    write_sb: int         # scoreboard set when its variable-latency result is written (7: none)
    read_sb: int          # scoreboard set when its source registers have been read (7: none)
    wait_mask: int        # scoreboards it waits on before issuing
    reuse: int            # operand reuse cache flags

    @classmethod
    def of(cls, hi: int) -> "Control":
        c = hi >> 41
        return cls(c & 0xF, not (c >> 4) & 1, (c >> 5) & 7, (c >> 8) & 7, (c >> 11) & 0x3F, (c >> 17) & 0xF)


@dataclass(frozen=True)
class SassIns:
    """One SASS instruction of the listing."""
    addr: int
    guard: str | None      # "P0", "!P1", or None
    opcode: str            # "IMAD.WIDE.U32" (with modifiers)
    operands: str
    ptx: int | None        # index of the PTX instruction it came from (its ``.loc`` line - 1)
    control: Control
    label: str | None = None   # the ``.L_x_N`` label at this address, if any
    outlined: bool = False     # after the kernel's final self-branch: a subroutine, not the main path

    @cached_property
    def base(self) -> str:
        """The opcode without its modifiers ("IMAD" of "IMAD.WIDE.U32")."""
        return self.opcode.split(".", 1)[0]

    @property
    def text(self) -> str:
        g = f"@{self.guard} " if self.guard else ""
        return f"{g}{self.opcode} {self.operands}".rstrip()

    def targets(self) -> list:
        """Labels this instruction may branch or call to."""
        return re.findall(r"`\(([^)]+)\)", self.operands)


# --------------------------------------------------------------------------------------------- tools
def _wheel_bin(tool: str, *packages: str) -> str | None:
    """``tool`` as an NVIDIA wheel installs it (``nvidia/<package>/bin/<tool>``), the first of ``packages``
    that has it."""
    import importlib.util
    for package in packages:
        try:
            spec = importlib.util.find_spec("nvidia." + package)
        except (ImportError, ValueError):
            continue
        for root in (spec.submodule_search_locations or []) if spec else []:
            for path in sorted(Path(root).rglob(tool)):
                if path.is_file() and os.access(path, os.X_OK):
                    return str(path)
    return None


def tools() -> tuple | None:
    """``(ptxas, nvdisasm)`` paths: ``$SMSIM_PTXAS``/``$SMSIM_NVDISASM``, then the NVIDIA wheels (CUDA 13's
    ``nvidia-cuda-nvcc`` and ``nvidia-cuda-nvdisasm`` install under ``cu13``; CUDA 12's ``nvidia-cuda-nvcc-cu12``
    under ``cuda_nvcc``), then the PATH; None if either is missing."""
    ptxas = (os.environ.get("SMSIM_PTXAS") or _wheel_bin("ptxas", "cu13", "cuda_nvcc")
             or shutil.which("ptxas"))
    nvdisasm = (os.environ.get("SMSIM_NVDISASM") or _wheel_bin("nvdisasm", "cu13", "cuda_nvdisasm")
                or shutil.which("nvdisasm"))
    return (ptxas, nvdisasm) if ptxas and nvdisasm else None


def available() -> bool:
    """Whether SASS can be obtained here (ptxas and nvdisasm found)."""
    return tools() is not None


def cache_dir(kind: str = "sass") -> Path:
    """Where smsim keeps what it derived once (``kind``: ``"sass"`` listings, ``"numba"`` PTX):
    ``$SMSIM_CACHE/kind`` or ``~/.cache/smsim/kind``."""
    root = os.environ.get("SMSIM_CACHE") or os.path.join(os.path.expanduser("~"), ".cache", "smsim")
    return Path(root) / kind


def store(path: Path, text: str) -> None:
    """Write ``text`` to the cache file ``path`` whole or not at all (processes running side by side, as
    pytest-xdist's workers do, read either the old file or the new one); a read-only home keeps nothing."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        part = path.with_suffix(f".{os.getpid()}.tmp")
        part.write_text(text)
        part.replace(path)
    except OSError:
        pass


def listing(ptx: str) -> str:
    """The ``nvdisasm -g -hex`` listing of the sm_90 cubin ``ptxas -lineinfo`` makes of ``ptx`` (a whole
    module's text), from the disk cache when this text was assembled before."""
    found = tools()
    if found is None:
        raise SassUnavailable("SASS needs ptxas and nvdisasm: pip install 'smsim[sass]' "
                              "(nvidia-cuda-nvcc 13.0, nvidia-cuda-nvdisasm)")
    ptxas, nvdisasm = found
    key = hashlib.sha256((ptxas_release(ptxas) + "\n" + ptx).encode()).hexdigest()[:32]
    cached = cache_dir() / f"{key}.sass"
    if cached.exists():
        return cached.read_text()
    with tempfile.TemporaryDirectory(prefix="smsim-sass-") as tmp:
        src, cubin = os.path.join(tmp, "k.ptx"), os.path.join(tmp, "k.cubin")
        with open(src, "w") as f:
            f.write(ptx)
        target = re.search(r"^\s*\.target\s+(sm_90a?)\b", ptx, re.M)    # numba's LTO PTX is for sm_90a
        arch = target.group(1) if target else "sm_90"
        info = _tool([ptxas, f"-arch={arch}", "-lineinfo", "-v", src, "-o", cubin], "ptxas", stderr=True)
        used = re.search(r"Used (\d+) registers", info)
        text = _tool([nvdisasm, "-g", "-hex", cubin], "nvdisasm")
        if used:
            text = f"// smsim: ptxas used {used.group(1)} registers\n" + text
    store(cached, text)
    return text


@functools.lru_cache(maxsize=None)
def ptxas_release(ptxas: str) -> str:
    """The release line ``ptxas --version`` prints (``"Cuda compilation tools, release 13.0, V13.0.88"``)."""
    lines = _tool([ptxas, "--version"], "ptxas").strip().splitlines()
    return next((line for line in lines if "release" in line), lines[-1] if lines else "")


def _tool(cmd: list, name: str, stderr: bool = False) -> str:
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=TOOL_TIMEOUT_S)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise SassUnavailable(f"{name} could not run: {e}") from None
    if r.returncode:
        msg = "\n".join(line for line in r.stderr.splitlines() if "warning" not in line)[:2000]
        raise SassUnavailable(f"{name} failed (exit {r.returncode}): {msg}")
    return r.stderr + r.stdout if stderr else r.stdout


def registers_used(text: str) -> int | None:
    """Registers per thread ptxas allocated, as :func:`listing` noted them at its top (None if not)."""
    m = re.match(r"// smsim: ptxas used (\d+) registers", text)
    return int(m.group(1)) if m else None


# --------------------------------------------------------------------------------------------- parse
_LINE = re.compile(r'\s*//## File ".*", line (\d+)')
_INS = re.compile(r"\s*/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;\s*/\* (0x[0-9a-f]+) \*/")
_HI = re.compile(r"\s*/\* (0x[0-9a-f]+) \*/")
_LABEL = re.compile(r"^(\.L_x_\d+|\$[\w$.]+):")
_FUNC = re.compile(r"^\s*\.text\.(\S+):|^\s*\.section\s+\.text\.([^,\s]+)")


def texts(listing_text: str, kernel: str | None = None) -> list:
    """The instructions of a kernel of an ``nvdisasm -hex`` listing as text (guard, opcode, operands; no
    addresses, control codes or NOPs; :func:`unnamed`): what two listings of one kernel are compared by."""
    return [unnamed(x.text) for x in parse(listing_text, kernel) if x.base != "NOP"]


def unnamed(text: str) -> str:
    """An instruction's text with the kernel a call or return names (mangled on a GPU, the Python function's
    name here) written ``K``."""
    return re.sub(r"`\(\w+\)", "`(K)", text)


def parse(text: str, kernel: str | None = None) -> list:
    """The :class:`SassIns` of one kernel of an ``nvdisasm -g -hex`` listing (``kernel``: its name; the
    first one when None), in address order."""
    out: list = []
    lines = text.splitlines()
    line: int | None = None
    label = None
    current = None
    outlined = False
    for j, s in enumerate(lines):
        f = _FUNC.match(s)
        if f:
            name = f.group(1) or f.group(2)
            if current is not None and name != current and out:
                break
            current = name if (kernel is None or name == kernel) else None
            continue
        if kernel is not None and current != kernel:
            continue
        m = _LINE.match(s)
        if m:
            line = int(m.group(1))
            continue
        lab = _LABEL.match(s.strip())
        if lab:
            label = lab.group(1)
            if label.startswith("$"):          # a named subroutine (``$__internal_0_$__cuda_sm20_div_s64``)
                outlined = True
            continue
        m = _INS.match(s)
        if not m:
            continue
        hi_m = _HI.match(lines[j + 1]) if j + 1 < len(lines) else None
        hi = int(hi_m.group(1), 16) if hi_m else 0
        body = m.group(2)
        guard = None
        if body.startswith("@"):
            guard, body = body[1:].split(None, 1)
        opcode, _, operands = body.partition(" ")
        ins = SassIns(int(m.group(1), 16), guard, opcode, operands.strip(), None if line is None else line - 1,
                      Control.of(hi), label, outlined)
        if ins.base == "BRA" and guard is None and label is not None and ins.targets() == [label]:
            outlined = True                    # `.L_x_N: BRA .L_x_N`: the end of the kernel's own code
            ins = SassIns(ins.addr, None, ins.opcode, ins.operands, ins.ptx, ins.control, label, True)
        out.append(ins)
        label = None
    return out


# --------------------------------------------------------------------------------------------- classes
#: SASS opcode (without modifiers) -> the pipe it issues to on sm_90 (Nsight's pipe names, lower case)
_PIPES = {
    "fma": ("FFMA", "FADD", "FMUL", "FMNMX", "FSWZADD", "IMAD", "IMUL", "HFMA2", "HADD2", "HMUL2", "FSEL",
            "FSET", "FSETP", "FCHK"),
    "alu": ("IADD3", "LOP3", "SHF", "LEA", "ISETP", "IABS", "IMNMX", "SEL", "MOV", "PRMT", "PLOP3", "P2R",
            "R2P", "SGXT", "BMSK", "LOP", "IADD", "SHL", "SHR", "FLO", "POPC", "BREV", "VABSDIFF", "CS2R",
            "S2R", "NOP", "IDP", "ISCADD", "VIADD", "VIMNMX"),
    "fp64": ("DADD", "DMUL", "DFMA", "DSETP", "DMNMX"),
    "xu": ("MUFU", "I2F", "F2I", "F2F", "I2I", "FRND", "I2FP", "F2IP"),
    "uniform": ("UMOV", "UIADD3", "ULDC", "ULOP3", "USHF", "UIMAD", "ULEA", "UISETP", "USEL", "S2UR", "UPRMT",
                "UPOPC", "UFLO", "UBMSK", "UBREV", "USGXT", "UP2UR", "UR2UP", "UPLOP3", "R2UR", "UCLEA",
                "UVIADD"),
    "lsu": ("LDG", "STG", "LD", "ST", "LDL", "STL", "ATOMG", "ATOM", "RED", "REDG", "LDGSTS", "LDGDEPBAR", "CCTL",
            "ERRBAR", "MEMBAR", "FENCE"),
    "mio": ("LDS", "STS", "ATOMS", "LDSM", "SHFL", "LDC", "ULDC", "BAR", "VOTE", "VOTEU", "MATCH", "REDUX",
            "S2UR", "DEPBAR", "ATOMS"),
    "branch": ("BRA", "BRX", "EXIT", "RET", "CALL", "BSSY", "BSYNC", "WARPSYNC", "JMP", "JMX", "BREAK",
               "YIELD", "KILL", "NANOSLEEP", "BPT", "WARPGROUP"),
}
PIPE: dict = {}
for _pipe, _ops in _PIPES.items():
    for _op in _ops:
        PIPE.setdefault(_op, _pipe)


def pipe_of(ins: SassIns) -> str:
    """The pipe a SASS instruction issues to ("fma", "alu", "fp64", "xu", "uniform", "lsu", "mio",
    "branch"; "other" when unknown)."""
    return PIPE.get(ins.base, "other")


#: arithmetic pipes whose source operands come from the register file's banks (:func:`register_reads`)
REGISTER_READ_PIPES = ("fma", "alu", "fp64", "xu")
_VREG = re.compile(r"(?<![\w.])R(\d+)")
_WIDE_SOURCE = re.compile(r"\.(F64|S64|U64)$")


def register_reads(ins: SassIns, banks: int = 2) -> tuple:
    """Per register-file bank (register number mod ``banks``), the source registers an arithmetic SASS
    instruction (:data:`REGISTER_READ_PIPES`) reads from it: the vector registers among its operands after
    the first (the destination), each once however often it is named, ``RZ``, uniform registers, constants,
    immediates and predicates reading no bank; a 64-bit operand (every register operand of ``DADD``,
    ``DMUL``, ``DFMA``, ``DSETP``, ``DMNMX``; the addend of ``IMAD.WIDE``; the source of a conversion from a
    64-bit type) is a register pair. Operand reuse flags are ignored (see :mod:`smsim.sass_stream`).
    ``()`` for other instructions (memory, branches, the uniform datapath)."""
    if pipe_of(ins) not in REGISTER_READ_PIPES or banks < 1:
        return ()
    ops = [o for o in (x.strip() for x in ins.operands.split(",")) if o][1:]
    base = ins.base
    pairs = base in ("DADD", "DMUL", "DFMA", "DSETP", "DMNMX")
    wide_at = -1
    if base == "IMAD" and "WIDE" in ins.opcode.split("."):
        wide_at = 2
    elif base in ("F2F", "F2I", "I2F", "F2IP", "I2FP", "FRND") and _WIDE_SOURCE.search(ins.opcode):
        pairs = True
    counts = [0] * banks
    seen: set = set()
    for k, o in enumerate(ops):
        for m in _VREG.finditer(o):
            r = int(m.group(1))
            for q in ((r, r + 1) if pairs or k == wide_at else (r,)):
                if q not in seen:
                    seen.add(q)
                    counts[q % banks] += 1
    return tuple(counts)


#: an indexed constant operand, ``c[0x3][R17]`` (not ``c[0x3][0x10]``, nor ``RZ``)
_INDEXED_CONST = re.compile(r"c\[0x[0-9a-f]+\]\[R(?!Z)")
MEMORY_OPS = ("LDG", "STG", "LD", "ST", "LDL", "STL", "ATOMG", "ATOM", "RED", "REDG", "LDS", "STS", "ATOMS")
#: reductions: an atomic whose result nobody reads (sm_90 writes global ones ``REDG``)
REDUCTION_OPS = ("RED", "REDG")
#: SASS that ptxas makes one for one of a PTX instruction (memory, floating-point arithmetic, barriers,
#: shuffles): counting them in a SASS block says how many copies of a PTX block it holds (unrolling)
ANCHOR_OPS = MEMORY_OPS + ("FFMA", "FADD", "FMUL", "DFMA", "DADD", "DMUL", "BAR", "SHFL")
#: anchors with side effects (stores, atomics, barriers), which ptxas never moves ahead of the branch that decides
#: whether their PTX block runs: a SASS block holding one unpredicated runs where that block does (:func:`per_ptx`)
PINNED_OPS = ("STG", "ST", "STL", "STS", "ATOMG", "ATOM", "RED", "REDG", "ATOMS", "BAR")
_ANCHOR_PTX = {"ld", "st", "atom", "red", "fma", "add", "sub", "mul", "bar", "barrier", "shfl"}


def _is_anchor(ins: Any) -> bool:
    """Whether ptxas makes exactly one :data:`ANCHOR_OPS` instruction of this PTX instruction."""
    op = ins.opcode
    if op not in _ANCHOR_PTX:
        return False
    if op in ("ld", "st", "atom", "red"):
        return not any(m in ins.mods for m in ("param", "const"))
    if op in ("bar", "barrier", "shfl"):
        return True
    return ins.type in ("f32", "f64") and "rn" in ins.mods if op != "fma" else ins.type in ("f32", "f64")


# --------------------------------------------------------------------------------------------- mapping
@dataclass
class Mapping:
    """Per PTX instruction (by index), the main-path SASS attributed to it (``sass[i]``), and the whole
    listing (``listing``, parsed)."""
    sass: list
    listing: list = field(repr=False, default_factory=list)
    #: PTX block start (pc) -> the SASS to issue when a warp enters that block: ``(indices into listing, in
    #: address order; k)``: issued every ``k``-th entry in an instance of its innermost PTX loop (a block
    #: of ``k`` unrolled iterations), for ``k = 0`` at the first entry of each instance only, and for
    #: ``k < 0`` (``-k`` unrolled iterations outside any SASS loop: a remainder ptxas unrolled after an
    #: unrolled loop) where the iterations left after the unrolled loop cover it (:meth:`Replay.stream`)
    at_start: dict = field(repr=False, default_factory=dict)
    #: per PTX pc, the PTX loops (indices) holding it, and the innermost one (-1: none)
    loops_at: list = field(repr=False, default_factory=list)
    inner_loop: list = field(repr=False, default_factory=list)
    #: registers per thread ptxas allocated (what the occupancy depends on); None if it did not say
    registers: int | None = None
    #: ``(PTX block start, index into at_start[start])`` of the remainder entries (``k = -1``) that are a
    #: one-copy SASS loop after an unrolled one: it runs every iteration the unrolled loop and the
    #: straight remainders leave (:func:`_plan`)
    looping: frozenset = frozenset()


def _blocks(sass: list) -> list:
    """Basic blocks of the main path: lists of indices into ``sass``."""
    main = [i for i, s in enumerate(sass) if not s.outlined]
    leaders = {main[0]} if main else set()
    labels = {s.label: i for i, s in enumerate(sass) if s.label}
    for i in main:
        s = sass[i]
        if s.label:
            leaders.add(i)
        if s.base in ("BRA", "BRX", "EXIT", "RET", "JMP", "JMX", "BREAK"):
            if i + 1 <= main[-1]:
                leaders.add(i + 1)
            for t in s.targets():
                if t in labels:
                    leaders.add(labels[t])
    out, cur = [], []
    for i in main:
        if i in leaders and cur:
            out.append(cur)
            cur = []
        cur.append(i)
    if cur:
        out.append(cur)
    return out


def per_ptx(kernel: Any, sass: list) -> Mapping:
    """Attribute the main-path SASS of ``kernel`` to its PTX instructions (see the module docstring)."""
    from .cfg import basic_blocks
    n = len(kernel.body)
    ptx_block = [0] * n
    ptx_anchors: Counter = Counter()
    anchor = [_is_anchor(ins) for ins in kernel.body]
    lookup = [ins.opcode == "ld" and any(m in ins.mods for m in ("param", "const")) for ins in kernel.body]
    # a branch's line is what ptxas stamps on code it moved or materialized around it (register zeroing,
    # BSSY): such SASS says little about where its block runs, so branches vote only where nothing else does
    weak = [lk or ins.opcode == "bra" for lk, ins in zip(lookup, kernel.body)]
    for b, blk in enumerate(basic_blocks(kernel)):
        for i in range(blk.start, blk.end):
            ptx_block[i] = b
            ptx_anchors[b] += anchor[i]
    first_of: dict = {}
    for i in range(n - 1, -1, -1):
        first_of[ptx_block[i]] = i
    members: list = [[] for _ in range(n)]
    ploops = _loops([(i, kernel.labels[ins.operands[-1].name]) for i, ins in enumerate(kernel.body)
                     if ins.opcode == "bra" and ins.operands and getattr(ins.operands[-1], "name", None)
                     in kernel.labels])
    labels = {x.label: i for i, x in enumerate(sass) if x.label and not x.outlined}
    sloops = _loops([(i, labels[t]) for i, x in enumerate(sass) if not x.outlined and x.base == "BRA"
                     for t in x.targets() if t in labels])
    steps = _steps(kernel.body)
    placed = []                                  # (SASS block, its PTX block, copies of it, a full copy?)
    for blk in _blocks(sass):
        votes = Counter(ptx_block[sass[i].ptx] for i in blk if sass[i].ptx is not None and sass[i].ptx < n
                        and not weak[sass[i].ptx])
        if not votes:
            votes = Counter(ptx_block[sass[i].ptx] for i in blk if sass[i].ptx is not None and sass[i].ptx < n
                            and not lookup[sass[i].ptx])
        if not votes:
            votes = Counter(ptx_block[sass[i].ptx] for i in blk if sass[i].ptx is not None and sass[i].ptx < n)
        if not votes:
            continue
        home = min(votes)
        depth = sum(lo <= blk[0] <= hi for lo, hi in sloops)
        if depth:      # in a SASS loop: code ptxas sank into it from a block outside the loop runs with it
            level = [b for b in votes if sum(lo <= first_of[b] <= hi for lo, hi in ploops) == depth]
            home = min(level) if level else home
        pinned = [ptx_block[sass[i].ptx] for i in blk if sass[i].base in PINNED_OPS and sass[i].guard is None
                  and sass[i].ptx is not None and sass[i].ptx < n and anchor[sass[i].ptx]]
        if pinned and min(pinned) > home:    # code ptxas sank past a join into the block of a store or barrier
            home = min(pinned)
        found = sum(1 for i in blk if sass[i].base in ANCHOR_OPS and sass[i].ptx is not None
                    and sass[i].ptx < n and anchor[sass[i].ptx] and ptx_block[sass[i].ptx] == home)
        full = bool(ptx_anchors[home]) and found >= ptx_anchors[home]
        copies = max(1, round(found / ptx_anchors[home])) if full else 1
        if not ptx_anchors[home]:           # no anchor to count: the loop counter's step tells the copies
            stepped = _step_copies(sass, blk, steps)
            if stepped:
                full, copies = True, stepped
        placed.append((blk, home, copies, full))
    for j in range(len(placed) - 1):
        blk = placed[j][0]
        if all(sass[i].base == "BSYNC" for i in blk):   # the join a branch around an `if` lands on: every warp
            placed[j] = (blk, placed[j + 1][1], 1, False)   # that gets there runs it, as the code after it
    # How often each SASS block runs per entry of its PTX block: every entry outside PTX loops; inside
    # one, a block in a SASS loop runs once per ``k`` iterations (``k``: the unrolling of that SASS loop,
    # the copies of its full copies), and of several SASS loops for one PTX loop (an unrolled body and its
    # remainder loops) only the most unrolled one, which runs nearly every iteration, is counted; a block
    # in no SASS loop (set-up and remainder checks ptxas put around an unrolled loop, or a loop unrolled
    # whole) runs once per instance of the loop (k = 0).
    unroll: dict = {}
    for blk, _home, copies, full in placed:
        sl = _innermost(sloops, blk[0])
        if sl is not None and full:
            unroll[sl] = max(unroll.get(sl, 1), copies)
    best: dict = {}
    for blk, home, _copies, _full in placed:
        pl, sl = _innermost(ploops, first_of[home]), _innermost(sloops, blk[0])
        if pl is not None and sl is not None and unroll.get(sl, 1) >= best.get(pl, (0, None))[0]:
            best[pl] = (unroll.get(sl, 1), sl)
    at_start: dict = {}
    looping: set = set()                         # (PTX block start, index in at_start[start]): remainder loops
    shares = Counter(home for _blk, home, _copies, _full in placed)
    for blk, home, copies, full in placed:
        start = first_of[home]
        pl, sl = _innermost(ploops, start), _innermost(sloops, blk[0])
        if shares[home] > 1 and any(sass[i].base == "CALL" for i in blk):
            k = None                   # the call of a slow path inside one PTX instruction's code: not taken
        elif pl is None:
            k = 1
        elif sl is None:
            k = -copies if full else 0       # a remainder ptxas unrolled (``-k``: k iterations), or set-up code
        elif best[pl][1] != sl and not _within(sloops, best[pl][1], sl):
            if best[pl][0] <= 1 or unroll.get(sl, 1) != 1 or not any(full for b, _h, _c, full in placed
                                                                       if _innermost(sloops, b[0]) == sl):
                continue
            k = -1                   # the one-copy loop after an unrolled one: the iterations it leaves
            looping.add((start, len(at_start.get(start, ()))))
        else:
            k = unroll.get(sl, 1)
        if k is not None:
            at_start.setdefault(start, []).append((tuple(blk), k))
        for i in blk:
            x = sass[i]
            p = x.ptx if x.ptx is not None and x.ptx < n and ptx_block[x.ptx] == home else start
            members[p].append(x)
    loops_at = [tuple(j for j, (lo, hi) in enumerate(ploops) if lo <= pc <= hi) for pc in range(n)]
    inner = [-1 if _innermost(ploops, pc) is None else ploops.index(_innermost(ploops, pc)) for pc in range(n)]
    return Mapping(members, sass, at_start, loops_at, inner, looping=frozenset(looping))


def _steps(body: list) -> dict:
    """PTX pc -> the step of a loop counter it adds (``add %r, %r, imm``: a register incremented by a
    constant)."""
    from .program import Imm, Reg
    out = {}
    for j, ins in enumerate(body):
        ops = ins.operands
        if ins.opcode in ("add", "sub") and len(ops) == 3 and isinstance(ops[0], Reg) and isinstance(ops[1], Reg) \
                and ops[0].name == ops[1].name and isinstance(ops[2], Imm) and isinstance(ops[2].value, int) \
                and ops[2].value:
            out[j] = abs(ops[2].value)
    return out


def _step_copies(sass: list, blk: list, steps: dict) -> int:
    """How many copies of its PTX loop's body a SASS block holds, told by the step its copy of the loop counter's
    increment adds (an ``IADD3`` of ``0x10`` for a PTX step of 4: four copies), or 0 where none says."""
    for i in blk:
        x = sass[i]
        step = steps.get(x.ptx) if x.ptx is not None else None
        if step and x.base in ("IADD3", "IADD", "IADD32I", "VIADD"):
            for tok in x.operands.replace(",", " ").split():
                try:
                    v = int(tok, 0)
                except ValueError:
                    continue
                if v and abs(v) % step == 0:
                    return abs(v) // step
    return 0


def _loops(edges: list) -> list:
    """Natural-loop spans ``(head, latch)`` of back edges ``(branch index, target index)``, target <= branch."""
    return sorted({(t, b) for b, t in edges if t <= b})


def _innermost(loops: list, i: int) -> tuple | None:
    """The smallest span of ``loops`` that holds index ``i``, or None."""
    inside = [sp for sp in loops if sp[0] <= i <= sp[1]]
    return min(inside, key=lambda sp: sp[1] - sp[0]) if inside else None


def _within(loops: list, outer: tuple | None, inner: tuple) -> bool:
    """Whether SASS loop ``inner`` lies inside ``outer`` (then it belongs to an inner PTX loop)."""
    return outer is not None and outer != inner and outer[0] <= inner[0] and inner[1] <= outer[1]



class Replay:
    """Turns a warp's PTX execution (the ``pcs`` of its trace) into the SASS it issues (:meth:`stream`).

    When the warp enters a PTX basic block, the SASS blocks attributed to it (:attr:`Mapping.at_start`)
    are issued in address order, ptxas's schedule (an unrolled copy of ``k`` iterations once per ``k``
    entries). Each SASS memory instruction takes the next execution of its PTX instruction that has not been
    taken yet, within the iterations its block covers: that execution's addresses are the ones it accesses
    (a wide access ptxas merged from neighbouring PTX ones, :attr:`merged`, takes theirs too).
    A PTX memory execution that no SASS instruction took (a remainder iteration of an unrolled loop, say)
    is issued where the PTX executed it, as its first SASS instruction, so that every access the
    functional run made is timed once, except a local-memory access where the SASS has none
    (:attr:`in_registers`: ptxas kept the local arrays in registers, and the warp accesses no memory).
    Parameter and constant loads (``ld.param``, ``ld.const``: operands in the constant bank, no SASS of
    their own) become zero-slot lookups issued before their block's SASS.
    Stream items index :attr:`sass` (``0 .. len(sass)-1``) or, at ``len(sass) + pc``, stand for PTX
    instruction ``pc`` itself (a constant lookup, or a memory execution no SASS took)."""

    def __init__(self, kernel: Any, mapping: Mapping):
        from .ops.memory import space_of
        self.sass = [s for s in mapping.listing if not s.outlined]
        index = {id(s): i for i, s in enumerate(self.sass)}
        self.at_start = {pc: [(tuple(index[id(mapping.listing[i])] for i in blk), k)
                              for blk, k in blks] for pc, blks in mapping.at_start.items()}
        self.loops_at, self.inner_loop = mapping.loops_at, mapping.inner_loop
        self.registers = mapping.registers
        body = kernel.body
        n = len(body)
        mem = [ins.opcode in ("ld", "st", "atom", "red") for ins in body]
        self.lookup = [m and space_of(ins) in ("param", "const") for m, ins in zip(mem, body)]
        #: SASS indices of indexed constant loads (``LDC R, c[0x3][R]``: an ``ld.const`` at an address in a
        #: register, which ptxas cannot make an operand): each is its PTX load's access, timed as a memory
        #: instruction (the constant cache's port, :meth:`smsim.sm.SM._const_load`), not a lookup
        self.indexed_const = frozenset(i for i, s in enumerate(self.sass)
                                       if s.base == "LDC" and s.ptx is not None and s.ptx < n and mem[s.ptx]
                                       and space_of(body[s.ptx]) == "const" and _INDEXED_CONST.search(s.operands))
        for i in self.indexed_const:
            self.lookup[self.sass[i].ptx] = False
        self.is_mem = [m and not c for m, c in zip(mem, self.lookup)]
        #: SASS indices of the instructions that make a PTX memory execution's accesses
        self.mem_sass = frozenset(i for i, s in enumerate(self.sass) if s.base in MEMORY_OPS) | self.indexed_const
        first_mem: dict = {}
        for i, s in enumerate(self.sass):
            if s.ptx is not None and s.ptx < n and self.is_mem[s.ptx] and i in self.mem_sass:
                first_mem.setdefault(s.ptx, i)
        #: PTX memory pc -> the SASS instruction that stands for it when issued alone (None: none maps)
        self.first_mem = first_mem
        #: PTX local-memory pcs, where the SASS has no local access at all (no ``LDL``/``STL``): ptxas kept the
        #: local arrays in registers (a small ``cuda.local.array`` indexed by values it can enumerate becomes
        #: predicated moves), so the warp issues nothing for them and no local memory is accessed. Where the
        #: SASS does access local memory, a PTX access no SASS took is issued as any other (a spill ptxas
        #: merged differently is still timed)
        local_sass = any(s.base in ("LDL", "STL") for s in self.sass)
        self.in_registers = frozenset() if local_sass else frozenset(
            j for j in range(n) if self.is_mem[j] and j not in first_mem and space_of(body[j]) == "local")
        #: SASS index of a predicated ``EXIT`` that ptxas made of a conditional PTX branch -> that branch's pc:
        #: where the warp's branch was taken, the warp has exited there (nothing after it is issued)
        self.exit_branch = {i: s.ptx for i, s in enumerate(self.sass)
                            if s.base == "EXIT" and s.guard and s.ptx is not None and s.ptx < n
                            and body[s.ptx].opcode == "bra" and body[s.ptx].guard is not None}
        #: those of :attr:`exit_branch` whose branch falls through to the kernel's ``ret`` (a loop's back branch:
        #: ptxas exits where the loop ends), where the warp has exited when the branch was not taken
        self.exit_on_fall = frozenset(i for i, j in self.exit_branch.items()
                                      if j + 1 < n and body[j + 1].opcode in ("ret", "exit"))
        from .cfg import basic_blocks
        #: PTX block start -> its constant lookups, as offsets from the start
        self.lookups = {}
        block_of = [0] * n
        blocks = basic_blocks(kernel)
        for bi, b in enumerate(blocks):
            offs = tuple(i - b.start for i in range(b.start, b.end) if self.lookup[i])
            if offs:
                self.lookups[b.start] = offs
            for i in range(b.start, b.end):
                block_of[i] = bi
        self.nsass = len(self.sass)
        #: PTX memory pcs whose SASS is issued with a later PTX block (:data:`PINNED_OPS`: ptxas sank it past a
        #: join, with the store or barrier it feeds): that block's issue makes the access the warp executed
        #: last, not one to come, and the execution is not issued on its own meanwhile
        self.late = frozenset(self.sass[i].ptx for start, blks in self.at_start.items() for blk, _k in blks
                              for i in blk if self.sass[i].ptx is not None and self.sass[i].ptx < min(n, start)
                              and self.is_mem[self.sass[i].ptx] and i in self.mem_sass)
        #: PTX block starts whose SASS holds both an unrolled loop (k > 1) and unrolled remainders (k < 0)
        self.planned = frozenset(pc for pc, blks in self.at_start.items()
                                 if any(k > 1 for _b, k in blks) and any(k < 0 for _b, k in blks))
        #: per planned block start, the indices of its remainder entries that are one-copy loops
        self.looping = {pc: frozenset(b for q, b in mapping.looping if q == pc) for pc in self.planned}
        self._streams: dict = {}           # a warp's pcs (bytes) -> its stream (:meth:`stream`)
        #: SASS memory instruction -> (bytes per lane, PTX pcs relative to its own that it also does, bytes
        #: from its PTX load's address to the wide access's start): ptxas merges the accesses of neighbouring
        #: PTX loads or stores of one base register into one wider one (four ``ld.shared.f32`` at +0..+12 ->
        #: one ``LDS.128``), aligned to its width, and names it after any of them (NVVM's ``[r+8]``, ``[r]``
        #: -> one ``LDS.128`` of line ``[r+8]``'s: its access starts 8 bytes below that load's)
        self.merged: dict = {}
        for i, s in enumerate(self.sass):
            j = s.ptx
            if j is None or j >= n or not self.is_mem[j] or s.base not in MEMORY_OPS:
                continue
            width, own = _sass_bytes(s), _ptx_bytes(body[j])
            addr = _address(body[j])
            if width <= own or addr is None:
                continue
            b = blocks[block_of[j]]
            mates = {m: _address(body[m]).offset for m in range(b.start, b.end)
                     if m != j and self.is_mem[m] and body[m].opcode == body[j].opcode
                     and space_of(body[m]) == space_of(body[j]) and _same_base(_address(body[m]), addr)}
            for lo in (addr.offset - addr.offset % width, addr.offset):   # aligned to the width; else from j
                also = tuple(m - j for m, off in mates.items() if lo <= off < lo + width)
                if also:
                    self.merged[i] = (width, also, lo - addr.offset)
                    break

    def stream(self, pcs: Any) -> tuple:
        """``(items, positions)``: the stream a warp that executed ``pcs`` issues, and for each item the
        position in ``pcs`` of the PTX execution whose accesses it makes (-1: none). Warps that executed the
        same ``pcs`` (most of a kernel's) share one result, which callers must not change."""
        key = array("l", pcs).tobytes()
        got = self._streams.get(key)
        if got is None:
            if len(self._streams) >= STREAMS_KEPT:
                self._streams.clear()
            got = self._streams[key] = self._stream(pcs)
        return got

    def _stream(self, pcs: Any) -> tuple:
        n = len(pcs)
        is_mem, at_start, lookups, nsass = self.is_mem, self.at_start, self.lookups, self.nsass
        merged, mem_sass = self.merged, self.mem_sass
        sass, first_mem, exit_branch, in_registers = self.sass, self.first_mem, self.exit_branch, self.in_registers
        exit_on_fall = self.exit_on_fall
        late = self.late
        positions: dict = {}
        next_same = [n] * n
        last: dict = {}
        for p in range(n - 1, -1, -1):
            pc = pcs[p]
            if is_mem[pc]:
                positions.setdefault(pc, []).append(p)
            next_same[p] = last.get(pc, n)
            last[pc] = p
        for lst in positions.values():
            lst.reverse()
        ptr = dict.fromkeys(positions, 0)
        taken = bytearray(n)
        count: dict = {}                  # block start -> entries in the current instance of its loop
        seen: dict = {}                   # block start -> the loop instance those entries belong to
        instance: dict = {}               # PTX loop -> how many times the warp has entered it
        loops_at, inner_loop = self.loops_at, self.inner_loop
        planned = self.planned
        plan: dict = {}                   # block start -> (entries the unrolled loop runs, {remainder: entry})
        inside: tuple = ()
        items: list = []
        where: list = []
        for p in range(n):
            pc = pcs[p]
            blocks = at_start.get(pc)
            for off in lookups.get(pc, ()):      # a block's constant lookups, at its start (also where its SASS
                if p + off < n:                  # runs with a later block)
                    items.append(nsass + pcs[p + off])
                    where.append(p + off)
            if blocks is not None:
                now = loops_at[pc]
                if now != inside:
                    for lp in now:
                        if lp not in inside:
                            instance[lp] = instance.get(lp, 0) + 1
                    inside = now
                lp = inner_loop[pc]
                inst = instance.get(lp, 0) if lp >= 0 else 0
                if seen.get(pc) != inst:
                    seen[pc], count[pc] = inst, 0
                c = count[pc]
                count[pc] = c + 1
                if c == 0 and pc in planned:
                    plan[pc] = _plan(blocks, _entries(pcs, p, lp, loops_at), self.looping[pc])
                issue = plan.get(pc) if pc in planned else None
                for b, (blk, k) in enumerate(blocks):
                    if issue is None:
                        if (k <= 0 and c) or (k > 1 and c % k):
                            continue
                    elif (k == 0 and c) or (k > 1 and (c >= issue[0] or c % k)) or \
                            (k < 0 and c not in issue[1].get(b, ())):
                        continue
                    if k == 1:
                        limit = next_same[p]
                    elif k != 0 and next_same[p] < n:
                        limit = p + abs(k) * (next_same[p] - p)
                    else:
                        limit = n
                    for i in blk:
                        s = sass[i]
                        j = s.ptx
                        q = -1
                        if j is not None and i in mem_sass and j in ptr:
                            lst, m = positions[j], ptr[j]
                            while m < len(lst) and taken[lst[m]]:
                                m += 1
                            if m < len(lst) and (p <= lst[m] or j in late) and lst[m] < limit:
                                q = lst[m]
                                taken[q] = 1
                                m += 1
                                for d in merged.get(i, (0, ()))[1]:
                                    if 0 <= q + d < n and pcs[q + d] == j + d:
                                        taken[q + d] = 1
                            ptr[j] = m
                        items.append(i)
                        where.append(q)
                        if i in exit_branch:
                            b = p + exit_branch[i] - pc        # the branch's execution in this block entry
                            if b + 1 < n and pcs[b] == exit_branch[i] and \
                                    (pcs[b + 1] != pcs[b] + 1) != (i in exit_on_fall):
                                return items, where            # the whole warp went the exit's way: it exits here
            if is_mem[pc] and not taken[p] and pc not in late:
                taken[p] = 1
                if pc in in_registers:
                    continue
                i = first_mem.get(pc)
                items.append(nsass + pc if i is None else i)
                where.append(p)
        for p in range(n if late else 0):  # a late one whose block the warp never reached: issued at the end
            if not taken[p] and pcs[p] in late and pcs[p] not in in_registers:
                i = first_mem.get(pcs[p])
                items.append(nsass + pcs[p] if i is None else i)
                where.append(p)
        return items, where


def _entries(pcs: Any, p: int, lp: int, loops_at: list) -> int:
    """How many times the warp enters block ``pcs[p]`` from position ``p`` on before it leaves PTX loop ``lp``
    (the trip count of this instance of the loop)."""
    pc, n, t = pcs[p], len(pcs), 0
    q = p
    while q < n and lp in loops_at[pcs[q]]:
        t += pcs[q] == pc
        q += 1
    return t


def _plan(blocks: list, trips: int, looping: frozenset = frozenset()) -> tuple:
    """Which of a block's SASS runs in a loop instance of ``trips`` iterations, where ptxas unrolled the loop
    ``k`` times (``k > 1``) and unrolled its remainder into straight code of ``-k`` iterations each
    (``k < 0``; the set-up blocks, ``k = 0``, run once), or kept a one-copy loop for it (``looping``: indices
    into ``blocks``): ``(entries, {index in blocks: the entries it runs at})``. The unrolled loop runs while
    at least ``k`` iterations are left (with straight remainders only: while more are left than they hold
    together), then each straight remainder, in address order, where the iterations left cover it (ptxas's
    guards: a remainder of 2 then 1 after a loop of 4 runs 2 + 1 of 3 iterations left, and the loop none),
    then the one-copy loop every iteration still left (``drills.bitrev_scatter``: 6 iterations of a loop
    of 4 run it once and a remainder of 2; 3 run the remainder of 2 and the one-copy loop once). The unrolled
    loop is issued at the entries below ``entries`` that are multiples of its ``k``; a remainder at the entry
    it starts at."""
    k = max(k for _b, k in blocks)
    rest = sum(-kk for b, (_blk, kk) in enumerate(blocks) if kk < 0 and b not in looping)
    loops = trips // k if looping else max(0, -(-(trips - rest) // k))
    left = trips - loops * k
    at: dict = {}
    for b, (_blk, kk) in enumerate(blocks):
        if kk < 0 and b not in looping and left >= -kk:
            at[b] = (trips - left,)
            left += kk
    for b in sorted(looping):
        if left > 0:
            at[b] = tuple(range(trips - left, trips))
            left = 0
    return loops * k, at


def _sass_bytes(s: SassIns) -> int:
    """Bytes per lane a SASS memory instruction accesses (``.64``, ``.128``; else 4)."""
    mods = s.opcode.split(".")[1:]
    return 16 if "128" in mods else 8 if "64" in mods else 4


def _ptx_bytes(ins: Any) -> int:
    from . import ptxtypes
    from .ops.memory import vector_width
    return ptxtypes.size(ins.type) * vector_width(ins)


def _address(ins: Any) -> Any:
    """The address operand of a PTX load or store (an :class:`isa.program.Addr`), or None."""
    from .program import Addr
    return next((o for o in ins.operands if isinstance(o, Addr)), None)


def _same_base(a: Any, b: Any) -> bool:
    return a is not None and b is not None and a.base is not None and str(a.base) == str(b.base)


def of(kernel: Any) -> Mapping:
    """The :class:`Mapping` of ``kernel`` (an :class:`isa.Kernel`): assembles it (cached) and maps it."""
    text = listing(ptxas_text(kernel, index_lines=True))
    mapping = per_ptx(kernel, parse(text, kernel.name))
    mapping.registers = registers_used(text)
    return mapping

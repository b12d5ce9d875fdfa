"""Issuing SASS: the timing model's view of the instructions ptxas made of a kernel.

Life of a SASS instruction (``scheduler.stream = "sass"``): :func:`isa.sass.of` assembles the kernel and
attributes its SASS to PTX basic blocks; :class:`isa.sass.Replay` turns each warp's PTX execution into the
SASS it issues, in ptxas's order (so loads ptxas hoisted ahead of the stores that use them are in flight
together, as on the hardware), each memory instruction tied to the PTX execution whose addresses it
accesses. :func:`infos` gives each SASS instruction what the SM needs to issue it
(:class:`SassInfo`, shaped as :class:`isa.trace.OpInfo`):

* the control code ptxas wrote decides when the warp's next instruction may issue: ``stall`` cycles after
  this one (fixed-latency results: the compiler's own schedule, Nsight's ``wait``), and not before the
  scoreboards in its wait mask are clear. The six scoreboards are registers of the warp's scoreboard
  (ids ``nregs .. nregs+5``): an instruction with a variable-latency result (memory, MUFU, shuffles,
  ``S2R``, ``LDC``) sets its write scoreboard until the result is back (a scoreboard counts: it clears
  when the last of the results on it is back) (``long_scoreboard`` for global and
  local memory, ``short_scoreboard`` otherwise); one whose sources are read late (stores, shared memory)
  sets its read scoreboard for :data:`READ_SCOREBOARD_CYCLES`;
* its pipe (:func:`isa.sass.pipe_of` -> ``pipes.*`` of the config) is busy for its issue interval; integer
  multiply-adds (``IMAD``, ``IMUL``, Nsight's FMA pipe) have a pipe of their own, ``pipes.imad``, the FMA
  pipe's half that takes them (the FP32 instructions run at the full pipe's rate beside them), and one with
  a 64-bit product (``.WIDE``, ``.HI``) holds it ``pipes.imad_wide``'s interval
  (``benchmarks/pipe_mix_hw.py``);
* kernel parameters are constant-bank operands (``c[0x0][0x210]`` on): the PTX ``ld.param`` that loaded
  them becomes a zero-slot constant-cache lookup (:class:`smsim.front_end`) that the instructions reading
  parameters or ``.const`` data wait on (register id ``nregs + 6``; a miss shows as ``imc_miss``); the
  driver's words below the parameters are in the constant cache from the launch.

* the register file's banks (``scheduler.register_banks``, 2 on the H100/H200: register number mod 2):
  each bank reads one source register of a warp-instruction a cycle, so an arithmetic instruction that
  reads ``n > 1`` registers from one bank (:func:`isa.sass.register_reads`: ``FFMA R8, R8, R4, R5`` two from
  bank 0, ``DFMA R8, R8, UR6, R4`` two from each) holds that bank ``n`` cycles, and any warp's next
  instruction reading it waits (``dispatch_stall``; an FP64 one ``math_pipe_throttle``, as the H200 counts
  it: the ``DFMA`` chain's wait shows there, not as ``dispatch_stall``). Bank ``b`` is a pipe of the
  sub-partition named ``rf<b>`` (:data:`RF_UNITS`). The operand reuse cache is left out: with the warps
  taking turns at the dispatch, as when the banks are the limit, the operand a warp marked for reuse is gone
  by its next instruction (``benchmarks/fp64_rate_hw.py``: the ``FFMA`` chain at 16 warps a sub-partition
  takes the time of all its bank reads, reuse flags or not).

What it leaves out: dual-issue limits of the uniform datapath, register reads of memory instructions, and
predicates: a guarded SASS instruction is issued whether or not its guard holds (so an early ``@P EXIT`` does
not end the warp there; the PTX trace decides where the warp goes).
"""
from __future__ import annotations

import re
from typing import Any, Sequence

from isa import sass as sass_mod
from isa.trace import fence_scope

from .config import MAX_REGISTER_BANKS
from .front_end import PARAM_BANK_OFFSET

#: Not measured: cycles until a store's or shared access's source registers are read and its read
#: scoreboard is released (the operand collector reads them within a few cycles of issue)
READ_SCOREBOARD_CYCLES = 4
SCOREBOARDS = 6
#: SASS pipe (isa.sass.pipe_of) -> the config's pipe (``pipes.<name>``); "" issues to no modelled pipe
PIPE_UNIT = {"fma": "fp32", "alu": "int", "fp64": "fp64", "xu": "sfu", "branch": "branch", "uniform": "",
             "lsu": "", "mio": "", "other": ""}
#: the sub-partition's pipe names for its register-file banks (``pipe_free`` keys; reason ``dispatch_stall``)
RF_UNITS = tuple(f"rf{b}" for b in range(MAX_REGISTER_BANKS))
_SYNC = ("SHFL", "VOTE", "VOTEU", "MATCH", "REDUX")
#: integer multiply-adds: ``pipes.imad`` (those with a modifier of IMAD_WIDE: ``pipes.imad_wide``'s interval)
IMAD_OPS = ("IMAD", "IMUL")
IMAD_WIDE = ("WIDE", "HI")


class SassInfo:
    """One instruction of the SASS stream, with the fields of :class:`isa.trace.OpInfo` the SM reads
    (``op`` and ``ins`` are the object itself, so that reports print its SASS text; ``ptx``: the index of the
    PTX instruction it came from, None if none) and the control code:
    ``stall`` cycles to the warp's next issue, ``read_sb`` (a register id or None) and ``latency_cycles``
    of a variable-latency result that is not a memory access (``special.latency_cycles`` for ``S2R``);
    ``special``: an ``S2UR``, which waits for the SM's special-register unit (:mod:`smsim.special`);
    ``resolve``: cycles a branch (or a ``BSYNC``) holds the warp past ``stall``, ``branch_resolving``;
    ``one_op``: an atomic that adds the count of its active lanes once (``ATOMS.POPC.INC``: ptxas's code for
    every lane adding 1 to one address), one operation however many lanes the PTX names; ``rf``: the
    register-file banks (:data:`RF_UNITS`) it reads, which must be free for it to issue, and ``rf_book``:
    ``(bank, cycles)`` for those it holds more than its issue cycle."""
    __slots__ = ("op", "ins", "index", "ptx", "srcs", "dsts", "results", "unit", "latency", "cost", "space",
                 "nbytes", "mem", "cache_op", "barrier", "fence", "branch", "line", "stall", "read_sb",
                 "latency_cycles", "sass", "float_add", "swap", "special", "resolve", "one_op", "spec", "shift", "rf",
                 "rf_book")

    def __init__(self, index: int, sass: Any, line: int | None, ptx: int | None = None):
        self.op = self.ins = self
        self.index, self.sass, self.line, self.ptx = index, sass, line, ptx
        self.srcs: tuple = ()
        self.dsts: tuple = ()                    # nothing to wait for before issuing (scoreboards count)
        self.results: tuple = ()                 # the write scoreboard its variable-latency result sets
        self.unit, self.latency, self.cost = "", "fixed", 1
        self.space: str | None = None
        self.nbytes = 0
        self.mem: str | None = None
        self.cache_op: str | None = None
        self.float_add = False                   # an atomic float add (L2 chains them on one word)
        self.swap = False                        # a compare-and-swap
        self.barrier = self.branch = False
        self.fence = ""                          # a fence's scope: "cta", "gpu", "sys" ("": not a fence)
        self.stall, self.read_sb, self.latency_cycles = 1, None, 0.0
        self.special = False
        self.resolve = 0.0
        self.one_op = False
        self.shift = 0                           # bytes a merged access starts below its PTX load's address
        self.rf: tuple = ()                      # register-file banks it reads, and those it holds (bank, cycles)
        self.rf_book: tuple = ()
        self.spec = ""                           # the pipe spec (``pipes.<spec>``) of its issue interval, if not
                                                 # its unit's

    def text(self) -> str:
        s = self.sass
        return s.text if isinstance(s, sass_mod.SassIns) else "(PTX) " + s.text()


_CONST = re.compile(r"c\[0x([0-9a-f]+)\]\[0x([0-9a-f]+)\]")


def _reads_parameters(operands: str) -> bool:
    """Whether a SASS instruction reads kernel parameters or ``.const`` data from the constant banks: bank 0
    from ``PARAM_BANK_OFFSET`` on, or another bank. The driver's words below the parameters (the block's
    dimensions, the stack pointer, memory descriptors) are in the constant cache from the launch: the
    H200's empty kernels, which read only those, show no ``imc_miss``."""
    for bank, offset in _CONST.findall(operands):
        if int(bank, 16) or int(offset, 16) >= PARAM_BANK_OFFSET:
            return True
    return False


def infos(prog: Any, replay: sass_mod.Replay, ptx: Sequence, cfg: Any) -> tuple:
    """``(infos, registers)``: a :class:`SassInfo` per stream item of ``replay`` (SASS instructions, then
    one per PTX instruction for lookups and lone memory executions), and the register ids the warps need
    (the PTX registers, the scoreboards, the constant-bank one). ``ptx``: the PTX
    :class:`isa.trace.OpInfo` of ``prog``."""
    nregs = len(prog.reg_dtypes)
    sb = lambda b: nregs + b                     # noqa: E731
    const_reg = nregs + SCOREBOARDS
    body = prog.kernel.body
    pipes = cfg.pipes
    banks = cfg.scheduler.register_banks
    out: list = []
    for i, s in enumerate(replay.sass):
        j = s.ptx if s.ptx is not None and s.ptx < len(body) else None
        info = SassInfo(i, s, ptx[j].line if j is not None else None, j)
        c = s.control
        info.stall = max(1, c.stall)
        info.srcs = tuple(sb(b) for b in range(SCOREBOARDS) if c.wait_mask >> b & 1)
        if _reads_parameters(s.operands):
            info.srcs += (const_reg,)
        if c.write_sb < SCOREBOARDS:
            info.results = (sb(c.write_sb),)
        if c.read_sb < SCOREBOARDS:
            info.read_sb = sb(c.read_sb)
        pipe = sass_mod.pipe_of(s)
        info.unit = "sync" if s.base in _SYNC else PIPE_UNIT.get(pipe, "")
        if s.base == "S2UR":                     # the special-register unit, behind the MIO queue
            info.special, info.unit = True, "special"
        elif s.base == "S2R":                    # no pipe: its result a fixed time after issue
            info.unit = ""
        elif s.base in IMAD_OPS:                 # the FMA pipe's half that multiplies integers
            info.unit = "imad"
            if any(m in IMAD_WIDE for m in s.opcode.split(".")[1:]):
                info.spec = "imad_wide"
        if j is not None and i in replay.mem_sass and ptx[j].mem:
            p = ptx[j]
            info.mem, info.space, info.nbytes, info.cache_op = p.mem, p.space, p.nbytes, p.cache_op
            info.float_add, info.swap = p.float_add, p.swap
            if s.base in sass_mod.REDUCTION_OPS:  # ptxas made an atomic whose result is unused a reduction
                info.mem = "red"
            info.one_op = "POPC" in s.opcode.split(".")
            info.latency = p.latency
            if i in replay.merged:               # one access for neighbouring PTX ones: its width and start
                info.nbytes, _, info.shift = replay.merged[i]
        reads = sass_mod.register_reads(s, banks) if banks else ()
        info.rf = tuple(RF_UNITS[b] for b, n in enumerate(reads) if n)
        info.rf_book = tuple((RF_UNITS[b], n) for b, n in enumerate(reads) if n > 1)
        info.barrier = s.base == "BAR" and "ARV" not in s.opcode
        info.fence = fence_scope(s.opcode.split(".")) if s.base in ("MEMBAR", "FENCE") else ""
        info.branch = s.base in ("BRA", "BRX", "JMP", "JMX", "RET", "CALL")
        info.resolve = (cfg.scheduler.branch_resolve_cycles if info.branch else
                        cfg.scheduler.reconverge_cycles if s.base == "BSYNC" else 0.0)
        if info.results and not info.mem and not info.special:
            if s.base == "S2R":
                info.latency_cycles = cfg.special.latency_cycles
            else:
                unit = info.unit if info.unit not in ("", "branch") else "sync" if pipe == "mio" else "sfu"
                info.latency_cycles = getattr(pipes, unit).latency_cycles
            info.latency = "short_scoreboard"
        out.append(info)
    n = len(replay.sass)
    for pc, p in enumerate(ptx):                # a constant lookup, or a memory execution no SASS took
        info = SassInfo(n + pc, p.op.ins, p.line, pc)
        info.mem, info.space, info.nbytes, info.cache_op = p.mem, p.space, p.nbytes, p.cache_op
        info.float_add, info.swap = p.float_add, p.swap
        info.latency, info.fence, info.barrier = p.latency, p.fence, p.barrier
        if replay.lookup[pc]:
            info.cost, info.results = 0, (const_reg,)
        else:
            info.unit = p.unit if p.unit in ("fp32", "fp64", "int", "sfu", "sync") else ""
        out.append(info)
    return out, const_reg + 1

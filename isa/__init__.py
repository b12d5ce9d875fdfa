"""smsim's instruction set: a subset of PTX, its parser and printer, and the functional interpreter.

    module = isa.parse(open("k.ptx").read())
    kernel = module.find("transpose")          # by part of a (mangled) name; module[name] for exact
    print(kernel.to_text())                    # PTX again, annotated with source lines
    isa.run(kernel, grid=(4, 4), block=(32, 8), args=(out, inp, np.int32(n)))

The package never imports simpy or smsim: the timing model builds on it, not the other way round.
"""
from . import ops  # noqa: F401  (first: registers every opcode family, so isa.TABLE is complete on import)
from .errors import KernelError, ParseError
from .interp import run
from .opcodes import LATENCIES, TABLE, UNITS, OpFamily, latency_of, unit_of
from .parser import parse
from .program import Addr, Imm, Instruction, Kernel, Module, Param, Pair, Reg, RegDecl, SourceLoc, Sym, Vec, \
    VarDecl

__all__ = ["parse", "run", "ParseError", "KernelError", "Module", "Kernel", "Instruction", "Param", "RegDecl",
           "VarDecl", "SourceLoc", "Reg", "Imm", "Sym", "Addr", "Vec", "Pair", "TABLE", "OpFamily", "UNITS",
           "LATENCIES", "unit_of", "latency_of"]

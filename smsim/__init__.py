"""smsim: a cycle-approximate simulator of one GPU streaming multiprocessor and its memory subsystem.

A kernel written in Python (numba.cuda style, :mod:`smsim.cuda`) or PTX is compiled to the ISA of package
:mod:`isa` and launched with :func:`launch`: functionally (``timing=False``) or timed on a discrete-event
model of one SM and its memory (the default), which reports cycles, stall reasons and Nsight Compute's
counters; :meth:`LaunchResult.report` and :mod:`smsim.plots` show them. The model's parts are chosen by
name in the config (:mod:`smsim.config`, :mod:`smsim.registry`); importing smsim registers the built-in
ones (:mod:`smsim.mem`, :mod:`smsim.policies`). :class:`Case` and :class:`Setup` describe a launch with
its expected outputs, as the built-in workloads and the command line's ``smsim run FILE.py`` use them.
"""
__version__ = "0.1.0"

from isa.errors import CompileError, KernelError

from . import cuda, front_end, mem, policies  # noqa: F401  (register the built-in models and policies)
from .case import Case, PtxKernel, Setup
from .launch import LaunchResult, compile, launch

__all__ = ["cuda", "launch", "compile", "LaunchResult", "CompileError", "KernelError", "Case", "Setup",
           "PtxKernel"]

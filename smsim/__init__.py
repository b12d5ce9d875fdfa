"""smsim: a cycle-approximate simulator of one GPU streaming multiprocessor and its memory subsystem.

This release provides the instruction set and its functional interpreter (package :mod:`isa`); the Python
kernel compiler, the timing model and the reports arrive in later releases.
"""
__version__ = "0.1.0"

from isa.errors import CompileError, KernelError

from . import cuda
from .launch import LaunchResult, compile, launch

__all__ = ["cuda", "launch", "compile", "LaunchResult", "CompileError", "KernelError"]

"""smsim: a cycle-approximate simulator of one GPU streaming multiprocessor and its memory subsystem.

This release provides the instruction set and its functional interpreter (package :mod:`isa`); the Python
kernel compiler, the timing model and the reports arrive in later releases.
"""
__version__ = "0.1.0"

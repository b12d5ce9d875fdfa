"""Opcode families of the PTX subset, registered into :data:`isa.opcodes.TABLE` on import.

``alu`` (arithmetic, logic, comparison, conversion; split over ``alu_int``, ``alu_float`` and
``convert``), ``memory`` and ``control``.
"""
from __future__ import annotations

from . import alu, control, memory  # noqa: F401  (each registers its families on import)

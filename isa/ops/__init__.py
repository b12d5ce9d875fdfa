"""Opcode families of the PTX subset, registered into :data:`isa.opcodes.TABLE` on import.

``alu`` (arithmetic, logic, comparison, conversion; split over ``alu_int``, ``alu_float`` and
``convert``), ``memory`` and ``control``.
"""

"""The errors users of :mod:`isa` see: :class:`ParseError` for bad PTX text, :class:`CompileError` for a
Python kernel the compiler (:mod:`isa.compiler`) cannot translate, and :class:`KernelError` for a kernel
that goes wrong while it runs (or is launched wrongly)."""
from __future__ import annotations

from typing import Any


class ParseError(ValueError):
    """Bad PTX text: carries the line, column, the offending line and a caret under the column."""

    def __init__(self, message: str, line: int, col: int, source_line: str = ""):
        self.message, self.line, self.col, self.source_line = message, line, col, source_line
        text = f"line {line}, column {col}: {message}"
        if source_line:
            text += f"\n    {source_line}\n    {' ' * (col - 1)}^"
        super().__init__(text)


class KernelError(RuntimeError):
    """A kernel failed at run time or could not be launched.

    The message names the kernel, the block and thread indices, the instruction and its source location
    where those apply; the same facts are attributes for programs.
    """

    def __init__(self, message: str, kernel: str = "", block: tuple | None = None, threads: list | None = None,
                 instruction: str = "", loc: Any = None):
        self.kernel, self.block, self.threads, self.instruction, self.loc = kernel, block, threads, instruction, loc
        parts = [f"kernel {kernel}: {message}" if kernel else message]
        if block is not None:
            parts.append(f"block {block}")
        if threads:
            parts.append("thread " + ", ".join(str(t) for t in threads[:4])
                         + (f" (and {len(threads) - 4} more)" if len(threads) > 4 else ""))
        if instruction:
            parts.append(f"at '{instruction}'")
        if loc is not None:
            parts.append(f"({loc})")
        super().__init__("\n  ".join(parts))


class CompileError(ValueError):
    """A Python kernel the compiler cannot translate: ``file:line:col``, the message, the source line with a
    caret under the column, and what is supported instead (``hint``)."""

    def __init__(self, message: str, file: str = "", line: int = 0, col: int = 0, source_line: str = "",
                 hint: str = ""):
        self.message, self.file, self.line, self.col = message, file, line, col
        self.source_line, self.hint = source_line, hint
        text = f"{file}:{line}:{col}: {message}" if file else message
        if source_line:
            text += f"\n    {source_line}\n    {' ' * max(col - 1, 0)}^"
        if hint:
            text += f"\n  supported instead: {hint}"
        super().__init__(text)

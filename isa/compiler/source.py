"""A Python function's source: its AST, the file and line it came from, and errors pointing into it.

Life of a source: :meth:`Source.of` reads a function's source once (cached per function), dedents and
parses it and keeps its first function definition, the names it assigns, the names it declares
``global`` and its closure's values. The lowerer asks :meth:`Source.position` where an AST node is in the
file (for ``.loc`` lines) and :meth:`Source.error` for a :class:`~isa.errors.CompileError` showing the
source line with a caret under the column.
"""
from __future__ import annotations

import ast
import inspect
import textwrap
from typing import Any, Callable

from ..errors import CompileError


class Source:
    """The parsed source of one Python function (kernel or device function), read once per function."""

    _cache: dict = {}

    def __init__(self, fn: Callable[..., Any]) -> None:
        self.fn = fn
        try:
            lines, first = inspect.getsourcelines(fn)
            self.file = inspect.getsourcefile(fn) or "<kernel>"
        except (OSError, TypeError) as e:
            raise CompileError(f"cannot read the source of {getattr(fn, '__name__', fn)!r} ({e}); smsim compiles "
                               f"kernels from their source, so define them in a file") from None
        text = "".join(lines)
        dedented = textwrap.dedent(text)
        self.indent = len(lines[0]) - len(lines[0].lstrip()) if lines else 0
        self.first = first if first > 0 else 1
        self.lines = text.splitlines()
        try:
            tree = ast.parse(dedented)
        except SyntaxError as e:
            raise CompileError(f"syntax error: {e.msg}", self.file, self.first + (e.lineno or 1) - 1,
                               (e.offset or 1) + self.indent) from None
        fdefs = [n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
        if not fdefs:
            raise CompileError(f"no function definition found in the source of {fn.__name__}", self.file, first)
        self.fdef = fdefs[0]
        if isinstance(self.fdef, ast.AsyncFunctionDef):
            raise self.error(self.fdef, "async functions cannot be kernels")
        self.local_names = {n.id for n in ast.walk(self.fdef) if isinstance(n, ast.Name)
                            and isinstance(n.ctx, ast.Store)} | {a.arg for a in self.fdef.args.args}
        self.global_names = {name for n in ast.walk(self.fdef) if isinstance(n, ast.Global) for name in n.names}
        self.closure = {}
        if fn.__closure__:
            self.closure = {name: c.cell_contents for name, c in zip(fn.__code__.co_freevars, fn.__closure__)}

    @classmethod
    def of(cls, fn: Callable[..., Any]) -> Source:
        src = cls._cache.get(fn)
        if src is None:
            src = cls._cache[fn] = cls(fn)
        return src

    def position(self, node: ast.AST) -> tuple[int, int]:
        """(line in the file, 1-based column) of an AST node."""
        return self.first + node.lineno - 1, node.col_offset + 1 + self.indent

    def error(self, node: ast.AST, message: str, hint: str = "") -> CompileError:
        line, col = self.position(node) if hasattr(node, "lineno") else (self.first, 1)
        k = line - self.first
        text = self.lines[k] if 0 <= k < len(self.lines) else ""
        return CompileError(message, self.file, line, col, text, hint)

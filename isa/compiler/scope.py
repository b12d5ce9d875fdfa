"""What the lowerer knows about the function it is lowering: its :class:`Scope`, its loops and gone names.

Life of a scope: :class:`~.lower.Lowerer` opens one for the kernel, binding the parameters in its
environment; each call of a device function (:meth:`~.calls.Calls.inline`) opens another for the callee,
its parameters bound to the argument values and a result register and end label to return to, lowers the
callee's body in it and restores the caller's. While a loop is lowered its :class:`Loop` (carried
registers and labels) is on the scope's loop stack, for ``break`` and ``continue``; after a runtime loop
its variable is :class:`Gone`. :mod:`.lower` and :mod:`.calls` both import this module; it imports
neither.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

if TYPE_CHECKING:
    from .source import Source


class Scope:
    """One function being lowered (the kernel or an inlined device function)."""

    def __init__(self, func: Callable[..., Any], source: Source, key: tuple, env: dict,
                 ret: list | None = None) -> None:
        self.func, self.src, self.key, self.env = func, source, key, env
        self.ret = ret                 # device function: [result register or None, end label]
        self.loops: list = []          # innermost last: Loop


class Gone:
    """A name that must not be read any more (a runtime loop's variable after the loop)."""

    def __init__(self, message: str, hint: str) -> None:
        self.message, self.hint = message, hint


class Loop:
    """The loop being lowered: its carried registers (and their type keys) and its labels."""

    def __init__(self, regs: dict, cont: str, exit_: str, keys: dict) -> None:
        self.regs, self.cont, self.exit, self.keys = regs, cont, exit_, keys

"""Tokenizer for PTX text.

Turns text into :class:`Token` objects with 1-based line and column, dropping ``//`` and ``/* */``
comments. Opcodes keep their dots (``ld.global.f32`` is one ``ident``), registers keep their component
(``%tid.x``), and PTX float literals (``0f3F800000``, ``0d...``) are numbers.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from .errors import ParseError

_TOKEN = re.compile(r"""
    (?P<ws>[ \t\r\f\v]+)
  | (?P<nl>\n)
  | (?P<lcomment>//[^\n]*)
  | (?P<bcomment>/\*.*?\*/)
  | (?P<string>"(?:[^"\\\n]|\\.)*")
  | (?P<reg>%[A-Za-z_$][\w$]*(?:\.[xyz](?![\w$]))?)
  | (?P<fnum>0[fF][0-9A-Fa-f]{8}|0[dD][0-9A-Fa-f]{16})
  | (?P<num>0[xX][0-9A-Fa-f]+[uU]?|0[bB][01]+[uU]?|(?:\d+\.\d*|\.\d+|\d+)(?:[eE][+-]?\d+)|\d+\.\d*|\d+[uU]?)
  | (?P<directive>\.[A-Za-z_][\w$]*)
  | (?P<ident>[A-Za-z_$][\w$]*(?:\.[A-Za-z_0-9][\w$]*)*)
  | (?P<punct>[,;:\[\]{}()<>+\-|@!=*])
""", re.VERBOSE | re.DOTALL)


@dataclass(frozen=True)
class Token:
    kind: str      # reg, fnum, num, directive, ident, string, punct, eof
    text: str
    line: int
    col: int


def tokenize(text: str) -> list:
    """Split PTX ``text`` into tokens (comments and whitespace dropped, an ``eof`` token last)."""
    tokens = []
    pos, line, line_start = 0, 1, 0
    n = len(text)
    while pos < n:
        m = _TOKEN.match(text, pos)
        if m is None:
            col = pos - line_start + 1
            raise ParseError(f"unexpected character {text[pos]!r}", line, col, _line_of(text, line_start))
        kind = m.lastgroup
        tok_text = m.group()
        if kind == "nl":
            line += 1
            line_start = m.end()
        elif kind == "bcomment":
            nls = tok_text.count("\n")
            if nls:
                line += nls
                line_start = pos + tok_text.rfind("\n") + 1
        elif kind not in ("ws", "lcomment"):
            tokens.append(Token(kind, tok_text, line, pos - line_start + 1))
        pos = m.end()
    tokens.append(Token("eof", "", line, pos - line_start + 1))
    return tokens


def _line_of(text: str, start: int) -> str:
    end = text.find("\n", start)
    return text[start:] if end < 0 else text[start:end]

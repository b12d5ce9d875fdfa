"""Inlining of PTX device functions (``.func``), on the text, before parsing.

smsim's interpreter runs one flat instruction stream per kernel: it has no call stack. Compilers still leave
some calls in: numba-cuda's NVVM keeps libdevice's float64 ``sin``/``cos``/``tan`` argument reduction
(``__internal_trig_reduction_slowpathd``) and its float64 ``pow`` (``__internal_accurate_pow``) as
functions, and nvcc keeps large or ``__noinline__`` device functions. :func:`inline_calls` replaces every
direct call with the callee's body, so the kernel computes the same values, as a compiler that inlines would
emit it (ptxas then assembles the inlined kernel for the SASS stream).

Life of a call site (``call.uni (retval0), f, (param0, param1);`` inside the caller's ``{ // callseq }``
scope, where ``.param`` variables carry the arguments and the result): the scope's ``.param`` variables
become ``.local`` variables of a name of their own (``st.param``/``ld.param`` on them become
``st.local``/``ld.local``); the call becomes a ``{ }`` scope holding the callee's body with its registers,
labels and local variables renamed for this call site, its ``ld.param`` of its own parameters reading the
caller's argument variables, its ``st.param`` into ``func_retval0`` writing the caller's result variable,
and each ``ret`` a branch to the end of the inlined body. Callees that call other functions are inlined into
first; a function that calls itself, directly or not, an indirect call (through a register and a
``.callprototype``) and a call under a guard predicate are :class:`~isa.errors.ParseError`\\ s that say so.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from .errors import ParseError

_FUNC = re.compile(r"(?:\.(?:visible|weak|extern)\s+)*\.func\s*(?:\((?P<ret>[^)]*)\))?\s*(?P<name>[A-Za-z_$][\w$]*)"
                   r"\s*(?:\((?P<params>[^)]*)\))?\s*(?P<end>[;{])")
_CALL = re.compile(r"(?P<guard>@!?%[\w$]+\s+)?call(?:\.uni)?\s+(?:\((?P<rets>[^)]*)\)\s*,\s*)?"
                   r"(?P<name>%?[A-Za-z_$][\w$]*)\s*(?:,\s*\((?P<args>[^)]*)\))?\s*(?:,\s*[A-Za-z_$][\w$]*\s*)?;")
_PARAM_NAME = re.compile(r"\.param\b[^;,)]*?(?P<name>[A-Za-z_$][\w$]*)\s*(?:\[\s*\d*\s*\])?\s*$")
_REG_DECL = re.compile(r"\.reg\s+\.\w+\s+(?P<names>[^;]*);")
_LOCAL_DECL = re.compile(r"\.local\b[^;]*?(?P<name>[A-Za-z_$][\w$]*)\s*(?:\[[^\]]*\])?\s*;")
_LABEL = re.compile(r"^\s*(?P<name>[A-Za-z_$][\w$]*)\s*:", re.M)
_REG_TOKEN = re.compile(r"%[A-Za-z_$][\w$]*")
_RET = re.compile(r"(?P<guard>@!?%[\w$]+\s+)?\bret(?:\.uni)?\s*;")


@dataclass
class _Func:
    name: str
    ret: str            # the name of its return parameter ("" when it returns nothing)
    params: list        # its parameters' names, in order
    body: str           # the text between its braces
    line: int           # where it is defined (for errors)


def _error(text: str, pos: int, message: str) -> ParseError:
    line = text.count("\n", 0, pos) + 1
    start = text.rfind("\n", 0, pos) + 1
    end = text.find("\n", pos)
    src = text[start:end if end >= 0 else len(text)]
    return ParseError(message, line, pos - start + 1, src.expandtabs(1))


def _strip_comment(line: str) -> str:
    cut = line.find("//")
    return line if cut < 0 else line[:cut]


def _matching_brace(text: str, open_pos: int) -> int:
    """The position of the ``}`` closing the ``{`` at ``open_pos`` (comments skipped)."""
    depth = 0
    i = open_pos
    n = len(text)
    while i < n:
        c = text[i]
        if c == "/" and text.startswith("//", i):
            nl = text.find("\n", i)
            i = n if nl < 0 else nl
            continue
        if c == "/" and text.startswith("/*", i):
            e = text.find("*/", i + 2)
            i = n if e < 0 else e + 2
            continue
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    raise _error(text, open_pos, "missing '}' closing this '{'")


def _names(decl: str) -> list:
    """The parameter names of a ``.func`` header's parameter (or return) list."""
    out = []
    for part in _strip_comment(decl.replace("\n", " ")).split(","):
        part = part.strip()
        if not part:
            continue
        m = _PARAM_NAME.search(part)
        if m:
            out.append(m.group("name"))
    return out


def _functions(text: str) -> tuple:
    """``(functions by name, text without their definitions and declarations)``."""
    funcs: dict = {}
    out = []
    pos = 0
    for m in _FUNC.finditer(text):
        if m.start() < pos:
            continue
        line_start = text.rfind("\n", 0, m.start()) + 1
        if "//" in text[line_start:m.start()]:
            continue                                  # inside a comment
        out.append(text[pos:m.start()])
        if m.group("end") == ";":                     # a declaration (prototype): dropped
            pos = m.end()
            continue
        close = _matching_brace(text, m.end() - 1)
        name = m.group("name")
        funcs[name] = _Func(name, (_names(m.group("ret") or "") or [""])[0], _names(m.group("params") or ""),
                            text[m.end():close], text.count("\n", 0, m.start()) + 1)
        pos = close + 1
    out.append(text[pos:])
    return funcs, "".join(out)


class _Inliner:
    def __init__(self, text: str):
        self.funcs, self.rest = _functions(text)
        self.site = 0
        self.done: dict = {}        # function name -> its body with its own calls inlined

    def body(self, name: str, stack: tuple) -> str:
        if name in stack:
            f = self.funcs[name]
            raise ParseError(f"device function {name} calls itself ({' -> '.join(stack + (name,))}): smsim "
                             "inlines device functions and cannot inline a recursive one", f.line, 1)
        if name not in self.done:
            self.done[name] = self.calls(self.funcs[name].body, stack + (name,))
        return self.done[name]

    def calls(self, text: str, stack: tuple = ()) -> str:
        """``text`` with every call in it replaced by the callee's body."""
        while True:
            m = next((c for c in _CALL.finditer(text) if "//" not in
                      text[text.rfind("\n", 0, c.start()) + 1:c.start()]), None)
            if m is None:
                return text
            name = m.group("name")
            if name.startswith("%"):
                raise _error(text, m.start(), "an indirect call (through a register) is not supported: smsim "
                                              "inlines device functions and needs to know the callee")
            if name not in self.funcs:
                raise _error(text, m.start(), f"call of {name}, a function this PTX does not define (an "
                                              ".extern function, such as vprintf or malloc, is not supported)")
            if m.group("guard"):
                raise _error(text, m.start(), "a call under a guard predicate is not supported: branch around "
                                              "it instead")
            text = self.inline_site(text, m, self.body(name, stack))

    def inline_site(self, text: str, m: re.Match, body: str) -> str:
        f = self.funcs[m.group("name")]
        self.site += 1
        tag = f"_i{self.site}"
        rets = [r.strip() for r in (m.group("rets") or "").split(",") if r.strip()]
        args = [a.strip() for a in (m.group("args") or "").split(",") if a.strip()]
        if len(args) != len(f.params) or len(rets) > (1 if f.ret else 0):
            raise _error(text, m.start(), f"call of {f.name} with {len(args)} arguments and {len(rets)} results "
                                          f"where it takes {len(f.params)} and returns {1 if f.ret else 0}")
        # the caller's scope around the call: its .param variables become .local ones of this site
        open_pos = _enclosing_open(text, m.start())
        close_pos = _matching_brace(text, open_pos)
        scope = text[open_pos:close_pos + 1]
        call_at = m.start() - open_pos
        caller = {n: f"__cs{tag}_{n}" for n in set(rets + args)}
        before = _rename_params(scope[:call_at], caller)
        after = _rename_params(scope[call_at + (m.end() - m.start()):], caller)
        inlined = self.callee(f, body, tag, [caller[a] for a in args], caller[rets[0]] if rets else "")
        return text[:open_pos] + before + inlined + after + text[close_pos + 1:]

    def callee(self, f: _Func, body: str, tag: str, args: list, ret: str) -> str:
        exact, ranged = set(), set()
        for d in _REG_DECL.finditer(body):
            for part in d.group("names").split(","):
                part = part.strip()
                if "<" in part:
                    ranged.add(part[:part.index("<")])
                elif part:
                    exact.add(part)

        def reg(mt: re.Match) -> str:
            tok = mt.group(0)
            base = tok.rstrip("0123456789")
            if tok in exact or (base in ranged and base != tok) or tok in ranged:
                return "%" + tag[1:] + "_" + tok[1:]
            return tok

        body = _REG_TOKEN.sub(reg, body)
        names = {m.group("name") for m in _LOCAL_DECL.finditer(body)} | {m.group("name") for m in _LABEL.finditer(body)}
        for n in sorted(names, key=len, reverse=True):
            body = re.sub(rf"(?<![\w$%]){re.escape(n)}(?![\w$])", n + tag, body)
        for k, p in enumerate(f.params):
            body = re.sub(rf"(?<![\w$]){re.escape(p)}(?![\w$])", args[k], body)
        if f.ret:
            body = re.sub(rf"(?<![\w$]){re.escape(f.ret)}(?![\w$])", ret or f"__cs{tag}_unused", body)
        body = re.sub(r"\b(ld|st)\.param\b", r"\1.local", body)
        end = f"$L__ret{tag}"
        body = _RET.sub(lambda r: f"{r.group('guard') or ''}bra.uni {end};", body)
        decl = "" if ret or not f.ret else f"\t.local .align 16 .b8 __cs{tag}_unused[64];\n"
        return f"{{ // inlined {f.name}\n{decl}{body}\n{end}:\n}} // inlined {f.name}\n"


def _enclosing_open(text: str, pos: int) -> int:
    """The ``{`` of the innermost scope holding ``pos``."""
    depth = 0
    i = pos - 1
    while i >= 0:
        c = text[i]
        if c == "}":
            depth += 1
        elif c == "{":
            if depth == 0:
                line_start = text.rfind("\n", 0, i) + 1
                if "//" not in text[line_start:i]:
                    return i
            else:
                depth -= 1
        i -= 1
    raise _error(text, pos, "a call outside any function body")


def _rename_params(text: str, names: dict) -> str:
    """The caller's side of a call: its ``.param`` variables named in ``names`` become ``.local`` ones of the
    new names, and ``st.param``/``ld.param`` on them ``st.local``/``ld.local``."""
    for old, new in names.items():
        text = re.sub(rf"\.param(\s[^;]*?)(?<![\w$]){re.escape(old)}(?![\w$])", rf".local\1{new}", text)
        text = re.sub(rf"\b(ld|st)\.param(\.\w+\s+[^;]*?)(?<![\w$]){re.escape(old)}(?![\w$])", rf"\1.local\2{new}",
                      text)
    return text


def inline_calls(text: str) -> str:
    """``text`` (a PTX module) with every ``.func`` inlined where it is called and the definitions gone."""
    if ".func" not in text:
        return text
    inl = _Inliner(text)
    return inl.calls(inl.rest)

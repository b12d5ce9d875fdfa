"""Parser: PTX text -> :class:`~isa.program.Module`.

Accepts what ``nvcc -ptx`` and numba-cuda emit for ordinary kernels: the header (``.version``, ``.target``,
``.address_size``), ``.file``/``.loc`` (kept as source locations; ``inlined_at`` resolves to the user's
call site), ``.pragma``, module and kernel variables (``.common`` ones, such as numba's ``NumbaEnv``
pointer, are plain module variables here), ``.visible .entry`` kernels with their parameters and
performance directives, ``.reg`` declarations, ``{ }`` scopes, labels, guards and every operand form.
``.section`` blocks (debug info) are skipped; ``.func`` (device functions called from kernels) are inlined
where they are called before parsing (:mod:`isa.inline`). Each instruction is checked against the opcode
table at once, so an unsupported instruction is a :class:`~isa.errors.ParseError` pointing at it.

Life of a text: :func:`~isa.lexer.tokenize` splits it into tokens; the parser walks the module-level items
in order, parsing each ``.entry`` body statement by statement (registers, variables, labels, instructions,
``.loc`` lines); every branch target is checked once its body is complete; last, because nvcc puts the
``.file`` table at the end, each instruction's ``.loc`` file index becomes a :class:`~isa.program.SourceLoc`.
"""
from __future__ import annotations

import struct
from dataclasses import replace

from . import opcodes, ptxtypes
from .errors import ParseError
from .inline import inline_calls
from .lexer import Token, tokenize
from .program import Addr, Imm, Instruction, Kernel, Module, Operand, Param, Pair, Reg, RegDecl, SourceLoc, Sym, \
    Vec, VarDecl

_SPACES = {".shared": "shared", ".local": "local", ".const": "const", ".global": "global"}
_PERF = {".maxntid", ".reqntid", ".minnctapersm", ".maxnctapersm", ".maxnreg", ".pragma", ".noreturn",
         ".explicitcluster", ".reqnctapercluster", ".maxclusterrank"}


def parse(text: str) -> Module:
    """Parse PTX ``text`` into a module, its device functions inlined where they are called
    (:func:`isa.inline.inline_calls`). Raises :class:`ParseError` with line, column and a caret."""
    return _Parser(inline_calls(text)).module()


def _float_imm(text: str) -> float:
    if text[1] in "fF":
        return struct.unpack(">f", bytes.fromhex(text[2:]))[0]
    return struct.unpack(">d", bytes.fromhex(text[2:]))[0]


def _int_imm(text: str) -> int:
    t = text.rstrip("uU")
    if t[:2] in ("0x", "0X"):
        return int(t, 16)
    if t[:2] in ("0b", "0B"):
        return int(t, 2)
    return int(t)


class _Parser:
    def __init__(self, text: str):
        self.lines = text.split("\n")
        self.toks = tokenize(text)
        self.i = 0
        self.files: dict = {}
        self.pending: list = []   # kernels whose .loc file indices are resolved at the end

    # -- token helpers
    @property
    def tok(self) -> Token:
        return self.toks[self.i]

    def next(self) -> Token:
        t = self.toks[self.i]
        self.i += 1
        return t

    def error(self, message: str, tok: Token | None = None) -> ParseError:
        tok = tok or self.tok
        src = self.lines[tok.line - 1] if 0 < tok.line <= len(self.lines) else ""
        return ParseError(message, tok.line, tok.col, src.expandtabs(1))

    def at(self, text: str) -> bool:
        return self.tok.text == text

    def accept(self, text: str) -> bool:
        if self.tok.text == text:
            self.i += 1
            return True
        return False

    def expect(self, text: str, what: str = "") -> Token:
        if self.tok.text != text:
            raise self.error(f"expected '{text}'{' ' + what if what else ''}, found '{self.tok.text or 'end of text'}'")
        return self.next()

    def expect_kind(self, kind: str, what: str) -> Token:
        if self.tok.kind != kind:
            raise self.error(f"expected {what}, found '{self.tok.text or 'end of text'}'")
        return self.next()

    def integer(self, what: str = "an integer") -> int:
        neg = self.accept("-")
        t = self.expect_kind("num", what)
        try:
            v = _int_imm(t.text)
        except ValueError:
            raise self.error(f"expected {what}, found '{t.text}'", t) from None
        return -v if neg else v

    # -- module level
    def module(self) -> Module:
        mod = Module()
        globals_ = []
        while self.tok.kind != "eof":
            t = self.tok
            if t.text == ".version":
                self.next()
                mod.version = self.next().text
            elif t.text == ".target":
                self.next()
                targets = [self.next().text]
                while self.accept(","):
                    targets.append(self.next().text)
                mod.target = ",".join(targets)
            elif t.text == ".address_size":
                self.next()
                mod.address_size = self.integer("an address size")
            elif t.text == ".file":
                self._file()
            elif t.text == ".section":
                self._skip_section()
            elif t.text == ".pragma":
                self._skip_statement()
            elif t.text in (".visible", ".weak", ".common", ".extern", ".entry", ".func") or t.text in _SPACES:
                self._linkage_item(mod, globals_)
            else:
                raise self.error(f"unexpected '{t.text}' at module level")
        mod.globals = tuple(globals_)
        for kernel, body in self.pending:   # .file comes last: source locations resolve now
            kernel.body = tuple(self._resolve_loc(ins) for ins in body.instructions)
            kernel.labels = body.labels
            kernel.globals = mod.globals
            kernel.pragmas = tuple(body.pragmas)
        return mod

    def _file(self):
        self.next()
        idx = self.integer("a file index")
        name = self.expect_kind("string", "a file name").text[1:-1]
        while self.accept(","):
            self.integer()
        self.files[idx] = name

    def _skip_section(self):
        self.next()
        self.next()
        if self.accept("{"):
            depth = 1
            while depth and self.tok.kind != "eof":
                t = self.next()
                depth += (t.text == "{") - (t.text == "}")

    def _skip_statement(self):
        while not self.at(";") and self.tok.kind != "eof":
            self.next()
        self.accept(";")

    def _linkage_item(self, mod: Module, globals_: list):
        visible = extern = False
        while self.tok.text in (".visible", ".weak", ".common", ".extern"):
            visible |= self.tok.text in (".visible", ".weak", ".common")
            extern |= self.tok.text == ".extern"
            self.next()
        if self.at(".func"):
            raise self.error(".func (device functions called from kernels) is not supported: "
                             "inline the function (nvcc -O3 does for small functions)")
        if self.at(".entry"):
            kernel = self._entry(visible)
            if kernel.name in mod.kernels:
                raise self.error(f"kernel {kernel.name} defined twice")
            mod.kernels[kernel.name] = kernel
            return
        globals_.append(self._var_decl(extern))

    # -- declarations
    def _var_decl(self, extern: bool = False) -> VarDecl:
        if self.accept(".extern"):
            extern = True
        space_tok = self.next()
        if space_tok.text not in _SPACES:
            raise self.error(f"expected a state space (.shared, .local, .const, .global), found '{space_tok.text}'",
                             space_tok)
        align = None
        if self.accept(".align"):
            align = self.integer("an alignment")
        if self.accept(".v2") or self.accept(".v4"):
            raise self.error("vector-typed variables are not supported: declare a .b8 array", self.toks[self.i - 1])
        type_tok = self.expect_kind("directive", "a type")
        ptype = type_tok.text[1:]
        if not ptxtypes.is_type(ptype) or ptype == "pred":
            raise self.error(f"'{type_tok.text}' is not a variable type", type_tok)
        name = self.expect_kind("ident", "a variable name").text
        count = None
        if self.accept("["):
            count = 0 if self.at("]") else self.integer("an array size")
            self.expect("]")
        init = None
        if self.accept("="):
            init = self._initializer()
        self.expect(";", "after a variable declaration")
        return VarDecl(_SPACES[space_tok.text], name, ptype, count, align, extern, init)

    def _initializer(self) -> tuple:
        if not self.accept("{"):
            return (self._number()[0],)
        vals = []
        while not self.at("}"):
            vals.append(self._number()[0])
            if not self.accept(","):
                break
        self.expect("}")
        return tuple(vals)

    def _number(self, what: str = "a number") -> tuple:
        """A numeric literal (PTX float ``0f``/``0d``, hex, binary, decimal): ``(value, spelling)``."""
        neg = self.accept("-")
        t = self.next()
        if t.kind == "fnum":
            v = _float_imm(t.text)
        elif t.kind == "num":
            is_float = t.text[:2] not in ("0x", "0X") and any(c in t.text for c in ".eE")
            v = float(t.text) if is_float else _int_imm(t.text)
        else:
            raise self.error(f"expected {what}, found '{t.text or 'end of text'}'", t)
        return (-v if neg else v), ("-" if neg else "") + t.text

    def _entry(self, visible: bool) -> Kernel:
        self.expect(".entry")
        name = self.expect_kind("ident", "a kernel name").text
        params = []
        if self.accept("("):
            while not self.at(")"):
                params.append(self._param())
                if not self.accept(","):
                    break
            self.expect(")", "closing the parameter list")
        directives = []
        while self.tok.text in _PERF:
            d = self.next().text[1:]
            vals = []
            if self.tok.kind == "num":
                vals.append(self.integer())
                while self.accept(","):
                    vals.append(self.integer())
            elif self.tok.kind == "string":
                vals.append(self.next().text)
            self.accept(";")
            directives.append((d, tuple(vals)))
        body = _Body(self, name)
        body.block()
        for label, tok in body.branches:
            if label not in body.labels:
                raise self.error(f"branch to undefined label {label}", tok)
        kernel = Kernel(name, tuple(params), tuple(body.regs.values()), tuple(body.vars), (), {},
                        visible, tuple(directives))
        self.pending.append((kernel, body))
        return kernel

    def _param(self) -> Param:
        self.expect(".param", "in the parameter list")
        align, ptr = None, False
        ptype = None
        while self.tok.kind == "directive":
            d = self.next().text
            if d == ".align":
                align = self.integer("an alignment")
            elif d == ".ptr":
                ptr = True
            elif d in (".global", ".shared", ".const", ".local"):
                continue
            elif ptxtypes.is_type(d[1:]) and d != ".pred":
                ptype = d[1:]
            else:
                raise self.error(f"'{d}' is not allowed in a parameter declaration", self.toks[self.i - 1])
        if ptype is None:
            raise self.error("parameter needs a type such as .u64, .u32 or .f32")
        name = self.expect_kind("ident", "a parameter name").text
        count = None
        if self.accept("["):
            count = self.integer("an array size")
            self.expect("]")
        return Param(name, ptype, align, count, ptr)

    def _resolve_loc(self, ins):
        raw = ins.loc
        if raw is None:
            return ins
        idx, line, col = raw
        return replace(ins, loc=SourceLoc(self.files.get(idx, f"<file {idx}>"), line, col))


class _Body:
    """Parses the statements of one kernel body."""

    def __init__(self, p: _Parser, kernel: str):
        self.p, self.kernel = p, kernel
        self.regs: dict = {}
        self.vars: list = []
        self.instructions: list = []
        self.labels: dict = {}
        self.branches: list = []      # (label, token) of each bra, checked when the body is complete
        self.pragmas: list = []       # (instruction index it precedes, text): "nounroll" reaches ptxas again
        self.loc = None

    def block(self) -> None:
        p = self.p
        p.expect("{", "opening the kernel body")
        while not p.accept("}"):
            if p.tok.kind == "eof":
                raise p.error(f"kernel {self.kernel}: missing '}}' at end of body")
            self.statement()

    def statement(self) -> None:
        p, t = self.p, self.p.tok
        if t.text == "{":
            self.block()
        elif t.text == ".reg":
            self.reg_decl()
        elif t.text in _SPACES or t.text == ".extern":
            self.vars.append(p._var_decl())
        elif t.text == ".loc":
            self.loc_directive()
        elif t.text == ".pragma":
            p.next()
            if p.tok.kind == "string" or p.tok.text.startswith('"'):
                self.pragmas.append((len(self.instructions), p.tok.text.strip('"')))
            p._skip_statement()
        elif t.kind == "ident" and p.toks[p.i + 1].text == ":":
            if t.text in self.labels:
                raise p.error(f"label {t.text} defined twice", t)
            self.labels[t.text] = len(self.instructions)
            p.i += 2
        elif t.kind == "ident" or t.text == "@":
            self.instruction()
        else:
            raise p.error(f"unexpected '{t.text}' in kernel body")

    def reg_decl(self) -> None:
        p = self.p
        p.next()
        if p.accept(".v2") or p.accept(".v4"):
            raise p.error("vector registers are not supported", p.toks[p.i - 1])
        type_tok = p.expect_kind("directive", "a register type")
        ptype = type_tok.text[1:]
        if not ptxtypes.is_type(ptype):
            raise p.error(f"'{type_tok.text}' is not a register type", type_tok)
        while True:
            name_tok = p.tok if p.tok.kind == "ident" else p.expect_kind("reg", "a register name")
            p.i += p.tok is name_tok
            count = None
            if p.accept("<"):
                count = p.integer("a register count")
                p.expect(">")
            decl = RegDecl(ptype, name_tok.text, count)
            old = self.regs.get(decl.name)
            if old is not None and old != decl:
                raise p.error(f"register {decl.name} declared again with a different type or count", name_tok)
            self.regs[decl.name] = decl
            if not p.accept(","):
                break
        p.expect(";", "after a register declaration")

    def loc_directive(self) -> None:
        p = self.p
        p.next()
        loc = (p.integer(), p.integer(), p.integer())
        while p.accept(","):
            key = p.next().text
            if key == "function_name":
                p.next()
                if p.accept("+"):
                    p.integer()
            elif key == "inlined_at":
                loc = (p.integer(), p.integer(), p.integer())
            else:
                raise p.error(f"unknown .loc attribute '{key}'", p.toks[p.i - 1])
        self.loc = loc

    def instruction(self) -> None:
        p = self.p
        guard = None
        if p.accept("@"):
            neg = p.accept("!")
            guard = Reg(p.expect_kind("reg", "a predicate register after '@'").text, neg)
        op_tok = p.expect_kind("ident", "an instruction")
        opcode, *mods = op_tok.text.split(".")
        operands = []
        if not p.at(";"):
            operands.append(self.operand())
            while p.accept(","):
                operands.append(self.operand())
        p.expect(";", "at the end of the instruction")
        ins = Instruction(opcode, tuple(mods), tuple(operands), guard, self.loc)
        try:
            opcodes.validate(ins)
        except opcodes.OpcodeError as e:
            raise p.error(str(e), op_tok) from None
        if opcode == "bra":
            self.branches.append((ins.operands[0].name, op_tok))
        self.instructions.append(ins)

    def operand(self) -> Operand:
        p, t = self.p, self.p.tok
        if t.text == "[":
            return self.address()
        if t.text == "{":
            p.next()
            items = [self.operand()]
            while p.accept(","):
                items.append(self.operand())
            p.expect("}", "closing a vector operand")
            return Vec(tuple(items))
        if t.text == "!":
            p.next()
            return Reg(p.expect_kind("reg", "a predicate register after '!'").text, True)
        if t.kind == "reg":
            p.next()
            if p.accept("|"):
                return Pair(Reg(t.text), Reg(p.expect_kind("reg", "a predicate register after '|'").text))
            return Reg(t.text)
        if t.kind == "ident":
            p.next()
            if t.text == "_" or t.text in self.regs:
                return Reg(t.text)
            if t.text == "WARP_SZ":           # PTX's constant for the warp size (numba's cuda.warpsize)
                return Imm(32, "WARP_SZ")
            return Sym(t.text)
        return self.immediate()

    def immediate(self) -> Imm:
        return Imm(*self.p._number("an operand"))

    def address(self) -> Addr:
        p = self.p
        p.expect("[")
        base, offset = None, 0
        t = p.tok
        if t.kind == "reg":
            base = Reg(p.next().text)
        elif t.kind == "ident":
            base = Sym(p.next().text)
        else:
            offset = p.integer("an address")
        if p.at("+") or p.at("-"):
            sign = -1 if p.next().text == "-" else 1
            offset += sign * p.integer("an address offset")
        p.expect("]", "closing an address")
        return Addr(base, offset)

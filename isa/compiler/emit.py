"""Printing the lowered kernel as PTX text with ``.loc`` lines naming the Python source.

The text goes through :func:`isa.parse` like any PTX, so a compiled kernel is an ordinary
:class:`isa.Kernel`; its printout (``kernel.to_text()``) shows each instruction with its Python line.
"""
from __future__ import annotations

from .ir import VREG, Ins, Label, Mem


def operand(x: str | Mem) -> str:
    if isinstance(x, Mem):
        return x.text()
    return str(x)


def instruction(ins: Ins) -> str:
    g = f"@{'!' if ins.guard[1] else ''}{ins.guard[0]} " if ins.guard else ""
    if ins.op == "mov.b64.unpack":
        return f"{g}mov.b64 {{{ins.dsts[0]}, {ins.dsts[1]}}}, {ins.srcs[0]};"
    if ins.op == "mov.b64.pack":
        return f"{g}mov.b64 {ins.dsts[0]}, {{{ins.srcs[0]}, {ins.srcs[1]}}};"
    ops = list(ins.dsts) + [operand(s) for s in ins.srcs]
    if ins.op.startswith("bar.red") and ins.dsts:
        ops = [ins.dsts[0]] + [operand(s) for s in ins.srcs]
    return f"{g}{ins.op} {', '.join(ops)};" if ops else f"{g}{ins.op};"


def ptx_text(name: str, params: list[tuple[str, str]], shared_vars: list[tuple], files: dict[str, int],
             prologue: list, body: list) -> str:
    """The module text: header, on-chip arrays, the entry with its parameters, registers and body."""
    out = [".version 8.0", ".target sm_90", ".address_size 64", ""]
    for path, idx in sorted(files.items(), key=lambda kv: kv[1]):
        out.append(f'.file {idx} "{path}"')
    local = []
    for sym, space, size, align, init in shared_vars:
        if space == "local":
            local.append(f"\t.local .align {align} .b8 {sym}[{size}];")
        elif size is None:
            out.append(f".extern .shared .align {align} .b8 {sym}[];")
        elif init is not None:
            vals = ", ".join(str(int(b)) for b in init.tobytes())
            out.append(f".const .align {align} .b8 {sym}[{size}] = {{{vals}}};")
        else:
            out.append(f".{space} .align {align} .b8 {sym}[{size}];")
    out.append("")
    out.append(f".visible .entry {name}(")
    out.append(",\n".join(f"\t.param .{t} p_{p}" for p, t in params))
    out.append(")")
    out.append("{")
    regs = {}
    for ins in prologue + body:
        if isinstance(ins, Ins):
            for r in list(ins.dsts) + ins.uses():
                m = VREG.match(r)
                if m:
                    regs.setdefault(m.group(1), set()).add(int(r[len(m.group(1)) + 1:]))
    decl = {"p": "pred", "r": "b32", "rd": "b64", "f": "f32", "fd": "f64"}
    for prefix, nums in sorted(regs.items()):
        out.append(f"\t.reg .{decl[prefix]} %{prefix}<{max(nums) + 1}>;")
    out += local
    loc = None
    for ins in prologue + body:
        if isinstance(ins, Label):
            out.append(f"{ins.name}:")
            continue
        if ins.loc != loc and ins.loc[0]:
            out.append(f"\t.loc {ins.loc[0]} {ins.loc[1]} {ins.loc[2]}")
            loc = ins.loc
        out.append("\t" + instruction(ins))
    out.append("}")
    return "\n".join(out) + "\n"


"""Printer: program model -> PTX text that :func:`isa.parse` reads back into an equal program.

Source locations are printed as ``.loc`` directives (whenever the location changes) with a ``.file``
table at the end of the module, and as a ``// file:line`` comment after each instruction, for people.
"""
from __future__ import annotations

from .program import Kernel, Module, VarDecl


def _var_text(v: VarDecl) -> str:
    parts = [".extern" if v.extern else None, "." + v.space,
             f".align {v.align}" if v.align is not None else None, "." + v.type, v.name]
    text = " ".join(p for p in parts if p)
    if v.count is not None:
        text += f"[{v.count}]" if v.count else "[]"
    if v.init is not None:
        text += " = {" + ", ".join(_num(x) for x in v.init) + "}"
    return text + ";"


def _num(x) -> str:
    if isinstance(x, float):
        import struct
        return "0d" + struct.pack(">d", x).hex().upper()
    return str(x)


def kernel_text(k: Kernel, files: dict = None, index_lines: bool = False) -> str:
    """PTX text of one kernel. ``files`` (name -> index) is filled with the source files it mentions;
    without it the text is self-contained: its ``.file`` table follows the kernel. ``index_lines``: every
    instruction gets a ``.loc 1 N 0`` whose line ``N`` is its index in the body plus one (for
    :mod:`isa.sass`: ``ptxas -lineinfo`` then names, for each SASS instruction, the PTX one it came from)."""
    standalone = files is None
    files = {} if files is None else files
    params = ",\n".join("\t.param " + (f".align {p.align} " if p.align else "") + f".{p.type} "
                        + (".ptr " if p.ptr else "") + p.name + (f"[{p.count}]" if p.count else "")
                        for p in k.params)
    out = [(".visible " if k.visible else "") + f".entry {k.name}(" + ("\n" + params + "\n" if params else "") + ")"]
    for name, vals in k.directives:
        out.append(f".{name} " + ", ".join(str(v) for v in vals))
    out.append("{")
    for r in k.regs:
        out.append(f"\t.reg .{r.type} \t{r.name}" + (f"<{r.count}>" if r.count is not None else "") + ";")
    for v in k.vars:
        out.append("\t" + _var_text(v))
    labels_at: dict = {}
    for label, idx in k.labels.items():
        labels_at.setdefault(idx, []).append(label)
    last = None
    pragmas: dict = {}
    for idx, text in k.pragmas:
        pragmas.setdefault(idx, []).append(text)
    for i, ins in enumerate(k.body):
        for label in labels_at.get(i, ()):
            out.append(f"{label}:")
        for text in pragmas.get(i, ()):
            out.append(f'\t.pragma "{text}";')
        if index_lines:
            out.append(f"\t.loc\t1 {i + 1} 0")
        elif ins.loc is not None and ins.loc != last:
            fidx = files.setdefault(ins.loc.file, len(files) + 1)
            out.append(f"\t.loc\t{fidx} {ins.loc.line} {ins.loc.col}")
            last = ins.loc
        comment = f"\t// {ins.loc.file.rsplit('/', 1)[-1]}:{ins.loc.line}" if ins.loc else ""
        out.append(f"\t{ins.text()};{comment}")
    for label in labels_at.get(len(k.body), ()):
        out.append(f"{label}:")
    out.append("}")
    if standalone and not index_lines:
        out += _file_table(files)
    return "\n".join(out) + "\n"


def _file_table(files: dict) -> list:
    return [f'.file\t{idx} "{name}"' for name, idx in files.items()]


def module_text(m: Module) -> str:
    """PTX text of a whole module, header and ``.file`` table included."""
    files: dict = {}
    out = [f".version {m.version}", f".target {m.target}", f".address_size {m.address_size}", ""]
    out += [_var_text(v) for v in m.globals]
    for k in m.kernels.values():
        out.append(kernel_text(k, files))
    out += _file_table(files)
    return "\n".join(out) + "\n"


def ptxas_text(k: Kernel, index_lines: bool = False) -> str:
    """A module ``ptxas -arch=sm_90`` accepts that holds just ``k``: the header, the module-level variables
    it can name (shared arrays, constants) and the kernel. ``index_lines``: see :func:`kernel_text` (the
    ``.file`` is then ``ptx``, the lines instruction indices)."""
    out = [".version 8.0", ".target sm_90", ".address_size 64", ""]
    out += [_var_text(v) for v in k.globals]
    if index_lines:
        out.append('.file\t1 "ptx"')
        return "\n".join(out) + "\n" + kernel_text(k, {}, index_lines=True)
    files: dict = {}
    body = kernel_text(k, files)
    return "\n".join(out + _file_table(files)) + "\n" + body

"""Packaging rules: the ISA stands alone (numpy and numba only, never simpy or smsim); the opcode table is
complete on import; no import cycles through the registries, the compiler or the command line; mypy passes."""
from __future__ import annotations

import pathlib
import re
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]


def test_isa_sources_never_import_simpy_or_smsim():
    offenders = [str(p.relative_to(ROOT)) for p in (ROOT / "isa").rglob("*.py")
                 if re.search(r"^\s*(import|from)\s+(simpy|smsim)\b", p.read_text(), re.M)]
    assert offenders == []


def test_running_a_kernel_loads_neither_simpy_nor_smsim():
    code = ("import sys, numpy as np, isa\n"
            "m = isa.parse(open(sys.argv[1]).read())\n"
            "c = np.zeros(300, np.float32); a = np.ones(300, np.float32)\n"
            "isa.run(m.find('vec_add'), 2, 256, (c, a, a, 300))\n"
            "assert (c == 2).all()\n"
            "print(sorted(k for k in sys.modules if k.split('.')[0] in ('simpy', 'smsim')))\n")
    out = subprocess.run([sys.executable, "-c", code, str(ROOT / "benchmarks" / "kernels.ptx")],
                         capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_the_opcode_table_is_complete_as_soon_as_isa_is_imported():
    import isa
    from isa import opcodes
    families = {f.name for f in opcodes.TABLE.values()}
    code = "import isa.opcodes as o; print(len(o.TABLE), len({f.name for f in o.TABLE.values()}))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == [str(len(isa.TABLE)), str(len(families))]
    assert {"add", "ld", "st", "bra", "bar", "shfl"} <= families


def _imports(path: pathlib.Path, name: str, known: set) -> set:
    """Modules of ``known`` that ``name`` (at ``path``) imports at run time, in functions too (imports under
    ``if TYPE_CHECKING:`` are for type hints only and do not count)."""
    import ast
    tree = ast.parse(path.read_text())
    hints = {id(n) for node in ast.walk(tree) if isinstance(node, ast.If)
             and getattr(node.test, "id", getattr(node.test, "attr", "")) == "TYPE_CHECKING"
             for stmt in node.body for n in ast.walk(stmt)}
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out = set()
    for node in ast.walk(tree):
        if id(node) in hints:
            continue
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package.split(".")[:len(package.split(".")) - node.level + 1] if node.level else []
            mod = ".".join(base + ([node.module] if node.module else []))
            subs = {f"{mod}.{a.name}" for a in node.names} & known
            out |= subs or {mod}
    return {m for m in out if m in known and m != name}


def test_no_import_cycles_through_the_opcode_registry_the_compiler_or_the_command_line():
    files = {}
    for pkg in ("isa", "smsim"):
        for p in (ROOT / pkg).rglob("*.py"):
            mod = ".".join(p.relative_to(ROOT).with_suffix("").parts)
            files[mod.removesuffix(".__init__")] = p
    graph = {m: _imports(p, m, set(files)) for m, p in files.items()}

    def reaches(a: str, b: str) -> bool:
        seen, todo = set(), [a]
        while todo:
            m = todo.pop()
            if m == b:
                return True
            if m not in seen:
                seen.add(m)
                todo.extend(graph[m])
        return False
    watched = ["isa.opcodes", "isa.compiler.calls", "isa.compiler.lower", "smsim.cli", "smsim.commands",
               "smsim.registry", "smsim.config"] + [m for m in files if m.startswith("isa.ops")]
    cycles = [(m, d) for m in watched if m in graph for d in graph[m] if reaches(d, m)]
    assert cycles == []


@pytest.mark.slow
def test_mypy_passes_on_smsim_with_the_projects_config(tmp_path):
    """``mypy`` (configured in pyproject.toml: smsim/, annotated functions checked) reports no error."""
    out = subprocess.run([sys.executable, "-m", "mypy", "--cache-dir", str(tmp_path)], cwd=ROOT,
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "Success: no issues found" in out.stdout

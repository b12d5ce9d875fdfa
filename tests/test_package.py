"""Packaging rules: the ISA stands alone (numpy and numba only, never simpy or smsim)."""
from __future__ import annotations

import pathlib
import re
import subprocess
import sys

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

"""The code numba-cuda makes of workload kernels on a machine, to compare one machine's with another's.

    python benchmarks/numba_code_hw.py --out DIR [case ...]     (default: every case of the ``plain`` family)
    python benchmarks/numba_code_hw.py --out DIR --all          (every case whose kernel is Python)

For each Python case at its test size: the PTX ``smsim.numba_front.compile_ptx`` makes (what
``smsim.launch(..., compiler="numba")`` runs: link-time optimized for ``sm_90a`` where nvJitLink is installed,
else ``numba.cuda.compile_ptx``'s for ``sm_90``), that PTX's SASS as smsim gets it (:func:`isa.sass.listing`:
the ``smsim[sass]`` wheels' tools, else those on PATH; when there), the NVVM version numba used, and the counts
of PTX and SASS instructions and global loads. Run it on the GPU machine and here: where NVVM versions differ,
so can the code (``docs/hardware/validate_hw.md`` says what was seen). Writes ``DIR/numba_code.json``, the PTX
and SASS of every case in it.

On a GPU it also records what the launch runs (``launched_*``): numba-cuda compiles a kernel for the GPU's
``sm_90a`` and, where nvJitLink is installed, as LTO-IR that nvJitLink optimizes at link time
(``launched_lto``), so the PTX ``compile_ptx`` shows is not what runs; ``launched_sass`` is the SASS of the
cubin the launch loads (``nvdisasm``), instruction by instruction, which ``tests/test_sass.py`` compares with
the SASS smsim times.
"""
from __future__ import annotations

import argparse
import json
import pathlib
import re
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))


def _ptx_counts(ptx: str) -> tuple:
    """``(instructions, global loads)`` of a PTX text."""
    body = [ln for ln in ptx.splitlines() if re.match(r"\s+[@a-z]", ln) and not ln.strip().startswith(".")]
    return len(body), sum("ld.global" in ln for ln in body)


def _sass(ptx: str) -> tuple | None:
    """``(listing, instructions, global loads)`` of the SASS ptxas makes of ``ptx`` (:func:`isa.sass.listing`,
    the tools smsim times with), or None without ptxas/nvdisasm."""
    from isa import sass
    if not sass.available():
        return None
    text = sass.listing(ptx)
    ins = [x for x in sass.parse(text) if x.base != "NOP"]
    return text, len(ins), sum(x.base == "LDG" for x in ins)


def _launched(case, s) -> tuple | None:
    """``(PTX, SASS listing, lto)`` of the kernel ``benchmarks/ncu_workloads.py`` launches for the case (device
    arrays; compiled for this GPU as a launch compiles it: with nvJitLink, NVVM's LTO-IR linked and optimized
    by nvJitLink, so the PTX is not what runs), the SASS ``nvdisasm`` makes of the cubin it loads; None
    without a GPU."""
    import shutil
    import subprocess
    import tempfile

    import numpy as np
    from numba import cuda
    if not cuda.is_available():
        return None
    from workloads.numba_bridge import to_numba
    nk = to_numba(case.kernel)
    args = [cuda.to_device(np.ascontiguousarray(a)) if isinstance(a, np.ndarray) else a for a in s.args]
    kern = nk.compile(tuple(nk.typeof_pyval(a) for a in args))
    cubin = kern.library.get_cubin()
    text = None
    if shutil.which("nvdisasm"):
        with tempfile.NamedTemporaryFile(suffix=".cubin") as f:
            f.write(bytes(getattr(cubin, "code", cubin)))
            f.flush()
            text = subprocess.run(["nvdisasm", "-hex", f.name], capture_output=True, text=True).stdout
    return kern.inspect_asm(cc=(9, 0)), text, bool(kern.library._lto)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("cases", nargs="*")
    ap.add_argument("--all", action="store_true", help="every case whose kernel is Python")
    args = ap.parse_args(argv)
    import numpy as np
    if not hasattr(np, "row_stack"):     # numba-cuda 0.30.4 overloads np.row_stack, which numpy 2.5 removed
        np.row_stack = np.vstack
    from numba.cuda.cudadrv import nvvm

    from smsim.numba_front import compile_ptx, signature_of
    from workloads import case as cases
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    ids = args.cases or [c.id for c in cases.family("plain")]
    if args.all:
        ids = [c.id for c in cases.all_cases() if callable(getattr(c.kernel, "py_func", c.kernel))]
    from isa import sass
    result: dict = {"nvvm": ".".join(map(str, nvvm.NVVM().get_version())), "ptxas": (sass.tools() or (None,))[0],
                    "cases": {}}
    tools = sass.tools()
    if tools:
        import subprocess
        result["ptxas_version"] = subprocess.run([tools[0], "--version"], capture_output=True,
                                                 text=True).stdout.strip().splitlines()[-1]
    for cid in ids:
        c = cases.get(cid)
        s = c.setup("test", 0)
        try:
            ptx = compile_ptx(c.kernel, signature_of(s.args))
        except Exception as e:     # a kernel numba rejects: recorded, the others go on
            result["cases"][cid] = {"error": f"{type(e).__name__}: {e}"[:500]}
            print(cid, "error", e, flush=True)
            continue
        n, loads = _ptx_counts(ptx)
        row = {"ptx_instructions": n, "ptx_global_loads": loads, "ptx": ptx}
        code = _sass(ptx)
        if code is not None:
            row.update(sass=code[0], sass_instructions=code[1], sass_global_loads=code[2])
        launched = _launched(c, s)         # what benchmarks/ncu_workloads.py runs, where there is a GPU
        if launched is not None:
            n, loads = _ptx_counts(launched[0])
            row.update(launched_ptx=launched[0], launched_ptx_instructions=n, launched_ptx_global_loads=loads,
                       launched_lto=launched[2])
            if launched[1]:
                from isa import sass
                row.update(launched_sass=sass.texts(launched[1]))
        if args.all:            # every case: the counts and what runs, not the texts
            row = {k: v for k, v in row.items() if k not in ("ptx", "sass", "launched_ptx")}
        result["cases"][cid] = row
        print(cid, {k: v for k, v in row.items() if k not in ("ptx", "sass", "launched_ptx", "launched_sass")},
              flush=True)
    (out / "numba_code.json").write_text(json.dumps(result, indent=1))
    print("nvvm", result["nvvm"], "ptxas", result["ptxas"])
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Two loads and two stores a thread: what makes an in-place swap of two streams slow on the H200.

Run on the device machine, from the repository root (python3 with numba-cuda and ncu)::

    PYTHONPATH=. python3 benchmarks/swap_hw.py --out $OUT/swap_hw.json

and compare smsim with what it recorded (on any machine)::

    python benchmarks/swap_hw.py --sim docs/hardware/swap_hw.json

Why: ``exercises.swap_halves`` (``u = a[i]; a[i] = a[i + h]; a[i + h] = u``) takes the H200 52.9 us and smsim
37.2 at its full size; ``two_stream_hw`` found it slow at any distance ``h`` while the sum of the same two
streams into another array (``add2``) runs at 30 us on both. Which part of the swap costs: storing into the
lines just read (in place), storing both streams (two stores a thread), or crossing them (each store the
other load's data, so a store waits for the load of the other stream)?

Each kernel runs ``N`` threads of 256-thread blocks over float32 arrays; ``h`` = ``N`` floats (32 MB), and the
``_lines`` kernels pair each warp's line with the next one instead (``j`` = the lane's place in an even line).
"""
from __future__ import annotations

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import hw_probe  # noqa: E402  (beside this file)

THREADS = 256
N = 1 << 23
METRICS = ("gpu__time_duration.sum", "sm__cycles_elapsed.max", "dram__bytes_read.sum", "dram__bytes_write.sum",
           "lts__t_sectors_srcunit_tex_op_read.sum", "lts__t_sectors_srcunit_tex_op_write.sum",
           "lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum", "smsp__inst_executed.sum")
# name -> (what it does, the threads it runs, the body: i the thread, h the distance, j its lane's place in an
# even line of a pair)
SOURCE = {
    "swap": "two streams crossed in place", "swap_to_out": "two streams crossed into another array",
    "inc2": "two streams, each stored back in place", "copy2_out": "two streams, each copied to another array",
    "sum_back": "two streams summed into the first in place (one store)",
    "swap_lines": "a line and the next crossed in place", "inc2_lines": "a line and the next, each in place",
    "inc1": "one stream in place, one load a thread (twice the threads)",
    "swap_both": "swap, each store after both loads (its value times 1 plus the other's times 0)",
    "swap_yx": "swap, the second stream loaded first",
    "swap_st_yx": "swap, the second stream stored first",
    "cross_one": "the second stream stored into the first in place, both loaded (one store)",
    "cross_one_both": "cross_one, the store after both loads",
}
BODY = {
    "swap": "u = a[i]\n        v = a[i + h]\n        a[i] = v\n        a[i + h] = u",
    "swap_to_out": "u = a[i]\n        v = a[i + h]\n        out[i] = v\n        out[i + h] = u",
    "inc2": "u = a[i]\n        v = a[i + h]\n        a[i] = u + 1.0\n        a[i + h] = v + 1.0",
    "copy2_out": "u = a[i]\n        v = a[i + h]\n        out[i] = u + 1.0\n        out[i + h] = v + 1.0",
    "sum_back": "u = a[i]\n        v = a[i + h]\n        a[i] = u + v",
    "swap_lines": "j = (i // 32) * 64 + i % 32\n        u = a[j]\n        v = a[j + 32]\n        a[j] = v\n"
                  "        a[j + 32] = u",
    "inc2_lines": "j = (i // 32) * 64 + i % 32\n        u = a[j]\n        v = a[j + 32]\n        a[j] = u + 1.0\n"
                  "        a[j + 32] = v + 1.0",
    "inc1": "a[i] = a[i] + 1.0",
    "swap_both": "u = a[i]\n        v = a[i + h]\n        a[i] = v + u * 0.0\n        a[i + h] = u + v * 0.0",
    "swap_yx": "v = a[i + h]\n        u = a[i]\n        a[i] = v\n        a[i + h] = u",
    "swap_st_yx": "u = a[i]\n        v = a[i + h]\n        a[i + h] = u\n        a[i] = v",
    "cross_one": "u = a[i]\n        v = a[i + h]\n        a[i] = v\n        if u > 1e30:\n            out[0] = u",
    "cross_one_both": "u = a[i]\n        v = a[i + h]\n        a[i] = v + u * 0.0",
}
CASES = list(SOURCE)


def threads(case: str) -> int:
    return 2 * N if case == "inc1" else N


def source(case: str) -> str:
    return f"""
def kern(a, out, h, n):
    i = cuda.grid(1)
    if i < n:
        {BODY[case]}
"""


def _kernel(case: str, module=None) -> object:
    """The case's kernel: numba's, or with ``module`` (``smsim.cuda``) smsim's, of the same source."""
    return hw_probe.jit_source(source(case), f"<swap {case}>", "kern", module)


def _arrays(case: str, np) -> tuple:
    a = np.ones(2 * N, np.float32)
    out = np.zeros(2 * N if case.endswith("_out") else 1, np.float32)
    return a, out


def once() -> None:
    """Each case launched once (what ``ncu`` profiles)."""
    cuda, np = hw_probe.numba_cuda()
    for case in CASES:
        a, out = (cuda.to_device(x) for x in _arrays(case, np))
        _kernel(case)[threads(case) // THREADS, THREADS](a, out, N, threads(case))
        cuda.synchronize()


def run(out_path: str, ncu: str) -> None:
    rows = []
    for case, m in zip(CASES, hw_probe.ncu_profile(ncu, str(pathlib.Path(__file__).resolve()), METRICS,
                                                   len(CASES))):
        rows.append(dict(name=case, what=SOURCE[case], h=N, n=threads(case), metrics=m))
        print(f"{case:12s} {m['gpu__time_duration.sum'] / 1e3:8.1f} us, DRAM read "
              f"{m['dram__bytes_read.sum'] / 1e6:7.1f} MB write {m['dram__bytes_write.sum'] / 1e6:7.1f} MB, "
              + hw_probe.top_stalls(m), flush=True)
    hw_probe.write(out_path, threads=THREADS, rows=rows)


def simulated(rows: list, **kw) -> list:
    """smsim's rows for the H200's ``rows`` (``kw``: :func:`hw_probe.simulated`'s; ``complete=False``)."""
    import numpy as np

    from smsim import cuda

    def launch(r: dict) -> tuple:
        a, out = _arrays(r["name"], np)
        return _kernel(r["name"], cuda), r["n"] // THREADS, THREADS, (a, out, r["h"], r["n"])
    return hw_probe.simulated(rows, launch, complete=False, **kw)


def simulate(path: str) -> None:
    """smsim's time beside the H200's."""
    hw_probe.print_durations(path, simulated, 12)


def main(argv=None) -> int:
    return hw_probe.ncu_main(__doc__, run, once, argv, simulate)


if __name__ == "__main__":
    sys.exit(main())

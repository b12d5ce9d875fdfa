"""Two streams a fixed distance apart in one array: an in-place swap of ``a[i]`` and ``a[i + h]``, and a sum of
the two into another array, by the distance ``h``.

Run on the device machine, from the repository root (python3 with numba-cuda and ncu)::

    PYTHONPATH=. python3 benchmarks/two_stream_hw.py --out $OUT/two_stream_hw.json

and compare smsim with what it recorded (on any machine)::

    python benchmarks/two_stream_hw.py --sim docs/hardware/two_stream_hw.json

Why: ``exercises.swap_halves`` (the halves of 16.8 M floats swapped in place: 67 MB read, 40 MB written back
during the kernel) takes the H200 52.9 us and smsim 37.2, where ``everyday.relu_inplace``, the same DRAM bytes
with one load a thread, takes the H200 48.2 us and smsim 49.5. smsim lets the swap's two loads a thread overlap
as a wide load's bytes do (``coalescing.copy_float2`` takes the H200 34.0 us to ``copy_float``'s 49.1); on the
H200 they do not. Is it the two streams' distance, 32 MB, a power of two (the same DRAM banks, other rows), or
two streams at any distance?

Each kernel runs ``N`` threads of 256-thread blocks; ``h`` in floats.
"""
from __future__ import annotations

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import hw_probe  # noqa: E402  (beside this file)

THREADS = 256
N = 1 << 23
P = 1 << 23
# (kernel, h)
CASES = [("swap", P), ("swap", P + 32), ("swap", P + 512), ("swap", P + 4096), ("swap", P + P // 2),
         ("swap", 2 * P), ("add2", P), ("add2", P + 32), ("add2", P + 512), ("add2", P + P // 2),
         ("copy2", 0)]
METRICS = ("gpu__time_duration.sum", "sm__cycles_elapsed.max", "dram__bytes_read.sum", "dram__bytes_write.sum",
           "lts__t_sectors_srcunit_tex_op_read.sum", "lts__t_sectors_srcunit_tex_op_write.sum",
           "smsp__inst_executed.sum")
SOURCE = {
    "swap": """
def kern(a, out, h, n):
    i = cuda.grid(1)
    if i < n:
        u = a[i]
        a[i] = a[i + h]
        a[i + h] = u
""",
    "add2": """
def kern(a, out, h, n):
    i = cuda.grid(1)
    if i < n:
        out[i] = a[i] + a[i + h]
""",
    # the same bytes as add2 from two arrays (h unused)
    "copy2": """
def kern(a, out, h, n):
    i = cuda.grid(1)
    if i < n:
        out[i] = a[i] + out[i + n]
""",
}


def name(case: tuple) -> str:
    kernel, h = case
    return kernel if kernel == "copy2" else f"{kernel}_h{h - P:+d}" if h != 2 * P else f"{kernel}_2P"


def _kernel(case: tuple, module=None) -> object:
    """The case's kernel: numba's, or with ``module`` (``smsim.cuda``) smsim's, of the same source."""
    return hw_probe.jit_source(SOURCE[case[0]], f"<two_stream {name(case)}>", "kern", module)


def _arrays(case: tuple, np) -> tuple:
    kernel, h = case
    a = np.ones(N + h if kernel != "copy2" else N, np.float32)
    out = np.zeros(2 * N if kernel == "copy2" else N if kernel == "add2" else 1, np.float32)
    return a, out


def once() -> None:
    """Each case launched once (what ``ncu`` profiles)."""
    cuda, np = hw_probe.numba_cuda()
    for case in CASES:
        a, out = (cuda.to_device(x) for x in _arrays(case, np))
        _kernel(case)[N // THREADS, THREADS](a, out, case[1], N)
        cuda.synchronize()


def run(out_path: str, ncu: str) -> None:
    rows = []
    for case, m in zip(CASES, hw_probe.ncu_profile(ncu, str(pathlib.Path(__file__).resolve()), METRICS,
                                                   len(CASES))):
        rows.append(dict(name=name(case), kernel=case[0], h=case[1], n=N, metrics=m))
        print(f"{name(case):14s} {m['gpu__time_duration.sum'] / 1e3:8.1f} us, DRAM read "
              f"{m['dram__bytes_read.sum'] / 1e6:7.1f} MB write {m['dram__bytes_write.sum'] / 1e6:7.1f} MB, "
              + hw_probe.top_stalls(m), flush=True)
    hw_probe.write(out_path, threads=THREADS, rows=rows)


def simulated(rows: list, **kw) -> list:
    """smsim's rows for the H200's ``rows`` (``kw``: :func:`hw_probe.simulated`'s; ``complete=False``)."""
    import numpy as np

    from smsim import cuda

    def launch(r: dict) -> tuple:
        case = (r["kernel"], r["h"])
        a, out = _arrays(case, np)
        return _kernel(case, cuda), r["n"] // THREADS, THREADS, (a, out, r["h"], r["n"])
    return hw_probe.simulated(rows, launch, complete=False, **kw)


def simulate(path: str) -> None:
    """smsim's time beside the H200's."""
    hw_probe.print_durations(path, simulated, 14)


def main(argv=None) -> int:
    return hw_probe.ncu_main(__doc__, run, once, argv, simulate)


if __name__ == "__main__":
    sys.exit(main())

"""Two streams updated in place: why swapping an array's halves is slower on the H200 than a copy.

Run on the device machine, from the repository root (python3 with numba-cuda and ncu)::

    PYTHONPATH=. python3 benchmarks/inplace_hw.py --out $OUT/inplace_hw.json

and compare smsim with what it recorded (on any machine)::

    python benchmarks/inplace_hw.py --sim docs/hardware/inplace_hw.json

Why: ``exercises.swap_halves`` (``a[i], a[i + n/2] = a[i + n/2], a[i]`` over 64 MB of float32) takes the H200
52.9 us where smsim predicts 39.6 (0.75), though both move the same DRAM bytes (67 MB read, 40 MB written) and
the same L2 sectors; a copy of the same bytes one float a thread (``coalescing.copy_float``, the same load and
store requests) takes it 49.1 us, smsim 51.7. Is it the writes into lines just read, two streams at once, the
two streams 32 MB apart (a power of two), or the swap itself?

Each kernel (``kernel_source``) runs ``n/2`` threads of 256 over ``n = 2^24`` float32 (``h = n/2``), ``a`` the
array, ``b`` a second one of the same size:

- ``swap_halves``: ``a[i] <-> a[i + h]``, as the workload;
- ``swap_out``: ``b[i] = a[i + h]; b[i + h] = a[i]``: the same reads, the writes into another array;
- ``copy_two``: ``b[i] = a[i]; b[i + h] = a[i + h]``: two streams copied;
- ``add_two``: ``a[i] += 1; a[i + h] += 1``: two streams updated in place, nothing crossed;
- ``swap_shift``: ``a[i] <-> a[i + h - 3104]`` (the halves 32 MB less 97 lines apart, no power of two);
- ``swap_arrays``: ``a[i] <-> b[i]`` (two arrays of ``h`` elements each);
- ``reverse``: ``a[i] <-> a[n - 1 - i]``;
- ``swap_halves_l2``: ``swap_halves`` over ``n = 2^22`` (16 MB: it stays in L2).
"""
from __future__ import annotations

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import hw_probe  # noqa: E402  (beside this file)

BLOCK = 256
SHIFT = 3104                      # 97 lines of float32
#: kernel -> (its body, with i, h and n defined; elements of a; b's elements)
BODIES = {
    "swap_halves": ("u = a[i]\n    a[i] = a[i + h]\n    a[i + h] = u", 1 << 24, 1),
    "swap_out": ("b[i] = a[i + h]\n    b[i + h] = a[i]", 1 << 24, 1 << 24),
    "copy_two": ("b[i] = a[i]\n    b[i + h] = a[i + h]", 1 << 24, 1 << 24),
    "add_two": ("a[i] += np.float32(1.0)\n    a[i + h] += np.float32(1.0)", 1 << 24, 1),
    "swap_shift": (f"u = a[i]\n    a[i] = a[i + h - {SHIFT}]\n    a[i + h - {SHIFT}] = u", 1 << 24, 1),
    "swap_arrays": ("u = a[i]\n    a[i] = b[i]\n    b[i] = u", 1 << 23, 1 << 23),
    "reverse": ("u = a[i]\n    a[i] = a[n - 1 - i]\n    a[n - 1 - i] = u", 1 << 24, 1),
    "swap_halves_l2": ("u = a[i]\n    a[i] = a[i + h]\n    a[i + h] = u", 1 << 22, 1),
}
CASES = list(BODIES)
METRICS = ("gpu__time_duration.sum", "sm__cycles_elapsed.max", "dram__bytes_read.sum", "dram__bytes_write.sum",
           "lts__t_sectors_srcunit_tex_op_write.sum", "lts__t_sectors_srcunit_tex_op_read.sum",
           "lts__t_sector_op_read_hit_rate.pct", "lts__t_sector_op_write_hit_rate.pct", "smsp__inst_executed.sum",
           "dram__throughput.avg.pct_of_peak_sustained_elapsed")


def kernel_source(kernel: str) -> str:
    """The Python source of ``kern(a, b)``."""
    body, n, _ = BODIES[kernel]
    threads = n // 2 if kernel != "swap_arrays" else n
    return f"""
def kern(a, b):
    i = cuda.grid(1)
    n = a.shape[0]
    h = n // 2
    if i < {threads}:
        {body.replace(chr(10) + '    ', chr(10) + '        ')}
"""


def _kernel(kernel: str, module=None) -> object:
    return hw_probe.jit_source(kernel_source(kernel), f"<inplace {kernel}>", "kern", module)


def _arrays(kernel: str, np) -> tuple:
    _, n, nb = BODIES[kernel]
    return np.arange(n, dtype=np.float32), np.zeros(nb, np.float32)


def _grid(kernel: str) -> int:
    _, n, _ = BODIES[kernel]
    return (n if kernel == "swap_arrays" else n // 2) // BLOCK


def once() -> None:
    """Each case launched once (what ``ncu`` profiles; it empties the caches before each, as for the workloads)."""
    cuda, np = hw_probe.numba_cuda()
    for kernel in CASES:
        a, b = (cuda.to_device(x) for x in _arrays(kernel, np))
        _kernel(kernel)[_grid(kernel), BLOCK](a, b)
        cuda.synchronize()


def run(out_path: str, ncu: str) -> None:
    rows = []
    for kernel, m in zip(CASES, hw_probe.ncu_profile(ncu, str(pathlib.Path(__file__).resolve()), METRICS,
                                                     len(CASES))):
        rows.append(dict(name=kernel, metrics=m))
        print(f"{kernel:16s} {m['gpu__time_duration.sum'] / 1e3:7.2f} us, DRAM read "
              f"{m['dram__bytes_read.sum'] / 1e6:6.1f} MB written {m['dram__bytes_write.sum'] / 1e6:6.1f} MB, "
              + hw_probe.top_stalls(m), flush=True)
    hw_probe.write(out_path, rows=rows)


def simulated(rows: list, **kw) -> list:
    """smsim's rows for the H200's ``rows`` (``kw``: :func:`hw_probe.simulated`'s)."""
    import numpy as np

    from smsim import cuda

    def launch(r: dict) -> tuple:
        return _kernel(r["name"], cuda), _grid(r["name"]), BLOCK, _arrays(r["name"], np)
    return hw_probe.simulated(rows, launch, complete=False, **kw)


def simulate(path: str) -> None:
    """smsim's time beside the H200's."""
    hw_probe.print_durations(path, simulated, width=16)


def main(argv=None) -> int:
    return hw_probe.ncu_main(__doc__, run, once, argv, simulate)


if __name__ == "__main__":
    sys.exit(main())

"""A kernel's first launch on arrays no kernel has touched, against its second: what a first touch costs.

Run on the device machine, from the repository root (python3 with numba-cuda and ncu)::

    PYTHONPATH=. python3 benchmarks/first_touch_hw.py --out $OUT/first_touch_hw.json

and compare smsim with what it recorded (on any machine)::

    python benchmarks/first_touch_hw.py --sim docs/hardware/first_touch_hw.json

Why: at the validation's mid size (1 M elements, arrays of 4-25 MB, about four waves of 256-thread blocks:
``docs/hardware/validate_hw.md``) smsim's one-element-a-thread streams of 12-24 bytes a thread are 0.74-0.83 of
the H200's time, where they are right at the test (32 K) and full (16 M) sizes. Each validation case is one
launch on arrays just copied to the GPU; if the SMs' address translations (2 MB pages) miss on every page a
kernel first touches, a kernel over a few MB pays it on a large part of its loads, one over 64 MB on few.

Each kernel is launched twice on the same arrays (``cold``: the first launch after they were copied; ``warm``:
the second, which finds the translations the first left, while Nsight Compute's cache control flushes L2 before
each, as in the validation), with ``gpu__time_duration`` alone collected (one pass: a kernel that ncu replays
for more metrics finds what its earlier passes left). Kernels (256-thread blocks, one element a thread):
``axpy_f64`` (``y = 2 x + y``, float64), ``vadd_f32`` (``c = a + b``), ``read_f64`` (``out[b] += x`` once a
block: reads only), at 256 K, 1 M and 4 M elements.
"""
from __future__ import annotations

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import hw_probe  # noqa: E402  (beside this file)

BLOCK = 256
KERNELS = ("axpy_f64", "vadd_f32", "read_f64")
SIZES = (1 << 18, 1 << 20, 1 << 22)
CASES = [(k, n, w) for k in KERNELS for n in SIZES for w in ("cold", "warm")]
METRICS = ("gpu__time_duration.sum",)

SOURCES = {
    "axpy_f64": """
def kern(x, y, c, n):
    i = cuda.grid(1)
    if i < n:
        y[i] = 2.0 * x[i] + y[i]
""",
    "vadd_f32": """
def kern(a, b, c, n):
    i = cuda.grid(1)
    if i < n:
        c[i] = a[i] + b[i]
""",
    "read_f64": """
def kern(x, y, c, n):
    i = cuda.grid(1)
    if i < n and x[i] < -1.0:
        c[0] = x[i]
""",
}


def name(case: tuple) -> str:
    return f"{case[0]}_{case[1] >> 10}k_{case[2]}"


def _kernel(kernel: str, module=None) -> object:
    return hw_probe.jit_source(SOURCES[kernel], f"<first_touch {kernel}>", "kern", module)


def _arrays(kernel: str, n: int, np) -> tuple:
    rng = np.random.default_rng(0)
    dt = np.float32 if kernel == "vadd_f32" else np.float64
    return rng.random(n).astype(dt), rng.random(n).astype(dt), np.zeros(n, dt), np.int32(n)


def once() -> None:
    """Each kernel and size: fresh arrays, two launches on them (what ``ncu`` profiles)."""
    cuda, np = hw_probe.numba_cuda()
    kernels = {k: _kernel(k) for k in KERNELS}
    for k in KERNELS:
        for n in SIZES:
            x, y, c, nn = _arrays(k, n, np)
            args = (cuda.to_device(x), cuda.to_device(y), cuda.to_device(c), nn)
            cuda.synchronize()
            for _ in range(2):
                kernels[k][(n + BLOCK - 1) // BLOCK, BLOCK](*args)
                cuda.synchronize()


def run(out_path: str, ncu: str) -> None:
    rows = []
    for case, m in zip(CASES, hw_probe.ncu_rows(ncu, str(pathlib.Path(__file__).resolve()), METRICS, len(CASES))):
        rows.append(dict(name=name(case), kernel=case[0], n=case[1], launch=case[2], metrics=m))
        print(f"{name(case):24s} {m['gpu__time_duration.sum'] / 1e3:7.2f} us", flush=True)
    hw_probe.write(out_path, rows=rows)


def simulated(rows: list, **kw) -> list:
    """smsim's rows for the H200's ``rows`` (``kw``: :func:`hw_probe.simulated`'s)."""
    import numpy as np

    from smsim import cuda

    def launch(r: dict) -> tuple:
        return _kernel(r["kernel"], cuda), (r["n"] + BLOCK - 1) // BLOCK, BLOCK, _arrays(r["kernel"], r["n"], np)
    return hw_probe.simulated(rows, launch, complete=False, blocks="share", **kw)


def simulate(path: str) -> None:
    """smsim's time beside the H200's."""
    hw_probe.print_durations(path, simulated, width=24)


def main(argv=None) -> int:
    return hw_probe.ncu_main(__doc__, run, once, argv, simulate)


if __name__ == "__main__":
    sys.exit(main())

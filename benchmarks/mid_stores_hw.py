"""What a store costs a stream at the sizes L2 holds: reads, stores and float64 work a thread, one at a time.

Run on the device machine, from the repository root (python3 with numba-cuda and ncu)::

    PYTHONPATH=. python3 benchmarks/mid_stores_hw.py --out $OUT/mid_stores_hw.json

and compare smsim with what it recorded (on any machine)::

    python benchmarks/mid_stores_hw.py --sim docs/hardware/mid_stores_hw.json

Why: at the validation's mid size (1 M elements: arrays L2 holds, about four waves of 256-thread blocks,
``docs/hardware/validate_hw.md``) smsim is 0.74-0.83 of the H200's time on one-element-a-thread kernels that
read 8-24 bytes a thread and store 8-12 (``axpy_f64``, ``horner8_f64``, ``normalize3_aos``), and right at the
test and full sizes; ``first_touch_hw.md`` found reading alone right at 256 K-4 M elements and a store into an
array L2 keeps costing the H200 1-1.5 us more than smsim. What does the store cost, per byte, per block or
per wave, and does it depend on the line being in L2 already (in place) or on the float64 work before it?

Kernels (float64, 256-thread blocks, one element a thread unless ``_gs``; arguments ``x, y, z, c, d, n``):
``r1``/``r2``/``r3`` read 8/16/24 bytes and store nothing (a compare no element passes); ``w1`` stores 8;
``r1w1`` copies x to c; ``r1w1_ip`` adds 1 to x in place; ``r2w1`` c = x + y; ``r2w1_ip`` y = x + y;
``r1w2`` stores x to c and d; ``r1f8`` and ``r1f8w1`` evaluate a degree-8 polynomial by Horner's rule (8
dependent float64 FMAs) and store nothing / store it; ``r2_gs`` and ``r2w1_gs``: ``r2`` and ``r2w1`` as
grid-stride loops over one wave (132 x 8 blocks: no block replaced). Each at 256 K, 1 M and 4 M elements,
launched once on fresh arrays, under ``ncu --clock-control none`` (its cache control flushing L2 before each
pass, as in the validation): duration, SM cycles, DRAM bytes and the warp stall reasons.
"""
from __future__ import annotations

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import hw_probe  # noqa: E402  (beside this file)

BLOCK = 256
WAVE_BLOCKS = 132 * 8          # one wave of 256-thread blocks on the H200 (8 an SM)
SIZES = (1 << 18, 1 << 20, 1 << 22)
METRICS = ("gpu__time_duration.sum", "sm__cycles_elapsed.max", "smsp__inst_executed.sum", "dram__bytes_read.sum",
           "dram__bytes_write.sum")

_HEAD = "def kern(x, y, z, c, d, n):\n    i = cuda.grid(1)\n"
_POLY = ("        p = -0.0078125\n" + "".join(f"        p = p * v + {k}\n" for k in
                                           ("0.015625", "0.03125", "0.0625", "0.125", "0.3125", "0.75", "1.25", "0.5")))
SOURCES = {
    "r1": _HEAD + "    if i < n and x[i] < -1.0:\n        c[0] = 1.0\n",
    "r2": _HEAD + "    if i < n and x[i] + y[i] < -1.0:\n        c[0] = 1.0\n",
    "r3": _HEAD + "    if i < n and x[i] + y[i] + z[i] < -1.0:\n        c[0] = 1.0\n",
    "w1": _HEAD + "    if i < n:\n        c[i] = i\n",
    "r1w1": _HEAD + "    if i < n:\n        c[i] = x[i]\n",
    "r1w1_ip": _HEAD + "    if i < n:\n        x[i] = x[i] + 1.0\n",
    "r2w1": _HEAD + "    if i < n:\n        c[i] = x[i] + y[i]\n",
    "r2w1_ip": _HEAD + "    if i < n:\n        y[i] = x[i] + y[i]\n",
    "r1w2": _HEAD + "    if i < n:\n        v = x[i]\n        c[i] = v\n        d[i] = v\n",
    "r1f8": _HEAD + "    if i < n:\n        v = x[i]\n" + _POLY + "        if p < -100.0:\n            c[0] = p\n",
    "r1f8w1": _HEAD + "    if i < n:\n        v = x[i]\n" + _POLY + "        c[i] = p\n",
    "r2_gs": _HEAD + "    s = 0.0\n    for j in range(i, n, cuda.gridsize(1)):\n        s += x[j] + y[j]\n"
                     "    if s < -1.0:\n        c[0] = s\n",
    "r2w1_gs": _HEAD + "    for j in range(i, n, cuda.gridsize(1)):\n        c[j] = x[j] + y[j]\n",
}
KERNELS = tuple(SOURCES)
CASES = [(k, n) for k in KERNELS for n in SIZES]


def name(case: tuple) -> str:
    return f"{case[0]}_{case[1] >> 10}k"


def _kernel(kernel: str, module=None) -> object:
    return hw_probe.jit_source(SOURCES[kernel], f"<mid_stores {kernel}>", "kern", module)


def grid(kernel: str, n: int) -> int:
    return WAVE_BLOCKS if kernel.endswith("_gs") else (n + BLOCK - 1) // BLOCK


def _arrays(n: int, np) -> tuple:
    rng = np.random.default_rng(0)
    return (rng.random(n), rng.random(n), rng.random(n), np.zeros(n), np.zeros(n), np.int64(n))


def once() -> None:
    """Each case once, on fresh arrays (what ``ncu`` profiles)."""
    cuda, np = hw_probe.numba_cuda()
    kernels = {k: _kernel(k) for k in KERNELS}
    for k, n in CASES:
        args = tuple(cuda.to_device(a) if isinstance(a, np.ndarray) else a for a in _arrays(n, np))
        cuda.synchronize()
        kernels[k][grid(k, n), BLOCK](*args)
        cuda.synchronize()


def run(out_path: str, ncu: str) -> None:
    rows = []
    for case, m in zip(CASES, hw_probe.ncu_profile(ncu, str(pathlib.Path(__file__).resolve()), METRICS, len(CASES))):
        rows.append(dict(name=name(case), kernel=case[0], n=case[1], metrics=m))
        print(f"{name(case):16s} {m['gpu__time_duration.sum'] / 1e3:7.2f} us  {hw_probe.top_stalls(m)}", flush=True)
    hw_probe.write(out_path, rows=rows)


def simulated(rows: list, **kw) -> list:
    """smsim's rows for the H200's ``rows`` (``kw``: :func:`hw_probe.simulated`'s)."""
    import numpy as np

    from smsim import cuda

    def launch(r: dict) -> tuple:
        return _kernel(r["kernel"], cuda), grid(r["kernel"], r["n"]), BLOCK, _arrays(r["n"], np)
    return hw_probe.simulated(rows, launch, complete=False, blocks="share", **kw)


def simulate(path: str) -> None:
    """smsim's time beside the H200's."""
    hw_probe.print_durations(path, simulated, width=16)


def main(argv=None) -> int:
    return hw_probe.ncu_main(__doc__, run, once, argv, simulate)


if __name__ == "__main__":
    sys.exit(main())

"""How long do an H200's one-element-a-thread streams take as the arrays and the blocks grow?

Run on the device machine, from the repository root (python3 with numba-cuda and ncu)::

    PYTHONPATH=. python3 benchmarks/stream_size_hw.py --out $OUT/stream_size_hw.json

and beside smsim, on any machine: ``python benchmarks/stream_size_hw.py --sim docs/hardware/stream_size_hw.json``.

Why: at their full sizes (16 M elements, 64 MB an array) smsim's one-element-a-thread streams in 256-thread
blocks run slow (``coalescing.copy_float`` 1.07 of the H200's time, ``homework.divmod_runtime`` 1.12,
``homework.log_f64`` 1.16, ``vector.vec_add`` 1.04), the same copy in 128-thread blocks does not
(``streams.copy`` 0.995), and the persistent streams of ``rw_mix_hw.py`` it was calibrated on agree within
5%. Whether the excess is in the rate at which the bytes move (the marginal time per element) or in what a
launch pays once (the ramp, the tail) tells which part of the DRAM model is wrong. Each mix here is written
as ``vector.vec_add`` is (``i = cuda.grid(1)``, one element a thread), at 4 M, 16 M and 64 M elements and in
blocks of 128, 256 and 1024 threads: ``read`` (a float32 sum kept in a register, written if it is -1,
never), ``write`` (a constant), ``copy``, ``add`` (``out = a + b``), ``split`` (one read, two writes:
``q = a // 3``, ``r = a - 3 q`` in int32, ``divmod_runtime``'s shape) and ``copy_f64``. Recorded with ncu:
the duration, SM cycles, DRAM bytes read and written, warps active and the stall reasons.
"""
from __future__ import annotations

import json
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import hw_probe  # noqa: E402  (beside this file)

SIZES = (1 << 22, 1 << 24, 1 << 26)          # elements an array
BLOCKS = (128, 256, 1024)                   # threads a block
METRICS = ("gpu__time_duration.sum", "sm__cycles_elapsed.max", "dram__bytes_read.sum", "dram__bytes_write.sum",
           "sm__warps_active.avg.pct_of_peak_sustained_active", "smsp__inst_executed.sum")
#: mix -> (dtype, arrays read, arrays written, the body for element i)
MIXES = {
    "read": ("float32", 1, 0, "v = a[i] * np.float32(2.0)\n        if v == np.float32(-1.0):\n            o[0] = v"),
    "write": ("float32", 0, 1, "o[i] = np.float32(1.5)"),
    "copy": ("float32", 1, 1, "o[i] = a[i]"),
    "add": ("float32", 2, 1, "o[i] = a[i] + b[i]"),
    "split": ("int32", 1, 2, "v = a[i]\n        q = v // 3\n        o[i] = q\n        p[i] = v - 3 * q"),
    "copy_f64": ("float64", 1, 1, "o[i] = a[i]"),
}
SOURCE = """
def k(a, b, o, p):
    i = cuda.grid(1)
    if i < o.shape[0]:
        {body}
"""
CASES = [(mix, n, t) for mix in MIXES for n in SIZES for t in BLOCKS]


def _kernel(mix: str, module=None) -> object:
    return hw_probe.jit_source(SOURCE.format(body=MIXES[mix][3]), f"<stream_size {mix}>", "k", module)


def _args(mix: str, n: int, np) -> tuple:
    dtype = np.dtype(MIXES[mix][0])
    ones = np.ones(n, dtype) if dtype.kind == "f" else np.arange(n, dtype=dtype)
    return ones, ones.copy(), np.zeros(n, dtype), np.zeros(n, dtype)


def once() -> None:
    cuda, np = hw_probe.numba_cuda()
    for mix, n, threads in CASES:
        dev = [cuda.to_device(x) for x in _args(mix, n, np)]
        _kernel(mix)[(n + threads - 1) // threads, threads](*dev)
        cuda.synchronize()
        del dev


def _line(r: dict) -> str:
    m = r["metrics"]
    us = m["gpu__time_duration.sum"] / 1e3
    moved = m["dram__bytes_read.sum"] + m["dram__bytes_write.sum"]
    return (f"{r['mix']:9s} {r['n'] >> 20:3d} M x {r['threads']:4d}: {us:8.1f} us, {moved / us / 1e3:6.0f} GB/s  "
            + hw_probe.top_stalls(m))


def marginal(rows: list) -> dict:
    """(mix, threads) -> (ns per M elements from 16 M to 64 M, ns at 16 M less 16 M at that rate: the launch's
    fixed part)."""
    by = {(r["mix"], r["n"], r["threads"]): r["metrics"]["gpu__time_duration.sum"] for r in rows}
    out = {}
    for mix, _, threads in CASES:
        lo, hi = by.get((mix, SIZES[1], threads)), by.get((mix, SIZES[2], threads))
        if lo is not None and hi is not None:
            per = (hi - lo) / ((SIZES[2] - SIZES[1]) >> 20)
            out[(mix, threads)] = (per, lo - per * (SIZES[1] >> 20))
    return out


def report(rows: list) -> None:
    for r in rows:
        print(_line(r), flush=True)
    for (mix, threads), (per, fixed) in marginal(rows).items():
        print(f"{mix:9s} x {threads:4d}: {per:7.1f} ns a M elements, fixed {fixed / 1e3:6.1f} us")


def run(out_path: str, ncu: str) -> None:
    script = str(pathlib.Path(__file__).resolve())
    rows = [dict(mix=mix, n=n, threads=t, metrics=m)
            for (mix, n, t), m in zip(CASES, hw_probe.ncu_profile(ncu, script, METRICS, len(CASES)))]
    report(rows)
    hw_probe.write(out_path, sizes=list(SIZES), blocks=list(BLOCKS), rows=rows)


def simulated(rows: list, **kw) -> list:
    """smsim's rows for the H200's ``rows`` (``kw``: :func:`hw_probe.simulated`'s)."""
    import numpy as np

    from smsim import cuda

    def launch(r: dict) -> tuple:
        n, t = r["n"], r["threads"]
        return _kernel(r["mix"], cuda), (n + t - 1) // t, t, _args(r["mix"], n, np)
    return hw_probe.simulated(rows, launch, complete=False, **kw)


def simulate(path: str) -> None:
    rows = json.loads(pathlib.Path(path).read_text())["rows"]
    sim = simulated(rows)
    print("H200:")
    report(rows)
    print("smsim:")
    report(sim)
    hw_probe.print_beside(rows, sim, 20, lambda r: f"{r['mix']} {r['n'] >> 20} M x {r['threads']}")


def main(argv=None) -> int:
    return hw_probe.ncu_main(__doc__, run, once, argv, simulate)


if __name__ == "__main__":
    sys.exit(main())

"""Speed of the functional interpreter on memory-bound kernels, in warp-instructions per second.

Run: ``python benchmarks/interp_speed.py`` (target: at least 300,000 warp-instructions/s on the
project's 2-core machine). Each kernel runs once to warm up (decode, numba compilation), then is timed
over several runs; the figure is executed warp-instructions (a warp counts an instruction when any of
its lanes executes it) divided by wall-clock seconds, median of the runs.
"""
from __future__ import annotations

import pathlib
import statistics
import sys
import time

import numpy as np

import isa

HERE = pathlib.Path(__file__).parent
TARGET = 300_000


def cases(rng):
    n = 1 << 20
    a, b = rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32)
    m = 512
    mat = rng.random((m, m), dtype=np.float32)
    yield "vec_add", (n // 256,), (256,), lambda: (np.zeros(n, np.float32), a, b, n)
    yield "copy_stride", (n // 256,), (256,), lambda: (np.zeros(n, np.float32), a, n, 33)
    yield "saxpy_gridstride", (264,), (256,), lambda: (b.copy(), a, np.float32(2.5), n)
    yield "transpose_tiled", (m // 32, m // 32), (32, 8), lambda: (np.zeros_like(mat), mat, m)
    yield "reduce_shared", (n // 256,), (256,), lambda: (np.zeros(n // 256, np.float32), a, n)
    small = 256 * 8
    yield "vec_add (8 blocks)", (8,), (256,), lambda: (np.zeros(small, np.float32), a[:small], b[:small], small)


def main(repeats: int = 3) -> int:
    module = isa.parse((HERE / "kernels.ptx").read_text())
    rng = np.random.default_rng(0)
    rows = []
    for name, grid, block, make_args in cases(rng):
        kernel = module.find(name.split()[0])
        isa.run(kernel, grid, block, make_args())            # warm-up: decode and numba compilation
        rates, count = [], 0
        for _ in range(repeats):
            args = make_args()
            t0 = time.perf_counter()
            count = isa.run(kernel, grid, block, args)["warp_instructions"]
            rates.append(count / (time.perf_counter() - t0))
        rows.append((name, count, statistics.median(rates)))
    print(f"{'kernel':24} {'warp-instructions':>18} {'warp-instr/s':>14}")
    for name, count, rate in rows:
        print(f"{name:24} {count:18,d} {rate:14,.0f}")
    worst = min(r for _, _, r in rows)
    print(f"slowest: {worst:,.0f} warp-instructions/s (target {TARGET:,}): {'OK' if worst >= TARGET else 'BELOW'}")
    return 0 if worst >= TARGET else 1


if __name__ == "__main__":
    sys.exit(main())

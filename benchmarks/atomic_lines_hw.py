"""What an H200's L2 atomic units take for integer reductions laid out over words, sectors and lines as
histograms lay them out, and for one reduction a block from many short blocks.

Run on the device machine, from the repository root (python3 with numba-cuda and ncu)::

    PYTHONPATH=. python3 benchmarks/atomic_lines_hw.py --out $OUT/atomic_lines_hw.json

and compare smsim with what it recorded (on any machine)::

    python benchmarks/atomic_lines_hw.py --sim docs/hardware/atomic_lines_hw.json

Why: at their full sizes ``plain.hist64_shared`` (each block merges 64 shared bins with one reduction per
bin: two warps, 32 words of a line each) runs at 1.21 of the H200's time in smsim, which charges
``l2.atomic_op_cycles`` (1.44, from one-address histograms) for each sector a request names, and
``plain.count_above`` (one reduction a block on one word, 65536 blocks) at 0.80. ``atomics_hw`` measured
one address and 32 words of a line from persistent loops; this measures the layouts in between (a line's 4
sectors, a sector's 8 words, lanes sharing words), two lines and 64 lines, and the one-a-block pattern of
short blocks. The kernels are in ``benchmarks/atomic_lines_kernels.py`` (the same source both sides); each
launch once under ``ncu --clock-control none``.
"""
from __future__ import annotations

import json
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))
import hw_probe  # noqa: E402  (beside this file)
from atomic_lines_kernels import KERNELS  # noqa: E402

BLOCKS, THREADS = 132 * 8, 256
#: (pattern, reps): each about a millisecond on the H200 by atomics_hw's rates
LANES = ((0, 64), (1, 32), (2, 16), (3, 4), (4, 64), (5, 64))
PER_BLOCK = ((1, 65536), (64, 65536), (1, 16384), (64, 16384))     # (threads that add, blocks)
METRICS = ("gpu__time_duration.sum", "sm__cycles_elapsed.max", "smsp__inst_executed.sum")


def cases() -> list:
    """``(kernel, grid, block, scalar args)`` of every launch, in order."""
    return [("red_lanes", BLOCKS, THREADS, (p, r)) for p, r in LANES] + \
        [("red_per_block", b, THREADS, (n,)) for n, b in PER_BLOCK]


def once() -> None:
    """Each case launched once (what ``ncu`` profiles)."""
    hw_probe.launch_cases(KERNELS, cases(), lambda cuda, np: (cuda.to_device(np.zeros(4096, np.int32)),))


def run(out_path: str, ncu: str) -> None:
    hw_probe.profile_cases(out_path, ncu, str(pathlib.Path(__file__).resolve()), METRICS, cases(),
                           lambda name, grid, args, m: f"{name:14s} {str(args):10s} grid {grid:6d}: "
                           f"{m['gpu__time_duration.sum'] / 1e3:9.2f} us, ")


def simulate(path: str) -> None:
    """smsim's time (h200, ``blocks="share"``) of every case ``path`` (this probe's JSON) recorded, beside it."""
    import numpy as np
    import smsim
    for row in json.loads(pathlib.Path(path).read_text())["rows"]:
        res = smsim.launch(KERNELS[row["kernel"]], row["grid"], row["block"],
                           (np.zeros(4096, np.int32), *row["args"]), config="h200", complete=False)
        hw, ns = row["metrics"]["gpu__time_duration.sum"], res.metrics["gpu__time_duration.sum"]
        print(f"{row['kernel']:14s} {str(tuple(row['args'])):10s} grid {row['grid']:6d}: H200 {hw / 1e3:9.2f} us, "
              f"smsim {ns / 1e3:9.2f} us ({ns / hw:4.2f})", flush=True)


def main(argv=None) -> int:
    return hw_probe.ncu_main(__doc__, run, once, argv, simulate)


if __name__ == "__main__":
    sys.exit(main())

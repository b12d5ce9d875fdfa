"""How long a warp's round of K loads from DRAM takes on an H200 at low load, K = 1, 2, 4, 8 lines issued
together, on 1, 4, 16 and 132 SMs: does a round wait for the slowest of its K lines?

Run on the device machine, from the repository root (python3 with numba-cuda and ncu)::

    PYTHONPATH=. python3 benchmarks/load_batch_hw.py --out $OUT/load_batch_hw.json

and compare smsim with what it recorded (on any machine)::

    python benchmarks/load_batch_hw.py --sim docs/hardware/load_batch_hw.json

Why: at their test sizes (1-16 blocks) kernels whose warps loop over rounds of a few coalesced loads
(``seminar.row_sum_warp``: four lines a round, eight rounds; ``bootcamp.matvec_f64_warp``,
``tutorial.gather_rows_warp``, ``workshop.layernorm_warp``) take smsim 0.84-0.89 of the H200's time, where their
mid sizes (128-512 blocks) are right. The kernels are in ``benchmarks/load_batch_kernels.py`` (the same source
both sides): blocks of 8 warps, each warp ``iters`` rounds, every round's lines new (L2 cleared by ncu's cache
control); each launch once under ``ncu --clock-control none``.
"""
from __future__ import annotations

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))
import hw_probe  # noqa: E402  (beside this file)
from load_batch_kernels import KERNELS  # noqa: E402

THREADS = 256
BLOCKS = (1, 4, 16, 132)
ITERS = (4, 16)
METRICS = ("gpu__time_duration.sum", "sm__cycles_elapsed.max", "sm__cycles_active.max", "sm__cycles_active.avg",
           "smsp__inst_executed.sum", "dram__bytes_read.sum")
WORDS = 132 * 8 * 32 * 16 * 256          # the largest case's floats (batch8, 132 blocks, 16 rounds)


def cases() -> list:
    """``(kernel, grid, block, scalar args)`` of every launch, in order."""
    return [(k, b, THREADS, (it,)) for k in KERNELS for b in BLOCKS for it in ITERS]


def once() -> None:
    """Each case launched once (what ``ncu`` profiles)."""
    hw_probe.launch_cases(KERNELS, cases(), lambda cuda, np: (cuda.to_device(np.ones(WORDS, np.float32)),
                                                              cuda.to_device(np.zeros(132 * 8, np.float32))))


def run(out_path: str, ncu: str) -> None:
    hw_probe.profile_cases(out_path, ncu, str(pathlib.Path(__file__).resolve()), METRICS, cases(),
                           lambda name, grid, args, m: f"{name:7s} blocks {grid:4d} iters {args[0]:3d}: "
                           f"{m['gpu__time_duration.sum'] / 1e3:8.2f} us, "
                           f"active max {m.get('sm__cycles_active.max')}, ")


def _launch(row: dict) -> tuple:
    """A recorded row's kernel, grid, block and arguments (its arrays as ``once`` makes them, as large as it reads)."""
    import numpy as np
    it = row["args"][0]
    words = row["grid"] * 8 * 32 * it * int(row["kernel"][5:])
    return (KERNELS[row["kernel"]], row["grid"], row["block"],
            (np.ones(words, np.float32), np.zeros(row["grid"] * 8, np.float32), it))


def simulate(path: str) -> None:
    """smsim's time (h200, ``blocks="share"``) of every case ``path`` (this probe's JSON) recorded, beside it."""
    hw_probe.print_durations(path, lambda rows: hw_probe.simulated(rows, _launch, complete=False), 24,
                             lambda r: f"{r['kernel']} blocks {r['grid']} iters {r['args'][0]}")


def main(argv=None) -> int:
    return hw_probe.ncu_main(__doc__, run, once, argv, simulate)


if __name__ == "__main__":
    sys.exit(main())

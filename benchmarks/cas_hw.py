"""What an H200's L2 atomic units take for compare-and-swaps (``atom.cas``), beside integer adds on the same
words: is a swap performed lane by lane, or as an add is, lanes on different words of a sector together?

Run on the device machine, from the repository root (python3 with numba-cuda and ncu)::

    PYTHONPATH=. python3 benchmarks/cas_hw.py --out $OUT/cas_hw.json

and compare smsim with what it recorded (on any machine)::

    python benchmarks/cas_hw.py --sim docs/hardware/cas_hw.json

Why: numba's float ``cuda.atomic.max`` (``homework.atomic_max_f32``) is a loop of ``atom.cas``; smsim charges a
swap as an add (``l2.atomic_op_cycles`` a sector, lanes on one word in turn). The kernels are in
``benchmarks/cas_kernels.py`` (the same source both sides): 132 x 8 blocks of 256 threads, every thread
``reps`` swaps (or adds) at the word its lane names; each launch once under ``ncu --clock-control none``.
"""
from __future__ import annotations

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))
import hw_probe  # noqa: E402  (beside this file)
from cas_kernels import KERNELS  # noqa: E402

BLOCKS, THREADS = 132 * 8, 256
#: (pattern, reps) for both kernels: 0 a line's 32 words, 1 a sector's 8 words (4 lanes each), 3 one word,
#: 6 one lane a warp on one word, 7 a sector's 4 words (8 lanes each), 8 four lanes alone on a sector's 4 words,
#: 10 64 words (two lines) hashed
PATTERNS = ((0, 8), (1, 8), (3, 2), (6, 16), (7, 4), (8, 16), (10, 8))
METRICS = ("gpu__time_duration.sum", "sm__cycles_elapsed.max", "smsp__inst_executed.sum",
           "lts__t_sectors_srcunit_tex_op_atom.sum", "lts__t_sectors_srcunit_tex_op_atom.max",
           "lts__t_requests_srcunit_tex_op_atom.sum", "lts__t_requests_srcunit_tex_op_atom.max")


def cases() -> list:
    """``(kernel, grid, block, scalar args)`` of every launch, in order."""
    return [("cas_lanes", BLOCKS, THREADS, (p, r, want)) for want in (0, -1) for p, r in PATTERNS] + \
        [("add_lanes", BLOCKS, THREADS, (p, r)) for p, r in PATTERNS]


def once() -> None:
    """Each case launched once (what ``ncu`` profiles)."""
    hw_probe.launch_cases(KERNELS, cases(), lambda cuda, np: (cuda.to_device(np.zeros(4096, np.int32)),))


def run(out_path: str, ncu: str) -> None:
    hw_probe.profile_cases(out_path, ncu, str(pathlib.Path(__file__).resolve()), METRICS, cases(),
                           lambda name, grid, args, m: f"{name:10s} {str(args):12s}: "
                           f"{m['gpu__time_duration.sum'] / 1e3:9.2f} us, atom sectors "
                           f"{m.get('lts__t_sectors_srcunit_tex_op_atom.sum')} (max slice "
                           f"{m.get('lts__t_sectors_srcunit_tex_op_atom.max')}), ")


def simulated(rows: list) -> list:
    """smsim's rows (h200, ``blocks="share"``, the default front end and stream) for a recorded ``rows``, each
    as it was with smsim's metrics."""
    import numpy as np
    import smsim
    return [{**row, "metrics": smsim.launch(KERNELS[row["kernel"]], row["grid"], row["block"],
                                            (np.zeros(4096, np.int32), *row["args"]), config="h200",
                                            complete=False).metrics} for row in rows]


def simulate(path: str) -> None:
    """smsim's time of every case ``path`` (this probe's JSON) recorded, beside it."""
    hw_probe.print_durations(path, simulated, 24, lambda r: f"{r['kernel']} {tuple(r['args'])}")


def main(argv=None) -> int:
    return hw_probe.ncu_main(__doc__, run, once, argv, simulate)


if __name__ == "__main__":
    sys.exit(main())

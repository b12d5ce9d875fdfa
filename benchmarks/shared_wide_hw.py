"""How many wavefronts an H200's shared memory takes for 8- and 16-byte loads whose lanes share addresses.

Run on the device machine, from the repository root (python3 with numba-cuda and ncu)::

    PYTHONPATH=. python3 benchmarks/shared_wide_hw.py --out $OUT/shared_wide_hw.json

and compare smsim with what it recorded (on any machine)::

    python benchmarks/shared_wide_hw.py --sim docs/hardware/shared_wide_hw.json

Why: ``lessons.dgemm_tiled16`` (float64 tiles of 16x16: per tile step, 16 ``LDS.64`` of B's column, which
two half-warps read alike, and 8 ``LDS.128`` of A's row, two addresses a warp) runs at 1.17 of the H200's
time, its warps waiting on ``mio_throttle``, and smsim counts 64 shared wavefronts a warp's step where the H200
counts 48. smsim serves an access of ``w`` words in ``w`` phases of ``32 / w`` lanes whatever the lanes name
(``smsim.fast.banks``); the calibration (``calib.smem_bank_f2/f4``) had only distinct addresses. These
kernels (``benchmarks/shared_wide_kernels.py``, the same source both sides) load 8 and 16 bytes a lane in the
patterns a tiled float64 code makes: all lanes distinct, two half-warps alike, a few addresses, one address.

Each kernel runs 528 blocks of 256 threads (4 an SM), 256 loads a thread, under
``ncu --clock-control none``: shared-load instructions (SASS), wavefronts, bank conflicts, time.
"""
from __future__ import annotations

import json
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))
import hw_probe  # noqa: E402  (beside this file)
from shared_wide_kernels import KERNELS  # noqa: E402

BLOCKS, THREADS, REPS = 132 * 4, 256, 256
CASES = [("lds64", p) for p in range(7)] + [("lds128", p) for p in range(7)] + [("lds32", p) for p in range(2)]
METRICS = ("gpu__time_duration.sum", "sm__cycles_elapsed.max", "smsp__inst_executed.sum",
           "smsp__sass_inst_executed_op_shared_ld.sum", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
           "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum")
WAVES, LOADS = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", "smsp__sass_inst_executed_op_shared_ld.sum"


def _out(np, name):
    return np.zeros(BLOCKS * THREADS, np.float32 if name == "lds32" else np.float64)


def once() -> None:
    """Each case launched once (what ``ncu`` profiles)."""
    cuda, np = hw_probe.numba_cuda()
    from workloads.numba_bridge import to_numba
    kernels = {k: to_numba(f) for k, f in KERNELS.items()}
    for name, pattern in CASES:
        out = cuda.to_device(_out(np, name))
        kernels[name][BLOCKS, THREADS](out, pattern, REPS)
        cuda.synchronize()


def run(out_path: str, ncu: str) -> None:
    rows = []
    script = str(pathlib.Path(__file__).resolve())
    for (name, pattern), m in zip(CASES, hw_probe.ncu_profile(ncu, script, METRICS, len(CASES))):
        rows.append(dict(kernel=name, pattern=pattern, blocks=BLOCKS, threads=THREADS, reps=REPS, metrics=m))
        loads = m.get(LOADS, 0)
        print(f"{name:7s} {pattern}: {loads:10.0f} shared loads, {m.get(WAVES, 0) / max(loads, 1):5.2f} wavefronts "
              f"each, {m['sm__cycles_elapsed.max']:9.0f} cycles, " + hw_probe.top_stalls(m), flush=True)
    hw_probe.write(out_path, rows=rows)


def simulate(path: str) -> None:
    """smsim's wavefronts per shared load and time (h200, ``blocks="share"``, the numba front end, as the
    H200 ran them) beside the H200's, per case."""
    import numpy as np

    import smsim
    for row in json.loads(pathlib.Path(path).read_text())["rows"]:
        name, hw = row["kernel"], row["metrics"]
        res = smsim.launch(KERNELS[name], (row["blocks"],), (row["threads"],),
                           (_out(np, name), row["pattern"], row["reps"]), config="h200", complete=False,
                           compiler="numba")
        m = res.metrics
        per = [x[WAVES] / max(x[LOADS], 1) for x in (hw, m)]
        print(f"{name:7s} {row['pattern']}: wavefronts a load H200 {per[0]:5.2f} smsim {per[1]:5.2f}; cycles H200 "
              f"{hw['sm__cycles_elapsed.max']:9.0f} smsim {m['sm__cycles_elapsed.max']:9.0f} "
              f"({m['sm__cycles_elapsed.max'] / hw['sm__cycles_elapsed.max']:4.2f})", flush=True)


def main(argv=None) -> int:
    return hw_probe.ncu_main(__doc__, run, once, argv, simulate)


if __name__ == "__main__":
    sys.exit(main())

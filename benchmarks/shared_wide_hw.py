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
from shared_wide_kernels import KERNELS, TPUT  # noqa: E402

BLOCKS, THREADS, REPS = 132 * 4, 256, 256
CASES = [("lds64", p) for p in range(7)] + [("lds128", p) for p in range(7)] + [("lds32", p) for p in range(2)]
#: throughput: (kernel, spread), 8 blocks of 256 threads an SM, TPUT_REPS loop iterations of 16 loads
TPUT_CASES = [(k, spread) for k in TPUT for spread in (0, 1)]
TPUT_BLOCKS, TPUT_REPS = 132 * 8, 64
METRICS = ("gpu__time_duration.sum", "sm__cycles_elapsed.max", "smsp__inst_executed.sum",
           "smsp__sass_inst_executed_op_shared_ld.sum", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
           "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum")
WAVES, LOADS = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", "smsp__sass_inst_executed_op_shared_ld.sum"


def _out(np, name):
    if name in TPUT:
        return np.zeros(TPUT_BLOCKS * THREADS, np.float32)
    return np.zeros(BLOCKS * THREADS, np.float32 if name == "lds32" else np.float64)


def _launch(name, pattern):
    """``(kernel, blocks, scalar args)`` of a case."""
    if name in TPUT:
        return TPUT[name], TPUT_BLOCKS, (pattern, TPUT_REPS)
    return KERNELS[name], BLOCKS, (pattern, REPS)


def once() -> None:
    """Each case launched once (what ``ncu`` profiles)."""
    cuda, np = hw_probe.numba_cuda()
    from workloads.numba_bridge import to_numba
    for name, pattern in CASES + TPUT_CASES:
        kernel, blocks, args = _launch(name, pattern)
        out = cuda.to_device(_out(np, name))
        to_numba(kernel)[blocks, THREADS](out, *args)
        cuda.synchronize()


def run(out_path: str, ncu: str) -> None:
    rows = []
    script = str(pathlib.Path(__file__).resolve())
    cases = CASES + TPUT_CASES
    for (name, pattern), m in zip(cases, hw_probe.ncu_profile(ncu, script, METRICS, len(cases))):
        _, blocks, args = _launch(name, pattern)
        rows.append(dict(kernel=name, pattern=pattern, blocks=blocks, threads=THREADS, reps=args[1], metrics=m))
        loads = m.get(LOADS, 0)
        print(f"{name:7s} {pattern}: {loads:10.0f} shared loads, {m.get(WAVES, 0) / max(loads, 1):5.2f} wavefronts "
              f"each, {m['sm__cycles_elapsed.max']:9.0f} cycles ({_per_load(m):5.2f} an SM's load), "
              + hw_probe.top_stalls(m), flush=True)
    hw_probe.write(out_path, rows=rows)


def _per_load(m: dict, sms: int = 132) -> float:
    """SM cycles per shared load of one SM (the grid's loads spread evenly over ``sms`` SMs)."""
    return m["sm__cycles_elapsed.max"] / max(m.get(LOADS, 0) / sms, 1)


def simulate(path: str) -> None:
    """smsim's wavefronts per shared load and time (h200, ``blocks="share"``, the numba front end, as the
    H200 ran them) beside the H200's, per case."""
    import numpy as np

    import smsim
    for row in json.loads(pathlib.Path(path).read_text())["rows"]:
        name, hw = row["kernel"], row["metrics"]
        kernel = TPUT.get(name) or KERNELS[name]
        res = smsim.launch(kernel, (row["blocks"],), (row["threads"],),
                           (_out(np, name), row["pattern"], row["reps"]), config="h200", complete=False,
                           compiler="numba")
        m = res.metrics
        per = [x[WAVES] / max(x[LOADS], 1) for x in (hw, m)]
        sms = min(132, row["blocks"])
        cyc = [_per_load(hw), m["sm__cycles_elapsed.max"] / max(m[LOADS] * res.blocks / res.blocks_timed / sms, 1)]
        print(f"{name:7s} {row['pattern']}: wavefronts a load H200 {per[0]:5.2f} smsim {per[1]:5.2f}; an SM's cycles "
              f"a load H200 {cyc[0]:5.2f} smsim {cyc[1]:5.2f} ({cyc[1] / cyc[0]:4.2f})", flush=True)


def main(argv=None) -> int:
    return hw_probe.ncu_main(__doc__, run, once, argv, simulate)


if __name__ == "__main__":
    sys.exit(main())

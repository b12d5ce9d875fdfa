"""Where an H200's issue slots go in integer index arithmetic: one element a thread against a grid-stride loop.

Run on the device machine, from the repository root (python3 with numba-cuda and ncu)::

    python3 benchmarks/dispatch_hw.py --out $OUT/dispatch_hw.json

Why: ``routine.int_divmod`` (``(i // 7) * 3 + i % 13`` of the thread index, 63 SASS instructions a warp, a
third of them ``IMAD``) runs at 63% issue on the H200 with 4.5 eligible warps a scheduler a cycle, and shows
``dispatch_stall`` and ``math_pipe_throttle`` that smsim does not: smsim runs it 20% fast at its full size.
``benchmarks/pipe_mix_hw.py`` found its pipes' rates right in loops of independent operations. These
kernels keep its arithmetic and change how the threads get their elements: one element a thread (16 M
threads, 65536 blocks: warps start and retire all the time) or a grid-stride loop over the same elements
with 132 x 8 blocks of 256 (every warp starts once), and the loop's body once or unrolled by 4 (independent
elements in flight in a thread).

Launched once each under ``ncu --clock-control none`` with the WarpStateStats and SchedulerStats sections:
duration, SM cycles, instructions, issue activity, eligible warps and the stall reasons.
"""
from __future__ import annotations

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import hw_probe  # noqa: E402  (beside this file)

THREADS = 256
N = 1 << 24
GRID_STRIDE_BLOCKS = 132 * 8
#: name -> (kernel source, blocks)
KERNELS = {
    "per_thread": ("""
def k(out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = (i // 7) * 3 + i % 13
""", N // THREADS),
    "grid_stride": ("""
def k(out):
    i = cuda.grid(1)
    s = cuda.gridsize(1)
    while i < out.shape[0]:
        out[i] = (i // 7) * 3 + i % 13
        i += s
""", GRID_STRIDE_BLOCKS),
    "grid_stride_x4": ("""
def k(out):
    i = cuda.grid(1)
    s = cuda.gridsize(1)
    n = out.shape[0]
    while i + 3 * s < n:
        out[i] = (i // 7) * 3 + i % 13
        j = i + s
        out[j] = (j // 7) * 3 + j % 13
        j2 = i + 2 * s
        out[j2] = (j2 // 7) * 3 + j2 % 13
        j3 = i + 3 * s
        out[j3] = (j3 // 7) * 3 + j3 % 13
        i += 4 * s
    while i < n:
        out[i] = (i // 7) * 3 + i % 13
        i += s
""", GRID_STRIDE_BLOCKS),
}
METRICS = ("gpu__time_duration.sum", "sm__cycles_elapsed.max", "smsp__inst_executed.sum",
           "smsp__issue_active.avg.pct_of_peak_sustained_active", "smsp__warps_eligible.avg.per_cycle_active",
           "smsp__warps_active.avg.per_cycle_active", "dram__bytes_write.sum")


def once() -> None:
    """Each kernel launched once (what ``ncu`` profiles), its output checked."""
    cuda, np = hw_probe.numba_cuda()
    out = cuda.to_device(np.zeros(N, np.int32))
    i = np.arange(N, dtype=np.int64)
    want = ((i // 7) * 3 + i % 13).astype(np.int32)
    for name, (src, blocks) in KERNELS.items():
        out.copy_to_device(np.zeros(N, np.int32))
        hw_probe.jit_source(src, f"<dispatch {name}>")[blocks, THREADS](out)
        cuda.synchronize()
        if not np.array_equal(out.copy_to_host(), want):
            raise SystemExit(f"{name}: wrong output")


def run(out_path: str, ncu: str) -> None:
    rows = []
    for name, m in zip(KERNELS, hw_probe.ncu_profile(ncu, str(pathlib.Path(__file__).resolve()), METRICS,
                                                     len(KERNELS))):
        rows.append(dict(name=name, blocks=KERNELS[name][1], threads=THREADS, n=N, source=KERNELS[name][0],
                         metrics=m))
        print(f"{name:16s} {m['gpu__time_duration.sum'] / 1e3:7.1f} us, {m['sm__cycles_elapsed.max']:8.0f} cycles, "
              f"inst {m['smsp__inst_executed.sum']:10.0f}, issue "
              f"{m.get('smsp__issue_active.avg.pct_of_peak_sustained_active', 0):5.1f}%, eligible "
              f"{m.get('smsp__warps_eligible.avg.per_cycle_active', 0):5.2f}, " + hw_probe.top_stalls(m, 5),
              flush=True)
    hw_probe.write(out_path, n=N, rows=rows)


def main(argv=None) -> int:
    return hw_probe.ncu_main(__doc__, run, once, argv)


if __name__ == "__main__":
    sys.exit(main())

"""Where `recitation.tile_rowsum16`'s time goes on an H200: the kernel and two cut-down variants, under ncu.

Run on the device machine, from the repository root (python3 with numba-cuda, ncu)::

    PYTHONPATH=. python3 benchmarks/tile_tail_hw.py --out $OUT/tile_tail_hw.json
    python benchmarks/tile_tail_hw.py --sim docs/hardware/tile_tail_hw.json     # smsim beside it, any machine

Why: ``recitation.tile_rowsum16`` (16x16 blocks stage a tile of a matrix in shared memory; after a barrier one
thread a row sums its 16 floats and stores the sum) runs at 0.74 of the H200's time in smsim at its full size
(4096^2, 65536 blocks) and 0.87 at the mid size: the H200 issues at 0.63 of a sub-partition's peak where smsim
issues at 0.88, its warps waiting longer at the barrier and for the MIO and math pipes. The variants take parts
away, so that the part smsim misses shows:

* ``tail``: the kernel (flat indexing: ``a[y * n + x]``, ``part[y * (n // 16) + bx]``);
* ``one``: the same, but the thread of a row stores ``s[ty, 0]`` (no 16-float loop after the barrier);
* ``nobar``: no shared memory and no barrier: every thread loads its element, the thread of a row stores it.

Each at ``n`` = 4096 (the full size) and 1024 (the mid), once each under ncu (duration, SM cycles, issued
instructions and the stall reasons).
"""
from __future__ import annotations

import pathlib
import sys

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))
import hw_probe  # noqa: E402  (beside this file)
from smsim import cuda  # noqa: E402

SIDE = 4096               # the arrays' side (the largest n)
SIDES = (4096, 1024)
METRICS = ("gpu__time_duration.sum", "sm__cycles_elapsed.max", "smsp__inst_executed.sum",
           "smsp__issue_active.avg.pct_of_peak_sustained_active")


@cuda.jit
def tail(a, part, n):
    s = cuda.shared.array((16, 17), np.float32)
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    x, y = cuda.grid(2)
    s[ty, tx] = a[y * n + x]
    cuda.syncthreads()
    if tx == 0:
        acc = np.float32(0.0)
        for k in range(16):
            acc += s[ty, k]
        part[y * (n // 16) + cuda.blockIdx.x] = acc


@cuda.jit
def one(a, part, n):
    s = cuda.shared.array((16, 17), np.float32)
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    x, y = cuda.grid(2)
    s[ty, tx] = a[y * n + x]
    cuda.syncthreads()
    if tx == 0:
        part[y * (n // 16) + cuda.blockIdx.x] = s[ty, 0]


@cuda.jit
def nobar(a, part, n):
    tx = cuda.threadIdx.x
    x, y = cuda.grid(2)
    v = a[y * n + x]
    if tx == 0:
        part[y * (n // 16) + cuda.blockIdx.x] = v


KERNELS = {"tail": tail, "one": one, "nobar": nobar}


def cases() -> list:
    """``(kernel, grid, block, scalar args)`` of every launch, in order."""
    return [(k, (n // 16, n // 16), (16, 16), (n,)) for n in SIDES for k in KERNELS]


def _arrays(cuda_mod, np_mod) -> tuple:
    return (cuda_mod.to_device(np_mod.ones(SIDE * SIDE, np_mod.float32)),
            cuda_mod.to_device(np_mod.zeros(SIDE * SIDE // 16, np_mod.float32)))


def once() -> None:
    """Each case launched once (what ``ncu`` profiles)."""
    hw_probe.launch_cases(KERNELS, cases(), _arrays)


def run(out_path: str, ncu: str) -> None:
    hw_probe.profile_cases(out_path, ncu, str(pathlib.Path(__file__).resolve()), METRICS, cases(),
                           lambda name, grid, args, m: f"{name:6s} n={args[0]:5d}: "
                           f"{m['gpu__time_duration.sum'] / 1e3:8.2f} us, inst {m['smsp__inst_executed.sum']:.0f}, "
                           f"issue active {m.get('smsp__issue_active.avg.pct_of_peak_sustained_active', 0):.1f}%, ")


def simulated(rows: list) -> list:
    """smsim's rows (h200, ``blocks="share"``, numba's front end, the SASS stream) for the recorded ``rows``."""
    return hw_probe.simulated(rows, lambda r: (KERNELS[r["kernel"]], tuple(r["grid"]), tuple(r["block"]),
                                               (np.ones(SIDE * SIDE, np.float32),
                                                np.zeros(SIDE * SIDE // 16, np.float32), *r["args"])),
                              complete=False)


def simulate(path: str) -> None:
    """smsim's time of every case ``path`` (this probe's JSON) recorded, beside it, with the stalls that differ."""
    import json
    rows = json.loads(pathlib.Path(path).read_text())["rows"]
    sim = simulated(rows)
    hw_probe.print_beside(rows, sim, 14, lambda r: f"{r['kernel']} n={r['args'][0]}")
    for hw, s in zip(rows, sim):
        print(f"  {hw['kernel']} n={hw['args'][0]}: H200 " + hw_probe.top_stalls(hw["metrics"], 6)
              + " | smsim " + hw_probe.top_stalls(s["metrics"], 6))


def main(argv=None) -> int:
    return hw_probe.ncu_main(__doc__, run, once, argv, simulate)


if __name__ == "__main__":
    sys.exit(main())

"""The same element-wise work in blocks of different shapes, on an H200 under ncu: what a 2-D block costs.

Run on the device machine, from the repository root (python3 with numba-cuda, ncu)::

    PYTHONPATH=. python3 benchmarks/block_shape_hw.py --out $OUT/block_shape_hw.json
    python benchmarks/block_shape_hw.py --sim docs/hardware/block_shape_hw.json     # smsim beside it, any machine

Why: over the validation suite (``docs/hardware/validate_hw.json``) smsim's time of the kernels launched in
16x16 blocks is 0.945 of the H200's (median) at the mid size and 0.935 at the full one, of those in 32xN
blocks 0.976 and 0.975, of 1-D blocks 0.993 and 1.000; at the test size all three are about 1.00. In those
kernels the H200 shows more ``math_pipe_throttle`` and ``short_scoreboard`` than smsim, and less
``dispatch_stall``. Here one kernel and one amount of work, only the block's shape (and so the index
arithmetic and the addresses a block and a warp touch) varied:

* ``add2d``: ``out[y, x] = a[y, x] + b[y, x]`` over ``n`` x ``n`` float32 matrices (``plain.matadd_2d16``'s
  source), in blocks of 256x1, 128x2, 64x4, 32x8, 16x16 and 8x32;
* ``add2d_lin``: 16x16 blocks whose 256 threads take 256 consecutive elements (``i = block * 256 + ty * 16 +
  tx``, ``y = i >> shift``, ``x = i & (n - 1)``): a 2-D block's index registers, a 1-D block's addresses;
* ``rd2d``: ``add2d``'s reads with a store that never happens (a sum that is never negative): reads alone,
  in 256x1, 32x8 and 16x16 blocks.

Each at ``n`` = 1024 (the mid size: 4 MB an array, which L2 holds) and 4096 (the full: 64 MB), once each
under ncu (duration, SM cycles, issued instructions, DRAM bytes and the stall reasons).
"""
from __future__ import annotations

import pathlib
import sys

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))
import hw_probe  # noqa: E402  (beside this file)
from smsim import cuda  # noqa: E402

SIDES = (1024, 4096)
SHAPES = ((256, 1), (128, 2), (64, 4), (32, 8), (16, 16), (8, 32))
READ_SHAPES = ((256, 1), (32, 8), (16, 16))
METRICS = ("gpu__time_duration.sum", "sm__cycles_elapsed.max", "smsp__inst_executed.sum",
           "dram__bytes_read.sum", "dram__bytes_write.sum",
           "smsp__issue_active.avg.pct_of_peak_sustained_active")


@cuda.jit
def add2d(a, b, out, shift):
    x, y = cuda.grid(2)
    if y < out.shape[0] and x < out.shape[1]:
        out[y, x] = a[y, x] + b[y, x]


@cuda.jit
def add2d_lin(a, b, out, shift):
    i = (cuda.blockIdx.y * cuda.gridDim.x + cuda.blockIdx.x) * 256 + cuda.threadIdx.y * 16 + cuda.threadIdx.x
    y = i >> shift
    x = i & ((1 << shift) - 1)
    if y < out.shape[0]:
        out[y, x] = a[y, x] + b[y, x]


@cuda.jit
def rd2d(a, b, out, shift):
    x, y = cuda.grid(2)
    if y < out.shape[0] and x < out.shape[1]:
        v = a[y, x] + b[y, x]
        if v < np.float32(0.0):
            out[y, x] = v


KERNELS = {"add2d": add2d, "add2d_lin": add2d_lin, "rd2d": rd2d}


def cases() -> list:
    """``(kernel, grid, block, scalar args)`` of every launch, in order (the arrays: :func:`arrays` of ``n``)."""
    out = []
    for n in SIDES:
        shift = n.bit_length() - 1
        for bx, by in SHAPES:
            out.append(("add2d", (n // bx, n // by), (bx, by), (shift,)))
        out.append(("add2d_lin", (n // 16, n // 16), (16, 16), (shift,)))
        for bx, by in READ_SHAPES:
            out.append(("rd2d", (n // bx, n // by), (bx, by), (shift,)))
    return out


def arrays(np_mod, n: int) -> tuple:
    """``a``, ``b`` and ``out``, ``n`` x ``n`` float32 (``a`` and ``b`` positive: ``rd2d`` never stores)."""
    rng = np_mod.random.default_rng(0)
    return (rng.random((n, n), dtype=np_mod.float32) + 1, rng.random((n, n), dtype=np_mod.float32) + 1,
            np_mod.zeros((n, n), np_mod.float32))


def once() -> None:
    """Each case launched once (what ``ncu`` profiles), numba's kernel of the same source."""
    numba_cuda, np_mod = hw_probe.numba_cuda()
    from workloads.numba_bridge import to_numba
    kernels = {k: to_numba(f) for k, f in KERNELS.items()}
    device = {n: tuple(numba_cuda.to_device(x) for x in arrays(np_mod, n)) for n in SIDES}
    for name, grid, block, args in cases():
        kernels[name][grid, block](*device[grid[0] * block[0]], *args)
        numba_cuda.synchronize()


def run(out_path: str, ncu: str) -> None:
    def line(name: str, grid: tuple, args: tuple, m: dict) -> str:
        dram = m.get("dram__bytes_read.sum", 0) / 1e6, m.get("dram__bytes_write.sum", 0) / 1e6
        return (f"{name:9s} n={1 << args[0]:5d} grid {grid}: {m['gpu__time_duration.sum'] / 1e3:8.2f} us, "
                f"inst {m['smsp__inst_executed.sum']:.0f}, DRAM {dram[0]:.1f}/{dram[1]:.1f} MB, "
                f"issue active {m.get('smsp__issue_active.avg.pct_of_peak_sustained_active', 0):.1f}%, ")
    hw_probe.profile_cases(out_path, ncu, str(pathlib.Path(__file__).resolve()), METRICS, cases(), line)


def simulated(rows: list) -> list:
    """smsim's rows (h200, ``blocks="share"``, numba's front end, the SASS stream) for the recorded ``rows``."""
    return hw_probe.simulated(rows, lambda r: (KERNELS[r["kernel"]], tuple(r["grid"]), tuple(r["block"]),
                                               (*arrays(np, 1 << r["args"][0]), *r["args"])),
                              complete=False)


def label(r: dict) -> str:
    return f"{r['kernel']} {r['block'][0]}x{r['block'][1]} n={1 << r['args'][0]}"


def simulate(path: str) -> None:
    """smsim's time of every case ``path`` (this probe's JSON) recorded, beside it, with the top stalls."""
    import json
    rows = json.loads(pathlib.Path(path).read_text())["rows"]
    sim = simulated(rows)
    hw_probe.print_beside(rows, sim, 24, label)
    for hw, s in zip(rows, sim):
        print(f"  {label(hw)}: H200 " + hw_probe.top_stalls(hw["metrics"], 6)
              + " | smsim " + hw_probe.top_stalls(s["metrics"], 6))


def predict() -> None:
    """smsim's time of every case before any hardware run (the rows it would record, without metrics)."""
    rows = [dict(kernel=k, grid=list(g), block=list(b), args=list(a)) for k, g, b, a in cases()]
    for r, s in zip(rows, simulated(rows)):
        m = s["metrics"]
        print(f"{label(r):28s} smsim {m['gpu__time_duration.sum'] / 1e3:7.2f} us " + hw_probe.top_stalls(m, 6),
              flush=True)


def main(argv=None) -> int:
    if argv is None and sys.argv[1:] == ["--predict"]:
        predict()
        return 0
    return hw_probe.ncu_main(__doc__, run, once, argv, simulate)


if __name__ == "__main__":
    sys.exit(main())

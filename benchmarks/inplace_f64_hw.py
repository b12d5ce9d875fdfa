"""A float64 array clamped in place, one element a thread, at every block size, and by a persistent grid: what the
H200 loses (or not) to blocks' turnover in a stream of one read and one write an element.

Run on the device machine, from the repository root (python3 with numba-cuda and ncu)::

    PYTHONPATH=. python3 benchmarks/inplace_f64_hw.py --out $OUT/inplace_f64_hw.json

and, on any machine, smsim beside what it recorded::

    python benchmarks/inplace_f64_hw.py --sim docs/hardware/inplace_f64_hw.json

Why: ``tutorial.clamp_f64_b192`` (``a = min(max(a, lo), hi)`` over 2^24 float64, 192-thread blocks) takes the
H200 67.8 us and smsim 86.3 at its full size (1.27), and the float64 in-place maps in 256-thread blocks
(``exercises.poly8_f64``, ``lessons.sigmoid_f64``, ``horner8_f64``) run 1.06-1.12 in smsim; its loads wait half
again as long as the H200's. In smsim a stream of one read and one write an element loses 16% one element a
thread against a persistent grid (block slots refilled ``launch.block_launch_cycles`` after a retirement, loads
slowed by HBM's forced write drains, ``dram.write_drain_cycles``); the H200's streams of two reads and a write
lose nothing (``docs/hardware/rw_mix_hw.md``). Does the H200's one-to-one float64 stream lose anything to
short blocks, and how does its time go with the block size?

Cases (ncu ``--clock-control none``, each launched once, its input rewritten before): ``clamp`` (the tutorial's
kernel, the source smsim runs) over :data:`N` float64 at :data:`BLOCKS` threads a block; ``clamp_big`` the
same at 256 threads over :data:`N_BIG`; ``clamp_gs`` a grid-stride copy of it, 132 x 8 blocks of 256 threads;
``clamp32`` a float32 clamp at 256 threads over :data:`N` (half the bytes). Recorded: duration, SM cycles,
warps active, DRAM bytes, instructions and the stall reasons.
"""
from __future__ import annotations

import json
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import hw_probe  # noqa: E402  (beside this file)

N = 1 << 24
N_BIG = 1 << 26
BLOCKS = (64, 96, 128, 192, 256, 384, 512, 1024)
GS_GRID = 132 * 8
LO, HI = -0.5, 0.5
METRICS = ("gpu__time_duration.sum", "sm__cycles_elapsed.max", "sm__cycles_active.avg", "smsp__inst_executed.sum",
           "sm__warps_active.avg.pct_of_peak_sustained_active", "dram__bytes_read.sum", "dram__bytes_write.sum")


sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
from smsim import cuda  # noqa: E402  (the repository's: the source both sides run)
from workloads.tutorial import clamp_f64_b192  # noqa: E402


@cuda.jit
def clamp_gs(a, lo, hi):
    """a = min(max(a, lo), hi) by a grid-stride loop."""
    for i in range(cuda.grid(1), a.shape[0], cuda.gridsize(1)):
        a[i] = min(max(a[i], lo), hi)


@cuda.jit
def clamp32(a, lo, hi):
    """a = min(max(a, lo), hi), float32."""
    i = cuda.grid(1)
    if i < a.shape[0]:
        a[i] = min(max(a[i], lo), hi)


def kernels() -> dict:
    """name -> the kernel (smsim's ``cuda.jit``)."""
    return {"clamp": clamp_f64_b192, "clamp_gs": clamp_gs, "clamp32": clamp32}


def cases() -> list:
    """``(name, kernel key, n, dtype, grid, block)`` of every case, in launch order."""
    out = [(f"clamp_b{t}", "clamp", N, "float64", (N + t - 1) // t, t) for t in BLOCKS]
    out.append(("clamp_big_b256", "clamp", N_BIG, "float64", N_BIG // 256, 256))
    out.append(("clamp_gs", "clamp_gs", N, "float64", GS_GRID, 256))
    out.append(("clamp32_b256", "clamp32", N, "float32", N // 256, 256))
    return out


def _input(np, n: int, dtype: str):
    rng = np.random.default_rng(0)
    return (rng.random(n) * 2.0 - 1.0).astype(dtype)


def _bounds(np, dtype: str) -> tuple:
    return (np.float32(LO), np.float32(HI)) if dtype == "float32" else (LO, HI)


def once() -> None:
    """Each case launched once (what ``ncu`` profiles), on a fresh copy of its input."""
    ncuda, np = hw_probe.numba_cuda()
    from workloads.numba_bridge import to_numba
    ks = {k: to_numba(v) for k, v in kernels().items()}
    for name, key, n, dt, grid, block in cases():
        a = ncuda.to_device(_input(np, n, dt))
        ks[key][grid, block](a, *_bounds(np, dt))
        ncuda.synchronize()
        got = a.copy_to_host()
        want = np.clip(_input(np, n, dt), *_bounds(np, dt))
        if not np.array_equal(got, want):
            raise SystemExit(f"{name}: wrong output")


def run(out_path: str, ncu: str) -> None:
    script = str(pathlib.Path(__file__).resolve())
    rows = []
    for (name, key, n, dt, grid, block), m in zip(cases(), hw_probe.ncu_profile(ncu, script, METRICS, len(cases()))):
        rows.append(dict(name=name, kernel=key, n=n, dtype=dt, grid=grid, block=block, metrics=m))
        active = m.get("sm__warps_active.avg.pct_of_peak_sustained_active", 0.0)
        moved = (m.get("dram__bytes_read.sum", 0) + m.get("dram__bytes_write.sum", 0)) / m["gpu__time_duration.sum"]
        print(f"{name:16s} {m['gpu__time_duration.sum'] / 1e3:8.2f} us, DRAM {moved:6.0f} GB/s, warps active "
              f"{active:5.1f}%, " + hw_probe.top_stalls(m), flush=True)
    hw_probe.write(out_path, rows=rows)


def simulated(rows: list, **kw) -> list:
    """smsim's rows for the recorded ``rows`` (h200, numba's front end, SASS, ``blocks="share"``)."""
    import numpy as np
    ks = kernels()

    def launch(row: dict) -> tuple:
        a = _input(np, row["n"], row["dtype"])
        return ks[row["kernel"]], (row["grid"],), (row["block"],), (a, *_bounds(np, row["dtype"]))
    return hw_probe.simulated(rows, launch, complete=False, **kw)


def simulate(path: str) -> None:
    """smsim's time and load wait beside the H200's, a case a line."""
    rows = json.loads(pathlib.Path(path).read_text())["rows"]
    ls = hw_probe.stall_metric("long_scoreboard")
    for hw, s in zip(rows, simulated(rows)):
        h, m = hw["metrics"], s["metrics"]
        hn, sn = h["gpu__time_duration.sum"], m["gpu__time_duration.sum"]
        print(f"{hw['name']:16s} H200 {hn / 1e3:7.1f} us smsim {sn / 1e3:7.1f} us ({sn / hn:4.2f}); "
              f"long_scoreboard {h.get(ls, 0):5.1f} / {m.get(ls, 0):5.1f}", flush=True)


def main(argv=None) -> int:
    return hw_probe.ncu_main(__doc__, run, once, argv, simulate)


if __name__ == "__main__":
    sys.exit(main())

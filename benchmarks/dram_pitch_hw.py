"""Does HBM serve one opened row to the accesses of several SMs, and do power-of-two distances between the
rows a block reads cost bandwidth? 16x16 tiles of a 4096 x 4096 float32 matrix read along rows and down
columns, at row pitches of 4096, 4112 and 4128 floats, and the 7-point stencil with planes 256 x 256 and
256 x 264 floats.

Run on the device machine, from the repository root (python3 with numba-cuda and ncu)::

    PYTHONPATH=. python3 benchmarks/dram_pitch_hw.py --out $OUT/dram_pitch_hw.json

and compare smsim with what it recorded (on any machine)::

    python benchmarks/dram_pitch_hw.py --sim docs/hardware/dram_pitch_hw.json

Why: ``plain.matadd_2d16`` (16x16 tiles: each block reads 64 bytes of 16 matrix rows, the block beside it
the next 64 bytes) streams on the H200 nearly as fast as ``plain.ratio_div`` (a 1-D stream), where smsim,
opening a DRAM row for each of its SM's 64-byte accesses, ran out of row activations (1.23x the H200's
time); and ``plain.transpose_add16`` (the same with one array read down its columns) is 14% slower than
``matadd_2d16`` on the H200. Which blocks share a row's opening (those started one after another, or any
resident at the same time: ``add_rows`` against ``add_cols``), and do the columns cost because their rows
are 16 KB apart (a power of two, as the stencil's planes are) or because no block started near theirs reads
the rest of each row (``tadd``, ``tcopy`` at three pitches)?

The kernels are in ``benchmarks/dram_pitch_kernels.py`` (the same source both sides). Each launch once under
``ncu --clock-control none`` (L2 flushed before it): duration, SM cycles, instructions, DRAM bytes, L2 hit
rates and the warps' stall reasons.
"""
from __future__ import annotations

import json
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))
import hw_probe  # noqa: E402  (beside this file)
from dram_pitch_kernels import KERNELS, TILE  # noqa: E402

N = 4096
PITCHES = (4096, 4112, 4128)
VOLUMES = ((256, 256, 256), (256, 264, 256))
METRICS = ("gpu__time_duration.sum", "sm__cycles_elapsed.max", "sm__cycles_active.avg", "smsp__inst_executed.sum",
           "dram__bytes_read.sum", "dram__bytes_write.sum", "lts__t_sector_op_read_hit_rate.pct",
           "lts__t_sector_op_write_hit_rate.pct")


def cases() -> list:
    """``(kernel name, shape)`` of every launch, in order: the matrices' ``(n, pitch)``, the volume's shape."""
    out = [("add1d", (N, N))]
    for k in ("add_rows", "tadd", "tcopy"):
        out += [(k, (N, p)) for p in PITCHES]
    out += [("add_cols", (N, p)) for p in PITCHES[::2]]
    out += [("stencil", v) for v in VOLUMES]
    return out


def launch(name: str, shape: tuple, arrays: dict) -> tuple:
    """``(grid, block, args)`` of a case; ``arrays[shape]`` its inputs and output (two matrices and an
    output, or a volume and an output)."""
    arr = arrays[shape]
    if name == "stencil":
        nz, ny, nx = shape
        return (nx // 32, ny // 8), (32, 8), arr[:2]
    n, _ = shape
    if name == "add1d":
        flat = tuple(x.reshape(-1) for x in arr)
        return (flat[0].shape[0] // 256,), (256,), flat
    tiles = n // TILE
    if name == "add_cols":
        return (tiles * tiles,), (TILE, TILE), (*arr, n)
    if name == "tcopy":
        return (tiles, tiles), (TILE, TILE), (arr[1], arr[2], n)
    return (tiles, tiles), (TILE, TILE), (*arr, n)


def _arrays(np, rng, to_device=lambda x: x) -> dict:
    out = {}
    for _, shape in cases():
        if shape in out:
            continue
        if len(shape) == 3:
            out[shape] = (to_device(rng.random(shape, dtype=np.float32)), to_device(np.zeros(shape, np.float32)))
        else:
            out[shape] = tuple(to_device(rng.random(shape, dtype=np.float32)) for _ in range(2)) + \
                (to_device(np.zeros(shape, np.float32)),)
    return out


def once() -> None:
    """Each case launched once (what ``ncu`` profiles)."""
    cuda, np = hw_probe.numba_cuda()
    from workloads.numba_bridge import to_numba
    kernels = {k: to_numba(f) for k, f in KERNELS.items()}
    arrays = _arrays(np, np.random.default_rng(0), cuda.to_device)
    for name, shape in cases():
        grid, block, args = launch(name, shape, arrays)
        kernels[name][grid, block](*args)
        cuda.synchronize()


def run(out_path: str, ncu: str) -> None:
    rows = []
    script = str(pathlib.Path(__file__).resolve())
    for (name, shape), m in zip(cases(), hw_probe.ncu_profile(ncu, script, METRICS, len(cases()))):
        rows.append(dict(kernel=name, shape=list(shape), metrics=m))
        print(f"{name:9s} {str(shape):16s} {m['gpu__time_duration.sum'] / 1e3:8.2f} us, DRAM read "
              f"{m['dram__bytes_read.sum'] / 1e6:7.1f} MB write {m['dram__bytes_write.sum'] / 1e6:7.1f} MB, "
              + hw_probe.top_stalls(m), flush=True)
    hw_probe.write(out_path, rows=rows)


def simulate(path: str) -> None:
    """smsim's time (h200, ``blocks="share"``) of every case ``path`` (this probe's JSON) recorded, beside it."""
    import numpy as np
    import smsim
    data = json.loads(pathlib.Path(path).read_text())
    arrays = _arrays(np, np.random.default_rng(0))
    for row in data["rows"]:
        name, shape = row["kernel"], tuple(row["shape"])
        grid, block, args = launch(name, shape, arrays)
        res = smsim.launch(KERNELS[name], grid, block, args, config="h200", complete=False)
        hw, m = row["metrics"], res.metrics
        ns, scale = m["gpu__time_duration.sum"], res.blocks / max(res.blocks_timed, 1)
        print(f"{name:9s} {str(shape):16s} H200 {hw['gpu__time_duration.sum'] / 1e3:8.2f} us smsim {ns / 1e3:8.2f} "
              f"us ({ns / hw['gpu__time_duration.sum']:4.2f}), DRAM read H200 {hw['dram__bytes_read.sum'] / 1e6:6.1f} "
              f"smsim {m['dram__bytes_read.sum'] * scale / 1e6:6.1f} MB", flush=True)


def main(argv=None) -> int:
    return hw_probe.ncu_main(__doc__, run, once, argv, simulate)


if __name__ == "__main__":
    sys.exit(main())

"""What one iteration of a loop that reads a new DRAM line each time costs on an H200, and what in the
iteration makes it longer: a store, loads L1 holds, the 7-point stencil's seven loads.

Run on the device machine, from the repository root (python3 with numba-cuda and ncu)::

    PYTHONPATH=. python3 benchmarks/loop_trip_hw.py --out $OUT/loop_trip_hw.json

Why: ``plain.stencil3d7`` (each thread an ``(x, y)`` column, a loop over ``z`` with seven loads and a store)
takes 1342 SM cycles an iteration on the H200 at the test size (4 blocks), smsim 852; ``plain.colsum64``
(a column sum: four loads of new rows an unrolled iteration, no store in the loop) takes 1082 a round trip,
smsim 1013. Which of the stencil's differences (the store after each iteration's loads, loads that hit L1,
seven loads rather than one) makes its round trip longer?

The kernels are in ``benchmarks/loop_trip_kernels.py`` (smsim's ``cuda``, converted to numba's on the device
by ``workloads.numba_bridge.to_numba``: the same source both sides). Each runs on volumes of ``(nz, ny, nx)``
float32 (:data:`SHAPES`) with 32x8 blocks over ``(x, y)``; two ``nz`` per plane size give the cost of an
iteration as the slope, free of launch and block start. Each launch once under ``ncu --clock-control none``
(L2 flushed before it): duration, SM cycles, instructions, L1 and L2 hit rates, DRAM bytes and the warps'
stall reasons per issued instruction.
"""
from __future__ import annotations

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))
import hw_probe  # noqa: E402  (beside this file)
from loop_trip_kernels import KERNELS  # noqa: E402

SHAPES = ((34, 32, 32), (130, 32, 32), (34, 256, 256), (130, 256, 256), (34, 8, 32), (130, 8, 32))
BLOCK = (32, 8)
METRICS = ("gpu__time_duration.sum", "sm__cycles_elapsed.max", "sm__cycles_active.max", "sm__cycles_active.avg",
           "smsp__inst_executed.sum", "dram__bytes_read.sum", "dram__bytes_write.sum",
           "l1tex__t_sector_pipe_lsu_mem_global_op_ld_hit_rate.pct", "lts__t_sector_op_read_hit_rate.pct",
           "lts__t_sector_op_write_hit_rate.pct", "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
           "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "lts__t_sectors_srcunit_tex_op_read.sum")

def cases() -> list:
    """``(kernel name, shape)`` of every launch, in order."""
    return [(k, s) for k in KERNELS for s in SHAPES]


def grid(shape) -> tuple:
    nz, ny, nx = shape
    return (nx // BLOCK[0], ny // BLOCK[1])


def once() -> None:
    """Each case launched once (what ``ncu`` profiles)."""
    cuda, np = hw_probe.numba_cuda()
    from workloads.numba_bridge import to_numba
    kernels = {k: to_numba(f) for k, f in KERNELS.items()}
    rng = np.random.default_rng(0)
    arrays = {s: (cuda.to_device(rng.random(s, dtype=np.float32)), cuda.device_array(s, np.float32))
              for s in SHAPES}
    for name, shape in cases():
        kernels[name][grid(shape), BLOCK](*arrays[shape])
        cuda.synchronize()


def profile(ncu: str) -> list:
    """``ncu``'s rows of the ``--once`` run, one a case in :func:`cases` order."""
    return hw_probe.ncu_profile(ncu, str(pathlib.Path(__file__).resolve()), METRICS, len(cases()))


def run(out_path: str, ncu: str) -> None:
    rows = []
    for (name, shape), m in zip(cases(), profile(ncu)):
        rows.append(dict(kernel=name, shape=list(shape), grid=list(grid(shape)), block=list(BLOCK), metrics=m))
        print(f"{name:15s} {str(shape):16s} {m['gpu__time_duration.sum'] / 1e3:8.2f} us, active max "
              f"{m['sm__cycles_active.max']:9.0f}, inst {m['smsp__inst_executed.sum']:10.0f}, "
              f"L1 hit {m.get('l1tex__t_sector_pipe_lsu_mem_global_op_ld_hit_rate.pct', 0):5.1f}%, "
              f"L2 read hit {m.get('lts__t_sector_op_read_hit_rate.pct', 0):5.1f}%, "
              + hw_probe.top_stalls(m), flush=True)
    for name in KERNELS:
        for small, big in zip(SHAPES[::2], SHAPES[1::2]):
            a, b = (next(r for r in rows if r["kernel"] == name and r["shape"] == list(s)) for s in (small, big))
            cycles = [r["metrics"]["sm__cycles_active.max"] for r in (a, b)]
            slope = (cycles[1] - cycles[0]) / (big[0] - small[0])
            print(f"{name:15s} planes {small[1]}x{small[2]}: {slope:7.1f} SM cycles an iteration")
    hw_probe.write(out_path, shapes=[list(s) for s in SHAPES], rows=rows)


def main(argv=None) -> int:
    return hw_probe.ncu_main(__doc__, run, once, argv)


if __name__ == "__main__":
    sys.exit(main())

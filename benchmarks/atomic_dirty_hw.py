"""What an H200 writes to DRAM for the lines its atomics change: when does L2 write them back?

Run on the device machine, from the repository root (python3 with numba-cuda and ncu)::

    PYTHONPATH=. python3 benchmarks/atomic_dirty_hw.py --out $OUT/atomic_dirty_hw.json

Why: ``drills.coo_spmv`` (float adds into an 8 MB vector, each row's entries in turn, while 218 MB of entries
stream past) writes 9.1 MB to DRAM on the H200 at its full size (the vector and the 2.2 MB dirty when the
kernel starts), ``seminar.scatter_atomic_f32`` (float adds scattered at random over 16 MB) 2.1 MB: L2 keeps
what atomics change dirty, and writes back what it evicts. smsim's atomics leave nothing dirty (2.35 MB for
both); made dirty in smsim's share of L2, the scatter wrote 287 MB (``docs/timing_model.md``, "What atomics
leave dirty in L2").

Each kernel is ``coo_spmv``'s line, ``cuda.atomic.add(y, row[k], val[k])`` over ``N`` entries (16 M, 256-thread
blocks), into ``y`` of ``S`` MB: ``order`` "sorted" (entry k adds into word ``k * words // N``: each line taken
by a few consecutive blocks, then never again) or "random" (a random word each). ncu's duration, DRAM bytes read and
written, L2 sectors of atomics.
"""
from __future__ import annotations

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import hw_probe  # noqa: E402  (beside this file)

N = 1 << 24
THREADS = 256
METRICS = ("gpu__time_duration.sum", "sm__cycles_elapsed.max", "dram__bytes_read.sum", "dram__bytes_write.sum",
           "lts__t_sectors_srcunit_tex_op_red.sum", "lts__t_sectors_srcunit_tex_op_atom.sum")
SCATTER = """
def k(row, val, y):
    i = cuda.grid(1)
    if i < val.shape[0]:
        cuda.atomic.add(y, row[i], val[i])
"""
#: (y in MB, order)
CASES = [(s, o) for o in ("sorted", "random") for s in (1, 4, 8, 16, 32, 64)]


def _kernel(module=None) -> object:
    return hw_probe.jit_source(SCATTER, "<atomic_dirty>", "k", module)


def _args(np, mb: int, order: str) -> tuple:
    words = mb << 18
    rng = np.random.default_rng(0)
    row = (np.arange(N, dtype=np.int64) * words // N) if order == "sorted" else rng.integers(0, words, N)
    val = rng.integers(-2, 3, N).astype(np.float32)
    return row.astype(np.int32), val, np.zeros(words, np.float32)


def once() -> None:
    cuda, np = hw_probe.numba_cuda()
    k = _kernel()
    for mb, order in CASES:
        args = [cuda.to_device(a) for a in _args(np, mb, order)]
        k[N // THREADS, THREADS](*args)
        cuda.synchronize()


def run(out_path: str, ncu: str) -> None:
    script = str(pathlib.Path(__file__).resolve())
    rows = [dict(name=f"{order}_{mb}mb", y_mb=mb, order=order, n=N, metrics=m)
            for (mb, order), m in zip(CASES, hw_probe.ncu_profile(ncu, script, METRICS, len(CASES)))]
    for r in rows:
        m = r["metrics"]
        print(f"{r['name']:12s} {m['gpu__time_duration.sum'] / 1e3:8.1f} us  "
              f"read {m['dram__bytes_read.sum'] / 1e6:8.2f} MB  written {m['dram__bytes_write.sum'] / 1e6:8.2f} MB  "
              f"{hw_probe.top_stalls(m, 2)}", flush=True)
    hw_probe.write(out_path, rows=rows)


def simulate(path: str) -> None:
    """Each row's duration and DRAM bytes written, the H200's and smsim's (the timed blocks' scaled to the grid,
    as ``smsim validate`` does)."""
    import json

    import numpy as np

    import smsim
    from smsim import cuda
    for hw in json.loads(pathlib.Path(path).read_text())["rows"]:
        res = smsim.launch(_kernel(cuda), N // THREADS, THREADS, _args(np, hw["y_mb"], hw["order"]), config="h200",
                           compiler="numba", overrides={"scheduler.stream": "sass"}, complete=False)
        h, m = hw["metrics"], res.metrics
        written = m["dram__bytes_write.sum"] * res.blocks / max(res.blocks_timed, 1)
        print(f"{hw['name']:12s} H200 {h['gpu__time_duration.sum'] / 1e3:7.1f} us "
              f"{h['dram__bytes_write.sum'] / 1e6:7.2f} MB written; smsim {m['gpu__time_duration.sum'] / 1e3:7.1f} us "
              f"{written / 1e6:7.2f} MB", flush=True)


def main(argv=None) -> int:
    return hw_probe.ncu_main(__doc__, run, once, argv, simulate)


if __name__ == "__main__":
    sys.exit(main())

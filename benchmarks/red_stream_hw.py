"""A read stream and one global reduction a block on one word: do they overlap on an H200?

Run on the device machine, from the repository root (python3 with numba-cuda and ncu)::

    PYTHONPATH=. python3 benchmarks/red_stream_hw.py --out $OUT/red_stream_hw.json

and smsim beside it here: ``python benchmarks/red_stream_hw.py --sim docs/hardware/red_stream_hw.json``.

Why: ``plain.count_above`` (each block counts its values above a threshold in a shared word, then thread 0
adds the count into one global word) takes the H200 62.1 us at its full size (16 M floats, 65536 blocks of
256) where ``homework.count_above_block`` (the same read, the count by ``syncthreads_count``, stored a block)
takes 46.0, and one add a block on one word alone 49.7 (``docs/hardware/atomic_lines_hw.md``, 1.45 cycles of
the word's slice an add). smsim takes 50 us, about the larger of the two: 0.81 of the H200's time
(``tutorial.count_shared_atomic`` 0.80; ``bootcamp.sumsq_i64``, a 64-bit add a block, 0.91). Do the stream
and the one word's adds add up, and which part of the kernel makes them?

Each kernel reads ``a`` (16 M floats, 65536 blocks of 256 threads; a value is never above 2, so nothing is
stored but what the kernel says):

* ``read``: every thread reads its value (no atomic);
* ``red1``: thread 0 of each block adds 1 into one word (no read);
* ``read_red1``: ``read``, and thread 0 adds 1 into one word (no barrier: its warp's add goes when its own
  value is read);
* ``read_redspread``: as ``read_red1``, each block's add into a word of its own line (4096 lines: many slices,
  no word's chain);
* ``read_bar_flag``: ``read``, a barrier, then thread 0 stores a flag of its block;
* ``read_bar_red1``: ``read``, a barrier, then thread 0 adds 1 into one word (``count_above`` without the
  shared counter);
* ``count_above``: ``plain.count_above`` itself (a shared counter every thread above the threshold adds to,
  two barriers, thread 0's add of the block's count into one word), threshold 0.5.

ncu's duration, SM cycles, the L2 sectors of reductions and the stall breakdown.
"""
from __future__ import annotations

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import hw_probe  # noqa: E402  (beside this file)

N = 1 << 24
THREADS = 256
METRICS = ("gpu__time_duration.sum", "sm__cycles_elapsed.max", "dram__bytes_read.sum", "dram__bytes_write.sum",
           "lts__t_sectors_srcunit_tex_op_red.sum", "smsp__inst_executed.sum")
SOURCE = """
def read(a, thr, count, flags):
    i = cuda.grid(1)
    if a[i] > np.float32(2.0):
        flags[i % flags.shape[0]] = 1


def red1(a, thr, count, flags):
    if cuda.threadIdx.x == 0:
        cuda.atomic.add(count, 0, 1)


def read_red1(a, thr, count, flags):
    i = cuda.grid(1)
    if a[i] > np.float32(2.0):
        flags[i % flags.shape[0]] = 1
    if cuda.threadIdx.x == 0:
        cuda.atomic.add(count, 0, 1)


def read_redspread(a, thr, count, flags):
    i = cuda.grid(1)
    if a[i] > np.float32(2.0):
        flags[i % flags.shape[0]] = 1
    if cuda.threadIdx.x == 0:
        cuda.atomic.add(count, (cuda.blockIdx.x % 4096) * 32, 1)


def read_bar_flag(a, thr, count, flags):
    i = cuda.grid(1)
    if a[i] > np.float32(2.0):
        flags[i % flags.shape[0]] = 1
    cuda.syncthreads()
    if cuda.threadIdx.x == 0:
        flags[cuda.blockIdx.x % flags.shape[0]] = 2


def read_bar_red1(a, thr, count, flags):
    i = cuda.grid(1)
    if a[i] > np.float32(2.0):
        flags[i % flags.shape[0]] = 1
    cuda.syncthreads()
    if cuda.threadIdx.x == 0:
        cuda.atomic.add(count, 0, 1)


def count_above(a, thr, count, flags):
    c = cuda.shared.array(1, np.int32)
    if cuda.threadIdx.x == 0:
        c[0] = 0
    cuda.syncthreads()
    i = cuda.grid(1)
    if i < a.shape[0] and a[i] > thr:
        cuda.atomic.add(c, 0, 1)
    cuda.syncthreads()
    if cuda.threadIdx.x == 0:
        cuda.atomic.add(count, 0, c[0])
"""
NAMES = ("read", "red1", "read_red1", "read_redspread", "read_bar_flag", "read_bar_red1", "count_above")


def _kernels(module=None) -> dict:
    return {n: hw_probe.jit_source(SOURCE, "<red_stream>", n, module) for n in NAMES}


def _args(np) -> tuple:
    a = np.random.default_rng(0).random(N, dtype=np.float32)
    return a, np.float32(0.5), np.zeros(4096 * 32, np.int32), np.zeros(1 << 16, np.int32)


def once() -> None:
    cuda, np = hw_probe.numba_cuda()
    ks = _kernels()
    host = _args(np)
    for name in NAMES:
        args = [cuda.to_device(x) if hasattr(x, "shape") and x.shape else x for x in host]
        ks[name][N // THREADS, THREADS](*args)
        cuda.synchronize()


def run(out_path: str, ncu: str) -> None:
    script = str(pathlib.Path(__file__).resolve())
    rows = [dict(name=n, n=N, metrics=m) for n, m in zip(NAMES, hw_probe.ncu_profile(ncu, script, METRICS, len(NAMES)))]
    for r in rows:
        m = r["metrics"]
        print(f"{r['name']:16s} {m['gpu__time_duration.sum'] / 1e3:8.1f} us  red sectors "
              f"{m['lts__t_sectors_srcunit_tex_op_red.sum']:9.0f}  {hw_probe.top_stalls(m, 3)}", flush=True)
    hw_probe.write(out_path, rows=rows)


def simulate(path: str = "") -> None:
    """smsim's time of each kernel (h200, numba's front end, the SASS stream), beside the H200's if ``path``."""
    import json

    import numpy as np

    import smsim
    from smsim import cuda
    hw = {r["name"]: r for r in json.loads(pathlib.Path(path).read_text())["rows"]} if path else {}
    ks = _kernels(cuda)
    for name in NAMES:
        res = smsim.launch(ks[name], N // THREADS, THREADS, _args(np), config="h200", compiler="numba",
                           overrides={"scheduler.stream": "sass"}, complete=False)
        us = res.metrics["gpu__time_duration.sum"] / 1e3
        h = hw.get(name)
        line = f"{name:16s} smsim {us:7.1f} us"
        if h:
            t = h["metrics"]["gpu__time_duration.sum"] / 1e3
            line += f"  H200 {t:7.1f} us  ratio {us / t:.3f}"
        print(line, flush=True)


def main(argv=None) -> int:
    return hw_probe.ncu_main(__doc__, run, once, argv, simulate)


if __name__ == "__main__":
    sys.exit(main())

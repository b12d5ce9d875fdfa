"""Does what a block's launch costs an H200 depend on its shared memory, its size or the blocks an SM holds?

Run on the device machine, from the repository root (python3 with numba-cuda and ncu)::

    PYTHONPATH=. python3 benchmarks/block_launch_hw.py --out $OUT/block_launch_hw.json

and beside smsim, on any machine: ``python benchmarks/block_launch_hw.py --sim docs/hardware/block_launch_hw.json``.

Why: ``launch.block_launch_cycles`` (330 cycles from a block's retirement to the start of the block that takes
its slot) was measured with ``streams.copy_w4``-``w16``, 128-thread blocks that dynamic shared memory keeps 1,
2 or 4 to an SM. ``stream_size_hw.md`` shows one-element-a-thread copies in 256-thread blocks without shared
memory (8 an SM) 7% slow in smsim, 1.01 with half that cost, and 1024-thread blocks 7-17% slow whatever
they do. Here the same copy (``out[i] = a[i]``, 16 M float32 elements) and a write-only stream run in blocks
of 128, 256 and 1024 threads with dynamic shared memory (bytes a block, none of it used) that leaves the
blocks an SM holds unchanged (0, 1 KB, 24 KB at 256 threads: 8 an SM; 0 and 100 KB at 1024: 2 an SM) or
lowers it (56 KB, 112 KB, 224 KB at 256 threads: 4, 2, 1 an SM). Recorded with ncu: the duration, SM cycles,
warps active, DRAM bytes and the stall reasons.
"""
from __future__ import annotations

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import hw_probe  # noqa: E402  (beside this file)

N = 1 << 24
BIG = 48 << 10            # dynamic shared memory past this needs the kernel's opt-in
METRICS = ("gpu__time_duration.sum", "sm__cycles_elapsed.max", "dram__bytes_read.sum", "dram__bytes_write.sum",
           "sm__warps_active.avg.pct_of_peak_sustained_active", "smsp__inst_executed.sum")
MIXES = {"copy": "o[i] = a[i]", "write": "o[i] = np.float32(1.5)"}
SOURCE = """
def k(a, o):
    i = cuda.grid(1)
    if i < o.shape[0]:
        {body}
"""
#: (threads a block, dynamic shared bytes a block)
SHAPES = [(128, 0), (128, 24 << 10), (256, 0), (256, 1 << 10), (256, 24 << 10), (256, 56 << 10),
          (256, 112 << 10), (256, 224 << 10), (1024, 0), (1024, 100 << 10)]
CASES = [(mix, t, s) for mix in MIXES for t, s in SHAPES]


def _kernel(mix: str, module=None) -> object:
    return hw_probe.jit_source(SOURCE.format(body=MIXES[mix]), f"<block_launch {mix}>", "k", module)


def _args(np) -> tuple:
    return np.ones(N, np.float32), np.zeros(N, np.float32)


def once() -> None:
    import ncu_workloads as nw
    cuda, np = hw_probe.numba_cuda()
    for mix, threads, shared in CASES:
        dev = [cuda.to_device(x) for x in _args(np)]
        k = _kernel(mix)
        if shared > BIG:
            nw._allow_dynamic_shared(k.compile(tuple(k.typeof_pyval(a) for a in dev)), shared)
        k[(N + threads - 1) // threads, threads, 0, shared](*dev)
        cuda.synchronize()


def report(rows: list) -> None:
    for r in rows:
        m = r["metrics"]
        print(f"{r['mix']:6s} {r['threads']:5d} threads, {r['shared'] >> 10:4d} KB: "
              f"{m['gpu__time_duration.sum'] / 1e3:7.1f} us, warps active "
              f"{m.get('sm__warps_active.avg.pct_of_peak_sustained_active', 0):5.1f}%  " + hw_probe.top_stalls(m),
              flush=True)


def run(out_path: str, ncu: str) -> None:
    script = str(pathlib.Path(__file__).resolve())
    rows = [dict(mix=mix, threads=t, shared=s, metrics=m)
            for (mix, t, s), m in zip(CASES, hw_probe.ncu_profile(ncu, script, METRICS, len(CASES)))]
    report(rows)
    hw_probe.write(out_path, n=N, rows=rows)


def simulated(rows: list, **kw) -> list:
    """smsim's rows for the H200's ``rows`` (``kw``: :func:`hw_probe.simulated`'s), each with its shared memory."""
    import numpy as np

    from smsim import cuda
    def launch(r: dict) -> tuple:
        t = r["threads"]
        return _kernel(r["mix"], cuda), (N + t - 1) // t, t, _args(np)
    out = []
    for r in rows:                       # a row at a time: each with its own dynamic shared memory
        out += hw_probe.simulated([r], launch, complete=False, shared_bytes=r["shared"], **kw)
    return out


def simulate(path: str) -> None:
    hw_probe.print_durations(path, simulated, 22, lambda r: f"{r['mix']} {r['threads']} x {r['shared'] >> 10} KB")


def main(argv=None) -> int:
    return hw_probe.ncu_main(__doc__, run, once, argv, simulate)


if __name__ == "__main__":
    sys.exit(main())

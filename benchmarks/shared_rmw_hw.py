"""Bank-conflicted shared-memory loads, stores and read-modify-writes, alone and between barriers, on an H200.

Run on the device machine, from the repository root (python3 with numba-cuda and ncu)::

    PYTHONPATH=. python3 benchmarks/shared_rmw_hw.py --out $OUT/shared_rmw_hw.json

and beside smsim, on any machine: ``python benchmarks/shared_rmw_hw.py --sim docs/hardware/shared_rmw_hw.json``.

Why: ``quiz.scan_blelloch512`` (a work-efficient scan of 512 floats a block in shared memory, unpadded: at its
deeper levels one warp adds ``s[bi] += s[ai]`` at addresses 32 words apart, a 16- or 32-way conflict, while
the block's other warps wait at the barrier) runs at 0.66 of the H200's time in smsim at its full size and
0.72 at the mid, right (0.99) with one block an SM; the H200 stalls ``mio_throttle`` 12-15 and
``short_scoreboard`` 14-15 warp-cycles an instruction there, smsim 3 and 4, though the shared wavefronts
(Nsight's count, the same in both) fill only 56% of the H200's cycles. Each kernel here: 256-thread blocks,
one (8 warps an SM) or eight an SM (64 warps), each lane ``STEPS`` times loads (``ld``, into a dependent
sum), stores (``st``) or adds one shared word into another (``rmw``: ``s[b] += s[c]``, ``b = c + 1``, the word
the next step loads: two loads, an add, a store; ``rmwfar``: ``b = c + 2048``, in the same banks, which no
later step loads) at ``lane x stride`` words (``stride`` 1, 8, 32: no conflict, 8-way, 32-way), every warp
(``all``) or only warp 0 with a barrier after each step (``one``: as the scan's deep levels; ``onenb``: without
the barrier). Timed by ncu, with the shared-memory wavefront counters.
"""
from __future__ import annotations

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import hw_probe  # noqa: E402  (beside this file)

SMS = 132
THREADS = 256
STEPS = 256
MODES = ("ld", "st", "rmw", "rmwfar")
METRICS = hw_probe.SHARED_PIPE_METRICS
SOURCE = """
def k(out, steps, stride, mode, active, bar):
    s = cuda.shared.array(4096, np.float32)
    t = cuda.threadIdx.x
    lane = t % 32
    w = t // 32
    for i in range(t, 4096, 256):
        s[i] = np.float32(i & 7)
    cuda.syncthreads()
    a = lane * stride + w
    acc = np.float32(0.0)
    for j in range(steps):
        if w < active:
            c = (a + j) & 4095
            if mode == 0:
                acc += s[c]
            elif mode == 1:
                s[c] = acc + np.float32(j)
            elif mode == 2:
                b = (c + 1) & 4095
                s[b] += s[c]
            else:
                b = (c + 2048) & 4095
                s[b] += s[c]
        if bar:
            cuda.syncthreads()
    out[cuda.blockIdx.x * 256 + t] = acc + s[t]
"""
#: (mode, stride, blocks an SM, active warps a block, barrier a step)
CASES = ([(m, st, b, 8, 0) for b in (1, 8) for m in range(3) for st in (1, 8, 32)]
         + [(2, st, b, 1, 1) for b in (1, 8) for st in (1, 32)]
         # the second call: the lone warp's row at 2 and 4 blocks an SM, with no barrier, and loading or storing
         + [(2, 32, 2, 1, 1), (2, 32, 4, 1, 1), (2, 32, 8, 1, 0), (0, 32, 8, 1, 1), (1, 32, 8, 1, 1)]
         # the third: the add into words 2048 away (the same banks), which no later step's load reads
         + [(3, 32, 8, 1, 1), (3, 32, 8, 1, 0), (3, 32, 4, 1, 1), (3, 32, 8, 8, 0)])


def _name(mode: int, stride: int, blocks: int, active: int, bar: int) -> str:
    return f"{MODES[mode]}_s{stride}_b{blocks}_{'all' if active > 1 else 'one' if bar else 'onenb'}"


def _kernel(module=None) -> object:
    return hw_probe.jit_source(SOURCE, "<shared_rmw>", "k", module)


def _args(np, case: tuple) -> tuple:
    mode, stride, blocks, active, bar = case
    n = SMS * blocks * THREADS
    return SMS * blocks, (np.zeros(n, np.float32), np.int64(STEPS), np.int64(stride), np.int64(mode),
                          np.int64(active), np.int64(bar))


def once() -> None:
    cuda, np = hw_probe.numba_cuda()
    k = _kernel()
    for case in CASES:
        grid, args = _args(np, case)
        k[grid, THREADS](cuda.to_device(args[0]), *args[1:])
        cuda.synchronize()


def run(out_path: str, ncu: str) -> None:
    script = str(pathlib.Path(__file__).resolve())
    rows = [dict(name=_name(*c), mode=c[0], stride=c[1], blocks_per_sm=c[2], active=c[3], bar=c[4], metrics=m)
            for c, m in zip(CASES, hw_probe.ncu_profile(ncu, script, METRICS, len(CASES)))]
    for r in rows:
        m = r["metrics"]
        print(f"{r['name']:18s} {m['gpu__time_duration.sum'] / 1e3:8.2f} us  "
              f"{m['sm__cycles_elapsed.max'] / STEPS:8.2f} cycles a step", flush=True)
    hw_probe.write(out_path, rows=rows, steps=STEPS)


def simulated(rows: list, **kw) -> list:
    """smsim's rows for the H200's ``rows`` (``kw``: :func:`hw_probe.simulated`'s)."""
    import numpy as np

    from smsim import cuda

    def launch(r: dict) -> tuple:
        grid, args = _args(np, (r["mode"], r["stride"], r["blocks_per_sm"], r["active"], r["bar"]))
        return _kernel(cuda), grid, THREADS, args
    return hw_probe.simulated(rows, launch, complete=False, **kw)


def simulate(path: str) -> None:
    hw_probe.print_durations(path, simulated, 18)


def main(argv=None) -> int:
    return hw_probe.ncu_main(__doc__, run, once, argv, simulate)


if __name__ == "__main__":
    sys.exit(main())

"""What a barrier costs the SM: barriers alone, beside conflicted shared loads, and around one warp's chain.

Run on the device machine, from the repository root (python3 with numba-cuda and ncu)::

    PYTHONPATH=. python3 benchmarks/barrier_cost_hw.py --out $OUT/barrier_cost_hw.json

and beside smsim, on any machine: ``python benchmarks/barrier_cost_hw.py --sim docs/hardware/barrier_cost_hw.json``.

Why: ``shared_rmw_hw`` found one warp a block adding 32-way conflicted shared words between barriers
(``rmw_s32_b8_one``: eight 256-thread blocks an SM) taking the H200 1072 cycles a step for 772 shared
wavefronts, smsim 791 (its data stage saturated), the same warps without the barrier 868, and the stage right
wherever every warp is at it. What fills the H200's other 300 cycles a step, 4.7 for each warp's barrier
instruction or 37 for each block's release, the rows there do not tell apart, and smsim charges a barrier nothing
but its release latency. Each kernel here: ``THREADS``-thread blocks, ``blocks`` of them an SM, every lane
``STEPS`` times doing its step's work, then (``bar``) ``cuda.syncthreads()``; the work of the first ``active``
warps a block (the others only loop): ``ld`` a shared load into a dependent sum at ``lane x stride`` words
(32: a 32-way conflict), ``rmw`` ``s[b] += s[c]`` at those words (two loads, an add, a store), ``fma`` one
multiply-add into the sum, ``none`` nothing. The rows: barriers alone at 8, 32 and 64 warps an SM in blocks of
2, 8 and 32 warps; every warp's conflicted loads with and without a barrier a step, in blocks of 2, 8 and 32
warps (the same 64 warps an SM: the same barrier instructions, 4x and 16x the releases); unconflicted loads and
multiply-adds with a barrier; and the lone warp's conflicted add with 1 and 31 idle warps beside it.
"""
from __future__ import annotations

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import hw_probe  # noqa: E402  (beside this file)

SMS = 132
STEPS = 256
WORDS = 1024
MODES = ("ld", "rmw", "fma", "none")
METRICS = hw_probe.SHARED_PIPE_METRICS + ("smsp__average_warp_latency_issue_stalled_membar.ratio",)
SOURCE = """
def k(out, steps, stride, mode, active, bar):
    s = cuda.shared.array(1024, np.float32)
    t = cuda.threadIdx.x
    nt = cuda.blockDim.x
    lane = t % 32
    w = t // 32
    for i in range(t, 1024, nt):
        s[i] = np.float32(i & 7)
    cuda.syncthreads()
    a = lane * stride + w
    acc = np.float32(0.0)
    for j in range(steps):
        if w < active:
            c = (a + j) & 1023
            if mode == 0:
                acc += s[c]
            elif mode == 1:
                b = (c + 1) & 1023
                s[b] += s[c]
            elif mode == 2:
                acc = acc * np.float32(0.999) + np.float32(1.0)
        if bar:
            cuda.syncthreads()
    out[cuda.blockIdx.x * nt + t] = acc + s[t & 1023]
"""
#: (mode, stride, threads a block, blocks an SM, active warps a block, barrier a step)
CASES = [
    # barriers alone: 8 warps an SM; 64 warps in blocks of 2, 8 and 32 warps; the loop without them
    (3, 1, 256, 1, 0, 1), (3, 1, 64, 32, 0, 1), (3, 1, 256, 8, 0, 1), (3, 1, 1024, 2, 0, 1), (3, 1, 256, 8, 0, 0),
    # every warp's 32-way conflicted load, without and with a barrier, in blocks of 8, 2 and 32 warps
    (0, 32, 256, 8, 8, 0), (0, 32, 256, 8, 8, 1), (0, 32, 64, 32, 2, 1), (0, 32, 1024, 2, 32, 1),
    # unconflicted loads and multiply-adds with and without a barrier
    (0, 1, 256, 8, 8, 1), (2, 1, 256, 8, 8, 1), (2, 1, 256, 8, 8, 0),
    # one warp a block: its conflicted add, with 1, 7 and 31 idle warps beside it; its conflicted loads
    (1, 32, 256, 8, 1, 1), (1, 32, 64, 8, 1, 1), (1, 32, 256, 2, 1, 1), (1, 32, 1024, 2, 1, 1),
    (1, 32, 64, 32, 1, 1), (0, 32, 256, 8, 1, 1), (0, 32, 64, 8, 1, 1),
    # every warp's conflicted add with a barrier
    (1, 32, 256, 8, 8, 1),
]


def _name(mode: int, stride: int, threads: int, blocks: int, active: int, bar: int) -> str:
    who = "all" if active == threads // 32 else "one" if active == 1 else "idle"
    return f"{MODES[mode]}_s{stride}_t{threads}_b{blocks}_{who}{'_bar' if bar else ''}"


def _kernel(module=None) -> object:
    return hw_probe.jit_source(SOURCE, "<barrier_cost>", "k", module)


def _args(np, case: tuple) -> tuple:
    mode, stride, threads, blocks, active, bar = case
    n = SMS * blocks * threads
    return SMS * blocks, threads, (np.zeros(n, np.float32), np.int64(STEPS), np.int64(stride), np.int64(mode),
                                   np.int64(active), np.int64(bar))


def once() -> None:
    cuda, np = hw_probe.numba_cuda()
    k = _kernel()
    for case in CASES:
        grid, threads, args = _args(np, case)
        k[grid, threads](cuda.to_device(args[0]), *args[1:])
        cuda.synchronize()


def _case(r: dict) -> tuple:
    return r["mode"], r["stride"], r["threads"], r["blocks_per_sm"], r["active"], r["bar"]


def run(out_path: str, ncu: str) -> None:
    script = str(pathlib.Path(__file__).resolve())
    rows = [dict(name=_name(*c), mode=c[0], stride=c[1], threads=c[2], blocks_per_sm=c[3], active=c[4], bar=c[5],
                 metrics=m)
            for c, m in zip(CASES, hw_probe.ncu_profile(ncu, script, METRICS, len(CASES)))]
    for r in rows:
        m = r["metrics"]
        print(f"{r['name']:26s} {m['gpu__time_duration.sum'] / 1e3:8.2f} us  "
              f"{m['sm__cycles_elapsed.max'] / STEPS:8.2f} cycles a step", flush=True)
    hw_probe.write(out_path, rows=rows, steps=STEPS)


def simulated(rows: list, **kw) -> list:
    """smsim's rows for the H200's ``rows`` (``kw``: :func:`hw_probe.simulated`'s)."""
    return hw_probe.simulated_source(rows, _kernel, lambda np, r: _args(np, _case(r)), **kw)


def simulate(path: str) -> None:
    hw_probe.print_durations(path, simulated, 26)


def main(argv=None) -> int:
    return hw_probe.ncu_main(__doc__, run, once, argv, simulate)


if __name__ == "__main__":
    sys.exit(main())

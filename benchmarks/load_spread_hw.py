"""How far apart a warp's two loads come back under a full GPU's streaming load, in other DRAM rows or the same.

Run on the device machine, from the repository root (python3 with numba-cuda)::

    PYTHONPATH=. python3 benchmarks/load_spread_hw.py --out $OUT/load_spread_hw.json

Why: a store into the line of a load still on its way holds L1 until that fill lands (``swap_hw.md``), and a
warp's loads that wait for L2 get their data in the order it issued them (``load_order_hw.md``). An in-place
swap (``ld Y, ld X, st X <- Y``) then waits, for each such store, the time X's fill lands after Y's: how far
apart two loads a warp issues back to back come back under load, in other DRAM rows (the H200's swap is
slow) or in the same row (``swap_lines``: not slow).

``N`` threads of 256-thread blocks (as ``swap_hw``), each: a clock stamp ``t0``; ``u = a[j]``; ``v = a[j + h]``
(its address depends on a stamp read after the first load issues, so ptxas keeps the order); ``out[i] = u``
and a stamp ``t1`` (the first load's data back); ``out[i + n] = v`` and a stamp ``t2`` (the second's: at least
``t1``, in order). Lane 0 of each warp records ``t1 - t0`` and ``t2 - t1``. ``h`` is ``N`` floats (32 MB: other
DRAM rows, ``rows``) or 32 (the next line, ``lines``); ``one`` loads once a thread (``t2 = t1``).
Printed: quantiles and means per kernel.
"""
from __future__ import annotations

import functools
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import hw_probe  # noqa: E402  (beside this file)

THREADS = 256
N = 1 << 23
DISTANCE = {"rows": N, "lines": 32, "one": 0}
SOURCE = """
def k(a, out, st, h, n):
    i = cuda.grid(1)
    if i < n:
        t0 = clock64()
        j = i + np.int64(t0 < 0)
        u = a[j]
        tm = clock64()
        if h:
            v = a[j + h + np.int64(tm < 0)]
        out[i] = u
        t1 = clock64()
        if h:
            out[i + n] = v
        t2 = clock64()
        if i % 32 == 0:
            st[i // 32, 0] = t1 - t0
            st[i // 32, 1] = t2 - t1
"""


def function(clock64, cuda) -> object:
    """The probe's Python function (``cuda``: numba's module or ``smsim.cuda``)."""
    import numpy as np
    scope: dict = {"np": np, "clock64": clock64, "cuda": cuda}
    exec(compile(SOURCE, "load_spread", "exec"), scope)
    return scope["k"]


@functools.lru_cache(maxsize=None)
def _kernel():
    cuda, np = hw_probe.numba_cuda()
    return cuda, np, cuda.jit(function(hw_probe.special("clock64", 64), cuda))


def run(out_path: str) -> None:
    cuda, np, kern = _kernel()
    clear = hw_probe.clear_kernel()
    a = cuda.to_device(np.ones(2 * N + 64, np.float32))
    out = cuda.to_device(np.zeros(2 * N, np.float32))
    buf = cuda.to_device(np.ones((512 << 20) // 4, np.float32))
    sink = cuda.to_device(np.zeros(1, np.float32))
    st = cuda.to_device(np.zeros((N // 32, 2), np.int64))
    summary = {}
    qs = [10, 25, 50, 75, 90, 99]
    print(f"{'kernel':6s} {'part':9s} " + " ".join(f"{'p' + str(q):>6s}" for q in qs) + f" {'mean':>6s}")
    for name, h in DISTANCE.items():
        for _ in range(2):               # the first run compiles; the second is kept
            clear[132 * 8, 256](buf, sink)
            kern[N // THREADS, THREADS](a, out, st, h, N)
            cuda.synchronize()
        got = st.copy_to_host()
        summary[name] = {}
        for col, part in enumerate(("first", "spread")):
            x = got[:, col].astype(np.float64)
            summary[name][part] = dict(quantiles=dict(zip(qs, np.percentile(x, qs).tolist())), mean=float(x.mean()))
            print(f"{name:6s} {part:9s} " + " ".join(f"{v:6.0f}" for v in np.percentile(x, qs)) +
                  f" {x.mean():6.0f}", flush=True)
        hist, edges = np.histogram(got[:, 1], bins=np.arange(0, 4001, 50))
        summary[name]["spread_hist"] = dict(edges=edges.tolist(), counts=hist.tolist(),
                                            above=int((got[:, 1] >= 4000).sum()))
    hw_probe.write(out_path, threads=THREADS, n=N, distance=DISTANCE, summary=summary)


def main(argv=None) -> int:
    return hw_probe.main(__doc__, run, argv)


if __name__ == "__main__":
    sys.exit(main())

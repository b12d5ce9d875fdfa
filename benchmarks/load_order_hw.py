"""Does a warp get its loads' data in the order it issued them? A DRAM miss followed by an L2 or L1 hit.

Run on the device machine, from the repository root (python3 with numba-cuda)::

    PYTHONPATH=. python3 benchmarks/load_order_hw.py --out $OUT/load_order_hw.json

Why: ``docs/hardware/swap_hw.md`` found an in-place swap slow only where a store goes into the line of a load
issued *after* the load whose data it stores, while that load is still on its way (``ld Y, ld X, st X <- Y``);
issued the other way round (``ld X, ld Y, st X <- Y``) it runs as fast as a copy. That asks for the first
load's data to be back before the second's (in which case ``st X <- Y``, waiting for Y, finds X's fill
landed); with the two loads' data back in any order it would be slow both ways. smsim delivers each load's
data when its own trip is over.

One warp of one block (nothing else runs; L2 cleared by reading 512 MiB first, then the ``b`` places read by
another kernel, so that they are in L2 and not in any L1), 32 lanes a coalesced line at each of ``REPEATS``
places (4 MiB apart in 1 GiB arrays, each place once). Per kernel, ``clock64`` stamps: ``t0`` before the loads;
``t1`` after a store of the value named first in the table below (the store waits for that load's scoreboard
only: ptxas gives each load its own, checked in the SASS the script prints); ``t2`` after a store of the other.

| kernel | loads, in issue order | ``t1`` waits for |
|---|---|---|
| ``hit`` | ``w = b[p]`` (L2 hit) | ``w`` |
| ``miss`` | ``v = a[p]`` (DRAM) | ``v`` |
| ``miss_hit`` | ``v = a[p]``, ``w = b[p]`` | ``w`` (the hit issued second) |
| ``hit_miss`` | ``w = b[p]``, ``v = a[p]`` | ``w`` (the hit issued first) |
| ``miss_l1hit`` | ``v = a[p]``, ``w = b[p]`` after ``b[p]`` was read and waited for | ``w`` (an L1 hit) |
| ``miss_miss`` | ``v = a[p]``, ``w = c[p]`` (both DRAM, 2 GiB apart) | ``w`` |

If data comes back in issue order, ``miss_hit``'s and ``miss_l1hit``'s ``t1 - t0`` are a DRAM read's (``miss``),
else an L2 hit's or an L1 hit's. Printed: the median and quartiles of ``t1 - t0`` and ``t2 - t0`` per kernel.
"""
from __future__ import annotations

import functools
import pathlib
import sys
import textwrap

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import hw_probe  # noqa: E402  (beside this file)

WORDS = 1 << 28                       # 1 GiB of float32 an array
PLACE = 1 << 20                       # words between places: 4 MiB
REPEATS = 64
CLEAR_BYTES = 512 << 20
# name -> (the loads and the stores after them, the source); a, b, c the arrays, p the lane's place
_AFTER = "s[k, lane, 0] = w\nt1 = clock64()\ns[k, lane, 1] = v\nt2 = clock64()"
# the second load's address depends on a clock read after the first is issued: ptxas keeps their order
# (it otherwise issues first the load whose value is stored first)
BODIES = {
    "hit": "w = b[p]\ns[k, lane, 0] = w\nt1 = clock64()\ns[k, lane, 1] = w\nt2 = clock64()",
    "miss": "v = a[p]\ns[k, lane, 0] = v\nt1 = clock64()\ns[k, lane, 1] = v\nt2 = clock64()",
    "miss_hit": "v = a[p]\ntm = clock64()\nw = b[p + np.int64(tm < 0)]\n" + _AFTER,
    "hit_miss": "w = b[p]\ntm = clock64()\nv = a[p + np.int64(tm < 0)]\n" + _AFTER,
    "miss_l1hit": "v = a[p]\ntm = clock64()\nw = b[p + np.int64(tm < 0)]\n" + _AFTER,
    "miss_miss": "v = a[p]\ntm = clock64()\nw = c[p + np.int64(tm < 0)]\n" + _AFTER,
}
# before t0: the L1 hit's line read and waited for
WARM_L1 = {"miss_l1hit": "w0 = b[q]\ns[k, lane, 2] = w0"}

# the place is read and waited for before t0; the loads' addresses depend on t0, so they issue after it
SOURCE = """
def k(a, b, c, places, st, s):
    lane = cuda.threadIdx.x
    for k in range(places.shape[0]):
        pk = places[k]
        s[k, lane, 3] = pk
        q = pk + lane
{warm}
        t0 = clock64()
        p = q + np.int64(t0 < 0)
{body}
        if lane == 0:
            st[k, 0] = t1 - t0
            st[k, 1] = t2 - t0
"""


# two warps of a block, after a barrier: warp 0 reads a[p] (DRAM, or nothing in ``alone``), warp 1 spins
# ``SPIN`` cycles (so that warp 0's miss is out first) and reads b[p] (an L2 hit): is another warp's hit held
# behind it? st[k, 2]: warp 1's hit, from its issue to its store
TWO_WARPS = """
def k(a, b, c, places, st, s):
    lane = cuda.threadIdx.x % 32
    warp = cuda.threadIdx.x // 32
    for k in range(places.shape[0]):
        pk = places[k]
        s[k, lane, 3] = pk
        q = pk + lane
        cuda.syncthreads()
        t0 = clock64()
        p = q + np.int64(t0 < 0)
        if warp == 0:
{first}
        else:
            t = t0
            while t - t0 < SPIN:
                t = clock64()
            w = b[p + np.int64(t < 0)]
            s[k, lane, 1] = w
            t1 = clock64()
            if lane == 0:
                st[k, 0] = t1 - t
        cuda.syncthreads()
"""
SPIN = 60
FIRST = {"other_warp_miss": "v = a[p]\ns[k, lane, 0] = v", "other_warp_none": "s[k, lane, 0] = 1.0"}


@functools.lru_cache(maxsize=None)
def _kernels():
    cuda, np = hw_probe.numba_cuda()
    clock64 = hw_probe.special("clock64", 64)

    @cuda.jit
    def warm(b, places, sink):
        lane = cuda.threadIdx.x
        for k in range(places.shape[0]):
            sink[k, lane] = b[places[k] + lane]

    kernels = {name: cuda.jit(_function(name, clock64)) for name in BODIES}
    for name, first in FIRST.items():
        kernels[name] = cuda.jit(_function(name, clock64, TWO_WARPS.replace("SPIN", str(SPIN)).format(
            first=textwrap.indent(first, " " * 12))))
    return cuda, np, warm, kernels


def _function(name: str, clock64, text: str | None = None) -> object:
    """The Python function of kernel ``name`` (``clock64``: the intrinsic reading the clock; ``text``: its
    source, if not one of :data:`BODIES`)."""
    import numpy as np
    scope: dict = {"np": np, "clock64": clock64}
    from numba import cuda
    scope["cuda"] = cuda
    text = text or SOURCE.format(warm=textwrap.indent(WARM_L1.get(name, ""), " " * 8),
                                 body=textwrap.indent(BODIES[name], " " * 8))
    exec(compile(text, f"load_order_{name}", "exec"), scope)
    return scope["k"]


def run(out_path: str) -> None:
    cuda, np, warm, kernels = _kernels()
    clear = hw_probe.clear_kernel()
    rng = np.random.default_rng(0)
    a = cuda.to_device(np.zeros(WORDS, np.float32))
    b = cuda.to_device(np.ones(WORDS, np.float32))
    c = cuda.to_device(np.full(WORDS, 2.0, np.float32))
    buf = cuda.to_device(np.ones(CLEAR_BYTES // 4, np.float32))
    sink = cuda.to_device(np.zeros(1, np.float32))
    rows, sass = [], {}
    for name, kern in kernels.items():
        places = (rng.permutation(WORDS // PLACE - 1)[:REPEATS] * PLACE).astype(np.int64)
        p = cuda.to_device(places)
        st = cuda.to_device(np.zeros((REPEATS, 2), np.int64))
        s = cuda.to_device(np.zeros((REPEATS, 32, 4), np.float32))
        wsink = cuda.to_device(np.zeros((REPEATS, 32), np.float32))
        for _ in range(2):                 # the first run compiles; the second is kept
            clear[132 * 8, 256](buf, sink)
            warm[1, 32](b, p, wsink)
            kern[1, 64 if name in FIRST else 32](a, b, c, p, st, s)
            cuda.synchronize()
        got = st.copy_to_host()
        rows += [dict(kernel=name, t1=int(x), t2=int(y)) for x, y in got]
        try:
            sass[name] = [line for text in kern.inspect_sass().values() for line in text.splitlines()
                          if any(op in line for op in ("LDG", "STG", "DEPBAR", "CS2R", "S2UR"))]
        except Exception as e:             # nvdisasm missing: the SASS is checked where smsim runs ptxas
            sass[name] = [f"not available: {e}"]
    summary = {}
    print(f"{'kernel':12s} {'t1 q1':>7s} {'median':>7s} {'q3':>7s}   {'t2 q1':>7s} {'median':>7s} {'q3':>7s}")
    for name in list(BODIES) + list(FIRST):
        t1 = np.array([r["t1"] for r in rows if r["kernel"] == name])
        t2 = np.array([r["t2"] for r in rows if r["kernel"] == name])
        q = lambda x: [float(v) for v in np.percentile(x, [25, 50, 75])]   # noqa: E731
        summary[name] = dict(t1=q(t1), t2=q(t2))
        print(f"{name:12s} " + " ".join(f"{v:7.0f}" for v in q(t1)) + "   " +
              " ".join(f"{v:7.0f}" for v in q(t2)), flush=True)
    for name, lines in sass.items():
        print(f"-- {name}")
        for line in lines:
            print("   ", line.strip()[:110])
    hw_probe.write(out_path, repeats=REPEATS, summary=summary, rows=rows, sass=sass)


def main(argv=None) -> int:
    return hw_probe.main(__doc__, run, argv)


if __name__ == "__main__":
    sys.exit(main())

"""How far apart a block's warps get their DRAM loads back on an H200, and how long they then wait at the
block's barrier: per-warp clock stamps of a ``count_above``-shaped kernel.

Run on the device machine, from the repository root (python3 with numba-cuda)::

    python3 benchmarks/barrier_spread_hw.py --out $OUT/barrier_spread_hw.json

Why: at the full size ``plain.count_above`` (a load, a shared counter, a barrier, one global atomic a block)
runs at 0.81 of the H200's time in smsim, and ncu's ``barrier`` stall is 6.9 warp-cycles per issue there
against smsim's 1.5 (``plain.hist64_shared``: 48.5 against 1.5, its time right). smsim's DRAM reads of one
block come back nearly together; if the H200's come back far apart, a block's warps wait at the barrier for
its slowest, and short blocks live longer.

Kernel ``load_bar(a, out, st, every)``: each thread reads ``a[i]`` and stores it to ``out[i]`` (the store
waits for the load; the clock is read after it issues), then ``syncthreads`` and a shared load of another
warp's stamp (ptxas's ``BAR.SYNC.DEFER_BLOCKING`` blocks the warp at its next memory instruction, not at the
barrier: a clock read right after the barrier came 2 cycles after the one before it in every warp), the clock
read after that load's value is there. Lane 0 of every warp of every ``every``-th block stamps ``%smid``, the
block, the warp, ``%clock64`` at its start, after its store and after the barrier. Grids (:data:`SHAPES`): 132
blocks of 256 threads (one block an SM, HBM idle), 1056 (eight an SM, one wave) and 65536 (count_above's full
size, 62 waves at eight an SM: HBM busy). L2 is cleared by reading 512 MiB before each launch; ``REPEATS``
launches a grid.

Recorded per grid (over the stamped blocks): the load's round trip per warp (start to after the store:
mean, median, 90th percentile), a block's spread (its slowest warp's return less its fastest's, and less
its warps' mean), and the barrier wait per warp (after the store to after the barrier: mean, median, 90th
percentile); and the first stamped blocks' raw stamps.
"""
from __future__ import annotations

import functools
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import hw_probe  # noqa: E402  (beside this file)

THREADS = 256
WARPS = THREADS // 32
SHAPES = ((132, 1), (1056, 1), (65536, 16))      # (blocks, stamp every n-th block)
REPEATS = 5
CLEAR_BYTES = 512 << 20
RAW_BLOCKS = 64
COLS = 6                  # smid, block, warp, clock at start, after the store, after the barrier


@functools.lru_cache(maxsize=None)
def _kernel():
    cuda, np = hw_probe.numba_cuda()
    clock64, smid = hw_probe.special("clock64", 64), hw_probe.special("smid", 32)

    @cuda.jit
    def load_bar(a, out, st, every):
        sh = cuda.shared.array(WARPS, np.int64)
        c0 = clock64()
        i = cuda.grid(1)
        t = cuda.threadIdx.x
        v = a[i]
        out[i] = v                           # the store waits for the load; the clock is read after it
        c1 = clock64()
        if t % 32 == 0:
            sh[t // 32] = c1
        cuda.syncthreads()                   # BAR.SYNC.DEFER_BLOCKING: the warp blocks at its next memory
        x = sh[(t // 32 + 1) % WARPS]        # instruction, this shared load; the clock read waits for its
        c2 = 0                               # value (x is another warp's c1, never -1: a clock read that
        if x != -1:                          # did not depend on it, ptxas placed before the load)
            c2 = clock64()
        b = cuda.blockIdx.x
        if t % 32 == 0 and b % every == 0:
            w = (b // every) * WARPS + t // 32
            st[w, 0] = smid()
            st[w, 1] = b
            st[w, 2] = t // 32
            st[w, 3] = c0
            st[w, 4] = c1
            st[w, 5] = c2

    return load_bar


def _summary(st, np) -> dict:
    """The figures of one launch's stamps (rows of COLS, WARPS a block in order)."""
    blocks = st.reshape(-1, WARPS, COLS)
    trip = blocks[:, :, 4] - blocks[:, :, 3]
    back = blocks[:, :, 4]
    wait = blocks[:, :, 5] - blocks[:, :, 4]

    def stats(x) -> dict:
        x = x.astype(np.float64).ravel()
        return {"mean": float(x.mean()), "median": float(np.median(x)), "p90": float(np.percentile(x, 90))}
    return {"round_trip": stats(trip), "barrier_wait": stats(wait),
            "spread_max_min": stats(back.max(axis=1) - back.min(axis=1)),
            "spread_max_mean": stats(back.max(axis=1) - back.mean(axis=1)),
            "blocks": int(blocks.shape[0])}


def run(out_path: str) -> None:
    cuda, np = hw_probe.numba_cuda()
    kernel, clear = _kernel(), hw_probe.clear_kernel()
    buf = cuda.to_device(np.ones(CLEAR_BYTES // 4, np.float32))
    sink = cuda.device_array(1, np.float32)
    rows = []
    for blocks, every in SHAPES:
        n = blocks * THREADS
        a = cuda.to_device(np.arange(n, dtype=np.float32))
        out = cuda.device_array(n, np.float32)
        stamped = -(-blocks // every)
        st = cuda.device_array((stamped * WARPS, COLS), np.int64)
        launches = []
        for r in range(REPEATS):
            clear[264, 1024](buf, sink)
            kernel[blocks, THREADS](a, out, st, every)
            cuda.synchronize()
            host = st.copy_to_host()
            launch = {"summary": _summary(host, np)}
            if r == 0:
                launch["raw"] = host[:RAW_BLOCKS * WARPS].tolist()
            launches.append(launch)
            print(blocks, r, launch["summary"], flush=True)
        rows.append({"blocks": blocks, "threads": THREADS, "every": every, "launches": launches})
    hw_probe.write(out_path, threads=THREADS, repeats=REPEATS, clear_bytes=CLEAR_BYTES, rows=rows)


if __name__ == "__main__":
    sys.exit(hw_probe.main(__doc__, run))

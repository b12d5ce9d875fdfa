"""How much one load's latency varies from line to line on an H200 with nothing else running: a dependent
chase over lines L2 holds (and over lines it does not), each access's latency stamped.

Run on the device machine, from the repository root (python3 with numba-cuda)::

    PYTHONPATH=. python3 benchmarks/l2_latency_spread_hw.py --out $OUT/l2_latency_spread_hw.json

Why: on an idle GPU a block's warps get their DRAM loads back 152 cycles apart (slowest less fastest of 8,
``docs/hardware/barrier_spread_hw.md``) where smsim's come back 16 apart, and in the tiled kernels of the
validation data (a tile loaded, a barrier, the tile used) the H200's ``barrier`` stall is 1.5-4x smsim's at
the test and mid sizes, where HBM is far from busy and many loads hit L2 (``recitation.tile_rowsum16`` 0.87 of
the H200's time at the mid size, ``seminar.transpose16_tiled`` 0.87, ``cuda_c.matmul_tiled16`` 0.92). smsim's
L2 hit takes one latency (``l2.hit_latency_cycles``) whatever the line. If the H200's lines differ (the L2 is
two partitions: a line homed in the far one crosses between them), the latency of a line is the same every
time one SM reads it and differs between SMs.

Kernel ``chase(nxt, start, steps, target, lat, seen, where)``: one thread (lane 0 of block ``target``; every
other block returns at once) notes its SM and follows ``j = nxt[j]`` ``steps`` times and stamps each step's
latency (``%clock64`` before the load, and after it, the second read made to wait for the loaded value), and
the line it read.
``nxt`` is a random cycle over ``LINES`` lines (128 bytes apart, one word of each used: 1 MiB of lines, four
times L1), so every step is another line. For each of ``TARGETS`` blocks (other SMs): L2 is cleared by reading
512 MiB, the chase runs once from DRAM (``cold``: an idle HBM's latencies) and once more over the same lines
(``warm``: L2 hits, but for the lines L1 kept, about 40 cycles).

Recorded per target: the SM of each pass, the cold and warm latencies in step order and the lines; summaries
(p10 / p50 / p90 / mean) and, across targets, how alike two SMs' warm latencies of the same line are
(correlation), and each SM's own repeat (a third pass) to show a line's latency is its own.
"""
from __future__ import annotations

import functools
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import hw_probe  # noqa: E402  (beside this file)

LINES = 8192              # lines of the cycle (1 MiB)
WORDS = 32                # ints a line
TARGETS = (0, 1, 2, 3, 33, 66, 99, 131)   # the blocks that chase (each on its own SM)
GRID = 132
CLEAR_BYTES = 512 << 20


@functools.lru_cache(maxsize=None)
def _kernel():
    cuda, np = hw_probe.numba_cuda()
    clock64, smid = hw_probe.special("clock64", 64), hw_probe.special("smid", 32)

    @cuda.jit
    def chase(nxt, start, steps, target, lat, seen, where):
        if cuda.blockIdx.x != target or cuda.threadIdx.x != 0:
            return
        where[0] = smid()
        j = start
        for k in range(steps):
            c0 = clock64()
            j = nxt[j]
            c1 = np.int64(0)
            if j >= 0:                       # the clock read waits for the loaded value
                c1 = clock64()
            lat[k] = c1 - c0
            seen[k] = j

    return chase


def _stats(x, np) -> dict:
    x = np.asarray(x, np.float64)
    return {"p10": float(np.percentile(x, 10)), "p50": float(np.median(x)), "p90": float(np.percentile(x, 90)),
            "mean": float(x.mean()), "min": float(x.min()), "max": float(x.max())}


def run(out_path: str) -> None:
    cuda, np = hw_probe.numba_cuda()
    kernel, clear = _kernel(), hw_probe.clear_kernel()
    buf = cuda.to_device(np.ones(CLEAR_BYTES // 4, np.float32))
    sink = cuda.device_array(1, np.float32)
    rng = np.random.default_rng(7)
    order = rng.permutation(LINES)
    nxt = np.full(LINES * WORDS, -1, np.int32)
    for a, b in zip(order, np.roll(order, -1)):
        nxt[a * WORDS] = b * WORDS
    d_nxt = cuda.to_device(nxt)
    start = int(order[0] * WORDS)
    lat = cuda.device_array(LINES, np.int64)
    seen = cuda.device_array(LINES, np.int32)
    where = cuda.device_array(1, np.int32)
    rows = []
    for target in TARGETS:
        passes, sms = {}, []
        clear[264, 1024](buf, sink)
        for name in ("cold", "warm", "again"):
            kernel[GRID, 32](d_nxt, start, LINES, target, lat, seen, where)
            cuda.synchronize()
            passes[name] = lat.copy_to_host()
            sms.append(int(where.copy_to_host()[0]))
        lines = (seen.copy_to_host() // WORDS).tolist()
        row = {"target": target, "sm": sms, "lines": lines, **{k: v.tolist() for k, v in passes.items()},
               "summary": {k: _stats(v, np) for k, v in passes.items()}}
        warm, again = passes["warm"], passes["again"]
        keep = (warm > 100) & (again > 100)              # L2 hits both times (not L1's)
        row["summary"]["warm_again_corr"] = float(np.corrcoef(warm[keep], again[keep])[0, 1])
        print(target, sms, row["summary"], flush=True)
        rows.append(row)
    base = np.array(rows[0]["warm"], np.float64)
    for r in rows[1:]:
        w = np.array(r["warm"], np.float64)
        keep = (base > 100) & (w > 100)
        r["summary"]["warm_corr_with_first_target"] = float(np.corrcoef(base[keep], w[keep])[0, 1])
        print(r["target"], "corr with target", TARGETS[0], r["summary"]["warm_corr_with_first_target"])
    hw_probe.write(out_path, lines_in_cycle=LINES, targets=list(TARGETS), grid=GRID, clear_bytes=CLEAR_BYTES,
                   rows=rows)


if __name__ == "__main__":
    sys.exit(hw_probe.main(__doc__, run))

"""How an H200's L2 spreads atomics over its slices: each warp adds to one address of ``K``, ``S`` words apart.

Run on the device machine, from the repository root (python3 with numba-cuda)::

    python3 benchmarks/atomic_spread_hw.py --out $OUT/atomic_spread_hw.json

Why: ``drills.segment_sum`` (a float add a thread into segments of 64: each warp's 32 lanes on one word, 2 KB
of sums at the test size) takes 8.9 us on the H200 and 55 us in smsim, ``drills.coo_spmv`` 3.3 against 21:
smsim spreads the other SMs' atomics over the slices as its own SM's are (a histogram's bins, which every
block shares), and its slices hold ``l2.slice_bytes`` (512) consecutive bytes each. Which granularity do the
slices' atomic units take the words at, and do a request's 32 lanes on one word cost a float add's latency
each?

Each kernel is launched with 132 x 8 blocks of 256 threads (8448 warps); warp ``w`` adds ``reps`` times to
``out[(w % K) * S]`` with ``cuda.atomic.add`` (a reduction, ``RED``): ``mode`` "warp", every lane to that word
(32 operations on one word a request); "lane0", lane 0 alone (one operation a request); "words", lane ``l`` to
the word ``l`` after it (32 words of one line a request, ``S`` >= 32 only). ``K`` 1 to 256 addresses, ``S`` 1
(one word after another: a line holds 32), 32 (a line each), 128 (512 bytes apart) and 1024 (4 KB apart),
float32 and int32. ``reps`` is chosen so that each kernel runs about a millisecond or more (timed with CUDA
events around the launch, numba's ~25 us of host-side launch work under 3% of that; the median of three after
a warm-up). ``cycles_per_op`` is the time per operation at 1978.8 MHz; ``units`` = ``chain`` x operations /
cycles, the slices that would be busy if each took ``chain`` cycles an operation (3.66 for float32, the
one-address rate of ``atomics_hw.json``; 1.57 for int32).
"""
from __future__ import annotations

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import hw_probe  # noqa: E402  (beside this file)

BLOCKS = 132 * 8
THREADS = 256
WARPS = BLOCKS * THREADS // 32
KS = (1, 4, 16, 64, 256)
STRIDES = (1, 32, 128, 1024)
MODES = ("warp", "lane0", "words")
DTYPES = {"float32": 3.66, "int32": 1.57}      # cycles an operation on one address (atomics_hw.json)
CLOCK_MHZ = 1978.8
ROUNDS = 3
TARGET_OPS = 600_000                             # operations a kernel per unit of parallelism (about 1 ms)


def _kernels():
    cuda, np = hw_probe.numba_cuda()

    @cuda.jit
    def warp(out, v, k_, s_, reps):
        w = cuda.grid(1) // 32
        a = (w % k_) * s_
        for _ in range(reps):
            cuda.atomic.add(out, a, v)

    @cuda.jit
    def lane0(out, v, k_, s_, reps):
        i = cuda.grid(1)
        if i % 32 == 0:
            a = (i // 32 % k_) * s_
            for _ in range(reps):
                cuda.atomic.add(out, a, v)

    @cuda.jit
    def words(out, v, k_, s_, reps):
        i = cuda.grid(1)
        a = (i // 32 % k_) * s_ + i % 32
        for _ in range(reps):
            cuda.atomic.add(out, a, v)

    return cuda, np, {"warp": warp, "lane0": lane0, "words": words}


def _reps(mode: str, k: int) -> int:
    """Repetitions for about TARGET_OPS operations per unit that could work at once."""
    par = min(k * (8 if mode == "words" else 1), 96)
    per_rep = WARPS if mode == "lane0" else WARPS * 32
    return max(2, round(TARGET_OPS * par / per_rep))


def run(out_path: str) -> None:
    cuda, np, kernels = _kernels()
    rows = []
    for dtype, chain in DTYPES.items():
        dt = np.dtype(dtype)
        one = dt.type(1)
        for mode in MODES:
            for s in STRIDES:
                if mode == "words" and s < 32:
                    continue
                for k in KS:
                    reps = _reps(mode, k)
                    out = cuda.to_device(np.zeros(k * s + 32, dt))
                    times = hw_probe.event_ns(kernels[mode][BLOCKS, THREADS], (out, one, k, s, reps), ROUNDS)
                    ops = (WARPS if mode == "lane0" else WARPS * 32) * reps
                    total = float(out.copy_to_host().astype(np.float64).sum())
                    ns = float(np.median(times))
                    cyc = ns * CLOCK_MHZ / 1e3
                    rows.append(dict(dtype=dtype, mode=mode, K=k, S=s, reps=reps, ops=ops, ns=times,
                                     ns_median=ns, cycles_per_op=cyc / ops, units=chain * ops / cyc,
                                     sum_ok=total == ops * (ROUNDS + 1)))
                    print(f"{dtype:8s} {mode:6s} S={s:5d} K={k:4d} reps={reps:5d} {ns / 1e3:9.1f} us "
                          f"{cyc / ops:7.3f} cycles/op  units {chain * ops / cyc:6.1f}", flush=True)
    hw_probe.write(out_path, rows=rows)


if __name__ == "__main__":
    sys.exit(hw_probe.main(__doc__, run))

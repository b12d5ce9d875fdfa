"""How fast an H200's L2 performs global atomics on one address, by data type: integer against float adds,
reductions (result unused: ``RED``) against atomics whose old value is read (``ATOM``).

Run on the device machine, from the repository root (python3 with numba-cuda)::

    python3 benchmarks/atomics_hw.py --out $OUT/atomics_hw.json

Why: smsim's slices perform every atomic add in ``l2.atomic_op_cycles`` (1.44 cycles, measured with the
integer histogram ``streams.hist_bins1``), but ``everyday.dot_atomic``, whose blocks each add one float to a
single address, takes 3.6 cycles per block on the H200 (118.7 us for 65536 blocks) and runs 0.64 of that
in smsim. Is a float add at L2 slower than an integer one?

Each kernel is launched with 132 x 8 blocks of 256 threads; every thread adds ``REPS`` times to
``out[(i + k) % bins]`` with ``cuda.atomic.add`` (numba: ``RED`` when the result is unused, ``ATOM`` when the
kernel keeps it), for each data type, both forms and ``bins`` of 1 and 32 (32 words of one 128-byte line:
one slice). Kernels are long (milliseconds), timed with CUDA events around the launch (numba's ~25 us of
host-side launch work is under 2% of them), the median of three after a warm-up. ``ns_per_op`` is the time
per operation on one address (time x bins / operations).
"""
from __future__ import annotations

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import hw_probe  # noqa: E402  (beside this file)

NUM_SMS = 132
BLOCKS = NUM_SMS * 8
THREADS = 256
DTYPES = ("int32", "uint32", "int64", "float32", "float64")
BINS = (1, 32)
REPS = {1: 8, 32: 64}
ROUNDS = 3


def _kernels():
    cuda, np = hw_probe.numba_cuda()

    @cuda.jit
    def red(out, v, bins, reps):
        i = cuda.grid(1)
        for k in range(reps):
            cuda.atomic.add(out, (i + k) % bins, v)

    @cuda.jit
    def atom(out, sink, v, bins, reps):
        i = cuda.grid(1)
        acc = v - v
        for k in range(reps):
            acc += cuda.atomic.add(out, (i + k) % bins, v)
        sink[i] = acc

    return cuda, np, red, atom


def run(out_path: str) -> None:
    cuda, np, red, atom = _kernels()
    n = BLOCKS * THREADS
    rows = []
    for dtype in DTYPES:
        dt = np.dtype(dtype)
        one = dt.type(1)
        sink = cuda.to_device(np.zeros(n, dt))
        for bins in BINS:
            reps = REPS[bins]
            for mode in ("red", "atom"):
                out = cuda.to_device(np.zeros(bins, dt))
                if mode == "red":
                    times = hw_probe.event_ns(red[BLOCKS, THREADS], (out, one, bins, reps), ROUNDS)
                else:
                    times = hw_probe.event_ns(atom[BLOCKS, THREADS], (out, sink, one, bins, reps), ROUNDS)
                total = out.copy_to_host().astype(np.float64).sum()
                ops = n * reps
                ns = float(np.median(times))
                rows.append(dict(dtype=dtype, mode=mode, bins=bins, blocks=BLOCKS, threads=THREADS, reps=reps,
                                 ops=ops, ns=times, ns_median=ns, ns_per_op=ns * bins / ops,
                                 sum_ok=bool(total == ops * (ROUNDS + 1)) if dt.kind in "iu" else None))
                print(dtype, mode, bins, f"{ns / 1e3:.0f} us, {ns * bins / ops:.3f} ns per op on an address",
                      flush=True)
    hw_probe.write(out_path, rows=rows)


if __name__ == "__main__":
    sys.exit(hw_probe.main(__doc__, run))

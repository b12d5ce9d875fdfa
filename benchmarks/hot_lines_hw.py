"""How fast does an H200's L2 serve reads that every SM makes of the same few lines?

Run on the device machine, from the repository root (python3 with numba-cuda and ncu)::

    PYTHONPATH=. python3 benchmarks/hot_lines_hw.py --out $OUT/hot_lines_hw.json

and beside smsim, on any machine: ``python benchmarks/hot_lines_hw.py --sim docs/hardware/hot_lines_hw.json``.

Why: ``homework.atomic_max_f32`` (numba's float ``cuda.atomic.max`` of 16 M values into 64 bins: a strong
load of the bin, ``LDG.E.STRONG.SYS``, which L1 does not keep, then an ``ATOMG.CAS`` loop while the value is
larger) takes the H200 771 us at its full size and smsim 478. Every SM's loads name the same 256 bytes; smsim
spreads L2's read lookups over all its slices (``l2.read_lines_per_cycle``, the whole device's rate shared by
the busy SMs), where the lines every SM reads sit in one or two slices.

The kernel is the workload's (``ATOMIC_MAX``, the same source): thread ``i`` does
``cuda.atomic.max(bins, idx[i], v[i])`` over ``N`` values in 256-thread blocks. With every bin above every value
(``start`` "above": bins 2.0, values in [0, 1)) no thread ever swaps, and each warp's work is the strong load of
its lanes' bins: ``K`` bins (1 to 65536 float32 words), ``idx`` random ("rand") or ``i % K`` ("seq"); the bins
``offset`` words into a 1 MB allocation (aligned to at least 512 bytes): 64 bins from byte 0 and from byte 384
(across a 512-byte boundary). With ``start`` "below" (bins -inf: the workload) the CAS loop runs too. ``plain`` is the
same work by an ordinary load (``if v[i] > bins[idx[i]]: bins[idx[i]] = v[i]``, which with bins above never
stores): L1 keeps the bins, and L2 sees each line once an SM. Timed by ncu (duration, cycles, L2 read
requests and sectors from L1, and their busiest slice's share: ``.max``).
"""
from __future__ import annotations

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import hw_probe  # noqa: E402  (beside this file)

N = 1 << 24
THREADS = 256
METRICS = ("gpu__time_duration.sum", "sm__cycles_elapsed.max", "smsp__inst_executed.sum", "dram__bytes_read.sum",
           "lts__t_requests_srcunit_tex_op_read.sum", "lts__t_sectors_srcunit_tex_op_read.sum",
           "lts__t_sectors_srcunit_tex_op_atom.sum")
#: per-slice figures, asked for separately (a name this ncu lacks loses them alone)
SLICE_METRICS = ("lts__t_requests_srcunit_tex_op_read.max", "lts__t_sectors_srcunit_tex_op_read.max",
                 "lts__t_sectors.max", "lts__t_sectors.sum")
ATOMIC_MAX = """
def k(v, idx, bins):
    i = cuda.grid(1)
    if i < v.shape[0]:
        cuda.atomic.max(bins, idx[i], v[i])
"""
PLAIN = """
def k(v, idx, bins):
    i = cuda.grid(1)
    if i < v.shape[0]:
        j = idx[i]
        if v[i] > bins[j]:
            bins[j] = v[i]
"""
#: (kernel, start, K bins, index pattern, offset in words)
CASES = ([("atomic", "above", k, "rand", 0) for k in (1, 8, 32, 64, 128, 256, 1024, 4096, 65536)]
         + [("atomic", "above", k, "seq", 0) for k in (8, 32, 64, 128, 1024)]
         + [("atomic", "above", 64, "rand", 96), ("atomic", "above", 32, "rand", 112)]
         + [("atomic", "below", k, "rand", 0) for k in (1, 64, 4096)]
         + [("plain", "above", k, "rand", 0) for k in (64, 65536)])


def _kernel(name: str, module=None) -> object:
    return hw_probe.jit_source(ATOMIC_MAX if name == "atomic" else PLAIN, f"<hot_lines {name}>", "k", module)


def _args(np, start: str, k: int, pattern: str, offset: int) -> tuple:
    """The values, the indices (``offset`` added) and the bins (a 1 MB array, of which ``K`` words from
    ``offset`` are named)."""
    rng = np.random.default_rng(0)
    v = rng.random(N, dtype=np.float32)
    idx = (rng.integers(0, k, N) if pattern == "rand" else np.arange(N) % k) + offset
    return v, idx.astype(np.int32), np.full(1 << 18, 2.0 if start == "above" else -np.inf, np.float32)


def once() -> None:
    cuda, np = hw_probe.numba_cuda()
    ks = {name: _kernel(name) for name in ("atomic", "plain")}
    for name, start, k, pattern, offset in CASES:
        args = [cuda.to_device(a) for a in _args(np, start, k, pattern, offset)]
        ks[name][N // THREADS, THREADS](*args)
        cuda.synchronize()


def run(out_path: str, ncu: str) -> None:
    script = str(pathlib.Path(__file__).resolve())
    base = hw_probe.ncu_profile(ncu, script, METRICS, len(CASES))
    try:
        per_slice = hw_probe.ncu_rows(ncu, script, SLICE_METRICS, len(CASES))
    except RuntimeError as e:
        print("per-slice metrics not recorded:", str(e)[:300], flush=True)
        per_slice = [{} for _ in CASES]
    rows = []
    for (name, start, k, pattern, offset), m, s in zip(CASES, base, per_slice):
        rows.append(dict(name=f"{name}_{start}_k{k}_{pattern}_o{offset}", kernel=name, start=start, K=k,
                         pattern=pattern, offset=offset, n=N, metrics={**m, **s}))
        mm = rows[-1]["metrics"]
        print(f"{rows[-1]['name']:28s} {mm['gpu__time_duration.sum'] / 1e3:8.1f} us  "
              f"req {mm.get('lts__t_requests_srcunit_tex_op_read.sum', 0):10.0f} "
              f"sec {mm.get('lts__t_sectors_srcunit_tex_op_read.sum', 0):10.0f} "
              f"max-slice req {mm.get('lts__t_requests_srcunit_tex_op_read.max', 0):10.0f} "
              f"sec {mm.get('lts__t_sectors_srcunit_tex_op_read.max', 0):10.0f}  {hw_probe.top_stalls(mm, 2)}",
              flush=True)
    hw_probe.write(out_path, rows=rows)


def simulated(rows: list, **kw) -> list:
    """smsim's rows for the H200's ``rows`` (``kw``: :func:`hw_probe.simulated`'s)."""
    import numpy as np

    from smsim import cuda

    def launch(r: dict) -> tuple:
        args = _args(np, r["start"], r["K"], r["pattern"], r["offset"])
        return _kernel(r["kernel"], cuda), N // THREADS, THREADS, args
    return hw_probe.simulated(rows, launch, complete=False, **kw)


def simulate(path: str) -> None:
    hw_probe.print_durations(path, simulated, 28)


def main(argv=None) -> int:
    return hw_probe.ncu_main(__doc__, run, once, argv, simulate)


if __name__ == "__main__":
    sys.exit(main())

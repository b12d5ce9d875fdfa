"""What HBM gives an H200 for mixes of reads and writes, with enough bytes in flight to be bound by DRAM
and not by latency: the bandwidth of each mix as the loads in flight per thread grow.

Run on the device machine, from the repository root (python3 with numba-cuda)::

    python3 benchmarks/rw_mix_hw.py --out $OUT/rw_mix_hw.json

Why: smsim charges every byte written ``1 + dram.write_turnaround`` times a read's bus time. The
turnaround was fitted to kernels of one element per thread (``vector.vec_add``, ``saxpy``...), which may be
bound by the bytes 64 warps keep in flight rather than by the bus; ``everyday.axpy_f64`` (``y = a x + y``
in float64) moves 382 MB in 92 us, 4.1 TB/s, where that turnaround allows 3.6. Here each mix is a
persistent grid (8 blocks of 256 threads on each of the 132 SMs, 64 warps an SM) whose threads issue
``ilp`` loads of consecutive chunks of the arrays before their stores, ``ilp`` 1, 2, 4, 8: where the
bandwidth stops growing with ``ilp`` the bus is the bound, and that plateau is the mix's DRAM bandwidth.

Mixes (arrays of ``n`` elements; reads and writes per element): ``read`` (1, 0: a sum, written once),
``write`` (0, 1), ``copy`` (1, 1), ``add`` (2, 1: ``out = a + b``), ``add3`` (3, 1), ``scale_inplace``
(1, 1: ``a = 2 a``, written where read), ``axpy_inplace`` (2, 1: ``y = 2 x + y``), in float32, and
``copy``, ``add``, ``axpy_inplace`` in float64 (a warp's access is two lines). Then ``add`` and
``axpy_inplace`` written as one element per thread (``n / 256`` blocks of 256, as ``vector.vec_add`` is).

Timed two ways. With CUDA events, the median of three launches after a warm-up, at two sizes (512 MiB and
1 GiB an array): the difference of the two leaves out the host-side launch work numba does after the start
event (which is far more than 25 us with four arrays: about 85) and the writes L2 holds dirty at the end
(about 26 MB), so ``gbps`` is the marginal rate of DRAM bytes (reads + writes), within about 5% (the two
timings' spread). And with ``ncu --clock-control none`` (``--ncu``, default ``ncu``; ``--once`` is the
child ncu runs: each case launched once at 1 GiB an array): ``gpu__time_duration`` and the DRAM bytes of
that launch, ``ncu_gbps`` their rate (ncu flushes L2 before each launch; the dirty bytes L2 keeps at the
end are not in the kernel's DRAM writes).
"""
from __future__ import annotations

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import hw_probe  # noqa: E402  (beside this file)

SMS = 132
BLOCKS_PER_SM = 8
THREADS = 256
ILPS = (1, 2, 4, 8)
SIZES_BYTES = (512 << 20, 1 << 30)     # bytes per array
ROUNDS = 3
#: name -> (arrays read, array written, written in place, expression of the loaded values x<k>_<j>)
MIXES = {
    "read": (1, 0, False),
    "write": (0, 1, False),
    "copy": (1, 1, False),
    "add": (2, 1, False),
    "add3": (3, 1, False),
    "scale_inplace": (1, 1, True),
    "axpy_inplace": (2, 1, True),
}
F64_MIXES = ("copy", "add", "axpy_inplace")
ONE_PER_THREAD = ("add", "axpy_inplace")


def kernel_source(mix: str, ilp: int, persistent: bool = True) -> str:
    """The Python source of the kernel ``k(a0, a1, a2, out, n)`` of a mix: each thread loads ``ilp``
    elements of each array read (``T`` threads apart) before it stores them; persistent: a grid-stride
    loop over chunks of ``ilp T`` elements."""
    reads, writes, inplace = MIXES[mix]
    arrays = ["a0", "a1", "a2"][:reads]
    lines = []
    ind = "        "
    for k in range(ilp):
        off = "" if k == 0 else f" + {k} * T"
        for j, arr in enumerate(arrays):
            lines.append(f"{ind}x{k}_{j} = {arr}[i{off}]")
    for k in range(ilp):
        off = "" if k == 0 else f" + {k} * T"
        vals = [f"x{k}_{j}" for j in range(reads)]
        if mix == "read":
            lines.append(f"{ind}acc += {vals[0]}")
        elif mix == "write":
            lines.append(f"{ind}out[i{off}] = v")
        elif mix in ("copy",):
            lines.append(f"{ind}out[i{off}] = {vals[0]}")
        elif mix in ("add", "add3"):
            lines.append(f"{ind}out[i{off}] = {' + '.join(vals)}")
        elif mix == "scale_inplace":
            lines.append(f"{ind}a0[i{off}] = two * {vals[0]}")
        elif mix == "axpy_inplace":
            lines.append(f"{ind}a1[i{off}] = two * {vals[0]} + {vals[1]}")
    body = "\n".join(lines)
    if persistent:
        return f"""
def k(a0, a1, a2, out, n, v, two):
    T = cuda.gridsize(1)
    i = cuda.grid(1)
    acc = v - v
    while i + {ilp - 1} * T < n:
{body}
        i += {ilp} * T
    if acc == v - two - two - two:
        out[0] = acc
"""
    return f"""
def k(a0, a1, a2, out, n, v, two):
    T = 0
    i = cuda.grid(1)
    acc = v - v
    if i < n:
{body}
"""


def _kernel(mix: str, ilp: int, persistent: bool) -> object:
    return hw_probe.jit_source(kernel_source(mix, ilp, persistent), f"<rw_mix {mix} ilp{ilp}>")


def _cases() -> list:
    """``(mix, dtype, ilp, persistent)`` of every case, in the order both timings launch them."""
    cases = [(m, "float32", ilp, True) for m in MIXES for ilp in ILPS]
    cases += [(m, "float64", ilp, True) for m in F64_MIXES for ilp in ILPS]
    return cases + [(m, dt, 1, False) for m in ONE_PER_THREAD for dt in ("float32", "float64")]


def shape(dt: str, ilp: int, persistent: bool, size: int) -> tuple:
    """``(blocks, n)`` of a case with arrays of ``size`` bytes of ``dt`` (persistent: ``n`` a whole number of
    the grid's chunks of ``ilp`` elements a thread)."""
    import numpy as np
    n = size // np.dtype(dt).itemsize
    if not persistent:
        return n // THREADS, n
    grid = SMS * BLOCKS_PER_SM
    chunk = grid * THREADS * ilp
    return grid, n // chunk * chunk


def _launch_args(mix: str, dt: str, ilp: int, persistent: bool, size: int, bufs: dict) -> tuple:
    """``(grid, args, n)`` of a case with arrays of ``size`` bytes."""
    _, np = hw_probe.numba_cuda()
    grid, n = shape(dt, ilp, persistent, size)
    a0, a1, a2, out = bufs[dt]
    return grid, (a0, a1, a2, out, n, np.dtype(dt).type(3.0), np.dtype(dt).type(2.0)), n


def _buffers() -> dict:
    cuda, np = hw_probe.numba_cuda()
    big = max(SIZES_BYTES)
    return {dt: [cuda.to_device(np.ones(big // np.dtype(dt).itemsize, dt)) for _ in range(4)]
            for dt in ("float32", "float64")}


def once() -> None:
    """Each case launched once with arrays of 1 GiB (what ``ncu`` profiles)."""
    cuda, _ = hw_probe.numba_cuda()
    bufs = _buffers()
    for mix, dt, ilp, persistent in _cases():
        grid, args, _ = _launch_args(mix, dt, ilp, persistent, max(SIZES_BYTES), bufs)
        _kernel(mix, ilp, persistent)[grid, THREADS](*args)
        cuda.synchronize()


def profile(ncu: str) -> list:
    """``ncu``'s rows of the ``--once`` run, one a case in :func:`_cases` order."""
    return hw_probe.ncu_rows(ncu, str(pathlib.Path(__file__).resolve()),
                             ("gpu__time_duration.sum", "dram__bytes_read.sum", "dram__bytes_write.sum"), len(_cases()))


def run(out_path: str, ncu: str | None = "ncu") -> None:
    _, np = hw_probe.numba_cuda()
    rows = []
    bufs = _buffers()
    for mix, dt, ilp, persistent in _cases():
        k = _kernel(mix, ilp, persistent)
        reads, writes, _ = MIXES[mix]
        item = np.dtype(dt).itemsize
        ns = {}
        for size in SIZES_BYTES:
            grid, args, n = _launch_args(mix, dt, ilp, persistent, size, bufs)
            times = hw_probe.event_ns(k[grid, THREADS], args, ROUNDS)
            ns[size] = (float(np.median(times)), times, n, grid)
        (t0, _, n0, _), (t1, times1, n1, grid1) = ns[SIZES_BYTES[0]], ns[SIZES_BYTES[1]]
        moved = (n1 - n0) * item * (reads + writes)
        gbps = moved / (t1 - t0)
        rows.append(dict(mix=mix, dtype=dt, ilp=ilp, persistent=persistent, reads=reads, writes=writes,
                         inplace=MIXES[mix][2], n=[n0, n1], grid=grid1, ns_median=[t0, t1], ns=times1,
                         gbps=gbps, gbps_whole=n1 * item * (reads + writes) / t1))
        print(f"{mix:14s} {dt} ilp {ilp} {'persistent' if persistent else 'one/thread'}: {gbps:7.0f} GB/s "
              f"marginal ({n1 * item * (reads + writes) / t1:6.0f} whole, {t1 / 1e3:8.1f} us)", flush=True)
    del bufs
    if ncu:
        for row, m in zip(rows, profile(ncu)):
            row["ncu"] = m
            row["ncu_gbps"] = (m["dram__bytes_read.sum"] + m["dram__bytes_write.sum"]) / m["gpu__time_duration.sum"]
            kind = "persistent" if row["persistent"] else "one/thread"
            us, rd, wr = (m["gpu__time_duration.sum"] / 1e3, m["dram__bytes_read.sum"] / 1e6,
                          m["dram__bytes_write.sum"] / 1e6)
            print(f"{row['mix']:14s} {row['dtype']} ilp {row['ilp']} {kind}: ncu {us:8.1f} us, read {rd:7.1f} MB, "
                  f"write {wr:7.1f} MB: {row['ncu_gbps']:6.0f} GB/s", flush=True)
    hw_probe.write(out_path, sms=SMS, blocks_per_sm=BLOCKS_PER_SM, threads=THREADS, sizes_bytes=list(SIZES_BYTES),
                   rows=rows)


def main(argv=None) -> int:
    return hw_probe.ncu_main(__doc__, run, once, argv)


if __name__ == "__main__":
    sys.exit(main())

"""Where an H200's stores go and what holds them up: stores of every shape into 1 GiB, one store a thread,
with and without a sector's whole 32 bytes, in order and at random, at 8 to 64 warps an SM.

Run on the device machine, from the repository root (python3 with numba-cuda and ncu)::

    python3 benchmarks/store_paths_hw.py --out $OUT/store_paths_hw.json

Why: on the H200, kernels that store one word into each of many sectors they do not fill
(``streams.store_stride32``: a word a 128-byte line; ``store_scatter``: a word a random sector) take
20-40% longer than the DRAM bytes they move explain, and their warps wait after ``EXIT`` (``drain``) about
as long as for their one load; ``store_stride8``, with the same sectors four to a line, runs at the bus's
rate with little ``drain``. These probes separate what a store costs: a sector written whole or in part
(a partly written sector is read from DRAM to complete it), one sector a line or four, in order or at
random, and whether the time depends on the warps an SM keeps (what holds a store is per SM) or not (HBM).

Each case is a kernel ``k(out, inp, n, v)`` of ``n`` threads in 256-thread blocks; thread ``i`` stores
``v`` to ``out[a(i)]`` (or, the ``gather_*`` cases, loads ``inp[a(i)]``) with ``a(i)`` (words of 4 bytes;
``C`` = 2654435761, odd, so ``(C x) mod 2^k`` visits every ``x < 2^k`` once):

- ``seq``: ``i`` (whole lines, in order);
- ``stride8``: ``8 i`` (a word a sector, every sector of a line: partial sectors, four a line);
- ``stride32``: ``32 i`` (a word a line, its first sector: one partial sector a line);
- ``line_sector``: ``32 (i // 8) + i % 8`` (the whole first sector of each line: four lines a warp);
- ``rand_word``: ``(C i) mod 2^28`` (a word in a random sector of 1 GiB: 32 partial sectors a warp);
- ``rand_sector``: ``8 ((C (i // 8)) mod 2^25) + i % 8`` (four whole random sectors a warp);
- ``rand_sector_part``: as ``rand_sector``, but only lanes with ``i % 8 == 0`` store (four random sectors
  a warp, a word each);
- ``gather_rand_sector``, ``gather_line_sector``: loads at ``rand_sector``'s and ``line_sector``'s
  addresses (the read counterparts).

The cases run at 64 warps an SM (eight blocks), and ``stride32``, ``rand_word``, ``rand_sector`` and
``line_sector`` also at 8, 16 and 32 (dynamic shared memory leaves room for 1, 2 or 4 blocks). Every case
is launched once under ``ncu --clock-control none`` (L2 flushed before each launch): its duration, SM
cycles, DRAM bytes read and written, L2 write sectors and write hit rate, instructions and the warps'
stall reasons per issued instruction.
"""
from __future__ import annotations

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import hw_probe  # noqa: E402  (beside this file)

THREADS = 256
WORDS = 1 << 28                 # out and inp: 1 GiB of float32 each
C = 2654435761
SM_SHARED = 233472              # cc 9.0: shared memory per SM at the largest carveout
RESERVED = 1024                 # cc 8.0+: shared memory the driver reserves per block
#: name -> (address expression of i, stores (else loads), only lanes i % 8 == 0, threads)
PATTERNS = {
    "seq": ("i", True, False, 1 << 26),
    "stride8": ("i * 8", True, False, 1 << 25),
    "stride32": ("i * 32", True, False, 1 << 23),
    "line_sector": ("(i // 8) * 32 + i % 8", True, False, 1 << 26),
    "rand_word": (f"(i * {C}) % {WORDS}", True, False, 1 << 23),
    "rand_sector": (f"((i // 8) * {C}) % {WORDS // 8} * 8 + i % 8", True, False, 1 << 26),
    "rand_sector_part": (f"((i // 8) * {C}) % {WORDS // 8} * 8 + i % 8", True, True, 1 << 26),
    "gather_rand_sector": (f"((i // 8) * {C}) % {WORDS // 8} * 8 + i % 8", False, False, 1 << 26),
    "gather_line_sector": ("(i // 8) * 32 + i % 8", False, False, 1 << 26),
}
SWEPT = ("stride32", "rand_word", "rand_sector", "line_sector")
WARPS = (8, 16, 32, 64)
METRICS = ("gpu__time_duration.sum", "sm__cycles_elapsed.max", "dram__bytes_read.sum", "dram__bytes_write.sum",
           "lts__t_sectors_srcunit_tex_op_write.sum", "lts__t_sectors_srcunit_tex_op_read.sum",
           "lts__t_sector_op_write_hit_rate.pct", "smsp__inst_executed.sum",
           "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum")

def kernel_source(pattern: str) -> str:
    """The Python source of the kernel ``k(out, inp, n, v)`` of a pattern."""
    expr, store, lane0, _ = PATTERNS[pattern]
    guard = "i < n and i % 8 == 0" if lane0 else "i < n"
    body = "        out[a] = v" if store else "        if inp[a] == v:\n            out[0] = v"
    return f"""
def k(out, inp, n, v):
    i = cuda.grid(1)
    if {guard}:
        a = {expr}
{body}
"""


def cases() -> list:
    """``(pattern, warps an SM)`` of every case, in launch order."""
    return [(p, 64) for p in PATTERNS] + [(p, w) for p in SWEPT for w in WARPS if w != 64]


def shared_bytes(warps: int) -> int:
    """Dynamic shared memory a block asks for so that only ``warps`` warps (of 256-thread blocks) fit an SM."""
    blocks = warps // (THREADS // 32)
    return 0 if blocks >= 8 else (SM_SHARED // blocks - RESERVED) // 128 * 128


def _kernel(pattern: str) -> object:
    return hw_probe.jit_source(kernel_source(pattern), f"<store_paths {pattern}>", "k")


def once() -> None:
    """Each case launched once (what ``ncu`` profiles)."""
    cuda, np = hw_probe.numba_cuda()
    out = cuda.to_device(np.zeros(WORDS, np.float32))
    inp = cuda.to_device(np.ones(WORDS, np.float32))
    import ncu_workloads as nw
    kernels = {p: _kernel(p) for p in PATTERNS}
    v = np.float32(2.0)
    for pattern, warps in cases():
        n, nbytes, k = PATTERNS[pattern][3], shared_bytes(warps), kernels[pattern]
        if nbytes > nw.BIG_SHARED:
            nw._allow_dynamic_shared(k.compile((k.typeof_pyval(out), k.typeof_pyval(inp), k.typeof_pyval(n),
                                                k.typeof_pyval(v))), nbytes)
        k[n // THREADS, THREADS, 0, nbytes](out, inp, n, v)
        cuda.synchronize()


def profile(ncu: str) -> list:
    """``ncu``'s rows of the ``--once`` run, one a case in :func:`cases` order."""
    return hw_probe.ncu_profile(ncu, str(pathlib.Path(__file__).resolve()), METRICS, len(cases()))


def run(out_path: str, ncu: str) -> None:
    rows = []
    for (pattern, warps), m in zip(cases(), profile(ncu)):
        expr, store, lane0, n = PATTERNS[pattern]
        row = dict(pattern=pattern, warps_per_sm=warps, n=n, threads=THREADS, shared_bytes=shared_bytes(warps),
                   address=expr, store=store, lane0_only=lane0, metrics=m)
        rows.append(row)
        us = m["gpu__time_duration.sum"] / 1e3
        rd, wr = m["dram__bytes_read.sum"] / 1e6, m["dram__bytes_write.sum"] / 1e6
        print(f"{pattern:20s} {warps:2d} warps/SM: {us:9.1f} us, DRAM read {rd:8.1f} MB, write {wr:8.1f} MB, "
              f"L2 write hit {m.get('lts__t_sector_op_write_hit_rate.pct', 0):5.1f}%, "
              + hw_probe.top_stalls(m), flush=True)
    hw_probe.write(out_path, words=WORDS, multiplier=C, rows=rows)


def main(argv=None) -> int:
    return hw_probe.ncu_main(__doc__, run, once, argv)


if __name__ == "__main__":
    sys.exit(main())

"""What an H200's L2 charges for a sector written in part: by the size of the pieces, and whether the same
warp's next store fills the rest.

Run on the device machine, from the repository root (python3 with numba-cuda and ncu)::

    python3 benchmarks/partial_writes_hw.py --out $OUT/partial_writes_hw.json

Why: smsim charged a slice ``l2.partial_write_cycles`` (2.9 cycles, fitted on uncoalesced transposes, whose
stores put one 4-byte word into each of 32 sectors) for every piece of a sector written into a sector L2
did not hold whole. ``routine.complex_mul`` (interleaved complex numbers: a warp's two stores write the
even, then the odd words of the same 8 sectors) ran 1.40x the H200's time under that charge, and
``streams.store_stride2`` (even words only, never completed) 0.93x. These probes separate the size of the
pieces (4-byte words, 8- and 16-byte chunks) from whether the sector is completed, and by whom.

Each case is a kernel ``k(out, n, v)`` of ``n`` threads in 256-thread blocks (64 warps an SM); thread ``i``
stores ``v`` to ``out[a]`` for each of its pattern's addresses ``a`` (words of 4 bytes), in order, into a
256 MB array L2 does not hold (ncu flushes it before each launch):

- ``seq``: ``i`` (whole sectors; the baseline);
- ``w4_half``: ``2 i`` (even words: half of each sector, in 4-byte pieces, never completed);
- ``w4_pair``: ``2 i``, then ``2 i + 1`` (the same warp's next store writes the odd words: complex_mul);
- ``c16_half``: ``8 (i // 4) + i % 4`` (each sector's first 16 bytes, never completed);
- ``c16_pair``: that, then ``+ 4`` (its last 16 bytes, by the same warp's next store);
- ``c8_quarter``: ``8 (i // 2) + i % 2`` (each sector's first 8 bytes);
- ``w4_eight``: ``8 i + k`` for ``k = 0..7`` (a word of each of 32 sectors per store, the warp's eight
  stores completing them: a transpose's pattern within one warp);
- ``w4_block8``: ``8 (32 (i // 256) + i % 32) + (i // 32) % 8`` (the eight warps of a block each write
  one word of the same 32 sectors: a 32x8 transpose tile's stores).

Every case is launched once under ``ncu --clock-control none``: duration, SM cycles, DRAM bytes read and
written, L2 write sectors and requests, the store sectors L1 sent, and the warps' stall reasons.
"""
from __future__ import annotations

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import hw_probe  # noqa: E402  (beside this file)

THREADS = 256
WORDS = 1 << 26                 # out: 256 MB of float32
#: name -> (the addresses each thread stores to, in order; threads)
PATTERNS = {
    "seq": (("i",), WORDS),
    "w4_half": (("2 * i",), WORDS // 2),
    "w4_pair": (("2 * i", "2 * i + 1"), WORDS // 2),
    "c16_half": (("8 * (i // 4) + i % 4",), WORDS // 2),
    "c16_pair": (("8 * (i // 4) + i % 4", "8 * (i // 4) + i % 4 + 4"), WORDS // 2),
    "c8_quarter": (("8 * (i // 2) + i % 2",), WORDS // 4),
    "w4_eight": (tuple(f"8 * i + {k}" for k in range(8)), WORDS // 8),
    "w4_block8": (("8 * (32 * (i // 256) + i % 32) + (i // 32) % 8",), WORDS),
}
METRICS = ("gpu__time_duration.sum", "sm__cycles_elapsed.max", "dram__bytes_read.sum", "dram__bytes_write.sum",
           "lts__t_sectors_srcunit_tex_op_write.sum", "lts__t_requests_srcunit_tex_op_write.sum",
           "lts__t_sector_op_write_hit_rate.pct", "smsp__inst_executed.sum",
           "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum")


def kernel_source(pattern: str) -> str:
    """The Python source of the kernel ``k(out, n, v)`` of a pattern."""
    stores = "\n".join(f"        out[{a}] = v" for a in PATTERNS[pattern][0])
    return f"""
def k(out, n, v):
    i = cuda.grid(1)
    if i < n:
{stores}
"""


def _kernel(pattern: str) -> object:
    return hw_probe.jit_source(kernel_source(pattern), f"<partial_writes {pattern}>", "k")


def once() -> None:
    """Each case launched once (what ``ncu`` profiles)."""
    cuda, np = hw_probe.numba_cuda()
    out = cuda.to_device(np.zeros(WORDS, np.float32))
    v = np.float32(2.0)
    for pattern, (_, n) in PATTERNS.items():
        _kernel(pattern)[n // THREADS, THREADS](out, n, v)
        cuda.synchronize()


def profile(ncu: str) -> list:
    """``ncu``'s rows of the ``--once`` run, one a case in :data:`PATTERNS` order."""
    return hw_probe.ncu_profile(ncu, str(pathlib.Path(__file__).resolve()), METRICS, len(PATTERNS))


def run(out_path: str, ncu: str) -> None:
    rows = []
    for (pattern, (stores, n)), m in zip(PATTERNS.items(), profile(ncu)):
        rows.append(dict(pattern=pattern, n=n, threads=THREADS, stores=list(stores), metrics=m))
        us = m["gpu__time_duration.sum"] / 1e3
        rd, wr = m["dram__bytes_read.sum"] / 1e6, m["dram__bytes_write.sum"] / 1e6
        sectors = m.get("lts__t_sectors_srcunit_tex_op_write.sum", 0)
        per = m["sm__cycles_elapsed.max"] * 96 / sectors if sectors else 0
        print(f"{pattern:12s} {us:9.1f} us, DRAM read {rd:8.1f} MB, write {wr:8.1f} MB, L2 write sectors "
              f"{sectors:11.0f} ({per:5.2f} slice-cycles each), " + hw_probe.top_stalls(m), flush=True)
    hw_probe.write(out_path, words=WORDS, rows=rows)


def main(argv=None) -> int:
    return hw_probe.ncu_main(__doc__, run, once, argv)


if __name__ == "__main__":
    sys.exit(main())

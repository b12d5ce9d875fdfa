"""What a store writing sectors in part costs L2 by the size of what it writes into: the same store shapes into
2 MB to 128 MB of lines, with no loads.

Run on the device machine, from the repository root (python3 with numba-cuda and ncu)::

    PYTHONPATH=. python3 benchmarks/store_size_hw.py --out $OUT/store_size_hw.json

and compare smsim with what it recorded (on any machine)::

    python benchmarks/store_size_hw.py --sim docs/hardware/store_size_hw.json

Why: ``docs/hardware/size_sweep_hw.md`` found smsim 1.04-1.34x the H200's time on kernels whose stores write
sectors in part at the sizes L2 holds (256 K-1 M elements), and within about 10% at 64 K elements and at
4-16 M, where L2 completes and writes back some of the lines. Does a partial write cost L2's slices less when
the lines stay in L2 (``l2.partial_write_cycles`` was fitted at the full sizes), or is the rest of those
kernels (their loads, their waves) what smsim times wrongly?

The kernels are ``store_read_hw``'s without loads (``kernel_source``: groups of ``G`` consecutive warps store
one element a lane into the same sectors, ``lps`` lanes a sector, a sector a line), each shape at six
sizes of its array of lines, 2 MB to 128 MB: the 32-wide naive transpose's (``f32_l1_g8``: eight warps' words
fill a sector, 32 lines a store), the float64 transpose's (``f64_l2_g2``: two warps' 16 bytes, 16 lines), the
8x32 transpose's (``f32_l4_g2``, 8 lines), the 16x16 one's (``f32_l2_g4``, 16 lines), a sector left a
quarter written (``f32_l2_g1``) and whole sectors (``f64_l4_g1``, a warp's 32 bytes a sector).
"""
from __future__ import annotations

import functools
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import hw_probe  # noqa: E402  (beside this file)
import store_read_hw as sr  # noqa: E402

SHAPES = [("f32", 1, 8), ("f64", 2, 2), ("f32", 4, 2), ("f32", 2, 4), ("f32", 2, 1), ("f64", 4, 1)]
LINES = [1 << 14, 1 << 15, 1 << 16, 1 << 17, 1 << 18, 1 << 20]      # 2, 4, 8, 16, 32 and 128 MB of lines
CASES = [(dtype, lps, group, 0, "miss", lines) for dtype, lps, group in SHAPES for lines in LINES]


def name(case: tuple) -> str:
    return f"{sr.name(case)}_{case[5] * 128 >> 20}MB"


def once() -> None:
    """Each case launched once (what ``ncu`` profiles)."""
    cuda, np = hw_probe.numba_cuda()
    for case in CASES:
        out, inp = (cuda.to_device(a) for a in sr._arrays(case, np))
        n = sr.threads(case)
        sr._kernel(case)[n // sr.THREADS, sr.THREADS](out, inp, n)
        cuda.synchronize()


def run(out_path: str, ncu: str) -> None:
    rows = []
    for case, m in zip(CASES, hw_probe.ncu_profile(ncu, str(pathlib.Path(__file__).resolve()), sr.METRICS,
                                                   len(CASES))):
        dtype, lps, group, reads, src, sectors = case
        rows.append(dict(name=name(case), dtype=dtype, lps=lps, group=group, reads=reads, src=src, sectors=sectors,
                         n=sr.threads(case), metrics=m))
        print(f"{name(case):22s} {m['gpu__time_duration.sum'] / 1e3:8.1f} us, L2 write sectors "
              f"{m['lts__t_sectors_srcunit_tex_op_write.sum']:10.0f}, DRAM read "
              f"{m['dram__bytes_read.sum'] / 1e6:7.1f} MB write {m['dram__bytes_write.sum'] / 1e6:7.1f} MB,"
              f" {sr.slice_cycles(m):5.2f} slice cycles a write sector, " + hw_probe.top_stalls(m), flush=True)
    hw_probe.write(out_path, threads=sr.THREADS, rows=rows)


def main(argv=None) -> int:
    return hw_probe.ncu_main(__doc__, run, once, argv, functools.partial(sr.simulate, width=22))


if __name__ == "__main__":
    sys.exit(main())

"""Does a read into a DRAM row that another warp's read has just opened come back sooner on an H200, while
that read is still on its way: the second read's latency against the gap between the two.

Run on the device machine, from the repository root (python3 with numba-cuda)::

    PYTHONPATH=. python3 benchmarks/dram_row_inflight_hw.py --out $OUT/dram_row_inflight_hw.json

Why: ``dram_row_hw.md`` found no open row after a read's data is back (0-51200 cycles later); smsim serves a
read at ``dram.row_hit_latency_cycles`` (300, against 440 for a row miss) when another read touched its row
within ``dram.row_open_cycles`` (200) before it, and a read right behind the one that opened the row no
sooner than that one. Whether reads of one row a little apart gain on the H200 decides what warps out of step
gain (``docs/hardware/l2_latency_spread_hw.md``: a read's own latency offset in smsim let such warps find rows
open, and latency-bound column loops ran up to 11% faster).

One block of two warps (lane 0 of each; nothing else runs; L2 cleared by reading 512 MiB first), for each of
its places ``base`` (4 MiB apart in a 1 GiB array of zeros, each place once), after a barrier: warp 0 stamps
``%clock64``, reads ``a[base]`` (a DRAM miss that opens its row) and stamps again after a store of the value
(which waits for it); warp 1 stamps, spins until ``gap`` cycles have passed, stamps, reads ``a[base + off]``
(the address made to depend on the spin) and stamps after a store of it. ``off`` is 16 words (``same``: the
other 64 bytes of the same 128-byte line, so the same DRAM row, a separate access) or 512 Ki words
(``other``: 2 MiB away, a row nobody touched). Each (offset, gap) at ``REPEATS`` places; printed: the medians
of the first read's latency, the second's, and when the second's data is back after the first's.
"""
from __future__ import annotations

import functools
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import hw_probe  # noqa: E402  (beside this file)
from dram_row_hw import CLEAR_BYTES, OFFSETS, PLACE, REPEATS, WORDS  # noqa: E402  (its array, places, offsets)

GAPS = (0, 50, 100, 200, 300, 400, 600, 800, 1200)


@functools.lru_cache(maxsize=None)
def _kernels():
    cuda, np = hw_probe.numba_cuda()
    clock64 = hw_probe.special("clock64", 64)

    @cuda.jit
    def probe(a, places, offs, gaps, st, sink):
        warp = cuda.threadIdx.x // 32
        lane = cuda.threadIdx.x % 32
        for k in range(places.shape[0]):
            cuda.syncthreads()
            base = places[k]
            if lane == 0 and warp == 0:
                t0 = clock64()
                v = a[base + np.int64(t0 < 0)]
                sink[k, 0] = v               # the store waits for the load; the clock is read after it
                t1 = clock64()
                st[k, 0] = t0
                st[k, 1] = t1
            elif lane == 0 and warp == 1:
                t0 = clock64()
                t = t0
                while t - t0 < gaps[k]:
                    t = clock64()
                w = a[base + offs[k] + np.int64(t < 0)]
                sink[k, 1] = w
                t2 = clock64()
                st[k, 2] = t
                st[k, 3] = t2
    return cuda, np, probe


def run(out_path: str) -> None:
    cuda, np, probe = _kernels()
    clear = hw_probe.clear_kernel()
    rng = np.random.default_rng(0)
    cases = [(name, g) for name in OFFSETS for g in GAPS for _ in range(REPEATS)]
    cases = [cases[i] for i in rng.permutation(len(cases))]
    per_pass = WORDS // PLACE - 1
    a = cuda.to_device(np.zeros(WORDS, np.float32))
    buf = cuda.to_device(np.ones(CLEAR_BYTES // 4, np.float32))
    sink = cuda.to_device(np.zeros(1, np.float32))
    rows = []
    for lo in range(0, len(cases), per_pass):
        chunk = cases[lo:lo + per_pass]
        p = cuda.to_device((rng.permutation(per_pass)[:len(chunk)] * PLACE).astype(np.int64))
        offs = cuda.to_device(np.array([OFFSETS[n] for n, _ in chunk], np.int64))
        gp = cuda.to_device(np.array([g for _, g in chunk], np.int64))
        st = cuda.to_device(np.zeros((len(chunk), 4), np.int64))
        sinks = cuda.to_device(np.zeros((len(chunk), 2), np.float32))
        clear[132 * 8, 256](buf, sink)
        probe[1, 64](a, p, offs, gp, st, sinks)
        cuda.synchronize()
        for (name, g), (t0, t1, s0, s1) in zip(chunk, st.copy_to_host()):
            rows.append(dict(offset=name, gap=g, first=int(t1 - t0), second=int(s1 - s0),
                             issued_after=int(s0 - t0), back_after=int(s1 - t1)))
    print(f"{'gap':>5s} " + " ".join(f"{n + ' (1st, 2nd, 2nd back after 1st)':>36s}" for n in OFFSETS))
    summary = {}
    for g in GAPS:
        cells = []
        for name in OFFSETS:
            got = [r for r in rows if r["offset"] == name and r["gap"] == g]
            med = {k: float(np.median([r[k] for r in got])) for k in ("first", "second", "issued_after",
                                                                      "back_after")}
            summary[f"{name}_{g}"] = med
            cells.append(f"{med['first']:8.0f} {med['second']:8.0f} {med['back_after']:8.0f}")
        print(f"{g:5d} " + " ".join(f"{c:>36s}" for c in cells), flush=True)
    hw_probe.write(out_path, gaps=list(GAPS), offsets=OFFSETS, repeats=REPEATS, summary=summary, rows=rows)


def main(argv=None) -> int:
    return hw_probe.main(__doc__, run, argv)


if __name__ == "__main__":
    sys.exit(main())

"""How long an H200's HBM keeps a row open: the latency of a read into a row another read opened, after
an idle gap of 0 to 51200 cycles, against a read into a row nobody touched.

Run on the device machine, from the repository root (python3 with numba-cuda)::

    python3 benchmarks/dram_row_hw.py --out $OUT/dram_row_hw.json

Why: smsim serves a DRAM access at ``dram.row_hit_latency_cycles`` when its row was accessed within
``dram.row_open_cycles`` (200, assumed), else at ``dram.latency_cycles``. ``benchmarks/loop_trip_hw.py``'s
stencil reads lines of rows it opened an iteration (~1300 cycles) earlier faster than smsim's row misses.

One thread of one block (nothing else runs; L2 cleared by reading 512 MiB first) does, for each of its
places ``base`` (4 MiB apart in a 1 GiB array of zeros, each place once): ``v = a[base]`` (a DRAM miss that
opens its row; L2 asks for 64 bytes), a ``clock64`` stamp before it and one after a store of ``v`` (which
waits for it); a spin until ``delay`` cycles have passed; then ``w = a[base + off + v]`` (``v`` is 0, but
the address depends on the first read and the spin, so the load issues after both), a store of it and a
stamp. ``off`` is 16 words (``same``: the other 64 bytes of the same 128-byte line, so the same DRAM row,
not in L2) or 512 Ki words (``other``: 2 MiB away, a row nobody touched). Each (offset, delay) is measured
at ``REPEATS`` places. Printed: the median latency of the first read and of the second, per
delay and offset.
"""
from __future__ import annotations

import functools
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import hw_probe  # noqa: E402  (beside this file)

WORDS = 1 << 28                       # 1 GiB of float32
PLACE = 1 << 20                       # words between places: 4 MiB
DELAYS = (0, 100, 200, 400, 800, 1600, 3200, 6400, 12800, 25600, 51200)
OFFSETS = {"same": 16, "other": PLACE // 2}
REPEATS = 12
CLEAR_BYTES = 512 << 20


@functools.lru_cache(maxsize=None)
def _kernels():
    cuda, np = hw_probe.numba_cuda()
    clock64 = hw_probe.special("clock64", 64)

    @cuda.jit
    def probe(a, places, offs, delays, st, sink):
        for k in range(places.shape[0]):
            base = places[k]
            t0 = clock64()
            v = a[base]
            sink[k, 0] = v                   # the store waits for the load; the clock is read after it
            t1 = clock64()
            t = t1
            while t - t1 < delays[k]:
                t = clock64()
            w = a[base + offs[k] + np.int64(v) + np.int64(t < 0)]
            sink[k, 1] = w
            t3 = clock64()
            st[k, 0] = t1 - t0
            st[k, 1] = t3 - t
    return cuda, np, probe


def run(out_path: str) -> None:
    cuda, np, probe = _kernels()
    clear = hw_probe.clear_kernel()
    rng = np.random.default_rng(0)
    cases = [(name, d) for name in OFFSETS for d in DELAYS for _ in range(REPEATS)]
    order = rng.permutation(len(cases))
    cases = [cases[i] for i in order]
    places = (rng.permutation(WORDS // PLACE - 1)[:len(cases)] * PLACE).astype(np.int64) \
        if len(cases) < WORDS // PLACE else None
    if places is None:                  # more cases than 4 MiB places: several passes, L2 cleared between
        places = np.concatenate([rng.permutation(WORDS // PLACE - 1) * PLACE
                                 for _ in range(len(cases) // (WORDS // PLACE - 1) + 1)])[:len(cases)]
    a = cuda.to_device(np.zeros(WORDS, np.float32))
    buf = cuda.to_device(np.ones(CLEAR_BYTES // 4, np.float32))
    sink = cuda.to_device(np.zeros(1, np.float32))
    per_pass = WORDS // PLACE - 1
    rows = []
    for lo in range(0, len(cases), per_pass):
        chunk = cases[lo:lo + per_pass]
        p = cuda.to_device(places[lo:lo + len(chunk)].astype(np.int64))
        offs = cuda.to_device(np.array([OFFSETS[n] for n, _ in chunk], np.int64))
        dl = cuda.to_device(np.array([d for _, d in chunk], np.int64))
        st = cuda.to_device(np.zeros((len(chunk), 2), np.int64))
        sinks = cuda.to_device(np.zeros((len(chunk), 2), np.float32))
        clear[132 * 8, 256](buf, sink)
        probe[1, 1](a, p, offs, dl, st, sinks)
        cuda.synchronize()
        for (name, d), (first, second) in zip(chunk, st.copy_to_host()):
            rows.append(dict(offset=name, delay=d, first=int(first), second=int(second)))
    print(f"{'delay':>6s} " + " ".join(f"{n + ' (1st, 2nd)':>22s}" for n in OFFSETS))
    summary = {}
    for d in DELAYS:
        cells = []
        for name in OFFSETS:
            got = [r for r in rows if r["offset"] == name and r["delay"] == d]
            first = float(np.median([r["first"] for r in got]))
            second = float(np.median([r["second"] for r in got]))
            summary[f"{name}_{d}"] = dict(first=first, second=second)
            cells.append(f"{first:10.0f} {second:10.0f}")
        print(f"{d:6d} " + " ".join(f"{c:>22s}" for c in cells), flush=True)
    hw_probe.write(out_path, delays=list(DELAYS), offsets=OFFSETS, repeats=REPEATS, summary=summary, rows=rows)


def main(argv=None) -> int:
    return hw_probe.main(__doc__, run, argv)


if __name__ == "__main__":
    sys.exit(main())

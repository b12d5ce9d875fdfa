"""Where a few-block kernel's time goes on an H200: each warp's start and end, by clock stamps.

Run on the device machine, from the repository root (python3 with numba-cuda and ncu)::

    PYTHONPATH=. python3 benchmarks/warp_span_hw.py --out $OUT/warp_span_hw.json

and smsim beside it here: ``python benchmarks/warp_span_hw.py --sim docs/hardware/warp_span_hw.json``.

Why: at the test size, kernels of a few blocks whose warps each make several DRAM round trips one after
another run 10-18% fast in smsim (``seminar.row_sum_warp`` 0.84: 4 blocks of 256 threads, a warp a 4 KB row
read 512 bytes a trip; ``tutorial.gather_rows_warp`` 0.85, ``bootcamp.matvec_f64_warp`` 0.85,
``cuda_c.vec_add_grid_stride`` 0.84), while the H200's warps spend about as many cycles per instruction as
smsim's (the stall breakdowns' sums agree within 5%). The busiest SM's active cycles exceed its warps' mean
life by 1.2-3 K cycles on the H200 and by 0.3-0.9 K in smsim. Do some warps or SMs run much longer than the
mean one, or start late?

The kernel is ``row_sum_warp``'s (a warp sums a row of ``ROW`` floats, lanes striding it, then a shuffle tree)
with lane 0 of each warp stamping ``%smid``, ``%globaltimer`` (ns, one clock for the device) and
``%clock64`` (cycles, per SM) at its start and after its store (which waits for the sum): blocks of 256
threads, 1, 4, 16 and 132 blocks, rows of 1024 and 4096 floats (8 and 32 trips of 4 loads a warp), after L2
was cleared; each launch under ncu (``gpu__time_duration``, SM cycles) and, separately, ``REPEATS`` times
with stamps read back.
"""
from __future__ import annotations

import functools
import json
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import hw_probe  # noqa: E402  (beside this file)

THREADS = 256
SHAPES = [(b, row) for row in (1024, 4096) for b in (1, 4, 16, 132)]
REPEATS = 5
CLEAR_BYTES = 512 << 20
METRICS = ("gpu__time_duration.sum", "sm__cycles_elapsed.max", "sm__cycles_active.max", "smsp__inst_executed.sum")
SOURCE = """
def row_sum(m, out):
    r = cuda.grid(1) // 32
    lane = cuda.laneid
    if r < m.shape[0]:
        acc = np.float32(0.0)
        for c in range(lane, m.shape[1], 32):
            acc += m[r, c]
        off = 16
        while off > 0:
            acc += cuda.shfl_down_sync(0xFFFFFFFF, acc, off)
            off //= 2
        if lane == 0:
            out[r] = acc
"""


def _kernel(module=None):
    return hw_probe.jit_source(SOURCE, "<warp_span>", "row_sum", module)


@functools.lru_cache(maxsize=None)
def _stamped():
    cuda, np = hw_probe.numba_cuda()
    clock64, smid = hw_probe.special("clock64", 64), hw_probe.special("smid", 32)
    gtimer = hw_probe.special("globaltimer", 64)

    @cuda.jit
    def row_sum(m, out, st):
        g0 = gtimer()
        c0 = clock64()
        r = cuda.grid(1) // 32
        lane = cuda.laneid
        acc = np.float32(0.0)
        for c in range(lane, m.shape[1], 32):
            acc += m[r, c]
        off = 16
        while off > 0:
            acc += cuda.shfl_down_sync(0xFFFFFFFF, acc, off)
            off //= 2
        if lane == 0:
            out[r] = acc
            st[r, 0] = smid()
            st[r, 1] = g0
            st[r, 2] = c0
            st[r, 3] = clock64()
            st[r, 4] = gtimer()
    return cuda, np, row_sum, hw_probe.clear_kernel()


def _args(np, blocks: int, row: int) -> tuple:
    rows = blocks * THREADS // 32
    m = np.random.default_rng(0).random((rows, row), dtype=np.float32)
    return m, np.zeros(rows, np.float32)


def once() -> None:
    cuda, np = hw_probe.numba_cuda()
    k = _kernel()
    for blocks, row in SHAPES:
        args = [cuda.to_device(a) for a in _args(np, blocks, row)]
        k[blocks, THREADS](*args)
        cuda.synchronize()


def stamps() -> list:
    """Per shape, per repeat: each warp's (smid, start ns, start clock, end clock, end ns)."""
    cuda, np, k, clear = _stamped()
    buf = cuda.to_device(np.ones(CLEAR_BYTES // 4, np.float32))
    sink = cuda.to_device(np.zeros(1, np.float32))
    out = []
    for blocks, row in SHAPES:
        m, o = (cuda.to_device(a) for a in _args(np, blocks, row))
        runs = []
        for rep in range(REPEATS + 1):               # the first compiles and is dropped
            clear[132 * 8, 256](buf, sink)
            st = cuda.to_device(np.zeros((blocks * THREADS // 32, 5), np.int64))
            k[blocks, THREADS](m, o, st)
            cuda.synchronize()
            if rep:
                runs.append(st.copy_to_host().tolist())
        out.append(dict(blocks=blocks, row=row, runs=runs))
    return out


def summary(entry: dict) -> dict:
    """A shape's stamps reduced: per launch the span from the first warp's start to the last warp's end (ns and,
    per SM, cycles), the mean warp's life, the slowest warp's, the spread of starts."""
    import numpy as np
    spans, lives, slowest, starts, sm_span = [], [], [], [], []
    for run in entry["runs"]:
        st = np.asarray(run, np.int64)
        spans.append(float(st[:, 4].max() - st[:, 1].min()))
        life = st[:, 3] - st[:, 2]
        lives.append(float(life.mean()))
        slowest.append(float(life.max()))
        starts.append(float(st[:, 1].max() - st[:, 1].min()))
        sm_span.append(float(max(st[st[:, 0] == s, 3].max() - st[st[:, 0] == s, 2].min() for s in np.unique(st[:, 0]))))
    return dict(span_ns=float(np.mean(spans)), warp_life_mean=float(np.mean(lives)),
                warp_life_max=float(np.mean(slowest)), start_spread_ns=float(np.mean(starts)),
                busiest_sm_cycles=float(np.mean(sm_span)))


def run(out_path: str, ncu: str) -> None:
    script = str(pathlib.Path(__file__).resolve())
    prof = hw_probe.ncu_rows(ncu, script, METRICS, len(SHAPES))
    st = stamps()
    rows = []
    for (blocks, row), m, s in zip(SHAPES, prof, st):
        r = dict(blocks=blocks, row=row, metrics=m, stamps=s["runs"], summary=summary(s))
        rows.append(r)
        sm = r["summary"]
        print(f"{blocks:4d} blocks row {row:5d}: {m['gpu__time_duration.sum'] / 1e3:7.2f} us, active max "
              f"{m['sm__cycles_active.max']:7.0f}; stamps: span {sm['span_ns']:7.0f} ns, warp life mean "
              f"{sm['warp_life_mean']:7.0f} max {sm['warp_life_max']:7.0f}, busiest SM {sm['busiest_sm_cycles']:7.0f}, "
              f"starts within {sm['start_spread_ns']:5.0f} ns", flush=True)
    hw_probe.write(out_path, rows=rows)


def simulate(path: str = "") -> None:
    """smsim's time of each shape, its warps' mean and longest life and the busiest SM's span (h200, numba's
    front end, the SASS stream), beside the H200's if ``path``."""
    import numpy as np

    import smsim
    from smsim import cuda
    hw = {(r["blocks"], r["row"]): r for r in json.loads(pathlib.Path(path).read_text())["rows"]} if path else {}
    k = _kernel(cuda)
    for blocks, row in SHAPES:
        res = smsim.launch(k, blocks, THREADS, _args(np, blocks, row), config="h200", compiler="numba",
                           overrides={"scheduler.stream": "sass"}, complete=False, timeline=True)
        tl = res.timeline["warps"]
        span: dict = {}
        for b, w, a, e in zip(tl["block"], tl["warp"], tl["start"], tl["end"]):
            lo, hi = span.get((b, w), (a, e))
            span[(b, w)] = (min(lo, a), max(hi, e))
        life = np.array([e - a for a, e in span.values()])
        line = (f"{blocks:4d} blocks row {row:5d}: smsim {res.metrics['gpu__time_duration.sum'] / 1e3:7.2f} us, "
                f"{res.cycles:7.0f} cycles, warp life mean {life.mean():7.0f} max {life.max():7.0f}")
        h = hw.get((blocks, row))
        if h:
            t = h["metrics"]["gpu__time_duration.sum"] / 1e3
            s = h["summary"]
            line += (f" | H200 {t:7.2f} us ({res.metrics['gpu__time_duration.sum'] / 1e3 / t:.2f}), active max "
                     f"{h['metrics']['sm__cycles_active.max']:7.0f}, warp life mean {s['warp_life_mean']:7.0f} max "
                     f"{s['warp_life_max']:7.0f}, busiest SM {s['busiest_sm_cycles']:7.0f}")
        print(line, flush=True)


def main(argv=None) -> int:
    return hw_probe.ncu_main(__doc__, run, once, argv, simulate)


if __name__ == "__main__":
    sys.exit(main())

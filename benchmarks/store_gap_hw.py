"""How long may a sector's first part wait in L2 for the rest before its next part costs the slices more?
Warp pairs (and groups of 4 and 8) store into the same sectors, the later warps delayed by a chain of
dependent multiply-adds of a known length.

Run on the device machine, from the repository root (python3 with numba-cuda and ncu)::

    PYTHONPATH=. python3 benchmarks/store_gap_hw.py --out $OUT/store_gap_hw.json

and compare smsim with what it recorded (on any machine)::

    python benchmarks/store_gap_hw.py --sim docs/hardware/store_gap_hw.json

Why: ``docs/hardware/store_read_hw.md`` found that two warps' halves of a sector cost the H200's slices 2.9
cycles a write sector when the two store at once, 3.7-3.9 after a load L2 holds, 4.6-5.1 after a DRAM load and
5.7 when only one of the pair loads first (``course.transpose_f64`` and ``exercises.transpose_f64_32x8`` run at
0.77-0.79 of the H200's time for it at their full sizes), where 4-byte stores of 8 warps a sector show none of
it; smsim charges every partial write the same (``l2.partial_write_cycles``). Here the wait between a sector's
parts is set directly: the odd warp of each pair (``odd``), or warp ``k`` of a group (``stagger``: ``k`` times
the chain), first runs ``D`` dependent float32 multiply-adds; ``both`` delays every warp alike (no wait
between the parts, as a control). The warps an SM are set with dynamic shared memory (``W``: 64, 32, 16), to
tell a wait bounded in time from one bounded by how many sectors wait. Each case is also launched once outside
ncu with lane 0 of each warp reading ``clock64`` just before its store, and the wait between the first and the
last store of each group on its SM is recorded (median and quartiles, cycles).

Each kernel ``kern(out, inp, n)`` is ``store_read_hw``'s store shape: the warps of a group of ``G`` consecutive
warps store one element a lane into the same sectors, ``lps`` lanes a sector, one sector a line, 256-thread
blocks, 2 M sectors.
"""
from __future__ import annotations

import json
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import hw_probe  # noqa: E402  (beside this file)
from store_merge_hw import merged  # noqa: E402
from store_read_hw import slice_cycles  # noqa: E402

THREADS = 256
SECTORS = 1 << 21
SHARED = {64: 0, 32: 50 * 1024, 16: 100 * 1024}     # dynamic shared memory a block -> 8, 4, 2 blocks an SM
# (element type, lanes a sector, warps a group, chain length, who waits, warps an SM)
CASES = [("f64", 2, 2, d, "odd", 64) for d in (0, 8, 16, 32, 64, 128, 256)] + [
    ("f64", 2, 2, 64, "both", 64),
    ("f64", 2, 2, 64, "odd", 32), ("f64", 2, 2, 64, "odd", 16), ("f64", 2, 2, 256, "odd", 16),
    ("f64", 1, 4, 0, "stagger", 64), ("f64", 1, 4, 16, "stagger", 64), ("f64", 1, 4, 64, "stagger", 64),
    ("f32", 1, 8, 16, "stagger", 64), ("f32", 1, 8, 64, "stagger", 64),
    ("f32", 2, 2, 64, "odd", 64)]
METRICS = ("gpu__time_duration.sum", "sm__cycles_elapsed.max", "dram__bytes_read.sum", "dram__bytes_write.sum",
           "lts__t_sectors_srcunit_tex_op_write.sum", "lts__t_sectors_srcunit_tex_op_read.sum",
           "smsp__inst_executed.sum", "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
           "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum", "sm__warps_active.avg.per_cycle_active")


def name(case: tuple) -> str:
    dtype, lps, group, chain, who, warps = case
    return f"{dtype}_l{lps}_g{group}_{who}{chain}_w{warps}"


def per_sector(dtype: str) -> int:
    return 8 if dtype == "f32" else 4


def threads(case: tuple) -> int:
    _, lps, group, _, _, _ = case
    return SECTORS * lps * group


def kernel_source(case: tuple, clock: bool = False) -> str:
    """The Python source of the kernel ``kern(out, inp, n)`` (``clock``: ``kern(out, inp, n, t)``, lane 0
    writing the warp's ``clock64`` just before its store into ``t``)."""
    dtype, lps, group, chain, who, _ = case
    pitch = 4 * per_sector(dtype)
    kind = "np.float32" if dtype == "f32" else "np.float64"
    step = "\n            v = v * np.float32(0.999) + np.float32(1.0)"
    steps = step * chain
    wait = {"odd": f"if k % 2 == 1:{steps}", "both": f"if k >= 0:{steps}",
            "stagger": f"for _ in range(k):{steps}"}[who] if chain else "pass"
    stamp = "\n        if lane == 0:\n            t[w] = clock64()" if clock else ""
    return f"""
def kern(out, inp, n{", t" if clock else ""}):
    i = cuda.grid(1)
    if i < n:
        w = i // 32
        lane = i % 32
        k = w % {group}
        s = (w // {group}) * {32 // lps} + lane // {lps}
        v = np.float32(inp[k])
        {wait}{stamp}
        out[s * {pitch} + k * {lps} + lane % {lps}] = {kind}(v)
"""


def _kernel(case: tuple, module=None, clock: bool = False) -> object:
    src = kernel_source(case, clock)
    if module is None and clock:
        scope = {"clock64": hw_probe.special("clock64", 64)}
        cuda, np = hw_probe.numba_cuda()
        scope.update(cuda=cuda, np=np)
        exec(compile(src, f"<store_gap {name(case)} clock>", "exec"), scope)
        return cuda.jit(scope["kern"])
    return hw_probe.jit_source(src, f"<store_gap {name(case)}>", "kern", module)


def _arrays(case: tuple, np) -> tuple:
    kind = np.float32 if case[0] == "f32" else np.float64
    return np.zeros(SECTORS * per_sector(case[0]) * 4, kind), np.arange(8, dtype=np.float32)


def _launch(kern, case: tuple, args: list) -> None:
    """``kern`` launched on the device with ``case``'s grid and dynamic shared memory (opted in past 48 KB)."""
    import ncu_workloads as nw
    cuda, _ = hw_probe.numba_cuda()
    shared = SHARED[case[5]]
    if shared > 48 << 10:
        nw._allow_dynamic_shared(kern.compile(tuple(kern.typeof_pyval(a) for a in args)), shared)
    kern[threads(case) // THREADS, THREADS, 0, shared](*args)
    cuda.synchronize()


def once() -> None:
    """Each case launched once (what ``ncu`` profiles)."""
    cuda, np = hw_probe.numba_cuda()
    for case in CASES:
        out, inp = (cuda.to_device(a) for a in _arrays(case, np))
        _launch(_kernel(case), case, [out, inp, threads(case)])


def gaps(case: tuple) -> dict:
    """The cycles between the first and the last store of each group (``clock64`` before each, same SM):
    quartiles, over all groups of the launch."""
    cuda, np = hw_probe.numba_cuda()
    out, inp = (cuda.to_device(a) for a in _arrays(case, np))
    n = threads(case)
    t = cuda.to_device(np.zeros(n // 32, np.int64))
    _launch(_kernel(case, clock=True), case, [out, inp, n, t])
    tw = t.copy_to_host().reshape(-1, case[2])
    g = tw.max(axis=1) - tw.min(axis=1)
    q = np.percentile(g, [10, 25, 50, 75, 90])
    return dict(zip(("p10", "p25", "p50", "p75", "p90"), (float(x) for x in q)))


def run(out_path: str, ncu: str) -> None:
    rows = []
    for case, m in zip(CASES, hw_probe.ncu_profile(ncu, str(pathlib.Path(__file__).resolve()), METRICS,
                                                   len(CASES))):
        dtype, lps, group, chain, who, warps = case
        g = gaps(case)
        rows.append(dict(name=name(case), dtype=dtype, lps=lps, group=group, chain=chain, who=who, warps=warps,
                         n=threads(case), gap=g, metrics=m))
        print(f"{name(case):24s} {m['gpu__time_duration.sum'] / 1e3:8.1f} us, gap p50 {g['p50']:7.0f} "
              f"(p25 {g['p25']:.0f} p75 {g['p75']:.0f}), L2 write sectors "
              f"{m['lts__t_sectors_srcunit_tex_op_write.sum']:10.0f}, DRAM read "
              f"{m['dram__bytes_read.sum'] / 1e6:6.1f} MB write {m['dram__bytes_write.sum'] / 1e6:6.1f} MB, "
              f"{slice_cycles(m):5.2f} slice cycles a write sector, " + hw_probe.top_stalls(m), flush=True)
    hw_probe.write(out_path, threads=THREADS, sectors=SECTORS, rows=rows)


def simulated(rows: list, **kw) -> list:
    """smsim's rows for the H200's ``rows`` (``kw``: :func:`hw_probe.simulated`'s; ``complete=False``)."""
    import numpy as np

    from smsim import cuda

    def launch(r: dict) -> tuple:
        case = (r["dtype"], r["lps"], r["group"], r["chain"], r["who"], r["warps"])
        out, inp = _arrays(case, np)
        return _kernel(case, cuda), r["n"] // THREADS, THREADS, (out, inp, r["n"])
    return [hw_probe.simulated([r], launch, complete=False, shared_bytes=SHARED[r["warps"]], **kw)[0]
            for r in rows]


def simulate(path: str) -> None:
    """smsim's time, share of store sectors that reach L2 and slice cycles a written sector beside the H200's."""
    rows = json.loads(pathlib.Path(path).read_text())["rows"]
    for hw, s in zip(rows, simulated(rows)):
        h, m = hw["metrics"], s["metrics"]
        ht, mt = h["gpu__time_duration.sum"], m["gpu__time_duration.sum"]
        print(f"{hw['name']:24s} H200 {ht / 1e3:7.1f} us smsim {mt / 1e3:7.1f} us ({mt / ht:4.2f}); merged H200 "
              f"{merged(h):5.3f} smsim {merged(m):5.3f}; slice cycles a write sector H200 {slice_cycles(h):5.2f} "
              f"smsim {slice_cycles(m):5.2f}; gap p50 {hw.get('gap', {}).get('p50', float('nan')):6.0f}", flush=True)


def main(argv=None) -> int:
    return hw_probe.ncu_main(__doc__, run, once, argv, simulate)


if __name__ == "__main__":
    sys.exit(main())

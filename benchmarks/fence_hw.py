"""What does a memory fence cost an H200 warp, alone, after stores and after loads, and does it empty L1?

Run on the device machine, from the repository root (python3 with numba-cuda and ncu)::

    PYTHONPATH=. python3 benchmarks/fence_hw.py --out $OUT/fence_hw.json

and beside smsim, on any machine: ``python benchmarks/fence_hw.py --sim docs/hardware/fence_hw.json``.

Why: numba's ``cuda.threadfence()`` is ``membar.gl``, which ptxas makes ``MEMBAR.SC.GPU``, ``ERRBAR``,
``CGAERRBAR``, ``CCTL.IVALL`` (the last invalidates L1's data); ``threadfence_block`` and
``threadfence_system`` are ``membar.cta`` and ``membar.sys``. ``homework.fence_store`` (a store, then a fence,
in one-element-a-thread blocks) shows 19.8 warp-cycles of ``membar`` an instruction on the H200 at its full
size where smsim, whose fence waits only for the warp's stores to reach L2, shows 8.2 (0.80 of its time).
Each persistent case here runs ``n`` iterations of a loop body (``BODIES``) at one warp an SM (132 blocks of
32 threads, ``_w1``) and at 64 (132 x 8 blocks of 256, ``_w64``), at two ``n`` (``STEPS``), so that the cycles
per iteration are the difference over the difference (the launch and the end cancel); three bodies also at 32
warps an SM (one block of 1024 threads; the H200 gives each block of a grid no larger than its SMs an SM of
its own) on all 132 SMs (``_s132``) and on 16 (``_s16``), which tells an SM's limit from the device's. The
bodies: a float FMA alone (``fma``), with a fence of each scope, after a coalesced store into a 16 MB region
L2 holds (``st``), after a load that hits L1 (``ld_l1``: the same 1 KB a warp, whose hits a ``CCTL.IVALL``
would turn into L2 reads), and after a load of a line not read before (``ld_l2``: from DRAM, as ncu empties L2
before each launch). The turnover cases (``sb_*``) are ``fence_store``'s shape: 16 waves of 8 blocks of 256 an
SM, each thread loads an element, stores it (``st``), fences (``fence``) or both. Recorded with ncu: the
duration, SM cycles, instructions, L1's global load hit rate and the stall reasons.
"""
from __future__ import annotations

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import hw_probe  # noqa: E402  (beside this file)

REGION = 1 << 22          # floats of the store/load region: 16 MB, which L2 holds
STEPS = (32, 160)         # the two iteration counts of a persistent case
METRICS = ("gpu__time_duration.sum", "sm__cycles_elapsed.max", "sm__cycles_active.avg", "smsp__inst_executed.sum",
           "l1tex__t_sector_pipe_lsu_mem_global_op_ld_hit_rate.pct", "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
           "lts__t_requests_srcunit_tex_op_read.sum", "lts__t_sector_hit_rate.pct")
FMA = "a = a * np.float32(1.0001) + np.float32(0.5)"
ST = "g[(base + k * grid) & (REGION - 1)] = a"
LD_L1 = "a += g[lane + 32 * (k & 7)]"
LD_L2 = "a += g[(base + k * grid) & (REGION - 1)]"
FENCE = {"gpu": "cuda.threadfence()", "cta": "cuda.threadfence_block()", "sys": "cuda.threadfence_system()"}
#: body name -> its statements
BODIES = {
    "fma": [FMA],
    "fma_fence": [FMA, FENCE["gpu"]],
    "fma_fence_cta": [FMA, FENCE["cta"]],
    "fma_fence_sys": [FMA, FENCE["sys"]],
    "st": [ST, FMA],
    "st_fence": [ST, FMA, FENCE["gpu"]],
    "st_fence_cta": [ST, FMA, FENCE["cta"]],
    "ld_l1": [LD_L1],
    "ld_l1_fence": [LD_L1, FENCE["gpu"]],
    "ld_l2_fence": [LD_L2, FENCE["gpu"]],   # "l2": past L1; lines read once, from DRAM
}
SOURCE = """
def k(g, out, n):
    base = cuda.grid(1)
    grid = cuda.gridsize(1)
    lane = cuda.threadIdx.x % 32
    a = np.float32(base)
    for k in range(n):
        {body}
    out[base] = a
"""
WAVES = 16
#: the turnover cases: one element a thread, 16 waves of 8 blocks of 256 an SM (``fence_store``'s shape)
TURNOVER = """
def k(g, out, n):
    i = cuda.grid(1)
    v = g[i] * np.float32(2.0)
    {store}
    {fence}
    if v == np.float32(-1.0):
        out[0] = v
"""
TURN = {"sb_ld": ("", ""), "sb_st": ("out[i] = v", ""), "sb_ld_fence": ("", FENCE["gpu"]),
        "sb_st_fence": ("out[i] = v", FENCE["gpu"])}
#: occupancy -> (blocks, threads): one warp an SM, 64 an SM, and 32 an SM (one block of 1024 threads) on all 132
#: SMs or on 16 (is a fence's rate the SM's?)
WARPS = {"w1": (132, 32), "w64": (132 * 8, 256), "s132": (132, 1024), "s16": (16, 1024)}
SCALED = ("fma", "fma_fence", "st_fence")      # the bodies run at s132 and s16 too
CASES = [(f"{b}_{w}", n) for b in BODIES for w in WARPS for n in STEPS if w[0] == "w" or b in SCALED] + \
    [(t, 1) for t in TURN]


def source(name: str) -> str:
    if name in TURN:
        store, fence = TURN[name]
        return TURNOVER.format(store=store or "pass", fence=fence or "pass")
    body = name.rsplit("_", 1)[0]
    return SOURCE.format(body="\n        ".join(BODIES[body])).replace("REGION", str(REGION))


def _kernel(name: str, module=None) -> object:
    return hw_probe.jit_source(source(name), f"<fence {name}>", "k", module)


def _launch(name: str, n: int, np) -> tuple:
    """``(blocks, threads, args)`` of a case."""
    if name in TURN:
        blocks = 132 * 8 * WAVES
        return blocks, 256, (np.ones(blocks * 256, np.float32), np.zeros(blocks * 256, np.float32), n)
    blocks, threads = WARPS[name.rsplit("_", 1)[1]]
    return blocks, threads, (np.ones(REGION, np.float32), np.zeros(blocks * threads, np.float32), n)


def once() -> None:
    cuda, np = hw_probe.numba_cuda()
    for name, n in CASES:
        blocks, threads, (g, out, n) = _launch(name, n, np)
        dg, dout = cuda.to_device(g), cuda.to_device(out)
        _kernel(name)[blocks, threads](dg, dout, n)
        cuda.synchronize()


def report(rows: list) -> None:
    """Cycles per iteration of each persistent case, and the turnover cases' durations, with top stalls."""
    steps = hw_probe.per_step(rows, STEPS, fields=("name",))
    for (name,), per in steps.items():
        m = next(r["metrics"] for r in rows if r["name"] == name and r["n"] == STEPS[1])
        hit = m.get("l1tex__t_sector_pipe_lsu_mem_global_op_ld_hit_rate.pct", 0)
        print(f"{name:20s} {per:8.1f} cycles an iteration  L1 hit {hit:5.1f}%  " + hw_probe.top_stalls(m), flush=True)
    for r in rows:
        if r["name"] in TURN:
            m = r["metrics"]
            print(f"{r['name']:20s} {m['gpu__time_duration.sum'] / 1e3:8.1f} us  " + hw_probe.top_stalls(m), flush=True)


def run(out_path: str, ncu: str) -> None:
    script = str(pathlib.Path(__file__).resolve())
    rows = [dict(name=name, n=n, metrics=m)
            for (name, n), m in zip(CASES, hw_probe.ncu_profile(ncu, script, METRICS, len(CASES)))]
    report(rows)
    hw_probe.write(out_path, region_floats=REGION, steps=list(STEPS), waves=WAVES, rows=rows)


def simulated(rows: list, **kw) -> list:
    """smsim's rows for the H200's ``rows`` (``kw``: :func:`hw_probe.simulated`'s)."""
    import numpy as np

    from smsim import cuda

    def launch(r: dict) -> tuple:
        blocks, threads, args = _launch(r["name"], r["n"], np)
        return _kernel(r["name"], cuda), blocks, threads, args
    return hw_probe.simulated(rows, launch, complete=False, **kw)


def simulate(path: str) -> None:
    import json
    rows = json.loads(pathlib.Path(path).read_text())["rows"]
    print("H200:")
    report(rows)
    print("smsim:")
    report(simulated(rows))


def main(argv=None) -> int:
    return hw_probe.ncu_main(__doc__, run, once, argv, simulate)


if __name__ == "__main__":
    sys.exit(main())

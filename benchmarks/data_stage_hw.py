"""Do shared-memory loads and global loads that hit L1 share one pipe on an H200 (L1TEX's data stage)?

Run on the device machine, from the repository root (python3 with numba-cuda and ncu)::

    PYTHONPATH=. python3 benchmarks/data_stage_hw.py --out $OUT/data_stage_hw.json

Why: ``drills.matmul_tiled8`` at its full size (8x8 tiles, 62 warps an SM) takes the H200 1.23x smsim's time,
its warps waiting in ``mio_throttle`` (4.2 warp-cycles an instruction) while its shared-memory wavefronts keep
the pipe only 40% busy; its global loads' data (a line each of four) would make it 70%. smsim serves shared
wavefronts on one pipe (``shared.wavefronts_per_cycle``) and a global load's data on L1's own data path
(``l1.data_bytes_per_cycle``), apart.

Each kernel: 132 x 8 blocks of 256 threads (64 warps an SM), ``ITER`` iterations of four independent loads
a thread into four sums, from a 4 KB table every lane reads its own word of (one wavefront, or one L1 line,
a load): ``lds`` four shared loads, ``ldg`` four global loads (L1 hits after the first iteration), ``mix``
two of each, ``lds_wide`` / ``ldg_wide`` / ``mix_wide`` the same with float4 (``LDS.128``: four wavefronts;
four 4-byte ``LDG``: numba's float array gives ptxas no alignment to join them). If one stage serves both,
``mix_wide`` takes the sum of ``lds_wide``'s and ``ldg_wide``'s cycles a load; if two, about the larger.
Recorded with ncu: the duration, SM cycles, shared wavefronts, L1's data wavefronts
(``l1tex__data_pipe_lsu_wavefronts``), the instructions and the stall reasons.
"""
from __future__ import annotations

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import hw_probe  # noqa: E402  (beside this file)

THREADS = 256
BLOCKS = 132 * 8
ITER = 512
METRICS = ("gpu__time_duration.sum", "sm__cycles_elapsed.max", "sm__cycles_active.avg", "smsp__inst_executed.sum",
           "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum", "l1tex__data_pipe_lsu_wavefronts.sum",
                  "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
           "l1tex__t_sector_pipe_lsu_mem_global_op_ld_hit_rate.pct", "smsp__inst_executed_op_shared_ld.sum")
# name -> the four loads of an iteration (s: the shared table, g: the global one, w = lane's word, k: iteration)
LOADS = {
    "lds": ("s[w]", "s[w ^ 32]", "s[w ^ 64]", "s[w ^ 96]"),
    "ldg": ("g[w]", "g[w ^ 32]", "g[w ^ 64]", "g[w ^ 96]"),
    "mix": ("s[w]", "g[w ^ 32]", "s[w ^ 64]", "g[w ^ 96]"),
}
SOURCE = """
def k(g, out, n):
    s = cuda.shared.array({shape}, np.float32)
    t = cuda.threadIdx.x
    {fill}
    cuda.syncthreads()
    w = t % 32 + (n & 0)
    a0 = np.float32(0.0)
    a1 = np.float32(0.0)
    a2 = np.float32(0.0)
    a3 = np.float32(0.0)
    for k in range(n):
        w = (w + {step}) & {mask}
        {body}
    out[cuda.grid(1)] = a0 + a1 + a2 + a3
"""
# a float4 row read as its four words: one LDS.128 from shared memory, four 4-byte LDG from global
WIDE = {
    "lds_wide": "ss",
    "ldg_wide": "gg",
    "mix_wide": "sg",
}
CASES = list(LOADS) + list(WIDE)


def source(case: str) -> str:
    if case in LOADS:
        body = "\n        ".join(f"a{i} += {load}" for i, load in enumerate(LOADS[case]))
        return SOURCE.format(shape="1024", fill="for j in range(t, 1024, 256):\n        s[j] = g[j]", step=128,
                             mask=1023, body=body)
    lines = []
    for acc, (a, row) in enumerate(zip(WIDE[case], ("w", "w ^ 64"))):
        lines.append(f"r = {row}\n        a{2 * acc} += {a}[r, 0] + {a}[r, 1]\n"
                     f"        a{2 * acc + 1} += {a}[r, 2] + {a}[r, 3]")
    return SOURCE.format(shape="(256, 4)", fill="for j in range(4):\n        s[t, j] = g[t, j]", step=32, mask=255,
                         body="\n        ".join(lines))


def _kernel(case: str, module=None) -> object:
    return hw_probe.jit_source(source(case), f"<data_stage {case}>", "k", module)


def _arrays(case: str, np) -> tuple:
    g = np.ones((256, 4) if case in WIDE else 1024, np.float32)
    return g, np.zeros(BLOCKS * THREADS, np.float32)


def once() -> None:
    cuda, np = hw_probe.numba_cuda()
    for case in CASES:
        g, out = (cuda.to_device(x) for x in _arrays(case, np))
        _kernel(case)[BLOCKS, THREADS](g, out, ITER)
        cuda.synchronize()


def run(out_path: str, ncu: str) -> None:
    rows = []
    script = str(pathlib.Path(__file__).resolve())
    for case, m in zip(CASES, hw_probe.ncu_profile(ncu, script, METRICS, len(CASES))):
        rows.append(dict(name=case, metrics=m))
        loads = 64 * ITER * (4 if case in LOADS else 2)           # load instructions an SM issues in the loop
        per = m["sm__cycles_active.avg"] / loads
        print(f"{case:9s} {m['gpu__time_duration.sum'] / 1e3:8.1f} us, {per:5.2f} SM cycles a load, shared wf "
              f"{m.get('l1tex__data_pipe_lsu_wavefronts_mem_shared.sum', 0):.3g}, data wf "
              f"{m.get('l1tex__data_pipe_lsu_wavefronts.sum', 0):.3g}, " + hw_probe.top_stalls(m), flush=True)
    hw_probe.write(out_path, threads=THREADS, blocks=BLOCKS, iterations=ITER, rows=rows)


def simulated(rows: list, **kw) -> list:
    """smsim's rows for the H200's ``rows`` (``kw``: :func:`hw_probe.simulated`'s)."""
    import numpy as np

    from smsim import cuda

    def launch(r: dict) -> tuple:
        g, out = _arrays(r["name"], np)
        return _kernel(r["name"], cuda), BLOCKS, THREADS, (g, out, ITER)
    return hw_probe.simulated(rows, launch, complete=False, **kw)


def simulate(path: str) -> None:
    hw_probe.print_durations(path, simulated, 10)


def main(argv=None) -> int:
    return hw_probe.ncu_main(__doc__, run, once, argv, simulate)


if __name__ == "__main__":
    sys.exit(main())

"""What else slows an H200's bank-conflicted shared loads when a whole SM is busy?

Run on the device machine, from the repository root (python3 with numba-cuda and ncu)::

    PYTHONPATH=. python3 benchmarks/conflict_overlap_hw.py --out $OUT/conflict_overlap_hw.json

Why: at their full sizes, three kernels whose shared loads conflict take the H200 1.21-1.28 SM cycles per
shared wavefront (``homework.shared_stride8`` 162K cycles for 127K wavefronts an SM, ``transpose.tiled``
164K for 128K, ``matmul.tiled32_bt`` 21.0M for 17.3M), while the persistent bank-stride microbenchmark
(``h200_microbench.json``, 32 warps, loads alone) takes 1.00; smsim, which serves a wavefront a cycle, is
12-15% fast on the first two. Each kernel here isolates one candidate: 132 x 8 blocks of 256 threads (64
warps an SM; ``_w32``: 132 x 4, 32 warps), ``ITER`` iterations of one shared load a thread from a 4 KB table,
lane ``l`` at word ``(l s + k) mod 1024`` (``s`` 1, 8, 32: one, eight and 32 wavefronts), into a sum, and
beside it, by case: nothing; eight independent float FMAs (``alu``); a global load that hits L1 (``ldg_l1``);
a coalesced global load from a 16 MB region L2 holds (``ldg_l2``); a coalesced global store into it (``stg``).
The turnover cases (``b{s}_{g|c}{reads}``) run short blocks instead, 16 waves of 8 an SM, as
``homework.shared_stride8`` does: a block stages 1024 floats in shared memory from global memory (``g``) or as
a constant (``c``), then each thread sums ``reads`` loads at stride ``s`` (16 or 64) and writes its sum.
Recorded with ncu: the duration, SM cycles, shared and all data-stage wavefronts
(``l1tex__data_pipe_lsu_wavefronts``), the instructions and the stall reasons.
"""
from __future__ import annotations

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import hw_probe  # noqa: E402  (beside this file)

THREADS = 256
ITER = 512
REGION = 1 << 22          # floats of the ldg_l2/stg region: 16 MB, which L2 holds
METRICS = ("gpu__time_duration.sum", "sm__cycles_elapsed.max", "sm__cycles_active.avg", "smsp__inst_executed.sum",
           "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum", "l1tex__data_pipe_lsu_wavefronts.sum",
           "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
           "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", "l1tex__t_sector_pipe_lsu_mem_global_op_ld_hit_rate.pct",
           "lts__t_sector_hit_rate.pct")
EXTRA = {
    "": "",
    "alu": "\n        ".join(f"b{i} = b{i} * np.float32(1.0001) + np.float32(0.5)" for i in range(8)),
    "ldg_l1": "b0 += g[lane + 32 * (k & 7)]",
    "ldg_l2": "b0 += g[(base + k * grid) & (REGION - 1)]",
    "stg": "g[(base + k * grid) & (REGION - 1)] = a",
}
SOURCE = """
def k(g, out, n):
    s = cuda.shared.array(1024, np.float32)
    t = cuda.threadIdx.x
    for j in range(t, 1024, 256):
        s[j] = np.float32(1.0)
    cuda.syncthreads()
    lane = t % 32
    w = lane * {stride}
    base = cuda.grid(1)
    grid = cuda.gridsize(1)
    a = np.float32(0.0)
    b0 = b1 = b2 = b3 = b4 = b5 = b6 = b7 = np.float32(0.0)
    for k in range(n):
        a += s[(w + k) & 1023]
        {extra}
    out[base] = a + b0 + b1 + b2 + b3 + b4 + b5 + b6 + b7
"""
#: short blocks, 16 waves of them: a block stages 1024 floats (``{fill}``: from global memory, or a constant),
#: then each thread sums ``{reads}`` loads at stride ``{stride}`` and writes its sum
TURNOVER = """
def k(g, out, n):
    s = cuda.shared.array(1024, np.float32)
    t = cuda.threadIdx.x
    for j in range(t, 1024, 256):
        s[j] = {fill}
    cuda.syncthreads()
    w = (t % 32) * {stride}
    a = np.float32(0.0)
    for k in range({reads}):
        a += s[(w + 32 * k + t // 32) & 1023]
    out[cuda.grid(1)] = a
"""
WAVES = 16
#: case -> (stride, extra, blocks an SM); the turnover cases: (stride, "g" or "c" (the fill), reads)
TURN = {"b8_g16": (8, "g", 16), "b8_c16": (8, "c", 16), "b8_g64": (8, "g", 64), "b8_c64": (8, "c", 64),
        "b1_g16": (1, "g", 16), "b32_g16": (32, "g", 16)}
CASES = {
    "s1": (1, "", 8), "s8": (8, "", 8), "s32": (32, "", 8), "s8_w32": (8, "", 4), "s32_w32": (32, "", 4),
    "s8_alu": (8, "alu", 8), "s8_ldg_l1": (8, "ldg_l1", 8), "s8_ldg_l2": (8, "ldg_l2", 8), "s8_stg": (8, "stg", 8),
    "s32_ldg_l2": (32, "ldg_l2", 8), "s32_stg": (32, "stg", 8), "s1_alu": (1, "alu", 8),
    **TURN,
}


def source(case: str) -> str:
    if case in TURN:
        stride, fill, reads = TURN[case]
        return TURNOVER.format(stride=stride, reads=reads,
                               fill="g[cuda.blockIdx.x * 1024 + j]" if fill == "g" else "np.float32(1.0)")
    stride, extra, _ = CASES[case]
    return SOURCE.format(stride=stride, extra=EXTRA[extra]).replace("REGION", str(REGION))


def _kernel(case: str, module=None) -> object:
    return hw_probe.jit_source(source(case), f"<conflict_overlap {case}>", "k", module)


def _launch(case: str, np) -> tuple:
    if case in TURN:
        blocks = 132 * 8 * WAVES
        return blocks, (np.ones(blocks * 1024, np.float32), np.zeros(blocks * THREADS, np.float32), ITER)
    blocks = 132 * CASES[case][2]
    return blocks, (np.ones(REGION, np.float32), np.zeros(blocks * THREADS, np.float32), ITER)


def once() -> None:
    cuda, np = hw_probe.numba_cuda()
    for case in CASES:
        blocks, (g, out, n) = _launch(case, np)
        dg, dout = cuda.to_device(g), cuda.to_device(out)
        _kernel(case)[blocks, THREADS](dg, dout, n)
        cuda.synchronize()


def run(out_path: str, ncu: str) -> None:
    rows = []
    script = str(pathlib.Path(__file__).resolve())
    for case, m in zip(CASES, hw_probe.ncu_profile(ncu, script, METRICS, len(CASES))):
        rows.append(dict(name=case, metrics=m))
        shared = m.get("l1tex__data_pipe_lsu_wavefronts_mem_shared.sum", 0) / 132
        data = m.get("l1tex__data_pipe_lsu_wavefronts.sum", 0) / 132
        cyc = m["sm__cycles_active.avg"]
        print(f"{case:11s} {m['gpu__time_duration.sum'] / 1e3:8.1f} us, {cyc:9.0f} SM cycles, "
              f"shared wf/SM {shared:9.0f} ({cyc / max(shared, 1):5.2f} cycles each), data wf/SM {data:9.0f}, "
              + hw_probe.top_stalls(m), flush=True)
    hw_probe.write(out_path, threads=THREADS, iterations=ITER, region_floats=REGION, rows=rows)


def simulated(rows: list, **kw) -> list:
    """smsim's rows for the H200's ``rows`` (``kw``: :func:`hw_probe.simulated`'s)."""
    import numpy as np

    from smsim import cuda

    def launch(r: dict) -> tuple:
        blocks, args = _launch(r["name"], np)
        return _kernel(r["name"], cuda), blocks, THREADS, args
    return hw_probe.simulated(rows, launch, complete=False, **kw)


def simulate(path: str) -> None:
    hw_probe.print_durations(path, simulated, 12)


def main(argv=None) -> int:
    return hw_probe.ncu_main(__doc__, run, once, argv, simulate)


if __name__ == "__main__":
    sys.exit(main())

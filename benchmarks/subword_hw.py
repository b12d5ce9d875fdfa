"""Stores into part of a word: which ones wait for one another at L2, and for how long.

Run on the device machine, from the repository root (python3 with numba-cuda and ncu)::

    PYTHONPATH=. python3 benchmarks/subword_hw.py --out $OUT/subword_hw.json

and compare smsim with what it recorded (on any machine)::

    python benchmarks/subword_hw.py --sim docs/hardware/subword_hw.json

Why: ``docs/hardware/column_store_hw.md`` found a byte transpose in 32x8 blocks 2400-2600 cycles slower on the
H200 than the same transpose of float32 in one wave of any size, 16-bit values 700-1200: smsim now has the
stores into part of a 4-byte word take turns there, each ``l2.subword_chain_cycles`` (700) after the last one
into the word began, except a warp's store after its own (``practice.life_step``'s two branch stores of byte
cells take the H200 no longer than smsim without the wait). These kernels ask what that model assumes: that a
word with one writer waits for nothing, that stores of different warps chain and a warp's own do not, even far
apart, and that stores into a word further apart than the chain wait for none.

Each kernel writes bytes (``out``, uint8) or words (``out32``) at ``t = cuda.grid(1)``, warp ``q = t // 32``,
lane ``l = t % 32``, 256 threads a block, 132, 528 or 2112 blocks (one block an SM, four, and two waves of eight):

- ``w1``: ``out[4 t]``: one byte of each word, one writer a word;
- ``w2_warps``: warps ``2g`` and ``2g + 1`` write bytes 0 and 1 of the words ``32 g + l``;
- ``w4_warps``: warps ``4g .. 4g + 3`` write bytes 0-3 of the words ``32 g + l`` (the byte transpose's writers);
- ``w4_warps_f32``: the same warps write the same words whole (``out32``): the same L2 requests, no part words;
- ``w4_warps_apart``: as ``w4_warps``, warp ``4g + k`` first runs ``64 k`` turns of a dependent multiply-add
  loop (over 700 cycles apart); ``w4_warps_f32_apart``: the same loops, whole words;
- ``w4_one_warp``: each thread writes bytes 0-3 of word ``t`` in four stores one after another (L1 merges them);
- ``w4_one_warp_apart``: the same with 64 turns of the loop before each store (no merge);
  ``w4_one_warp_f32_apart``: the same loops, the whole word ``t`` stored four times.
"""
from __future__ import annotations

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import hw_probe  # noqa: E402  (beside this file)

BLOCK = 256
KERNELS = ("w1", "w2_warps", "w4_warps", "w4_warps_f32", "w4_warps_apart", "w4_warps_f32_apart", "w4_one_warp",
           "w4_one_warp_apart", "w4_one_warp_f32_apart")
CASES = [(k, b) for b in (132, 528, 2112) for k in KERNELS]
METRICS = ("gpu__time_duration.sum", "sm__cycles_elapsed.max", "dram__bytes_read.sum", "dram__bytes_write.sum",
           "lts__t_sectors_srcunit_tex_op_write.sum", "lts__t_requests_srcunit_tex_op_write.sum",
           "smsp__inst_executed.sum", "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
           "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum")

#: each kernel's body (``t``, ``q``, ``l`` defined; ``a``, ``b`` float32 arguments near 1 and 0)
BODIES = {
    "w1": "out[4 * t] = np.uint8(l + 1)",
    "w2_warps": "out[4 * (32 * (q // 2) + l) + q % 2] = np.uint8(l + 1)",
    "w4_warps": "out[4 * (32 * (q // 4) + l) + q % 4] = np.uint8(l + 1)",
    "w4_warps_f32": "out32[32 * (q // 4) + l] = np.float32(l + 1)",
    "w4_warps_apart": """x = np.float32(l)
    for _ in range(64 * (q % 4)):
        x = x * a + b
    out[4 * (32 * (q // 4) + l) + q % 4] = np.uint8(int(x) & 255)""",
    "w4_warps_f32_apart": """x = np.float32(l)
    for _ in range(64 * (q % 4)):
        x = x * a + b
    out32[32 * (q // 4) + l] = x""",
    "w4_one_warp": """out[4 * t] = np.uint8(l + 1)
    out[4 * t + 1] = np.uint8(l + 2)
    out[4 * t + 2] = np.uint8(l + 3)
    out[4 * t + 3] = np.uint8(l + 4)""",
    "w4_one_warp_apart": """x = np.float32(l)
    for k in range(4):
        for _ in range(64):
            x = x * a + b
        out[4 * t + k] = np.uint8(int(x) & 255)""",
    "w4_one_warp_f32_apart": """x = np.float32(l)
    for k in range(4):
        for _ in range(64):
            x = x * a + b
        out32[t] = x""",
}


def name(case: tuple) -> str:
    return f"{case[0]}_b{case[1]}"


def kernel_source(kernel: str) -> str:
    """The Python source of ``kern(out, out32, a, b)``."""
    body = BODIES[kernel]
    return f"""
def kern(out, out32, a, b):
    t = cuda.grid(1)
    q = t // 32
    l = t % 32
    {body}
"""


def _kernel(kernel: str, module=None) -> object:
    return hw_probe.jit_source(kernel_source(kernel), f"<subword {kernel}>", "kern", module)


def _arrays(case: tuple, np) -> tuple:
    n = case[1] * BLOCK
    return np.zeros(4 * n, np.uint8), np.zeros(n, np.float32), np.float32(1.0001), np.float32(0.5)


def once() -> None:
    """Each case launched once (what ``ncu`` profiles)."""
    cuda, np = hw_probe.numba_cuda()
    kernels = {k: _kernel(k) for k in KERNELS}
    for case in CASES:
        out, out32, a, b = _arrays(case, np)
        kernels[case[0]][case[1], BLOCK](cuda.to_device(out), cuda.to_device(out32), a, b)
        cuda.synchronize()


def run(out_path: str, ncu: str) -> None:
    rows = []
    for case, m in zip(CASES, hw_probe.ncu_profile(ncu, str(pathlib.Path(__file__).resolve()), METRICS,
                                                   len(CASES))):
        rows.append(dict(name=name(case), kernel=case[0], blocks=case[1], metrics=m))
        print(f"{name(case):24s} {m['gpu__time_duration.sum'] / 1e3:7.2f} us, {m['sm__cycles_elapsed.max']:7.0f} "
              f"cycles, L2 write sectors {m['lts__t_sectors_srcunit_tex_op_write.sum']:8.0f} requests "
              f"{m.get('lts__t_requests_srcunit_tex_op_write.sum', 0):8.0f}, DRAM written "
              f"{m['dram__bytes_write.sum']:8.0f}, " + hw_probe.top_stalls(m), flush=True)
    hw_probe.write(out_path, rows=rows)


def simulated(rows: list, **kw) -> list:
    """smsim's rows for the H200's ``rows`` (``kw``: :func:`hw_probe.simulated`'s)."""
    import numpy as np

    from smsim import cuda

    def launch(r: dict) -> tuple:
        case = (r["kernel"], r["blocks"])
        return _kernel(case[0], cuda), case[1], BLOCK, _arrays(case, np)
    return hw_probe.simulated(rows, launch, complete=False, **kw)


def simulate(path: str) -> None:
    """smsim's time beside the H200's."""
    hw_probe.print_durations(path, simulated, width=24)


def main(argv=None) -> int:
    return hw_probe.ncu_main(__doc__, run, once, argv, simulate)


if __name__ == "__main__":
    sys.exit(main())

"""Stores down columns by element width: what a naive transpose of bytes costs beside one of words.

Run on the device machine, from the repository root (python3 with numba-cuda and ncu)::

    PYTHONPATH=. python3 benchmarks/column_store_hw.py --out $OUT/column_store_hw.json

and compare smsim with what it recorded (on any machine)::

    python benchmarks/column_store_hw.py --sim docs/hardware/column_store_hw.json

Why: ``classroom.transpose_u8`` (a 160x160 byte image transposed naively in 32x8 blocks, 100 blocks) takes the
H200 3.9 us where smsim predicts 2.9 (0.74), though the H200's warps stall no longer than smsim's; its full
size (4096x4096) is right (0.99). Each of its output sectors takes 32 one-byte stores, from 32 warps of four
blocks; a float32 transpose's sector takes 8, a float64's 4. Is it the element width, the writers a sector, or
how many of them come at once?

Each kernel ``kern(img, out)`` (``kernel_source``) is ``transpose_u8``'s shape, ``out[x, y] = img[y, x]`` over
a ``side`` x ``side`` image of ``dtype`` (``u8``, ``u16``, ``f32``, ``f64``) in 32x8 blocks; ``const`` kernels
store a constant (no load). Sides 160 (``transpose_u8``'s test size), 320 and 640: 100, 400 and 1600 blocks.
"""
from __future__ import annotations

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import hw_probe  # noqa: E402  (beside this file)

TYPES = {"u8": "np.uint8", "u16": "np.uint16", "f32": "np.float32", "f64": "np.float64"}
# (element type, side, loads: "load" stores the image's element, "const" a constant)
CASES = [(t, s, "load") for s in (160, 320, 640) for t in TYPES] + [(t, 320, "const") for t in TYPES]
METRICS = ("gpu__time_duration.sum", "sm__cycles_elapsed.max", "dram__bytes_read.sum", "dram__bytes_write.sum",
           "lts__t_sectors_srcunit_tex_op_write.sum", "lts__t_requests_srcunit_tex_op_write.sum",
           "lts__t_sectors_srcunit_tex_op_read.sum", "smsp__inst_executed.sum",
           "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum")


def name(case: tuple) -> str:
    dtype, side, src = case
    return f"{dtype}_{side}_{src}"


def kernel_source(case: tuple) -> str:
    """The Python source of the kernel ``kern(img, out)`` of a case."""
    dtype, _, src = case
    value = "img[y, x]" if src == "load" else f"{TYPES[dtype]}(7)"
    return f"""
def kern(img, out):
    x, y = cuda.grid(2)
    if y < img.shape[0] and x < img.shape[1]:
        out[x, y] = {value}
"""


def _kernel(case: tuple, module=None) -> object:
    return hw_probe.jit_source(kernel_source(case), f"<column_store {name(case)}>", "kern", module)


def _arrays(case: tuple, np) -> tuple:
    dtype, side, _ = case
    kind = {"u8": np.uint8, "u16": np.uint16, "f32": np.float32, "f64": np.float64}[dtype]
    img = (np.arange(side * side) % 251).astype(kind).reshape(side, side)
    return img, np.zeros((side, side), kind)


def _grid(case: tuple) -> tuple:
    side = case[1]
    return (side + 31) // 32, (side + 7) // 8


def once() -> None:
    """Each case launched once (what ``ncu`` profiles)."""
    cuda, np = hw_probe.numba_cuda()
    for case in CASES:
        img, out = (cuda.to_device(a) for a in _arrays(case, np))
        _kernel(case)[_grid(case), (32, 8)](img, out)
        cuda.synchronize()


def run(out_path: str, ncu: str) -> None:
    rows = []
    for case, m in zip(CASES, hw_probe.ncu_profile(ncu, str(pathlib.Path(__file__).resolve()), METRICS,
                                                   len(CASES))):
        dtype, side, src = case
        rows.append(dict(name=name(case), dtype=dtype, side=side, src=src, metrics=m))
        print(f"{name(case):14s} {m['gpu__time_duration.sum'] / 1e3:7.2f} us, {m['sm__cycles_elapsed.max']:7.0f} "
              f"cycles, L2 write sectors {m['lts__t_sectors_srcunit_tex_op_write.sum']:8.0f} requests "
              f"{m.get('lts__t_requests_srcunit_tex_op_write.sum', 0):8.0f}, " + hw_probe.top_stalls(m), flush=True)
    hw_probe.write(out_path, rows=rows)


def simulated(rows: list, **kw) -> list:
    """smsim's rows for the H200's ``rows`` (``kw``: :func:`hw_probe.simulated`'s)."""
    import numpy as np

    from smsim import cuda

    def launch(r: dict) -> tuple:
        case = (r["dtype"], r["side"], r["src"])
        return _kernel(case, cuda), _grid(case), (32, 8), _arrays(case, np)
    return hw_probe.simulated(rows, launch, complete=False, **kw)


def simulate(path: str) -> None:
    """smsim's time beside the H200's."""
    hw_probe.print_durations(path, simulated)


def main(argv=None) -> int:
    return hw_probe.ncu_main(__doc__, run, once, argv, simulate)


if __name__ == "__main__":
    sys.exit(main())

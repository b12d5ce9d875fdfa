"""How long does an H200's L1 wait for a warp's next store into the same sectors before it sends a store to L2?

Run on the device machine, from the repository root (python3 with numba-cuda and ncu)::

    python3 benchmarks/store_window_hw.py --out $OUT/store_window_hw.json

and here, smsim beside what it recorded::

    python benchmarks/store_window_hw.py --sim docs/hardware/store_window_hw.json

Why: ``benchmarks/store_merge_hw.py`` found that a warp's back-to-back stores into the same few sectors reach
L2 as one write; ``coalescing.particles_aos4`` (a multiply-add waiting on a load between its two field
stores) merges 0.58 of its L1 store sectors, ``course.interleave2`` (a DRAM load between its two stores)
none. smsim merges only stores that follow one another with no instruction between them that waits on a
result. These kernels put a dependent chain of ``d`` fused multiply-adds (about 4 cycles each) between the two
stores of a warp that fill 8 sectors between them, to find the time past which the first store goes alone.

Each kernel ``k(out, n, v, a, b)``: thread ``i`` of warp ``g`` writes word ``i % 4`` and, ``d`` dependent
``x = x * a + b`` later, word ``i % 4 + 4`` of sector ``g * 8 + (i % 32) // 4`` (a store touches 8 sectors in
2 lines, half of each; the two fill them). ``d`` = 0 (one add), 2, 4, 8, 16, 32, 64, 128; ``full``: a thread
per 4 words' pair over 2 M sectors in 256-thread blocks (64 warps an SM); ``sparse``: one 256-thread block an
SM (8 warps), each warp looping over its share, where a warp's chain is not stretched by others' issue.

Launched once each under ``ncu --clock-control none``: duration, SM cycles, L1 store sectors, L2 write
sectors (merged = L2 / L1: 0.5 all merged, 1.0 none), the warps' stall reasons.
"""
from __future__ import annotations

import json
import pathlib
import sys
import tempfile

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import hw_probe  # noqa: E402  (beside this file)

THREADS = 256
SECTORS = 1 << 21               # sectors written, 64 MB
SPARSE_BLOCKS = 132             # one 256-thread block an SM
CHAINS = (0, 2, 4, 8, 16, 32, 64, 128)
CASES = [(d, layout) for layout in ("full", "sparse") for d in CHAINS]
METRICS = ("gpu__time_duration.sum", "sm__cycles_elapsed.max", "dram__bytes_read.sum", "dram__bytes_write.sum",
           "lts__t_sectors_srcunit_tex_op_write.sum", "lts__t_requests_srcunit_tex_op_write.sum",
           "smsp__inst_executed.sum", "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
           "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum")


def name(d: int, layout: str) -> str:
    return f"d{d}_{layout}"


def kernel_source(d: int, layout: str) -> str:
    """The Python source of the kernel ``kern(out, n, v, a, b)`` of a case (``n``: threads' worth of work,
    4 a sector)."""
    chain = "\n".join("        x = x * a + b" for _ in range(d)) or "        x = x + b"
    step = "cuda.gridsize(1)" if layout == "sparse" else "n"
    return f"""
def kern(out, n, v, a, b):
    i = cuda.grid(1)
    while i < n:
        s = (i // 32) * 8 + (i % 32) // 4
        out[s * 8 + i % 4] = v
        x = v
{chain}
        out[s * 8 + i % 4 + 4] = x
        i += {step}
"""


def launch_shape(layout: str) -> tuple:
    """``(blocks, threads)`` of a case."""
    n = SECTORS * 4
    return (SPARSE_BLOCKS if layout == "sparse" else n // THREADS), THREADS


def _kernel(case: tuple) -> object:
    return hw_probe.jit_source(kernel_source(*case), f"<store_window {name(*case)}>", "kern")


def once() -> None:
    """Each case launched once (what ``ncu`` profiles)."""
    cuda, np = hw_probe.numba_cuda()
    out = cuda.to_device(np.zeros(SECTORS * 8, np.float32))
    args = (np.float32(2.0), np.float32(1.0), np.float32(0.0))
    for case in CASES:
        blocks, threads = launch_shape(case[1])
        _kernel(case)[blocks, threads](out, SECTORS * 4, *args)
        cuda.synchronize()


def run(out_path: str, ncu: str) -> None:
    rows = []
    for case, m in zip(CASES, hw_probe.ncu_profile(ncu, str(pathlib.Path(__file__).resolve()), METRICS,
                                                   len(CASES))):
        d, layout = case
        blocks, threads = launch_shape(layout)
        rows.append(dict(name=name(*case), chain=d, layout=layout, blocks=blocks, threads=threads, metrics=m))
        hw_probe.print_stores(f"{name(*case):12s}", m)
    hw_probe.write(out_path, sectors=SECTORS, rows=rows)


def simulate(path: str) -> None:
    """smsim's merged fraction and time (h200, ``blocks="share"``) beside the H200's, per case."""
    import importlib.util

    import numpy as np

    import smsim
    data = json.loads(pathlib.Path(path).read_text())
    with tempfile.TemporaryDirectory() as tmp:
        for r in data["rows"]:
            d, layout = r["chain"], r["layout"]
            src = pathlib.Path(tmp) / f"sw_{name(d, layout)}.py"
            src.write_text("import numpy as np\nfrom smsim import cuda\n\n@cuda.jit" + kernel_source(d, layout))
            spec = importlib.util.spec_from_file_location(src.stem, src)
            mod = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(mod)
            blocks, threads = launch_shape(layout)
            out = np.zeros(SECTORS * 8, np.float32)
            res = smsim.launch(mod.kern, (blocks,), (threads,), (out, SECTORS * 4, np.float32(2.0), np.float32(1.0),
                                                                  np.float32(0.0)), config="h200", complete=False)
            m, hw = res.metrics, r["metrics"]
            l2, l1 = "lts__t_sectors_srcunit_tex_op_write.sum", "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"
            merged, hw_merged = m[l2] / max(1, m[l1]), hw[l2] / hw[l1]
            print(f"{name(d, layout):12s} merged H200 {hw_merged:5.3f} smsim {merged:5.3f}; time H200 "
                  f"{hw['gpu__time_duration.sum'] / 1e3:7.1f} us smsim {m['gpu__time_duration.sum'] / 1e3:7.1f} us",
                  flush=True)


def main(argv=None) -> int:
    return hw_probe.ncu_main(__doc__, run, once, argv, simulate)


if __name__ == "__main__":
    sys.exit(main())

"""What the hardware probes share (``sched_order_hw``, ``sm_spread_hw``, ``atomics_hw``, ``dram_segments_hw``):
numba-cuda with its numpy workaround, special-register intrinsics, a kernel that clears L2 by reading, CUDA
event timing of long launches, the command line that writes a probe's JSON, and for the probes ncu profiles
(``store_paths_hw``, ``loop_trip_hw``) the stall reasons they record with each launch; and, on any machine,
smsim's rows beside a probe's recorded ones (:func:`simulated`).

Life of a probe run: ``main(__doc__, run)`` parses ``--out``, calls ``run(out)``, which launches its kernels
(made with :func:`numba_cuda` and :func:`special`), times them with :func:`event_ns` where a kernel is long
enough for events (milliseconds: numba's ~25 us of host-side launch work falls inside such a timing) and
writes its rows with :func:`write`, which adds the GPU's name.
"""
from __future__ import annotations

import argparse
import functools
import json
import pathlib
import subprocess
import sys
from typing import Any, Callable, Sequence


@functools.lru_cache(maxsize=None)
def numba_cuda() -> tuple:
    """``(numba.cuda, numpy)``, with numba-cuda 0.30.4's overload of ``np.row_stack`` (which numpy 2.5
    removed) given something to bind to."""
    import numpy as np
    if not hasattr(np, "row_stack"):
        np.row_stack = np.vstack
    from numba import cuda
    return cuda, np


def jit_source(source: str, label: str, name: str = "k", module: Any = None) -> Any:
    """The numba kernel ``name`` that the Python ``source`` defines (with ``cuda`` and ``np`` in scope),
    compiled under ``label`` (what tracebacks and numba name it by); with ``module`` (``smsim.cuda``) in
    ``cuda``'s place, the function itself, as smsim launches it (the same source on both sides)."""
    import numpy as np
    cuda = module if module is not None else numba_cuda()[0]
    scope: dict = {"cuda": cuda, "np": np}
    exec(compile(source, label, "exec"), scope)
    return scope[name] if module is not None else cuda.jit(scope[name])


def special(reg: str, bits: int) -> Any:
    """A numba intrinsic reading the special register ``reg`` (``clock64``, ``smid``, ``globaltimer``...) as a
    volatile ``mov``, so it is never hoisted or merged."""
    numba_cuda()
    from llvmlite import ir
    from numba import types
    from numba.cuda.extending import intrinsic
    ptx, constraint, ty = (f"mov.u64 $0, %{reg};", "=l", types.int64) if bits == 64 else \
        (f"mov.u32 $0, %{reg};", "=r", types.int32)

    def read(typingctx):
        def codegen(context, builder, sig, args):
            fn = ir.FunctionType(ir.IntType(bits), [])
            return builder.call(ir.InlineAsm(fn, ptx, constraint, side_effect=True), [])
        return ty(), codegen
    return intrinsic(read)


@functools.lru_cache(maxsize=None)
def clear_kernel() -> Any:
    """A kernel ``clear(buf, out)`` that reads all of ``buf`` (grid-stride), so that what L2 held before is
    gone; ``out`` is written only if the sum is -1 (never, for a buffer of ones)."""
    cuda, np = numba_cuda()

    @cuda.jit
    def clear(buf, out):
        acc = np.float32(0.0)
        for i in range(cuda.grid(1), buf.shape[0], cuda.gridsize(1)):
            acc += buf[i]
        if acc == np.float32(-1.0):
            out[0] = acc

    return clear


def event_ns(launch: Callable, args: tuple, rounds: int, before: tuple | None = None) -> list:
    """The GPU time in ns, by CUDA events, of ``launch(*args)`` (a kernel with its grid: ``k[blocks,
    threads]``), ``rounds`` times after one warm-up launch (dropped), each after ``before`` (a launch and its
    arguments, not timed) if given."""
    cuda, _ = numba_cuda()
    times = []
    for r in range(rounds + 1):
        if before is not None:
            before[0](*before[1])
        start, stop = cuda.event(), cuda.event()
        start.record()
        launch(*args)
        stop.record()
        stop.synchronize()
        if r:
            times.append(cuda.event_elapsed_time(start, stop) * 1e6)
    return times


def write(out_path: str, **data: Any) -> None:
    """Write ``data`` and the GPU's name to ``out_path`` as JSON."""
    cuda, _ = numba_cuda()
    dev = cuda.get_current_device()
    gpu = dev.name.decode() if isinstance(dev.name, bytes) else str(dev.name)
    pathlib.Path(out_path).write_text(json.dumps(dict(gpu=gpu, **data), indent=1))


def main(doc: str, run: Callable[[str], None], argv=None) -> int:
    """A probe's command line: ``--out FILE``, then ``run(FILE)``."""
    ap = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    ap.add_argument("--out", required=True)
    run(ap.parse_args(argv).out)
    return 0


def ncu_main(doc: str, run: Callable[[str, str], None], once: Callable[[], None], argv=None,
             simulate: Callable[[str], None] | None = None) -> int:
    """The command line of a probe that ``ncu`` profiles in a child run of itself: ``--out FILE`` and
    ``--ncu`` (the ncu to use; '' for none, where the probe times by events alone), then ``run(FILE,
    ncu)``; ``--once``, the child ncu runs: ``once()``, which launches each case once; ``--sim FILE`` (where
    the probe gives ``simulate``): ``simulate(FILE)``, smsim beside what the probe recorded, on any machine."""
    ap = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    ap.add_argument("--out", required=simulate is None)
    ap.add_argument("--ncu", default="ncu", help="ncu to profile the cases with ('' for none, where the probe allows)")
    ap.add_argument("--once", action="store_true", help="launch each case once (the child ncu profiles)")
    if simulate is not None:
        ap.add_argument("--sim", metavar="FILE", help="simulate the cases FILE (this probe's JSON) recorded")
    args = ap.parse_args(argv)
    if simulate is not None and args.sim:
        simulate(args.sim)
    elif args.once:
        once()
    elif args.out:
        run(args.out, args.ncu)
    else:
        ap.error("--out or --sim is required")
    return 0


def launch_cases(kernels: dict, cases: list, arrays: Callable[[Any, Any], tuple]) -> None:
    """A probe's ``--once``: each of ``cases`` (``(kernel name, grid, block, scalar args)``, in order) launched
    once, as numba's kernel of ``kernels[name]`` (an ``smsim.cuda`` function, ``workloads.numba_bridge.to_numba``
    converts it: the source smsim simulates) with the device arrays ``arrays(numba.cuda, numpy)`` makes (once,
    for every case) before its scalars."""
    cuda, np = numba_cuda()
    from workloads.numba_bridge import to_numba
    numba_kernels = {k: to_numba(f) for k, f in kernels.items()}
    device = arrays(cuda, np)
    for name, grid, block, args in cases:
        numba_kernels[name][grid, block](*device, *args)
        cuda.synchronize()


def profile_cases(out_path: str, ncu: str, script: str, metrics: Sequence[str], cases: list,
                  line: Callable[[str, int, tuple, dict], str]) -> None:
    """A probe's run of :func:`launch_cases`'s ``cases`` under ncu (:func:`ncu_profile` of ``script``): a row
    each (kernel, grid, block, args and its ``metrics``), printed as ``line(name, grid, args, metrics)`` and its
    top stalls, written to ``out_path``."""
    rows = []
    for (name, grid, block, args), m in zip(cases, ncu_profile(ncu, script, metrics, len(cases))):
        rows.append(dict(kernel=name, grid=grid, block=block, args=list(args), metrics=m))
        print(line(name, grid, args, m) + top_stalls(m), flush=True)
    write(out_path, rows=rows)


def ncu_rows(ncu: str, script: str, metrics: Sequence[str], cases: int) -> list:
    """Run the probe ``script`` with ``--once`` (each of its ``cases`` cases launched once) under ``ncu
    --clock-control none``: ``metrics`` of each launch, in launch order, as numbers."""
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
    import ncu_workloads as nw
    cmd = [ncu, "--clock-control", "none", "--metrics", ",".join(metrics), "--csv", "--page", "raw",
           "--print-units", "base", sys.executable, script, "--once", "--out", "-"]
    p = subprocess.run(cmd, capture_output=True, text=True)
    rows = nw._parse_csv(p.stdout)
    if p.returncode != 0 or len(rows) != cases:
        raise RuntimeError(f"ncu gave {len(rows)} rows for {cases} cases (exit {p.returncode}): "
                           f"{p.stderr[-2000:]} {p.stdout[-2000:]}")
    return [{k: nw._number(r[k]) for k in metrics if k in r} for r in rows]


#: the warp stall reasons a probe records (``smsp__average_warps_issue_stalled_<reason>_per_issue_active``)
#: what a probe of the shared-memory pipe reads: time, instructions, the data stage's wavefronts and the stalls
#: that wait on it
SHARED_PIPE_METRICS = ("gpu__time_duration.sum", "sm__cycles_elapsed.max", "smsp__inst_executed.sum",
                       "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
                       "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
                       "smsp__average_warp_latency_issue_stalled_mio_throttle.ratio",
                       "smsp__average_warp_latency_issue_stalled_short_scoreboard.ratio",
                       "smsp__average_warp_latency_issue_stalled_barrier.ratio")
STALLS = ("drain", "lg_throttle", "long_scoreboard", "short_scoreboard", "mio_throttle", "wait", "selected",
          "not_selected", "membar", "no_instruction", "imc_miss", "barrier", "math_pipe_throttle", "dispatch_stall")


def stall_metric(reason: str) -> str:
    """The ncu metric of a stall reason: warp-cycles per issued instruction."""
    return f"smsp__average_warps_issue_stalled_{reason}_per_issue_active.ratio"


def ncu_profile(ncu: str, script: str, metrics: Sequence[str], cases: int) -> list:
    """:func:`ncu_rows` of ``metrics`` and every :data:`STALLS` reason."""
    return ncu_rows(ncu, script, list(metrics) + [stall_metric(s) for s in STALLS], cases)


def top_stalls(m: dict, n: int = 3) -> str:
    """The ``n`` largest stall reasons of a row of ncu metrics, as ``"reason value ..."``."""
    st = {s: m.get(stall_metric(s), 0.0) for s in STALLS}
    return " ".join(f"{k} {v:.1f}" for k, v in sorted(st.items(), key=lambda kv: -kv[1])[:n])


def print_stores(label: str, m: dict) -> None:
    """A store probe's row of ncu metrics ``m`` as it is collected: its time, L1 store sectors, L2 write sectors
    (their share of the L1 ones: 1.0 where no store merged) and top stalls, after ``label``."""
    l1 = m.get("l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", 0)
    l2 = m.get("lts__t_sectors_srcunit_tex_op_write.sum", 0)
    print(f"{label} {m['gpu__time_duration.sum'] / 1e3:8.1f} us, L1 store sectors {l1:10.0f}, "
          f"L2 write sectors {l2:10.0f} ({l2 / l1 if l1 else 0:5.3f}), " + top_stalls(m), flush=True)


def per_step(rows: list, steps: Sequence[int], fields: Sequence[str] = ("kernel", "threads"),
             key: str = "sm__cycles_elapsed.max") -> dict:
    """``key``'s growth per step (per loop iteration) of each case of a probe that ran every case at the two
    ``steps`` (its rows' ``n``): the rows' ``fields`` (a tuple) -> (``key`` at the larger less at the smaller)
    over their difference, the kernel's start and end cancelling out; cases not run at both are left out."""
    lo, hi = steps
    by = {(tuple(r[f] for f in fields), r["n"]): r["metrics"][key] for r in rows}
    cases = dict.fromkeys(case for case, _ in by)
    return {c: (by[(c, hi)] - by[(c, lo)]) / (hi - lo) for c in cases if (c, lo) in by and (c, hi) in by}


def simulated(rows: list, launch: Callable[[dict], tuple], **kw: Any) -> list:
    """smsim's rows for a probe's recorded ``rows`` (h200, numba's front end, the SASS stream, as the H200 ran
    numba's code): ``launch(row)`` gives each row's kernel, grid, block and arguments (``kw``: more of
    :func:`smsim.launch`'s, ``overrides`` among them, on top of the SASS stream); each row as it was, its metrics
    smsim's (with its stall reasons under ncu's names, :func:`stall_metric`)."""
    import smsim
    overrides = {"scheduler.stream": "sass", **kw.pop("overrides", {})}
    out = []
    for row in rows:
        kernel, grid, block, args = launch(row)
        res = smsim.launch(kernel, grid, block, args, config="h200", compiler="numba", overrides=overrides, **kw)
        stalls = {stall_metric(k): v for k, v in res.stalls_per_instruction().items()}
        out.append({**row, "metrics": {**res.metrics, **stalls}})
    return out


def simulated_source(rows: list, kernel: Callable[[Any], Any], args_of: Callable[[Any, dict], tuple],
                     **kw: Any) -> list:
    """:func:`simulated` for a probe whose one kernel is ``kernel(module)`` (:func:`jit_source` of its source
    for ``smsim.cuda``) and whose row's launch is ``args_of(numpy, row)``: ``(grid, block, args)``; the blocks
    not timed are not run."""
    import numpy as np

    from smsim import cuda

    def launch(r: dict) -> tuple:
        grid, threads, args = args_of(np, r)
        return kernel(cuda), grid, threads, args
    return simulated(rows, launch, complete=False, **kw)


def print_durations(path: str, simulate_rows: Callable[[list], list], width: int = 14,
                    label: Callable[[dict], str] = lambda r: r["name"]) -> None:
    """Each row recorded in the probe's JSON at ``path`` beside smsim's (``simulate_rows``, a probe's
    ``simulated``): :func:`print_beside`."""
    rows = json.loads(pathlib.Path(path).read_text())["rows"]
    print_beside(rows, simulate_rows(rows), width, label)


def print_beside(rows: list, sim: list, width: int = 14, label: Callable[[dict], str] = lambda r: r["name"]) -> None:
    """The H200's duration of each of a probe's ``rows``, smsim's (``sim``, its rows in the same order) and their
    ratio, a row a line under ``label(row)``."""
    for hw, s in zip(rows, sim):
        h, m = hw["metrics"]["gpu__time_duration.sum"], s["metrics"]["gpu__time_duration.sum"]
        print(f"{label(hw):{width}s} H200 {h / 1e3:7.1f} us smsim {m / 1e3:7.1f} us ({m / h:4.2f})", flush=True)

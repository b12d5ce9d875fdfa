"""Hardware counters of every workload case, read by Nsight Compute on a real GPU (H100/H200).

Run on the device machine, from the repository root (python3 with numba-cuda, CuPy and ``ncu`` on the PATH)::

    PYTHONPATH=. python3 benchmarks/ncu_workloads.py --out $OUT/ncu_workloads.json --raw-dir $OUT
    PYTHONPATH=. python3 benchmarks/ncu_workloads.py --cases vector.vec_add,cuda_c.reduce_shfl --out ...

Two modes in one file. The outer mode (the default) picks the cases (every family module that exists under
``workloads/``; missing ones are recorded), and for each family starts the worker under
``ncu --clock-control none --metrics ... -o REPORT``, then reads the report back with
``ncu --import REPORT --csv --page raw`` and writes ``{case_id: {metric: value, ...}}`` plus the command,
GPU, driver and tool versions as JSON. The worker (``--worker``) runs its cases in order in one process:
for each, ``case.setup("test", seed)``, the kernel (``workloads.numba_bridge.to_numba`` for Python kernels;
a :class:`workloads.PtxKernel`'s ``.ptx`` loaded by the driver through ``cupy.RawModule``), the arguments
copied to the device, exactly one launch, the outputs copied back and compared with the numpy reference
(``ok``). It appends one JSON line per case to a manifest (``start`` before the launch, the result after),
so the outer mode knows which profiled launch belongs to which case and where a worker died.

Mapping launches to cases: numba compiles on the host and the copies are memcpys, so the only kernels the
worker launches are the cases' own, one each (a launch the driver refuses runs nothing and is not profiled).
The outer mode walks the report's rows in launch order and gives each launched case the next row whose
kernel name contains the case's kernel name and whose grid, block and dynamic shared memory equal the
case's; rows that match nothing are listed under ``unmatched_rows``. A case whose kernel
fails to compile under numba-cuda, fails its launch, or gives wrong results is recorded with the error
text and the run goes on; after an error that leaves the CUDA context unusable (an illegal address), the
worker exits and the outer mode starts a new one on the remaining cases. A worker that runs past
``--timeout`` is killed and the case it was running is recorded as timed out.
"""
from __future__ import annotations

import argparse
import csv
import dataclasses
import io
import json
import os
import pathlib
import shlex
import signal
import subprocess
import sys
import time
import traceback

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
METRICS = (
    "smsp__inst_executed.sum",
    "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
    "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
    "launch__registers_per_thread",
    "launch__grid_size",
    "launch__block_size",
    "launch__shared_mem_per_block_dynamic",
    "launch__shared_mem_per_block_static",
)
if not hasattr(np, "row_stack"):
    # numba-cuda 0.30.4 registers an overload for np.row_stack, which numpy 2.5 removed (an alias of vstack);
    # without it every numba-cuda compile fails with AttributeError on the device image (numpy 2.5.2)
    np.row_stack = np.vstack
RESTART_EXIT = 3        # the worker's exit code after an error that leaves the CUDA context unusable
BIG_SHARED = 48 * 1024  # dynamic shared memory above this needs the kernel's opt-in attribute

_PTX_DTYPES = {"u8": np.uint8, "s8": np.int8, "b8": np.uint8, "u16": np.uint16, "s16": np.int16, "b16": np.uint16,
               "u32": np.uint32, "s32": np.int32, "b32": np.uint32, "u64": np.uint64, "s64": np.int64,
               "b64": np.uint64, "f32": np.float32, "f64": np.float64}


# ================================================================================================ worker
def _dims(d) -> list:
    d = [d] if isinstance(d, (int, np.integer)) else [int(x) for x in d]
    return d + [1] * (3 - len(d))


def _kernel_match_name(case) -> str:
    import workloads
    if isinstance(case.kernel, workloads.PtxKernel):
        return case.kernel.load().name
    return getattr(case.kernel, "__name__", "")


def _ptx_scalar(value, ptx_type):
    dt = np.dtype(_PTX_DTYPES[ptx_type])
    if dt.kind in "ui":
        bits = dt.itemsize * 8
        return np.array(int(value) & ((1 << bits) - 1), dtype=f"u{dt.itemsize}").view(dt)[()]
    return dt.type(value)


def _launch_ptx(case, s, mark):
    """Load the case's PTX through the driver (CuPy) and launch it once; returns the output arrays."""
    import cupy as cp
    k = case.kernel.load()
    fn = cp.RawModule(path=case.kernel.path).get_function(k.name)
    if s.shared_bytes > BIG_SHARED:
        fn.max_dynamic_shared_size_bytes = int(s.shared_bytes)
    dev, args = {}, []
    for i, (p, a) in enumerate(zip(k.params, s.args)):
        if isinstance(a, np.ndarray):
            dev[i] = cp.asarray(np.ascontiguousarray(a))
            args.append(dev[i])
        else:
            args.append(_ptx_scalar(a, p.type))
    if len(k.params) != len(s.args):
        raise TypeError(f"{k.name} takes {len(k.params)} parameters, the setup gives {len(s.args)}")
    mark("launch")
    fn(tuple(_dims(s.grid)), tuple(_dims(s.block)), tuple(args), shared_mem=int(s.shared_bytes))
    mark("sync")
    cp.cuda.Device().synchronize()
    return {i: cp.asnumpy(dev[i]) for i in s.expected}


def _launch_numba(case, s, mark):
    """Convert the Python kernel with numba-cuda and launch it once; returns the output arrays."""
    from numba import cuda

    from workloads.numba_bridge import to_numba
    nk = to_numba(case.kernel)
    dev = {i: cuda.to_device(np.ascontiguousarray(a)) for i, a in enumerate(s.args) if isinstance(a, np.ndarray)}
    args = [dev.get(i, a) for i, a in enumerate(s.args)]
    cfg = (tuple(s.grid), tuple(s.block), 0, int(s.shared_bytes))
    kern = None
    if hasattr(nk, "typeof_pyval"):     # (numba's CPU simulator has neither)
        kern = nk.compile(tuple(nk.typeof_pyval(a) for a in args))     # compile errors surface here
    if kern is not None and s.shared_bytes > BIG_SHARED:
        _allow_dynamic_shared(kern, int(s.shared_bytes))
    mark("launch")
    nk[cfg](*args)
    mark("sync")
    cuda.synchronize()
    return {i: dev[i].copy_to_host() for i in s.expected}


def _allow_dynamic_shared(kern, nbytes: int) -> None:
    """Opt a numba-cuda kernel in to more than 48 KB of dynamic shared memory (the driver refuses the launch
    otherwise), as numba-cuda itself sets the shared-memory carveout."""
    from numba.cuda.cudadrv.driver import binding, driver
    cufunc = kern._codelibrary.get_cufunc()
    attr = binding.CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
    if hasattr(driver, "cuKernelSetAttribute"):
        driver.cuKernelSetAttribute(attr, nbytes, cufunc.handle, cufunc.device.id)
    else:
        driver.cuFuncSetAttribute(cufunc.handle, attr, nbytes)


def _context_alive(uses_cupy: bool) -> bool:
    try:
        from numba import cuda
        cuda.synchronize()
        cuda.to_device(np.zeros(4, np.float32)).copy_to_host()
        if uses_cupy:
            import cupy as cp
            cp.cuda.Device().synchronize()
            cp.asnumpy(cp.empty(4, cp.float32))
        return True
    except Exception:   # noqa: BLE001 - any failure means the context is gone
        return False


def worker(case_ids, manifest: str, size: str, seed: int) -> int:
    import workloads
    from numba import cuda
    cuda.current_context()      # create the context before the first case (not a kernel launch)
    uses_cupy = False
    with open(manifest, "a") as man:
        def emit(rec):
            man.write(json.dumps(rec) + "\n")
            man.flush()
        for cid in case_ids:
            rec = {"id": cid, "stage": "done", "launched": False, "ok": False, "error": None}
            emit({"id": cid, "stage": "start"})
            t0 = time.time()
            stage = "setup"

            def mark(st):
                nonlocal stage
                stage = st
            try:
                case = workloads.get(cid)
                rec["kernel"] = _kernel_match_name(case)
                rec["kind"] = "ptx" if isinstance(case.kernel, workloads.PtxKernel) else "python"
                s = case.setup(size, seed)
                rec.update(grid=_dims(s.grid), block=_dims(s.block), shared_bytes=int(s.shared_bytes),
                           size=case.n(size), seed=seed)
                stage = "compile"
                if rec["kind"] == "ptx":
                    uses_cupy = True
                    outs = _launch_ptx(case, s, mark)
                else:
                    outs = _launch_numba(case, s, mark)
                rec["launched"] = True
                stage = "check"
                got = list(s.args)
                for i, a in outs.items():
                    got[i] = a
                workloads.check(dataclasses.replace(s, args=tuple(got)), cid)
                rec["ok"] = True
            except Exception as e:   # noqa: BLE001 - recorded, the run goes on
                rec["error"] = f"{stage}: {type(e).__name__}: {e}"
                rec["traceback"] = traceback.format_exc()[-4000:]
                if stage == "sync":
                    rec["launched"] = True      # the launch was accepted; the kernel failed while running
            rec["seconds"] = round(time.time() - t0, 3)
            emit(rec)
            print(f"[worker] {cid}: {'ok' if rec['ok'] else rec['error'][:200]}", file=sys.stderr, flush=True)
            if rec["error"] and not _context_alive(uses_cupy):
                print("[worker] CUDA context unusable; restarting on the remaining cases", file=sys.stderr)
                return RESTART_EXIT
    return 0


# ================================================================================================ outer
def _available_families():
    import workloads
    present, missing = [], {}
    for fam in workloads.FAMILIES:
        if not (ROOT / "workloads" / f"{fam}.py").exists():
            missing[fam] = "no module"
            continue
        try:
            workloads.family(fam)
            present.append(fam)
        except Exception as e:   # noqa: BLE001
            missing[fam] = f"{type(e).__name__}: {e}"
    return present, missing


def _read_report(ncu: str, report: str):
    """Rows of ``ncu --import REPORT --csv --page raw``: list of dicts (header names -> raw strings)."""
    p = subprocess.run([ncu, "--import", report, "--csv", "--page", "raw", "--print-units", "base"],
                       capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"ncu --import failed ({p.returncode}): {p.stderr[-2000:]}")
    return _parse_csv(p.stdout), p.stdout


def _parse_csv(text: str):
    lines = [ln for ln in text.splitlines() if ln.startswith('"')]
    rows = list(csv.reader(io.StringIO("\n".join(lines))))
    if not rows:
        return []
    header = rows[0]
    out = []
    for r in rows[1:]:
        if len(r) != len(header):
            continue
        d = dict(zip(header, r))
        if not d.get("ID", "").strip().isdigit():      # the units row
            continue
        out.append(d)
    out.sort(key=lambda d: int(d["ID"]))
    return out


def _number(text: str):
    t = text.replace(",", "").strip()
    try:
        v = float(t)
    except ValueError:
        return text
    return int(v) if v.is_integer() else v


def _dims_of(text: str):
    """``"(256, 1, 1)"`` -> [256, 1, 1]."""
    try:
        return [int(x) for x in text.strip("() ").split(",")]
    except ValueError:
        return None


def _match(entries, rows):
    """Give each launched manifest entry the next row with its kernel name and launch shape."""
    used, j = set(), 0
    for e in entries:
        if not e.get("launched"):
            continue
        for k in range(j, len(rows)):
            r = rows[k]
            name = r.get("Kernel Name", "")
            if e.get("kernel") and e["kernel"] not in name:
                continue
            g, b = _dims_of(r.get("Grid Size", "")), _dims_of(r.get("Block Size", ""))
            if (g is not None and g != e.get("grid")) or (b is not None and b != e.get("block")):
                continue
            dyn = _number(r.get("launch__shared_mem_per_block_dynamic", ""))
            if isinstance(dyn, int) and e.get("shared_bytes") is not None and dyn != e["shared_bytes"]:
                continue
            e["row"] = r
            used.add(k)
            j = k + 1
            break
    return [r for k, r in enumerate(rows) if k not in used]


def provenance(ncu: str, commands: list, missing: list, unmatched: list, t0: float) -> dict:
    """Where a measurement file came from: this command line and the ncu commands it ran, the GPU, driver, ncu
    and package versions, the families that could not be measured, the run's seconds since ``t0`` and the ncu
    rows that matched no case."""
    return {"command": shlex.join([sys.executable, *sys.argv]), "ncu_commands": commands, **_versions(ncu),
            "families_missing": missing, "seconds": round(time.time() - t0, 1), "unmatched_rows": unmatched}


def _versions(ncu: str) -> dict:
    v = {}
    try:
        q = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"],
                           capture_output=True, text=True).stdout.strip().splitlines()[0]
        v["gpu"], v["driver"] = [x.strip() for x in q.split(",")]
    except Exception as e:   # noqa: BLE001
        v["gpu"] = v["driver"] = f"unknown ({e})"
    try:
        v["ncu"] = subprocess.run([ncu, "--version"], capture_output=True, text=True).stdout.strip().splitlines()[-1]
    except Exception as e:   # noqa: BLE001
        v["ncu"] = f"unknown ({e})"
    from importlib import metadata
    for pkg in ("numba-cuda", "numba", "cupy-cuda13x", "cupy-cuda12x", "numpy"):
        try:
            v[pkg] = metadata.version(pkg)
        except metadata.PackageNotFoundError:
            v[pkg] = "not installed"
    try:
        from numba import cuda
        dev = cuda.get_current_device()
        v["device"] = dev.name.decode() if isinstance(dev.name, bytes) else str(dev.name)
        v["compute_capability"] = list(dev.compute_capability)
        v["cuda_driver_api"] = ".".join(map(str, cuda.cudadrv.driver.driver.get_version()))
    except Exception as e:   # noqa: BLE001
        v["device"] = f"unknown ({e})"
    return v


def _run_chunk(args, ids, tag, log):
    """Profile ``ids`` in one worker (restarting after fatal errors); returns (entries, unmatched, commands)."""
    entries, unmatched, commands = {}, [], []
    remaining = list(ids)
    attempt = 0
    while remaining:
        rep = os.path.join(args.work, f"{tag}_{attempt}")
        man = rep + ".jsonl"
        for f in (man, rep + ".ncu-rep"):
            if os.path.exists(f):
                os.remove(f)
        sections = [a for s in getattr(args, "sections", ()) for a in ("--section", s)]
        cmd = [args.ncu, "--clock-control", "none", *sections, "--metrics", ",".join(getattr(args, "metrics", METRICS)),
               "-f", "-o", rep,
               sys.executable, os.path.abspath(__file__), "--worker", "--manifest", man,
               "--size", args.size, "--seed", str(args.seed), *remaining]
        commands.append(shlex.join(cmd))
        log.write(f"\n$ {shlex.join(cmd)}\n")
        log.flush()
        timed_out = False
        env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""),
               "NUMBA_CUDA_LOW_OCCUPANCY_WARNINGS": "0"}
        proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, start_new_session=True, env=env)
        try:
            rc = proc.wait(timeout=args.timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
            os.killpg(proc.pid, signal.SIGKILL)
            rc = proc.wait()
        recs, started = [], None
        if os.path.exists(man):
            for ln in open(man):
                r = json.loads(ln)
                if r["stage"] == "start":
                    started = r["id"]
                else:
                    recs.append(r)
                    started = None
        rows = []
        if os.path.exists(rep + ".ncu-rep"):
            try:
                rows, text = _read_report(args.ncu, rep + ".ncu-rep")
                args.csv_out.write(text)
            except RuntimeError as e:
                log.write(f"{e}\n")
        unmatched += _match(recs, rows)
        for r in recs:
            entries[r["id"]] = r
        done = {r["id"] for r in recs}
        if started is not None:     # the worker died or hung inside this case
            why = "timed out" if timed_out else f"worker exited with {rc} during this case"
            entries[started] = {"id": started, "launched": False, "ok": False, "error": why}
            done.add(started)
        remaining = [c for c in remaining if c not in done]
        if remaining and not done:      # no progress (ncu or python failed to start): give up on the chunk
            for c in remaining:
                entries[c] = {"id": c, "launched": False, "ok": False,
                              "error": f"worker made no progress (exit {rc}); see the log in --raw-dir"}
            remaining = []
        attempt += 1
    return entries, unmatched, commands


def select(cases: str | None, families: str | None, exclude=()) -> tuple:
    """``(chunks, missing)``: the case ids to measure (``cases``, comma-separated; else every case of
    ``families``, or of every present family but ``exclude``) grouped by family, one worker chunk each; and
    the families that did not load."""
    import workloads
    present, missing = _available_families()
    if cases:
        ids = cases.split(",")
    else:
        fams = families.split(",") if families else [f for f in present if f not in exclude]
        ids = [c.id for f in fams if f in present for c in workloads.family(f)]
    chunks: dict = {}
    for cid in ids:
        chunks.setdefault(cid.partition(".")[0], []).append(cid)
    return chunks, missing


def add_run_options(ap, out: str, work: str, timeout: float) -> None:
    """The options every measuring script shares: seed, ncu, timeout, output and working folders."""
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--ncu", default="ncu")
    ap.add_argument("--timeout", type=float, default=timeout, help="seconds per worker process")
    ap.add_argument("--out", default=out)
    ap.add_argument("--raw-dir", help="where the log and the raw CSV go (default: --work)")
    ap.add_argument("--work", default=work)


def work_dirs(args) -> pathlib.Path:
    """Make the working folder and the raw-output folder; the latter."""
    os.makedirs(args.work, exist_ok=True)
    raw_dir = pathlib.Path(args.raw_dir or args.work)
    raw_dir.mkdir(parents=True, exist_ok=True)
    return raw_dir


def outer(args) -> int:
    chunks, missing = select(args.cases, args.families, ("cuda_c",) if args.skip_cuda_c else ())
    raw_dir = work_dirs(args)
    t0 = time.time()
    results, unmatched, commands = {}, [], []
    with open(raw_dir / "ncu_workloads.log", "w") as log, open(raw_dir / "ncu_workloads_raw.csv", "w") as csv_out:
        args.csv_out = csv_out
        for fam, fam_ids in chunks.items():
            print(f"[ncu_workloads] {fam}: {len(fam_ids)} cases", flush=True)
            entries, um, cmds = _run_chunk(args, fam_ids, fam, log)
            unmatched += [{"kernel": r.get("Kernel Name"), "grid": r.get("Grid Size"), "block": r.get("Block Size")}
                          for r in um]
            commands += cmds
            for cid in fam_ids:
                results[cid] = _result(entries.get(cid, {"id": cid, "ok": False, "error": "no record"}))
                r = results[cid]
                inst = r.get("smsp__inst_executed.sum")
                print(f"  {cid:40s} {'ok  ' if r['ok'] else 'FAIL'} inst={inst} "
                      f"{'' if r['ok'] else (r.get('error') or '')[:150]}", flush=True)
    out = {
        "description": "Nsight Compute counters of each workload case at its test size, one launch per case "
                       "(benchmarks/ncu_workloads.py)",
        "metrics": list(METRICS),
        "size": args.size, "seed": args.seed,
        "families_measured": sorted(chunks),
        **provenance(args.ncu, commands, missing, unmatched, t0),
        "cases": results,
    }
    pathlib.Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(out, f, indent=1)
    n_ok = sum(r["ok"] for r in results.values())
    n_m = sum("smsp__inst_executed.sum" in r for r in results.values())
    print(f"[ncu_workloads] {n_ok}/{len(results)} cases correct, {n_m} with counters; wrote {args.out}")
    return 0


def _result(e: dict) -> dict:
    r = {k: e.get(k) for k in ("ok", "error", "kind", "kernel", "grid", "block", "shared_bytes", "size", "seed",
                               "launched", "seconds")}
    if e.get("traceback") and not e.get("ok"):
        r["traceback"] = e["traceback"]
    row = e.get("row")
    if row:
        r["hw_kernel_name"] = row.get("Kernel Name")
        for m in METRICS:
            if m in row:
                r[m] = _number(row[m])
    elif e.get("launched"):
        r["counters_error"] = "no matching ncu row"
    return r


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--manifest", help=argparse.SUPPRESS)
    ap.add_argument("ids", nargs="*", help=argparse.SUPPRESS)
    ap.add_argument("--cases", help="comma-separated case ids (default: every case of every present family)")
    ap.add_argument("--families", help="comma-separated families (default: all present)")
    ap.add_argument("--skip-cuda-c", action="store_true",
                    help="leave out the cuda_c family (its PTX is loaded through cupy.RawModule)")
    ap.add_argument("--size", default="test")
    add_run_options(ap, str(ROOT / "docs" / "hardware" / "ncu_workloads.json"), "/tmp/ncu_workloads", 300)
    args = ap.parse_args(argv)
    if args.worker:
        size = args.size if not args.size.isdigit() else int(args.size)
        return worker(args.ids, args.manifest, size, args.seed)
    return outer(args)


if __name__ == "__main__":
    sys.exit(main())

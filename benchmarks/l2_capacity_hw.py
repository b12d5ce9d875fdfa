"""How much of the H200's L2 a streaming kernel can use, and what a write stream leaves dirty in it.

Run on the device machine, from the repository root (python3 with numba-cuda and ``ncu``)::

    python3 benchmarks/l2_capacity_hw.py --out $OUT/l2_capacity_hw.json
    python3 benchmarks/l2_capacity_hw.py --only residue residue_passes writeback_clean --out $OUT/more.json

Five experiments, each one ``ncu --clock-control none`` run over a worker process (this file,
``worker EXPERIMENT``) that launches numba kernels of one element per thread (256-thread blocks) over
float32 arrays of ``F`` MB:

* ``reread`` (``--cache-control none``, application replay so that every pass sees the same history):
  for each ``F``, a 512 MB read of another array (``flush_read``) empties L2 of the array, then
  ``read_sum`` reads it twice; and, after another flush, ``write_only`` writes it and ``read_written``
  reads it back. Every launch is profiled. The second read's ``dram__bytes_read`` and L2 read hit rate
  say how much of an array the whole GPU streamed (or wrote) is still in L2: the capacity a stream can use.
* ``writeback`` (``--cache-control all``: L2 flushed and invalidated before each kernel): for each ``F``,
  ``write_only`` (out = v), ``copy`` (out = a), ``add3`` (out = a + b), ``scale_inplace`` (a = 2a).
  ``dram__bytes_write`` during the kernel against the bytes written says how much the L2 leaves dirty
  at the kernel's end.
* ``residue`` (``--cache-control all``): for each ``F``, ``read_sum`` reads a fresh array twice; then a
  64 MB read with 1 GiB more allocated and written beforehand, and one after a ``write_only``. What a
  read-only kernel writes to DRAM is what L2 held dirty when it started.
* ``residue_passes``: ``residue`` again with ``validate_hw.py``'s sections (WarpStateStats, SchedulerStats),
  so ncu replays each kernel in more passes.
* ``writeback_clean`` (``--cache-control none``, application replay): ``write_only``, ``copy``, ``add3``,
  ``scale_inplace`` and ``read_sum`` over ``F`` MB, each after a 512 MB read that leaves L2 clean, and
  that read's writes after each (what the kernel left dirty): ``writeback`` without ncu's cache control.

The output holds the commands, the GPU and driver, and per experiment the rows: kernel, ``F`` (MB),
which launch, and every metric ncu reported. ``docs/hardware/l2_capacity_hw.md`` tells how the committed
data was collected and what it shows.
"""
from __future__ import annotations

import argparse
import csv
import io
import json
import pathlib
import subprocess
import sys
import time

MB = 1 << 20
REREAD_MB = (8, 16, 20, 24, 28, 32, 36, 40, 44, 48, 52, 56, 60, 64, 80, 128)
WRITEBACK_MB = (4, 8, 12, 16, 24, 32, 40, 48, 64, 96, 128, 256)
FLUSH_MB = 512
BLOCK = 256
METRICS = ("gpu__time_duration.sum", "sm__cycles_elapsed.max", "dram__bytes_read.sum", "dram__bytes_write.sum",
           "lts__t_sector_op_read_hit_rate.pct", "lts__t_sector_op_write_hit_rate.pct",
           "lts__t_sectors_srcunit_tex_op_read.sum", "lts__t_sectors_srcunit_tex_op_write.sum")
RESIDUE_MB = (8, 16, 24, 32, 40, 48, 56, 64, 96, 128)
CLEAN_MB = (32, 64, 128)
EXPERIMENTS = ("reread", "writeback", "residue", "residue_passes", "writeback_clean")
SECTIONS = ("WarpStateStats", "SchedulerStats")    # residue_passes: validate_hw.py's sections (more passes)
cuda = None                 # numba.cuda, imported by the worker


def _kernels():
    """The kernels, compiled on first launch (``cuda`` a module global, as numba's simulator wants it)."""
    global cuda
    import numpy as np
    if not hasattr(np, "row_stack"):     # numba-cuda 0.30.4 overloads np.row_stack, which numpy 2.5 removed
        np.row_stack = np.vstack
    from numba import cuda

    @cuda.jit
    def flush_read(a, out):
        i = cuda.grid(1)
        if i < a.shape[0] and a[i] == -1.0:
            out[0] = a[i]

    @cuda.jit
    def read_sum(a, out):
        i = cuda.grid(1)
        if i < a.shape[0] and a[i] == -1.0:
            out[0] = a[i]

    @cuda.jit
    def read_written(a, out):
        i = cuda.grid(1)
        if i < a.shape[0] and a[i] == -1.0:
            out[0] = a[i]

    @cuda.jit
    def write_only(out, v):
        i = cuda.grid(1)
        if i < out.shape[0]:
            out[i] = v

    @cuda.jit
    def copy(a, out):
        i = cuda.grid(1)
        if i < out.shape[0]:
            out[i] = a[i]

    @cuda.jit
    def add3(a, b, out):
        i = cuda.grid(1)
        if i < out.shape[0]:
            out[i] = a[i] + b[i]

    @cuda.jit
    def scale_inplace(a):
        i = cuda.grid(1)
        if i < a.shape[0]:
            a[i] = 2.0 * a[i]

    return dict(flush_read=flush_read, read_sum=read_sum, read_written=read_written, write_only=write_only,
                copy=copy, add3=add3, scale_inplace=scale_inplace)


def worker(experiment: str, manifest: str) -> int:
    """Launch the experiment's kernels in order; write the profiled launches, in order, to ``manifest``."""
    import numpy as np
    k = _kernels()
    rows = []

    def run(name, n, *args):
        k[name][(n + BLOCK - 1) // BLOCK, BLOCK](*args)
        cuda.synchronize()
        rows.append({"kernel": name, "mb": n * 4 / MB})

    out = cuda.to_device(np.zeros(1, np.float32))
    flush = cuda.to_device(np.ones(FLUSH_MB * MB // 4, np.float32))
    if experiment.startswith("residue"):
        return _residue(run, out, manifest, rows)
    sizes = {"reread": REREAD_MB, "writeback_clean": CLEAN_MB}.get(experiment, WRITEBACK_MB)
    for mb in sizes:
        n = mb * MB // 4
        a = cuda.to_device(np.ones(n, np.float32))
        if experiment == "reread":
            run("flush_read", flush.shape[0], flush, out)
            run("read_sum", n, a, out)
            run("read_sum", n, a, out)
            run("flush_read", flush.shape[0], flush, out)
            run("write_only", n, a, np.float32(1.0))
            run("read_written", n, a, out)
        elif experiment == "writeback_clean":
            b = cuda.to_device(np.ones(n, np.float32))
            c = cuda.device_array(n, np.float32)
            for name, args in (("write_only", (c, np.float32(3.0))), ("copy", (a, c)), ("add3", (a, b, c)),
                               ("scale_inplace", (a,)), ("read_sum", (a, out))):
                run("flush_read", flush.shape[0], flush, out)
                run(name, n, *args)
            del b, c
        else:
            b = cuda.to_device(np.ones(n, np.float32))
            c = cuda.device_array(n, np.float32)
            run("write_only", n, c, np.float32(3.0))
            run("copy", n, a, c)
            run("add3", n, a, b, c)
            run("scale_inplace", n, a)
            assert float(c.copy_to_host()[-1]) == 2.0 and float(a.copy_to_host()[0]) == 2.0
            del b, c
        del a
    pathlib.Path(manifest).write_text(json.dumps(rows))
    return 0


def _residue(run, out, manifest: str, rows: list) -> int:
    """What a read-only kernel writes to DRAM under ``--cache-control all``: for each ``F``, a fresh array read
    twice; then a 64 MB read with 1 GiB more allocated and written (``to_device``) beforehand."""
    import numpy as np
    for mb in RESIDUE_MB:
        n = mb * MB // 4
        a = cuda.to_device(np.ones(n, np.float32))
        run("read_sum", n, a, out)
        run("read_sum", n, a, out)
        del a
    n = 64 * MB // 4
    big = cuda.to_device(np.ones(1024 * MB // 4, np.float32))
    a = cuda.to_device(np.ones(n, np.float32))
    run("read_sum", n, a, out)
    run("write_only", n, a, np.float32(1.0))
    run("read_sum", n, a, out)
    del big, a
    pathlib.Path(manifest).write_text(json.dumps(rows))
    return 0


def _raw(ncu: str, report: str) -> list:
    p = subprocess.run([ncu, "--import", report, "--csv", "--page", "raw", "--print-units", "base"],
                       capture_output=True, text=True, check=True)
    rows = list(csv.reader(io.StringIO(p.stdout)))
    head, body = rows[0], rows[2:]                 # the second row holds units
    return [dict(zip(head, r)) for r in body]


def _number(text: str):
    try:
        return float(text.replace(",", ""))
    except ValueError:
        return None


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--ncu", default="ncu")
    ap.add_argument("--work", default="/tmp/l2cap")
    ap.add_argument("--only", choices=EXPERIMENTS, nargs="+")
    args = ap.parse_args(argv)
    work = pathlib.Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    t0 = time.time()
    result: dict = {"description": __doc__, "metrics": list(METRICS), "commands": [], "experiments": {}}
    for exp in EXPERIMENTS:
        if args.only and exp not in args.only:
            continue
        report, manifest = work / f"{exp}.ncu-rep", work / f"{exp}.json"
        cache = ["--cache-control", "none", "--replay-mode", "application"] \
            if exp in ("reread", "writeback_clean") else \
                ["--cache-control", "all"]
        if exp == "residue_passes":
            cache += [a for sec in SECTIONS for a in ("--section", sec)]
        cmd = [args.ncu, "--clock-control", "none", *cache, "--metrics", ",".join(METRICS),
               "-f", "-o", str(report), sys.executable, __file__, "worker", exp, str(manifest)]
        result["commands"].append(" ".join(cmd))
        p = subprocess.run(cmd, capture_output=True, text=True)
        if p.returncode:
            print(p.stdout[-3000:], p.stderr[-3000:])
            return 1
        launches = json.loads(manifest.read_text())
        raw = _raw(args.ncu, str(report))
        if len(raw) != len(launches):
            print(f"{exp}: {len(raw)} ncu rows for {len(launches)} launches")
            return 1
        rows = []
        for launch, r in zip(launches, raw):
            if launch["kernel"] not in r.get("Kernel Name", ""):
                print(f"{exp}: ncu row {r.get('Kernel Name')} for launch {launch['kernel']}")
                return 1
            rows.append({**launch, "metrics": {m: _number(r[m]) for m in METRICS if m in r}})
        result["experiments"][exp] = rows
        for row in rows:
            m = row["metrics"]
            hit = m["lts__t_sector_op_read_hit_rate.pct"]
            print(f"{exp:9s} {row['kernel']:13s} {row['mb']:6.0f} MB  read {m['dram__bytes_read.sum'] / 1e6:8.1f}"
                  f"  write {m['dram__bytes_write.sum'] / 1e6:8.1f}  hit {hit:5.1f}%"
                  f"  {m['gpu__time_duration.sum'] / 1e3:8.1f} us")
    try:
        result["gpu"] = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"],
                                       capture_output=True, text=True).stdout.strip()
        result["ncu"] = subprocess.run([args.ncu, "--version"], capture_output=True, text=True).stdout.strip()
    except OSError as e:                      # the data stands without them; say why they are missing
        result["gpu"] = result["ncu"] = f"not read: {e}"
    result["seconds"] = round(time.time() - t0, 1)
    pathlib.Path(args.out).write_text(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "worker":
        sys.exit(worker(sys.argv[2], sys.argv[3]))
    sys.exit(main())

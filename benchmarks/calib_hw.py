"""Run the calibration kernels (workloads/ptx/calib.ptx) on a real GPU and set what they measure next to
the H200 numbers in h200_microbench.json.

Run on the device machine, from the repository root (python3 with CuPy; nvcc for the probes)::

    PYTHONPATH=. python3 benchmarks/calib_hw.py --hw PATH/h200_microbench.json --out $OUT/calib_hw.json

What it does, in order: every ``workloads.calib`` case at its test size on the GPU, checked against the
numpy reference; the SM clock (clock64 cycles of ``ffma_dep_clk`` over CUDA-event time); then each JSON
figure, measured two ways on the checked-in PTX (loaded by the driver through ``cupy.RawModule``):

* ``clk``: the ``NAME_clk`` twin's clock64 cycles around the timed loop, as the original measurements did;
* ``ev``: CUDA-event time of the plain kernel at N and 2N iterations, (t(2N) - t(N)) * clock / N: the
  difference the timing model will take, with start-up cancelled (warmed chases: the same warm-up, 8192
  steps, in both launches).

Bandwidth rows (occupancy sweep, copies) are medians of CUDA-event times. Cold DRAM rows read a 256 MB
buffer before every launch to flush L2. ``probe_*`` entries are alternative loop bodies (the end of
calib.cu, compiled here with ``nvcc -DCALIB_PROBES``) that tell which instruction mix the original kernels
had; ``carveout`` rows time the L1 chases with unused dynamic shared memory taking part of L1.

``--rehw RESULT.json`` (no GPU) re-attaches the hardware figures and the Nsight Compute rows of ``--hw`` to
a result file, e.g. to refresh docs/hardware/calib_hw.json.
"""
from __future__ import annotations

import argparse
import functools
import json
import pathlib
import subprocess
import sys
import tempfile

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from workloads import calib, check  # noqa: E402

BANK_PROBES = ("probe_bank_off", "probe_bank_mul", "probe_bank_f2i", "probe_bank_generic", "probe_bank_nounroll")


class Gpu:
    """The calib.ptx module, the probe module, and launch/timing helpers."""

    def __init__(self, cp, probes: bool, keep: pathlib.Path | None = None):
        self.cp = cp
        self.mod = cp.RawModule(path=str(ROOT / "workloads" / calib.PTX))
        self.probe_mod = self._build_probes(keep) if probes else None
        self.flush_buf = None

    def _build_probes(self, keep):
        """calib.cu with its probe kernels (-DCALIB_PROBES), compiled here by nvcc as build.sh does."""
        tmp = keep or pathlib.Path(tempfile.mkdtemp())
        tmp.mkdir(parents=True, exist_ok=True)
        ptx = tmp / "probes.ptx"
        subprocess.run(["nvcc", "-ptx", "-arch=sm_90", "-lineinfo", "-O3", "-DCALIB_PROBES",
                        str(ROOT / "workloads" / "cuda" / "calib.cu"), "-o", str(ptx)], check=True)
        return self.cp.RawModule(path=str(ptx))

    def fn(self, name, shared_bytes=0):
        f = (self.probe_mod if name.startswith("probe_") else self.mod).get_function(name)
        if shared_bytes > 48 * 1024:
            f.max_dynamic_shared_size_bytes = int(shared_bytes)
        return f

    def dev(self, args):
        return tuple(self.cp.asarray(a) if isinstance(a, np.ndarray) else a for a in args)

    def run(self, name, grid, block, dargs, shared_bytes=0):
        self.fn(name, shared_bytes)(tuple(grid), tuple(block), tuple(dargs), shared_mem=int(shared_bytes))

    def flush_l2(self):
        if self.flush_buf is None:
            self.flush_buf = self.cp.ones(64 << 20, self.cp.float32)
        float(self.flush_buf.sum())

    def time_ms(self, name, grid, block, dargs, shared_bytes=0, reps=7, flush=False):
        """Median CUDA-event time of one launch (after one warm-up launch)."""
        cp = self.cp
        self.run(name, grid, block, dargs, shared_bytes)
        times = []
        for _ in range(reps):
            if flush:
                self.flush_l2()
            e0, e1 = cp.cuda.Event(), cp.cuda.Event()
            e0.record()
            self.run(name, grid, block, dargs, shared_bytes)
            e1.record()
            e1.synchronize()
            times.append(cp.cuda.get_elapsed_time(e0, e1))
        return float(np.median(times))

    def clocked(self, launch: calib.Launch, flush=False, reps=3, name=None):
        """Median clock64 cycles of a clocked launch (its last argument receives them)."""
        dargs = self.dev(launch.args)
        vals = []
        for _ in range(reps):
            if flush:
                self.flush_l2()
            self.run(name or launch.kernel.name, launch.grid, launch.block, dargs, launch.shared_bytes)
            self.cp.cuda.Device().synchronize()
            vals.append(int(dargs[-1].get()[0]))
        return float(np.median(vals))

    def ev_diff_cycles(self, make, n, mhz, flush=False):
        """(t(2N) - t(N)) * clock / N for ``make(iters) -> Launch`` of the plain kernel."""
        ts = []
        for iters in (n, 2 * n):
            la = make(iters)
            dargs = self.dev(la.args)
            ts.append(self.time_ms(la.kernel.name, la.grid, la.block, dargs, la.shared_bytes, flush=flush))
        return (ts[1] - ts[0]) * mhz * 1e3 / n


# ------------------------------------------------------------------------------------------------ sections
def functional(gpu):
    """Every calib case at its test size, on the GPU, against the numpy reference."""
    bad = {}
    for case in calib.CASES:
        s = case.setup("test", 0)
        dargs = gpu.dev(s.args)
        gpu.run(case.kernel.name, s.grid, s.block, dargs, s.shared_bytes)
        host = [d.get() if hasattr(d, "get") else d for d in dargs]
        s.args = tuple(host)
        try:
            check(s, case.id)
        except AssertionError as e:
            bad[case.id] = str(e)
    return {"cases": len(calib.CASES), "failed": bad}


def clock_mhz(gpu):
    la = calib.ffma_setup(1 << 19, clocked=True, load=False)
    dargs = gpu.dev(la.args)
    ms = gpu.time_ms(la.kernel.name, la.grid, la.block, dargs, reps=3)
    cycles = int(dargs[-1].get()[0])
    return cycles / (ms * 1e3)


def latency_rows(gpu, mhz):
    rows = []
    per = calib.FFMA_PER_TRIP
    row = _row("calib.ffma_dep", gpu.clocked(calib.ffma_setup(4096, clocked=True, load=False)) / (per * 4096),
               gpu.ev_diff_cycles(lambda n: calib.ffma_setup(n, load=False), 1 << 15, mhz) / per)
    if gpu.probe_mod is not None:
        la = calib.ffma_setup(4096, clocked=True, load=False)
        row["probe_ffma_unrolled"] = gpu.clocked(la, name="probe_ffma_unrolled_clk") / (8 * 4096)
        row["probe_ffma8"] = gpu.clocked(la, name="probe_ffma8_clk") / (8 * 4096)
    rows.append(row)
    sc = calib.shared_chase_setup(4096, clocked=True, load=False)
    rows.append(_row("calib.shared_chase", gpu.clocked(sc) / 4096,
                     gpu.ev_diff_cycles(lambda n: calib.shared_chase_setup(n, load=False), 1 << 16, mhz)))
    for name, _key, nbytes, _t, stride, cg, cold in calib.CHASES:
        la = calib.chase_setup(nbytes, stride, 4096, cg, warm=0 if cold else None, clocked=True, load=False)
        clk = gpu.clocked(la, flush=cold) / 4096
        make = functools.partial(_chase_make, nbytes, stride, cg, 0 if cold else 8192)
        row = _row(f"calib.{name}", clk, gpu.ev_diff_cycles(make, 4096, mhz, flush=cold), warm=int(la.args[3]))
        if gpu.probe_mod is not None and name in CHASE_PROBED:
            row.update(chase_probes(gpu, la, cg, cold))
        rows.append(row)
    return rows


CHASE_PROBED = ("chase_l1", "chase_l2_cg", "chase_l2_cg_32m", "chase_dram_cg_1g")
CARVEOUT_KB = (0, 100, 150, 180, 200, 220)


def chase_probes(gpu, la, cg, cold):
    """The chase's probe variants on the same chain, clocked cycles per step."""
    sfx = "_cg_clk" if cg else "_clk"
    got = {"probe_chase_nounroll": gpu.clocked(la, flush=cold, name="probe_chase_nounroll" + sfx) / 4096}
    if not cg:
        got["probe_chase_generic"] = gpu.clocked(la, flush=cold, name="probe_chase_generic_clk") / 4096
    a32 = la.args[0]
    n64 = len(a32) // 2
    stride64 = (int(a32[0]) // 2) or 1
    a64 = (np.arange(n64, dtype=np.uint64) + np.uint64(stride64)) % np.uint64(n64)
    la64 = la._replace(args=(a64, np.zeros(2, np.uint64)) + la.args[2:])
    got["probe_chase_u64"] = gpu.clocked(la64, flush=cold, name="probe_chase_u64" + sfx) / 4096
    return got


def carveout_rows(gpu):
    """Cycles per chase step of the 8 KB and 64 KB L1 chases when dynamic shared memory (unused) takes
    part of the SM's 256 KB of L1 + shared: the L1 capacity the 64 KB row of the JSON implies."""
    rows = []
    for nbytes in (8 << 10, 64 << 10):
        la = calib.chase_setup(nbytes, 32, 4096, clocked=True, load=False)
        for kb in CARVEOUT_KB:
            rows.append({"bytes": nbytes, "dynamic_shared_kb": kb,
                         "cycles_per_step": gpu.clocked(la._replace(shared_bytes=kb << 10)) / 4096})
            print(f"carveout: chase {nbytes >> 10:3d} KB, {kb:3d} KB dynamic shared: "
                  f"{rows[-1]['cycles_per_step']:.1f}", flush=True)
    return rows


def _chase_make(nbytes, stride, cg, warm, iters):
    return calib.chase_setup(nbytes, stride, iters, cg, warm=warm, load=False)


def _bank_make(warps, stride, iters):
    return calib.bank_setup(warps, stride, iters, load=False)


def bank_rows(gpu, mhz, probes):
    rows = []
    for w in (1, 32):
        for s in calib.BANK_STRIDES + ("f2", "f4"):
            cid = f"calib.smem_bank_{s}_w{w}" if isinstance(s, str) else f"calib.smem_bank_s{s}_w{w}"
            clk = gpu.clocked(calib.bank_setup(w, s, 4096, clocked=True, load=False)) / 4096
            ev = gpu.ev_diff_cycles(functools.partial(_bank_make, w, s), 16384, mhz)
            row = _row(cid, clk, ev)
            if probes and isinstance(s, int):
                la = calib.bank_setup(w, s, 4096, clocked=True, load=False)
                for p in BANK_PROBES:
                    row[p] = gpu.clocked(la, name=p + "_clk") / 4096
            rows.append(row)
    return rows


def stream_rows(gpu):
    cp = gpu.cp
    n4 = (1 << 30) // 16
    a = cp.ones(4 * n4, cp.float32)
    rows = []
    for ilp in (1, 4):
        for bps, smem in calib.OCCUPANCY_SHARED_BYTES.items():
            geo = calib.stream_setup(4 * bps, ilp, 1 << 16, load=False)   # geometry; data below
            out = cp.zeros(geo.grid[0] * calib.STREAM_BLOCK, cp.float32)
            name = geo.kernel.name
            ms = gpu.time_ms(name, geo.grid, geo.block, (a, out, np.uint64(n4)), smem, reps=10)
            row = _row(f"calib.stream_ilp{ilp}_w{4 * bps}", None, (1 << 30) / (ms * 1e6), ms=ms)
            row["blocks_per_sm_occupancy"] = _occupancy(cp, gpu.fn(name, smem), smem)
            rows.append(row)
    return rows


def _occupancy(cp, f, smem):
    try:
        return int(cp.cuda.driver.occupancyMaxActiveBlocksPerMultiprocessor(f.ptr, calib.STREAM_BLOCK, smem))
    except Exception as e:       # noqa: BLE001 - recorded, not fatal
        return f"n/a ({type(e).__name__})"


def single_sm_rows(gpu, mhz):
    rows = []
    iters = calib.SINGLE_SM_ITERS
    arrays = {r: gpu.cp.ones(calib.SINGLE_SM_REGION[r] // 4, gpu.cp.float32) for r in ("dram", "l2")}
    for w in (1, 2, 4, 8, 16, 32):
        for region in ("dram", "l2"):
            steps = {"contiguous": None}
            if region == "dram":
                steps["spread"] = calib.SINGLE_SM_REGION["dram"] // 16 // iters
            row = None
            for label, step in steps.items():
                la = calib.single_sm_setup(w, 1 << 16, iters, step4=step, clocked=True, load=False)
                n4 = calib.SINGLE_SM_REGION[region] // 16
                st = la.args[1].shape[0] if step is None else step
                clk_arr = gpu.cp.zeros(1, gpu.cp.int64)
                dargs = (arrays[region], gpu.cp.zeros(32 * w, gpu.cp.float32), np.uint32(n4), np.uint32(st),
                         np.int32(iters), clk_arr)
                cyc = _median_clk(gpu, la, dargs, flush=region == "dram")
                bpc = 512 * w * iters / cyc
                if row is None:
                    row = _row(f"calib.single_sm_w{w}_{region}", bpc, None, cycles=cyc)
                    for probe in ("probe_ssm_warpseq", "probe_ssm_seqsum") if gpu.probe_mod is not None else ():
                        c = _median_clk(gpu, la._replace(kernel=calib.PtxKernel("", probe + "_clk")), dargs,
                                        flush=region == "dram")
                        row[probe] = 512 * w * iters / c
                else:
                    row[f"{label}_bytes_per_cycle"], row[f"{label}_cycles"] = bpc, cyc
            rows.append(row)
    return rows


def _median_clk(gpu, la, dargs, flush, reps=3):
    vals = []
    for _ in range(reps):
        if flush:
            gpu.flush_l2()
        gpu.run(la.kernel.name, la.grid, la.block, dargs)
        vals.append(int(dargs[-1].get()[0]))
    return float(np.median(vals))


def copy_rows(gpu):
    cp = gpu.cp
    n = calib.N_COPY_FULL
    inp = cp.ones(n * 32, cp.float32)
    out = cp.zeros(n, cp.float32)
    rows = []
    for kind, p, name, _m in calib._COPIES:
        geo = calib.copy_setup(kind, 1 << 8, p, load=False)
        width = {"f2": 2, "f4": 4}.get(kind, 1)
        grid = (-(-(n // width) // calib.COPY_BLOCK),)
        args = (out, inp, np.int32(n // width)) + ((np.int32(p),) if kind in ("stride", "offset") else ())
        ms = gpu.time_ms(geo.kernel.name, grid, geo.block, args, reps=10)
        rows.append(_row(f"calib.{name}", None, 8 * n / (ms * 1e6), ms=ms))
    return rows


# ------------------------------------------------------------------------------------------------ output
def _row(cid, clk, ev, **extra):
    return {"id": cid, "clk": clk, "ev": ev, **extra}


def attach_hw(rows, hw):
    for r in rows:
        ref = calib.HW[r["id"]]
        r["hw_section"], r["hw_match"], r["hw_field"] = ref.section, ref.match, ref.field
        if hw is not None:
            r["hw"] = ref.entry(hw)[ref.field]


def attach_ncu(result, hw):
    """The Nsight Compute rows of the cases that have one (``calib.NCU``), under ``ncu_reference``."""
    ref = {}
    for cid, prefix in calib.NCU.items():
        found = [r for r in hw["ncu_counters"] if r["case"].startswith(prefix)]
        if len(found) != 1:
            raise KeyError(f"{cid}: {len(found)} Nsight Compute rows start with {prefix!r}")
        ref[cid] = found[0]
    result["ncu_reference"] = ref


def rehw(path, hw, out):
    """Re-attach the hardware figures and Nsight Compute rows to an existing result file (no GPU)."""
    result = json.loads(pathlib.Path(path).read_text())
    attach_hw(result["rows"], hw)
    attach_ncu(result, hw)
    pathlib.Path(out).write_text(json.dumps(result, indent=1) + "\n")


def fmt(v):
    return "-" if v is None else (f"{v:.2f}" if isinstance(v, float) else str(v))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--hw", default=str(ROOT.parent / "shared" / "hardware" / "h200_microbench.json"))
    ap.add_argument("--no-probes", action="store_true")
    ap.add_argument("--rehw", metavar="RESULT_JSON", help="only re-attach --hw to this result file (no GPU)")
    ap.add_argument("--sections", default="functional,latency,carveout,bank,stream,single_sm,copy")
    opts = ap.parse_args(argv)
    hwp = pathlib.Path(opts.hw)
    hw = json.loads(hwp.read_text()) if hwp.exists() else None
    if opts.rehw:
        return rehw(opts.rehw, hw, opts.out)
    import cupy as cp
    gpu = Gpu(cp, probes=not opts.no_probes, keep=pathlib.Path(opts.out).parent)
    smi = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version,clocks.sm,clocks.max.sm",
                          "--format=csv,noheader"], capture_output=True, text=True).stdout.strip()
    result = {"device": smi, "cupy": cp.__version__, "ptx": calib.PTX}
    sections = opts.sections.split(",")
    out = pathlib.Path(opts.out)
    if "functional" in sections:
        result["functional"] = functional(gpu)
        bad = result["functional"]["failed"]
        print(f"functional: {result['functional']['cases']} cases, {len(bad)} wrong", list(bad.items())[:3], flush=True)
    mhz = clock_mhz(gpu)
    result["clock_mhz"] = mhz
    print(f"clock: {mhz:.1f} MHz", flush=True)
    result["rows"] = []
    if "carveout" in sections:
        result["carveout"] = carveout_rows(gpu)
    for name, fn in (("latency", lambda: latency_rows(gpu, mhz)),
                     ("bank", lambda: bank_rows(gpu, mhz, not opts.no_probes)),
                     ("stream", lambda: stream_rows(gpu)), ("single_sm", lambda: single_sm_rows(gpu, mhz)),
                     ("copy", lambda: copy_rows(gpu))):
        if name in sections:
            new = fn()
            attach_hw(new, hw)
            result["rows"] += new
            out.write_text(json.dumps(result, indent=1))      # partial results survive a later failure
            for r in new:
                print(f"{r['id']:38s} hw {fmt(r.get('hw')):>8s} clk {fmt(r['clk']):>8s} ev {fmt(r['ev']):>8s} "
                      + " ".join(f"{k[6:] if k.startswith('probe_') else k}={fmt(v)}" for k, v in r.items()
                                 if k.startswith(("probe", "spread"))), flush=True)
    result["nvidia_smi_after"] = subprocess.run(["nvidia-smi", "--query-gpu=clocks.sm", "--format=csv,noheader"],
                                                capture_output=True, text=True).stdout.strip()
    if hw is not None:
        attach_ncu(result, hw)
    out.write_text(json.dumps(result, indent=1) + "\n")


if __name__ == "__main__":
    main()

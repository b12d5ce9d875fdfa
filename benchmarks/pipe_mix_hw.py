"""How fast an H200's sub-partition issues each kind of integer and float instruction, alone and mixed.

Run on the device machine, from the repository root (python3 with CuPy and ncu)::

    python3 benchmarks/pipe_mix_hw.py --out $OUT/pipe_mix_hw.json
    python benchmarks/pipe_mix_hw.py --sim docs/hardware/pipe_mix_hw.json     # smsim beside it, anywhere

Why: kernels whose time is their index arithmetic (``routine.int_divmod``: 64-bit division by constants,
``routine.bilinear2x``, ``ordinary.blur3x3``, the tiled transposes at the full size) ran 10-20% faster in
smsim than on the H200, which showed them ``math_pipe_throttle`` and ``dispatch_stall`` that smsim did not,
with ``IMAD`` (on smsim's FMA pipe, one a cycle) a third of their instructions. These probes measure the
issue rate of each kind on its own and in pairs, with 64 warps an SM and plenty of independent work.

Each kernel ``mix_<name>(out, iters)`` (:func:`ptx`, one PTX module, assembled by the driver) runs, per
thread, 8 chains of values through a loop of ``iters`` iterations whose body is 4 rounds of 8 operations,
one per chain, each reading its chain and the next (``r_k = op(r_k, r_{k+1})``): the kinds of :data:`OPS`
alone, or two alternating (:data:`MIXES`); or the same 32 operations on 1, 2, 4 or 8 chains, each reading
the result of the one that many before it (:data:`DEPENDENT`). Launched with 1056 blocks of 256 threads (8 an
SM, 64 warps) under ``ncu --clock-control none`` with the WarpStateStats, SchedulerStats, InstructionStats and
ComputeWorkloadAnalysis sections: SM cycles, instructions, issue activity, stall reasons and each pipe's
use. Cycles per warp-instruction per sub-partition = SM cycles x 4 / (instructions / 132).
"""
from __future__ import annotations

import json
import pathlib
import subprocess
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import hw_probe  # noqa: E402  (beside this file)

ROOT = pathlib.Path(__file__).resolve().parent.parent
BLOCKS, THREADS, ITERS = 1056, 256, 256
CHAINS, ROUNDS = 8, 4
#: kind -> (register class of its chains, the PTX of one operation: {d} the chain written, {a} the chain
#: read beside it; what ptxas makes of it on sm_90 is in the comment)
OPS = {
    "iadd": ("r", "add.u32 {d}, {d}, {a};"),                              # IADD3
    "lop3": ("r", "lop3.b32 {d}, {d}, {a}, 0x5bd1e995, 0x96;"),           # LOP3.LUT
    "shf": ("r", "shf.l.wrap.b32 {d}, {d}, {a}, 7;"),                     # SHF.L.W
    "imad": ("r", "mad.lo.u32 {d}, {a}, 0x9e3779b1, {d};"),               # IMAD
    "imad3": ("r", "mad.lo.u32 {d}, {a}, {d}, {a};"),                     # IMAD, three register sources
    "imad_hi": ("r", "mad.hi.u32 {d}, {a}, 0x9e3779b1, {d};"),            # IMAD.HI.U32
    "imad_wide": ("w", "mov.b64 {{%x0, %x1}}, {a}; mad.wide.u32 {d}, %x1, 0x9e3779b1, {d};"),   # IMAD.WIDE.U32
    "isetp_sel": ("r", "setp.lt.u32 %p9, {d}, {a}; selp.b32 {d}, {a}, {d}, %p9;"),   # ISETP + SEL
    "ffma": ("f", "fma.rn.f32 {d}, {d}, 0f3F7FF000, {a};"),               # FFMA
    "fmul": ("f", "mul.rn.f32 {d}, {d}, {a};"),                           # FMUL
    "dfma": ("d", "fma.rn.f64 {d}, {d}, 0d3FEFFE0000000000, {a};"),       # DFMA
    # 64-bit integer forms, as index arithmetic has them (second call)
    "add64": ("w", "add.u64 {d}, {d}, {a};"),                             # IADD3, IMAD.X
    "shr64": ("w", "shr.s64 {d}, {d}, 1; add.u64 {d}, {d}, {a};"),       # SHF.R.S64, SHF.R.S32.HI, IADD3, IMAD.X
    "lea64": ("w", "shl.b64 %wt, {a}, 2; add.u64 {d}, {d}, %wt;"),        # LEA, LEA.HI.X
    "sel64": ("w", "setp.lt.u64 %p9, {d}, {a}; selp.b64 {d}, {a}, {d}, %p9;"),   # 2 ISETP (.EX), 2 SEL
    "isetp": ("r", "setp.lt.u32 %p9, {d}, {a}; selp.b32 {d}, {a}, 7, %p9;"),     # ISETP, SEL
    # a 64-bit product both of whose halves the ALU reads at once (fourth call)
    "imadw": ("r", "mul.wide.u32 %wt, {a}, 0x9e3779b1; mov.b64 {{%x0, %x1}}, %wt; xor.b32 {d}, %x0, %x1;"),
}
#: two kinds alternating, operation by operation
MIXES = (("imad", "iadd"), ("ffma", "iadd"), ("imad_wide", "iadd"), ("ffma", "imad"), ("imad", "lop3"),
         ("imad_wide", "ffma"), ("add64", "imad"), ("isetp", "imad"))
#: dependent chains (third call): ``dep<n>_<kinds>``, the same operations on ``n`` chains a thread, each
#: operation reading the result of the one ``n`` before it (a pipe's result feeding the same or the other pipe)
DEPENDENT = ("dep1_lop3", "dep2_lop3", "dep4_lop3", "dep1_imad", "dep2_imad", "dep1_lop3__imad",
             "dep2_lop3__imad", "dep4_lop3__imad", "dep1_imad_hi__lop3", "dep2_imad_hi__lop3", "dep1_ffma",
             "dep1_ffma__lop3", "dep2_ffma__lop3",
             # fourth call: how far apart, which reader, .WIDE against .HI
             "dep4_imad_hi__lop3", "dep8_imad_hi__lop3", "dep2_imad_hi__imad", "dep8_imadw",
             "dep2_imad_hi__shf", "dep2_imad_hi__lop3__lop3__lop3")
METRICS = ("gpu__time_duration.sum", "sm__cycles_elapsed.max", "smsp__inst_executed.sum",
           "smsp__issue_active.avg.pct_of_peak_sustained_active")
SECTIONS = ("WarpStateStats", "SchedulerStats", "InstructionStats", "ComputeWorkloadAnalysis")


def names() -> list:
    """Every kernel's name, in launch order."""
    return list(OPS) + [f"{a}__{b}" for a, b in MIXES] + list(DEPENDENT)


def _kinds(name: str) -> list:
    return name.partition("dep")[2].partition("_")[2].split("__") if name.startswith("dep") else name.split("__")


def _chains(name: str) -> int:
    """How many chains the loop's operations write: ``CHAINS``, or ``n`` for a ``dep<n>_`` kernel (its other
    chains are read, never written: each operation depends on the one ``n`` before it)."""
    return int(name[3:].partition("_")[0]) if name.startswith("dep") else CHAINS


def _body(name: str) -> list:
    """The loop body's PTX lines: ``ROUNDS`` rounds of one operation per chain (``ROUNDS * CHAINS`` operations
    over ``_chains(name)`` chains)."""
    kinds, chains = _kinds(name), _chains(name)
    lines = []
    for n in range(ROUNDS * CHAINS):
        k = n % chains
        kind = kinds[n % len(kinds)]
        cls, text = OPS[kind]
        lines.append(text.format(d=f"%{cls}{k}", a=f"%{cls}{(k + 1) % CHAINS}"))
    return lines


def kernel_ptx(name: str) -> str:
    """One kernel of the module: chains set from the thread index, the loop, their sum stored."""
    inits, folds = [], []
    for k in range(CHAINS):
        inits += [f"add.u32 %r{k}, %r20, {k + 1};", f"cvt.u64.u32 %w{k}, %r{k};",
                  f"cvt.rn.f32.u32 %f{k}, %r{k};", f"cvt.rn.f64.u32 %d{k}, %r{k};"]
        folds += [f"add.u32 %r21, %r21, %r{k};", f"mov.b64 {{%x0, %x1}}, %w{k};", "add.u32 %r21, %r21, %x0;",
                  "add.u32 %r21, %r21, %x1;",
                  f"cvt.rzi.u32.f32 %r22, %f{k};", "add.u32 %r21, %r21, %r22;",
                  f"cvt.rzi.u32.f64 %r22, %d{k};", "add.u32 %r21, %r21, %r22;"]
    body = "\n    ".join(_body(name))
    init = "\n    ".join(inits)
    fold = "\n    ".join(folds)
    return f"""
.visible .entry mix_{name}(.param .u64 out, .param .u32 iters)
{{
    .reg .pred %p<10>;
    .reg .b32 %r<30>;
    .reg .b32 %x<2>;
    .reg .b64 %w<10>;
    .reg .b64 %rd<4>;
    .reg .b64 %wt;
    .reg .f32 %f<10>;
    .reg .f64 %d<10>;
    mov.u32 %r23, %tid.x;
    mov.u32 %r24, %ctaid.x;
    mov.u32 %r25, %ntid.x;
    mad.lo.u32 %r20, %r24, %r25, %r23;
    ld.param.u32 %r26, [iters];
    {init}
    mov.u32 %r27, 0;
LOOP:
    {body}
    add.u32 %r27, %r27, 1;
    setp.lt.u32 %p1, %r27, %r26;
    @%p1 bra LOOP;
    mov.u32 %r21, 0;
    {fold}
    ld.param.u64 %rd1, [out];
    cvta.to.global.u64 %rd1, %rd1;
    mul.wide.u32 %rd2, %r20, 4;
    add.u64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r21;
    ret;
}}
"""


def ptx() -> str:
    """The module: every kernel of :func:`names`."""
    return ".version 8.0\n.target sm_90\n.address_size 64\n" + "".join(kernel_ptx(n) for n in names())


def once() -> None:
    """Each kernel launched once (what ``ncu`` profiles)."""
    import cupy as cp
    path = pathlib.Path("/tmp/pipe_mix.ptx")
    path.write_text(ptx())
    mod = cp.RawModule(path=str(path))
    out = cp.zeros(BLOCKS * THREADS, cp.uint32)
    for n in names():
        mod.get_function(f"mix_{n}")((BLOCKS,), (THREADS,), (out, cp.uint32(ITERS)))
        cp.cuda.Device().synchronize()


def run(out_path: str, ncu: str) -> None:
    import ncu_workloads as nw
    cmd = [ncu, "--clock-control", "none", "--metrics", ",".join(METRICS)]
    for s in SECTIONS:
        cmd += ["--section", s]
    cmd += ["--csv", "--page", "raw", "--print-units", "base", sys.executable, str(pathlib.Path(__file__).resolve()),
            "--once", "--out", "-"]
    p = subprocess.run(cmd, capture_output=True, text=True)
    rows = nw._parse_csv(p.stdout)
    if p.returncode != 0 or len(rows) != len(names()):
        raise RuntimeError(f"ncu gave {len(rows)} rows for {len(names())} kernels (exit {p.returncode}): "
                           f"{p.stderr[-2000:]} {p.stdout[-2000:]}")
    out = []
    for n, r in zip(names(), rows):
        m = {k: nw._number(v) for k, v in r.items() if "__" in k and isinstance(nw._number(v), (int, float))}
        cpi = m["sm__cycles_elapsed.max"] * 4 / (m["smsp__inst_executed.sum"] / 132)
        out.append(dict(name=n, kinds=_kinds(n), cycles_per_inst=cpi, metrics=m))
        print(f"{n:20s} {cpi:6.3f} cycles per warp-instruction per sub-partition, issue "
              f"{m.get('smsp__issue_active.avg.pct_of_peak_sustained_active', 0):5.1f}%, "
              + hw_probe.top_stalls(m, 4), flush=True)
    hw_probe.write(out_path, blocks=BLOCKS, threads=THREADS, iters=ITERS, ptx=ptx(), rows=out)


def simulate(path: str) -> None:
    """smsim (h200, SASS stream, every block on one SM's share) beside each kernel the file recorded."""
    import numpy as np

    import isa
    import smsim
    data = json.load(open(path))
    mod = isa.parse(data["ptx"])
    for row in data["rows"]:
        k = mod[f"mix_{row['name']}"]
        out = np.zeros(BLOCKS * THREADS, np.uint32)
        r = smsim.launch(k, BLOCKS, THREADS, (out, data["iters"]), config="h200", blocks=8, complete=False)
        cpi = r.cycles * 4 / r.issued_instructions
        print(f"{row['name']:20s} H200 {row['cycles_per_inst']:6.3f}  smsim {cpi:6.3f}  "
              f"({cpi / row['cycles_per_inst']:5.2f}x)", flush=True)


def main(argv=None) -> int:
    return hw_probe.ncu_main(__doc__, run, once, argv, simulate)


if __name__ == "__main__":
    sys.exit(main())

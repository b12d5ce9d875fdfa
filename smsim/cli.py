"""The ``smsim`` command: a demo, run, sweep, occupancy, asm, compare, validate and list.

Life of a command: :func:`main` parses the arguments (every command has ``--help``), runs the command's
function, and turns the mistakes a user can make (an unknown workload, a bad ``--set`` key or value, a
kernel that does not compile, an out-of-bounds access in a kernel, a missing file) into one line on
standard error naming the problem and where, with exit code 2 and no traceback (``--debug`` shows it).
``smsim`` with no command runs the demo: the three transposes side by side. Commands that run kernels
go through :mod:`smsim.runner` (targets, cases, sweeps); reports come from :mod:`smsim.report`, files
from :mod:`smsim.export` and :mod:`smsim.plots`. Progress bars (``tqdm``) appear only on a terminal and
not with ``--quiet``; Ctrl-C stops a run with the partial report of what was simulated.
"""
from __future__ import annotations

import argparse
import os
import sys
from typing import Sequence

from . import runner

DEMO_SIZE = 2048


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="smsim", description="A cycle-approximate GPU SM simulator. With no command: "
                                "a demo (naive vs tiled vs padded transpose, side by side).")
    p.add_argument("--debug", action="store_true", help="show tracebacks for errors")
    p.add_argument("--quiet", action="store_true", help="no progress bars")
    p.add_argument("--config", default="h100", help="config preset or TOML path for the demo (default h100)")
    p.add_argument("--size", type=int, default=DEMO_SIZE, help=f"the demo's matrix size (default {DEMO_SIZE})")
    sub = p.add_subparsers(dest="cmd", metavar="COMMAND")

    def common(q: argparse.ArgumentParser, sweep: bool = False) -> None:
        q.add_argument("target", metavar="WORKLOAD|FILE.py|FILE.ptx",
                       help="a built-in workload (family or family.case, see `smsim list`), a Python file with "
                            "CASES, or a PTX file")
        q.add_argument("--case", help="only this case (by name)")
        q.add_argument("--kernel", help="only cases whose kernel name contains this")
        q.add_argument("--size", default="test", help="test (default), full or a number (the case's problem size)")
        q.add_argument("--config", default="h100", help="config preset (h100, h200, a100, v100, tiny) or TOML path")
        q.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                       help="override a config value, e.g. --set l1.size_bytes=65536 (repeatable)")
        q.add_argument("--blocks", default="share", help="blocks to time: share (default; one SM's share), all or N")
        q.add_argument("--seed", type=int, default=0, help="seed of the case's inputs")
        q.add_argument("--grid", type=int, help="PTX files: blocks in the grid (default: enough for --size threads)")
        q.add_argument("--block", type=int, default=256, help="PTX files: threads per block (default 256)")
        q.add_argument("--quiet", action="store_true", help="no progress bars")

    run = sub.add_parser("run", help="run one or all cases of a workload and print the report",
                         description="Run cases timed on one SM and print the report.")
    common(run)
    run.add_argument("--json", metavar="PATH", help="write everything in res.to_dict() as JSON")
    run.add_argument("--csv", metavar="PATH", help="write the metrics as CSV (name, value, unit)")
    run.add_argument("--plot", metavar="DIR", help="write plots (PNG and SVG) into DIR")
    run.add_argument("--trace", metavar="PATH", help="write the warp-state timeline as CSV")

    sw = sub.add_parser("sweep", help="run a grid of launches in parallel and plot a curve",
                        description="Run the cases over every combination of --vary axes, in worker processes.")
    common(sw, sweep=True)
    sw.add_argument("--vary", action="append", default=[], metavar="AXIS=VALUES", required=True,
                    help="warps_per_sm=4..64 (doubling; a..b:step steps), block=64,128,256, registers=32,64, "
                         "smem=0,16384, config=a100,h100, or any config key (l1.size_bytes=...); repeatable")
    sw.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="worker processes (default: all cores)")
    sw.add_argument("--y", default="dram_gbps", help="column to plot (default dram_gbps)")
    sw.add_argument("--csv", metavar="PATH", help="write the table as CSV")
    sw.add_argument("--plot", metavar="DIR", help="write the sweep plot (PNG and SVG) into DIR")

    occ = sub.add_parser("occupancy", help="the occupancy calculator",
                         description="Blocks and warps per SM, occupancy and the limiting resource.")
    occ.add_argument("--threads", type=int, required=True, help="threads per block")
    occ.add_argument("--regs", type=int, default=32, help="registers per thread (default 32)")
    occ.add_argument("--smem", default="0", help="shared memory per block, bytes (48K, 100000 ...; default 0)")
    occ.add_argument("--config", default="h100", help="config preset or TOML path")
    occ.add_argument("--plot", metavar="DIR", help="write occupancy vs registers and vs block size plots")

    asm = sub.add_parser("asm", help="the compiled ISA, annotated with source lines",
                         description="Print a kernel's ISA (PTX subset) with its source lines.")
    asm.add_argument("file", metavar="FILE.py|FILE.ptx|WORKLOAD")
    asm.add_argument("--kernel", help="only kernels whose name contains this")
    asm.add_argument("--case", help="Python files and workloads: the case whose arguments type the kernel")
    asm.add_argument("--sass", action="store_true",
                     help="under each PTX instruction, the sm_90 SASS ptxas makes of it (needs smsim[sass])")
    asm.add_argument("--compiler", choices=("auto", "smsim", "numba"), default="auto",
                     help="front end for Python kernels (numba: numba-cuda's NVVM)")

    cmp_ = sub.add_parser("compare", help="smsim metrics side by side with an Nsight Compute CSV",
                          description="Match a result JSON (smsim run --json) with an Nsight Compute CSV export "
                                      "(ncu --csv --page raw, or --metrics) by metric name.")
    cmp_.add_argument("result", metavar="RESULT.json")
    cmp_.add_argument("ncu", metavar="NCU.csv")
    cmp_.add_argument("--kernel", help="the CSV's kernel whose name contains this (default: the only one)")
    cmp_.add_argument("--id", type=int, help="the CSV's kernel with this ID")

    val = sub.add_parser("validate", help="the timing model against H200 measurements: per case and the error summary",
                         description="Simulate every case of the hardware validation data (Nsight Compute on an "
                                     "H200, docs/hardware/validate_hw.json) and print measured vs predicted "
                                     "duration, stall breakdown and DRAM bytes per case, then the error summary.")
    val.add_argument("--sizes", default="test", help="test (default), mid, full, or several: test,full")
    val.add_argument("--family", help="only cases of these families (comma-separated)")
    val.add_argument("--case", help="only these cases (comma-separated family.case ids)")
    val.add_argument("--config", default="h200", help="config preset or TOML path (default h200, the measured GPU)")
    val.add_argument("--data", help="the hardware data (default docs/hardware/validate_hw.json)")
    val.add_argument("--compiler", choices=("auto", "smsim", "numba"), default="auto",
                     help="front end for the Python kernels (numba: numba-cuda's NVVM, as the H200 ran them)")
    val.add_argument("--stream", choices=("auto", "sass", "ptx", "both"),
                     help="what the schedulers issue (scheduler.stream; default: the config's); both: the SASS "
                          "and the PTX stream side by side")
    val.add_argument("--json", metavar="PATH", help="write the rows and the summary as JSON")
    val.add_argument("--quiet", action="store_true", help="no progress bar")

    sub.add_parser("list", help="workloads with their cases, and configs", description="List workloads and configs.")
    return p


# --------------------------------------------------------------------------------------------- commands
#: command -> its function in :mod:`smsim.commands` (imported when a command runs, so --help stays quick)
COMMANDS = {None: "demo", "run": "run", "sweep": "sweep", "occupancy": "occupancy_cmd", "asm": "asm",
            "compare": "compare_cmd", "validate": "validate_cmd", "list": "list_all"}


def _user_errors() -> tuple:
    import isa
    from isa.decode import DecodeError
    from isa.errors import CompileError

    from .case import CaseError
    from .config import ConfigError
    return (runner.UsageError, ConfigError, isa.KernelError, isa.ParseError, CompileError, DecodeError, OSError,
            CaseError)


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    args.quiet = args.quiet or not sys.stderr.isatty()
    try:
        from . import commands
        return getattr(commands, COMMANDS[args.cmd])(args)
    except BrokenPipeError:                # the output was cut short (| head): not an error
        sys.stdout = None
        return 0
    except _user_errors() as e:
        if args.debug:
            raise
        print(f"smsim: error: {_message(e)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        if args.debug:
            raise
        print("smsim: interrupted", file=sys.stderr)
        return 130


def _message(e: BaseException) -> str:
    text = str(e) or type(e).__name__
    if isinstance(e, OSError) and e.filename:
        return f"{e.filename}: {e.strerror or text}"
    return text.strip()


if __name__ == "__main__":
    sys.exit(main())

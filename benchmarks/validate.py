"""The timing model against the H200 validation data: every case, both sizes, the error summary.

    python benchmarks/validate.py                       # test and full sizes (the full size takes ~30 minutes)
    python benchmarks/validate.py --sizes test --json out/validation.json

The same as ``smsim validate --sizes test,full`` (:mod:`smsim.validate`), kept here beside the script that
collected the data (``benchmarks/validate_hw.py``); the figures it prints are the ones
``docs/timing_model.md`` quotes. ``--skip`` leaves out cases whose full size takes minutes to simulate
(the matrix multiplies' 2048^3 and the softmax rows), as the quoted full-size table does.
"""
from __future__ import annotations

import argparse
import sys

from smsim.cli import main as smsim_main

SLOW = "matmul.naive,matmul.naive_swapped,matmul.tiled16,matmul.tiled32,matmul.tiled32_bt,matmul.tiled32_bt_padded," \
       "softmax.thread_per_row,softmax.block_naive,cuda_c.matmul_tiled16"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="test,full")
    ap.add_argument("--json", help="write the rows and the summary as JSON")
    ap.add_argument("--skip", default=SLOW, help="comma-separated cases to leave out at the full size ('' for none)")
    args = ap.parse_args(argv)
    import workloads
    skip = set(filter(None, args.skip.split(",")))
    status = 0
    for size in args.sizes.split(","):
        ids = [c.id for f in workloads.FAMILIES if f not in ("microbench", "calib") for c in workloads.family(f)
               if size != "full" or c.id not in skip]
        cmd = ["validate", "--sizes", size, "--case", ",".join(ids)]
        if args.json:
            cmd += ["--json", args.json.replace(".json", f"_{size}.json")]
        status |= smsim_main(cmd)
    return status


if __name__ == "__main__":
    sys.exit(main())

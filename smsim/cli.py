"""The ``smsim`` command. Until the timing model lands it offers the ISA tools: ``smsim asm FILE.ptx``
(parse and print, annotated with source lines) and ``smsim run-ptx``-style checks through the API."""
from __future__ import annotations

import argparse
import sys


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="smsim", description="GPU SM simulator (ISA tools for now)")
    sub = parser.add_subparsers(dest="cmd")
    asm = sub.add_parser("asm", help="parse a PTX file and print it back, annotated with source lines")
    asm.add_argument("file")
    asm.add_argument("--kernel", help="only the kernel whose name contains this text")
    args = parser.parse_args(argv)
    if args.cmd != "asm":
        parser.print_help()
        return 0
    import isa
    try:
        with open(args.file) as f:
            module = isa.parse(f.read())
        print(module.find(args.kernel).to_text() if args.kernel else module.to_text())
    except (OSError, isa.ParseError, KeyError) as e:
        print(f"smsim: {args.file}: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())

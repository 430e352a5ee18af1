"""The ``pathgate`` command line: argparse in, ``anyio.run`` out; no decision logic here."""

from __future__ import annotations

import sys
from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] == "check-ignore":
        from pathgate._check_ignore import main as check_ignore_main

        return check_ignore_main(args[1:])
    print("usage: pathgate check-ignore ...", file=sys.stderr)
    return 2

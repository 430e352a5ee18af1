"""Star-run ignore lines (red team 20 L1): many lines like ``*a*b*c*`` (git's wildmatch
automaton, one Python run per rule before the chunks' RE2 screen) against a control file of
plain lines of the same size; a runtime's first glob over 100 files, CPU and wall, and
``git status`` beside it.

    python3 benchmarks/bench_star_rules.py [--lines 5000] [--repeat 1]
    PYTHONPATH=/path/to/other/src python3 benchmarks/bench_star_rules.py   # a before run
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import tempfile
import time

import pathgate


def make(root: str, kind: str, n: int) -> None:
    subprocess.run(["git", "init", "-q", root], check=True)
    for d in range(2):
        os.makedirs(f"{root}/src/d{d}")
        for f in range(50):
            with open(f"{root}/src/d{d}/data_blob_{d}_{f}.py", "w") as fh:
                fh.write("x\n")
    lines = ([f"*a*b*c*{'?' * (i % 5)}{'*' * (i % 7)}" for i in range(n)] if kind == "star"
             else [f"q{i}/b.c" for i in range(n)])
    with open(f"{root}/.gitignore", "w") as fh:
        fh.write("\n".join(lines) + "\n*.log\n")


async def first_glob(root: str) -> tuple[float, float]:
    rt = pathgate.Runtime(root)
    c, t = time.process_time(), time.perf_counter()
    await rt.call("glob", {"pattern": "**/*.py"})
    return time.process_time() - c, time.perf_counter() - t


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lines", type=int, default=5000)
    ap.add_argument("--repeat", type=int, default=1,
                    help="runtimes in one process (the first compiles; later ones reuse its lists)")
    args = ap.parse_args()
    print(f"pathgate from {os.path.dirname(pathgate.__file__)}; load {os.getloadavg()[0]:.1f}")
    with tempfile.TemporaryDirectory() as tmp:
        for kind in ("plain", "star"):
            root = os.path.join(tmp, kind)
            make(root, kind, args.lines)
            runs = [asyncio.run(first_glob(root)) for _ in range(args.repeat)]
            t = time.perf_counter()
            subprocess.run(["git", "-C", root, "status", "--porcelain", "-uall"], capture_output=True, check=True)
            git = time.perf_counter() - t
            print(f"{kind:5s} {args.lines} lines: first glob CPU {statistics.median(r[0] for r in runs):.2f} s, "
                  f"wall {statistics.median(r[1] for r in runs):.2f} s (median of {args.repeat}); "
                  f"git status {git:.2f} s")


if __name__ == "__main__":
    main()

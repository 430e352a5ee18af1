"""Cost of reading one git hook script for the write guard (red team 14 F6).

Each case is a hook script's text handed to ``_git_hooks._from_script`` (what every agent
write waits on the first time, and after every change of the hooks directory; ``pathgate
hook`` is a fresh process per tool call, so on every write there). Cases:

* ``heredoc-<n>``: red team 14's ``python3 <<EOFX`` line repeated ``n`` times (unterminated
  here-documents; ``n`` = 4,000 is the finding's 60 KB script);
* ``vars-<n>``: ``A="<8,000 a>"`` then ``n`` uses of ``$A`` on one line (``n`` = 10,000 is
  the finding's 38 KB script, 80 MB once expanded);
* ``worst-shell``/``worst-python``: about the most work a script under the bounds (128 KiB,
  2,000 command lines) asks for: 1,990 distinct command lines each naming four paths, three
  in quotes, after eight ``cd`` lines (shell); 1,990 lines of imports and literals
  (``#!/usr/bin/env python3``); 1,990 ``echo`` lines naming nothing after eight ``cd`` lines
  (quiet: no bound on named paths stops it early); 1,990 distinct lines running the same
  script (``worst-same``: few paths named, every line read from every directory);
* ``husky``: husky v9's real ``pre-commit`` (``npx lint-staged``), the common case.

Each case runs in a fresh ``python3`` per tree (``--before`` adds an old ``src`` for a
before/after table in one run, interleaved), ``--runs`` times; medians of wall seconds. A case
past ``--timeout`` seconds is reported as ``>timeout``. Run from the repository root::

    python3 benchmarks/bench_hook_scripts.py --runs 3 --before /tmp/old/src [--only heredoc]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time

_CHILD = r"""
import sys, time, tempfile, os
from pathgate.runtime.tools import _git_hooks
case = sys.argv[1]
kind, _, n = case.partition("-")
if kind == "heredoc":
    text = "python3 <<EOFX\n" * int(n)
elif kind == "vars":
    text = 'A="' + "a" * 8000 + '"\n' + "$A " * int(n) + "\n"
elif case == "worst-shell":
    head = "#!/bin/sh\n" + "".join(f"cd sub{i}\n" for i in range(8))
    text = head + "".join(f'sh "s/{i}.sh" "lib/a{i}.py" "tools/b{i}.js" --o=x/{i}\n' for i in range(1990))
elif case == "worst-python":
    text = "#!/usr/bin/env python3\n" + "".join(
        f'import t.m{i}; run(["python3", "t/c{i}.py", "x/{i}"])\n' for i in range(1990))
elif case == "worst-quiet":
    head = "#!/bin/sh\n" + "".join(f"cd sub{i}\n" for i in range(8))
    text = head + "".join(f'echo "step {i} of the checks" and more words here {i}\n' for i in range(1990))
elif case == "worst-same":
    head = "#!/bin/sh\n" + "".join(f"cd sub{i}\n" for i in range(8))
    text = head + "".join(f'sh scripts/lint.sh --step {i} "of the checks" and more {i}\n' for i in range(1990))
else:  # husky
    text = "npx lint-staged\n"
root = tempfile.mkdtemp()
t = time.perf_counter()
found = _git_hooks._from_script(text, root, os.path.join(root, ".husky"))
took = time.perf_counter() - t
print(f"{took:.6f} {len(text)} {'unchecked' if found == [(root, True)] else len(found)}")
"""

CASES = ("heredoc-1000", "heredoc-2000", "heredoc-4000", "vars-1000", "vars-10000", "worst-shell",
         "worst-python", "worst-quiet", "worst-same", "husky")


def _run(src: str, case: str, timeout: float) -> tuple[float | None, str]:
    env = {**os.environ, "PYTHONPATH": src}
    t = time.perf_counter()
    try:
        out = subprocess.run([sys.executable, "-c", _CHILD, case], env=env, capture_output=True, text=True,
                             timeout=timeout, check=True).stdout.split()
    except subprocess.TimeoutExpired:
        return None, f">{timeout:.0f} s (wall {time.perf_counter() - t:.0f} s)"
    return float(out[0]), f"{out[1]} chars, {out[2]}"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--before", help="an old tree's src directory")
    ap.add_argument("--only", default="")
    ap.add_argument("--timeout", type=float, default=400.0)
    ap.add_argument("--before-runs", type=int, default=1, help="runs of the old tree (it can take minutes)")
    args = ap.parse_args()
    after = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "src")
    cases = [c for c in CASES if not args.only or any(w in c for w in args.only.split(","))]
    print(f"load {os.getloadavg()[0]:.2f}")
    for case in cases:
        rows: dict[str, list[float]] = {"after": [], "before": []}
        notes: dict[str, str] = {}
        for i in range(args.runs):
            for tree, src in (("before", args.before), ("after", after)):
                if src is None or (tree == "before" and i >= args.before_runs):
                    continue
                took, note = _run(src, case, args.timeout)
                notes[tree] = note
                if took is not None:
                    rows[tree].append(took)
        line = [f"{case:14}"]
        for tree in ("before", "after"):
            if tree in notes:
                med = f"{statistics.median(rows[tree]):.4f} s" if rows[tree] else "-"
                line.append(f"{tree} {med} ({notes[tree]})")
        print("  ".join(line), flush=True)
    print(f"load {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()

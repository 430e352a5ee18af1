"""CPU cost of one ignore session plus one decision (what every ``read_files`` call does first),
for a root at the top of its work tree, below it, or in no repository (issue: roots below the top).

    python3 benchmarks/bench_upper_session.py ROOT RELPATH [N]

prints CPU µs per ``index.session().match(relpath)`` (median of nothing: one figure; run it
interleaved with a "before" copy, ``git archive <rev> src benchmarks | tar -x -C /tmp/before``,
and take medians), and the ``stat``/``lstat`` calls each one makes (deterministic).
"""

from __future__ import annotations

import os
import sys
import time

os.environ["GIT_CONFIG_GLOBAL"] = "/dev/null"
os.environ["GIT_CONFIG_NOSYSTEM"] = "1"

from pathgate.runtime.ignore import IgnoreIndex


def main() -> None:
    root, rel = sys.argv[1], sys.argv[2]
    n = int(sys.argv[3]) if len(sys.argv) > 3 else 20000
    ix = IgnoreIndex(root)
    for _ in range(200):
        ix.session().match(rel)
    t = time.process_time()
    for _ in range(n):
        ix.session().match(rel)
    cpu = (time.process_time() - t) / n * 1e6
    calls = [0]
    real_stat, real_lstat = os.stat, os.lstat

    def stat(*a: object, **k: object) -> os.stat_result:
        calls[0] += 1
        return real_stat(*a, **k)  # type: ignore[arg-type]

    def lstat(*a: object, **k: object) -> os.stat_result:
        calls[0] += 1
        return real_lstat(*a, **k)  # type: ignore[arg-type]

    os.stat, os.lstat = stat, lstat  # type: ignore[assignment]
    for _ in range(100):
        ix.session().match(rel)
    os.stat, os.lstat = real_stat, real_lstat
    print(f"{cpu:.2f} µs CPU, {calls[0] / 100:.1f} stat calls")


if __name__ == "__main__":
    main()

"""The walker's per-entry ignore decisions alone, replayed (issue 14, per-directory chains).

    python3 benchmarks/bench_decide.py SRC git|def [TREE]

Walks TREE (default: /tmp/i14/eugenp-tutorials, a materialized eugenp-tutorials) once warm,
records every ``IgnoreSession.decide_entry`` call of a second walk, then times replaying
them on fresh sessions (median of 7), whole warm walks (median of 5) and cold walks (a fresh
index each, median of 3), process CPU. ``git``:
git's sources only; ``def``: the runtime's (built-in list, agent files). Run it for two
checkouts' ``src`` alternately and compare.
"""

import statistics
import sys
import time

sys.path.insert(0, sys.argv[1])

from pathgate.runtime import ignore as ign
from pathgate.runtime._walk import walk

tree = sys.argv[3] if len(sys.argv) > 3 else "/tmp/i14/eugenp-tutorials"
cfg = ign.IgnoreConfig.git_only() if sys.argv[2] == "git" else ign.IgnoreConfig()
index = ign.IgnoreIndex(tree, cfg)
sum(1 for _ in walk(index.session()))
calls: list[tuple[object, ...]] = []
s = index.session()
orig = s.decide_entry


def rec(node, rel, name, is_dir):  # type: ignore[no-untyped-def]
    calls.append((node, rel, name, is_dir))
    return orig(node, rel, name, is_dir)


s.decide_entry = rec  # type: ignore[method-assign]
sum(1 for _ in walk(s))
ts = []
for _ in range(7):
    d = index.session().decide_entry
    c = time.process_time()
    for a in calls:
        d(*a)  # type: ignore[arg-type]
    ts.append(time.process_time() - c)
wt = []
for _ in range(5):
    c = time.process_time()
    sum(1 for _ in walk(index.session()))
    wt.append(time.process_time() - c)
ct = []
for _ in range(3):  # cold: a fresh index, every node and plan built
    fresh = ign.IgnoreIndex(tree, cfg)
    c = time.process_time()
    sum(1 for _ in walk(fresh.session()))
    ct.append(time.process_time() - c)
print(f"{sys.argv[1]:22} {sys.argv[2]} calls={len(calls)} decide={statistics.median(ts) * 1e3:.0f}ms "
      f"walk={statistics.median(wt) * 1e3:.0f}ms cold walk={statistics.median(ct) * 1e3:.0f}ms")

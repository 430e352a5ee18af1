"""Cost of one agent write when a project's settings file names many paths (red team 14 F7).

Builds a project whose ``.claude/settings.json`` (0.94 MB, 22 hooks of 4,000 words) names
~88,000 paths ``dK/N`` (none exists; ``--exist`` creates the 500 directories ``dK``), lifts
the named-path bound when the tree has one (so the answer is computed, not refused), and
times ``write_file`` of a plain file (after one warm-up write). Prints the median of
``--runs`` writes in ms. Run once per tree, interleaved, e.g.:

    PYTHONPATH=<tree>/src python3 benchmarks/bench_named_paths.py --runs 5
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time

import anyio

from pathgate import Policy, Runtime


async def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--exist", action="store_true", help="create the 500 named directories")
    args = ap.parse_args()
    from pathgate.runtime.tools import _agent_commands

    if hasattr(_agent_commands, "_MAX_NAMED"):
        _agent_commands._MAX_NAMED = 1 << 30  # type: ignore[attr-defined]
    with tempfile.TemporaryDirectory() as d:
        os.makedirs(f"{d}/.claude")
        cmds, k = [], 0
        for _ in range(22):
            cmds.append({"type": "command", "command": " ".join(f"d{(k + i) % 500}/{k + i}" for i in range(4000))})
            k += 4000
        with open(f"{d}/.claude/settings.json", "w") as fh:
            fh.write(json.dumps({"hooks": {"PreToolUse": [{"hooks": cmds}]}}))
        if args.exist:
            for i in range(500):
                os.makedirs(f"{d}/d{i}")
        old = time.time() - 10
        os.utime(f"{d}/.claude/settings.json", (old, old))
        rt = Runtime(d, policy=Policy(allow_writes=True, require_read_before_write=False))
        assert (await rt.write_file("warm.md", "x\n")).ok
        times = []
        for i in range(args.runs):
            t = time.perf_counter()
            r = await rt.write_file(f"notes{i}.md", "x\n")
            times.append(time.perf_counter() - t)
            assert r.ok
        blocked = (await rt.write_file("d7/7", "x\n")).verdict is not None
        print(json.dumps({"median_ms": round(statistics.median(times) * 1000, 2), "named_blocked": blocked}))


anyio.run(main)

"""code_search's time limit (``Policy.search_seconds``; red team 16 G6), before and after in one run.

    git -C /work/main archive main src | tar -x -C /tmp/before
    PYTHONPATH=$PWD/src python3 benchmarks/bench_search_deadline.py --before /tmp/before/src --runs 3

The tree (built once under ``--tree``, default ``/tmp/bench_g6``): 3 files of 8 MB of random
``a``/``b`` lines (each under the 10 MiB read limit), on which RE2's lazy DFA thrashes for
``[ab]*a[ab]{25}c`` and falls back to its NFA (~1 MB/s, against GB/s for a literal). Each run
starts one process per checkout (``PYTHONPATH`` = that ``src``), interleaved run by run; a
process times, on one runtime, a literal (``zzz``) and then the thrashing pattern through
``Runtime.call`` (wall seconds), and reports whether the answer carries the time-limit note.
With ``--other`` a second agent calls a literal search in a loop on the same runtime meanwhile
(the finding's "37 s with another agent calling"). Medians per checkout.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import textwrap

PATTERN = "[ab]*a[ab]{25}c"

_CHILD = textwrap.dedent("""
    import json, sys, time
    import anyio
    import pathgate

    root, pattern, other, seconds = sys.argv[1], sys.argv[2], sys.argv[3] == "1", sys.argv[4]
    kw = {} if seconds == "-" else {"policy": pathgate.Policy(search_seconds=float(seconds))}

    async def main():
        rt = pathgate.Runtime(root, **kw)
        out = {}
        t0 = time.perf_counter()
        await rt.call("code_search", {"regex": "zzz"}, model="m")
        out["literal"] = time.perf_counter() - t0
        async with anyio.create_task_group() as tg:
            done = anyio.Event()
            calls = []
            if other:
                async def agent():
                    while not done.is_set():
                        t = time.perf_counter()
                        await rt.call("code_search", {"regex": "zzz"}, model="m", agent="other")
                        calls.append(time.perf_counter() - t)
                tg.start_soon(agent)
            t0 = time.perf_counter()
            res = await rt.call("code_search", {"regex": pattern}, model="m")
            out["thrash"] = time.perf_counter() - t0
            done.set()
        out["note"] = any("time limit" in n for n in res["notes"])
        out["other_calls"] = len(calls)
        out["other_max"] = max(calls, default=0.0)
        print(json.dumps(out))

    anyio.run(main)
""")


def build(root: str) -> None:
    """The G6 tree: 3 files of 80,000 lines of 99 random ``a``/``b`` (git-initialised)."""
    if os.path.exists(os.path.join(root, "f2.txt")):
        return
    os.makedirs(root, exist_ok=True)
    subprocess.run(["git", "init", "-q", root], check=True)
    rnd = random.Random(1)
    for k in range(3):
        with open(os.path.join(root, f"f{k}.txt"), "w") as f:
            for _ in range(80_000):
                f.write("".join(rnd.choice("ab") for _ in range(99)) + "\n")


def run_one(src: str, root: str, other: bool, seconds: str) -> dict[str, float]:
    env = dict(os.environ, PYTHONPATH=src)
    out = subprocess.run([sys.executable, "-c", _CHILD, root, PATTERN, "1" if other else "0", seconds],
                         env=env, capture_output=True, text=True, check=True)
    return dict(json.loads(out.stdout.strip().splitlines()[-1]))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tree", default="/tmp/bench_g6")
    ap.add_argument("--before", help="another checkout's src (no time limit), measured interleaved")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--other", action="store_true", help="a second agent searches meanwhile")
    ap.add_argument("--seconds", default="-", help="search_seconds for this checkout ('-': the default)")
    args = ap.parse_args()
    build(args.tree)
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src")
    checkouts = [("after", os.path.abspath(here), args.seconds)]
    if args.before:
        checkouts.insert(0, ("before", os.path.abspath(args.before), "-"))
    rows: dict[str, list[dict[str, float]]] = {name: [] for name, _, _ in checkouts}
    for i in range(args.runs):
        for name, src, seconds in checkouts if i % 2 == 0 else checkouts[::-1]:
            r = run_one(src, args.tree, args.other, seconds)
            rows[name].append(r)
            print(f"run {i + 1} {name}: {json.dumps(r)}", flush=True)
    print(f"load {os.getloadavg()[0]:.2f}")
    print("| | literal s | thrash s | note | other agent's calls (worst s) |")
    print("|---|---:|---:|---|---|")
    for name, got in rows.items():
        med = {k: statistics.median(r[k] for r in got) for k in ("literal", "thrash", "other_calls", "other_max")}
        notes = sum(bool(r["note"]) for r in got)
        print(f"| {name} | {med['literal']:.2f} | {med['thrash']:.2f} | {notes}/{len(got)} | "
              f"{med['other_calls']:.0f} ({med['other_max']:.2f}) |")


if __name__ == "__main__":
    main()

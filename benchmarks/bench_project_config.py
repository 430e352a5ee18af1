"""What a repository's own settings cost (red team 22): `extra_secret_patterns` in its
`pathgate.toml` and a git config include fan-out.

Per case, in fresh processes (medians of --reps): the CPU of one `pathgate hook claude-code`
process, the CPU of `Runtime(root)` construction (imports included), the event-loop stall of
one 50-file `read_files`, and the wall time of the first `read_files` of a runtime. Cases:
the default policy; N patterns `*qN*` (one regex each) and `zN.bin` (literal names) from the
project's file; a `.git/config` including a tracked `.gitconfig` that includes the next file W
times, D levels deep.

    PYTHONPATH=src python3 benchmarks/bench_project_config.py --patterns 1024 --reps 5
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys

CHILD = r'''
import asyncio, json, sys, time
t0 = time.perf_counter()
import pathgate
root = sys.argv[1]
async def main():
    t = time.process_time(); rt = pathgate.Runtime(root); ctor = time.process_time() - t
    t = time.perf_counter(); await rt.call("read_files", {"paths": ["d0/file_0_data.txt"]})
    first = time.perf_counter() - t
    lag = [0.0]
    async def ticker():
        while True:
            t1 = time.perf_counter(); await asyncio.sleep(0.002); lag[0] = max(lag[0], time.perf_counter() - t1 - 0.002)
    tk = asyncio.create_task(ticker()); await asyncio.sleep(0.02)
    await rt.call("read_files", {"paths": [f"d1/file_{i}_data.txt" for i in range(50)]})
    tk.cancel()
    print(json.dumps({"ctor": ctor, "first": first, "lag": lag[0]}))
asyncio.run(main())
'''


def build(root: str, patterns: list[str], fan: tuple[int, int] | None = None) -> None:
    shutil.rmtree(root, ignore_errors=True)
    os.makedirs(root)
    subprocess.run(["git", "init", "-q", root], check=True)
    for d in range(2):
        os.makedirs(f"{root}/d{d}")
        for f in range(60):
            with open(f"{root}/d{d}/file_{f}_data.txt", "w") as fh:
                fh.write("TODO\n")
    if patterns:
        with open(f"{root}/pathgate.toml", "w") as fh:
            fh.write("extra_secret_patterns = " + json.dumps(patterns) + "\n")
    if fan is not None:
        w, depth = fan
        os.makedirs(f"{root}/cfg")
        with open(f"{root}/.git/config", "a") as fh:
            fh.write("[include]\n\tpath = ../.gitconfig\n")
        with open(f"{root}/.gitconfig", "w") as fh:
            fh.write("[include]\n" + "\tpath = cfg/f0\n" * w)
        for i in range(depth):
            with open(f"{root}/cfg/f{i}", "w") as fh:
                fh.write("[include]\n" + f"\tpath = f{i + 1}\n" * w)
        with open(f"{root}/cfg/f{depth}", "w") as fh:
            fh.write("[core]\n\tquotepath = true\n")


def measure(root: str) -> dict[str, float]:
    env = dict(os.environ)
    r = subprocess.run([sys.executable, "-c", CHILD, root], capture_output=True, text=True, env=env, check=True)
    got: dict[str, float] = json.loads(r.stdout.strip().splitlines()[-1])
    payload = json.dumps({"tool_name": "Read", "tool_input": {"file_path": f"{root}/d0/file_1_data.txt"},
                          "hook_event_name": "PreToolUse", "cwd": root})
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([sys.executable, "-m", "pathgate", "hook", "claude-code"], input=payload, capture_output=True,
                   text=True, env=env, cwd=root, check=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    got["hook"] = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return got


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--patterns", type=int, default=1024)
    ap.add_argument("--fan", default="4,6", help="W,D of the include fan-out case")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--dir", default="/tmp/bench_project_config")
    ap.add_argument("--label", default="")
    args = ap.parse_args()
    n = args.patterns
    w, d = (int(x) for x in args.fan.split(","))
    cases = {
        "default": ([], None),
        f"{n} *qN*": ([f"*q{i}*" for i in range(n)], None),
        f"{n} zN.bin": ([f"z{i}.bin" for i in range(n)], None),
        f"include fan-out W={w} D={d}": ([], (w, d)),
    }
    roots = {}
    for i, (name, (pats, fan)) in enumerate(cases.items()):
        roots[name] = f"{args.dir}/c{i}"
        build(roots[name], pats, fan)
    runs: dict[str, list[dict[str, float]]] = {name: [] for name in cases}
    for _ in range(args.reps):
        for name in cases:
            runs[name].append(measure(roots[name]))
    for name, got in runs.items():
        med = {k: statistics.median(g[k] for g in got) for k in got[0]}
        print(f"{args.label}{name:28s} hook CPU {med['hook'] * 1000:7.1f} ms  "
              f"Runtime() CPU {med['ctor'] * 1000:7.1f} ms  first read {med['first'] * 1000:8.1f} ms  "
              f"50-file read loop stall {med['lag'] * 1000:6.1f} ms")


if __name__ == "__main__":
    main()

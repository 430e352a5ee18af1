"""Start-up cost of ``pathgate hook <agent>``: one process per tool call of the agent.

Each case is a fresh ``python3`` process fed one Claude Code ``PreToolUse`` payload on stdin;
wall time from spawn to exit, median of ``--runs`` interleaved runs. The competitor is the
floor of any Python hook: an interpreter that reads the JSON payload and exits
(``json.load(sys.stdin)``). Run from the repository root::

    python3 benchmarks/bench_hook_startup.py --runs 31
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(os.path.dirname(HERE), "src")


def _tree(root: str) -> None:
    os.makedirs(os.path.join(root, "src"))
    os.makedirs(os.path.join(root, "build"))
    files = {".gitignore": "build/\n*.log\n", ".env": "KEY=1\n", "src/app.py": "print(1)\n",
             "build/out.js": "x\n", "debug.log": "x\n"}
    for name, text in files.items():
        with open(os.path.join(root, name), "w") as f:
            f.write(text)


def _payload(root: str, rel: str) -> bytes:
    return json.dumps({"hook_event_name": "PreToolUse", "cwd": root, "tool_name": "Read",
                       "tool_input": {"file_path": os.path.join(root, rel)}}).encode()


def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def _time(cmd: list[str], data: bytes, env: dict[str, str]) -> tuple[float, float]:
    """(wall ms, CPU ms) of one child process."""
    start, cpu = time.perf_counter(), _cpu()
    subprocess.run(cmd, input=data, env=env, stdout=subprocess.DEVNULL, check=False)
    return (time.perf_counter() - start) * 1000, (_cpu() - cpu) * 1000


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=31)
    runs = ap.parse_args().runs
    env = {**os.environ, "PYTHONPATH": SRC}
    py = sys.executable
    with tempfile.TemporaryDirectory() as root:
        _tree(root)
        cases = {
            "floor: python3 json.load(stdin)": ([py, "-c", "import json,sys; json.load(sys.stdin)"], "src/app.py"),
            "python3 -c 'import pathgate'": ([py, "-c", "import pathgate"], "src/app.py"),
            "hook claude-code: allow (src/app.py)": ([py, "-m", "pathgate", "hook", "claude-code"], "src/app.py"),
            "hook claude-code: deny ignore (build/out.js)": ([py, "-m", "pathgate", "hook", "claude-code"],
                                                            "build/out.js"),
            "hook claude-code: deny secret (.env)": ([py, "-m", "pathgate", "hook", "claude-code"], ".env"),
        }
        times: dict[str, list[tuple[float, float]]] = {name: [] for name in cases}
        for _ in range(runs):
            for name, (cmd, rel) in cases.items():
                times[name].append(_time(cmd, _payload(root, rel), env))
    first = next(iter(times.values()))
    floor_wall = statistics.median(w for w, _ in first)
    floor_cpu = statistics.median(c for _, c in first)
    print("| case | wall median (ms) | vs floor | CPU median (ms) | vs floor |")
    print("|---|---:|---:|---:|---:|")
    for name, values in times.items():
        wall = statistics.median(w for w, _ in values)
        cpu = statistics.median(c for _, c in values)
        print(f"| {name} | {wall:.1f} | {wall / floor_wall:.2f}× | {cpu:.1f} | {cpu / floor_cpu:.2f}× |")


if __name__ == "__main__":
    main()

"""Start-up cost of ``pathgate`` as a command: one process per call (a hook runs on every tool
call of the agent; ``check-ignore``, ``explain`` and ``glob`` are run by people and scripts).

Each case is a fresh ``python3`` process; wall and CPU time from spawn to exit, median of
``--runs`` interleaved runs. The floor is an interpreter that reads stdin and exits
(``json.load(sys.stdin)`` for the hook payload): every ratio is against it, in the same run.
Two more baselines of a hook that does nothing: the same without ``site`` (``python3 -S``:
what this machine's site-packages add to every interpreter), and ``jq`` reading the payload
(a non-Python hook), when installed.
Byte code is cached (in a temporary ``PYTHONPYCACHEPREFIX``, warmed by one untimed run
of each case), as for an installed package. ``--before DIR`` adds the same commands run
from another source tree (e.g. ``/work/main/src``) for a before/after table in one run. Run from the repository root::

    python3 benchmarks/bench_hook_startup.py --runs 31 [--before /path/to/old/src]
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


def _cursor(root: str, rel: str) -> bytes:
    return json.dumps({"hook_event_name": "beforeReadFile", "file_path": os.path.join(root, rel),
                       "content": "x\n", "workspace_roots": [root]}).encode()


def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def _time(cmd: list[str], data: bytes, env: dict[str, str], cwd: str) -> tuple[float, float]:
    """(wall ms, CPU ms) of one child process."""
    start, cpu = time.perf_counter(), _cpu()
    subprocess.run(cmd, input=data, env=env, cwd=cwd, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, check=False)
    return (time.perf_counter() - start) * 1000, (_cpu() - cpu) * 1000


def _cases(root: str) -> dict[str, tuple[list[str], bytes]]:
    """name -> (argv after ``python3``, stdin)."""
    pg = ["-m", "pathgate"]
    hook = [*pg, "hook", "claude-code"]
    paths = b"src/app.py\nbuild/out.js\ndebug.log\n.env\n"
    return {
        "python3 -c 'import pathgate'": (["-c", "import pathgate"], b""),
        "hook claude-code: allow (src/app.py)": (hook, _payload(root, "src/app.py")),
        "hook claude-code: deny ignore (build/out.js)": (hook, _payload(root, "build/out.js")),
        "hook claude-code: deny secret (.env)": (hook, _payload(root, ".env")),
        "hook cursor: deny ignore (build/out.js)": ([*pg, "hook", "cursor"], _cursor(root, "build/out.js")),
        "check-ignore --stdin (4 paths)": ([*pg, "check-ignore", "--stdin"], paths),
        "explain build/out.js": ([*pg, "explain", "build/out.js"], b""),
        "glob '**/*.py'": ([*pg, "glob", "**/*.py"], b""),
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=31)
    ap.add_argument("--before", metavar="SRC", help="another source tree to compare (same run)")
    opts = ap.parse_args()
    py = sys.executable
    trees = {"": SRC, **({"before: ": opts.before} if opts.before else {})}
    with tempfile.TemporaryDirectory() as root:
        _tree(root)
        payload = _payload(root, "src/app.py")
        floor = ([py, "-c", "import json,sys; json.load(sys.stdin)"], payload, SRC)
        runs: dict[str, tuple[list[str], bytes, str]] = {"floor: python3 json.load(stdin)": floor}
        runs["baseline: python3 -S json.load(stdin)"] = ([py, "-S", "-c", "import json,sys; json.load(sys.stdin)"],
                                                         payload, SRC)
        jq = shutil.which("jq")
        if jq:
            runs["baseline: jq .tool_input.file_path"] = ([jq, "-e", ".tool_input.file_path"], payload, SRC)
        for name, (argv, data) in _cases(root).items():
            for label, src in trees.items():
                runs[label + name] = ([py, *argv], data, src)
        times: dict[str, list[tuple[float, float]]] = {name: [] for name in runs}
        with tempfile.TemporaryDirectory() as pycache:
            base = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
            base["PYTHONPYCACHEPREFIX"] = pycache
            for i in range(opts.runs + 1):
                for name, (cmd, data, src) in runs.items():
                    sample = _time(cmd, data, {**base, "PYTHONPATH": src}, root)
                    if i:  # the first round compiles the byte code
                        times[name].append(sample)
    first = next(iter(times.values()))
    floor_wall = statistics.median(w for w, _ in first)
    floor_cpu = statistics.median(c for _, c in first)
    print("| case | wall median (ms) | CPU median (ms) | CPU p25–p75 (ms) | CPU above floor (ms) | CPU vs floor |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, values in times.items():
        wall = statistics.median(w for w, _ in values)
        cpus = sorted(c for _, c in values)
        cpu = statistics.median(cpus)
        q1, q3 = cpus[len(cpus) // 4], cpus[(3 * len(cpus)) // 4]
        print(f"| {name} | {wall:.1f} | {cpu:.1f} | {q1:.0f}–{q3:.0f} | {cpu - floor_cpu:+.1f} "
              f"| {cpu / floor_cpu:.2f}× |")
    print(f"\n(floor wall median {floor_wall:.1f} ms; load average {os.getloadavg()[0]:.1f} at the end)")

if __name__ == "__main__":
    main()

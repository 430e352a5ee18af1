"""Start-up cost of ``pathgate`` as a command: one process per call (a hook runs on every tool
call of the agent; ``check-ignore``, ``explain``, ``glob`` and ``search`` are run by people and
scripts).

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

As a user installs it: ``--venv DIR`` runs the ``pathgate`` console script of a virtualenv
holding an installed pathgate (and its ``python`` for the floor and ``import pathgate``), no
``PYTHONPATH``; ``--before-venv DIR`` adds another such virtualenv in the same rounds::

    python3 -m venv /tmp/v && /tmp/v/bin/pip install .          # and /tmp/b from the old tree
    python3 benchmarks/bench_hook_startup.py --runs 15 --venv /tmp/v --before-venv /tmp/b

``--only glob,explain`` keeps the cases whose name holds one of the words (the floors
always run). With a "before", each case's row also gives after / before of the median CPU.

Each child's CPU (user + sys) comes from its own ``wait4``; its peak memory (max RSS) from
three more runs under GNU ``/usr/bin/time -f %M`` (a child forked from this script would
report this script's own RSS, which ``exec`` keeps as the child's high-water mark).
"""

from __future__ import annotations

import argparse
import json
import os
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
    os.makedirs(os.path.join(root, ".claude/hooks"))
    hook = {"type": "command", "command": "$CLAUDE_PROJECT_DIR/.claude/hooks/guard.sh", "onFailure": "block"}
    files = {".gitignore": "build/\n*.log\n", ".env": "KEY=1\n", "src/app.py": "print(1)\n",
             "build/out.js": "x\n", "debug.log": "x\n", ".claude/hooks/guard.sh": "exec pathgate hook claude-code\n",
             ".claude/settings.json": json.dumps({"hooks": {"PreToolUse": [{"matcher": "Write", "hooks": [hook]}]}})}
    for name, text in files.items():
        with open(os.path.join(root, name), "w") as f:
            f.write(text)


def _payload(root: str, rel: str) -> bytes:
    return json.dumps({"hook_event_name": "PreToolUse", "cwd": root, "tool_name": "Read",
                       "tool_input": {"file_path": os.path.join(root, rel)}}).encode()


def _write(root: str, rel: str) -> bytes:
    return json.dumps({"hook_event_name": "PreToolUse", "cwd": root, "tool_name": "Write",
                       "tool_input": {"file_path": os.path.join(root, rel), "content": "x = 1\n"}}).encode()


def _cursor(root: str, rel: str) -> bytes:
    return json.dumps({"hook_event_name": "beforeReadFile", "file_path": os.path.join(root, rel),
                       "content": "x\n", "workspace_roots": [root]}).encode()


def _time(cmd: list[str], data: bytes, env: dict[str, str], cwd: str) -> tuple[float, float]:
    """(wall ms, CPU ms) of one child process (its own ``wait4`` usage)."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, env=env, cwd=cwd, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    assert proc.stdin is not None
    try:
        proc.stdin.write(data)
        proc.stdin.close()
    except BrokenPipeError:
        pass
    _, _, usage = os.wait4(proc.pid, 0)
    proc.returncode = 0  # reaped
    wall = (time.perf_counter() - start) * 1000
    return wall, (usage.ru_utime + usage.ru_stime) * 1000


def _max_rss(cmd: list[str], data: bytes, env: dict[str, str], cwd: str, runs: int = 3) -> float | None:
    """Median peak RSS (MiB) of ``cmd`` under GNU time (a small parent), or None without it."""
    gnu_time = "/usr/bin/time"
    if not os.path.exists(gnu_time):
        return None
    out: list[float] = []
    with tempfile.NamedTemporaryFile("r") as report:
        for _ in range(runs):
            subprocess.run([gnu_time, "-o", report.name, "-f", "%M", *cmd], input=data, env=env, cwd=cwd,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
            report.seek(0)
            out.append(int(report.read().split()[-1]) / 1024)
    return statistics.median(out)


def _cases(root: str, pg: list[str]) -> dict[str, tuple[list[str], bytes]]:
    """name -> (argv after ``python3``, stdin); ``pg``: how pathgate is run."""
    hook = [*pg, "hook", "claude-code"]
    paths = b"src/app.py\nbuild/out.js\ndebug.log\n.env\n"
    return {
        "python3 -c 'import pathgate'": (["-c", "import pathgate"], b""),
        "hook claude-code: allow (src/app.py)": (hook, _payload(root, "src/app.py")),
        "hook claude-code: deny ignore (build/out.js)": (hook, _payload(root, "build/out.js")),
        "hook claude-code: deny secret (.env)": (hook, _payload(root, ".env")),
        "hook claude-code: allow Write (src/new.py)": (hook, _write(root, "src/new.py")),
        "hook cursor: deny ignore (build/out.js)": ([*pg, "hook", "cursor"], _cursor(root, "build/out.js")),
        "check-ignore --stdin (4 paths)": ([*pg, "check-ignore", "--stdin"], paths),
        "check-ignore --git-only --stdin (4 paths)": ([*pg, "check-ignore", "--git-only", "--stdin"], paths),
        "explain build/out.js": ([*pg, "explain", "build/out.js"], b""),
        "glob '**/*.py'": ([*pg, "glob", "**/*.py"], b""),
        "glob '**' --json": ([*pg, "glob", "**", "--json"], b""),
        "search print": ([*pg, "search", "print"], b""),
    }


def _commands(py: str, src: str | None, venv: str | None, root: str) -> dict[str, tuple[list[str], bytes, str | None]]:
    """The cases of one tree: ``src`` on ``PYTHONPATH`` (``-m pathgate``), or a virtualenv's
    installed package (its console script)."""
    if venv is not None:
        vpy = os.path.join(venv, "bin", "python")
        script = os.path.join(venv, "bin", "pathgate")
        out: dict[str, tuple[list[str], bytes, str | None]] = {}
        for name, (argv, data) in _cases(root, ["-m", "pathgate"]).items():
            cmd = [vpy, *argv] if argv[0] == "-c" else [script, *argv[2:]]
            out[name] = (cmd, data, None)
        return out
    return {name: ([py, *argv], data, src) for name, (argv, data) in _cases(root, ["-m", "pathgate"]).items()}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=31)
    ap.add_argument("--before", metavar="SRC", help="another source tree to compare (same run)")
    ap.add_argument("--venv", metavar="DIR", help="measure this virtualenv's installed pathgate")
    ap.add_argument("--before-venv", metavar="DIR", help="and this one's, in the same rounds")
    ap.add_argument("--only", metavar="WORDS", help="comma-separated: keep the cases naming one of them")
    opts = ap.parse_args()
    only = [w for w in (opts.only or "").split(",") if w]
    py = os.path.join(opts.venv, "bin", "python") if opts.venv else sys.executable
    with tempfile.TemporaryDirectory() as root:
        _tree(root)
        payload = _payload(root, "src/app.py")
        runs: dict[str, tuple[list[str], bytes, str | None]] = {
            "floor: python3 -c pass": ([py, "-c", "pass"], b"", SRC),
            "floor: python3 json.load(stdin)": ([py, "-c", "import json,sys; json.load(sys.stdin)"], payload, SRC),
            "baseline: python3 -S json.load(stdin)": ([py, "-S", "-c", "import json,sys; json.load(sys.stdin)"],
                                                      payload, SRC),
        }
        jq = shutil.which("jq")
        if jq:
            runs["baseline: jq .tool_input.file_path"] = ([jq, "-e", ".tool_input.file_path"], payload, SRC)
        trees = {"": _commands(py, SRC, opts.venv, root)}
        if opts.before:
            trees["before: "] = _commands(py, opts.before, None, root)
        if opts.before_venv:
            trees["before: "] = _commands(py, None, opts.before_venv, root)
        for name in trees[""]:
            if only and not any(w in name for w in only):
                continue
            for label, cases in trees.items():
                runs[label + name] = cases[name]
        times: dict[str, list[tuple[float, float]]] = {name: [] for name in runs}
        rss: dict[str, float | None] = {}
        with tempfile.TemporaryDirectory() as pycache:
            base = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "PYTHONPATH")}
            base["PYTHONPYCACHEPREFIX"] = pycache
            for i in range(opts.runs + 1):
                for name, (cmd, data, src) in runs.items():
                    env = {**base, "PYTHONPATH": src} if src and not opts.venv else base
                    sample = _time(cmd, data, env, root)
                    if i:  # the first round compiles the byte code
                        times[name].append(sample)
            for name, (cmd, data, src) in runs.items():
                env = {**base, "PYTHONPATH": src} if src and not opts.venv else base
                rss[name] = _max_rss(cmd, data, env, root)
    _report(times, rss)


def _report(times: dict[str, list[tuple[float, float]]], rss: dict[str, float | None]) -> None:
    floor_cpu = statistics.median(c for _, c in next(iter(times.values())))
    print("| case | wall median (ms) | CPU median (ms) | CPU p25–p75 (ms) | CPU above floor (ms) "
          "| CPU vs floor | after / before | max RSS (MiB) |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for name, values in times.items():
        before = times.get("before: " + name)
        ratio = "" if not before else \
            f"{statistics.median(c for _, c in values) / statistics.median(c for _, c in before):.2f}×"
        wall = statistics.median(w for w, _ in values)
        cpus = sorted(c for _, c in values)
        cpu = statistics.median(cpus)
        q1, q3 = cpus[len(cpus) // 4], cpus[(3 * len(cpus)) // 4]
        peak = rss.get(name)
        print(f"| {name} | {wall:.1f} | {cpu:.1f} | {q1:.0f}–{q3:.0f} | {cpu - floor_cpu:+.1f} "
              f"| {cpu / floor_cpu:.2f}× | {ratio} | {'' if peak is None else f'{peak:.1f}'} |")
    print(f"\n(floor: the first row; load average {os.getloadavg()[0]:.1f} at the end)")


if __name__ == "__main__":
    main()

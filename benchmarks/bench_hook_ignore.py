"""One ``pathgate hook`` call under a repository's huge ``.gitignore`` (red team 16 G7), against
``git check-ignore`` for the same path, in the same rounds.

The tree is G7's: a root ``.gitignore`` of ``--lines`` glob lines ``gen/**/cacheI*/*.tmpJ``
(all sharing the literal start ``gen/``) and an unrelated ``src/a.py`` (``--path`` reads another:
``gen/q/cache12z/y.tmp12`` is one the lines aim at, a deep one has many directories). Each round runs, one
after the other: the hook (a Claude Code ``Read`` of ``src/a.py``) from each source tree given
(``--src`` after, ``--before`` the old tree), ``git check-ignore`` of the same path, and the CLI commands
``pathgate check-ignore`` (the path as an argument, and ``-v -n --stdin`` of it and another),
``explain`` and ``glob`` (``--cli``). Every command is a fresh process
under GNU ``/usr/bin/time -f "%e %M"``: wall seconds and peak RSS; medians of ``--runs``.
Byte code is cached (a temporary ``PYTHONPYCACHEPREFIX``, warmed by one untimed run of each)::

    python3 benchmarks/bench_hook_ignore.py --lines 300000 --runs 5 --before /tmp/old/src [--cli]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(os.path.dirname(HERE), "src")


def make_tree(root: str, lines: int) -> None:
    """G7's tree: ``lines`` lines of ``gen/**/cacheI*/*.tmp(I mod 97)`` and ``src/a.py``."""
    if os.path.exists(os.path.join(root, "src", "a.py")):
        return
    os.makedirs(os.path.join(root, "src"), exist_ok=True)
    subprocess.run(["git", "init", "-q", root], check=True)
    with open(os.path.join(root, ".gitignore"), "w") as f:
        for i in range(lines):
            f.write(f"gen/**/cache{i}*/*.tmp{i % 97}\n")
    with open(os.path.join(root, "src", "a.py"), "w") as f:
        f.write("x\n")


def _timed(cmd: list[str], env: dict[str, str], stdin: bytes, cwd: str) -> tuple[float, int, bytes]:
    """``(wall s, peak RSS KiB, stdout)`` of one run under ``/usr/bin/time``."""
    with tempfile.NamedTemporaryFile() as out:
        proc = subprocess.run(["/usr/bin/time", "-f", "%e %M", "-o", out.name, *cmd], input=stdin,
                              capture_output=True, env=env, cwd=cwd, check=False)
        wall, rss = open(out.name).read().split()[-2:]
    return float(wall), int(rss), proc.stdout


Case = tuple[str, list[str], dict[str, str], bytes]


def _cases(root: str, path: str, srcs: dict[str, str], cli: bool, cache: str) -> list[Case]:
    payload = json.dumps({"tool_name": "Read", "tool_input": {"file_path": path}, "cwd": root}).encode()
    base = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "GIT_"))}
    out = [("git check-ignore", ["git", "-C", root, "check-ignore", path], dict(base), b"")]
    if cli:
        out.append(("git check-ignore -vn --stdin", ["git", "-C", root, "check-ignore", "-v", "-n", "--stdin"],
                    dict(base), f"{path}\nsrc/b/c.py\n".encode()))
    for label, src in srcs.items():
        env = dict(base, PYTHONPATH=src, PYTHONPYCACHEPREFIX=os.path.join(cache, label), CLAUDE_PROJECT_DIR=root)
        py = [sys.executable, "-m", "pathgate"]
        out.append((f"hook {label}", [*py, "hook", "claude-code", "--root", root], env, payload))
        if cli:
            out.append((f"check-ignore {label}", [*py, "check-ignore", "--root", root, path], env, b""))
            out.append((f"check-ignore -vn --stdin {label}", [*py, "check-ignore", "--root", root, "-v", "-n",
                                                              "--stdin"], env, f"{path}\nsrc/b/c.py\n".encode()))
            out.append((f"explain {label}", [*py, "explain", "--root", root, path], env, b""))
            out.append((f"glob {label}", [*py, "glob", "--root", root, "src/*.py"], env, b""))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lines", type=int, default=300_000)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--path", default="src/a.py", help="the path read (default: G7's, unrelated to the lines)")
    ap.add_argument("--src", default=SRC, help="the source tree measured (default: this checkout's)")
    ap.add_argument("--before", help="an older source tree, run in the same rounds")
    ap.add_argument("--cli", action="store_true", help="also check-ignore, explain and glob")
    ap.add_argument("--tree", help="where the tree is made (default: /tmp/pathgate-g7-LINES)")
    args = ap.parse_args()
    root = args.tree or f"/tmp/pathgate-g7-{args.lines}"
    make_tree(root, args.lines)
    srcs = {"after": args.src, **({"before": args.before} if args.before else {})}
    with tempfile.TemporaryDirectory() as cache:
        cases = _cases(root, args.path, srcs, args.cli, cache)
        for _, cmd, env, stdin in cases:  # warm the byte-code caches and the page cache
            _timed(cmd, env, stdin, root)
        results: dict[str, list[tuple[float, int]]] = {name: [] for name, *_ in cases}
        outputs: dict[str, set[bytes]] = {name: set() for name, *_ in cases}
        for _ in range(args.runs):
            for name, cmd, env, stdin in cases:
                wall, rss, stdout = _timed(cmd, env, stdin, root)
                results[name].append((wall, rss))
                outputs[name].add(stdout)
    size = os.path.getsize(os.path.join(root, ".gitignore"))
    print(f"{args.lines} lines ({size / 1e6:.1f} MB), Read {args.path}, {args.runs} runs, "
          f"load {os.getloadavg()[0]:.2f}")
    git = max(statistics.median(w for w, _ in results["git check-ignore"]), 0.01)  # (/usr/bin/time: 10 ms steps)
    for name, rows in results.items():
        wall = statistics.median(w for w, _ in rows)
        rss = statistics.median(r for _, r in rows) / 1024
        print(f"  {name:32} {wall:6.2f} s  {rss:7.1f} MiB  ({wall / git:5.1f}x git)  outputs={len(outputs[name])}")
    for label in srcs:
        for kind in ("hook", "check-ignore", "check-ignore -vn --stdin", "explain", "glob"):
            a, b = outputs.get(f"{kind} after", set()), outputs.get(f"{kind} {label}", set())
            if a and b and a != b:
                print(f"  !! {kind}: outputs differ between after and {label}")


if __name__ == "__main__":
    main()

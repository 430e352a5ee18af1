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

``--kind star`` (red team 20 L1) makes the ``.gitignore`` of distinct star-run lines whose literal
pieces all occur in ``src/data_blob_1.py`` (``*[dw]?*a_*[lz]o*[!y1]``, ``**/s*/*ta_*[oq]b_*[7q]``; none
matches), which a scan cannot narrow, and reads that file (60,000 lines: 1.7 MB)::

    python3 benchmarks/bench_hook_ignore.py --kind star --lines 60000 --runs 5 --before /tmp/old/src
"""

from __future__ import annotations

import argparse
import json
import os
import random
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


STAR_PATH = "src/data_blob_1.py"


def star_lines(n: int, name: str = "data_blob_1.py", seed: int = 0) -> list[str]:
    """``n`` distinct lines of star runs and pieces of ``name`` in order (some as ``?`` or a
    bracket holding the character), each ending in what ``name`` does not end with: every
    line is a candidate for the path and none matches (all are read, last to first)."""
    rnd = random.Random(seed)
    out: list[str] = []
    seen: set[str] = set()
    while len(out) < n:
        i, pieces = rnd.randrange(0, 3), []
        while i < len(name) - 1 and len(pieces) < rnd.randint(3, 6):
            k = rnd.randint(1, 3)
            piece = ""
            for c in name[i:i + k]:
                r = rnd.random()
                piece += "?" if r < .15 else f"[{c}{rnd.choice('xyzqw')}]" if r < .35 else c
            pieces.append(piece)
            i += k + rnd.randint(0, 2)
        bad = rnd.choice([f"[!{name[-1]}{rnd.choice('0123456789')}]", f"[{rnd.choice('0123456789')}q]",
                          "?" * (15 + rnd.randint(0, 9))])
        kind = rnd.random()
        if kind < .6:
            line = "*" + "*".join(pieces) + "*" + "*" * rnd.randint(0, 3) + bad
        elif kind < .8:
            line = "**/s*/*" + "*".join(pieces) + "*" + bad
        else:
            line = "*" + "*".join(pieces) + "*" + f"1[q{rnd.choice('xyzw')}]" + "*"
        line = ("!" if rnd.random() < .1 else "") + line + ("/" if rnd.random() < .1 else "")
        if line not in seen:
            seen.add(line)
            out.append(line)
    return out


def make_star_tree(root: str, lines: int) -> None:
    """A ``.gitignore`` of :func:`star_lines` and ``src/data_blob_1.py``."""
    if os.path.exists(os.path.join(root, STAR_PATH)):
        return
    os.makedirs(os.path.join(root, "src"), exist_ok=True)
    subprocess.run(["git", "init", "-q", root], check=True)
    with open(os.path.join(root, ".gitignore"), "w") as f:
        f.write("\n".join(star_lines(lines)) + "\n")
    with open(os.path.join(root, STAR_PATH), "w") as f:
        f.write("x\n")


def _timed(cmd: list[str], env: dict[str, str], stdin: bytes, cwd: str) -> tuple[float, float, int, bytes]:
    """``(wall s, CPU s (user + system), peak RSS KiB, stdout)`` of one run under ``/usr/bin/time``."""
    with tempfile.NamedTemporaryFile() as out:
        proc = subprocess.run(["/usr/bin/time", "-f", "%e %U %S %M", "-o", out.name, *cmd], input=stdin,
                              capture_output=True, env=env, cwd=cwd, check=False)
        wall, user, system, rss = open(out.name).read().split()[-4:]
    return float(wall), float(user) + float(system), int(rss), proc.stdout


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
    ap.add_argument("--kind", choices=("g7", "star"), default="g7",
                    help="the .gitignore: G7's (default) or star-run lines (red team 20 L1)")
    ap.add_argument("--lines", type=int, default=300_000)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--path", help="the path read (default: G7's src/a.py, unrelated to the lines; with --kind star "
                                   "src/data_blob_1.py)")
    ap.add_argument("--src", default=SRC, help="the source tree measured (default: this checkout's)")
    ap.add_argument("--before", help="an older source tree, run in the same rounds")
    ap.add_argument("--cli", action="store_true", help="also check-ignore, explain and glob")
    ap.add_argument("--tree", help="where the tree is made (default: /tmp/pathgate-g7-LINES)")
    args = ap.parse_args()
    root = args.tree or f"/tmp/pathgate-{args.kind}-{args.lines}"
    (make_star_tree if args.kind == "star" else make_tree)(root, args.lines)
    args.path = args.path or (STAR_PATH if args.kind == "star" else "src/a.py")
    srcs = {"after": args.src, **({"before": args.before} if args.before else {})}
    with tempfile.TemporaryDirectory() as cache:
        cases = _cases(root, args.path, srcs, args.cli, cache)
        for _, cmd, env, stdin in cases:  # warm the byte-code caches and the page cache
            _timed(cmd, env, stdin, root)
        results: dict[str, list[tuple[float, float, int]]] = {name: [] for name, *_ in cases}
        outputs: dict[str, set[bytes]] = {name: set() for name, *_ in cases}
        for _ in range(args.runs):
            for name, cmd, env, stdin in cases:
                wall, cpu, rss, stdout = _timed(cmd, env, stdin, root)
                results[name].append((wall, cpu, rss))
                outputs[name].add(stdout)
    size = os.path.getsize(os.path.join(root, ".gitignore"))
    print(f"{args.lines} lines ({size / 1e6:.1f} MB), Read {args.path}, {args.runs} runs, "
          f"load {os.getloadavg()[0]:.2f}")
    git = max(statistics.median(w for w, _, _ in results["git check-ignore"]), 0.01)  # (/usr/bin/time: 10 ms steps)
    git_cpu = max(statistics.median(c for _, c, _ in results["git check-ignore"]), 0.01)
    for name, rows in results.items():
        wall = statistics.median(w for w, _, _ in rows)
        cpu = statistics.median(c for _, c, _ in rows)
        rss = statistics.median(r for _, _, r in rows) / 1024
        print(f"  {name:32} {wall:6.2f} s  CPU {cpu:6.2f} s  {rss:7.1f} MiB  ({wall / git:5.1f}x git, CPU "
              f"{cpu / git_cpu:5.1f}x)  outputs={len(outputs[name])}")
    for label in srcs:
        for kind in ("hook", "check-ignore", "check-ignore -vn --stdin", "explain", "glob"):
            a, b = outputs.get(f"{kind} after", set()), outputs.get(f"{kind} {label}", set())
            if a and b and a != b:
                print(f"  !! {kind}: outputs differ between after and {label}")


if __name__ == "__main__":
    main()

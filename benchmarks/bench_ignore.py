"""Ignore engine vs git, side by side in one run (issue 2).

    python3 benchmarks/bench_ignore.py                 # materializes eugenp-tutorials
    python3 benchmarks/bench_ignore.py --tree PATH     # your own work tree

Measures, each as the median of ``--repeat`` runs:

(a) classify every file path in **shuffled** order: pathgate with a warm index (a fresh
    session, so each directory's ignore files are stat-checked once, as in a real call;
    and the same session again, fully warm) against ``git check-ignore --no-index --stdin``
    on the same shuffled list, and on the sorted list (whole process);
(b) the pruning walk of the whole tree against ``git ls-files --others --exclude-standard``;
(c) a cold start: new index, first decision of one deep path; a cold classification of
    every path; and the peak memory of the cold classification (tracemalloc);
(d) another Python ignore library on the same shuffled list: pathspec's ``GitIgnoreSpec``,
    one spec per ``.gitignore``, evaluated the way agent frameworks usually nest it (deepest
    file with a match decides, ancestors top-down, an excluded directory excludes its
    contents); its time and how many of its answers differ from git's.

git runs isolated (``GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1
-c core.excludesFile=/dev/null``); pathgate uses the matching git-only config.
The path list is git's own (``ls-files --others`` with and without ``--ignored``), so both
answer the same questions. Trees are materialized under ``benchmarks/.trees/`` (gitignored).
"""

from __future__ import annotations

import argparse
import gc
import os
import random
import resource
import statistics
import subprocess
import sys
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
SHARED = REPO.parent / "shared"
sys.path.insert(0, str(REPO / "src"))

from pathgate.runtime._walk import walk  # noqa: E402
from pathgate.runtime.ignore import IgnoreConfig, IgnoreIndex  # noqa: E402

GIT_ENV = {**os.environ, "GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1",
           "LC_ALL": "C"}
GIT = ["git", "-c", "core.excludesFile=/dev/null", "-c", "core.untrackedCache=false",
       "-c", "core.fsmonitor=false"]


def median_time(fn: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        gc.collect()
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def ensure_tree(args: argparse.Namespace) -> Path:
    if args.tree:
        tree = Path(args.tree).resolve()
        if not (tree / ".git").exists():
            subprocess.run(["git", "init", "-q", str(tree)], check=True, env=GIT_ENV)
        return tree
    tree = HERE / ".trees" / args.corpus
    if not (tree / ".truth" / "kept.txt").exists():
        if not (SHARED / "corpora" / args.corpus).is_dir():
            sys.exit(f"no --tree given and {SHARED / 'corpora' / args.corpus} not found")
        tree.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run([sys.executable, str(SHARED / "tools" / "materialize_corpus.py"),
                        str(SHARED / "corpora" / args.corpus), str(tree), "--force"], check=True)
        subprocess.run(["bash", str(SHARED / "tools" / "git_truth.sh"), str(tree)], check=True)
    return tree


def git_lines(tree: Path, *args: str) -> list[str]:
    out = subprocess.run([*GIT, "-C", str(tree), *args, "-z"], check=True, env=GIT_ENV,
                         capture_output=True).stdout
    return [p for p in out.decode("utf-8", "surrogateescape").split("\0") if p]


def run_git(tree: Path, args: list[str], stdin: bytes = b"") -> None:
    subprocess.run([*GIT, "-C", str(tree), *args], input=stdin, check=False, env=GIT_ENV,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def pathspec_version() -> str:
    import pathspec

    return str(getattr(pathspec, "__version__", "?"))


def pathspec_classifier(tree: Path) -> tuple[Callable[[str], bool], float]:
    """A competitor: pathspec's GitIgnoreSpec per ``.gitignore`` file, nested the usual way."""
    import pathspec

    t = time.perf_counter()
    specs: dict[str, pathspec.GitIgnoreSpec] = {}
    for dirpath, dirnames, filenames in os.walk(tree):
        rel = os.path.relpath(dirpath, tree)
        rel = "" if rel == "." else rel
        dirnames[:] = [d for d in dirnames if d != ".git" and not (not rel and d == ".truth")]
        if ".gitignore" in filenames:
            text = Path(dirpath, ".gitignore").read_text("utf-8", "surrogateescape")
            try:
                specs[rel] = pathspec.GitIgnoreSpec.from_lines(text.splitlines())
            except Exception:  # a line pathspec cannot compile: the usual fallback is to skip the file
                continue
    build = time.perf_counter() - t

    def decide(path: str, is_dir: bool) -> bool | None:
        parts = path.split("/")
        for depth in range(len(parts) - 1, -1, -1):
            base = "/".join(parts[:depth])
            spec = specs.get(base)
            if spec is None:
                continue
            sub = "/".join(parts[depth:]) + ("/" if is_dir else "")
            result = spec.check_file(sub)
            if result.include is not None:
                return bool(result.include)
        return None

    def classify(path: str) -> bool:
        parts = path.split("/")
        for i in range(1, len(parts)):
            if decide("/".join(parts[:i]), True):
                return True
        return bool(decide(path, False))

    return classify, build


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tree", help="a work tree to measure (default: a materialized corpus)")
    ap.add_argument("--corpus", default="eugenp-tutorials")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    tree = ensure_tree(args)
    cfg = IgnoreConfig.git_only(excludes_file="/dev/null")

    paths = [p for p in git_lines(tree, "ls-files", "--others", "--exclude-standard")
             + git_lines(tree, "ls-files", "--others", "--ignored", "--exclude-standard")
             if not p.startswith(".truth/")]
    sorted_paths = sorted(paths)
    shuffled = paths[:]
    random.Random(args.seed).shuffle(shuffled)
    payload_shuffled = "".join(p + "\n" for p in shuffled).encode("utf-8", "surrogateescape")
    payload_sorted = "".join(p + "\n" for p in sorted_paths).encode("utf-8", "surrogateescape")
    rows: list[tuple[str, float, str]] = []

    # (c) cold, first: nothing cached yet in this process
    deep = max(paths, key=lambda p: p.count("/"))
    t = time.perf_counter()
    IgnoreIndex(tree, cfg).match(deep)
    cold_first = time.perf_counter() - t
    gc.collect()
    tracemalloc.start()
    idx_mem = IgnoreIndex(tree, cfg)
    s = idx_mem.session()
    for p in shuffled:
        s.match(p)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    del idx_mem, s

    def cold_all() -> None:
        s = IgnoreIndex(tree, cfg).session()
        for p in shuffled:
            s.match(p)

    cold_all_t = median_time(cold_all, max(1, args.repeat // 2))

    # (a) warm classification
    index = IgnoreIndex(tree, cfg)
    warm_session = index.session()
    for p in shuffled:
        warm_session.match(p)

    def pg_fresh_session() -> None:
        s = index.session()
        for p in shuffled:
            s.match(p)

    def pg_same_session() -> None:
        m = warm_session.match
        for p in shuffled:
            m(p)

    git_shuf = median_time(lambda: run_git(tree, ["check-ignore", "--no-index", "--stdin"],
                                           payload_shuffled), args.repeat)
    git_sorted = median_time(lambda: run_git(tree, ["check-ignore", "--no-index", "--stdin"],
                                             payload_sorted), args.repeat)
    pg_fresh = median_time(pg_fresh_session, args.repeat)
    pg_same = median_time(pg_same_session, args.repeat)
    rows += [
        ("(a) git check-ignore --no-index --stdin, shuffled", git_shuf, "1.00"),
        ("(a) git check-ignore --no-index --stdin, sorted", git_sorted, f"{git_sorted / git_shuf:.2f}"),
        ("(a) pathgate, warm index, new session, shuffled", pg_fresh, f"{pg_fresh / git_shuf:.2f}"),
        ("(a) pathgate, warm index, same session, shuffled", pg_same, f"{pg_same / git_shuf:.2f}"),
    ]

    # (b) walk
    git_walk = median_time(lambda: run_git(tree, ["ls-files", "--others", "--exclude-standard"]),
                           args.repeat)
    pg_walk = median_time(lambda: sum(1 for _ in walk(index.session())), args.repeat)

    def pg_walk_cold() -> None:
        sum(1 for _ in walk(IgnoreIndex(tree, cfg).session()))

    pg_walk_c = median_time(pg_walk_cold, max(1, args.repeat // 2))
    rows += [
        ("(b) git ls-files --others --exclude-standard", git_walk, "1.00"),
        ("(b) pathgate walk, warm index", pg_walk, f"{pg_walk / git_walk:.2f}"),
        ("(b) pathgate walk, cold index", pg_walk_c, f"{pg_walk_c / git_walk:.2f}"),
    ]
    rows += [
        ("(c) pathgate cold: new index + first decision (deepest path)", cold_first, ""),
        ("(c) pathgate cold: new index, classify all (shuffled)", cold_all_t,
         f"{cold_all_t / git_shuf:.2f} × git shuffled"),
    ]

    # (d) pathspec, per-directory specs, same shuffled list; accuracy against git's answer
    ignored_truth = set(git_lines(tree, "ls-files", "--others", "--ignored", "--exclude-standard"))
    ps_classify, ps_build = pathspec_classifier(tree)
    ps_t = median_time(lambda: [ps_classify(p) for p in shuffled], args.repeat)
    ps_wrong = sum(1 for p in paths if ps_classify(p) != (p in ignored_truth))
    pg_wrong = sum(1 for p in paths if warm_session.match(p).ignored != (p in ignored_truth))
    rows += [
        (f"(d) pathspec {pathspec_version()} GitIgnoreSpec per directory, shuffled "
         f"(build {ps_build:.2f} s; {ps_wrong} of {len(paths)} answers differ from git)",
         ps_t, f"{ps_t / git_shuf:.2f}"),
        (f"(d) pathgate, same list ({pg_wrong} of {len(paths)} answers differ from git)", pg_fresh,
         f"{pg_fresh / git_shuf:.2f}"),
    ]

    print(f"tree: {tree}  paths: {len(paths)}  python {sys.version.split()[0]}  "
          f"{subprocess.run(['git', '--version'], capture_output=True, text=True).stdout.strip()}")
    print()
    print("| measurement | median s | ratio |")
    print("| --- | ---: | ---: |")
    for name, secs, ratio in rows:
        print(f"| {name} | {secs:.3f} | {ratio} |")
    print(f"| (c) peak traced memory, cold classify all | {peak / 2**20:.1f} MiB | |")
    print(f"| (c) process max RSS | "
          f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB | |")


if __name__ == "__main__":
    main()

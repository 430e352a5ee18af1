"""The live index (issue 15) against git's walk and today's walk, in one run.

    python3 benchmarks/bench_live_index.py --tree /tmp/eugenp      # a materialized corpus
    python3 benchmarks/bench_live_index.py --generate 1000000 --tree /tmp/big   # generated

Measures CPU time (user + sys: the machine is shared), interleaved, medians of ``--repeat``:

* ``git ls-files --others --exclude-standard`` (and with ``'*.java'``), as processes;
* ``Runtime.glob('**/*.java')`` and ``glob('**')`` (``limit=0``, every match, like git;
  and the default limit of 500 sorted matches plus the total): today's walk (warm ignore
  cache) and the live index (warm);
* the first scan (a fresh live index answering its first query, ``list_directory('.')``;
  its inotify watches and the secret-inode registry's first snapshot are made after the
  answer, in a thread: also shown with that thread's work, joined), the index's own scan
  alone, and the latter with a no-op event source;
* index memory (what its structures hold, after two warm globs), per recorded entry, with
  and without the path strings (entry names, directory keys, remembered listings);
* event-to-visible latency: a change is made, then the next query's drain + re-list until
  the change is visible (p50 / p99 over ``--edits`` edits of leaf directories).

``--generate N`` first writes a synthetic tree of about N files (never commit it).
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
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "src"))

import anyio  # noqa: E402

from pathgate import Policy, Runtime  # noqa: E402
from pathgate.runtime._live import LiveIndex  # noqa: E402
from pathgate.runtime._live._inotify import Inotify  # noqa: E402

GIT_ENV = {**os.environ, "GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1", "LC_ALL": "C"}
GIT = ["git", "-c", "core.excludesFile=/dev/null", "-c", "core.untrackedCache=false",
       "-c", "core.fsmonitor=false"]
POLICY = Policy(excludes_file="/dev/null", defaults=())


class _NoEvents(Inotify):
    """An event source that watches nothing (isolates the watches' cost in the scan)."""

    def add_watch(self, path: str, mask: int = 0) -> int:
        return 1


def generate(root: Path, n: int) -> None:
    """About ``n`` files: 100 files per leaf directory, 20-way fan-out, some ignored dirs."""
    if (root / ".generated").exists():
        return
    root.mkdir(parents=True, exist_ok=True)
    subprocess.run(["git", "init", "-q", str(root)], check=True, env=GIT_ENV)
    (root / ".gitignore").write_text("build/\n*.tmp\n")
    leaves = max(1, n // 100)
    for i in range(leaves):
        d = root / f"m{i // 400:03d}" / f"p{(i // 20) % 20:02d}" / f"s{i % 20:02d}"
        d.mkdir(parents=True, exist_ok=True)
        for j in range(100):
            (d / f"F{j:03d}.{'java' if j % 2 else 'txt'}").touch()
        if i % 50 == 0:
            (d / "build").mkdir(exist_ok=True)
            (d / "build" / "out.class").touch()
    (root / ".generated").touch()


def _cpu(who: int) -> float:
    r = resource.getrusage(who)
    return r.ru_utime + r.ru_stime


def git_time(tree: Path, *extra: str) -> tuple[float, int]:
    """CPU seconds (user + sys) of one ``git ls-files`` process, and the files it lists."""
    t = _cpu(resource.RUSAGE_CHILDREN)
    out = subprocess.run([*GIT, "-C", str(tree), "ls-files", "--others", "--exclude-standard", "-z", *extra],
                         check=True, env=GIT_ENV, stdout=subprocess.PIPE).stdout
    return _cpu(resource.RUSAGE_CHILDREN) - t, out.count(b"\0")


async def timed(fn: Callable[[], Any]) -> tuple[float, Any]:
    """CPU seconds (user + sys, every thread of this process) of one awaited call: the
    machine is shared, so CPU time, not wall time, is compared with git's."""
    gc.collect()
    t = _cpu(resource.RUSAGE_SELF)
    r = await fn()
    return _cpu(resource.RUSAGE_SELF) - t, r


async def first_scan(tree: Path, inotify: Callable[[], Inotify]) -> tuple[float, float, Runtime]:
    """CPU seconds of a fresh live index's first answer, and of that answer plus the
    work its thread does afterwards (the watches, then, since 2026-12-01's fourth session,
    the secret-inode registry's seed; joined)."""
    rt = Runtime(tree, POLICY, live_index=True)
    rt.live_index = LiveIndex(rt.index, inotify=inotify)
    gc.collect()
    t0 = _cpu(resource.RUSAGE_SELF)
    await rt.list_directory(".")
    t = _cpu(resource.RUSAGE_SELF) - t0
    deferred = getattr(rt.live_index, "_deferred", None)  # (2026-12-01, third session)
    if deferred is not None:
        deferred.finish()
    return t, _cpu(resource.RUSAGE_SELF) - t0, rt


def index_scan(tree: Path, inotify: Callable[[], Inotify]) -> float:
    """CPU seconds of the index's own first scan (no registry, no tool call)."""
    rt = Runtime(tree, POLICY)
    live = LiveIndex(rt.index, inotify=inotify)
    gc.collect()
    t = _cpu(resource.RUSAGE_SELF)
    live.entries("", lambda _r: False)
    t = _cpu(resource.RUSAGE_SELF) - t
    live.close()
    return t


def _deep(obj: Any, seen: set[int]) -> int:
    """``sys.getsizeof`` of ``obj`` and what it holds (containers, a record's slots), each
    object once; a ``Match`` counts itself, not its rule (shared with the ignore cache)."""
    if id(obj) in seen:
        return 0
    seen.add(id(obj))
    size = sys.getsizeof(obj)
    if isinstance(obj, dict):
        return size + sum(_deep(k, seen) + _deep(v, seen) for k, v in obj.items())
    if isinstance(obj, (list, tuple, set, frozenset)):
        return size + sum(_deep(x, seen) for x in obj)
    for slot in getattr(type(obj), "__slots__", ()) if type(obj).__name__ in ("_Dir", "Omissions") else ():
        if hasattr(obj, slot):
            size += _deep(getattr(obj, slot), seen)
    return size


async def index_memory(tree: Path) -> tuple[int, int, int]:
    """(bytes the index holds after a first scan and two warm globs, bytes of its path
    strings, recorded entries): its records (names, kinds, decisions, verdict classes),
    its dictionaries (directories, watches), the registry check's unwatched list, the
    remembered listings inside excluded directories and the flattened plain records. Match objects are counted; the
    ignore cache and the secret-inode registry (today's too) are not the index."""
    rt = Runtime(tree, POLICY, live_index=True)
    await rt.glob("**", limit=0)
    await rt.glob("**/*.java", limit=0)
    live = rt.live_index
    assert live is not None
    seen: set[int] = set()
    strings = 0
    for rel, d in live._dirs.items():
        for n in (rel, *d.names):
            if id(n) not in seen:
                seen.add(id(n))
                strings += sys.getsizeof(n)
    for lst in live.counts._items.values():
        for f, _kind in lst.files:
            if id(f) not in seen:
                seen.add(id(f))
                strings += sys.getsizeof(f)
    parts = getattr(live, "_globs", live)  # (the kept glob parts moved to _live/_globs.py)
    flat = getattr(parts, "flat", getattr(live, "_flat", None))  # the flattened plain records (2026-11-30)
    for f in () if flat is None else (*flat[2].plain, *flat[2].odd):
        if id(f) not in seen:
            seen.add(id(f))
            strings += sys.getsizeof(f)
    odd = getattr(parts, "odd", getattr(live, "_odd", {}))  # the kept per-pattern part of warm globs
    outcomes = getattr(live.counts, "_outcomes", {})
    for scan in odd.values():
        for f in (*scan.matches, *(e.relpath for e in scan.excluded), *(e.relpath for _, e in scan.links)):
            if id(f) not in seen:
                seen.add(id(f))
                strings += sys.getsizeof(f)
    reg = live._reg
    held = _deep(live._dirs, seen) + _deep(live._wds, seen) + _deep(live.counts._items, seen) + \
        (0 if reg is None else _deep(reg[2], seen)) + (0 if flat is None else _deep(flat, seen)) + \
        _deep(odd, seen) + _deep(outcomes, seen)
    entries = sum(len(d.names) for d in live._dirs.values())
    await rt.aclose()
    return held + strings, strings, entries


async def latency(rt: Runtime, tree: Path, edits: int) -> list[float]:
    """Seconds from a change (after its system call returned) to a query that shows it."""
    live = rt.live_index
    assert live is not None
    live.entries("")
    kept = sorted(r for r, d in live._dirs.items() if r and d.error is None and d.names)
    rng = random.Random(0)
    out: list[float] = []
    for i in range(edits):
        rel = rng.choice(kept)
        d = tree / rel
        name = f"Edit{i}.java"
        (d / name).touch()
        t = time.perf_counter()
        got = live.entries(rel, lambda _r: False, None)
        out.append(time.perf_counter() - t)
        assert got is not None and any(e.relpath == f"{rel}/{name}" for e in got)
        (d / name).unlink()
        live.entries(rel, lambda _r: False, None)
    return out


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


async def run(tree: Path, repeat: int, edits: int) -> None:
    rows: list[tuple[str, float]] = []
    med: dict[str, list[float]] = {k: [] for k in
                                   ("git", "git_java", "walk_all", "walk_java", "live_all", "live_java",
                                    "live_all_500", "live_java_500", "scan", "scan_watched", "scan_index",
                                    "scan_noev")}
    walker = Runtime(tree, POLICY)
    await walker.glob("**", limit=0)  # warm the ignore cache
    scan_t, watched_t, live = await first_scan(tree, Inotify)
    med["scan"].append(scan_t)
    med["scan_watched"].append(watched_t)
    n_live = (await live.glob("**", limit=0)).total
    n_walk = (await walker.glob("**", limit=0)).total
    _, n_git = git_time(tree)
    for _ in range(repeat):
        med["git"].append(git_time(tree)[0])
        med["git_java"].append(git_time(tree, "*.java")[0])
        med["walk_all"].append((await timed(lambda: walker.glob("**", limit=0)))[0])
        med["walk_java"].append((await timed(lambda: walker.glob("**/*.java", limit=0)))[0])
        med["live_all"].append((await timed(lambda: live.glob("**", limit=0)))[0])
        med["live_java"].append((await timed(lambda: live.glob("**/*.java", limit=0)))[0])
        med["live_all_500"].append((await timed(lambda: live.glob("**")))[0])
        med["live_java_500"].append((await timed(lambda: live.glob("**/*.java")))[0])
    for _ in range(max(1, repeat // 2)):
        t, tw, rt = await first_scan(tree, Inotify)
        med["scan"].append(t)
        med["scan_watched"].append(tw)
        await rt.aclose()
        med["scan_index"].append(index_scan(tree, Inotify))
        med["scan_noev"].append(index_scan(tree, _NoEvents))
    m = {k: statistics.median(v) for k, v in med.items()}
    lat = await latency(live, tree, edits)
    assert live.live_index is not None
    watches, dirs = live.live_index.watches, live.live_index.dirs
    await live.aclose()
    mem, strings, n_entries = await index_memory(tree)
    print(f"tree={tree} files: git={n_git} pathgate(walk)={n_walk} pathgate(live)={n_live}; "
          f"kept dirs={dirs} watches={watches} index entries={n_entries}")
    rows = [
        ("git ls-files -o --exclude-standard", m["git"]),
        ("git ls-files -o --exclude-standard '*.java'", m["git_java"]),
        ("pathgate glob('**'), today's walk (warm)", m["walk_all"]),
        ("pathgate glob('**/*.java'), today's walk (warm)", m["walk_java"]),
        ("pathgate glob('**'), live index (warm)", m["live_all"]),
        ("pathgate glob('**/*.java'), live index (warm)", m["live_java"]),
        ("pathgate glob('**'), live index (warm), default limit 500", m["live_all_500"]),
        ("pathgate glob('**/*.java'), live index (warm), default limit 500", m["live_java_500"]),
        ("live index first answer (first list_directory('.'), its scan included)", m["scan"]),
        ("  same, with what its thread does after the answer (watches, registry seed; joined)",
         m["scan_watched"]),
        ("  the index's own scan alone", m["scan_index"]),
        ("  same, no-op event source (watch cost removed)", m["scan_noev"]),
    ]
    print("| measurement | median CPU s | vs git (same pattern) |\n|---|---:|---:|")
    for name, v in rows:
        ref = m["git_java"] if "java" in name else m["git"]
        print(f"| {name} | {v:.4f} | {v / ref:.2f}× |")
    print(f"warm live speed-up vs git: glob('**') {m['git'] / m['live_all']:.1f}×, "
          f"glob('**/*.java') {m['git_java'] / m['live_java']:.1f}×; first scan / git walk "
          f"{m['scan'] / m['git']:.2f}× (index scan alone {m['scan_index'] / m['git']:.2f}×)")
    print(f"index memory: {mem / n_entries:.0f} B per entry ({(mem - strings) / n_entries:.0f} B above "
          f"the path strings), {mem / 2**20:.1f} MiB total")
    print(f"event-to-visible (drain + re-list, {edits} edits): p50 {pct(lat, .5) * 1e3:.2f} ms, "
          f"p99 {pct(lat, .99) * 1e3:.2f} ms, max {max(lat) * 1e3:.2f} ms")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--tree", required=True)
    ap.add_argument("--generate", type=int, default=0)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--edits", type=int, default=300)
    args = ap.parse_args()
    tree = Path(args.tree).resolve()
    if args.generate:
        generate(tree, args.generate)
    anyio.run(run, tree, args.repeat, args.edits)


if __name__ == "__main__":
    main()

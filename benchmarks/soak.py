"""Soak: many agents on one runtime while another task rewrites ``.gitignore`` files.

``AGENTS`` concurrent agents each make ``CALLS`` mixed tool calls (read_files, glob,
list_directory, code_search) on one shared :class:`pathgate.Runtime`, while a rewriter task
atomically replaces the ``.gitignore`` of random directories with one of a few versions.

Every ignore decision an agent sees is checked against ``git check-ignore --no-index``:
each directory's ignore rules only govern that directory, so git is asked once per version
(all directories at that version at once) and a decision is correct when it equals git's for
one of the versions that directory's ``.gitignore`` had while the call ran (the file as it was
before or after each rewrite). Read results, glob matches, directory listings and search hits
are all checked. Descriptors (``/proc/self/fd``) and RSS are sampled before, during and
after; calls per second and latency percentiles are printed (and ``--json`` written).

    python3 benchmarks/soak.py                        # 50 agents x 1,000 calls
    python3 benchmarks/soak.py --agents 10 --calls 100 --json out.json
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio

from pathgate import Policy, Runtime

DIRS = 16
FILES_PER_DIR = 24
#: The versions a directory's .gitignore cycles through (version 0 is the initial one).
VERSIONS: tuple[str, ...] = (
    "*.log\n",
    "*.log\n*.tmp\nf1*\n",
    "*\n!*.py\n!keep*\n",
    "# nothing\n",
    "f0?.txt\n!f01.txt\n/sub/\n",
)
EXTS = (".py", ".txt", ".log", ".tmp")
TMP_SUFFIX = ".soak-new"
GIT_ENV = {
    **{k: v for k, v in os.environ.items() if not k.startswith("GIT_")},
    "GIT_CONFIG_GLOBAL": "/dev/null",
    "GIT_CONFIG_NOSYSTEM": "1",
    "LC_ALL": "C",
}


def build(root: Path) -> list[str]:
    """The tree: ``dNN/`` with files of every extension and a ``sub/`` directory. Returns every
    file relpath (sorted)."""
    files: list[str] = []
    for d in range(DIRS):
        base = root / f"d{d:02d}"
        (base / "sub").mkdir(parents=True)
        for i in range(FILES_PER_DIR):
            name = ("keep" if i % 7 == 0 else "f") + f"{i:02d}{EXTS[i % len(EXTS)]}"
            (base / name).write_text(f"needle {d} {i}\n")
            files.append(f"d{d:02d}/{name}")
        (base / "sub" / "s.py").write_text("needle sub\n")
        files.append(f"d{d:02d}/sub/s.py")
        (base / ".gitignore").write_text(VERSIONS[0])
        files.append(f"d{d:02d}/.gitignore")
    (root / "top.py").write_text("needle top\n")
    (root / ".env").write_text("TOKEN=SOAKSECRET\n")
    return sorted(files)


def git_ignored(git: str, root: Path, files: Sequence[str], version: int) -> set[str]:
    """The files git ignores when every directory's .gitignore is at ``version``."""
    scratch = Path(tempfile.mkdtemp(prefix="pg-soak-git-"))
    try:
        subprocess.run([git, "init", "-q", str(scratch)], check=True, env=GIT_ENV)
        for rel in files:
            (scratch / rel).parent.mkdir(parents=True, exist_ok=True)
            (scratch / rel).touch()
        for d in range(DIRS):  # (written after the files: they are in the list too)
            (scratch / f"d{d:02d}" / ".gitignore").write_text(VERSIONS[version])
        proc = subprocess.run(
            [git, "-c", "core.excludesFile=/dev/null", "check-ignore", "--no-index", "--stdin", "-z"],
            cwd=scratch, input=b"".join(os.fsencode(f) + b"\0" for f in files),
            capture_output=True, env=GIT_ENV, check=False,
        )
        if proc.returncode not in (0, 1):
            raise RuntimeError(proc.stderr.decode())
        return {p.decode() for p in proc.stdout.split(b"\0") if p}
    finally:
        shutil.rmtree(scratch)


@dataclass
class Timeline:
    """Per directory: (time the rewrite started, version), in order."""

    events: dict[str, list[tuple[float, int]]] = field(default_factory=dict)

    def allowed(self, d: str, t0: float, t1: float) -> set[int]:
        """Versions the directory's file had at some moment of [t0, t1]."""
        ev = self.events[d]
        out = set()
        for k, (start, version) in enumerate(ev):
            end = ev[k + 1][0] if k + 1 < len(ev) else float("inf")
            if start <= t1 and end >= t0:
                out.add(version)
        return out


def fd_count() -> int:
    return len(os.listdir("/proc/self/fd"))


def rss_mib() -> float:
    with open("/proc/self/statm") as fh:
        pages = int(fh.read().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE") / (1 << 20)


@dataclass
class Stats:
    latencies: list[float] = field(default_factory=list)
    decisions: int = 0
    errors: list[str] = field(default_factory=list)
    rewrites: int = 0
    samples: list[tuple[float, int, float]] = field(default_factory=list)


def _dir_of(rel: str) -> str:
    return rel.split("/", 1)[0]


def check(tool: str, args: dict[str, Any], out: Any, t0: float, t1: float, files: Sequence[str],
          ignored: list[set[str]], timeline: Timeline, stats: Stats) -> None:
    """Compare every ignore decision visible in ``out`` with git's for an allowed version."""
    if isinstance(out, dict) and "error" in out:
        stats.errors.append(f"{tool} {args}: {out}")
        return
    if "SOAKSECRET" in json.dumps(out):
        stats.errors.append(f"{tool} {args}: secret content")

    def ok(rel: str, seen_ignored: bool) -> bool:
        d = _dir_of(rel)
        if d not in timeline.events:
            return not seen_ignored
        return any((rel in ignored[v]) == seen_ignored for v in timeline.allowed(d, t0, t1))

    def dir_set_ok(d: str, seen: set[str], universe: list[str]) -> bool:
        seen = {f for f in seen if not f.endswith(TMP_SUFFIX)}  # the rewriter's temporary file
        return any(seen == {f for f in universe if f not in ignored[v]}
                   for v in timeline.allowed(d, t0, t1))

    if tool == "read_files":
        for entry in out["files"]:
            rel = entry["path"]
            if rel not in files:
                continue
            seen = entry["status"] == "blocked" and entry.get("gate") == "ignore"
            stats.decisions += 1
            if not ok(rel, seen):
                stats.errors.append(f"read {rel}: ignored={seen} at versions "
                                    f"{timeline.allowed(_dir_of(rel), t0, t1)}")
    elif tool == "glob":
        d = args["path"]
        universe = [f for f in files if f.startswith(d + "/")]
        seen = set(out["matches"])
        stats.decisions += len(universe)
        if not dir_set_ok(d, seen, universe):
            stats.errors.append(f"glob {d}: {sorted(seen)} at versions {timeline.allowed(d, t0, t1)}")
    elif tool == "list_directory":
        d = args["path"]
        universe = [f for f in files if f.startswith(d + "/") and "/" not in f[len(d) + 1:]]
        seen = {f"{d}/{e['name']}" for e in out["entries"] if e["kind"] == "file"}
        stats.decisions += len(universe)
        if not dir_set_ok(d, seen, universe):
            stats.errors.append(f"list {d}: {sorted(seen)} at versions {timeline.allowed(d, t0, t1)}")
    elif tool == "code_search":
        d = args["path"]
        universe = [f for f in files if f.startswith(d + "/") and not f.endswith("/.gitignore")]
        seen = {h["path"] for h in out["hits"]}
        stats.decisions += len(universe)
        if not dir_set_ok(d, seen, universe):
            stats.errors.append(f"search {d}: {sorted(seen)} at versions {timeline.allowed(d, t0, t1)}")


async def soak(root: Path, agents: int, calls: int, rewrite_every: float, git: str,
               seed: int = 0) -> dict[str, Any]:
    files = build(root)
    ignored = [git_ignored(git, root, files, v) for v in range(len(VERSIONS))]
    dirs = sorted({_dir_of(f) for f in files if "/" in f})
    # git's own sources only, as in the oracle tests: no built-in defaults, no agent files
    rt = Runtime(root, policy=Policy(defaults=(), agent_files=(), git_sources=False))
    timeline = Timeline({d: [(0.0, 0)] for d in dirs})
    stats = Stats()
    def pick_call(r: random.Random) -> tuple[str, dict[str, Any]]:
        d = r.choice(dirs)
        kind = r.random()
        if kind < 0.4:
            paths = [*r.sample([f for f in files if f.startswith(d + "/")], 4), r.choice(files), ".env"]
            return "read_files", {"paths": paths}
        if kind < 0.6:
            return "glob", {"pattern": "**/*", "path": d, "limit": 0}
        if kind < 0.8:
            return "list_directory", {"path": d}
        return "code_search", {"regex": "needle", "path": d, "max_results": 0}

    # warm up (threads, caches), then take the baseline
    for d in dirs:
        await rt.call("glob", {"pattern": "**/*", "path": d}, renderer="structured")
    base_fd, base_rss = fd_count(), rss_mib()
    stats.samples.append((0.0, base_fd, base_rss))
    done = anyio.Event()
    start = time.monotonic()

    async def rewriter() -> None:
        r = random.Random(seed + 1)
        while not done.is_set():
            d = r.choice(dirs)
            current = timeline.events[d][-1][1]
            version = r.choice([v for v in range(len(VERSIONS)) if v != current])
            tmp = root / d / (".gitignore" + TMP_SUFFIX)
            tmp.write_text(VERSIONS[version])
            timeline.events[d].append((time.monotonic(), version))
            os.replace(tmp, root / d / ".gitignore")
            stats.rewrites += 1
            await anyio.sleep(rewrite_every)

    async def sampler() -> None:
        while not done.is_set():
            await anyio.sleep(0.5)
            stats.samples.append((time.monotonic() - start, fd_count(), rss_mib()))

    async def agent(a: int) -> None:
        r = random.Random(seed * 1000 + a)
        for _ in range(calls):
            tool, args = pick_call(r)
            t0 = time.monotonic()
            out = await rt.call(tool, args, renderer="structured", agent=f"agent-{a}")
            t1 = time.monotonic()
            stats.latencies.append(t1 - t0)
            check(tool, args, out, t0, t1, files, ignored, timeline, stats)

    async with anyio.create_task_group() as outer:
        outer.start_soon(rewriter)
        outer.start_soon(sampler)
        async with anyio.create_task_group() as tg:
            for a in range(agents):
                tg.start_soon(agent, a)
        done.set()
    wall = time.monotonic() - start
    end_fd, end_rss = fd_count(), rss_mib()
    lat = sorted(stats.latencies)

    def pct(p: float) -> float:
        return lat[min(len(lat) - 1, int(p * len(lat)))] * 1000

    max_rss = max(s[2] for s in [*stats.samples, (0, 0, end_rss)])
    return {
        "agents": agents,
        "calls_per_agent": calls,
        "calls": len(lat),
        "wall_s": round(wall, 2),
        "calls_per_s": round(len(lat) / wall, 1),
        "p50_ms": round(pct(0.50), 2),
        "p99_ms": round(pct(0.99), 2),
        "max_ms": round(lat[-1] * 1000, 2),
        "rewrites": stats.rewrites,
        "decisions_checked": stats.decisions,
        "errors": stats.errors[:20],
        "error_count": len(stats.errors),
        "fd_before": base_fd,
        "fd_after": end_fd,
        "fd_max": max(s[1] for s in stats.samples),
        "rss_before_mib": round(base_rss, 1),
        "rss_after_mib": round(end_rss, 1),
        "rss_max_mib": round(max_rss, 1),
        "backend": "asyncio",
        "python": sys.version.split()[0],
    }


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--agents", type=int, default=50)
    ap.add_argument("--calls", type=int, default=1000, help="calls per agent")
    ap.add_argument("--rewrite-every", type=float, default=0.005, help="seconds between rewrites")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", type=Path, help="also write the figures here")
    args = ap.parse_args(argv)
    git = shutil.which("git")
    if git is None:
        print("soak: needs git as the oracle", file=sys.stderr)
        return 2
    root = Path(tempfile.mkdtemp(prefix="pg-soak-"))
    try:
        result = anyio.run(soak, root, args.agents, args.calls, args.rewrite_every, git, args.seed)
    finally:
        shutil.rmtree(root)
    print(json.dumps(result, indent=2))
    if args.json:
        args.json.write_text(json.dumps(result, indent=2))
    return 1 if result["error_count"] else 0


if __name__ == "__main__":
    sys.exit(main())

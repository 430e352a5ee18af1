"""Ignore compile reuse, the event loop during a huge compile, deep paths (issue 19, helper dp).

Two source trees side by side, interleaved round by round (``--before`` then ``--after``,
the order alternating), each measurement in a fresh interpreter:

    python3 benchmarks/bench_compile_deep.py --before /tmp/dp/before/src --after src

* ``four``: one new runtime on a tree whose root ``.gitignore`` is 256 KiB (the hardening
  test's file: 9,700 path lines, every 100th a glob): ``read_files`` of six paths (three
  ignored, verbose: remedies verified), ``glob **/*``, ``list_directory``, ``code_search``,
  a verbose read of an ignored file again, and a second runtime's read. Wall time of each and
  how many times the file was compiled (``IgnoreList.from_bytes`` calls for it).
* ``lag``: a 300,000-line ``.gitignore`` (distinct lines: path literals, globs) compiled in a
  worker thread (``asyncio.to_thread``) while a task sleeps 2 ms in a loop on the event
  loop; the overshoot of each sleep (max, p99) and, first, the same ticker for 0.5 s with
  nothing else running (the machine's own lag); the garbage collections during the compile
  (full ones, and the longest: a collection holds the interpreter lock throughout).
* ``deep``: a 1,000-level tree: ``read_files`` of the leaf, ``list_directory`` of its
  directory, ``glob **/*.txt`` (medians of 5 warm calls); a 100,000-character spelling (no
  such file) given to ``list_directory`` and to ``glob`` as path and as pattern.
* ``new``: a new ``Runtime`` and its first ``read_files`` on a git repository (median of 20).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve()
DEPTH = 1000
LONG = ("abcdefghi/" * 10_000)[:-1]


# -- fixtures (built once by the parent) -----------------------------------------------------


def build(base: Path) -> None:
    four = base / "four"
    four.mkdir()
    lines = []
    size = i = 0
    while size < 256 << 10:
        chunk = b"generated/output_%07d.tmp\n" % i if i % 100 else b"generated/output_%07d_*.tmp\n" % i
        lines.append(chunk)
        size += len(chunk)
        i += 1
    lines.append(b"*.secretlog\n!keep.secretlog\n")
    (four / ".gitignore").write_bytes(b"".join(lines))
    for rel, text in {"a.txt": "alpha needle\n", "x.secretlog": "x\n", "keep.secretlog": "k\n",
                      "generated/output_0000042.tmp": "g\n", "generated/output_0000100_z.tmp": "g\n",
                      "generated/output_0000101_z.tmp": "kept needle\n"}.items():
        (four / rel).parent.mkdir(parents=True, exist_ok=True)
        (four / rel).write_text(text)
    huge = base / "huge.gitignore"
    huge.write_bytes(b"".join(b"gen/out_%07d.tmp\n" % n if n % 3 else b"*x%07d*.log\n" % n
                              for n in range(300_000)))
    deep = base / "deep"
    deep.mkdir()
    fd = os.open(deep, os.O_RDONLY)
    for _ in range(DEPTH):
        os.mkdir("d", dir_fd=fd)
        nfd = os.open("d", os.O_RDONLY, dir_fd=fd)
        os.close(fd)
        fd = nfd
    w = os.open("leaf.txt", os.O_CREAT | os.O_WRONLY, 0o644, dir_fd=fd)
    os.write(w, b"deep needle\n")
    os.close(w)
    os.close(fd)
    (deep / ".gitignore").write_text("*.log\n")
    repo = base / "repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / "README.md").write_text("hello\n")
    (repo / ".gitignore").write_text("*.log\nbuild/\n")


def remove(base: Path) -> None:
    deep = base / "deep"
    if deep.exists():  # deeper than shutil.rmtree's recursion: renamed up level by level
        cur = deep
        while (cur / "d").is_dir():
            (cur / "d").rename(cur / "up")
            for entry in (cur / "up").iterdir():
                entry.rename(cur / ("x" + entry.name))
            (cur / "up").rmdir()
            if (cur / "xd").exists():
                (cur / "xd").rename(cur / "d")
    shutil.rmtree(base, ignore_errors=True)


# -- children ----------------------------------------------------------------------------------


def _ms(t: float) -> float:
    return round(t * 1000, 2)


async def child_four(base: Path) -> dict[str, float]:
    from pathgate import Policy, Runtime
    from pathgate.runtime.ignore import IgnoreList

    real = IgnoreList.from_bytes.__func__  # type: ignore[attr-defined]
    compiles = [0]

    def counting(cls: type[IgnoreList], source: str, base_: str, data: bytes, *a: object) -> IgnoreList:
        if len(data) > 100_000:
            compiles[0] += 1
        return real(cls, source, base_, data, *a)  # type: ignore[no-any-return]

    IgnoreList.from_bytes = classmethod(counting)  # type: ignore[assignment, method-assign]
    root = base / "four"
    out: dict[str, float] = {}
    rt = Runtime(root, policy=Policy())
    steps = [("read6", "read_files", {"paths": ["a.txt", "x.secretlog", "keep.secretlog",
                                                "generated/output_0000042.tmp",
                                                "generated/output_0000100_z.tmp",
                                                "generated/output_0000101_z.tmp"]}),
             ("glob", "glob", {"pattern": "**/*"}),
             ("list", "list_directory", {"path": "generated"}),
             ("search", "code_search", {"regex": "needle"}),
             ("read_ignored", "read_files", {"paths": ["x.secretlog"]})]
    total = time.perf_counter()
    for name, tool, args in steps:
        t = time.perf_counter()
        await rt.call(tool, args, renderer="verbose")
        out[name] = _ms(time.perf_counter() - t)
    t = time.perf_counter()
    await Runtime(root, policy=Policy()).call("read_files", {"paths": ["x.secretlog"]}, renderer="verbose")
    out["second_runtime"] = _ms(time.perf_counter() - t)
    out["total"] = _ms(time.perf_counter() - total)
    out["compiles"] = compiles[0]
    return out


async def child_lag(base: Path) -> dict[str, float]:
    from pathgate.runtime.ignore import IgnoreList

    data = (base / "huge.gitignore").read_bytes()
    over: list[float] = []
    stop = False

    async def ticker() -> None:
        while not stop:
            t = time.perf_counter()
            await asyncio.sleep(0.002)
            over.append(time.perf_counter() - t - 0.002)

    collections: list[tuple[int, float]] = []  # (generation, seconds) of each collection
    began = [0.0]

    def on_gc(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            began[0] = time.perf_counter()
        else:
            collections.append((info["generation"], time.perf_counter() - began[0]))

    task = asyncio.create_task(ticker())
    await asyncio.sleep(0.5)
    idle = sorted(over)
    over.clear()
    gc.callbacks.append(on_gc)
    t = time.perf_counter()
    await asyncio.to_thread(IgnoreList.from_bytes, ".gitignore", "", data, False)
    compile_s = time.perf_counter() - t
    gc.callbacks.remove(on_gc)
    stop = True
    await task
    busy = sorted(over)
    return {"compile_s": round(compile_s, 2), "idle_max_ms": _ms(idle[-1]),
            "idle_p99_ms": _ms(idle[int(len(idle) * 0.99)]), "max_ms": _ms(busy[-1]),
            "p99_ms": _ms(busy[int(len(busy) * 0.99)]), "ticks": len(busy),
            "full_collections": sum(1 for g, _ in collections if g == 2),
            "longest_collection_ms": _ms(max((d for _, d in collections), default=0.0))}


async def child_deep(base: Path) -> dict[str, float]:
    from pathgate import Policy, Runtime

    root = base / "deep"
    rel = "/".join(["d"] * DEPTH)
    rt = Runtime(root, policy=Policy())
    out: dict[str, float] = {}
    for name, tool, args in [("read", "read_files", {"paths": [rel + "/leaf.txt"]}),
                             ("list", "list_directory", {"path": rel}),
                             ("glob", "glob", {"pattern": "**/*.txt"}),
                             ("long_list", "list_directory", {"path": LONG}),
                             ("long_glob_path", "glob", {"pattern": "*", "path": LONG}),
                             ("long_glob_pattern", "glob", {"pattern": LONG})]:
        first = await rt.call(tool, args)
        assert "error" not in str(first)[:200], first
        times = []
        for _ in range(5):
            t = time.perf_counter()
            await rt.call(tool, args)
            times.append(time.perf_counter() - t)
        out[name] = _ms(statistics.median(times))
    return out


async def child_new(base: Path) -> dict[str, float]:
    from pathgate import Policy, Runtime

    root = base / "repo"
    await Runtime(root, policy=Policy()).read_files(["README.md"])
    times = []
    for _ in range(20):
        t = time.perf_counter()
        (res,) = await Runtime(root, policy=Policy()).read_files(["README.md"])
        times.append(time.perf_counter() - t)
        assert res.ok
    return {"new_runtime_first_read": _ms(statistics.median(times))}


CHILDREN = {"four": child_four, "lag": child_lag, "deep": child_deep, "new": child_new}


# -- parent ------------------------------------------------------------------------------------


def run_child(src: str, scenario: str, base: Path) -> dict[str, float]:
    env = {**os.environ, "PYTHONPATH": src}
    proc = subprocess.run([sys.executable, str(HERE), "--child", scenario, "--base", str(base)],
                          env=env, capture_output=True, text=True, check=False)
    if proc.returncode:
        raise SystemExit(f"{scenario} with {src} failed:\n{proc.stderr}")
    return json.loads(proc.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--before", help="PYTHONPATH of the 'before' sources")
    ap.add_argument("--after", default=str(HERE.parent.parent / "src"))
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--scenarios", default="four,lag,deep,new")
    ap.add_argument("--child")
    ap.add_argument("--base")
    args = ap.parse_args()
    if args.child:
        print(json.dumps(asyncio.run(CHILDREN[args.child](Path(args.base)))))
        return
    sides = {"after": os.path.abspath(args.after)}
    if args.before:
        sides = {"before": os.path.abspath(args.before), **sides}
    base = Path(tempfile.mkdtemp(prefix="pg-bench-dp-"))
    try:
        build(base)
        print(f"load at start: {os.getloadavg()}")
        results: dict[str, dict[str, list[dict[str, float]]]] = {}
        for r in range(args.rounds):
            order = list(sides) if r % 2 == 0 else list(reversed(sides))
            for scenario in args.scenarios.split(","):
                for side in order:
                    got = run_child(sides[side], scenario, base)
                    results.setdefault(scenario, {}).setdefault(side, []).append(got)
                    print(f"round {r} {scenario:5} {side:6} {got}", flush=True)
        print(f"load at end: {os.getloadavg()}")
        print("\nmedians (ratio after/before)")
        for scenario, by_side in results.items():
            keys = list(next(iter(by_side.values()))[0])
            for key in keys:
                meds = {side: statistics.median(run[key] for run in runs) for side, runs in by_side.items()}
                line = "  ".join(f"{side} {v:g}" for side, v in meds.items())
                if meds.get("before"):
                    line += f"  ratio {meds['after'] / meds['before']:.3f}"
                print(f"{scenario:5} {key:24} {line}")
    finally:
        remove(base)


if __name__ == "__main__":
    main()

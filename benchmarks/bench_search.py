"""code_search against ripgrep, and the regex engines behind it, in one run (issue 14).

    apt-get install -y ripgrep                                 # set-up: the competitor
    pip install google-re2 pyre2 regex                         # engines compared (pyre2: optional)
    python3 benchmarks/bench_search.py                         # materializes eugenp-tutorials
    python3 benchmarks/bench_search.py --only engines --runs 5
    python3 benchmarks/bench_search.py --tree PATH --literal TODO --regex 'fn\\s+\\w+'
    git -C /work/main archive BASE src | tar -x -C /tmp/before      # before/after in one run:
    PYTHONPATH=$PWD/src:$PWD/benchmarks python3 benchmarks/bench_search.py --tree PATH \
        --only search --before /tmp/before/src

PYTHONPATH must be absolute: the process rows run with the tree as working directory. The
in-process rows always measure this checkout's src (``bench_ignore`` puts it first on
``sys.path``): a PYTHONPATH pointing elsewhere changes only the process rows, hence
``--before`` for an in-process "before".

Sections (``--only``), medians of ``--runs`` runs, competitors interleaved run by run:

engines  each candidate engine on the tree's text files joined into one buffer (capped at
         ``--engine-mib``): compile time, scan throughput for the literal and the regex
         (every matching line found, as code_search does), the longest pause of a heartbeat
         thread while another thread scans (does the engine release the GIL?), and
         ``(a+)+$`` on a 27-character line (in a subprocess, killed after 5 s).
search   ``code_search`` of ``--literal`` and ``--regex`` against ``rg`` (same flags as
         bench_tools.py, ``-F`` for the literal): in-process on a warm runtime, and whole
         processes (``pathgate search --git-only --limit 0`` against ``rg``). Wall and CPU
         (this process + children). Hit sets (path, line) are compared first. With
         ``--before SRC`` (another checkout's ``src``) the same two rows are measured for
         it too, interleaved in the same runs: its in-process call in a worker process
         holding its own warm runtime (the CPU it reports for the call), its process with
         ``PYTHONPATH=SRC``. With ``--bytecode DIR`` the processes (both checkouts) run
         with their byte code cached under ``DIR`` (``PYTHONPYCACHEPREFIX``, one untimed
         run each first), as an installed package has it; without it they compile every
         module on each start when ``PYTHONDONTWRITEBYTECODE`` is set.
phases   where code_search's CPU goes: start + walk (split: the walker's steps, and the
         per-entry budget and secret tests), path gates, counting omissions in excluded
         directories, and the scan (open, read, search), timed inside one call.
"""

from __future__ import annotations

import argparse
import gc
import importlib.machinery
import importlib.util
import os
import re
import resource
import shutil
import site
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Awaitable, Callable
from functools import partial
from pathlib import Path
from typing import Any

import anyio

from bench_ignore import ensure_tree
from bench_tools import GIT_ENV, RG_ARGS, _cpu, _rg_hits, ratio_rows, run_proc, search_policy
from pathgate import Runtime
from pathgate.runtime import _walk
from pathgate.runtime.tools import _discover, _excluded, _scan
from pathgate.runtime.tools import code_search as cs_mod

SECTIONS = ("engines", "search", "phases")
RG_REGEX_ARGS = [a for a in RG_ARGS if a != "-F"]
PATHOLOGICAL = ("(a+)+$", "a" * 27 + "!")


# -- engines --------------------------------------------------------------------------------


def _pyre2() -> Any | None:
    """pyre2 (module ``re2`` too, shadowed by google-re2's package): loaded from its file."""
    import glob

    found = glob.glob(os.path.join(site.getsitepackages()[0], "re2.cpython-*.so"))
    if not found:
        return None
    saved = sys.modules.get("re2")
    loader = importlib.machinery.ExtensionFileLoader("re2", found[0])
    spec = importlib.util.spec_from_file_location("re2", found[0], loader=loader)
    assert spec is not None
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    if saved is not None:
        sys.modules["re2"] = saved
    return mod


def _line_scanner(search: Callable[[bytes, int, int], tuple[int, int] | None]) -> Callable[[bytes], int]:
    """Count matching lines the way code_search does: search, skip to the next line."""

    def scan(buf: bytes) -> int:
        pos, end, n = 0, len(buf), 0
        while pos < end:
            span = search(buf, pos, end)
            if span is None:
                break
            n += 1
            le = buf.find(b"\n", span[0])
            pos = end if le < 0 else le + 1
        return n

    return scan


def engines() -> dict[str, Callable[[str], Callable[[bytes, int, int], tuple[int, int] | None]]]:
    from pathgate.runtime.tools._regex import compile_regex

    def google(p: str) -> Callable[[bytes, int, int], tuple[int, int] | None]:
        return compile_regex(p).search

    def stdlib(p: str) -> Callable[[bytes, int, int], tuple[int, int] | None]:
        rx = re.compile(p.encode(), re.M)
        return lambda b, s, e: (m.span() if (m := rx.search(b, s, e)) else None)

    def regex_timeout(p: str) -> Callable[[bytes, int, int], tuple[int, int] | None]:
        import regex as regex_mod

        rx = regex_mod.compile(p.encode(), regex_mod.M)
        return lambda b, s, e: (m.span() if (m := rx.search(b, s, e, timeout=5.0, concurrent=True)) else None)

    out = {"google-re2 (chosen)": google}
    pyre2 = _pyre2()
    if pyre2 is not None:
        def py_re2(p: str) -> Callable[[bytes, int, int], tuple[int, int] | None]:
            rx = pyre2.compile(("(?m)" + p).encode())
            return lambda b, s, e: (m.span() if (m := rx.search(b, s, e)) else None)
        out["pyre2"] = py_re2
    out["re (stdlib)"] = stdlib
    if importlib.util.find_spec("regex") is not None:
        out["regex (timeout=, concurrent=True)"] = regex_timeout
    return out


def corpus_buffer(tree: Path, cap: int) -> bytes:
    parts: list[bytes] = []
    total = 0
    for dirpath, dirnames, filenames in os.walk(tree):
        dirnames[:] = sorted(d for d in dirnames if d != ".git")
        for f in sorted(filenames):
            data = Path(dirpath, f).read_bytes()
            if b"\0" in data[:8192]:
                continue
            parts.append(data)
            total += len(data)
            if total >= cap:
                return b"\n".join(parts)
    return b"\n".join(parts)


def max_pause(fn: Callable[[], object]) -> tuple[float, float]:
    """(seconds fn took in a worker thread, the longest gap of a 1 ms heartbeat meanwhile)."""
    done = threading.Event()
    took = [0.0]

    def work() -> None:
        t = time.perf_counter()
        fn()
        took[0] = time.perf_counter() - t
        done.set()

    th = threading.Thread(target=work)
    last = time.perf_counter()
    gap = 0.0
    th.start()
    while not done.is_set():
        time.sleep(0.001)
        now = time.perf_counter()
        gap, last = max(gap, now - last), now
    th.join()
    return took[0], gap


def pathological(name: str) -> str:
    code = (f"import sys, time; sys.path[:0] = {sys.path[:3]!r}; import bench_search as b; "
            f"s = b.engines()[{name!r}]({PATHOLOGICAL[0]!r}); t = time.perf_counter(); "
            f"s({PATHOLOGICAL[1]!r}.encode(), 0, {len(PATHOLOGICAL[1])}); print(time.perf_counter() - t)")
    try:
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=5)
    except subprocess.TimeoutExpired:
        return "> 5 s (killed)"
    lines = out.stdout.strip().splitlines()
    return f"{float(lines[-1]) * 1e3:.2f} ms" if lines else "error: " + out.stderr.strip().splitlines()[-1][:60]


def bench_engines(tree: Path, runs: int, literal: str, regex: str, mib: int) -> None:
    buf = corpus_buffer(tree, mib << 20)
    lit = re.escape(literal)
    print(f"\nengines on {len(buf) / 2**20:.1f} MiB of text ({tree.name}); literal {literal!r}, regex {regex!r}\n")
    print("| engine | compile (regex) | literal MB/s | regex MB/s | lines (lit/rx) "
          "| longest heartbeat gap while scanning | `(a+)+$`, 27 chars |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for name, make in engines().items():
        comp = statistics.median(_timed(lambda m=make: m(regex)) for _ in range(max(runs, 5)))
        scans = {p: _line_scanner(make(p)) for p in (lit, regex)}
        rates, counts = [], []
        for scan in scans.values():
            secs = statistics.median(_timed(lambda s=scan: s(buf)) for _ in range(runs))
            rates.append(len(buf) / secs / 1e6)
            counts.append(scan(buf))
        _, gap = max_pause(lambda s=scans[regex]: s(buf))
        print(f"| {name} | {comp * 1e6:.0f} µs | {rates[0]:.0f} | {rates[1]:.0f} | {counts[0]}/{counts[1]} "
              f"| {gap * 1e3:.0f} ms | {pathological(name)} |")


def _timed(fn: Callable[[], object]) -> float:
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


# -- search vs rg ---------------------------------------------------------------------------

_WORKER = """
import anyio, resource, sys, time
sys.path.insert(0, {src!r})  # not bench_tools: its import puts this checkout's src first
import pathgate
from pathgate import Policy, Runtime
assert pathgate.__file__.startswith({src!r}), pathgate.__file__

def cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime

async def main():
    rt = Runtime({tree!r}, policy=Policy(enforce_secrets=True, read_budget=1 << 62).git_only())  # search_policy()
    while line := await anyio.to_thread.run_sync(sys.stdin.readline):
        pattern = line.rstrip("\\n")
        c, t = cpu(), time.perf_counter()
        res = await rt.code_search(pattern, max_results=0)
        print(time.perf_counter() - t, cpu() - c, len(res.hits), flush=True)

anyio.run(main)
"""


class _Before:
    """A worker process running code_search from another checkout's ``src`` on its own
    warm runtime; :meth:`call` returns (wall, CPU) of one call as the worker measured it."""

    def __init__(self, src: Path, tree: Path) -> None:
        code = _WORKER.format(src=str(src), tree=str(tree))
        self.proc = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True)

    def call(self, pattern: str) -> tuple[float, float, int]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(pattern + "\n")
        self.proc.stdin.flush()
        wall, cpu, hits = self.proc.stdout.readline().split()
        return float(wall), float(cpu), int(hits)

    def close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        self.proc.wait()


async def compare_hits(rt: Runtime, tree: Path, regex: str, rg_cmd: list[str]) -> None:
    res = await rt.code_search(regex, max_results=0)
    pg = {(h.path, h.line) for h in res.hits}
    rgh = _rg_hits(run_proc(rg_cmd, cwd=tree))
    only_rg, only_pg = rgh - pg, pg - rgh
    secret = {p for p, _ in only_rg if rt.pipeline.is_secret(p)}
    other = {p for p, _ in only_rg if p not in secret} | {p for p, _ in only_pg}
    print(f"search {regex!r}: pathgate {len(pg)} hits in {res.files_searched} files; rg {len(rgh)}; "
          f"only rg: {len(only_rg)} (in {len(secret)} secret files pathgate never opens); only pathgate: "
          f"{len(only_pg)}; other differing files: {len(other)}; skipped binary {res.skipped_binary}, "
          f"too large {res.skipped_too_large}")
    for p in sorted(other)[:10]:
        print(f"      differs: {p}")


async def bench_search(tree: Path, runs: int, literal: str, regex: str,
                       before: Path | None = None, bytecode: Path | None = None) -> list[tuple[str, float, str]]:
    rg = shutil.which("rg")
    if rg is None:
        print("search: rg not found (apt-get install -y ripgrep); section skipped")
        return []
    print(run_proc([rg, "--version"]).decode().splitlines()[0])
    rt = Runtime(tree, policy=search_policy())
    cli = [sys.executable, "-m", "pathgate"]  # this checkout's pathgate (PYTHONPATH), as a process
    rows: list[tuple[str, float, str]] = []
    worker = None if before is None else _Before(before, tree)
    try:
        for kind, pattern, rg_cmd in (("literal", re.escape(literal), [rg, *RG_ARGS, literal]),
                                      ("regex", regex, [rg, *RG_REGEX_ARGS, regex])):
            rows.extend(await _search_rows(rt, tree, runs, kind, pattern, rg_cmd, cli, worker, before, bytecode))
    finally:
        if worker is not None:
            worker.close()
    return rows


async def _search_rows(rt: Runtime, tree: Path, runs: int, kind: str, pattern: str, rg_cmd: list[str],
                       cli: list[str], worker: _Before | None, before: Path | None,
                       bytecode: Path | None = None) -> list[tuple[str, float, str]]:
    """One pattern's rows: rg, rg -j1, in-process, process (and the ``--before`` pair)."""
    await compare_hits(rt, tree, pattern, rg_cmd)
    cli_cmd = [*cli, "search", "--git-only", "--limit", "0", "--root", str(tree), pattern]
    env = dict(GIT_ENV)
    if bytecode is not None:  # byte code cached, as installed (compiled by the untimed runs)
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(bytecode)
    before_env = None if before is None else {**env, "PYTHONPATH": str(before)}
    if bytecode is not None:
        for e in (env, before_env):
            if e is not None:
                subprocess.run(cli_cmd, cwd=tree, env=e, capture_output=True, check=False)

    async def rg_run() -> None:
        await anyio.to_thread.run_sync(run_proc, rg_cmd, tree)

    async def rg1_run() -> None:
        await anyio.to_thread.run_sync(run_proc, [rg_cmd[0], "-j1", *rg_cmd[1:]], tree)

    async def warm() -> None:
        await rt.code_search(pattern, max_results=0)

    async def proc() -> None:
        await anyio.to_thread.run_sync(partial(subprocess.run, cli_cmd, cwd=tree, env=env,
                                               capture_output=True, check=False))

    async def proc_before() -> None:
        await anyio.to_thread.run_sync(partial(subprocess.run, cli_cmd, cwd=tree, env=before_env,
                                               capture_output=True, check=False))

    variants: dict[str, Callable[[], Awaitable[object]]] = {"rg": rg_run, "rg1": rg1_run, "warm": warm, "cli": proc}
    named = [("rg", f"rg, {kind} (process, {os.cpu_count()} threads)"), ("rg1", f"rg -j1, {kind}"),
             ("warm", f"pathgate code_search, {kind}, in-process (warm runtime)"),
             ("cli", f"`pathgate search --git-only --limit 0`, {kind} (process)")]
    if worker is not None:
        hits = worker.call(pattern)[2]  # its runtime warmed, like ours by compare_hits
        print(f"  before ({before}): {hits} hits")
        variants["warm_before"] = partial(anyio.to_thread.run_sync, worker.call, pattern)
        variants["cli_before"] = proc_before
        named += [("warm_before", f"before: code_search, {kind}, in-process (warm runtime)"),
                  ("cli_before", f"before: `pathgate search`, {kind} (process)")]
    t = await _interleaved(variants, runs)
    return [(label, secs, ratio) for label, secs, _, ratio in ratio_rows(t, "rg", named)]


async def _interleaved(variants: dict[str, Callable[[], Awaitable[object]]], runs: int) -> dict[str, float]:
    """:func:`bench_tools.interleaved`, where a variant returning ``(wall, cpu, ...)`` (the
    ``--before`` worker) is timed by what it returns."""
    times: dict[str, list[float]] = {k: [] for k in variants}
    cpus: dict[str, list[float]] = {k: [] for k in variants}
    for _ in range(runs):
        for name, fn in variants.items():
            gc.collect()
            c, w = _cpu(), time.perf_counter()
            got = await fn()
            wall, cpu = time.perf_counter() - w, _cpu() - c
            if isinstance(got, tuple):
                wall, cpu = got[0], got[1]
            times[name].append(wall)
            cpus[name].append(cpu)
    out = {k: statistics.median(v) for k, v in times.items()}
    out.update({f"{k}:cpu": statistics.median(v) for k, v in cpus.items()})
    spread = {k: f"{min(v):.2f}–{max(v):.2f}" for k, v in cpus.items()}
    print(f"  CPU spread (s) over {runs} runs: " + ", ".join(f"{k} {v}" for k, v in spread.items()))
    return out


# -- where the time goes --------------------------------------------------------------------


async def bench_phases(tree: Path, runs: int, literal: str) -> None:
    rt = Runtime(tree, policy=search_policy())
    pattern = re.escape(literal)
    await rt.code_search(pattern, max_results=0)
    spent: dict[str, list[float]] = {}
    cur: dict[str, float] = {}

    def wrap_async(cls: Any, name: str) -> None:
        orig = getattr(cls, name)

        async def timed(self: Any, *a: Any, **k: Any) -> Any:
            c = _cpu_self()
            try:
                return await orig(self, *a, **k)
            finally:
                cur[name] = cur.get(name, 0.0) + _cpu_self() - c
        setattr(cls, name, timed)

    for name in ("start_dir", "walk", "judge"):
        wrap_async(_discover.Discovery, name)
    count = cs_mod.count_in_excluded

    async def timed_count(*a: Any, **k: Any) -> Any:
        c = _cpu_self()
        try:
            return await count(*a, **k)
        finally:
            cur["count_in_excluded"] = cur.get("count_in_excluded", 0.0) + _cpu_self() - c
    cs_mod.count_in_excluded = timed_count  # type: ignore[assignment]
    step = _scan.Scanner.step

    def timed_step(self: Any, *a: Any) -> None:
        c = time.thread_time()
        step(self, *a)
        cur["scan"] = cur.get("scan", 0.0) + time.thread_time() - c

    _scan.Scanner.step = timed_step  # type: ignore[method-assign]
    subs = {"walk: Discovery._step (a walk hop: Walker.step + secret tests, hard-link checks)":
            (_discover.Discovery, "_step"),
            "walk: Walker.step (listing, ignore decisions, hard-link marks)": (_walk.Walker, "step"),
            "walk: Discovery._admit (budget)": (_discover.Discovery, "_admit"),
            "count: list_files_below (listing excluded directories, secret tests)": (_excluded, "list_files_below"),
            "DirChain.enter (directories re-opened: the scan's, and the count's parents)": (_scan.DirChain, "enter")}
    saved = {k: getattr(cls, name) for k, (cls, name) in subs.items()}
    for key, (cls, name) in subs.items():
        def timed_sub(*a: Any, _k: str = key, _f: Any = saved[key], **k: Any) -> Any:
            c = time.thread_time()
            try:
                return _f(*a, **k)
            finally:
                cur[_k] = cur.get(_k, 0.0) + time.thread_time() - c
        setattr(cls, name, timed_sub)
    for _ in range(runs):
        cur.clear()
        c = _cpu_self()
        await cs_mod.code_search(rt, pattern, max_results=0)
        cur["total"] = _cpu_self() - c
        for k, v in cur.items():
            spent.setdefault(k, []).append(v)
    _scan.Scanner.step = step  # type: ignore[method-assign]
    cs_mod.count_in_excluded = count  # type: ignore[assignment]
    for key, (cls, name) in subs.items():
        setattr(cls, name, saved[key])
    print(f"\nwhere code_search's CPU goes ({literal!r}, warm runtime, medians of {runs}; judge includes "
          "the judging inside count_in_excluded):\n")
    print("| phase | CPU |\n| --- | ---: |")
    for k, v in spent.items():
        print(f"| {k} | {statistics.median(v):.3f} s |")


def _cpu_self() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


async def amain(args: argparse.Namespace) -> int:
    tree = ensure_tree(args)
    only = set(args.only.split(",")) if args.only else set(SECTIONS)
    print(f"tree {tree}; python {sys.version.split()[0]}; load {os.getloadavg()[0]:.2f}")
    if "engines" in only:
        bench_engines(tree, args.runs, args.literal, args.regex, args.engine_mib)
    if "search" in only:
        before = None if args.before is None else Path(args.before).resolve()
        bytecode = None if args.bytecode is None else Path(args.bytecode).resolve()
        rows = await bench_search(tree, args.runs, args.literal, args.regex, before, bytecode)
        if rows:
            print("\n| measurement | median wall | ratio | median CPU | CPU ratio |")
            print("| --- | ---: | ---: | ---: | ---: |")
            for name, secs, ratio in rows:
                print(f"| {name} | {secs:.3f} s | {ratio} |")
    if "phases" in only:
        await bench_phases(tree, args.runs, args.literal)
    print(f"\nload average at the end: {os.getloadavg()[0]:.2f}")
    return 0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tree", help="a work tree to measure (default: a materialized corpus)")
    ap.add_argument("--corpus", default="eugenp-tutorials")
    ap.add_argument("--only", help=f"comma-separated sections: {','.join(SECTIONS)}")
    ap.add_argument("--runs", type=int, default=5, help="runs per measurement (median)")
    ap.add_argument("--literal", default="lambda delta", help="the literal searched")
    ap.add_argument("--regex", default=r"(lambda|gamma)\s+(alpha|delta)\b", help="the regex searched")
    ap.add_argument("--before", help="another checkout's src directory, measured in the same runs")
    ap.add_argument("--bytecode", help="cache the processes' byte code under this directory (as installed)")
    ap.add_argument("--engine-mib", type=int, default=64, help="text searched by the engines section")
    args = ap.parse_args()
    os.environ.update(GIT_ENV)
    sys.exit(anyio.run(amain, args))


if __name__ == "__main__":
    main()

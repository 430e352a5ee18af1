"""Cost per call, batch reads and concurrency on one runtime (issue 19), ratios in one run.

    python3 benchmarks/bench_calls.py --tree /tmp/eugenp [--only percall,batch,agents]

A "before" run: ``PYTHONPATH`` is not enough (``bench_tools`` imports ``bench_ignore``, which
puts its own repository's ``src`` first on ``sys.path``); run a copy of ``benchmarks/`` next to
the other ``src/``: ``git archive <rev> src benchmarks | tar -x -C /tmp/before`` then
``python3 /tmp/before/benchmarks/bench_calls.py ...``. The first line printed names the
``pathgate`` imported. Importing ``bench_tools`` also sets ``GIT_CONFIG_GLOBAL=/dev/null`` and
``GIT_CONFIG_NOSYSTEM=1`` for the process (fewer repository-wide sources than a user's).

The tree is any directory (the eugenp corpus materialised with
``/work/shared/tools/materialize_corpus.py``, or a synthetic tree written under ``--tree`` when
it does not exist). Sections, medians of ``--runs`` interleaved runs:

percall  one small file: a plain ``open/read/decode`` (the floor), the same in one worker-thread
         hop (``anyio.to_thread.run_sync``: the floor of an async read that never blocks the
         loop), ``rt.read_files([p])`` and ``rt.call("read_files", {"paths": [p]})``
         (middleware, gates, rendering; no tracing SDK). µs per call, wall and CPU.
batch    1,000 small files: a plain sequential loop against one ``rt.read_files`` call and one
         ``rt.call("read_files", ...)`` (every gate applied, descriptor-anchored reads).
agents   ``--agents`` agents x ``--calls`` mixed calls (read one file, glob within a module,
         list a module, search a literal within a module) on one runtime: all agents at once
         against the same calls one after another; throughput, p50/p99 latency, and the p99
         against Little's law's mean (agents / throughput), CPU per call. Under asyncio and
         trio. Also a "starvation" case: 50 one-file reads at once, alone and while a search
         of the whole tree runs (11 interleaved repeats, medians).
"""

from __future__ import annotations

import argparse
import gc
import os
import random
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread

from bench_tools import per_call
from pathgate import Policy, Runtime

SECTIONS = ("percall", "batch", "agents")


def synthetic(root: Path, modules: int = 40, per: int = 60) -> None:
    """A small monorepo: ``modules`` modules of ``per`` files, a .gitignore, a secret."""
    (root / "build").mkdir(parents=True)
    (root / ".gitignore").write_text("build/\n*.log\n")
    (root / ".env").write_text("KEY=1\n")
    for m in range(modules):
        d = root / f"mod{m}" / "src"
        d.mkdir(parents=True)
        for i in range(per):
            (d / f"F{i}.java").write_text(f"class F{i} {{\n  // lambda delta {i}\n}}\n" * 8)


def plain_read(path: str) -> str:
    with open(path, "rb") as f:
        return f.read().decode("utf-8")


def small_files(tree: Path, n: int) -> list[str]:
    """``n`` small (< 4 KiB) non-ignored files, by project-relative path, deterministic order."""
    out: list[str] = []
    for dirpath, dirnames, filenames in os.walk(tree):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and d not in ("build", "target"))
        for name in sorted(filenames):
            if name.endswith((".java", ".md", ".xml")):
                p = os.path.join(dirpath, name)
                if os.path.getsize(p) < 4096:
                    out.append(os.path.relpath(p, tree))
                    if len(out) == n:
                        return out
    return out


async def served(rt: Runtime, tree: Path, n: int) -> list[str]:
    """``n`` small files the runtime serves (not ignored, not secret)."""
    candidates = small_files(tree, 4 * n)
    results = await rt.read_files(candidates, budget=1 << 40)
    return [r.path for r in results if r.verdict is None][:n]


async def timed(variants: dict[str, Callable[[], Awaitable[object]]], reps: int, runs: int
                ) -> dict[str, tuple[float, float]]:
    """Per variant: (median wall s, median CPU s) per repetition, variants interleaved."""
    return await per_call(variants, reps, runs, warmup=50)


def table(title: str, t: dict[str, tuple[float, float]], base: str, scale: float, unit: str) -> None:
    bw, bc = t[base]
    print(f"\n{title}\n\n| variant | wall ({unit}) | vs floor | above floor ({unit}) | CPU ({unit}) | CPU vs floor |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, (w, c) in t.items():
        print(f"| {name} | {w * scale:.1f} | {w / bw:.2f}× | {(w - bw) * scale:.1f} "
              f"| {c * scale:.1f} | {c / bc:.2f}× |")


def _sdk_runtime(tree: Path) -> tuple[Runtime, Callable[[], None]]:
    """A runtime with the OpenTelemetry SDK attached (in-memory span exporter and metric
    reader), and a function that drops the spans kept so far."""
    from opentelemetry.sdk.metrics import MeterProvider
    from opentelemetry.sdk.metrics.export import InMemoryMetricReader
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    exporter = InMemorySpanExporter()
    tp = TracerProvider()
    tp.add_span_processor(SimpleSpanProcessor(exporter))
    mp = MeterProvider(metric_readers=[InMemoryMetricReader()])
    return Runtime(tree, policy=Policy(), tracer_provider=tp, meter_provider=mp), exporter.clear


async def bench_percall(tree: Path, runs: int, reps: int) -> None:
    rt = Runtime(tree, policy=Policy())
    (one,) = await served(rt, tree, 1)
    full = str(tree / one)
    res = await rt.read_files([one])
    assert res[0].verdict is None and res[0].content == plain_read(full), res[0]
    deep = max(await served(rt, tree, 400), key=lambda p: (p.count("/"), p))
    deep_full = str(tree / deep)
    sdk_rt, clear_spans = _sdk_runtime(tree)
    calls = [0]

    async def plain_deep() -> None:
        plain_read(deep_full)

    async def call_deep() -> None:
        await rt.call("read_files", {"paths": [deep]})

    async def call_sdk() -> None:
        await sdk_rt.call("read_files", {"paths": [one]})
        calls[0] += 1
        if calls[0] % 256 == 0:
            clear_spans()

    async def plain() -> None:
        plain_read(full)

    async def hop() -> None:
        await anyio.to_thread.run_sync(plain_read, full)

    async def typed() -> None:
        await rt.read_files([one])

    async def call() -> None:
        await rt.call("read_files", {"paths": [one]})

    t = await timed({"plain open/read/decode": plain, "plain read in one worker hop": hop,
                     "rt.read_files([p])": typed, "rt.call('read_files', {paths: [p]})": call,
                     "rt.call, tracing SDK (in-memory exporter)": call_sdk,
                     f"plain open/read/decode, deep ({deep.count('/')} dirs)": plain_deep,
                     "rt.call, deep": call_deep}, reps, runs)
    table(f"per call: one file ({one}; deep: {deep})", t, "plain open/read/decode", 1e6, "µs")
    print(f"(inline reads given up by the breaker: {rt.inline_reads.slow_reads})"
          if hasattr(rt, "inline_reads") else "")


async def bench_batch(tree: Path, runs: int, n: int) -> None:
    rt = Runtime(tree, policy=Policy(read_budget=1 << 40))  # the whole batch fits the output budget
    paths = await served(rt, tree, n)
    fulls = [str(tree / p) for p in paths]
    res = await rt.read_files(paths)
    assert all(r.verdict is None for r in res), [r for r in res if r.verdict is not None][:3]

    async def plain() -> None:
        for p in fulls:
            plain_read(p)

    async def typed() -> None:
        await rt.read_files(paths)

    async def call() -> None:
        await rt.call("read_files", {"paths": paths})

    t = await timed({f"plain loop over {len(paths)} files": plain, "rt.read_files(paths)": typed,
                     "rt.call('read_files', {paths})": call}, 1, runs)
    table(f"batch: {len(paths)} small files in one call", t, f"plain loop over {len(paths)} files", 1e3, "ms")


def _mixed_calls(tree: Path, agents: int, calls: int, seed: int = 19) -> list[list[tuple[str, dict[str, Any]]]]:
    """Per agent, ``calls`` calls cycling read / glob in a module / list a module / search in it."""
    rng = random.Random(seed)
    modules = sorted(d.name for d in tree.iterdir() if d.is_dir() and not d.name.startswith(".")
                     and d.name not in ("build", "target"))
    files = small_files(tree, 2000)  # a few are ignored: their verdicts are calls too
    plan: list[list[tuple[str, dict[str, Any]]]] = []
    for _ in range(agents):
        mine: list[tuple[str, dict[str, Any]]] = []
        for i in range(calls):
            mod = rng.choice(modules)
            kind = i % 4
            if kind == 0:
                mine.append(("read_files", {"paths": [rng.choice(files)]}))
            elif kind == 1:
                mine.append(("glob", {"pattern": "**/*.java", "path": mod}))
            elif kind == 2:
                mine.append(("list_directory", {"path": mod}))
            else:
                mine.append(("code_search", {"regex": "lambda delta", "path": mod, "max_results": 50}))
        plan.append(mine)
    return plan


async def _agents_run(rt: Runtime, plan: list[list[tuple[str, dict[str, Any]]]], concurrent: bool
                      ) -> tuple[float, list[float], float]:
    """(wall seconds, per-call latencies, process CPU seconds) of one run of ``plan``."""
    lat: list[float] = []

    async def agent(mine: list[tuple[str, dict[str, Any]]]) -> None:
        for tool, args in mine:
            t = time.perf_counter()
            await rt.call(tool, args)
            lat.append(time.perf_counter() - t)

    start, cpu = time.perf_counter(), time.process_time()
    if concurrent:
        async with anyio.create_task_group() as tg:
            for mine in plan:
                tg.start_soon(agent, mine)
    else:
        for mine in plan:
            await agent(mine)
    return time.perf_counter() - start, lat, time.process_time() - cpu


async def _starvation(rt: Runtime, tree: Path, reps: int = 11) -> tuple[float, float, list[float]]:
    """50 one-file reads at once, alone and while a whole-tree search runs (started first,
    cancelled once the reads are done), ``reps`` times interleaved: (median of the runs'
    median read latency alone, the same with the search, per-run ratios), ms."""
    files = await served(rt, tree, 50)

    async def reads() -> float:
        out: list[float] = []

        async def one(p: str) -> None:
            t = time.perf_counter()
            await rt.call("read_files", {"paths": [p]})
            out.append(time.perf_counter() - t)

        async with anyio.create_task_group() as tg:
            for p in files:
                tg.start_soon(one, p)
        return statistics.median(out) * 1e3

    alone: list[float] = []
    busy: list[float] = []
    for _ in range(reps):
        alone.append(await reads())
        async with anyio.create_task_group() as tg:
            tg.start_soon(rt.call, "code_search", {"regex": "zzz_no_such_thing_q", "max_results": 0})
            await anyio.sleep(0.05)  # the search is walking / scanning
            busy.append(await reads())
            tg.cancel_scope.cancel()
    return statistics.median(alone), statistics.median(busy), [b / a for a, b in zip(alone, busy, strict=True)]


async def bench_agents(tree: Path, runs: int, agents: int, calls: int, backend: str,
                       max_concurrency: int | None) -> None:
    kw: dict[str, Any] = {} if max_concurrency is None else {"max_concurrency": max_concurrency}
    rt = Runtime(tree, policy=Policy(**kw))
    plan = _mixed_calls(tree, agents, calls)
    await _agents_run(rt, plan[:5], False)  # warm: ignore index, regexes
    rows: dict[str, list[tuple[float, list[float], float]]] = {"sequential": [], "concurrent": []}
    for _ in range(runs):
        for mode in rows:
            gc.collect()
            rows[mode].append(await _agents_run(rt, plan, mode == "concurrent"))
    total = agents * calls
    mc = rt.policy.max_concurrency
    print(f"\nagents ({backend}, max_concurrency={mc}): {agents} agents x {calls} mixed calls = {total}\n")
    print("| mode | calls/s | vs sequential | p50 (ms) | p99 (ms) | Little's mean (ms) | p99 / Little "
          "| CPU/call (ms) | runs/s (spread) |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---|")
    seq_tp = 0.0
    for mode, samples in rows.items():
        elapsed = statistics.median(s[0] for s in samples)
        cpu = statistics.median(s[2] for s in samples) / total * 1e3
        spread = "/".join(f"{total / s[0]:.0f}" for s in samples)
        tp = total / elapsed
        seq_tp = seq_tp or tp
        lat = sorted(x for s in samples for x in s[1])
        p50, p99 = lat[len(lat) // 2] * 1e3, lat[int(len(lat) * 0.99)] * 1e3
        inflight = agents if mode == "concurrent" else 1
        little = inflight / tp * 1e3
        print(f"| {mode} | {tp:.0f} | {tp / seq_tp:.2f}× | {p50:.1f} | {p99:.1f} | {little:.1f} "
              f"| {p99 / little:.2f}× | {cpu:.2f} | {spread} |")
    alone, busy, ratios = await _starvation(rt, tree)
    print(f"\n50 one-file reads at once (medians of {len(ratios)}): {alone:.1f} ms alone, {busy:.1f} ms while a "
          f"whole-tree search runs ({busy / alone:.2f}×; median per-run ratio {statistics.median(ratios):.2f}×, "
          f"runs {' '.join(f'{r:.2f}' for r in ratios)})")


async def amain(args: argparse.Namespace, backend: str) -> None:
    tree = Path(args.tree)
    only = set(args.only.split(",")) if args.only else set(SECTIONS)
    if "percall" in only and backend == "asyncio":
        await bench_percall(tree, args.runs, args.reps)
    if "batch" in only and backend == "asyncio":
        await bench_batch(tree, args.runs, args.batch)
    if "agents" in only:
        for mc in args.max_concurrency or [None]:
            await bench_agents(tree, max(1, args.runs // 2), args.agents, args.calls, backend, mc)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tree", required=True)
    ap.add_argument("--only", help=f"comma-separated: {','.join(SECTIONS)}")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--reps", type=int, default=2000, help="calls per run (percall)")
    ap.add_argument("--batch", type=int, default=1000)
    ap.add_argument("--agents", type=int, default=50)
    ap.add_argument("--calls", type=int, default=40)
    ap.add_argument("--max-concurrency", type=int, action="append", help="repeat to compare")
    ap.add_argument("--backends", default="asyncio,trio")
    args = ap.parse_args()
    tree = Path(args.tree)
    if not tree.exists():
        synthetic(tree)
    import pathgate

    print(f"pathgate from {os.path.dirname(pathgate.__file__)}; tree {tree}; {os.cpu_count()} CPUs; "
          f"load {os.getloadavg()[0]:.2f}; python {sys.version.split()[0]}")
    for backend in args.backends.split(","):
        anyio.run(amain, args, backend, backend=backend)


if __name__ == "__main__":
    main()

"""Concurrency on one runtime (issue 19, "concurrency that scales"): many interleaved runs,
both event loops, medians and spread, and where the tail comes from.

    python3 benchmarks/bench_concurrency.py --tree /tmp/corp/eugenp --rounds 3 --pairs 2
    taskset -c 0 python3 benchmarks/bench_concurrency.py ... --max-concurrency 2 --max-concurrency 8
    PYTHONPATH=/path/to/other/src python3 benchmarks/bench_concurrency.py ...   # a before run

``--agents`` agents x ``--calls`` mixed calls (the plan of ``bench_calls.py``: read one file,
glob in a module, list a module, search a literal in a module) on one runtime, all agents at
once against the same calls one after another. Each *block* is one ``anyio.run`` (one
backend, one ``max_concurrency``, a fresh warmed runtime) running ``--pairs`` pairs of
(sequential, concurrent); blocks are interleaved over backends and settings, ``--rounds``
times, so load bursts of other processes hit every variant alike.

Per variant: median and range over the pairs of concurrent/sequential throughput and of p99
/ Little's mean (Little: agents / concurrent throughput, the mean latency of a closed
system). Where the tail comes from, per concurrent run: the calls at or above the run's p99
by kind, and for them the time spent waiting for a hop token (``Ticket.waited``) against
hop time; the sequential p99/mean of the same calls (what pure processor sharing would give);
event-loop lag (a task asking to sleep 2 ms: the largest and 99th-percentile overshoot,
i.e. how long the loop was held by inline work or the interpreter lock); the scheduler's
deferrals by cause ("pool full": plain queueing; "pool free": held back by a more urgent rank).
``--stalls`` samples the loop thread's stack whenever the loop is over 30 ms late;
``--long-call-seconds`` sets the scheduler's long-call threshold (repeat to compare).
Results: benchmarks/RESULTS.md, "2026-12-01: concurrency — measured many times".
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio

from bench_calls import _mixed_calls
from pathgate import Policy, Runtime

try:
    from pathgate.runtime.fs._sched import Ticket, call_scope
except ImportError:  # an older checkout: no per-call scheduler diagnostics
    call_scope = None  # type: ignore[assignment]
    Ticket = None  # type: ignore[assignment,misc]

Plan = list[list[tuple[str, dict[str, Any]]]]


@dataclass
class Run:
    """One run of the plan: per call (kind, latency s, token wait s, hop time s, hops)."""

    mode: str
    wall: float
    cpu: float
    calls: list[tuple[str, float, float, float, int, int]] = field(default_factory=list)
    lag: list[float] = field(default_factory=list)


async def _loop_lag(out: list[float], stop: anyio.Event, interval: float = 0.002) -> None:
    for sampler in STALLS:
        sampler.beat, sampler.active = time.perf_counter(), True
    while not stop.is_set():
        t = time.perf_counter()
        for sampler in STALLS:
            sampler.beat = t
        await anyio.sleep(interval)
        out.append(time.perf_counter() - t - interval)
    for sampler in STALLS:
        sampler.active = False


class StallSampler:
    """Where the event loop is when it is late: a watchdog thread samples the loop thread's
    stack whenever the loop's heartbeat is older than ``late`` seconds, counting the innermost
    pathgate frames (``--stalls``)."""

    def __init__(self, late: float = 0.03) -> None:
        import threading

        self.late = late
        self.beat = time.perf_counter()
        self.active = False  # only while a run's heartbeat task runs
        self.tid = threading.get_ident()
        self.where: Counter[str] = Counter()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True)
        self._thread.start()

    def _watch(self) -> None:
        while not self._stop.wait(0.005):
            if self.active and time.perf_counter() - self.beat > self.late:
                frame = sys._current_frames().get(self.tid)
                stack = []
                while frame is not None:
                    code = frame.f_code
                    if "pathgate" in code.co_filename or "anyio" in code.co_filename:
                        stack.append(f"{Path(code.co_filename).name}:{code.co_name}")
                    frame = frame.f_back
                self.where[" < ".join(stack[:4]) or "(outside pathgate: idle or waiting for the GIL)"] += 1

    def close(self) -> None:
        self._stop.set()


STALLS: list[StallSampler] = []


async def _one(rt: Runtime, tool: str, args: dict[str, Any], run: Run) -> None:
    t = time.perf_counter()
    if call_scope is None:
        await rt.call(tool, args)
        run.calls.append((tool, time.perf_counter() - t, 0.0, 0.0, 0, 0))
        return
    with call_scope() as ticket:
        await rt.call(tool, args)
    run.calls.append((tool, time.perf_counter() - t, getattr(ticket, "waited", 0.0), ticket.service,
                      getattr(ticket, "hops", 0), getattr(ticket, "deferred", 0)))


async def run_plan(rt: Runtime, plan: Plan, concurrent: bool) -> Run:
    run = Run("concurrent" if concurrent else "sequential", 0.0, 0.0)
    stop = anyio.Event()

    async def agent(mine: list[tuple[str, dict[str, Any]]]) -> None:
        for tool, args in mine:
            await _one(rt, tool, args, run)

    async with anyio.create_task_group() as mon:
        mon.start_soon(_loop_lag, run.lag, stop)
        start, cpu = time.perf_counter(), time.process_time()
        if concurrent:
            async with anyio.create_task_group() as tg:
                for mine in plan:
                    tg.start_soon(agent, mine)
        else:
            for mine in plan:
                await agent(mine)
        run.wall, run.cpu = time.perf_counter() - start, time.process_time() - cpu
        stop.set()
    return run


def pct(xs: list[float], q: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, int(len(s) * q))]


def summarise(seq: Run, conc: Run, agents: int) -> dict[str, Any]:
    """One pair's figures."""
    n = len(conc.calls)
    tp_s, tp_c = n / seq.wall, n / conc.wall
    lat = [c[1] for c in conc.calls]
    p99 = pct(lat, 0.99)
    little = agents / tp_c
    tail = [c for c in conc.calls if c[1] >= p99]
    seq_lat = [c[1] for c in seq.calls]
    return {
        "seq_tp": tp_s, "conc_tp": tp_c, "ratio": tp_c / tp_s, "p99": p99, "little": little,
        "p99_little": p99 / little, "p50": pct(lat, 0.5), "max": max(lat),
        "cpu_seq_ms": seq.cpu / n * 1e3, "cpu_conc_ms": conc.cpu / n * 1e3,
        "seq_p99_mean": pct(seq_lat, 0.99) / statistics.fmean(seq_lat),
        "tail_kinds": dict(Counter(c[0] for c in tail)),
        "tail_wait_share": sum(c[2] for c in tail) / sum(c[1] for c in tail),
        "tail_hops": statistics.median(c[4] for c in tail),
        "tail_deferred": statistics.median(c[5] for c in tail),
        "deferred_hops": sum(c[5] for c in conc.calls), "hops": sum(c[4] for c in conc.calls),
        "all_wait_share": sum(c[2] for c in conc.calls) / sum(lat),
        "kind_p99_ms": {k: pct([c[1] for c in conc.calls if c[0] == k], 0.99) * 1e3
                        for k in sorted({c[0] for c in conc.calls})},
        "kind_seq_p99_ms": {k: pct([c[1] for c in seq.calls if c[0] == k], 0.99) * 1e3
                            for k in sorted({c[0] for c in seq.calls})},
        "lag_max_ms": max(conc.lag, default=0.0) * 1e3, "lag_p99_ms": pct(conc.lag or [0.0], 0.99) * 1e3,
    }


async def block(tree: Path, agents: int, calls: int, pairs: int, mc: int | None,
                long_call: float | None, stalls: bool = False, window: int | None = None,
                quantum: float | None = None) -> list[dict[str, Any]]:
    """One backend, one setting: a warmed runtime, ``pairs`` (sequential, concurrent) pairs."""
    kw: dict[str, Any] = {} if mc is None else {"max_concurrency": mc}
    rt = Runtime(tree, policy=Policy(**kw))
    if stalls:
        STALLS.append(StallSampler())
    if long_call is not None:
        rt.limiter.long_call_seconds = long_call
    if window is not None:
        rt.limiter.window = window
    if quantum is not None:
        rt.limiter.quantum = quantum
    plan = _mixed_calls(tree, agents, calls)
    await run_plan(rt, plan[:5], False)  # warm: ignore index, regexes
    out = []
    for _ in range(pairs):
        gc.collect()
        seq = await run_plan(rt, plan, False)
        gc.collect()
        conc = await run_plan(rt, plan, True)
        out.append(summarise(seq, conc, agents) | {"load": os.getloadavg()[0]})
    scheds = getattr(rt.limiter, "_schedulers", {}).values()
    print(f"  deferred hops (cause): {[getattr(x, 'deferrals', None) for x in scheds]}")
    for sampler in STALLS:
        sampler.close()
        print("  loop late > 30 ms, samples every 5 ms, where the loop thread was:")
        for where, n in sampler.where.most_common(12):
            print(f"    {n:5d}  {where}")
    STALLS.clear()
    return out


def _med(rows: list[dict[str, Any]], key: str) -> str:
    xs = [r[key] for r in rows]
    return f"{statistics.median(xs):.2f} ({min(xs):.2f}–{max(xs):.2f})"


def report(results: dict[str, list[dict[str, Any]]]) -> None:
    print("\n| variant | pairs | conc / seq median (range) | p99 / Little median (range) | runs p99/Little > 3 "
          "| seq calls/s | conc calls/s | CPU/call seq → conc (ms) | seq p99/mean | loop lag max (ms) | load |")
    print("|---|---:|---|---|---:|---:|---:|---|---:|---:|---|")
    for name, rows in results.items():
        m: Callable[[str], float] = lambda k, rows=rows: statistics.median(r[k] for r in rows)  # noqa: E731
        bad = sum(r["p99_little"] > 3 for r in rows) + sum(r["ratio"] < 1 for r in rows) * 1j
        loads = [r["load"] for r in rows]
        print(f"| {name} | {len(rows)} | {_med(rows, 'ratio')} | {_med(rows, 'p99_little')} "
              f"| {int(bad.real)} (conc<seq: {int(bad.imag)}) | {m('seq_tp'):.0f} | {m('conc_tp'):.0f} "
              f"| {m('cpu_seq_ms'):.2f} → {m('cpu_conc_ms'):.2f} | {m('seq_p99_mean'):.1f} "
              f"| {m('lag_max_ms'):.0f} | {min(loads):.1f}–{max(loads):.1f} |")
    print("\nwhere the tail comes from (per variant, summed over pairs): kinds at or above p99; "
          "token-wait share of tail latency (median); p99 per kind concurrent (sequential), ms")
    for name, rows in results.items():
        kinds: Counter[str] = Counter()
        for r in rows:
            kinds.update(r["tail_kinds"])
        per_kind = ", ".join(
            f"{k} {statistics.median(r['kind_p99_ms'][k] for r in rows):.0f} "
            f"({statistics.median(r['kind_seq_p99_ms'][k] for r in rows):.0f})" for k in rows[0]["kind_p99_ms"])
        share = statistics.median(r["tail_wait_share"] for r in rows)
        print(f"- {name}: tail {dict(kinds)}; wait share tail {share:.0%}"
              f", all {statistics.median(r['all_wait_share'] for r in rows):.0%}; tail hops "
              f"{statistics.median(r['tail_hops'] for r in rows):.0f}, of them deferred "
              f"{statistics.median(r['tail_deferred'] for r in rows):.0f}; all hops deferred "
              f"{sum(r['deferred_hops'] for r in rows)} of {sum(r['hops'] for r in rows)}; p99 {per_kind}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tree", required=True)
    ap.add_argument("--agents", type=int, default=50)
    ap.add_argument("--calls", type=int, default=20)
    ap.add_argument("--rounds", type=int, default=3, help="interleaved rounds of blocks")
    ap.add_argument("--pairs", type=int, default=2, help="(sequential, concurrent) pairs per block")
    ap.add_argument("--max-concurrency", type=int, action="append", help="repeat to compare")
    ap.add_argument("--backends", default="asyncio,trio")
    ap.add_argument("--long-call-seconds", type=float, action="append",
                    help="the scheduler's long-call threshold (repeat to compare; default: the code's)")
    ap.add_argument("--window", type=int, action="append",
                    help="the scheduler's window of calls taking turns (repeat to compare)")
    ap.add_argument("--quantum", type=float, action="append",
                    help="the scheduler's hop time per turn, seconds (repeat to compare)")
    ap.add_argument("--stalls", action="store_true", help="sample where the loop is when it is late")
    ap.add_argument("--label", default="", help="prefix of the variant names")
    ap.add_argument("--json", help="append the raw per-pair figures to this file")
    args = ap.parse_args()
    tree = Path(args.tree)
    import pathgate

    print(f"pathgate from {os.path.dirname(pathgate.__file__)}; tree {tree}; {len(os.sched_getaffinity(0))} "
          f"CPUs usable; load {os.getloadavg()[0]:.2f}; python {sys.version.split()[0]}")
    results: dict[str, list[dict[str, Any]]] = {}
    for _ in range(args.rounds):
        for backend in args.backends.split(","):
            for mc in args.max_concurrency or [None]:
                for lc, win, q in [(lc, w, q) for lc in args.long_call_seconds or [None]
                                   for w in args.window or [None] for q in args.quantum or [None]]:
                    name = f"{args.label}{backend} mc={mc or Policy().max_concurrency}"
                    name += f" long={lc:g}s" if lc else ""
                    name += f" window={win}" if win else ""
                    name += f" quantum={q:g}s" if q is not None else ""
                    rows = anyio.run(block, tree, args.agents, args.calls, args.pairs, mc, lc, args.stalls, win, q,
                                     backend=backend)
                    results.setdefault(name, []).extend(rows)
                    for r in rows:
                        print(f"  {name}: conc/seq {r['ratio']:.2f}, p99/Little {r['p99_little']:.2f}, "
                              f"tail {r['tail_kinds']}, tail wait {r['tail_wait_share']:.0%}, "
                              f"deferred {r['deferred_hops']}"
                              f"/{r['hops']} hops, "
                              f"lag max {r['lag_max_ms']:.0f} ms, load {r['load']:.1f}", flush=True)
    report(results)
    if args.json:
        with open(args.json, "a") as f:
            for name, rows in results.items():
                for r in rows:
                    f.write(json.dumps({"variant": name} | r) + "\n")


if __name__ == "__main__":
    main()

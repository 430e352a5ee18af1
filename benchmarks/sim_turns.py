"""How the hop scheduler's turns shape the tail (issue 19), without the noise of a shared
machine: record each call's work once, then replay the closed loop in virtual time.

    python3 benchmarks/sim_turns.py --tree /tmp/corp/eugenp            # record + simulate
    python3 benchmarks/sim_turns.py --tree /tmp/corp/eugenp --seeds 8 --quantum 0 --quantum 0.075

1. *Record*: the plan of ``bench_calls.py`` (``--agents`` x ``--calls`` mixed calls: read one
   file, glob in a module, list a module, search in it) run one call after another on a warm
   runtime; per call its kind, module, latency and hops (``Ticket.hops``).
2. *Simulate*: one token, the calls of ``--agents`` agents in a closed loop (each agent's next
   call starts when its last one ends), each call's work split evenly over its hops; a hop
   granted by the scheduler's rule: a call that has not had a hop yet first, then the call
   whose turn began longest ago; a call keeps its turn until it has used ``--quantum``
   seconds of hop time (0: one hop per turn, the scheduler before the quantum). Other plans
   (``--seeds``) reuse the recorded work per (kind, module).

Prints, per quantum, p99 latency / Little's mean (agents / throughput) over the seeds
(median, max). What it leaves out: the event loop's own work between hops, reads' separate
pool, long calls yielding (``LONG_CALL_SECONDS``) and the interpreter lock between the loop
and the worker; the real runs (``bench_concurrency.py``) carry those.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections import defaultdict
from pathlib import Path

import anyio

from bench_calls import _mixed_calls
from pathgate import Policy, Runtime
from pathgate.runtime.fs._sched import call_scope

Work = dict[tuple[str, str | None], tuple[float, int]]


async def record(tree: Path, agents: int, calls: int) -> Work:
    """Median latency and hops per (kind, module) of the plan run sequentially."""
    plan = _mixed_calls(tree, agents, calls)
    rt = Runtime(tree, policy=Policy())
    for tool, args in plan[0]:  # warm
        await rt.call(tool, args)
    seen: dict[tuple[str, str | None], list[tuple[float, int]]] = defaultdict(list)
    for mine in plan:
        for tool, args in mine:
            with call_scope() as ticket:
                t = time.perf_counter()
                await rt.call(tool, args)
                seen[(tool, args.get("path"))].append((time.perf_counter() - t, ticket.hops))
    return {k: (statistics.median(w for w, _ in v), max(1, max(h for _, h in v))) for k, v in seen.items()}


def _plan(tree: Path, work: Work, agents: int, calls: int, seed: int) -> list[list[tuple[str, list[float]]]]:
    by_kind: dict[str, list[float]] = defaultdict(list)
    for (kind, _), (w, _) in work.items():
        by_kind[kind].append(w)
    out = []
    for mine in _mixed_calls(tree, agents, calls, seed=seed):
        row = []
        for tool, args in mine:
            key = (tool, args.get("path"))
            w, h = work.get(key) or work.get((tool, None)) or (statistics.median(by_kind[tool]), 5)
            row.append((tool, [w / h] * h))
        out.append(row)
    return out


def simulate(plan: list[list[tuple[str, list[float]]]], quantum: float) -> float:
    """p99 latency / Little's mean of one closed-loop run of ``plan`` (virtual time)."""
    t, turns = 0.0, 0
    calls: dict[int, dict[str, object]] = {}

    def start(agent: int, i: int, at: float) -> dict[str, object]:
        return {"i": i, "at": at, "hops": list(plan[agent][i][1]), "used": 0.0, "turn": -1, "since": 0.0}

    for agent in range(len(plan)):
        calls[agent] = start(agent, 0, 0.0)
    latencies: list[float] = []
    while calls:
        agent = min(calls, key=lambda a: (calls[a]["turn"], calls[a]["at"]))  # type: ignore[return-value]
        c = calls[agent]
        if c["turn"] == -1 or c["used"] - c["since"] >= quantum:  # type: ignore[operator]
            turns += 1
            c["turn"], c["since"] = turns, c["used"]
        hop = c["hops"].pop(0)  # type: ignore[attr-defined]
        t += hop
        c["used"] = c["used"] + hop  # type: ignore[operator]
        if not c["hops"]:
            latencies.append(t - c["at"])  # type: ignore[operator]
            if c["i"] + 1 < len(plan[agent]):  # type: ignore[operator]
                calls[agent] = start(agent, c["i"] + 1, t)  # type: ignore[operator]
            else:
                del calls[agent]
    latencies.sort()
    little = len(plan) / (len(latencies) / t)
    return latencies[int(0.99 * len(latencies))] / little


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tree", required=True)
    ap.add_argument("--agents", type=int, default=50)
    ap.add_argument("--calls", type=int, default=40)
    ap.add_argument("--seeds", type=int, default=8, help="plans simulated (seed 19 is the benchmark's)")
    ap.add_argument("--quantum", type=float, action="append", help="seconds of hop time per turn (repeat)")
    args = ap.parse_args()
    tree = Path(args.tree)
    work = anyio.run(record, tree, args.agents, args.calls)
    seeds = [19, *range(1, args.seeds)]
    plans = [_plan(tree, work, args.agents, args.calls, s) for s in seeds]
    print("| quantum (s) | p99 / Little, seed 19 | median over seeds | max |")
    print("|---:|---:|---:|---:|")
    for q in args.quantum or [0.0, 0.025, 0.05, 0.075, 0.1, 0.15, 0.25]:
        r = [simulate(p, q) for p in plans]
        print(f"| {q:g} | {r[0]:.2f} | {statistics.median(r):.2f} | {max(r):.2f} |")


if __name__ == "__main__":
    main()

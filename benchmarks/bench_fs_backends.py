"""read_files I/O backends: batched threads vs aiofiles, in the same run.

One ``read_files`` call over a 100-file and a 1,000-file request (small source-like files in
a few directories, page cache warm), through the full gate pipeline, on one shared
``Runtime`` per backend. Each size runs ``--runs`` times per backend, interleaved so drift
hits both alike; the table gives the median call time and the median per file. The thread
backend is also timed under trio (aiofiles cannot run there).

    python3 benchmarks/bench_fs_backends.py [--runs 21] [--sizes 100,1000]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import tempfile
import time
from pathlib import Path

import anyio

from pathgate import Policy, Runtime


def build_tree(root: Path, n: int) -> list[str]:
    names = []
    for i in range(n):
        rel = f"pkg{i % 20}/mod{i % 7}/file{i}.py"
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"# file {i}\n" + "x = 1\n" * (20 + i % 40))
        names.append(rel)
    (root / ".gitignore").write_text("*.pyc\nbuild/\n")
    return names


def time_call(runtime: Runtime, names: list[str], backend: str) -> float:
    async def call() -> float:
        t0 = time.perf_counter()
        results = await runtime.read_files(names, budget=10**9)
        elapsed = time.perf_counter() - t0
        assert all(r.content is not None for r in results)
        return elapsed

    return anyio.run(call, backend=backend)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=21)
    parser.add_argument("--sizes", default="100,1000")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    variants = [("thread", "asyncio"), ("aiofiles", "asyncio"), ("thread", "trio")]

    tmp = Path(tempfile.mkdtemp(prefix="pathgate-bench-"))
    try:
        root = tmp / "tree"
        names_all = build_tree(root, max(sizes))
        rows = []
        for n in sizes:
            names = names_all[:n]
            runtimes = {v: Runtime(root, Policy(fs_backend=v[0])) for v in variants}
            samples: dict[tuple[str, str], list[float]] = {v: [] for v in variants}
            for v in variants:  # warm-up: threads, ignore index, page cache
                time_call(runtimes[v], names, v[1])
            for _ in range(args.runs):
                for v in variants:
                    samples[v].append(time_call(runtimes[v], names, v[1]))
            medians = {v: statistics.median(s) for v, s in samples.items()}
            base = medians[("thread", "asyncio")]
            for v in variants:
                m = medians[v]
                rows.append((n, f"{v[0]} ({v[1]})", m * 1e3, m / n * 1e6, m / base))
        print(f"read_files, median of {args.runs} runs per cell (interleaved), warm page cache\n")
        print("| files | backend (event loop) | call (ms) | per file (µs) | vs thread/asyncio |")
        print("|---:|---|---:|---:|---:|")
        for n, name, ms, us, ratio in rows:
            print(f"| {n} | {name} | {ms:.2f} | {us:.1f} | {ratio:.2f}× |")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()

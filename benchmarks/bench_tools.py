"""Discovery tools and the middleware chain vs git and ripgrep, in one run (issues 5, 6).

    apt-get install -y ripgrep                        # set-up: the search competitor
    python3 benchmarks/bench_tools.py                 # materializes eugenp-tutorials
    python3 benchmarks/bench_tools.py --tree PATH     # your own work tree (a git repo)
    python3 benchmarks/bench_tools.py --only chain,tracing --runs 9

Sections (``--only``), each timed as the median of ``--runs`` runs, competitors interleaved
run by run so machine noise hits both alike:

correctness  ``glob("**", limit=0)`` with git-only ignore sources must list exactly git's kept
             files (``.truth/kept.txt``; on your own tree: untracked-kept plus tracked files
             that no rule ignores). Checked with the secrets gate off (pure ignore semantics:
             must be equal) and on (the only files missing must be secrets). Prints PASS/FAIL
             with diff counts; exits 1 on FAIL before anything is timed.
glob         ``glob("**/*.java")`` against ``git ls-files --others --exclude-standard
             '*.java'`` (a whole git process); pathgate on a warm runtime (a long-lived
             host), on a new runtime (cold ignore index), and as the ``pathgate glob`` CLI
             (a whole Python process). Target: warm ≤ 1.5× git.
search       ``code_search`` of a literal against ``rg`` on the same tree. Target ≤ 3× rg.
             rg runs as ``rg --no-config -F -n --no-heading --with-filename --color never
             --hidden -g '!.git' --no-ignore-dot --no-ignore-global --no-ignore-parent``:
             git's ignore sources only (.gitignore, .git/info/exclude), hidden files
             searched (pathgate does not skip dot files), ``.git`` skipped. The hit sets
             (path, line) are compared; what may differ: pathgate never opens secrets
             (``.env``, ``*.pem`` …), skips invalid UTF-8 as binary and files over the size
             limit (10 MiB); rg searches those. rg 13 mishandles a UTF-8 BOM at the start of
             a ``.gitignore`` (the first pattern is read with the BOM and never matches);
             pathgate strips it like git.
chain        the cost of the middleware chain itself: ``rt.call`` of a host tool registered
             with ``rt.register_tool`` that returns at once, against awaiting the function
             directly; tracing on the global (no-op) provider. Target < 50 µs per call.
tracing      the same ``rt.call("read_files", ...)`` on a runtime with the global no-op
             providers and on one with an SDK ``TracerProvider`` +
             ``SimpleSpanProcessor(InMemorySpanExporter())`` and ``MeterProvider(
             InMemoryMetricReader)`` (µs per call, both; one allowed path, and four paths
             of which two are blocked, so two child spans).

git and pathgate both run with git's user/system config switched off (``GIT_CONFIG_GLOBAL=
/dev/null GIT_CONFIG_NOSYSTEM=1``, set for this process too, so pathgate's
``core.excludesFile`` lookup sees the same config). Trees are materialized under
``benchmarks/.trees/`` (gitignored) by ``bench_ignore.ensure_tree``.
"""

from __future__ import annotations

import argparse
import gc
import os
import platform
import re
import resource
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

os.environ["GIT_CONFIG_GLOBAL"] = "/dev/null"
os.environ["GIT_CONFIG_NOSYSTEM"] = "1"

import anyio

from bench_ignore import GIT, GIT_ENV, ensure_tree, git_lines
from pathgate import Policy, Runtime

SECTIONS = ("correctness", "glob", "search", "chain", "tracing")
RG_ARGS = ["--no-config", "-F", "-n", "--no-heading", "--with-filename", "--color", "never",
           "--hidden", "-g", "!.git", "--no-ignore-dot", "--no-ignore-global", "--no-ignore-parent"]

Row = tuple[str, float, str, str]  # name, seconds, unit ("s" | "us"), ratio text


def _fmt(secs: float, unit: str) -> str:
    return f"{secs:.3f} s" if unit == "s" else f"{secs * 1e6:.1f} µs"


def run_proc(cmd: list[str], cwd: Path | None = None) -> bytes:
    return subprocess.run(cmd, cwd=cwd, env=GIT_ENV, capture_output=True, check=False).stdout


def _cpu() -> float:
    """CPU seconds of this process plus its waited-for children (git, rg, the CLI)."""
    me = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


async def interleaved(variants: dict[str, Callable[[], Awaitable[object]]], runs: int
                      ) -> dict[str, float]:
    """Median wall seconds per variant (and, under ``name + ":cpu"``, median CPU seconds of
    this process and its children); the variants alternate within each run."""
    times: dict[str, list[float]] = {k: [] for k in variants}
    cpus: dict[str, list[float]] = {k: [] for k in variants}
    for _ in range(runs):
        for name, fn in variants.items():
            gc.collect()
            c = _cpu()
            t = time.perf_counter()
            await fn()
            times[name].append(time.perf_counter() - t)
            cpus[name].append(_cpu() - c)
    out = {k: statistics.median(v) for k, v in times.items()}
    out.update({f"{k}:cpu": statistics.median(v) for k, v in cpus.items()})
    return out


def ratio_rows(t: dict[str, float], base: str, named: list[tuple[str, str]]) -> list[Row]:
    """One row per (key, label): wall median, wall ratio to ``base``, CPU and CPU ratio."""
    b, bc = t[base], t[f"{base}:cpu"]
    return [(label, t[k], "s", f"{t[k] / b:.2f}× | {t[k + ':cpu']:.3f} s | {t[k + ':cpu'] / bc:.2f}×")
            for k, label in named]


def policy(*, secrets: bool = True) -> Policy:
    return Policy(enforce_secrets=secrets).git_only()


def search_policy() -> Policy:
    """:func:`policy` without code_search's output budget: every hit, as rg finds them."""
    return Policy(enforce_secrets=True, read_budget=1 << 62).git_only()


def git_truth(tree: Path) -> tuple[set[str], str]:
    kept = tree / ".truth" / "kept.txt"
    if kept.exists():
        return set(kept.read_text("utf-8", "surrogateescape").splitlines()), str(kept)
    # a real repository: kept untracked files plus tracked files no rule ignores
    others = git_lines(tree, "ls-files", "--others", "--exclude-standard")
    cached = set(git_lines(tree, "ls-files", "--cached"))
    ignored = set(git_lines(tree, "ls-files", "--cached", "--ignored", "--exclude-standard"))
    return set(others) | {p for p in cached - ignored if (tree / p).is_file()}, "git ls-files"


# -- sections ------------------------------------------------------------------------------


async def correctness(tree: Path) -> bool:
    truth, source = git_truth(tree)
    ok = True
    for secrets in (False, True):
        rt = Runtime(tree, policy=policy(secrets=secrets))
        res = await rt.glob("**", limit=0)
        got = set(res.matches)
        missing, extra = truth - got, got - truth
        if secrets:
            not_secret = {p for p in missing if not rt.pipeline.is_secret(p)}
            good = not extra and not not_secret and not res.walk_stopped_early
            note = f"{len(missing)} secrets withheld, {len(not_secret)} other missing"
        else:
            good = not missing and not extra and not res.walk_stopped_early
            note = f"{len(missing)} missing"
        ok &= good
        print(f"{'PASS' if good else 'FAIL'}  glob('**') secrets {'on ' if secrets else 'off'} "
              f"vs {source}: {len(got)} listed, {len(truth)} expected, {note}, {len(extra)} extra"
              + ("  (walk stopped early)" if res.walk_stopped_early else ""))
        for p in sorted((missing if not secrets else not_secret) | extra)[:10]:
            print(f"      {'extra  ' if p in extra else 'missing'} {p}")
    return ok


async def bench_glob(tree: Path, runs: int, pattern: str, pathspec: str) -> list[Row]:
    rt = Runtime(tree, policy=policy())
    warm = await rt.glob(pattern, limit=0)
    git_files = set(git_lines(tree, "ls-files", "--others", "--exclude-standard", pathspec))
    agree = "agree" if set(warm.matches) == git_files else (
        f"DIFFER: {len(set(warm.matches) - git_files)} only pathgate, "
        f"{len(git_files - set(warm.matches))} only git")
    print(f"glob {pattern!r}: pathgate {len(warm.matches)} files, git {len(git_files)} ({agree})")
    git_cmd = [*GIT, "-C", str(tree), "ls-files", "--others", "--exclude-standard", pathspec]
    cli = shutil.which("pathgate")
    cli_cmd = [cli or "pathgate", "glob", "--git-only", "--limit", "0", "--root", str(tree), pattern]

    async def git() -> None:
        await anyio.to_thread.run_sync(run_proc, git_cmd)

    async def pg_warm() -> None:
        await rt.glob(pattern, limit=0)

    async def pg_cold() -> None:
        await Runtime(tree, policy=policy()).glob(pattern, limit=0)

    async def pg_cli() -> None:
        await anyio.to_thread.run_sync(run_proc, cli_cmd)

    variants: dict[str, Callable[[], Awaitable[object]]] = {"git": git, "warm": pg_warm, "cold": pg_cold}
    if cli:
        variants["cli"] = pg_cli
    t = await interleaved(variants, runs)
    named = [
        ("git", f"git ls-files --others --exclude-standard '{pathspec}' (process)"),
        ("warm", f"pathgate glob('{pattern}'), warm runtime"),
        ("cold", f"pathgate glob('{pattern}'), new runtime (cold index)"),
    ]
    if cli:
        named.append(("cli", "`pathgate glob --git-only --limit 0` (process)"))
    rows = ratio_rows(t, "git", named)
    return rows


def _rg_hits(out: bytes) -> set[tuple[str, int]]:
    hits: set[tuple[str, int]] = set()
    for line in out.decode("utf-8", "surrogateescape").splitlines():
        path, lineno, _ = line.split(":", 2)
        hits.add((path.removeprefix("./"), int(lineno)))
    return hits


async def bench_search(tree: Path, runs: int, literal: str) -> list[Row]:
    rg = shutil.which("rg")
    if rg is None:
        print("search: rg not found (apt-get install -y ripgrep); section skipped")
        return []
    version = run_proc([rg, "--version"]).decode().splitlines()[0]
    rt = Runtime(tree, policy=search_policy())
    regex = re.escape(literal)
    res = await rt.code_search(regex, max_results=0)
    pg = {(h.path, h.line) for h in res.hits}
    rg_cmd = [rg, *RG_ARGS, literal]
    rg1_cmd = [rg, "-j1", *RG_ARGS, literal]
    rgh = _rg_hits(run_proc(rg_cmd, cwd=tree))
    only_rg, only_pg = rgh - pg, pg - rgh
    secret_only = {p for p, _ in only_rg if rt.pipeline.is_secret(p)}
    other = {p for p, _ in only_rg if p not in secret_only} | {p for p, _ in only_pg}
    print(f"search {literal!r} ({version}): pathgate {len(pg)} hits in {res.files_searched} files "
          f"searched; rg {len(rgh)} hits; only rg: {len(only_rg)} (in {len(secret_only)} secret files "
          f"pathgate never opens), only pathgate: {len(only_pg)}; other differing files: {len(other)}"
          f"; skipped binary {res.skipped_binary}, too large {res.skipped_too_large}")
    for p in sorted(other)[:10]:
        print(f"      differs: {p}")

    async def rg_run() -> None:
        await anyio.to_thread.run_sync(run_proc, rg_cmd, tree)

    async def rg1_run() -> None:
        await anyio.to_thread.run_sync(run_proc, rg1_cmd, tree)

    async def pg_warm() -> None:
        await rt.code_search(regex, max_results=0)

    async def pg_cold() -> None:
        await Runtime(tree, policy=search_policy()).code_search(regex, max_results=0)

    t = await interleaved({"rg": rg_run, "rg1": rg1_run, "warm": pg_warm, "cold": pg_cold}, runs)
    return ratio_rows(t, "rg", [
        ("rg", f"rg (process, {os.cpu_count()} threads)"),
        ("rg1", "rg -j1 (process, one thread)"),
        ("warm", "pathgate code_search (literal), warm runtime"),
        ("cold", "pathgate code_search (literal), new runtime"),
    ])


async def per_call(variants: dict[str, Callable[[], Awaitable[object]]], calls: int, runs: int,
                   warmup: int = 200) -> dict[str, tuple[float, float]]:
    """Per variant: (median wall seconds per call, median CPU seconds per call) over ``runs``
    runs of ``calls`` sequential calls; the variants alternate run by run. CPU time (this
    process, all threads) is the steadier figure on a shared machine."""
    for fn in variants.values():
        for _ in range(min(calls, warmup)):
            await fn()
    wall: dict[str, list[float]] = {k: [] for k in variants}
    cpu: dict[str, list[float]] = {k: [] for k in variants}
    for _ in range(runs):
        for name, fn in variants.items():
            gc.collect()
            t, c = time.perf_counter(), time.process_time()
            for _ in range(calls):
                await fn()
            wall[name].append((time.perf_counter() - t) / calls)
            cpu[name].append((time.process_time() - c) / calls)
    return {k: (statistics.median(wall[k]), statistics.median(cpu[k])) for k in variants}


def pair_rows(label: str, t: dict[str, tuple[float, float]], base: str, other: str,
              names: tuple[str, str, str], target: str = "") -> list[Row]:
    """Rows for a base/other pair: both, and the difference (wall, and CPU in the ratio column)."""
    (bw, bc), (ow, oc) = t[base], t[other]
    return [
        (f"{label}{names[0]}", bw, "us", f"1.00× (CPU {bc * 1e6:.1f} µs)"),
        (f"{label}{names[1]}", ow, "us", f"{ow / bw:.2f}× (CPU {oc * 1e6:.1f} µs)"),
        (f"{label}{names[2]}", ow - bw, "us", f"CPU {(oc - bc) * 1e6:.1f} µs" + (f"; {target}" if target else "")),
    ]


async def bench_chain(tree: Path, runs: int, calls: int) -> list[Row]:
    rt = Runtime(tree, policy=policy())

    async def noop(args: Any) -> None:
        return None

    rt.register_tool("noop", noop)
    args: dict[str, Any] = {}
    assert await rt.call("noop", args) is None

    async def direct() -> None:
        await noop(args)

    async def chained() -> None:
        await rt.call("noop", args)

    t = await per_call({"direct": direct, "chain": chained}, calls, runs)
    return pair_rows("", t, "direct", "chain", (
        "await noop(args), direct",
        "rt.call('noop', args): error boundary, tracing (global no-op), rendering",
        "chain cost per call (difference)"), "target < 50 µs")


async def bench_tracing(tree: Path, runs: int, calls: int) -> list[Row]:
    from opentelemetry.sdk.metrics import MeterProvider
    from opentelemetry.sdk.metrics.export import InMemoryMetricReader
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    truth, _ = git_truth(tree)
    kept = sorted(truth)
    ignored_file = tree / ".truth" / "ignored.txt"
    ignored = (ignored_file.read_text().splitlines()[:1] if ignored_file.exists()
               else git_lines(tree, "ls-files", "--others", "--ignored", "--exclude-standard")[:1])
    one = [kept[0]]
    four = [kept[0], kept[len(kept) // 2], *ignored, "no/such/file.txt"]

    exporter = InMemorySpanExporter()
    tp = TracerProvider()
    tp.add_span_processor(SimpleSpanProcessor(exporter))
    reader = InMemoryMetricReader()
    mp = MeterProvider(metric_readers=[reader])
    off_rt = Runtime(tree, policy=policy())
    on_rt = Runtime(tree, policy=policy(), tracer_provider=tp, meter_provider=mp)

    async def noop(args: Any) -> None:
        return None

    rows: list[Row] = []
    cases: list[tuple[str, str, dict[str, Any], int]] = [
        ("host tool `noop`", "noop", {}, 0),
        ("read_files, 1 path", "read_files", {"paths": one}, 0),
        ("read_files, 4 paths, 2 blocked", "read_files", {"paths": four}, len(four) - 2),
    ]
    for rt in (off_rt, on_rt):
        rt.register_tool("noop", noop)
    for label, tool, args, blocked in cases:
        exporter.clear()
        await on_rt.call(tool, args)
        spans = len(exporter.get_finished_spans())
        assert spans == 1 + blocked, (label, spans)

        async def off(tool: str = tool, args: dict[str, Any] = args) -> None:
            await off_rt.call(tool, args)

        async def on(tool: str = tool, args: dict[str, Any] = args) -> None:
            await on_rt.call(tool, args)
            exporter.clear()

        t = await per_call({"off": off, "on": on}, calls, runs)
        rows += pair_rows(f"{label}: ", t, "off", "on", (
            "tracing off (global no-op providers)",
            f"SDK, in-memory exporter + metric reader ({spans} span{'s' if spans > 1 else ''})",
            "tracing overhead per call"))
    tp.shutdown()
    mp.shutdown()
    return rows


# -- main ----------------------------------------------------------------------------------


async def amain(args: argparse.Namespace) -> int:
    tree = ensure_tree(args)
    only = set(args.only.split(",")) if args.only else set(SECTIONS)
    unknown = only - set(SECTIONS)
    if unknown:
        sys.exit(f"--only: unknown section(s) {', '.join(sorted(unknown))}; choose from {', '.join(SECTIONS)}")
    git_version = subprocess.run(["git", "--version"], capture_output=True, text=True).stdout.strip()
    print(f"tree: {tree}  python {platform.python_version()}  {git_version}  "
          f"{platform.machine()} {os.cpu_count()} CPUs  load {os.getloadavg()[0]:.2f}  runs {args.runs}")
    if "correctness" in only and not await correctness(tree):
        return 1
    sections: list[tuple[str, list[Row]]] = []
    if "glob" in only:
        sections.append(("glob", await bench_glob(tree, args.runs, args.pattern, args.pathspec)))
    if "search" in only:
        sections.append(("code_search", await bench_search(tree, args.runs, args.literal)))
    if "chain" in only:
        sections.append(("middleware chain", await bench_chain(tree, args.runs, args.calls)))
    if "tracing" in only:
        sections.append(("tracing", await bench_tracing(tree, args.runs, args.calls)))
    for title, rows in sections:
        if not rows:
            continue
        if rows[0][2] == "s":
            print(f"\n{title}\n\n| measurement | median wall | ratio | median CPU | CPU ratio |\n"
                  "| --- | ---: | ---: | ---: | ---: |")
        else:
            print(f"\n{title}\n\n| measurement | median wall | ratio / CPU |\n| --- | ---: | ---: |")
        for name, secs, unit, ratio in rows:
            print(f"| {name} | {_fmt(secs, unit)} | {ratio} |")
    print(f"\nload average at the end: {os.getloadavg()[0]:.2f}")
    return 0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tree", help="a work tree to measure (default: a materialized corpus)")
    ap.add_argument("--corpus", default="eugenp-tutorials")
    ap.add_argument("--only", help=f"comma-separated sections: {','.join(SECTIONS)}")
    ap.add_argument("--runs", type=int, default=5, help="runs per measurement (median)")
    ap.add_argument("--calls", type=int, default=2000, help="calls per run for per-call rows")
    ap.add_argument("--pattern", default="**/*.java", help="pathgate glob pattern")
    ap.add_argument("--pathspec", default="*.java", help="the same set as a git pathspec")
    ap.add_argument("--literal", default="lambda delta", help="the code_search literal")
    args = ap.parse_args()
    sys.exit(anyio.run(amain, args))


if __name__ == "__main__":
    main()

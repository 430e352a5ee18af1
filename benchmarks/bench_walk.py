"""The pruning walk alone, against git's own walk in the same run (issue 13).

    python3 benchmarks/bench_walk.py                       # this checkout's src/
    python3 benchmarks/bench_walk.py --src /tmp/before/src # another checkout, same tree

Walks the whole materialized corpus (``benchmarks/.trees/<corpus>``, built by
``bench_ignore.ensure_tree``) with a warm index and a fresh session per run, and times
``git ls-files --others --exclude-standard`` on the same tree; prints medians of
``--repeat`` runs and the ratio pathgate / git. Compare two checkouts by their ratios.
"""

from __future__ import annotations

import argparse
import importlib
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--src", default=str(HERE.parent / "src"))
    ap.add_argument("--tree")
    ap.add_argument("--corpus", default="eugenp-tutorials")
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--defaults", action="store_true",
                    help="the runtime's sources (built-in list, agent files) instead of git's only")
    args = ap.parse_args()
    sys.path.insert(0, str(Path(args.src).resolve()))
    sys.path.insert(1, str(HERE))
    from bench_ignore import GIT, GIT_ENV, ensure_tree

    tree = ensure_tree(args)
    try:
        ign = importlib.import_module("pathgate.runtime.ignore")
    except ImportError:
        ign = importlib.import_module("pathgate.runtime._ignore")
    walk = importlib.import_module("pathgate.runtime._walk").walk
    index = ign.IgnoreIndex(tree, ign.IgnoreConfig() if args.defaults else ign.IgnoreConfig.git_only())
    n = sum(1 for _ in walk(index.session()))  # warm the index

    def one_walk() -> None:
        for _ in walk(index.session()):
            pass

    def one_git() -> None:
        subprocess.run([*GIT, "-C", str(tree), "ls-files", "--others", "--exclude-standard", "-z"],
                       check=True, env=GIT_ENV, stdout=subprocess.DEVNULL)

    pg: list[float] = []
    gt: list[float] = []
    cpu: list[float] = []
    gcpu: list[float] = []
    for _ in range(args.repeat):  # interleaved: both see the same machine load
        t = time.perf_counter()
        c = time.process_time()
        one_walk()
        pg.append(time.perf_counter() - t)
        cpu.append(time.process_time() - c)
        t = time.perf_counter()
        r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        one_git()
        r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        gt.append(time.perf_counter() - t)
        gcpu.append(r1.ru_utime + r1.ru_stime - r0.ru_utime - r0.ru_stime)
    p, g = statistics.median(pg), statistics.median(gt)
    pc, gc = statistics.median(cpu), statistics.median(gcpu)
    print(f"src={args.src} entries={n} walk={p:.3f}s (cpu {pc:.3f}s) "
          f"git={g:.3f}s (cpu {gc:.3f}s) ratio={p / g:.2f} cpu ratio={pc / gc:.2f}")


if __name__ == "__main__":
    main()

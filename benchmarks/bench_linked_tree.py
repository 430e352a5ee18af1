"""Tool calls on a project whose files are hard-linked (a ``cp -al`` copy, a backup made with
``rsync --link-dest``, a package store's links): every multi-linked file a call opens or
walks is put to the secret-inode registry, whose validation ``lstat`` s every directory of
the project.

    python3 benchmarks/bench_linked_tree.py --tree /tmp/corp/eugenp --module web-modules
    PYTHONPATH=/path/to/other/src python3 benchmarks/bench_linked_tree.py ...   # a before run

Copies ``--tree`` once to ``--work`` (plain files, its own inodes: the source's link counts
are never touched), links ``--module`` into an ignored ``.mirror/`` there (every file of the
module then has two links, none a secret's), and times glob, code_search (capped), list and
a one-file read in the module on one warm runtime: CPU per call, median of ``--repeat``, on
the linked copy and on the plain source tree.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import time
from pathlib import Path
from typing import Any

import anyio

from pathgate import Runtime


def ensure(tree: Path, work: Path, module: str) -> Path:
    dst = work / tree.name
    if (work / "done").exists():
        return dst
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    subprocess.run(["cp", "-r", str(tree), str(dst)], check=True)
    subprocess.run(["cp", "-al", str(dst / module), str(dst / ".mirror")], check=True)
    with open(dst / ".gitignore", "a") as f:
        f.write("\n/.mirror/\n")
    (work / "done").touch()
    return dst


def calls(module: str, first_file: str) -> list[tuple[str, dict[str, Any]]]:
    return [("glob", {"pattern": "**/*.java", "path": module}),
            ("code_search", {"regex": "lambda delta", "path": module, "max_results": 50}),
            ("list_directory", {"path": module}),
            ("read_files", {"paths": [first_file]})]


async def measure(root: Path, module: str, first_file: str, repeat: int) -> dict[str, float]:
    rt = Runtime(root)
    out: dict[str, float] = {}
    for tool, args in calls(module, first_file):
        await rt.call(tool, args)
        cpu = []
        for _ in range(repeat):
            c = time.process_time()
            await rt.call(tool, args)
            cpu.append(time.process_time() - c)
        out[tool] = statistics.median(cpu)
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--tree", type=Path, required=True)
    ap.add_argument("--module", default="web-modules")
    ap.add_argument("--work", type=Path, default=Path("/tmp/pathgate-bench-linked"))
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    import pathgate
    linked = ensure(args.tree, args.work, args.module)
    first = sorted(str(p.relative_to(args.tree)) for p in (args.tree / args.module).rglob("*.java"))[0]
    print(f"pathgate from {Path(pathgate.__file__).parent}; module {args.module}")
    for name, root in (("linked copy", linked), ("plain tree", args.tree)):
        got = anyio.run(measure, root, args.module, first, args.repeat)
        print(f"{name:12} " + "  ".join(f"{k} {v * 1e3:8.1f} ms" for k, v in got.items()))


if __name__ == "__main__":
    main()

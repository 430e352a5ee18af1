"""Cost of the walker's hard-link mark (one ``DirEntry.stat`` per walked regular file).

    python3 benchmarks/bench_hardlink_mark.py [--dirs 500 --files 100 --repeat 9]

Generates a tree of ``dirs × files`` small files (once, under ``/tmp``), then, interleaved,
medians of ``--repeat``, with a warm ignore index and a fresh session per walk:

* the plain walk (``Walker(links=False)``: what discovery runs while no secret is
  multi-linked),
* the same walk plus the secret-inode registry's per-walk validation (one ``lstat`` per
  directory: the price every discovery walk pays to know it need not mark),
* the marking walk (``links=True``: one ``DirEntry.stat`` per file: while a secret is
  multi-linked, or in strict mode),

and the registry's one-time build (first discovery call of a runtime).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "src"))

from pathgate import Policy  # noqa: E402
from pathgate.runtime import _walk  # noqa: E402
from pathgate.runtime._links import SecretInodes  # noqa: E402
from pathgate.runtime.gates.secrets import SecretMatcher  # noqa: E402
from pathgate.runtime.ignore import IgnoreConfig, IgnoreIndex  # noqa: E402


def ensure(root: Path, dirs: int, files: int, ignored: int) -> None:
    if (root / "done").exists():
        return
    for d in range(ignored):  # an ignored node_modules: never walked, but the registry's
        sub = root / "node_modules" / f"p{d}" / "lib"
        sub.mkdir(parents=True, exist_ok=True)
        for f in range(4):
            (sub / f"i{f}.js").write_text("x\n")
    for d in range(dirs):
        sub = root / f"pkg{d // 50}" / f"mod{d}"
        sub.mkdir(parents=True, exist_ok=True)
        for f in range(files):
            (sub / f"f{f}.py").write_text("x = 1\n")
    (root / ".gitignore").write_text("*.pyc\nnode_modules/\n")
    (root / "done").write_text("")


def one(index: IgnoreIndex, links: bool, reg: SecretInodes | None = None) -> float:
    t = time.perf_counter()
    if reg is not None:
        reg.current()
    w = _walk.Walker(index.session(), links=links)
    n = 0
    while chunk := w.step():
        n += len(chunk)
    w.close()
    assert n > 0
    return time.perf_counter() - t


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--dirs", type=int, default=500)
    ap.add_argument("--files", type=int, default=100)
    ap.add_argument("--repeat", type=int, default=9)
    ap.add_argument("--ignored", type=int, default=0, help="node_modules packages (2 dirs each)")
    args = ap.parse_args()
    root = Path(f"/tmp/pathgate-bench-hl-{args.dirs}x{args.files}-{args.ignored}")
    ensure(root, args.dirs, args.files, args.ignored)
    index = IgnoreIndex(str(root), IgnoreConfig.git_only())
    reg = SecretInodes(str(root), SecretMatcher(Policy().secret_patterns).is_secret)
    t = time.perf_counter()
    reg.current()
    build = time.perf_counter() - t
    plain: list[float] = []
    valid: list[float] = []
    marked: list[float] = []
    one(index, False)
    for _ in range(args.repeat):
        plain.append(one(index, False))
        valid.append(one(index, False, reg))
        marked.append(one(index, True))
    a, b, c = (statistics.median(x) for x in (plain, valid, marked))
    print(f"{args.dirs * args.files} files: plain walk {a:.3f} s; + registry validation {b:.3f} s "
          f"(×{b / a:.3f}); marking walk {c:.3f} s (×{c / a:.3f}); registry build once {build:.3f} s")

if __name__ == "__main__":
    main()

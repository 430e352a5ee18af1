"""``pathgate check-ignore --git-only --stdin`` as a whole process against git (issue 19).

    python3 benchmarks/bench_check_ignore_cli.py --tree /tmp/eugenp \\
        --variant before=/tmp/before/src --variant after=src

Every path of the work tree (git's own list: ``ls-files --others``) is fed on stdin, shuffled (seed 0) and sorted, to
``git check-ignore --no-index --stdin`` and to ``python3 -m pathgate check-ignore --git-only
--excludes-file /dev/null --stdin`` for each ``--variant NAME=SRC`` (``PYTHONPATH=SRC``),
and with ``-v -n`` (``--verbose``). The runs are interleaved; each cell is the median (and
the min–max spread) of ``--repeat`` runs of the CPU time (user + sys of the child, from
``wait4``), the wall time and the peak RSS. Every output is compared with git's, byte for
byte. Python byte code is cached in a temporary ``PYTHONPYCACHEPREFIX`` warmed by one
untimed run (an installed package has its ``.pyc`` files; ``PYTHONDONTWRITEBYTECODE`` is
dropped for the children). The peak RSS is measured through ``/usr/bin/time`` when it
exists: a child forked from this (large) process would inherit its RSS as a floor.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

GIT_ENV = {**{k: v for k, v in os.environ.items()
              if not k.startswith("GIT_") and k != "PYTHONDONTWRITEBYTECODE"},
           "GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1", "LC_ALL": "C"}
GIT = ["git", "-c", "core.excludesFile=/dev/null"]
TIME = "/usr/bin/time"


def run_reaped(cmd: list[str], cwd: Path, stdin: bytes, env: dict[str, str]
               ) -> tuple[float, float, int, bytes]:
    """``(cpu s, wall s, peak RSS KiB, stdout)`` of one child process, reaped with
    ``wait4`` to get its own resource usage (the peak RSS from ``/usr/bin/time`` when it
    exists, so that it does not start from this process's)."""
    rss_fd = None
    if os.access(TIME, os.X_OK):
        rss_r, rss_fd = os.pipe()
        cmd = [TIME, "-f", "%M", "-o", f"/dev/fd/{rss_fd}", *cmd]
    t = time.perf_counter()
    r_in, w_in = os.pipe()
    r_out, w_out = os.pipe()
    pid = os.fork()
    if pid == 0:  # child
        os.chdir(cwd)
        os.dup2(r_in, 0)
        os.dup2(w_out, 1)
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 2)
        for fd in (r_in, w_in, r_out, w_out, devnull):
            os.close(fd)
        if rss_fd is not None:
            os.set_inheritable(rss_fd, True)
        os.execvpe(cmd[0], cmd, env)
    os.close(r_in)
    os.close(w_out)
    if rss_fd is not None:
        os.close(rss_fd)
    def feed() -> None:
        with os.fdopen(w_in, "wb") as fh:
            try:
                fh.write(stdin)
            except BrokenPipeError:
                pass

    feeder = threading.Thread(target=feed)
    feeder.start()
    chunks = []
    with os.fdopen(r_out, "rb") as fh:
        while True:
            b = fh.read(1 << 16)
            if not b:
                break
            chunks.append(b)
    feeder.join()
    _, _, ru = os.wait4(pid, 0)
    wall = time.perf_counter() - t
    rss = ru.ru_maxrss
    if rss_fd is not None:
        with os.fdopen(rss_r, "rb") as fh:
            rss = int(fh.read().split()[-1])
    return ru.ru_utime + ru.ru_stime, wall, rss, b"".join(chunks)


def paths_of(tree: Path) -> list[bytes]:
    """Every file of the work tree (``ls-files --others`` without excludes lists all)."""
    res = subprocess.run([*GIT, "-C", str(tree), "ls-files", "--others", "-z"],
                         check=True, env=GIT_ENV, capture_output=True).stdout
    return sorted({p for p in res.split(b"\0") if p})


def _commands(variants: list[tuple[str, str]], verbose: bool, pycache: str
              ) -> dict[str, tuple[list[str], dict[str, str]]]:
    flags = ["-v", "-n"] if verbose else []
    cmds: dict[str, tuple[list[str], dict[str, str]]] = {
        "git": ([*GIT, "check-ignore", "--no-index", *flags, "--stdin"], GIT_ENV)}
    for name, src in variants:
        env = {**GIT_ENV, "PYTHONPATH": str(Path(src).resolve()), "PYTHONPYCACHEPREFIX": pycache}
        cmds[name] = ([sys.executable, "-m", "pathgate", "check-ignore", "--git-only",
                       "--excludes-file", "/dev/null", *flags, "--stdin"], env)
    return cmds


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tree", required=True)
    ap.add_argument("--variant", action="append", default=[], help="NAME=SRC")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--verbose", action="store_true", help="run with -v -n (compare outputs)")
    args = ap.parse_args()
    tree = Path(args.tree).resolve()
    variants = [v.partition("=")[::2] for v in args.variant] or [("pathgate", "src")]
    paths = paths_of(tree)
    shuffled = list(paths)
    random.Random(0).shuffle(shuffled)
    inputs = {"shuffled": b"".join(p + b"\n" for p in shuffled),
              "sorted": b"".join(p + b"\n" for p in paths)}
    with tempfile.TemporaryDirectory(prefix="pathgate-pyc-") as pycache:
        cmds = _commands(variants, args.verbose, pycache)
        for cmd, env in cmds.values():  # warm the byte-code cache (untimed)
            run_reaped(cmd, tree, b"x\n", env)
        results: dict[tuple[str, str], list[tuple[float, float, int]]] = {}
        outputs: dict[tuple[str, str], bytes] = {}
        for _ in range(args.repeat):
            for order, data in inputs.items():
                for name, (cmd, env) in cmds.items():
                    cpu, wall, rss, out = run_reaped(cmd, tree, data, env)
                    results.setdefault((name, order), []).append((cpu, wall, rss))
                    outputs[(name, order)] = out
    print(f"{len(paths)} paths, {args.repeat} runs each, medians (CPU min–max){' , -v -n' if args.verbose else ''}\n")
    print("| command | order | CPU (s) | CPU spread (s) | wall (s) | peak RSS (MiB) | CPU vs git | output == git |")
    print("|---|---|---:|---:|---:|---:|---:|---|")
    for order in inputs:
        git_cpu = statistics.median(c for c, _, _ in results[("git", order)])
        for name in cmds:
            rows = results[(name, order)]
            cpus = [c for c, _, _ in rows]
            cpu = statistics.median(cpus)
            wall = statistics.median(w for _, w, _ in rows)
            rss = statistics.median(r for _, _, r in rows) / 1024
            same = outputs[(name, order)] == outputs[("git", order)]
            print(f"| {name} | {order} | {cpu:.3f} | {min(cpus):.3f}–{max(cpus):.3f} | {wall:.3f} | "
                  f"{rss:.1f} | {cpu / git_cpu:.2f}× | {'yes' if same else 'NO'} |")


if __name__ == "__main__":
    main()

"""Helpers for differential tests against the real ``git`` binary (the oracle).

git runs isolated from the user's and the system's configuration
(``GIT_CONFIG_GLOBAL=/dev/null``, ``GIT_CONFIG_NOSYSTEM=1``, ``core.excludesFile=/dev/null``);
pathgate runs in-process with the matching ``--git-only --excludes-file /dev/null``.
"""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

from pathgate._check_ignore import main as check_ignore_main
from tests._gitinit import git_init as _git_init

GIT_ENV = {
    **{k: v for k, v in os.environ.items() if not k.startswith("GIT_")},
    "GIT_CONFIG_GLOBAL": "/dev/null",
    "GIT_CONFIG_NOSYSTEM": "1",
    "LC_ALL": "C",
}


def git_init(git_bin: str, root: Path) -> None:
    _git_init(root, git=git_bin, env=GIT_ENV)


def write_tree(root: Path, files: Mapping[str, bytes], dirs: Sequence[str] = ()) -> None:
    """Create ``files`` (relpath -> bytes; names may carry surrogate escapes) and ``dirs``."""
    for d in dirs:
        os.makedirs(os.fsencode(root / d), exist_ok=True)
    for rel, data in files.items():
        p = os.fsencode(root / rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "wb") as fh:
            fh.write(data)


def stdin_payload(paths: Sequence[str], nul: bool = False) -> bytes:
    sep = b"\0" if nul else b"\n"
    return b"".join(os.fsencode(p) + sep for p in paths)


def git_check_ignore(git_bin: str, root: Path, args: Sequence[str], stdin: bytes = b"",
                     config: Sequence[str] = ()) -> tuple[int, bytes]:
    cmd = [git_bin, "-c", "core.excludesFile=/dev/null"]
    for c in config:
        cmd += ["-c", c]
    cmd += ["check-ignore", "--no-index", *args]
    proc = subprocess.run(cmd, cwd=root, input=stdin, capture_output=True, env=GIT_ENV,
                          check=False)
    return proc.returncode, proc.stdout


@contextlib.contextmanager
def _redirected(stdin: bytes, cwd: Path) -> Iterator[io.BytesIO]:
    out = io.BytesIO()
    old = sys.stdin, sys.stdout, sys.stderr, os.getcwd()
    sys.stdin = io.TextIOWrapper(io.BytesIO(stdin))
    sys.stdout = io.TextIOWrapper(out)
    sys.stderr = io.StringIO()
    os.chdir(cwd)
    try:
        yield out
    finally:
        sys.stdout.flush()
        sys.stdin, sys.stdout, sys.stderr = old[0], old[1], old[2]
        os.chdir(old[3])


def pathgate_check_ignore(root: Path, args: Sequence[str], stdin: bytes = b"",
                          git_only: bool = True, cwd: Path | None = None) -> tuple[int, bytes]:
    """Run ``pathgate check-ignore`` in-process (much faster than a subprocess)."""
    flags = ["--root", str(root)]
    if git_only:
        flags += ["--git-only", "--excludes-file", "/dev/null"]
    with _redirected(stdin, cwd or root) as out:
        rc = check_ignore_main([*flags, *args])
        sys.stdout.flush()
        data = out.getvalue()
    return rc, data

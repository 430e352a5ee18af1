"""``pathgate check-ignore --stdin`` against git on hand-made lists that exercise its fast
paths (issue 19): the last directory reused without resolution, answers batched per ready
input, and a coprocess that waits for each answer."""

from __future__ import annotations

import os
import select
import subprocess
import sys
from pathlib import Path

import pytest

import pathgate
from tests.oracle._git import GIT_ENV, git_check_ignore, git_init, pathgate_check_ignore, stdin_payload, write_tree

FILES = {
    ".gitignore": b"*.log\n!keep.log\nbuild/\n**/tmp\nsub/**/deep*\nreal/sub/\n",
    "sub/.gitignore": b"x\n!a/b/x\n",
    "real/a.log": b"", "real/keep.log": b"", "real/b": b"", "real/c.log": b"",
    "real/tmp": b"", "real/sub/f": b"", "build/x": b"", "sub/x": b"",
    "sub/a/b/deep1": b"", "sub/a/b/x": b"", "sub/a/b/c": b"", "x.log": b"",
}

# sorted runs of one directory, then names the shortcut must not take ("." and "..",
# a trailing "/", a deeper path), paths that need normalising, and a leading symbolic link
PATHS = ["real/a.log", "real/keep.log", "real/b", "real/.", "real/..", "real/sub/",
         "real/sub", "real/sub/f", "real/tmp", "real/c.log", "real//c.log", "real/./b.log",
         "build/x", "build/y.log", "sub/x", "sub/a/b/deep1", "sub/a/b/x", "sub/a/b/c",
         "sub/a/b/../b/x", "x.log", "real/a.log", "missing/a.log", "missing/b", "lnk/a.log",
         "real/after-the-fatal.log"]


@pytest.fixture
def tree(tmp_path: Path, git_bin: str) -> Path:
    git_init(git_bin, tmp_path)
    write_tree(tmp_path, FILES)
    (tmp_path / "lnk").symlink_to("real")
    return tmp_path


@pytest.mark.parametrize("flags", [[], ["-v", "-n"], ["-v"]])
def test_sorted_runs_equal_git(tree: Path, git_bin: str, flags: list[str]) -> None:
    data = stdin_payload(PATHS)
    want = git_check_ignore(git_bin, tree, [*flags, "--stdin"], data)
    assert want[0] == 128  # "beyond a symbolic link" ends both runs at lnk/a.log
    assert pathgate_check_ignore(tree, [*flags, "--stdin"], data) == want


def test_from_a_subdirectory_equal_git(tree: Path, git_bin: str) -> None:
    paths = ["a.log", "keep.log", "b", "../build/x", "../real/a.log", "sub/f", "sub/../c.log",
             "c.log", "../x.log", "tmp", "./b"]
    data = stdin_payload(paths)
    cmd = [git_bin, "-c", "core.excludesFile=/dev/null", "check-ignore", "--no-index", "-v",
           "-n", "--stdin"]
    want = subprocess.run(cmd, cwd=tree / "real", input=data, capture_output=True,
                          env=GIT_ENV, check=False)
    got = pathgate_check_ignore(tree, ["-v", "-n", "--stdin"], data, cwd=tree / "real")
    assert got == (want.returncode, want.stdout)


def _read_line(proc: subprocess.Popen[bytes]) -> bytes:
    assert proc.stdout is not None
    ready, _, _ = select.select([proc.stdout], [], [], 60)
    assert ready, "no answer while the input stayed open"
    return proc.stdout.readline()


def test_answers_a_coprocess_before_the_input_ends(tree: Path) -> None:
    env = {**GIT_ENV, "PYTHONPATH": str(Path(pathgate.__file__).parent.parent)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "pathgate", "check-ignore", "--git-only", "--excludes-file",
         os.devnull, "-v", "-n", "--stdin"],
        cwd=tree, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL)
    assert proc.stdin is not None
    try:
        for path, want in [(b"real/a.log", b".gitignore:1:*.log\treal/a.log\n"),
                           (b"real/b", b"::\treal/b\n"),
                           (b"real/keep.log", b".gitignore:2:!keep.log\treal/keep.log\n")]:
            proc.stdin.write(path + b"\n")
            proc.stdin.flush()
            assert _read_line(proc) == want
    finally:
        proc.stdin.close()
        assert proc.wait(60) == 0

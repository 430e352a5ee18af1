"""The scanner's one-call opens (``openat2`` with ``RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS``)
give exactly the directory chain's answers, on trees whose walked names were swapped."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from pathgate.runtime.fs import OsFS
from pathgate.runtime.tools import _scan
from pathgate.runtime.tools._regex import compile_regex
from tests.runtime.tools._scans import drain

needs_openat2 = pytest.mark.skipif(_scan.open_beneath() is None, reason="no openat2 here")


def _scan_all(root: Path, files: list[str], *, chain: bool) -> _scan.Scanner:
    sc = _scan.Scanner(OsFS(), str(root), files, compile_regex("needle"), search_limit=1 << 20)
    if chain:
        sc._beneath = None
    drain(sc)
    assert sc.dirs.open_count == 0 and sc._root_fd == -1
    return sc


def _hostile(tmp_path: Path) -> tuple[Path, list[str]]:
    """Names as a walk saw them, then swapped: symlinks at every depth (to outside
    needles and to inside ones), a directory and a fifo where files were, files gone, a
    file below a path deeper than the chain keeps open."""
    root, out = tmp_path / "r", tmp_path / "outside"
    out.mkdir()
    (out / "f.txt").write_text("needle outside\n")
    (out / "c").mkdir()
    (out / "c" / "f.txt").write_text("needle outside deep\n")
    (root / "a" / "b").mkdir(parents=True)
    (root / "a" / "b" / "ok.txt").write_text("x\nneedle\n")
    (root / "a" / "l").symlink_to(out)  # a middle component
    (root / "a" / "in").symlink_to(root / "a" / "b")  # a symlink to inside the root
    (root / "f.txt").symlink_to(out / "f.txt")  # the last component
    (root / "dir.txt").mkdir()
    os.mkfifo(root / "fifo.txt")
    deep = root.joinpath(*["d"] * (_scan.KEEP_DEPTH + 3))
    deep.mkdir(parents=True)
    (deep / "x.txt").write_text("needle deep\n")
    deep_rel = "/".join(["d"] * (_scan.KEEP_DEPTH + 3)) + "/x.txt"
    files = ["a/b/gone.txt", "a/b/ok.txt", "a/in/ok.txt", "a/l/c/f.txt", "a/l/f.txt",
             deep_rel, "dir.txt", "f.txt", "fifo.txt", "missing/x.txt"]
    return root, sorted(files)


def _outcome(sc: _scan.Scanner) -> tuple[object, ...]:
    return ([(h.path, h.line, h.text) for h in sc.hits], sc.binary, sc.too_large, sc.unreadable)


@needs_openat2
def test_beneath_equals_the_chain(tmp_path: Path) -> None:
    root, files = _hostile(tmp_path)
    one = _outcome(_scan_all(root, files, chain=False))
    assert one == _outcome(_scan_all(root, files, chain=True))
    hits = one[0]
    assert isinstance(hits, list)
    assert {p for p, *_ in hits} == {"a/b/ok.txt", "/".join(["d"] * (_scan.KEEP_DEPTH + 3)) + "/x.txt"}
    assert one[3] == 4  # a/in, a/l twice, f.txt: refused symlinks are unreadable, never followed


@needs_openat2
def test_beneath_opens_without_the_chain(tmp_path: Path) -> None:
    root, _ = _hostile(tmp_path)
    sc = _scan.Scanner(OsFS(), str(root), ["a/b/ok.txt"], compile_regex("needle"), search_limit=1 << 20)
    try:
        sc.step()
        assert sc.dirs.open_count == 0  # no directory re-opened
        assert [h.path for h in sc.hits] == ["a/b/ok.txt"]
    finally:
        sc.close()


@pytest.mark.parametrize("code", [errno.EAGAIN, errno.EXDEV, errno.ENOSYS, errno.EPERM, errno.ELOOP])
def test_any_refusal_but_enoent_is_decided_by_the_chain(tmp_path: Path, code: int) -> None:
    root, files = _hostile(tmp_path)

    def refuse(dir_fd: int, rel: str) -> int:
        raise OSError(code, os.strerror(code), rel)

    sc = _scan.Scanner(OsFS(), str(root), files, compile_regex("needle"), search_limit=1 << 20)
    sc._beneath = refuse
    drain(sc)
    assert _outcome(sc) == _outcome(_scan_all(root, files, chain=True))

"""``open_beneath``: one ``openat2`` that follows no symlink and never leaves its directory,
its path encoded exactly as ``os.fsencode`` encodes it."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from pathgate.runtime.fs._beneath import open_beneath

beneath = open_beneath()
pytestmark = pytest.mark.skipif(beneath is None, reason="no openat2 here")


def _read(root: Path, rel: str) -> bytes:
    assert beneath is not None
    dfd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    try:
        fd = beneath(dfd, rel)
    finally:
        os.close(dfd)
    try:
        return os.read(fd, 100)
    finally:
        os.close(fd)


def test_opens_below_and_refuses_links_and_escapes(tmp_path: Path) -> None:
    root, out = tmp_path / "r", tmp_path / "out"
    (root / "a" / "b").mkdir(parents=True)
    out.mkdir()
    (root / "a" / "b" / "f.txt").write_bytes(b"inside")
    (out / "f.txt").write_bytes(b"outside")
    (root / "a" / "l").symlink_to(out)
    (root / "ln.txt").symlink_to(root / "a" / "b" / "f.txt")
    assert _read(root, "a/b/f.txt") == b"inside"
    for rel, code in (("a/l/f.txt", errno.ELOOP), ("ln.txt", errno.ELOOP), ("../out/f.txt", errno.EXDEV),
                      (str(out / "f.txt"), errno.EXDEV), ("a/b/none", errno.ENOENT)):
        with pytest.raises(OSError) as got:
            _read(root, rel)
        assert got.value.errno == code, rel


def test_names_encoded_as_fsencode(tmp_path: Path) -> None:
    """UTF-8 names and undecodable bytes (surrogate-escaped) open the file of those bytes."""
    root = tmp_path / "r"
    root.mkdir()
    for raw in (b"caf\xc3\xa9.txt", b"bad\xff\xfe.txt"):
        with open(os.path.join(os.fsencode(root), raw), "wb") as f:
            f.write(raw)
        assert _read(root, os.fsdecode(raw)) == raw


def test_embedded_nul_refused_not_truncated(tmp_path: Path) -> None:
    """A C string would end at the NUL and open ``f.txt``: refused as ``os.open`` refuses it."""
    root = tmp_path / "r"
    root.mkdir()
    (root / "f.txt").write_bytes(b"x")
    with pytest.raises(ValueError):
        _read(root, "f.txt\x00.secret")

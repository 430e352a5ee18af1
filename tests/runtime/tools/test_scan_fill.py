"""The scan's loop over small files (``Scanner._fill``: ``openat2`` with prebuilt ``ctypes``
arguments, the rest of ``Scanner._file`` inline) gives exactly the per-file route's
answers — hits, skip counts, secrets' hard links left out — on trees holding every kind of
file a walk may have listed: binary, not UTF-8, over the cap, streamed, grown, gone, a
directory or a fifo swapped in, symlinks at every depth, a secret's hard link."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pathgate.runtime._links import SecretInodes
from pathgate.runtime.fs import OsFS
from pathgate.runtime.gates.secrets import SecretMatcher
from pathgate.runtime.tools import _scan, _scan_open
from pathgate.runtime.tools._regex import compile_regex
from tests.runtime.tools._scans import drain

needs_openat2 = pytest.mark.skipif(_scan.open_beneath() is None, reason="no openat2 here")


def _tree(tmp_path: Path) -> tuple[Path, list[str]]:
    root, out = tmp_path / "r", tmp_path / "outside"
    out.mkdir()
    (out / "f.txt").write_text("needle outside\n")
    (root / "a" / "b").mkdir(parents=True)
    (root / "a" / "b" / "ok.txt").write_text("x\nneedle\n\nneedle again\r\n")
    (root / "a" / "l").symlink_to(out)
    (root / "f.txt").symlink_to(out / "f.txt")
    (root / "dir.txt").mkdir()
    os.mkfifo(root / "fifo.txt")
    (root / "bin.dat").write_bytes(b"needle\x00needle\n")
    (root / "latin.txt").write_bytes(b"needle caf\xe9\n")
    (root / "utf8.txt").write_text("needle café\n")
    (root / "big.txt").write_text("filler line\n" * 30_000 + "needle at the end\n")  # streamed
    (root / "huge.txt").write_text("needle\n" * 200_000)  # over the search cap below
    (root / "empty.txt").write_text("")
    (root / ".env").write_text("needle=secret\n")
    os.link(root / ".env", root / "alias.txt")  # a secret under another name
    files = ["a/b/gone.txt", "a/b/ok.txt", "a/l/f.txt", "alias.txt", "big.txt", "bin.dat", "dir.txt", "empty.txt",
             "f.txt", "fifo.txt", "huge.txt", "latin.txt", "missing/x.txt", "utf8.txt"]
    files += [f"many/{i:03d}.txt" for i in range(300)]  # many small files: several regions and hops
    (root / "many").mkdir()
    for i in range(300):
        (root / "many" / f"{i:03d}.txt").write_text(f"line\nneedle {i}\n" if i % 7 == 0 else "nothing\n")
    return root, sorted(files)


def _scan_all(root: Path, files: list[str], *, fast: bool, cap: int | None = None, context: int = 0,
              hop: int = _scan.HOP_BYTES) -> tuple[object, ...]:
    reg = SecretInodes(str(root), SecretMatcher([]).is_secret)
    # a clock that stands still: a hop ends by bytes alone, never by HOP_SECONDS, so where the
    # last hop stops (``index``) does not depend on the machine's load (it once did, with a cap)
    sc = _scan.Scanner(OsFS(), str(root), files, compile_regex("needle"), search_limit=1 << 20, cap=cap,
                       context=context, linked_secret=reg.linked_secret, clock=lambda: 0.0)
    if not fast:
        sc._fast_if = False  # every file through Scanner._file
    drain(sc, hop)
    assert (sc._fast_if is not False) == fast  # the loop ran (openat2 works here)
    assert sc.dirs.open_count == 0 and sc._root_fd == -1
    return ([(h.path, h.line, h.text, h.context_before, h.context_after) for h in sc.hits],
            sc.binary, sc.too_large, sc.unreadable, sc.linked, sc.index)


@pytest.fixture(scope="module")
def fill_tree(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    """``_tree`` (2 MB, 300 small files), built once for the matrix below, which only scans it."""
    return _tree(tmp_path_factory.mktemp("fill"))


@needs_openat2
@pytest.mark.parametrize("cap", [None, 1, 5, 40])
@pytest.mark.parametrize("context", [0, 2])
@pytest.mark.parametrize("hop", [_scan.HOP_BYTES, 1])
def test_fill_equals_the_per_file_route(fill_tree: tuple[Path, list[str]], cap: int | None, context: int,
                                        hop: int) -> None:
    root, files = fill_tree
    fast = _scan_all(root, files, fast=True, cap=cap, context=context, hop=hop)
    assert fast == _scan_all(root, files, fast=False, cap=cap, context=context, hop=hop)
    if cap is None:
        hits, binary, too_large, unreadable, linked, _ = fast
        assert isinstance(hits, list)
        paths = {h[0] for h in hits}
        assert "alias.txt" not in paths and linked == 1  # the secret's hard link: never read
        assert {"a/b/ok.txt", "big.txt", "utf8.txt"} <= paths and "f.txt" not in paths
        assert (binary, too_large, unreadable) == (2, 1, 2)  # bin.dat, latin.txt; huge.txt; a/l, f.txt


@needs_openat2
def test_fill_takes_the_registry_snapshot_into_account(tmp_path: Path) -> None:
    """A file with one link is asked about once the registry has a snapshot (a descriptor
    opened on an alias renamed away before the ``fstat`` shows one link)."""
    root, files = _tree(tmp_path)
    asked: list[int] = []
    reg = SecretInodes(str(root), SecretMatcher([]).is_secret)

    class Spy(SecretInodes):
        def linked_secret(self, st: os.stat_result) -> bool:
            asked.append(st.st_nlink)
            return super().linked_secret(st)

    spy = Spy(str(root), SecretMatcher([]).is_secret)
    for registry, single_asked in ((reg, False), (spy, True)):
        sc = _scan.Scanner(OsFS(), str(root), files, compile_regex("needle"), search_limit=1 << 20,
                           linked_secret=registry.linked_secret)
        assert (sc._reg is registry) is not single_asked  # the spy's own method: always asked
        drain(sc)
    assert 1 in asked  # the overriding test is asked about every file


@needs_openat2
def test_a_refused_open_is_decided_by_the_chain(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``openat2`` refusing with anything but ``ENOENT`` (here: every call) hands the file
    to ``Scanner._file``, whose chain decides it: the same answers as the chain alone."""
    root, files = _tree(tmp_path)
    raw = _scan_open.raw_beneath()
    assert raw is not None
    _, *rest = raw

    def refused(*args: object) -> int:
        import ctypes

        ctypes.set_errno(38)  # ENOSYS
        return -1

    monkeypatch.setattr(_scan_open, "_raw", [(refused, *rest)])
    fast = _scan_all(root, files, fast=True)

    def chain(self: _scan.Scanner, rel: str) -> int:
        parent, _, name = rel.rpartition("/")
        return self._open(name, dir_fd=self.dirs.enter(parent))

    monkeypatch.setattr(_scan.Scanner, "_open_file", chain)
    assert fast == _scan_all(root, files, fast=False)

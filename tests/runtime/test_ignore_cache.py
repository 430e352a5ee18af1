"""The per-root cache: sessions notice edited, added and deleted ignore files; nodes are
shared immutably; the LRU is bounded; unreadable ignore files fail closed."""

from __future__ import annotations

import errno
import os
import threading
from pathlib import Path

import anyio
import pytest

from pathgate.runtime.fs import OsFS
from pathgate.runtime.ignore import IgnoreConfig, IgnoreIndex


def _bump(path: Path, data: bytes) -> None:
    """Rewrite and move mtime forward so the stat signature surely changes."""
    path.write_bytes(data)
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 10_000_000_000))


@pytest.fixture
def index(tmp_path: Path) -> IgnoreIndex:
    (tmp_path / "a" / "b").mkdir(parents=True)
    (tmp_path / ".gitignore").write_bytes(b"*.log\n")
    return IgnoreIndex(tmp_path, IgnoreConfig.git_only(excludes_file="/dev/null"))


def test_edit_between_sessions(index: IgnoreIndex, tmp_path: Path) -> None:
    assert index.match("a/b/x.log").ignored
    _bump(tmp_path / ".gitignore", b"*.txt\n")
    s = index.session()
    assert not s.match("a/b/x.log").ignored
    assert s.match("a/b/x.txt").ignored


def test_add_between_sessions(index: IgnoreIndex, tmp_path: Path) -> None:
    assert not index.match("a/b/keep").ignored
    (tmp_path / "a" / ".gitignore").write_bytes(b"keep\n")
    m = index.match("a/b/keep")
    assert m.ignored and m.rule is not None and m.rule.source == "a/.gitignore"


def test_delete_between_sessions(index: IgnoreIndex, tmp_path: Path) -> None:
    assert index.match("x.log").ignored
    (tmp_path / ".gitignore").unlink()
    assert not index.match("x.log").ignored


def test_session_checks_each_file_once(index: IgnoreIndex, tmp_path: Path) -> None:
    s = index.session()
    assert s.match("a/b/x.log").ignored
    _bump(tmp_path / ".gitignore", b"")
    assert s.match("a/b/y.log").ignored  # same session: the snapshot it validated
    assert not index.session().match("a/b/y.log").ignored


def test_unchanged_files_are_not_reread(tmp_path: Path) -> None:
    reads: list[str] = []

    class CountingFS(OsFS):
        def read_bytes(self, path: str) -> bytes:
            reads.append(path)
            return super().read_bytes(path)

    (tmp_path / "a").mkdir()
    (tmp_path / ".gitignore").write_bytes(b"*.log\n")
    (tmp_path / "a" / ".gitignore").write_bytes(b"*.tmp\n")
    index = IgnoreIndex(tmp_path, IgnoreConfig.git_only(excludes_file="/dev/null"), fs=CountingFS())
    index.match("a/x")
    first = len(reads)
    index.match("a/x")
    assert len(reads) == first
    _bump(tmp_path / "a" / ".gitignore", b"*.x\n")
    assert index.match("a/y.x").ignored
    assert len(reads) == first + 1  # only the edited file


def test_lru_is_bounded(tmp_path: Path) -> None:
    for i in range(20):
        (tmp_path / f"d{i}").mkdir()
    index = IgnoreIndex(tmp_path, IgnoreConfig.git_only(excludes_file="/dev/null", cache_dirs=5))
    s = index.session()
    for i in range(20):
        s.match(f"d{i}/f")
    assert index.cached_dirs() <= 5
    assert not index.match("d0/f").ignored


def test_excluded_dir_ignore_files_are_never_read(tmp_path: Path) -> None:
    reads: list[str] = []

    class CountingFS(OsFS):
        def read_bytes(self, path: str) -> bytes:
            reads.append(path)
            return super().read_bytes(path)

    (tmp_path / "build").mkdir()
    (tmp_path / ".gitignore").write_bytes(b"build/\n")
    (tmp_path / "build" / ".gitignore").write_bytes(b"!*\n")
    index = IgnoreIndex(tmp_path, IgnoreConfig.git_only(excludes_file="/dev/null"), fs=CountingFS())
    m = index.match("build/x")
    assert m.ignored and m.ancestor == "build"
    assert not any("build" in r for r in reads)


class DenyFS(OsFS):
    """Fault injection: one path fails with EACCES (works as root, unlike chmod)."""

    def __init__(self, deny: str, code: int = errno.EACCES) -> None:
        self.deny = deny
        self.code = code

    def read_bytes(self, path: str) -> bytes:
        if path == self.deny:
            raise OSError(self.code, os.strerror(self.code), path)
        return super().read_bytes(path)


@pytest.mark.parametrize("code", [errno.EACCES, errno.EIO])
def test_unreadable_ignore_file_fails_closed(tmp_path: Path, code: int) -> None:
    (tmp_path / "pkg" / "sub").mkdir(parents=True)
    (tmp_path / "pkg" / ".gitignore").write_bytes(b"!x\n")
    (tmp_path / ".gitignore").write_bytes(b"*.log\n")
    fs = DenyFS(str(tmp_path / "pkg" / ".gitignore"), code)
    index = IgnoreIndex(tmp_path, IgnoreConfig.git_only(excludes_file="/dev/null"), fs=fs)
    s = index.session()
    for p in ("pkg/x", "pkg/sub/y"):
        m = s.match(p)
        assert m.ignored and m.fail_closed and m.rule is None and m.unreadable == "pkg/.gitignore"
    assert not s.match("pkg").ignored  # the directory itself is governed by its parent
    assert s.match("a.log").ignored and not s.match("a.txt").ignored
    # like git (check-ignore): fail_closed=False counts the file as empty and warns
    warnings: list[str] = []
    git_like = IgnoreIndex(tmp_path, IgnoreConfig.git_only(excludes_file="/dev/null",
                                                           fail_closed=False), fs=fs)
    git_like.on_warning = warnings.append
    assert not git_like.match("pkg/x").ignored
    assert warnings and "pkg/.gitignore" in warnings[0]


def test_match_with_extra_is_in_memory(tmp_path: Path) -> None:
    (tmp_path / "d").mkdir()
    (tmp_path / ".gitignore").write_bytes(b"*.log\nd/\n")
    (tmp_path / ".pathgateignore").write_bytes(b"# mine\n")
    index = IgnoreIndex(tmp_path, IgnoreConfig(excludes_file="/dev/null"))
    s = index.session()
    assert s.match("a.log").ignored
    m = s.match_with_extra("a.log", {"": ["!a.log"]})
    assert not m.ignored and m.rule is not None
    assert (m.rule.source, m.rule.line) == (".pathgateignore", 2)
    assert s.match_with_extra("d/f", {"": ["!d/f"]}).ignored  # ancestor still excluded
    assert not s.match_with_extra("d/f", {"": ["!d/", "d/*", "!d/f"]}).ignored
    assert s.match("a.log").ignored  # nothing leaked into the cache
    assert (tmp_path / ".pathgateignore").read_bytes() == b"# mine\n"


def test_concurrent_sessions_agree(tmp_path: Path) -> None:
    for i in range(30):
        d = tmp_path / f"d{i}" / "e"
        d.mkdir(parents=True)
        (tmp_path / f"d{i}" / ".gitignore").write_bytes(b"*.%d\n" % i)
    index = IgnoreIndex(tmp_path, IgnoreConfig.git_only(excludes_file="/dev/null"))
    errors: list[BaseException] = []

    def work() -> None:
        try:
            for _ in range(3):
                s = index.session()
                for i in range(30):
                    assert s.match(f"d{i}/e/x.{i}").ignored
                    assert not s.match(f"d{i}/e/x.{i + 1}").ignored
        except BaseException as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=work) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors


def test_explain_lists_every_matching_rule(tmp_path: Path) -> None:
    (tmp_path / ".gitignore").write_bytes(b"*.log\n!a.log\na.*\n")
    s = IgnoreIndex(tmp_path, IgnoreConfig.git_only(excludes_file="/dev/null")).session()
    ex = s.explain("a.log", is_dir=False)
    assert ex.match.ignored and [r.line for r in ex.matching] == [3, 2, 1]
    assert [src.source for src in ex.sources][-1] == ".gitignore"


def _git_repo(root: Path) -> Path:
    (root / ".git" / "info").mkdir(parents=True)
    (root / ".git" / "objects").mkdir()
    (root / ".git" / "refs").mkdir()
    (root / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    exclude = root / ".git" / "info" / "exclude"
    exclude.write_text("*.tmp\n")
    return exclude


def test_repository_wide_sources_are_shared_for_globals_ttl(tmp_path: Path) -> None:
    """``globals_ttl``: an edit of ``.git/info/exclude`` is seen by the first session that
    starts ``globals_ttl`` after the last validation, at the latest; per-directory files are
    validated by every session; a fail-closed state is re-validated every time."""
    exclude = _git_repo(tmp_path)
    index = IgnoreIndex(tmp_path, IgnoreConfig.git_only(excludes_file="/dev/null"))
    now = [10.0]
    index._clock = lambda: now[0]
    index.globals_ttl = 0.1
    assert index.match("x.tmp").ignored and not index.match("x.bak").ignored
    _bump(exclude, b"*.bak\n")
    _bump(tmp_path / ".gitignore", b"*.log\n")
    now[0] += 0.05  # within the window: the last validation is reused
    assert index.match("x.tmp").ignored and not index.match("x.bak").ignored
    assert index.match("x.log").ignored  # per-directory: exact
    now[0] += 0.06  # the window is over: validated again
    assert not index.match("x.tmp").ignored and index.match("x.bak").ignored
    (tmp_path / ".git").rename(tmp_path / ".gitstore")
    (tmp_path / ".git").write_text("gitdir:.gitstore\n")  # malformed: git exits 128, fail closed
    now[0] += 1
    assert index.match("a.txt").fail_closed
    (tmp_path / ".git").write_text("gitdir: .gitstore\n")
    assert not index.match("a.txt").ignored  # fail-closed globals are never reused


def test_globals_ttl_zero_is_exact(tmp_path: Path) -> None:
    exclude = _git_repo(tmp_path)
    index = IgnoreIndex(tmp_path, IgnoreConfig.git_only(excludes_file="/dev/null"))
    assert index.globals_ttl == 0.0
    assert index.match("x.tmp").ignored
    _bump(exclude, b"*.bak\n")
    assert not index.match("x.tmp").ignored and index.match("x.bak").ignored


def test_runtime_validates_repository_wide_sources_on_every_call(tmp_path: Path) -> None:
    """Exact by default: an edit of ``.git/info/exclude`` is seen by the very next call."""
    from pathgate import Policy, Runtime

    exclude = _git_repo(tmp_path)
    exclude.write_text("")
    (tmp_path / "x.tmp").write_text("x")
    rt = Runtime(tmp_path, Policy())
    assert rt.index.globals_ttl == 0.0

    async def glob() -> list[str]:
        return list((await rt.glob("*.tmp")).matches)

    assert anyio.run(glob) == ["x.tmp"]
    _bump(exclude, b"*.tmp\n")
    assert anyio.run(glob) == []


@pytest.mark.parametrize("swaps", [1, 3])
def test_ignore_file_replaced_during_its_read_is_read_again(tmp_path: Path, swaps: int) -> None:
    """An atomic rename of ``.gitignore`` while the runtime (``linked_secret`` set) reads it
    is not a failure: the file is read again and the new rules apply (it used to fail
    closed, hiding every path below it for that call)."""
    (tmp_path / "a.log").write_text("x")
    (tmp_path / "a.txt").write_text("x")
    gi = tmp_path / ".gitignore"
    gi.write_text("*.log\n")
    left = [swaps]

    class SwappingFS(OsFS):
        def read_bytes(self, path: str) -> bytes:
            if path.endswith(".gitignore") and left[0] > 0:
                left[0] -= 1
                new = tmp_path / ".gitignore.new"
                new.write_text("*.txt\n")
                os.replace(new, gi)  # a new inode, as an editor's save or git's checkout
            return super().read_bytes(path)

    index = IgnoreIndex(str(tmp_path), IgnoreConfig(defaults=(), agent_files=(), git_sources=False),
                        fs=SwappingFS())
    index.linked_secret = lambda st: False
    m = index.match("a.txt")
    assert m.ignored and not m.fail_closed
    assert not index.match("a.log").ignored
    assert left[0] == 0

"""One compile per ignore file's content (``IgnoreList.compiled``): sessions, remedy checks and
runtimes share it; a different content, directory or case folding is never served another's
list; the cache holds no list alive by itself."""

from __future__ import annotations

import gc
import os
from pathlib import Path

import anyio
import pytest

from pathgate import Policy, Runtime
from pathgate.runtime.ignore import IgnoreConfig, IgnoreIndex, IgnoreList, _rules

GIT_ONLY = IgnoreConfig.git_only(excludes_file="/dev/null")


@pytest.fixture
def compiles(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The sources compiled from bytes (each call of ``IgnoreList.from_bytes``)."""
    seen: list[str] = []
    real = IgnoreList.from_bytes.__func__  # type: ignore[attr-defined]

    def counting(cls: type[IgnoreList], source: str, *args: object, **kw: object) -> IgnoreList:
        seen.append(source)
        return real(cls, source, *args, **kw)  # type: ignore[no-any-return]

    monkeypatch.setattr(IgnoreList, "from_bytes", classmethod(counting))
    return seen


#: a line no other test's file holds (lists other tests keep alive are shared too)
OWN = b"*.log\n# test_ignore_compile_cache\n"


def test_same_bytes_same_key_one_compile(compiles: list[str]) -> None:
    a = IgnoreList.compiled(".gitignore", "", OWN, False)
    b = IgnoreList.compiled(".gitignore", "", bytes(bytearray(OWN)), False)  # equal, not the same object
    assert a is b and compiles == [".gitignore"]


@pytest.mark.parametrize("other", [
    (".gitignore", "", OWN.replace(b"log", b"txt"), False),  # another content
    (".gitignore", "", OWN + b"\n", False),                 # one byte more
    ("a/.gitignore", "a/", OWN, False),                     # the same content in another directory
    (".gitignore", "", OWN, True),                          # case folded
])
def test_any_other_key_compiles_anew(compiles: list[str], other: tuple[str, str, bytes, bool]) -> None:
    a = IgnoreList.compiled(".gitignore", "", OWN, False)
    b = IgnoreList.compiled(*other)
    assert a is not b and len(compiles) == 2
    assert (b.source, b.base, b.fold) == (other[0], other[1], other[3])


def test_the_cache_holds_no_list_alive(compiles: list[str]) -> None:
    data = b"unique-%d\n" % id(compiles)
    lst = IgnoreList.compiled(".gitignore", "", data, False)
    key = (".gitignore", "", False, data)
    assert _rules._COMPILED.get(key) is lst
    del lst
    gc.collect()
    assert _rules._COMPILED.get(key) is None
    IgnoreList.compiled(".gitignore", "", data, False)
    assert len(compiles) == 2


def test_same_content_two_directories_anchor_apart(tmp_path: Path) -> None:
    """``/x`` in ``a/.gitignore`` ignores ``a/x``; in ``b/.gitignore``, ``b/x`` only."""
    for d in ("a", "b"):
        (tmp_path / d).mkdir()
        (tmp_path / d / ".gitignore").write_bytes(b"/x\n")
    s = IgnoreIndex(tmp_path, GIT_ONLY).session()
    assert s.match("a/x", False).ignored and s.match("b/x", False).ignored
    assert not s.match("a/b/x", False).ignored and not s.match("b/a/x", False).ignored
    ra, rb = s.match("a/x", False).rule, s.match("b/x", False).rule
    assert ra is not None and rb is not None and (ra.source, rb.source) == ("a/.gitignore", "b/.gitignore")


def test_a_rewrite_is_seen_even_with_the_same_size_and_mtime(tmp_path: Path) -> None:
    gi = tmp_path / ".gitignore"
    gi.write_bytes(b"*.log\n")
    index = IgnoreIndex(tmp_path, GIT_ONLY)
    assert index.match("x.log", False).ignored
    st = gi.stat()
    gi.write_bytes(b"*.txt\n")  # same size; the same mtime put back (ctime moves)
    os.utime(gi, ns=(st.st_atime_ns, st.st_mtime_ns))
    s = index.session()
    assert not s.match("x.log", False).ignored and s.match("x.txt", False).ignored
    gi.write_bytes(b"*.log\n")  # and back: the first content's list again, same answers
    s = index.session()
    assert s.match("x.log", False).ignored and not s.match("x.txt", False).ignored


def test_a_symlink_replacing_the_file_is_not_read(tmp_path: Path) -> None:
    (tmp_path / "rules").write_bytes(b"*.log\n")
    gi = tmp_path / ".gitignore"
    gi.write_bytes(b"*.log\n")
    index = IgnoreIndex(tmp_path, GIT_ONLY)
    assert index.match("x.log", False).ignored
    gi.unlink()
    gi.symlink_to("rules")  # the same bytes behind a link: git does not follow it
    assert not index.session().match("x.log", False).ignored


@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_one_runtime_compiles_a_big_file_once(anyio_backend: str, tmp_path: Path,
                                                    compiles: list[str]) -> None:
    """read (with a remedy checked in memory), glob, list, search and a second runtime: one
    compile of the root's ``.gitignore`` (a remedy check reads it again with extra lines)."""
    lines = b"".join(b"generated/out_%05d.tmp\n" % i for i in range(3000))
    (tmp_path / ".gitignore").write_bytes(lines + b"*.secretlog\n")
    (tmp_path / "x.secretlog").write_text("x\n")
    (tmp_path / "a.txt").write_text("needle\n")
    rt = Runtime(tmp_path, policy=Policy())
    with anyio.fail_after(60):
        out = await rt.call("read_files", {"paths": ["x.secretlog", "a.txt"]}, renderer="verbose")
        assert ".pathgateignore" in out["x.secretlog"]  # the remedy was verified
        await rt.call("glob", {"pattern": "**/*"})
        await rt.call("list_directory", {"path": ""})
        await rt.call("code_search", {"regex": "needle"})
        await rt.call("read_files", {"paths": ["x.secretlog"]}, renderer="verbose")
        assert compiles.count(".gitignore") == 1
        (res,) = await Runtime(tmp_path, policy=Policy()).read_files(["x.secretlog"])
        assert not res.ok
    assert compiles.count(".gitignore") == 1


def test_a_new_index_of_a_root_resolves_git_config_once(tmp_path: Path, git_bin: str,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """The files the last resolution read are a new index's first key: one resolution (not
    two); an edit of ``.git/config`` made before the new index is still seen."""
    from pathgate.runtime.ignore import _globals
    from tests._gitinit import git_init

    git_init(tmp_path, git=git_bin)
    (tmp_path / ".git" / "info").mkdir(exist_ok=True)
    (tmp_path / ".git" / "info" / "exclude").write_bytes(b"*.log\n")
    calls: list[str] = []
    real = _globals.resolve_git

    def counting(ix: IgnoreIndex) -> object:
        calls.append(ix.root)
        return real(ix)

    monkeypatch.setattr(_globals, "resolve_git", counting)
    assert IgnoreIndex(tmp_path).match("x.log", False).ignored
    calls.clear()
    assert IgnoreIndex(tmp_path).match("x.log", False).ignored
    assert len(calls) == 1
    with (tmp_path / ".git" / "config").open("a") as fh:
        fh.write("[core]\n\texcludesFile = rules\n")
    (tmp_path / "rules").write_bytes(b"*.txt\n")
    s = IgnoreIndex(tmp_path, IgnoreConfig(defaults=())).session()
    assert s.match("x.txt", False).ignored and s.match("x.log", False).ignored

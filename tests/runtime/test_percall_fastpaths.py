"""The per-call fast paths give exactly what the general code gives (issue 19)."""

from __future__ import annotations

import itertools
import os

import pytest

from pathgate._names import spell_names, unspell_path
from pathgate.runtime._runtime import _spell_reads
from pathgate.runtime.fs import Opened, ReadRequest, Resolved, decode
from pathgate.verdicts import FileResult, Gate, Status, Verdict

NAMES = ["a.txt", "d/e.py", '"q"', 'a"b', "r\udce9sum\udce9", "tab\there", "new\nline", "caf\u00e9",
         "\x7fdel", "sp ace", "", "\u2028", "x\\y"]
CONTENTS = [None, "", "plain\n", "caf\u00e9\n", "bad\udce9", "\x00nul", "\u2028"]


def test_spell_reads_equals_spell_names_for_every_field_combination() -> None:
    results: list[FileResult] = []
    blocked = Verdict(status=Status.BLOCKED, gate=Gate.IGNORE, ancestor="r\udce9")
    for path, rel, same, content in itertools.product(NAMES[:8], [None, *NAMES[:8]], [None, "a", "t\tb"],
                                                      CONTENTS):
        results.append(FileResult(path=path, relpath=rel, same_as=same, content=content))
    results += [FileResult(path="a", verdict=blocked), FileResult(path="a", content="x", verdict=blocked,
                                                                    truncated=True)]
    assert _spell_reads(results) == spell_names(results)
    for r, got in zip(results, _spell_reads(results), strict=True):
        assert got == spell_names(r)


@pytest.mark.parametrize("text", [*NAMES, '"r\\351sum\\351.txt"', 'docs/"r\\351"/a', '""', '"', '"a\\q"'])
def test_unquoted_spellings_are_their_own_path(text: str) -> None:
    # _tool_read_files skips unspell_path for a spelling without a double quote
    if '"' not in text:
        assert unspell_path(text) == text
    else:
        assert isinstance(unspell_path(text), str)


def test_fs_facts_are_immutable_values() -> None:
    st = os.stat(".")
    r = Resolved("a", "/r/a", "a", st=st)
    assert r == Resolved("a", "/r/a", "a", st=st) and hash(r) == hash(Resolved("a", "/r/a", "a", st=st))
    assert r.exists is True and r.is_dir is True
    with pytest.raises(AttributeError):
        r.real = "/x"  # type: ignore[misc]
    req = ReadRequest("/r/a", 10, None)
    assert req.root is None and req == ReadRequest("/r/a", 10, None, None)
    with pytest.raises(AttributeError):
        req.path = "/b"  # type: ignore[misc]


@pytest.mark.parametrize(("data", "limit", "text", "binary"), [
    (b"hello\n", 10, "hello\n", False),
    (b"x" * 11, 10, None, False),          # over the limit: data only
    (b"a\x00b", 10, None, True),            # NUL in the sniffed prefix
    (b"\xff\xfe", 10, None, True),          # not UTF-8
    (b"caf\xc3\xa9", 10, "caf\u00e9", False),
])
def test_decode_keeps_the_descriptor_stat(data: bytes, limit: int, text: str | None, binary: bool) -> None:
    st = os.stat(".")
    got = decode(data, limit, st)
    assert got == Opened(st=st, data=data, text=text, binary=binary)
    assert decode(data, limit) == Opened(data=data, text=text, binary=binary)


@pytest.mark.parametrize("size", [0, 1, 4095, 4096, 65537, (1 << 20) + 3, (3 << 20) + 1])
@pytest.mark.parametrize("slack", [-1, 0, 1])
def test_open_read_reads_whole_files_around_the_limit(tmp_path: os.PathLike[str], size: int, slack: int) -> None:
    from pathgate.runtime.fs import DirFds, OsFS, open_read

    root = os.path.realpath(tmp_path)
    data = (b"0123456789abcde\n" * (size // 16 + 1))[:size]
    with open(os.path.join(root, "f"), "wb") as f:
        f.write(data)
    limit = max(0, size + slack)
    st = os.lstat(os.path.join(root, "f"))
    ops = OsFS()
    with DirFds(ops, root) as dirs:
        got = open_read(ops, ReadRequest(os.path.join(root, "f"), limit, (st.st_dev, st.st_ino), root), dirs)
    if size > limit:
        assert got.data is None and got.st is not None and got.st.st_size == size  # refused by fstat
    else:
        assert got.data == data and got.text == data.decode() and got.st is not None


def test_call_scope_without_a_generator_matches_sched_call_scope() -> None:
    from pathgate.runtime.fs import IoLimiter
    from pathgate.runtime.fs._sched import _CALL, call_scope

    assert _CALL.get() is None
    with IoLimiter.call() as outer:
        assert _CALL.get() is outer
        with IoLimiter.call() as inner, call_scope() as other:
            assert inner is outer and other is outer  # nested scopes share the call's ticket
        assert _CALL.get() is outer
    assert _CALL.get() is None
    with call_scope() as outer, IoLimiter.call() as inner:
        assert inner is outer
    with pytest.raises(KeyError), IoLimiter.call():
        raise KeyError("x")
    assert _CALL.get() is None  # reset on the way out of an error too


def test_check_paths_fast_path_accepts_and_refuses_as_before() -> None:
    from pathgate.errors import ToolArgumentError
    from pathgate.runtime.tools.read_files import _check_paths

    class Sub(str):
        pass

    assert _check_paths(["a", "b"]) == ["a", "b"]
    assert _check_paths(("a", Sub("b"))) == ["a", "b"]
    assert _check_paths([Sub("a")]) == ["a"]
    for bad, field in ((["a", 1], "paths[1]"), ("ab", "paths"), ([b"a"], "paths[0]"), (None, "paths")):
        with pytest.raises(ToolArgumentError) as exc:
            _check_paths(bad)
        assert exc.value.field == field

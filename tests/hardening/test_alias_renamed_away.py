"""A secret's hard-link alias renamed away between a tool's ``open`` and its ``fstat``.

Red team 12, F1: ``a.txt`` is a hard link to ``.env``; it is replaced by a benign file
after pathgate opened it and before it ``fstat``-ed the descriptor, which then shows one
link while it still reads the secret. The registry's snapshot, taken before ``.env`` was
re-saved under a new inode (an editor's atomic save), did not know the inode, and a fresh
runtime had no snapshot at all: the secret was served as ``a.txt`` (read_files and
code_search). Now a single-link file whose status changed since just before the open has
its name looked at again; a name that no longer leads to the inode counts as a second link,
so the registry is validated and asked.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from pathgate import Policy, Runtime

pytestmark = pytest.mark.anyio


def _resave(root: Path, text: str) -> None:
    """``.env`` re-saved under a new inode (write and rename), then ``a.txt`` linked to it."""
    (root / ".env.new").write_text(text)
    os.rename(root / ".env.new", root / ".env")
    if (root / "a.txt").exists():
        os.unlink(root / "a.txt")
    os.link(root / ".env", root / "a.txt")


@pytest.fixture
def swap_on_fstat(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[Path], list[bool]]]:
    """Arm: the first ``fstat`` of a descriptor open on ``a.txt`` first renames a benign
    file over ``a.txt`` (the alias goes; the secret's inode keeps one link)."""
    real = os.fstat

    def arm(root: Path) -> list[bool]:
        fired = [False]

        def fstat(fd: int) -> os.stat_result:
            if not fired[0]:
                try:
                    name = os.readlink(f"/proc/self/fd/{fd}")
                except OSError:
                    name = ""
                if name == str(root / "a.txt"):
                    fired[0] = True
                    (root / "benign.tmp").write_text("benign\n")
                    os.rename(root / "benign.tmp", root / "a.txt")
            return real(fd)

        monkeypatch.setattr(os, "fstat", fstat)
        return fired

    yield arm


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="needs /proc/self/fd to find the descriptor's name")
@pytest.mark.parametrize("warm", [True, False], ids=["stale-snapshot", "fresh-runtime"])
async def test_read_files_does_not_serve_the_secret(anyio_backend: str, tmp_path: Path, warm: bool,
                                                     swap_on_fstat: Callable[[Path], list[bool]]) -> None:
    (tmp_path / "b.txt").write_text("plain\n")
    _resave(tmp_path, "API_KEY=old\n")
    rt = Runtime(tmp_path, policy=Policy())
    if warm:  # a snapshot that knows the old inode only
        assert (await rt.read_files(["a.txt"]))[0].verdict is not None
    _resave(tmp_path, "API_KEY=hunter2\n")
    fired = swap_on_fstat(tmp_path)
    out = await rt.call("read_files", {"paths": ["a.txt", "b.txt"]})
    assert fired[0]
    assert "hunter2" not in str(out)
    assert "plain" in str(out)


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="needs /proc/self/fd to find the descriptor's name")
@pytest.mark.parametrize("warm", [True, False], ids=["stale-snapshot", "fresh-runtime"])
async def test_code_search_does_not_serve_the_secret(anyio_backend: str, tmp_path: Path, warm: bool,
                                                      swap_on_fstat: Callable[[Path], list[bool]]) -> None:
    (tmp_path / "b.txt").write_text("API_KEY in docs\n")
    _resave(tmp_path, "API_KEY=old\n")
    rt = Runtime(tmp_path, policy=Policy())
    if warm:
        assert (await rt.read_files(["a.txt"]))[0].verdict is not None
    _resave(tmp_path, "API_KEY=hunter2\n")
    fired = swap_on_fstat(tmp_path)
    res = await rt.code_search("API_KEY")
    assert fired[0]
    assert [h.path for h in res.hits] == ["b.txt"]
    assert not any("hunter2" in h.text for h in res.hits)


@pytest.mark.parametrize("tool", ["read_files", "code_search"])
async def test_links_moving_while_the_registry_is_asked(anyio_backend: str, tmp_path: Path, tool: str,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """The alias is opened and ``fstat``-ed while it shares ``.env``'s inode (two links);
    before the registry's answer, ``.env`` is re-saved under a new inode and the alias
    replaced: the validated registry no longer knows the inode, whose bytes are the secret's.
    Never served: the read says the file changed, the search skips it."""
    from pathgate.runtime._links import SecretInodes

    (tmp_path / "b.txt").write_text("API_KEY in docs\n")
    _resave(tmp_path, "API_KEY=hunter2\n")
    real = SecretInodes.linked_secret
    fired = [False]

    def linked_secret(self: SecretInodes, st: os.stat_result) -> bool:
        if not fired[0] and st.st_nlink > 1:
            fired[0] = True
            (tmp_path / ".env.new").write_text("API_KEY=rotated\n")
            os.rename(tmp_path / ".env.new", tmp_path / ".env")
            (tmp_path / "benign.tmp").write_text("benign\n")
            os.rename(tmp_path / "benign.tmp", tmp_path / "a.txt")
        return real(self, st)

    monkeypatch.setattr(SecretInodes, "linked_secret", linked_secret)
    rt = Runtime(tmp_path, policy=Policy())
    if tool == "read_files":
        out = str(await rt.call("read_files", {"paths": ["a.txt"]}))
        assert "FILE_READ_ERROR" in out
    else:
        out = str([(h.path, h.text) for h in (await rt.code_search("API_KEY")).hits])
        assert "b.txt" in out
    assert fired[0]
    assert "hunter2" not in out


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="needs /proc/self/fd to find the descriptor's name")
@pytest.mark.parametrize("guess", ["API_KEY=hunter2", "API_KEY=wrong"])
async def test_edit_file_does_not_edit_the_secret(anyio_backend: str, tmp_path: Path, guess: str,
                                                  swap_on_fstat: Callable[[Path], list[bool]]) -> None:
    """Red team 13, F1: ``edit_file`` read the alias's inode (the secret's) and answered
    "not found" / "found twice" / success by what the secret holds. Same answer whatever
    the guess, and the secret is never republished."""
    _resave(tmp_path, "API_KEY=hunter2\n")
    rt = Runtime(tmp_path, policy=Policy(allow_writes=True, require_read_before_write=False))
    fired = swap_on_fstat(tmp_path)
    res = await rt.edit_file("a.txt", guess, "X")
    assert fired[0]
    assert res.verdict is not None and res.verdict.status.value == "[BLOCKED]" and res.verdict.opaque
    assert (tmp_path / ".env").read_text() == "API_KEY=hunter2\n"
    assert "hunter2" not in (tmp_path / "a.txt").read_text()


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="needs /proc/self/fd to find the descriptor's name")
@pytest.mark.parametrize("tool", ["read_files", "code_search"])
async def test_a_filesystem_seam_looks_at_the_name_too(anyio_backend: str, tmp_path: Path, tool: str,
                                                       swap_on_fstat: Callable[[Path], list[bool]]) -> None:
    """Red team 14, N2: code_search on a filesystem seam (any ``OsFS`` subclass: a host's
    remote or fault-injecting filesystem) never looked at the name again after its
    ``fstat``; read_files' general route did."""
    from pathgate.runtime.fs import OsFS

    class Seam(OsFS):
        pass

    (tmp_path / "b.txt").write_text("API_KEY in docs\n")
    _resave(tmp_path, "API_KEY=old\n")
    rt = Runtime(tmp_path, policy=Policy(), fs=Seam())
    assert (await rt.read_files(["a.txt"]))[0].verdict is not None  # a snapshot of the old inode
    _resave(tmp_path, "API_KEY=hunter2\n")
    fired = swap_on_fstat(tmp_path)
    if tool == "read_files":
        out = str(await rt.call("read_files", {"paths": ["a.txt", "b.txt"]}))
    else:
        out = str([(h.path, h.text) for h in (await rt.code_search("API_KEY")).hits])
        assert "b.txt" in out
    assert fired[0]
    assert "hunter2" not in out


async def test_an_alias_the_agent_may_not_open_is_not_counted(anyio_backend: str, tmp_path: Path) -> None:
    """Red team 15, R5: a secret's hard link the agent's user may not open (the secret is
    0600 and another user's) was counted "unreadable" by code_search: the same search
    without the secret counted nothing."""
    import errno

    from pathgate.runtime.fs import OsFS

    class NoPermission(OsFS):
        def open_fd(self, path: str, *args: object, **kwargs: object) -> int:
            if os.path.basename(str(path)) in ("cfg.txt", ".env"):
                raise PermissionError(errno.EACCES, "Permission denied", path)
            return super().open_fd(path, *args, **kwargs)  # type: ignore[arg-type]

    outputs = []
    for with_secret in (True, False):
        root = tmp_path / str(with_secret)
        (root / "src").mkdir(parents=True)
        (root / "src/a.py").write_text("KEY = 1\n")
        if with_secret:
            (root / ".env").write_text("KEY=hunter2\n")
            os.link(root / ".env", root / "src/cfg.txt")
        rt = Runtime(root, policy=Policy(), fs=NoPermission())
        out = await rt.call("code_search", {"regex": "KEY"}, renderer="structured")
        outputs.append(str(out).replace(str(root), "R"))
    assert outputs[0] == outputs[1]

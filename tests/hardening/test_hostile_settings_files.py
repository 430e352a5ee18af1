"""Settings files a repository holds are untrusted input: a FIFO or a huge file in their
place must neither hang nor swamp a runtime.

Found by the lead (fifth session): the project's ``pathgate.toml``/``pyproject.toml`` was read
whole with ``Path.read_bytes`` after a ``stat`` (a FIFO swapped in between blocked the start
forever; a 1 GB ``pyproject.toml`` was read at every start), and the agent settings the write
gates parse (``.claude/settings.json``…) were opened without ``O_NONBLOCK``: a FIFO there
hung every write and every ``pathgate hook`` write check.
"""

from __future__ import annotations

import errno
import os
import threading
from pathlib import Path

import pytest

from pathgate import ConfigError
from pathgate.config import MAX_CONFIG_FILE_BYTES, _read_bounded, load_project_config
from tests.runtime.tools._writes import make_rt, write_tree

pytestmark = pytest.mark.anyio


def _unblock_fifo_later(path: Path) -> threading.Timer:
    """Open the FIFO for writing after a while, so a reader blocked on it is released
    (the test then fails instead of hanging the suite)."""

    def release() -> None:
        try:
            fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK)
        except OSError:
            return
        os.close(fd)

    t = threading.Timer(5.0, release)
    t.daemon = True
    t.start()
    return t


def test_a_fifo_config_file_is_refused_not_waited_on(tmp_path: Path) -> None:
    fifo = tmp_path / "pathgate.toml"
    os.mkfifo(fifo)
    timer = _unblock_fifo_later(fifo)
    try:
        with pytest.raises(OSError) as info:
            _read_bounded(str(fifo))
        assert info.value.errno == errno.EINVAL
        assert timer.is_alive(), "the read waited for a writer"
    finally:
        timer.cancel()


def test_a_huge_project_config_is_a_clear_error(tmp_path: Path) -> None:
    big = tmp_path / "pyproject.toml"
    with open(big, "wb") as f:
        f.write(b"[tool.pathgate]\n")
        f.write(b"# " + b"x" * 1000 + b"\n")
        f.truncate(MAX_CONFIG_FILE_BYTES + 10)
    with pytest.raises(ConfigError) as info:
        load_project_config(tmp_path)
    assert "pyproject.toml" in str(info.value) and "larger than" in str(info.value)


def test_a_config_file_at_the_limit_is_read(tmp_path: Path) -> None:
    body = b'[tool.pathgate]\nread_budget = 5000\n'
    data = body + b"#" * (MAX_CONFIG_FILE_BYTES - len(body) - 1) + b"\n"
    assert len(data) == MAX_CONFIG_FILE_BYTES
    (tmp_path / "pyproject.toml").write_bytes(data)
    loaded = load_project_config(tmp_path)
    assert loaded is not None and loaded[0].read_budget == 5000


async def test_a_fifo_agent_settings_file_does_not_hang_writes(anyio_backend: str, tmp_path: Path) -> None:
    root = tmp_path / "proj"
    write_tree(root, {"src/a.py": "a\n"})
    (root / ".claude").mkdir()
    fifo = root / ".claude" / "settings.json"
    os.mkfifo(fifo)
    timer = _unblock_fifo_later(fifo)
    try:
        async with make_rt(root, require_read_before_write=False) as rt:
            assert (await rt.write_file("src/b.py", "b\n")).ok
            refused = await rt.write_file(".claude/hooks/x.sh", "exit 0\n")
            assert not refused.ok
        assert timer.is_alive(), "the write waited for a writer on the FIFO"
    finally:
        timer.cancel()
    assert (root / "src/b.py").read_text() == "b\n"


def test_hook_install_refuses_a_fifo_settings_file(tmp_path: Path) -> None:
    from pathgate._hooks._install import InstallError, merged_settings

    fifo = tmp_path / "settings.json"
    os.mkfifo(fifo)
    timer = _unblock_fifo_later(fifo)
    try:
        with pytest.raises(InstallError) as info:
            merged_settings("claude-code", str(fifo), "pathgate hook claude-code")
        assert "not a regular file" in str(info.value)
        assert timer.is_alive(), "install waited for a writer on the FIFO"
    finally:
        timer.cancel()

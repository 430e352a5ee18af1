"""The secret-inode registry (hard links to secrets): it fails closed when a directory
cannot be listed, since the secrets inside it are unknown."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

import pathgate.runtime._links as links
from pathgate.runtime._links import SecretInodes


def _tree(tmp_path: Path) -> Path:
    (tmp_path / "private").mkdir()
    (tmp_path / "private" / ".env").write_text("TOKEN=1\n")
    os.link(tmp_path / "private" / ".env", tmp_path / "settings.txt")
    (tmp_path / "plain.txt").write_text("x\n")
    os.link(tmp_path / "plain.txt", tmp_path / "plain-alias.txt")
    return tmp_path


def _is_secret(relpath: str) -> bool:
    return relpath.rsplit("/", 1)[-1] == ".env"


def test_a_hard_link_to_a_secret_is_found(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    reg = SecretInodes(str(root), _is_secret)
    assert reg.linked_secret(os.stat(root / "settings.txt"))
    assert not reg.linked_secret(os.stat(root / "plain.txt"))  # multi-linked, not a secret's


def test_an_unlistable_directory_fails_closed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = _tree(tmp_path)
    real_scandir = os.scandir

    def scandir(path: str) -> object:
        if str(path).endswith("/private"):
            raise PermissionError(errno.EACCES, "Permission denied", path)
        return real_scandir(path)

    monkeypatch.setattr(links.os, "scandir", scandir)
    reg = SecretInodes(str(root), _is_secret)
    # the secret behind the unlistable directory is unknown: every multi-linked file counts
    assert reg.linked_secret(os.stat(root / "settings.txt"))
    assert reg.linked_secret(os.stat(root / "plain.txt"))


def test_secret_memo_keeps_answers_per_matcher_and_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    from pathgate.runtime import _links
    from pathgate.runtime.gates.secrets import SecretMatcher

    monkeypatch.setattr(_links, "SECRET_MEMO", 4)
    matcher, other = SecretMatcher(["*.pem"]), SecretMatcher(["*.key"])
    asked: list[str] = []

    def decide(rel: str) -> bool:
        asked.append(rel)
        return matcher.is_secret(rel)

    memo = _links.secret_memo(matcher, decide)
    paths = ["a/.env", "a/b.pem", "a/b.txt", "x/.env.example", "c.pem"]
    assert [memo(p) for p in paths] == [matcher.is_secret(p) for p in paths] == [True, True, False, False, True]
    assert asked == paths
    # a later call's memo for the same matcher shares the answers (bounded: cleared when full)
    again = _links.secret_memo(matcher, decide)
    assert again("c.pem") is True and asked == paths
    assert again("a/.env") is True and asked[-1] == "a/.env"
    # another matcher never sees them
    assert _links.secret_memo(other, other.is_secret)("c.pem") is False



def _counting(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    checks: list[int] = []
    real = SecretInodes._valid

    def valid(self: SecretInodes, snap: object) -> bool:
        checks.append(1)
        return real(self, snap)  # type: ignore[arg-type]

    monkeypatch.setattr(SecretInodes, "_valid", valid)
    return checks


def test_one_validation_per_tool_call(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Within one call (its scheduler ticket, as every tool call has) the registry is
    validated once, however many files it asks about; outside any call, every question
    validates."""
    from pathgate.runtime.fs._sched import call_scope

    root = _tree(tmp_path)
    reg = SecretInodes(str(root), _is_secret)
    checks = _counting(monkeypatch)
    with call_scope():
        for _ in range(5):
            assert reg.linked_secret(os.stat(root / "settings.txt"))
            assert not reg.linked_secret(os.stat(root / "plain-alias.txt"))
    assert len(checks) == 1  # the build's own validation
    with call_scope():
        for _ in range(5):
            assert reg.linked_secret(os.stat(root / "settings.txt"))
    assert len(checks) == 2
    for _ in range(3):
        assert reg.linked_secret(os.stat(root / "settings.txt"))
    assert len(checks) == 5


def test_each_call_sees_the_links_made_before_it(tmp_path: Path) -> None:
    """A call answers from the state of its first question (one view per call); the next
    call sees a secret name given to a file's inode since, and its removal."""
    from pathgate.runtime.fs._sched import call_scope

    root = _tree(tmp_path)
    (root / "other").mkdir()
    reg = SecretInodes(str(root), _is_secret)
    plain = root / "plain.txt"
    with call_scope():
        assert not reg.linked_secret(os.stat(plain))
        os.link(plain, root / "other" / ".env")
        assert not reg.linked_secret(os.stat(plain))  # the call's own view
    with call_scope():
        assert reg.linked_secret(os.stat(plain))
    os.unlink(root / "other" / ".env")
    with call_scope():
        assert not reg.linked_secret(os.stat(plain))
    os.link(plain, root / "other" / ".env")
    assert reg.linked_secret(os.stat(plain))  # outside any call: validated now

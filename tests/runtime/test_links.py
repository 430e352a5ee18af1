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

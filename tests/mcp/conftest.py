"""Fixtures for the MCP server tests: a small project tree and an asyncio-only backend."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return make_project(tmp_path / "project")


def make_project(root: Path) -> Path:
    """``.gitignore`` (``build/``), an ignored ``build/out.js``, a secret ``.env`` and a kept
    ``src/app.py`` that both mention ``TOKEN``."""
    (root / "build").mkdir(parents=True)
    (root / "src").mkdir()
    (root / ".gitignore").write_text("build/\n")
    (root / "build" / "out.js").write_text("const TOKEN = 'compiled';\n")
    (root / ".env").write_text("TOKEN=hunter2\n")
    (root / "src" / "app.py").write_text("TOKEN = 'from app'\nprint(TOKEN)\n")
    return root

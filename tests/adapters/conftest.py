"""Fixtures for the adapter tests: a small project tree and an asyncio-only backend."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """``.gitignore`` (``build/``), an ignored ``build/out.js``, a secret ``.env`` and a kept
    ``src/app.py``."""
    root = tmp_path / "project"
    (root / "build").mkdir(parents=True)
    (root / "src").mkdir()
    (root / ".gitignore").write_text("build/\n")
    (root / "build" / "out.js").write_text("const TOKEN = 'compiled';\n")
    (root / ".env").write_text("TOKEN=hunter2\n")
    (root / "src" / "app.py").write_text("print('hello')\n")
    return root


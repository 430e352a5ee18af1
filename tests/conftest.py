"""Shared fixtures.

* ``anyio_backend``: async tests run on asyncio and trio (``@pytest.mark.anyio``).
* ``shared_dir``: the ``../shared`` folder of the development checkout; tests that need it
  skip with a clear reason in a user's fresh clone, where it does not exist.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared"


@pytest.fixture(params=["asyncio", "trio"])
def anyio_backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    if not (SHARED / "corpora").is_dir():
        pytest.skip(f"needs the development checkout's shared/ folder ({SHARED} not found); "
                    "it is absent in a user's fresh clone")
    return SHARED


@pytest.fixture(scope="session")
def git_bin() -> str:
    git = shutil.which("git")
    if git is None:
        pytest.skip("needs the git binary as the oracle")
    return git

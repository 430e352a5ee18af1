"""Fixtures of the oracle tests: materialized shared corpora (session-scoped)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest


def materialize(shared: Path, corpus: str, dest: Path) -> Path:
    """Materialize ``shared/corpora/<corpus>`` into ``dest`` and compute git's truth."""
    tools = shared / "tools"
    subprocess.run([sys.executable, str(tools / "materialize_corpus.py"),
                    str(shared / "corpora" / corpus), str(dest)], check=True,
                   capture_output=True)
    subprocess.run(["bash", str(tools / "git_truth.sh"), str(dest)], check=True,
                   capture_output=True)
    return dest


@pytest.fixture(scope="session")
def vercel_tree(shared_dir: Path, git_bin: str, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return materialize(shared_dir, "vercel-vercel", tmp_path_factory.mktemp("vercel") / "tree")


@pytest.fixture(scope="session")
def eugenp_tree(shared_dir: Path, git_bin: str, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return materialize(shared_dir, "eugenp-tutorials", tmp_path_factory.mktemp("eugenp") / "tree")

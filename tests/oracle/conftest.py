"""Fixtures of the oracle tests: materialized shared corpora (session-scoped).

A corpus tree is big (vercel: ~49k files, 200 MB) and only read by the tests, so it is
materialized once per machine and reused by later sessions: it lives in the temporary
directory under a name keyed by the corpus spec, the tools that build it and git's version
(any change builds a fresh tree). It is built under a private name and renamed into place, so
a concurrent or interrupted session never sees a half-built tree. Rebuilding and removing it
each session cost seconds to build and, on a disk with synchronous discard, a minute to
remove (pytest's clean-up of old temporary directories).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import uuid
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


def _key(shared: Path, corpus: str, git_bin: str) -> str:
    """A digest of everything the materialized tree depends on."""
    h = hashlib.sha256()
    for base in (shared / "corpora" / corpus, shared / "tools"):
        for p in sorted(base.rglob("*")):
            if p.is_file():
                h.update(os.fsencode(p.relative_to(shared)) + b"\0" + p.read_bytes() + b"\0")
    h.update(subprocess.run([git_bin, "--version"], capture_output=True, check=True).stdout)
    h.update(sys.version.encode())
    return h.hexdigest()[:20]


def cached_corpus(shared: Path, corpus: str, git_bin: str) -> Path:
    """The materialized ``corpus``, built on first use and kept for later sessions."""
    cache = Path(tempfile.gettempdir()) / f"pathgate-test-corpora-{os.getuid()}"
    cache.mkdir(mode=0o700, exist_ok=True)
    final = cache / f"{corpus}-{_key(shared, corpus, git_bin)}"
    if not final.is_dir():
        building = cache / f".building-{uuid.uuid4().hex}"
        building.mkdir()
        materialize(shared, corpus, building / "tree")
        try:
            os.rename(building, final)
        except OSError:  # another session renamed its copy into place first
            shutil.rmtree(building, ignore_errors=True)
    return final / "tree"


@pytest.fixture(scope="session")
def vercel_tree(shared_dir: Path, git_bin: str) -> Path:
    return cached_corpus(shared_dir, "vercel-vercel", git_bin)


@pytest.fixture(scope="session")
def eugenp_tree(shared_dir: Path, git_bin: str) -> Path:
    return cached_corpus(shared_dir, "eugenp-tutorials", git_bin)

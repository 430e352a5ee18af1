"""The property-based oracle (issue 12): random trees with random secrets — secret names
(``host:443.pem`` included), secret-named directories, secret-named symlinks (inside,
outside, looping), hard links to secrets, secrets inside ignored directories, a host-filtered
directory — give, for every tool and every renderer, the same rendered output as the same
tree with the secrets removed, apart from the secrets' own bare ``[BLOCKED]`` when a call
names them.

The secret-free twin of a hard link to a secret is a regular file of the same (innocent)
name holding no marker: its name may be listed, its bytes (the secret's) must never show.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pathgate import Policy
from tests.hardening._twotrees import Call, Spec, build, render_all

INNOCENT: dict[str, str] = {
    "src/app.py": "MARKER app\n",
    "src/lib/util.py": "MARKER util\n",
    "docs/readme.md": "MARKER docs\n",
    ".env.example": "MARKER template\n",
    "build/out.js": "MARKER build\n",
    ".gitignore": "build/\n*.log\n",
    "x.log": "MARKER log\n",
}
INNOCENT_DIRS = [".", "src", "src/lib", "docs", "build"]

#: Secret elements: name -> (with-tree entries, secret-asked spellings).
SECRETS: dict[str, tuple[dict[str, Any], list[str]]] = {
    "env": ({".env": "MARKER SECRET env\n"}, [".env"]),
    "env_local": ({"src/.env.local": "MARKER SECRET\n"}, ["src/.env.local"]),
    "id_rsa": ({"src/lib/id_rsa": "MARKER SECRET\n"}, ["src/lib/id_rsa"]),
    "pem": ({"docs/x.pem": "MARKER SECRET\n"}, ["docs/x.pem"]),
    "colon": ({"host:443.pem": "MARKER SECRET\n"}, ["host:443.pem"]),
    "env_dir": ({".env.d/prod/a.txt": "MARKER SECRET\n"},
                [".env.d/prod/a.txt", ".env.d/../src/app.py", ".env.d/prod/../../docs/readme.md",
                 ".env.d/nope/../../src/app.py"]),
    "key_dir": ({"src/keys.pem/inner.txt": "MARKER SECRET\n"},
                ["src/keys.pem/inner.txt", "src/keys.pem/../app.py"]),
    "ignored": ({"build/.env": "MARKER SECRET\n", "build/sub/id_ed25519": "MARKER SECRET\n"},
                ["build/.env", "build/../build/.env"]),
    "private": ({"private/notes.txt": "MARKER PRIVATE\n"},
                ["private/notes.txt", "private/../src/app.py", "private/notes.txt/../../docs/readme.md"]),
    "link_out": ({".env.prod": ("symlink", "{outside}/.env")}, [".env.prod"]),
    "link_in": ({"src/server.key": ("symlink", "app.py")}, ["src/server.key"]),
    "link_loop": ({"src/lib/server.pem": ("symlink", "server.pem")}, ["src/lib/server.pem"]),
}
HARDLINK = ({".env.staging": "MARKER SECRET hard\n", "docs/settings.txt": ("hardlink", ".env.staging")},
            [".env.staging", "docs/settings.txt"])

COUNTS = {"trees": 0, "outputs": 0, "differences": 0}


def _private_off(p: str) -> bool:
    return not (p == "private" or p.startswith("private/"))


def _calls(read_paths: list[str], dirs: list[str]) -> list[Call]:
    calls: list[Call] = [("read_files", {"paths": read_paths})]
    calls += [("read_files", {"paths": [p]}) for p in read_paths if ".." in p]
    calls += [("glob", {"pattern": pat}) for pat in ("**", "*", "**/*.pem")]
    calls += [("list_directory", {"path": d}) for d in dirs]
    calls += [("code_search", {"regex": "MARKER"}), ("code_search", {"regex": "MARKER", "path": "src"})]
    return calls


def _materialise(spec: dict[str, Any], outside: Path) -> Spec:
    out: dict[str, Any] = {}
    for rel, value in spec.items():
        if isinstance(value, tuple) and value[0] == "symlink":
            value = ("symlink", value[1].format(outside=outside))
        out[rel] = value
    return out


def check_tree(base: Path, chosen: list[str], hardlink: bool, *, only_search: bool = False) -> None:
    """Build the two trees and compare every call under every renderer (``only_search``:
    code_search only). A hard-link alias is a secret: the "without" tree has no file there."""
    outside = base / "outside"
    outside.mkdir(parents=True)
    (outside / ".env").write_text("MARKER SECRET outside\n")
    with_spec: dict[str, Any] = dict(INNOCENT)
    without_spec: dict[str, Any] = dict(INNOCENT)
    asked: set[str] = set()
    for name in chosen:
        entries, spellings = SECRETS[name]
        with_spec.update(entries)
        asked.update(spellings)
    if hardlink:  # the alias is a secret: the "without" tree has no such file at all
        with_spec.update(HARDLINK[0])
        asked.update(HARDLINK[1])
    build(base / "with", _materialise(with_spec, outside))
    build(base / "without", without_spec)
    read_paths = sorted(INNOCENT) + sorted(asked) + ["./src/app.py", "nope.txt"]
    dirs = [*INNOCENT_DIRS, ".env.d/..", "private/.."]
    calls = _calls(read_paths, dirs)
    if only_search:
        calls = [c for c in calls if c[0] == "code_search"]
    policy = Policy(host_filter=_private_off)

    async def main() -> tuple[list[str], list[str]]:
        # only the secret-free twin gets the expected bare [BLOCKED] for paths asked by a
        # secret's name: the tree with secrets must produce it itself
        return (await render_all(base / "with", calls, policy, None),
                await render_all(base / "without", calls, policy, asked))

    a, b = anyio.run(main)
    COUNTS["trees"] += 2
    COUNTS["outputs"] += len(a) + len(b)
    diffs = [(call, x, y) for x, y, call in zip(a, b, calls * 3, strict=True) if x != y]
    COUNTS["differences"] += len(diffs)
    assert not diffs, diffs[:3]


_secrets = st.lists(st.sampled_from(sorted(SECRETS)), min_size=1, max_size=6, unique=True)


@pytest.fixture(scope="module")
def scratch(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    yield tmp_path_factory.mktemp("oracle")


# ~1 s per example on a loaded 2-core machine: the quick suite keeps a dozen; the slow run 300.
@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(chosen=_secrets)
def test_oracle_no_hardlinks(scratch: Path, chosen: list[str]) -> None:
    check_tree(scratch / uuid.uuid4().hex, chosen, hardlink=False)


@settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(chosen=_secrets)
def test_oracle_with_a_hardlink(scratch: Path, chosen: list[str]) -> None:
    check_tree(scratch / uuid.uuid4().hex, chosen, hardlink=True)


def test_oracle_search_with_a_hardlink(tmp_path: Path) -> None:
    check_tree(tmp_path, ["env"], hardlink=True, only_search=True)


@pytest.mark.slow
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(chosen=_secrets, hardlink=st.booleans())
def test_oracle_slow(scratch: Path, chosen: list[str], hardlink: bool) -> None:
    check_tree(scratch / uuid.uuid4().hex, chosen, hardlink)


def test_every_secret_kind_at_once(tmp_path: Path) -> None:
    check_tree(tmp_path, sorted(SECRETS), hardlink=False)
    assert os.path.islink(tmp_path / "with" / ".env.prod")

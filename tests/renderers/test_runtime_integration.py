"""Renderers on real ``Runtime.read_files`` results: remedies unblock on the next call, and
secrets and host-filter blocks carry nothing but the bare status, with no remedy."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import msgspec
import pytest

from pathgate.config import Policy
from pathgate.renderers import SentinelRenderer, StructuredRenderer, VerboseRenderer
from pathgate.renderers.structured import ReadFilesOutput
from pathgate.runtime._runtime import Runtime
from pathgate.verdicts import FileResult, Status

pytestmark = pytest.mark.anyio

PLAIN = Policy(defaults=(), git_sources=False)
RENDERERS = (SentinelRenderer(), VerboseRenderer(), StructuredRenderer())


def write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")


def append(root: Path, rel: str, lines: tuple[str, ...]) -> None:
    p = root / rel
    old = p.read_text(encoding="utf-8") if p.exists() else ""
    p.write_text(old + "".join(f"{ln}\n" for ln in lines), encoding="utf-8")


async def read(root: Path, paths: list[str], policy: Policy = PLAIN) -> list[FileResult]:
    return await Runtime(root, policy).read_files(paths)


@pytest.mark.parametrize(("files", "path"), [
    ({".gitignore": "*.log\n", "debug.log": "LOG\n"}, "debug.log"),
    ({".gitignore": "build/\n", "build/sub/out.js": "JS\n", "build/x": "X"}, "build/sub/out.js"),
    ({"pkg/.gitignore": "*.gen.py\n", "pkg/a.gen.py": "PY\n"}, "pkg/a.gen.py"),
    ({".gitignore": "*.txt\n", "[odd] name*.txt": "ODD\n"}, "[odd] name*.txt"),
])
async def test_offered_remedy_makes_the_path_readable_on_the_next_call(
        tmp_path: Path, files: dict[str, str], path: str) -> None:
    write(tmp_path, files)
    (result,) = await read(tmp_path, [path])
    assert result.verdict is not None and result.verdict.status is Status.BLOCKED
    remedy = result.verdict.remedy
    assert remedy is not None
    text = VerboseRenderer().render_read([result])[path]
    assert text.endswith(f"add these lines to `{remedy.file}`:\n" + "\n".join(remedy.lines))
    append(tmp_path, remedy.file, remedy.lines)
    (after,) = await read(tmp_path, [path])
    assert after.verdict is None, after
    assert after.content == files[path]


async def test_ignored_and_deleted_gets_no_existence_claim(tmp_path: Path) -> None:
    write(tmp_path, {".gitignore": "*.log\n"})
    (result,) = await read(tmp_path, ["gone.log"])
    assert result.verdict is not None and result.verdict.exists is not True
    text = VerboseRenderer().render_read([result])["gone.log"]
    assert text.startswith("[BLOCKED]: Excluded by ignore rules")
    assert "exists" not in text


async def test_ignored_existing_file_says_it_exists(tmp_path: Path) -> None:
    write(tmp_path, {".gitignore": "*.log\n", "here.log": "x"})
    (result,) = await read(tmp_path, ["here.log"])
    assert "It exists on disk." in VerboseRenderer().render_read([result])["here.log"]


SECRET_FILES = {
    ".gitignore": ".env*\n*.pem\n",
    ".env": "API_KEY=hunter2\n",
    ".ENV": "API_KEY=hunter2\n",
    "config/.env.production": "TOKEN=abc\n",
    "keys/server.pem": "-----BEGIN-----\n",
}


def assert_bare(results: list[FileResult], paths: list[str]) -> None:
    for r in results:
        assert r.verdict is not None and r.verdict.opaque, r
        assert r.verdict.remedy is None, r
    for renderer in (SentinelRenderer(), VerboseRenderer()):
        out = renderer.render_read(results)
        assert out == dict.fromkeys(paths, "[BLOCKED]")
    structured: dict[str, Any] = StructuredRenderer().render_read(results)
    assert structured == {"files": [{"path": p, "status": "blocked"} for p in paths]}
    msgspec.json.decode(msgspec.json.encode(structured), type=ReadFilesOutput)


async def test_secrets_are_bare_everywhere_even_when_ignore_rules_also_match(tmp_path: Path) -> None:
    write(tmp_path, SECRET_FILES)
    os.symlink(".env", tmp_path / "innocent.txt")
    paths = [".env", ".ENV", "config/.env.production", "keys/server.pem", "innocent.txt",
             "./.env", ".env:$DATA", "missing/.env"]
    assert_bare(await read(tmp_path, paths), paths)


async def test_secrets_stay_bare_with_the_secrets_gate_off(tmp_path: Path) -> None:
    write(tmp_path, SECRET_FILES)
    policy = Policy(defaults=(), git_sources=False, enforce_secrets=False)
    paths = [".env", "config/.env.production", "keys/server.pem"]
    assert_bare(await read(tmp_path, paths, policy), paths)


async def test_host_filter_blocks_are_bare_and_get_no_remedy(tmp_path: Path) -> None:
    write(tmp_path, {".gitignore": "*.log\n", "private/a.log": "x", "private/b.txt": "y"})
    policy = Policy(defaults=(), git_sources=False,
                    host_filter=lambda rel: not rel.startswith("private/"))
    paths = ["private/a.log", "private/b.txt"]
    assert_bare(await read(tmp_path, paths, policy), paths)

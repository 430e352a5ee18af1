"""Git internals are never served, whatever the ignore rules or the ignore mode say.

The break: ``.git/`` was protected only by a default ignore rule, so ``ignore_mode =
"discovery"`` (or a ``!.git`` line in ``.pathgateignore``) served ``.git/config``. Here both
loosenings are on, and every tool under every renderer must still refuse ``.git``, ``.GIT``
(case-folding), and the git directory a ``.git`` file points to.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import anyio
import msgspec
import pytest

from pathgate import Gate, Policy, Runtime, Status
from pathgate._explain import explain_paths, format_explanation
from pathgate.runtime.gates.path import GIT_INTERNALS, is_git_internal, is_git_name

MARK = "TOKEN_IN_GIT_INTERNALS"
RENDERERS = ["sentinel", "verbose", "structured"]
SEARCH = "example[.]com|url = "


def _tree(root: Path) -> Path:
    (root / "src").mkdir(parents=True)
    (root / "src" / "app.py").write_text("print('hi')\n")
    for d in (".git", ".GIT", "sub/.git"):
        (root / d).mkdir(parents=True, exist_ok=True)
        (root / d / "config").write_text(f"[remote]\n url = https://{MARK}@example.com\n")
        (root / d / "HEAD").write_text(f"ref: {MARK}\n")
    (root / ".pathgateignore").write_text("!.git\n!.git/**\n!.GIT/\n")
    (root / "link").symlink_to(".git")
    return root


@pytest.fixture(scope="module")
def git_tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``_tree``, built once: the tests on ``runtime`` only read it."""
    return _tree(tmp_path_factory.mktemp("git-internals") / "p")


@pytest.fixture(params=[("discovery", True), ("discovery", False), ("block", None)])
def runtime(request: pytest.FixtureRequest, git_tree: Path) -> Runtime:
    """Both loosenings on: discovery mode and ``!.git`` in ``.pathgateignore``; ``.GIT`` is
    refused with and without case folding (git's own ``verify_path`` folds everywhere)."""
    root = git_tree
    mode, fold = request.param
    return Runtime(root, Policy(ignore_mode=mode, ignore_case=fold))


@pytest.fixture
def gitfile_runtime(tmp_path: Path) -> Runtime:
    """A work tree whose ``.git`` is a file pointing at an in-project git directory."""
    root = tmp_path / "w"
    for d in ("objects", "refs"):  # a git directory, as git checks it (is_git_directory)
        (root / ".gitstore" / d).mkdir(parents=True)
    (root / ".gitstore" / "config").write_text(f"[remote]\n url = {MARK}\n")
    (root / ".gitstore" / "HEAD").write_text("ref: refs/heads/main\n")
    (root / ".git").write_text("gitdir: .gitstore\n")
    (root / "a.txt").write_text("kept\n")
    (root / ".pathgateignore").write_text("!.git\n")
    return Runtime(root, Policy(ignore_mode="discovery"))


GIT_PATHS = [".git/config", ".git/HEAD", ".GIT/config", ".Git/HEAD", "sub/.git/config", "link/config",
             ".git/../src/app.py", ".git", ".git/nope"]


def _call(rt: Runtime, tool: str, args: dict[str, Any], renderer: str) -> Any:
    async def go() -> Any:
        return await rt.call(tool, args, renderer=renderer)

    return anyio.run(go)


def test_names() -> None:
    for name in (".git", ".GIT", ".Git", ".git.", ".git ", "GIT~1", "git~1"):
        assert is_git_name(name), name
    for name in (".github", ".gitignore", "git", ".gitstore", ".", ".."):
        assert not is_git_name(name), name
    assert is_git_internal("a/.git/b") and is_git_internal(".gitstore/x", (".gitstore",))
    assert not is_git_internal(".gitstore2/x", (".gitstore",))


@pytest.mark.parametrize("renderer", RENDERERS)
def test_read_files_refuses_git_internals(runtime: Runtime, renderer: str) -> None:
    out = _call(runtime, "read_files", {"paths": GIT_PATHS}, renderer)
    text = json.dumps(out)
    assert MARK not in text
    if renderer == "structured":
        for entry in out["files"]:
            assert entry == {"status": "blocked", "path": entry["path"], "gate": "path",
                             "detail": GIT_INTERNALS}
    else:
        for path in GIT_PATHS:
            assert out[path].startswith("[BLOCKED]")
            assert ".pathgateignore" not in out[path]
        if renderer == "verbose":
            assert "never served" in out[".git/config"] and "Nothing unblocks it" in out[".git/config"]


def test_raw_verdict(runtime: Runtime) -> None:
    async def go() -> Any:
        return await runtime.read_files([".git/config", ".GIT/HEAD"])

    for result in anyio.run(go):
        assert result.verdict is not None
        assert (result.verdict.status, result.verdict.gate) == (Status.BLOCKED, Gate.PATH)
        assert result.verdict.detail == GIT_INTERNALS and not result.verdict.opaque
        assert result.verdict.remedy is None


@pytest.mark.parametrize("renderer", RENDERERS)
@pytest.mark.parametrize(
    ("tool", "args"),
    [
        ("list_directory", {"path": ".git"}),
        ("list_directory", {"path": ".GIT"}),
        ("list_directory", {"path": "link"}),
        ("glob", {"pattern": ".git/**"}),
        ("glob", {"pattern": "**", "path": ".git"}),
        ("glob", {"pattern": "**"}),
        ("code_search", {"regex": SEARCH, "path": ".git"}),
        ("code_search", {"regex": SEARCH, "path": "sub/.git"}),
        ("code_search", {"regex": SEARCH}),
        ("code_search", {"regex": SEARCH, "glob": "**/config"}),
    ],
)
def test_discovery_never_shows_git_internals(runtime: Runtime, tool: str, args: dict[str, Any],
                                             renderer: str) -> None:
    out = _call(runtime, tool, args, renderer)
    text = msgspec.json.encode(out).decode()
    assert MARK not in text
    lines = out.get("matches") or out.get("entries") or out.get("hits") or []
    for line in lines:
        entry = line if isinstance(line, str) else (line.get("path") or line.get("name") or "")
        assert not any(is_git_name(part) for part in entry.split("/")), entry
    if args.get("path", ".") != ".":
        assert "blocked" in text.casefold()


@pytest.mark.parametrize("renderer", RENDERERS)
def test_gitdir_of_a_git_file_is_never_served(gitfile_runtime: Runtime, renderer: str) -> None:
    rt = gitfile_runtime
    assert rt.git_dirs == (".gitstore",)
    read = _call(rt, "read_files", {"paths": [".gitstore/config", ".gitstore/HEAD", ".git", "a.txt"]}, renderer)
    assert MARK not in json.dumps(read)
    globbed = _call(rt, "glob", {"pattern": "**"}, renderer)
    searched = _call(rt, "code_search", {"regex": SEARCH}, renderer)
    listed = _call(rt, "list_directory", {"path": ".gitstore"}, renderer)
    for out in (globbed, searched, listed):
        assert MARK not in json.dumps(out)
    matches = globbed["matches"]
    assert "a.txt" in matches and not any(m.startswith(".gitstore") for m in matches)
    assert not searched["hits"]


def test_a_malformed_git_file_fails_closed_and_still_hides_its_gitdir(tmp_path: Path) -> None:
    """``gitdir:.gitstore`` (no space) makes git exit 128: the runtime still starts, blocks
    every path (fail closed), and the directory the file loosely names is never served."""
    root = tmp_path / "m"
    (root / ".gitstore").mkdir(parents=True)
    (root / ".gitstore" / "config").write_text(f"[remote]\n url = {MARK}\n")
    (root / ".git").write_text("gitdir:.gitstore\n")
    (root / "a.txt").write_text("kept\n")
    rt = Runtime(root)
    assert rt.git_dirs == (".gitstore",)
    read = _call(rt, "read_files", {"paths": ["a.txt", ".gitstore/config"]}, "verbose")
    assert read["a.txt"].startswith("[BLOCKED]") and MARK not in json.dumps(read)
    (root / ".git").write_text("gitdir: .gitstore\n")  # still not a git directory (no HEAD)
    assert _call(rt, "read_files", {"paths": ["a.txt"]}, "verbose")["a.txt"].startswith("[BLOCKED]")
    for d in ("objects", "refs"):
        (root / ".gitstore" / d).mkdir()
    (root / ".gitstore" / "HEAD").write_text("ref: refs/heads/main\n")
    read = _call(rt, "read_files", {"paths": ["a.txt", ".gitstore/config"]}, "verbose")
    assert read["a.txt"] == "kept\n" and read[".gitstore/config"].startswith("[BLOCKED]")
    assert MARK not in json.dumps(read)


def test_explain_does_not_suggest_unignoring(runtime: Runtime) -> None:
    async def go() -> Any:
        return await explain_paths(runtime, [".git/config", ".GIT/config"])

    for exp in anyio.run(go):
        assert exp.allowed is False and exp.detail == GIT_INTERNALS and exp.remedy is None
        text = format_explanation(exp)
        assert "never served" in text and "no unblock" in text
        assert "add to" not in text


def test_walks_do_not_enter_dot_git(tmp_path: Path) -> None:
    root = _tree(tmp_path / "p")
    os.symlink(str(root / ".git" / "config"), str(root / "src" / "cfg"))
    rt = Runtime(root, Policy(ignore_mode="discovery"))
    out = _call(rt, "read_files", {"paths": ["src/cfg"]}, "verbose")
    assert out["src/cfg"].startswith("[BLOCKED]") and MARK not in out["src/cfg"]


@pytest.mark.parametrize("renderer", RENDERERS)
def test_secret_names_into_git_stay_opaque(tmp_path: Path, renderer: str) -> None:
    """A secret-named link into ``.git`` (or a secret name inside it) is a bare ``[BLOCKED]``,
    neither explained nor counted: the git rule must not become a secret's oracle."""
    root = tmp_path / "s"
    (root / ".git").mkdir(parents=True)
    (root / ".git" / "config").write_text(f"[remote]\n url = {MARK}\n")
    (root / "src").mkdir()
    (root / ".env").symlink_to(".git/config")
    (root / "src" / "id_rsa").symlink_to("../.git/config")
    rt = Runtime(root)
    read = _call(rt, "read_files", {"paths": [".env", "src/id_rsa", ".git/x.pem"]}, renderer)
    if renderer == "structured":
        assert all(set(f) == {"path", "status"} for f in read["files"])
    else:
        assert set(read.values()) == {"[BLOCKED]"}
    for tool, args in (("glob", {"pattern": "**"}), ("list_directory", {"path": "src"}),
                       ("list_directory", {"path": "."})):
        out = _call(rt, tool, args, renderer)
        text = json.dumps(out)
        assert "id_rsa" not in text and ".env" not in text
        assert out["notes"] == [] and out.get("omitted", []) == []

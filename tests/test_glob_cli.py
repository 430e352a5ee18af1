"""``pathgate glob`` without an event loop (``pathgate._glob_cli``) answers exactly what the
glob tool answers on a runtime: both routes on the same trees — secrets and their hard
links, ignored and re-included paths, excluded directories holding matches, symlinks to
files, directories, secrets, out of the project, dangling and looping, non-UTF-8 names,
git internals, budgets — compared as rendered data and as the command's bytes."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import anyio
import msgspec
import pytest

import pathgate._glob_cli as glob_cli
import pathgate.cli as cli
from pathgate import Runtime
from pathgate.config import load_config
from pathgate.runtime._gating import GateCore, NeedsEventLoop
from pathgate.runtime.tools import _discover

PATTERNS = ("**", "**/*", "**/*.py", "*", "src/**", "build/**", "**/*.js", "**/*.log", "**/.env*",
            "*.md", "**/caf*", "nomatch/**", "**/out.*", "[bs]*/**", "**/*.tfstate", "vendor/*/*")
PATHS = (".", "src", "build", "vendor", ".env", "src/app.py", "missing", "link_dir", "src/notes.txt",
         "..", ".git", "./src/../src", os.fsdecode(b"d\xe9"), '"d\\351"')  # a non-UTF-8 directory, both spellings


def _tree(root: Path, *, strict: bool = False) -> Path:
    files = {
        ".gitignore": "build/\n*.log\n!keep.log\nvendor/**\n!vendor/keep/\n",
        "pathgate.toml": 'extra_secret_patterns = ["*.tfstate"]\n' + ("strict_hard_links = true\n" if strict else ""),
        ".env": "KEY=1\n",
        ".env.example": "KEY=\n",
        "README.md": "hi\n",
        "keep.log": "kept\n",
        "debug.log": "x\n",
        "state.tfstate": "{}\n",
        "src/app.py": "print(1)\n",
        "src/.gitignore": "gen/\n",
        "src/gen/made.py": "x\n",
        "src/config/.env.local": "K=2\n",
        "build/out.js": "x\n",
        "build/deep/more.js": "x\n",
        "build/deep/.env": "K=3\n",
        "build/lib.py": "x\n",
        "vendor/pkg/mod.py": "x\n",
        "vendor/keep/kept.py": "x\n",
        ".git/HEAD": "ref: refs/heads/main\n",
        ".git/config": "[core]\n",
        "docs/guide.md": "guide\n",
    }
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    os.link(root / ".env", root / "src/notes.txt")  # a secret's hard link: as opaque as the secret
    os.link(root / "build/out.js", root / "docs/out-link.js")  # a plain multi-linked file
    os.symlink("src/app.py", root / "link_app.py")
    os.symlink(".env", root / "link_env")
    os.symlink("src", root / "link_dir")
    os.symlink("build/out.js", root / "link_built.js")
    os.symlink("/etc/hostname", root / "link_out.py")
    os.symlink("nowhere", root / "dangling.py")
    os.symlink("loop.py", root / "loop.py")
    os.symlink("../../src/app.py", root / "build/deep/back.py")
    name = os.fsencode(str(root / "src")) + b"/caf\xe9.py"
    with open(name, "wb") as f:
        f.write(b"x\n")
    os.mkfifo(root / "src/pipe.py")
    os.makedirs(os.fsencode(str(root)) + b"/d\xe9/sub")
    with open(os.fsencode(str(root)) + b"/d\xe9/sub/x\xff.py", "wb") as f:
        f.write(b"x\n")
    return root


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    return _tree(tmp_path / "proj")


def _both(root: Path, pattern: str, path: str, limit: int, *, renderer: str | None = None,
          git_only: bool = False) -> tuple[Any, Any]:
    policy = load_config(str(root))
    if git_only:
        policy = policy.git_only()
    core = GateCore(str(root), policy=policy)
    now = glob_cli.render_glob_now(core, pattern, path, limit, model=None, renderer=renderer)

    async def on_loop() -> Any:
        rt = Runtime(str(root), policy=policy)
        return await rt.call("glob", {"pattern": pattern, "path": path, "limit": limit}, renderer=renderer)

    return now, anyio.run(on_loop)


@pytest.mark.parametrize("pattern", PATTERNS)
def test_same_answer_as_the_tool_for_every_start(tree: Path, pattern: str) -> None:
    for path in PATHS:
        now, tool = _both(tree, pattern, path, 0)
        assert now == tool, (pattern, path)


@pytest.mark.parametrize("renderer", ["verbose", "sentinel", "structured"])
@pytest.mark.parametrize("limit", [0, 1, 3])
def test_same_answer_under_each_renderer_and_limit(tree: Path, renderer: str, limit: int) -> None:
    for pattern in ("**", "**/*.py", "**/*.js", "build/**"):
        for git_only in (False, True):
            now, tool = _both(tree, pattern, ".", limit, renderer=renderer, git_only=git_only)
            assert now == tool, (pattern, git_only)


def test_the_answer_holds_what_matters(tree: Path) -> None:
    """Not two equal wrong answers: secrets, aliases, loops and outsiders are absent."""
    now, _ = _both(tree, "**", ".", 0, renderer="structured")
    matches = set(now["matches"])
    assert {"src/app.py", "keep.log", "README.md", "link_app.py"} <= matches
    assert not matches & {".env", "src/notes.txt", "link_env", "state.tfstate", "src/config/.env.local",
                          "link_out.py", "debug.log", "build/out.js", ".git/HEAD",
                          "vendor/keep/kept.py"}  # `vendor/**` still matches it: git ignores it
    assert any("src/caf" in m for m in matches)  # the non-UTF-8 name, spelled for JSON
    counted = {o["gate"]: o["count"] for o in now["omitted"]}
    assert counted["ignore"] >= 4  # debug.log, build/* (not build/deep/.env), vendor/pkg/mod.py, gen


def test_strict_hard_links_same_answer(tmp_path: Path) -> None:
    root = _tree(tmp_path / "strict", strict=True)
    for pattern in ("**", "docs/*", "**/*.txt"):
        for path in (".", "docs", "src/notes.txt"):
            now, tool = _both(root, pattern, path, 0)
            assert now == tool, (pattern, path)
    now, _ = _both(root, "docs/*", ".", 0, renderer="structured")
    assert now["matches"] == ["docs/guide.md"]  # the multi-linked out-link.js is refused


def test_budgets_same_answer(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A walk stopped by its budget, an excluded directory counted short: the same cut."""
    for walk, count in ((3, 2), (7, 1), (12, 0)):
        for mod in (glob_cli, _discover):
            monkeypatch.setattr(mod, "WALK_BUDGET", walk)
            monkeypatch.setattr(mod, "COUNT_BUDGET", count)
        for pattern in ("**", "**/*.js", "**/*.py"):
            now, tool = _both(tree, pattern, ".", 0, renderer="structured")
            assert now == tool, (walk, count, pattern)
            assert now["walk_stopped_early"] or pattern != "**"


def test_constants_are_the_tools() -> None:
    for name in ("WALK_BUDGET", "COUNT_BUDGET", "CHUNK", "MAX_UNSEARCHED", "MAX_EXAMPLES"):
        assert getattr(glob_cli, name) == getattr(_discover, name), name


def test_live_index_needs_the_runtime(tree: Path) -> None:
    policy = msgspec.structs.replace(load_config(str(tree)), live_index=True)
    with pytest.raises(NeedsEventLoop):
        glob_cli.glob_now(GateCore(str(tree), policy=policy), "**", ".", 0)


def test_live_index_from_the_host_config_same_bytes(tree: Path, tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    host = tmp_path / "host.toml"
    host.write_text("live_index = true\n")
    live = _cli(capsys, ["glob", "--root", str(tree), "--config", str(host), "**/*.py"])
    assert live == _cli(capsys, ["glob", "--root", str(tree), "**/*.py"])


# -- the command: both routes, byte for byte ------------------------------------------------------

def _cli(capsys: pytest.CaptureFixture[str], argv: list[str]) -> tuple[int, str, str]:
    code = cli.main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def _loop_only(*args: Any, **kw: Any) -> Any:
    raise NeedsEventLoop("forced: the tool on a runtime")


@pytest.mark.parametrize("argv", [
    ["**"], ["**/*.py", "--json"], ["*", "--path", "src"], ["**", "--limit", "2"], ["build/**"],
    ["**", "--path", ".env"], ["**", "--path", "missing"], ["**", "--renderer", "structured"],
    ["**", "--renderer", "sentinel", "--json"], ["**", "--git-only"], ["**/*.js", "--model", "gpt-4o-mini"],
    ["x[", "--json"], ["**", "--limit", "-1"], ["**", "--renderer", "nonesuch"], ["**", "--path", "src/app.py"],
])
def test_command_bytes_equal_on_both_routes(tree: Path, capsys: pytest.CaptureFixture[str],
                                           monkeypatch: pytest.MonkeyPatch, argv: list[str]) -> None:
    full = ["glob", "--root", str(tree), *argv]
    now = _cli(capsys, full)
    with monkeypatch.context() as m:
        m.setattr(glob_cli, "render_glob_now", _loop_only)
        tool = _cli(capsys, full)
    assert now == tool


def test_command_runs_no_event_loop_on_a_plain_tree(tree: Path, capsys: pytest.CaptureFixture[str],
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    def no_loop(*args: Any) -> Any:
        raise AssertionError("the event loop route ran")

    monkeypatch.setattr(cli, "_run_async", no_loop)
    code, out, _ = _cli(capsys, ["glob", "--root", str(tree), "**/*.py"])
    assert code == 0 and "src/app.py" in out.split("\n")

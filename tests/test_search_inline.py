"""``pathgate search`` runs the code_search tool's own code on a bare ``GateCore`` (its
blocking steps — compilation, walk, count, scan — in the calling thread, driven by
``run_now``: no event loop) and answers exactly what the tool answers through ``rt.call``
on a ``Runtime``: both drivers of the one ``Discovery`` and ``Scanner`` on the same trees
(secrets and their hard links, ignored and re-included files, excluded directories holding
matches, symlinks, non-UTF-8 names, git internals, budgets cut small, generated trees),
compared as rendered data and as the command's bytes and exit status; and the command
imports neither asyncio nor anyio nor the tool chain."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest

import pathgate.cli as cli
from pathgate import Runtime
from pathgate._cli_inline import run_inline
from pathgate.config import load_config
from pathgate.runtime._gating import GateCore, NeedsEventLoop
from pathgate.runtime.tools import _discover

from .test_glob_inline import NEVER, SRC, _tree

#: What the tree's files hold, so each regex below meets kept files, excluded ones,
#: secrets (never opened) and secrets' hard links.
NEEDLES = ("x", "print", "KEY", "K=", "kept", "guide", "hi", r"^\w+", "(?i)GUIDE", r"\d", "nomatch",
           "x|print", r"\bx\b")
STARTS = (".", "src", "build", "vendor", ".env", "src/app.py", "missing", "link_dir", "src/notes.txt", "..",
          ".git", "./src/../src", os.fsdecode(b"d\xe9"), '"d\\351"')
GLOBS = (None, "**/*.py", "*.md", "**/*.js", "**/.env*", "src/**", "**/*.log")


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = _tree(tmp_path / "proj")
    (root / "src/app.py").write_text("print(1)\nx = 2\n\x0cform feed x\nKEY\n")
    return root


@pytest.fixture(scope="module")
def shared_tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``tree`` built once for the read-only matrices (each case only searches it)."""
    root = _tree(tmp_path_factory.mktemp("search-inline") / "proj")
    (root / "src/app.py").write_text("print(1)\nx = 2\n\x0cform feed x\nKEY\n")
    return root


def _both(root: Path, args: dict[str, Any], *, renderer: str | None = None, git_only: bool = False,
          model: str | None = None) -> tuple[Any, Any]:
    """The command's inline answer on a ``GateCore``, and ``rt.call("code_search")`` on a ``Runtime``."""
    policy = load_config(str(root))
    if git_only:
        policy = policy.git_only()
    now = run_inline(lambda: GateCore(str(root), policy=policy), "code_search", args, renderer=renderer,
                     model=model)

    async def on_loop() -> Any:
        rt = Runtime(str(root), policy=policy)
        return await rt.call("code_search", args, renderer=renderer, model=model)

    return now, anyio.run(on_loop)


@pytest.mark.parametrize("regex", NEEDLES)
def test_same_answer_as_the_tool_for_every_start(shared_tree: Path, regex: str) -> None:
    for path in STARTS:
        now, tool = _both(shared_tree, {"regex": regex, "path": path, "max_results": 0}, renderer="structured")
        assert now == tool, (regex, path)


@pytest.mark.parametrize("glob", GLOBS)
@pytest.mark.parametrize("renderer", ["verbose", "sentinel", "structured"])
def test_same_answer_under_each_glob_renderer_and_limit(shared_tree: Path, glob: str | None, renderer: str) -> None:
    for limit in (None, 0, 1, 3):
        for git_only in (False, True):
            args: dict[str, Any] = {"regex": "x|K", "context": 1, "case_sensitive": False}
            if glob is not None:
                args["glob"] = glob
            if limit is not None:
                args["max_results"] = limit
            now, tool = _both(shared_tree, args, renderer=renderer, git_only=git_only)
            assert now == tool, (glob, limit, git_only)


def test_strict_hard_links_and_small_budgets(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    strict = _tree(tree.parent / "strict", strict=True)
    for root in (tree, strict):
        now, tool = _both(root, {"regex": "x", "max_results": 0}, renderer="structured")
        assert now == tool
    monkeypatch.setattr(_discover, "WALK_BUDGET", 5)
    monkeypatch.setattr(_discover, "COUNT_BUDGET", 2)
    for root in (tree, strict):
        now, tool = _both(root, {"regex": "x", "max_results": 0}, renderer="structured")
        assert now == tool
        assert now["walk_stopped_early"] is True


def test_errors_are_left_to_the_tool_chain(tree: Path) -> None:
    """Arguments the chain rejects or words (an unsupported construct, a bad glob, out of
    range numbers) raise NeedsEventLoop: the command falls back to ``rt.call``."""
    core = lambda: GateCore(str(tree))  # noqa: E731
    for args in ({"regex": ""}, {"regex": "(a)\\1"}, {"regex": "x", "glob": "a\0b"},
                 {"regex": "x", "context": 51}, {"regex": "x", "max_results": -1}, {"regex": "x", "context": True},
                 {"regex": "x", "max_results": True}, {"regex": "x", "path": ["a"]}):
        with pytest.raises(NeedsEventLoop):
            run_inline(core, "code_search", args)
    with pytest.raises(NeedsEventLoop):
        run_inline(core, "list_directory", {"path": "."})


def test_generated_trees(tmp_path: Path) -> None:
    rng = random.Random(14)
    for n in range(8):
        root = tmp_path / f"gen{n}"
        root.mkdir()
        (root / ".git").mkdir()
        dirs = [""]
        for i in range(rng.randint(3, 12)):
            d = "/".join(p for p in (rng.choice(dirs), rng.choice(["a", "b", "node_modules", "build", ".env.d",
                                                                 f"d{i}"])) if p)
            (root / d).mkdir(parents=True, exist_ok=True)
            dirs.append(d)
        for i in range(rng.randint(5, 30)):
            d = rng.choice(dirs)
            name = rng.choice(["f.py", "g.txt", ".env", "id_rsa", "x.log", "keep.log", f"n{i}.js", ".npmrc"])
            (root / d / name).write_text(rng.choice(["x\n", "needle x\n", "no\n", "KEY=needle\n"]) * rng.randint(1, 3))
        for d in rng.sample(dirs, k=min(3, len(dirs))):
            lines = rng.sample(["*.log", "!keep.log", "build/", "node_modules", "/a", "b/**", "!b/keep/"], k=3)
            (root / d / ".gitignore").write_text("\n".join(lines) + "\n")
        files = [p for p in root.rglob("*") if p.is_file() and ".git" not in p.parts]
        if files and rng.random() < 0.5:
            os.link(rng.choice(files), root / "alias.txt")
        for regex in ("needle", "x", "^no$"):
            now, tool = _both(root, {"regex": regex, "max_results": 0, "context": rng.randint(0, 2)},
                              renderer="structured")
            assert now == tool, (n, regex)


# -- the command: both routes, byte for byte ------------------------------------------------------

def _cli(capsys: pytest.CaptureFixture[str], argv: list[str]) -> tuple[int, str, str]:
    code = cli.main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def _loop_only(*args: Any, **kw: Any) -> Any:
    raise NeedsEventLoop("forced: the tool on a runtime")


@pytest.mark.parametrize("argv", [
    ["x"], ["x", "--json"], ["x", "--path", "src"], ["x", "--limit", "1"], ["x", "--glob", "**/*.py"],
    ["KEY", "--path", ".env"], ["x", "--path", "missing"], ["x", "--renderer", "structured"],
    ["x", "--renderer", "sentinel", "--json"], ["x", "--git-only"], ["print", "--model", "gpt-4o-mini"],
    ["x", "--context", "2"], ["X", "-i"], ["(a)\\1"], ["", "--json"], ["x", "--limit", "-1"],
    ["x", "--context", "99"], ["x", "--renderer", "nonesuch"], ["x", "--glob", "a["], ["x", "--path", "src/app.py"],
    ["x", "--path", "link_out.py"], ["nomatch"],
])
def test_command_bytes_equal_on_both_routes(shared_tree: Path, capsys: pytest.CaptureFixture[str],
                                           monkeypatch: pytest.MonkeyPatch, argv: list[str]) -> None:
    full = ["search", "--root", str(shared_tree), *argv]
    now = _cli(capsys, full)
    with monkeypatch.context() as m:
        m.setattr(cli, "_inline", _loop_only)
        tool = _cli(capsys, full)
    assert now == tool


def test_live_index_from_the_host_config_same_bytes(tree: Path, tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str],
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """A host config asking for the live index: the one-shot command walks (a bare core keeps
    no index), and says what the tool on a live-indexed runtime says."""
    host = tmp_path / "host.toml"
    host.write_text("live_index = true\n")
    for argv in (["x"], ["x", "--json"], ["x", "--glob", "build/**", "--json"]):
        live = _cli(capsys, ["search", "--root", str(tree), "--config", str(host), *argv])
        with monkeypatch.context() as m:
            m.setattr(cli, "_inline", _loop_only)
            assert live == _cli(capsys, ["search", "--root", str(tree), "--config", str(host), *argv])


def test_command_runs_no_event_loop_on_a_plain_tree(tree: Path, capsys: pytest.CaptureFixture[str],
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    def no_loop(*args: Any) -> Any:
        raise AssertionError("the event loop route ran")

    monkeypatch.setattr(cli, "_run_async", no_loop)
    code, out, _ = _cli(capsys, ["search", "--root", str(tree), "print"])
    assert code == 0 and "src/app.py:1:print(1)" in out.split("\n")
    code, out, _ = _cli(capsys, ["search", "--root", str(tree), "x", "--path", "missing"])
    assert (code, out) == (1, "")


def test_search_imports_no_event_loop(tree: Path, tmp_path: Path) -> None:
    report = tmp_path / "modules.json"
    probe = ("import atexit, json, os, sys\n"
             "atexit.register(lambda: open(os.environ['OUT'], 'w').write(json.dumps(sorted(sys.modules))))\n"
             "sys.argv = ['pathgate', *sys.argv[1:]]\nfrom pathgate.cli import console\nconsole()\n")
    env = {**os.environ, "PYTHONPATH": SRC, "OUT": str(report)}
    proc = subprocess.run([sys.executable, "-c", probe, "search", "print"], capture_output=True, env=env,
                          cwd=tree, timeout=60, check=False)
    assert proc.returncode == 0 and b"src/app.py:1:print(1)" in proc.stdout
    modules = json.loads(report.read_text())
    allowed = {"re2", "pathgate.runtime.tools._regex", "pathgate.runtime.tools.code_search"}  # search's own
    never = [n for n in NEVER if n not in allowed]
    assert [n for n in never if any(m == n or m.startswith(n + ".") for m in modules)] == []
    assert "pathgate.runtime.tools.code_search" in modules  # the tool's own code, not a copy


def test_few_collections_while_the_tool_walks(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The walk runs with rare collections (its objects are kept or acyclic); the caller's
    thresholds come back afterwards, also when the tool fails."""
    import gc

    seen: list[tuple[int, int, int]] = []
    real = _discover.Discovery._step

    def step(self: Any, *a: Any) -> Any:
        seen.append(gc.get_threshold())
        return real(self, *a)

    monkeypatch.setattr(_discover.Discovery, "_step", step)
    before = gc.get_threshold()
    run_inline(lambda: GateCore(str(tree)), "code_search", {"regex": "x"})
    assert seen and all(t[0] >= 50_000 for t in seen)
    assert gc.get_threshold() == before
    with pytest.raises(NeedsEventLoop):
        run_inline(lambda: GateCore(str(tree)), "code_search", {"regex": "(a)\\1"})
    assert gc.get_threshold() == before

"""A runtime rooted below the top of its work tree: what the agent sees of the sources above.

git's answers themselves are checked in ``tests/oracle/test_upper_runtime.py``; here: edits
above the root are noticed on the next call (with and without the live index), an excluded
ancestor is explained without a remedy, a rule above the root gets a remedy in the root's
own agent file, secrets above the root stay opaque, and roots at the top or outside any
repository are unchanged.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import anyio
import pytest

from pathgate import Runtime
from pathgate.runtime.ignore import IgnoreConfig, IgnoreIndex
from tests._gitinit import git_init


@pytest.fixture(autouse=True)
def _isolated(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for k in [k for k in os.environ if k.startswith("GIT_")]:
        monkeypatch.delenv(k)
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", "/dev/null")
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)


def _repo(tmp_path: Path, files: dict[str, str], root: str = "pkg/app") -> Path:
    top = tmp_path / "top"
    git_init(top)
    for rel, text in files.items():
        p = top / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    (top / root).mkdir(parents=True, exist_ok=True)
    return top / root


def _read(rt: Runtime, *paths: str, renderer: str = "verbose") -> dict[str, str]:
    async def go() -> dict[str, str]:
        out = await rt.call("read_files", {"paths": list(paths)}, model=None, renderer=renderer)
        return dict(out) if isinstance(out, dict) else {"": str(out)}

    return anyio.run(go)


def _glob(rt: Runtime, pattern: str = "**") -> tuple[str, ...]:
    async def go() -> tuple[str, ...]:
        return (await rt.glob(pattern, limit=0)).matches

    return anyio.run(go)


def test_an_edit_above_the_root_is_noticed_by_the_next_call(tmp_path: Path) -> None:
    root = _repo(tmp_path, {"pkg/app/a.txt": "a\n", "pkg/app/b.md": "b\n"})
    top = root.parent.parent
    rt = Runtime(root)
    assert _read(rt, "a.txt")["a.txt"] == "a\n"
    (top / ".gitignore").write_text("*.txt\n")
    got = _read(rt, "a.txt")["a.txt"]
    assert got.startswith("[BLOCKED]: Excluded by ignore rules: `../../.gitignore:1:*.txt` matches it.")
    (top / "pkg" / ".gitignore").write_text("!a.txt\n")  # a deeper file above the root wins
    assert _read(rt, "a.txt")["a.txt"] == "a\n"
    (top / "pkg" / ".gitignore").unlink()
    (top / ".gitignore").write_text("")
    assert _read(rt, "a.txt")["a.txt"] == "a\n"


def test_the_live_index_notices_an_edit_above_the_root(tmp_path: Path) -> None:
    root = _repo(tmp_path, {"pkg/app/a.txt": "a\n", "pkg/app/d/b.md": "b\n"})
    top = root.parent.parent

    async def go() -> list[tuple[str, ...]]:
        async with Runtime(root, live_index=True) as rt:
            seen = [(await rt.glob("**", limit=0)).matches]
            (top / ".gitignore").write_text("pkg/app/d/\n")
            seen.append((await rt.glob("**", limit=0)).matches)
            (top / ".gitignore").write_text("app/\n")  # a basename line: the root itself
            seen.append((await rt.glob("**", limit=0)).matches)
            (top / ".gitignore").unlink()
            seen.append((await rt.glob("**", limit=0)).matches)
            return seen

    assert anyio.run(go) == [("a.txt", "d/b.md"), ("a.txt",), (), ("a.txt", "d/b.md")]


def test_an_excluded_ancestor_is_explained_and_the_agent_asks_the_user(tmp_path: Path) -> None:
    root = _repo(tmp_path, {"pkg/.gitignore": "# apps\napp/\n", "pkg/app/src/a.py": "x\n"})
    rt = Runtime(root)
    text = _read(rt, "src/a.py")["src/a.py"]
    assert text.startswith("[BLOCKED]: Excluded by ignore rules: its directory `./` matches `../.gitignore:2:app/`.")
    assert "ask the user" in text and "To unblock" not in text

    async def raw() -> object:
        return (await rt.read_files(["src/a.py"]))[0].verdict

    verdict = anyio.run(raw)
    assert verdict is not None and verdict.remedy is None and verdict.ancestor == "."
    assert _glob(rt) == ()
    # an ancestor further up is named the same way
    root2 = _repo(tmp_path / "two", {".gitignore": "pkg/\n", "pkg/app/src/a.py": "x\n"})
    m = IgnoreIndex(root2).match("src/a.py")
    assert m.ignored and m.ancestor == ".." and m.rule is not None and m.rule.source == "../../.gitignore"


def test_a_rule_above_the_root_is_unblocked_from_the_roots_agent_file(tmp_path: Path) -> None:
    root = _repo(tmp_path, {".gitignore": "*.log\npkg/app/build/\n", "pkg/app/x.log": "l\n",
                            "pkg/app/build/out.js": "o\n"})
    rt = Runtime(root)
    got = _read(rt, "x.log", "build/out.js")
    assert "`../../.gitignore:1:*.log`" in got["x.log"]
    assert "add these lines to `.pathgateignore`:\n!/x.log" in got["x.log"]
    assert "add these lines to `.pathgateignore`:\n!/build/\n/build/*\n!/build/out.js" in got["build/out.js"]
    (root / ".pathgateignore").write_text("!/x.log\n!/build/\n/build/*\n!/build/out.js\n")
    assert _read(rt, "x.log", "build/out.js") == {"x.log": "l\n", "build/out.js": "o\n"}


def _outputs(root: Path) -> list[object]:
    rt = Runtime(root)
    return [_read(rt, "a.txt", "b.md"), _glob(rt),
            [(s.source, s.state) for s in rt.index.session().source_infos("a.txt")]]


@pytest.mark.parametrize("how", ["excludes-file", "info-exclude-link", "gitignore-link", "gitignore-hardlink"])
def test_a_secret_above_the_root_is_never_referenced(tmp_path: Path, how: str) -> None:
    def build(base: Path, with_secret: bool) -> Path:
        root = _repo(base, {"pkg/app/a.txt": "a\n", "pkg/app/b.md": "b\n"})
        top = root.parent.parent
        secret = top / ".env"
        if how == "gitignore-hardlink":
            secret = root / ".env"
        if with_secret:
            secret.write_text("*.txt\nAPI_KEY=s3cr3t\n")
        if how == "excludes-file":
            subprocess.run(["git", "-C", str(top), "config", "core.excludesFile", str(secret)], check=True)
        elif how == "info-exclude-link":
            info = top / ".git" / "info" / "exclude"
            info.unlink(missing_ok=True)
            info.symlink_to(secret)
        elif how == "gitignore-link":
            (top / "pkg" / ".gitignore").symlink_to(secret)
        elif with_secret:
            os.link(secret, top / "pkg" / ".gitignore")
        return root

    with_it = _outputs(build(tmp_path / "with", True))
    without = _outputs(build(tmp_path / "without", False))
    assert with_it == without
    assert "s3cr3t" not in repr(with_it) and ".env" not in repr(with_it)


def test_a_nested_repository_root_is_its_own_top(tmp_path: Path) -> None:
    root = _repo(tmp_path, {".gitignore": "*.txt\n", "pkg/app/a.txt": "a\n"})
    git_init(root)
    assert not IgnoreIndex(root).match("a.txt").ignored
    proc = subprocess.run(["git", "check-ignore", "-q", "a.txt"], cwd=root, check=False)
    assert proc.returncode == 1  # git agrees


def test_outside_any_repository_nothing_above_is_read(tmp_path: Path) -> None:
    (tmp_path / "p" / "q").mkdir(parents=True)
    (tmp_path / "p" / ".gitignore").write_text("*.txt\n")
    (tmp_path / "p" / "q" / "a.txt").write_text("a\n")
    assert not IgnoreIndex(tmp_path / "p" / "q").match("a.txt").ignored


def test_check_ignore_root_option_still_names_the_top(tmp_path: Path) -> None:
    index = IgnoreIndex(_repo(tmp_path, {".gitignore": "*.txt\n"}), IgnoreConfig.git_only())
    index.find_top = False
    assert not index.match("a.txt").ignored


def test_a_broken_gitfile_above_the_root_fails_closed_until_fixed(tmp_path: Path) -> None:
    (tmp_path / "top" / "pkg" / "app").mkdir(parents=True)
    (tmp_path / "top" / ".git").write_text("garbage\n")
    (tmp_path / "top" / "pkg" / "app" / "a.txt").write_text("a\n")
    index = IgnoreIndex(tmp_path / "top" / "pkg" / "app")
    m = index.match("a.txt")
    assert m.ignored and m.fail_closed
    (tmp_path / "top" / ".git").unlink()
    assert not index.match("a.txt").ignored


def test_a_line_above_the_root_that_is_not_translated_fails_closed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                   caplog: pytest.LogCaptureFixture) -> None:
    from pathgate.runtime.ignore import _upper

    root = _repo(tmp_path, {".gitignore": "pk**/x\n", "pkg/app/a.txt": "a\n"})
    assert _upper.derive("pk**/x", ("pkg", "app"), False) == ["/**/x"]
    monkeypatch.setattr(_upper, "derive", lambda *_a: None)  # (no line shape is left out today)
    m = IgnoreIndex(root).match("a.txt")
    assert m.ignored and m.fail_closed and m.unreadable == "../../.gitignore"
    assert "cannot be applied below the top" in caplog.text


def test_a_hook_rooted_below_the_top_denies_what_git_ignores_there(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    from pathgate._hooks._run import run_hook

    root = _repo(tmp_path, {".gitignore": "pkg/app/dist/\n", "pkg/app/dist/x.js": "x\n", "pkg/app/a.py": "a\n"})
    for var in ("CLAUDE_PROJECT_DIR", "GEMINI_PROJECT_DIR"):
        monkeypatch.delenv(var, raising=False)

    def ask(path: str) -> str:
        payload = {"cwd": str(root), "tool_name": "Read", "tool_input": {"file_path": path}}
        return run_hook("claude-code", json.dumps(payload).encode(), root=str(root)).stdout

    denied = json.loads(ask("dist/x.js"))["hookSpecificOutput"]
    assert denied["permissionDecision"] == "deny"
    assert "`../../.gitignore:1:pkg/app/dist/`" in denied["permissionDecisionReason"]
    assert "deny" not in ask("a.py")


def test_a_git_init_above_the_root_is_noticed(tmp_path: Path) -> None:
    (tmp_path / "top" / "pkg").mkdir(parents=True)
    (tmp_path / "top" / ".gitignore").write_text("*.txt\n")
    (tmp_path / "top" / "pkg" / "a.txt").write_text("a\n")
    index = IgnoreIndex(tmp_path / "top" / "pkg")
    assert not index.match("a.txt").ignored
    git_init(tmp_path / "top")
    m = index.match("a.txt")
    assert m.ignored and m.rule is not None and m.rule.source == "../.gitignore"


def test_a_git_init_in_the_root_makes_it_a_top(tmp_path: Path) -> None:
    root = _repo(tmp_path, {".gitignore": "*.txt\n", "pkg/app/a.txt": "a\n"})
    index = IgnoreIndex(root)
    assert index.match("a.txt").ignored
    git_init(root)
    assert not index.match("a.txt").ignored


@pytest.mark.parametrize(("name", "fold"), [("café", False), ("プロジェクト", False), ("プロジェクト", True),
                                            ("café", True)])
def test_repository_wide_sources_above_a_non_ascii_root(tmp_path: Path, name: str, fold: bool) -> None:
    """Red team 7, F4: ``info/exclude`` (and the excludes file) were translated with the
    root's path as text, not as the latin-1 views the lines are: an anchored line naming a
    non-ASCII root's path was dropped (a file git ignores was served), and with
    ``core.ignoreCase`` a character outside latin-1 raised on every call."""
    top = tmp_path / "top"
    git_init(top)
    if fold:
        subprocess.run(["git", "-C", str(top), "config", "core.ignoreCase", "true"], check=True)
    root = top / name / "app"
    (root / "private").mkdir(parents=True)
    (root / "a.txt").write_text("x\n")
    (root / "private/notes.txt").write_text("TOKEN=abc\n")
    with open(top / ".git/info/exclude", "a") as f:
        f.write(f"/{name}/app/private/\n")
    git = subprocess.run(["git", "check-ignore", "-q", "private/notes.txt"], cwd=root).returncode == 0
    assert git
    res = anyio.run(Runtime(root).glob, "**/*")
    assert "private/notes.txt" not in res.matches and "a.txt" in res.matches

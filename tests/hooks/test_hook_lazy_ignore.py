"""``pathgate hook`` under a repository's huge ignore files (red team 16 G7).

A hook run judges a few paths and exits; its ignore files past ``LAZY_MIN_BYTES`` are read as
lazy lists (``runtime/ignore/_lazy.py``) that compile only the lines those paths can match.
Every payload below -- Claude Code, Gemini CLI and Cursor tools reading, listing, searching,
globbing and writing allowed, ignored, re-included, secret and excluded-directory paths -- must
get exactly the answer (stdout, stderr, exit code) of the whole compile, and the hook must
compile a small part of the lines only.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pathgate._hooks._run import run_hook
from pathgate.runtime.ignore import _lazy, _rules
from tests._gitinit import git_init


def _filler(n: int, tag: str) -> str:
    return "".join(f"gen/**/{tag}{i}*/*.tmp{i % 97}\n" for i in range(n))


@pytest.fixture(params=["remedy", "huge"])
def project(request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``remedy``: a 3,000-rule root file (verified unblock lines are searched); ``huge``:
    12,000-rule files at the root, in ``src/`` and in ``info/exclude`` (past the remedy bound)."""
    root = tmp_path / "proj"
    n = 3000 if request.param == "remedy" else 12000
    tail = "build/\n*.log\n!keep.log\nsrc/**/gen_*.py\n!/gen/q/\n/secret-ish\n\\#lit\n"
    files = {
        ".gitignore": _filler(n, "cache") + tail,
        ".env": "SECRET=topsecret-value\n",
        "debug.log": "log\n", "keep.log": "k\n", "#lit": "l\n", "secret-ish": "s\n",
        "build/out.js": "built\n", "src/app.py": "print('hello')\n", "src/gen_x.py": "g\n",
        "src/deep/gen_y.py": "g\n", "gen/q/cache12z/y.tmp12": "t\n", "gen/r/cache12z/y.tmp12": "t\n",
        "node_modules/x/index.js": "x\n",
    }
    if request.param == "huge":
        files["src/.gitignore"] = _filler(n, "s") + "!gen_x.py\nlocal/\n"
        files["src/local/f.py"] = "f\n"
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    git_init(root)
    if request.param == "huge":
        (root / ".git/info/exclude").write_text(_filler(n, "e") + "*.bak\n")
        (root / "x.bak").write_text("b\n")
    assert len(files[".gitignore"]) >= _rules.LAZY_MIN_BYTES
    for var in ("CLAUDE_PROJECT_DIR", "GEMINI_PROJECT_DIR"):
        monkeypatch.delenv(var, raising=False)
    return root


def _claude(root: Path, tool: str, **tool_input: Any) -> tuple[str, bytes]:
    return "claude-code", json.dumps({"cwd": str(root), "hook_event_name": "PreToolUse", "tool_name": tool,
                                      "tool_input": tool_input}).encode()


def _gemini(root: Path, tool: str, **tool_input: Any) -> tuple[str, bytes]:
    return "gemini", json.dumps({"cwd": str(root), "hook_event_name": "BeforeTool", "tool_name": tool,
                                 "tool_input": tool_input}).encode()


def _cursor(root: Path, event: str, **fields: Any) -> tuple[str, bytes]:
    return "cursor", json.dumps({"hook_event_name": event, "workspace_roots": [str(root)], **fields}).encode()


def _payloads(root: Path) -> list[tuple[str, bytes]]:
    r = str(root)
    reads = ["src/app.py", "debug.log", "keep.log", "build/out.js", "gen/q/cache12z/y.tmp12",
             "gen/r/cache12z/y.tmp12", "src/gen_x.py", "src/deep/gen_y.py", ".env", "#lit", "secret-ish",
             "src/local/f.py", "x.bak", "node_modules/x/index.js", "missing/file.txt", "build"]
    out = [_claude(root, "Read", file_path=f"{r}/{p}") for p in reads]
    out += [
        _claude(root, "Glob", pattern="**/*.py"), _claude(root, "Glob", pattern="*.log", path=f"{r}/build"),
        _claude(root, "Glob", pattern="gen/**/*.tmp12"), _claude(root, "Grep", pattern="x", path=f"{r}/build"),
        _claude(root, "Grep", pattern="x", glob="*.log"), _claude(root, "Grep", pattern="x", path=f"{r}/src"),
        _claude(root, "LS", path=f"{r}/src"), _claude(root, "LS", path=f"{r}/gen/q"),
        _claude(root, "Write", file_path=f"{r}/src/new.py", content="x"),
        _claude(root, "Write", file_path=f"{r}/build/new.js", content="x"),
        _claude(root, "Edit", file_path=f"{r}/debug.log", old_string="log", new_string="x"),
        _claude(root, "Edit", file_path=f"{r}/src/app.py", old_string="hello", new_string="bye"),
        _claude(root, "Bash", command="cat build/out.js debug.log src/app.py"),
        _gemini(root, "read_file", file_path="debug.log"), _gemini(root, "read_file", absolute_path=f"{r}/keep.log"),
        _gemini(root, "read_many_files", paths=["src/app.py", "debug.log", "gen/q/cache12z/y.tmp12", ".env"]),
        _gemini(root, "glob", pattern="src/**/*.py"),
        _gemini(root, "search_file_content", pattern="x", dir_path="build"),
        _gemini(root, "list_directory", dir_path="gen"), _gemini(root, "write_file", file_path="src/w.py", content="x"),
        _cursor(root, "beforeReadFile", file_path=f"{r}/debug.log", content=""),
        _cursor(root, "beforeReadFile", file_path=f"{r}/src/app.py", content=""),
        _cursor(root, "preToolUse", tool_name="Grep", tool_input={"pattern": "x", "path": f"{r}/build"}),
    ]
    return out


def test_hook_answers_equal_the_whole_compile(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    made: list[_lazy.LazyIgnoreList] = []
    init = _lazy.LazyIgnoreList.__init__

    def record(self: _lazy.LazyIgnoreList, *args: Any, **kwargs: Any) -> None:
        init(self, *args, **kwargs)
        made.append(self)

    monkeypatch.setattr(_lazy.LazyIgnoreList, "__init__", record)
    payloads = _payloads(project)
    lazy = [run_hook(agent, data, root=str(project)) for agent, data in payloads]
    assert made, "the hook read its big ignore files as lazy lists"
    for lst in made:  # a few lines compiled, never the whole list
        assert lst._full is None
        assert len(lst._pats) < len(lst) // 20
    made.clear()
    monkeypatch.setattr(_rules, "LAZY_MIN_BYTES", 1 << 40)
    whole = [run_hook(agent, data, root=str(project)) for agent, data in payloads]
    assert not made
    for (agent, data), a, b in zip(payloads, lazy, whole, strict=True):
        assert (a.stdout, a.stderr, a.exit_code) == (b.stdout, b.stderr, b.exit_code), (agent, data)
    texts = [a.stdout for a in lazy]
    assert sum("Excluded by ignore rules" in t for t in texts) >= 8  # the cases are not all allows
    assert sum(t.strip() in ("", "{}", '{"permission": "allow"}') for t in texts) >= 6

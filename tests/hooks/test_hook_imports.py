"""What a ``pathgate hook`` process imports: it runs on every tool call of the agent, so it
decides without an event loop and without the tools (a behaviour guard, not a timing).

Each case runs the real command in a fresh interpreter and lists ``sys.modules`` at exit;
the answers are checked too, so an import-free path that answered wrongly would fail."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

SRC = str(Path(__file__).resolve().parents[2] / "src")

#: Never loaded by a hook decision: the event loop, anyio, the tools, the middleware chain.
FORBIDDEN = ("asyncio", "anyio", "sniffio", "pathgate.runtime._runtime", "pathgate.runtime._chain",
             "pathgate.runtime._tracing", "pathgate.runtime.tools", "pathgate.runtime.fs._backends",
             "pathgate.mcp", "pathgate.adapters", "opentelemetry", "logging", "argparse")

_PROBE = """
import atexit, json, os, sys
out = os.environ["PATHGATE_TEST_MODULES"]
atexit.register(lambda: open(out, "w").write(json.dumps(sorted(sys.modules))))
sys.argv = ["pathgate", *sys.argv[1:]]
from pathgate.cli import main
raise SystemExit(main())
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    (root / "src").mkdir(parents=True)
    (root / "build").mkdir()
    (root / ".gitignore").write_text("build/\n*.log\n")
    (root / ".env").write_text("KEY=1\n")
    (root / "src/app.py").write_text("print(1)\n")
    (root / "build/out.js").write_text("x\n")
    return root


def _run(project: Path, tmp_path: Path, args: list[str], payload: Mapping[str, object],
         code: int = 0) -> tuple[Any, list[str]]:
    modules = tmp_path / "modules.json"
    env = {**os.environ, "PYTHONPATH": SRC, "PATHGATE_TEST_MODULES": str(modules)}
    proc = subprocess.run([sys.executable, "-c", _PROBE, *args], input=json.dumps(payload).encode(),
                          capture_output=True, env=env, cwd=project, timeout=60, check=False)
    assert proc.returncode == code, proc.stderr.decode()
    out = json.loads(proc.stdout) if proc.stdout.strip() else {}
    return out, json.loads(modules.read_text())


@pytest.fixture(scope="module")
def baseline() -> frozenset[str]:
    """What the bare interpreter has loaded here (a ``sitecustomize`` may import ``logging``)."""
    env = {**os.environ, "PYTHONPATH": SRC}
    out = subprocess.run([sys.executable, "-c", "import json, sys; print(json.dumps(sorted(sys.modules)))"],
                         capture_output=True, env=env, timeout=60, check=True).stdout
    return frozenset(json.loads(out))


def _forbidden(modules: list[str], baseline: frozenset[str], forbidden: tuple[str, ...] = FORBIDDEN) -> list[str]:
    """The forbidden modules a run loaded beyond the bare interpreter."""
    new = [m for m in modules if m not in baseline]
    return [f for f in forbidden if any(m == f or m.startswith(f + ".") for m in new)]


@pytest.mark.parametrize(("rel", "decision"), [("src/app.py", None), ("build/out.js", "deny"), (".env", "deny")])
def test_claude_hook_decides_without_event_loop_or_tools(project: Path, tmp_path: Path, baseline: frozenset[str],
                                                         rel: str, decision: str | None) -> None:
    payload = {"hook_event_name": "PreToolUse", "cwd": str(project), "tool_name": "Read",
               "tool_input": {"file_path": str(project / rel)}}
    out, modules = _run(project, tmp_path, ["hook", "claude-code"], payload)
    assert _forbidden(modules, baseline) == []
    assert "pathgate.runtime._gating" in modules  # the gates did run
    hook = out.get("hookSpecificOutput", {})
    assert isinstance(hook, dict)
    assert hook.get("permissionDecision") == decision
    if rel == ".env":
        assert hook["permissionDecisionReason"] == "[BLOCKED]"
    if rel == "build/out.js":
        assert "!/build/out.js" in hook["permissionDecisionReason"]  # the verified remedy


def test_cursor_and_gemini_hooks_import_no_event_loop(project: Path, tmp_path: Path, baseline: frozenset[str]) -> None:
    cursor = {"hook_event_name": "beforeReadFile", "file_path": str(project / ".env"), "content": "KEY=1\n",
              "workspace_roots": [str(project)]}
    out, modules = _run(project, tmp_path, ["hook", "cursor"], cursor)
    assert out.get("permission") == "deny"
    assert _forbidden(modules, baseline) == []
    gemini = {"hook_event_name": "BeforeTool", "cwd": str(project), "tool_name": "read_file",
              "tool_input": {"file_path": "build/out.js"}}
    out, modules = _run(project, tmp_path, ["hook", "gemini", "--renderer", "sentinel"], gemini)
    assert out.get("decision") == "deny" and out.get("reason") == "[BLOCKED]"
    assert _forbidden(modules, baseline) == []


def test_explain_decides_without_event_loop(project: Path, tmp_path: Path, baseline: frozenset[str]) -> None:
    out, modules = _run(project, tmp_path, ["explain", "--json", "build/out.js", ".env", "src/app.py"], {}, code=1)
    no_loop = tuple(m for m in FORBIDDEN if m not in ("logging", "argparse"))  # explain parses with argparse
    assert _forbidden(modules, baseline, no_loop) == []
    assert isinstance(out, list) and [e["allowed"] for e in out] == [False, False, True]
    assert out[1]["gate"] == "secrets" and "KEY" not in json.dumps(out)

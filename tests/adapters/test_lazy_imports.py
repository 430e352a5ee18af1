"""The integrations stay optional: the core never imports a framework or the MCP SDK."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pathgate

SRC = str(Path(pathgate.__file__).resolve().parent.parent)
FRAMEWORKS = ("mcp", "langchain", "langchain_core", "langgraph", "pydantic_ai", "agents", "openai")


def run_python(code: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": SRC}
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                          stdin=subprocess.DEVNULL, timeout=60)


def test_core_imports_no_framework() -> None:
    proc = run_python(
        "import sys, pathgate, pathgate.adapters, pathgate.cli\n"
        f"loaded = [m for m in {FRAMEWORKS!r} if m in sys.modules]\n"
        "assert not loaded, loaded\n"
    )
    assert proc.returncode == 0, proc.stderr


def test_cli_says_which_extra_is_missing(tmp_path: Path) -> None:
    proc = run_python(
        "import sys\n"
        "sys.modules['mcp'] = None  # as if the extra were not installed\n"
        "from pathgate.cli import main\n"
        f"sys.exit(main(['mcp', '--root', {str(tmp_path)!r}]))\n"
    )
    assert proc.returncode != 0
    assert "pip install 'pathgate[mcp]'" in proc.stderr

"""Claude Code plugins from a directory marketplace run their hooks in place.

``extraKnownMarketplaces`` with a ``directory`` source in ``.claude/settings.json`` (or a
``claude plugin marketplace add ./dir`` recorded in ``~/.claude/plugins/known_marketplaces.json``)
makes Claude Code run a listed plugin's ``hooks/hooks.json`` commands from the plugin's own
directory (``${CLAUDE_PLUGIN_ROOT}``). They were writable, and so was the script they name.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.hardening._write_env import git_project, writable
from tests.runtime.tools._writes import write_tree

pytestmark = pytest.mark.anyio

_HOOKS = {"hooks": {"PostToolUse": [{"matcher": "Write", "hooks": [
    {"type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/scripts/fmt.sh"}]}]}}
_MARKET = {"name": "team", "owner": {"name": "t"},
           "plugins": [{"name": "fmt", "source": "./fmt"}, {"name": "remote", "source": {"source": "github",
                                                                                          "repo": "o/r"}}]}


def _market(root: Path, at: str = "mkt") -> None:
    write_tree(root, {f"{at}/.claude-plugin/marketplace.json": json.dumps(_MARKET),
                      f"{at}/fmt/hooks/hooks.json": json.dumps(_HOOKS), f"{at}/fmt/scripts/fmt.sh": "exit 0\n",
                      f"{at}/fmt/scripts/other.sh": "exit 0\n", f"{at}/fmt/README.md": "# fmt\n",
                      f"{at}/fmt/.claude-plugin/plugin.json": '{"name": "fmt"}'})


async def _writable(root: Path, *paths: str) -> dict[str, bool]:
    return await writable(root, *paths)


_PATHS = ("mkt/.claude-plugin/marketplace.json", "mkt/fmt/hooks/hooks.json", "mkt/fmt/scripts/fmt.sh",
          "mkt/fmt/.claude-plugin/plugin.json", "mkt/fmt/skills/x/SKILL.md", "mkt/fmt/scripts/other.sh",
          "mkt/fmt/README.md", "notes.md")
_EXPECTED = {p: p in ("mkt/fmt/scripts/other.sh", "mkt/fmt/README.md", "notes.md") for p in _PATHS}


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return git_project(tmp_path, monkeypatch, {"notes.md": "# n\n"})


async def test_a_project_directory_marketplace_protects_its_plugins_hooks(anyio_backend: str, env: Path) -> None:
    _market(env)
    settings = {"extraKnownMarketplaces": {"team": {"source": {"source": "directory", "path": "./mkt"}}},
                "enabledPlugins": {"fmt@team": True}}
    write_tree(env, {".claude/settings.json": json.dumps(settings)})
    assert await _writable(env, *_PATHS) == _EXPECTED


async def test_a_marketplace_the_user_added_protects_its_plugins_hooks(anyio_backend: str, env: Path) -> None:
    _market(env)
    home = Path.home()
    known = {"team": {"source": {"source": "directory", "path": str(env / "mkt")},
                      "installLocation": str(home / ".claude/plugins/marketplaces/team")}}
    write_tree(home, {".claude/plugins/known_marketplaces.json": json.dumps(known)})
    assert await _writable(env, *_PATHS) == _EXPECTED


async def test_without_a_registered_marketplace_nothing_changes(anyio_backend: str, env: Path) -> None:
    _market(env)
    got = await _writable(env, "mkt/fmt/hooks/hooks.json", "mkt/fmt/scripts/fmt.sh")
    assert got == {"mkt/fmt/hooks/hooks.json": True, "mkt/fmt/scripts/fmt.sh": True}

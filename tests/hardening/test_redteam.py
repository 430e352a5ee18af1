"""Red-team findings after issues 12, 13, 14, 16 and 18: each a regular test of the right
behaviour, written the way the finding was made (the same calls on trees with and without
the secret)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import anyio
import pytest

from pathgate import ConfigError, Policy, Runtime
from pathgate._hooks._run import run_hook
from tests.hardening._twotrees import Call, Spec, build, render_all

SECRET_TEXT = "API_KEY=hunter2\n*.md\n"
BASE: dict[str, str | tuple[str, str]] = {
    "src/app.py": "print('MARKER app')\n",
    "docs/readme.md": "MARKER docs\n",
    ".gitignore": "build/\n",
    "build/out.js": "MARKER build\n",
}


def _outputs(root: Path, calls: list[Call], policy: Policy | None = None) -> list[str]:
    return anyio.run(render_all, root, calls, policy or Policy(), None)


def _compare(tmp: Path, extra: Spec, calls: list[Call]) -> None:
    """The same calls on the tree with ``extra`` and without give identical outputs."""
    build(tmp / "with", {**BASE, **extra})
    build(tmp / "without", dict(BASE))
    a, b = _outputs(tmp / "with", calls), _outputs(tmp / "without", calls)
    for x, y, call in zip(a, b, calls * 3, strict=True):
        assert x == y, (call, x, y)


# -- hard-link aliases of a secret ------------------------------------------------------------

def test_write_file_on_a_secret_hard_link_is_a_bare_block(tmp_path: Path) -> None:
    """Found: ``write_file settings.txt`` (sharing ``.env``'s inode) answered the non-opaque
    ``[FILE_NOT_READ]`` (gate ``write``), and with ``require_read_before_write`` off it
    replaced the alias. A secret alias is as unwritable as the secret."""
    build(tmp_path, {".env": "TOKEN=1\n", "settings.txt": ("hardlink", ".env"), "a.txt": "a\n",
                     "b.txt": "b\n", "c.txt": ("hardlink", "b.txt")})

    async def main() -> None:
        for check in (True, False):
            rt = Runtime(tmp_path, Policy(allow_writes=True, require_read_before_write=check))
            for renderer in ("sentinel", "verbose"):
                out = await rt.call("write_file", {"path": "settings.txt", "content": "x"}, renderer=renderer)
                assert out == {"settings.txt": "[BLOCKED]"}
            out = await rt.call("write_file", {"path": "settings.txt", "content": "x"}, renderer="structured")
            assert out == {"files": [{"path": "settings.txt", "status": "blocked"}]}
        # a multi-linked file that is no secret's alias may still be replaced
        await rt.call("read_files", {"paths": ["c.txt"]})
        out = await rt.call("write_file", {"path": "c.txt", "content": "new\n"}, renderer="sentinel")
        assert out == {"c.txt": "[OK]"}

    anyio.run(main)
    assert (tmp_path / ".env").read_text() == "TOKEN=1\n"
    assert os.stat(tmp_path / "settings.txt").st_ino == os.stat(tmp_path / ".env").st_ino


def test_an_ignore_file_sharing_a_secrets_inode_is_not_quoted(tmp_path: Path) -> None:
    """``sub/.pathgateignore`` hard-linked to ``.env``: its lines become ignore rules, and
    the verbose renderer quotes them (`sub/.pathgateignore:1:API_KEY=hunter2`). (A symlinked
    ignore file is not followed, as git does.) The content of a secret must never reach the
    model, whatever name it is reached by."""
    build(tmp_path, {".env": SECRET_TEXT, "sub/.pathgateignore": ("hardlink", ".env"),
                     "sub/readme.md": "x\n", "sub/API_KEY=hunter2": "x\n"})
    rt = Runtime(tmp_path, Policy())

    async def main() -> list[Any]:
        outs = []
        for renderer in ("verbose", "structured"):
            outs.append(await rt.call("read_files", {"paths": ["sub/readme.md", "sub/API_KEY=hunter2"]},
                                      renderer=renderer))
            outs.append(await rt.call("glob", {"pattern": "**"}, renderer=renderer))
        return outs

    text = json.dumps(anyio.run(main))
    assert "hunter2" not in text.replace("sub/API_KEY=hunter2", "")
    assert "*.md" not in text


# -- agent CLI hooks -----------------------------------------------------------------------------

def _claude(root: Path, tool: str, **tool_input: Any) -> bytes:
    return json.dumps({"session_id": "s", "cwd": str(root), "hook_event_name": "PreToolUse",
                       "tool_name": tool, "tool_input": tool_input}).encode()


def _denied(root: Path, tool: str, **tool_input: Any) -> str | None:
    answer = run_hook("claude-code", _claude(root, tool, **tool_input))
    if not answer.stdout:
        return None
    reason: str = json.loads(answer.stdout)["hookSpecificOutput"]["permissionDecisionReason"]
    return reason


@pytest.mark.parametrize("pattern", [
    "**/{.env,x}", "**/[.]env", "?env", "**/id_rs?", "**/*rsa", "**/.env.d/*", "**/.aws/credentials",
    ".aws/*", "**/*.P[E]M", "**/*.{pem,py}", "*.k?y", "**/client_secret*",
    "{a,b}" * 9 + "/{x,.env}",  # more alternatives than the hook judges: fails closed
])
def test_hook_denies_globs_aimed_at_secrets(tmp_path: Path, pattern: str) -> None:
    """Found: the hook only judged a glob's last segment, and only as a literal name, a
    leading-dot wildcard against three ``.env`` probes, or its literal characters: braces,
    ``?``/``[.]`` in place of the dot, secret directories in the middle and path patterns
    (``.aws/credentials``) went through, and the agent's own Glob listed the secrets. Grep's
    ``glob`` filter takes the same route."""
    build(tmp_path, {".env": "K=v\n", "src/a.py": "x\n"})
    assert _denied(tmp_path, "Glob", pattern=pattern) == "[BLOCKED]"
    assert _denied(tmp_path, "Grep", pattern="K", glob=pattern) == "[BLOCKED]"


@pytest.mark.parametrize("pattern", ["*", "**/*", "**/*.py", "**/*.json", "src/**", "{src,docs}/**/*.{py,ts}",
                                     "**/*.*", "**/*.yml", "*.txt"])
def test_hook_allows_ordinary_globs(tmp_path: Path, pattern: str) -> None:
    build(tmp_path, {".env": "K=v\n", "src/a.py": "x\n"})
    assert _denied(tmp_path, "Glob", pattern=pattern) is None


def test_hook_denies_a_secret_hard_link_alias(tmp_path: Path) -> None:
    """Found: ``Read``/``Edit``/``Write``/``Grep`` of ``settings.txt`` (sharing ``.env``'s
    inode) were allowed: the hook used the path-only gates, so the agent's own tool read (or
    wrote through) the secret. The hook now ``stat``s the target and asks the registry."""
    build(tmp_path, {".env": "K=v\n", "settings.txt": ("hardlink", ".env"), "a.txt": "a\n"})
    path = str(tmp_path / "settings.txt")
    assert _denied(tmp_path, "Read", file_path=path) == "[BLOCKED]"
    assert _denied(tmp_path, "Edit", file_path=path, old_string="K", new_string="L") == "[BLOCKED]"
    assert _denied(tmp_path, "Write", file_path=path, content="x") == "[BLOCKED]"
    assert _denied(tmp_path, "Grep", pattern=".", path=path) == "[BLOCKED]"
    assert _denied(tmp_path, "Read", file_path=str(tmp_path / "a.txt")) is None


# -- trust model ---------------------------------------------------------------------------------

@pytest.mark.parametrize("name", [".env", ".ENV.", ".env.local", "id_rsa", "x.pem", ".netrc"])
def test_a_project_cannot_name_a_secret_as_an_agent_ignore_file(tmp_path: Path, name: str) -> None:
    """Found: a repository's ``pathgate.toml`` with ``agent_files = [".pathgateignore",
    ".env"]`` made pathgate parse ``.env`` as ignore rules, and the verbose renderer quoted
    its lines to the model (`.env:1:API_KEY=hunter2` matches it). A secret's name is refused
    as an agent ignore file, naming the key."""
    build(tmp_path, {".env": SECRET_TEXT, "readme.md": "x\n",
                     "pathgate.toml": f'agent_files = [".pathgateignore", "{name}"]\n'})
    with pytest.raises(ConfigError) as info:
        Runtime(tmp_path)
    assert info.value.key == "agent_files[1]"
    assert "hunter2" not in str(info.value)
    with pytest.raises(ConfigError):
        Policy(agent_files=(".pathgateignore", name))


def test_secret_patterns_of_a_project_do_not_refuse_the_known_agent_files(tmp_path: Path) -> None:
    build(tmp_path, {"pathgate.toml": 'extra_secret_patterns = [".*"]\nother_agent_files = true\n', "a.py": "x\n"})
    rt = Runtime(tmp_path)
    assert ".pathgateignore" in rt.policy.all_agent_files


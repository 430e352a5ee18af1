"""The trust model: a project's own config may only tighten; loosening comes from the host.

Written the way the break was found: a hostile ``pathgate.toml`` / ``[tool.pathgate]`` in the
project root tried to read ``.env`` and a file outside the root through ``Runtime(root)``,
the CLI and ``pathgate mcp --root``.
"""

from __future__ import annotations

import json
import os
import pydoc
import subprocess
import sys
from pathlib import Path

import anyio
import pytest

import pathgate
from pathgate import ConfigError, Policy, Runtime, load_config
from pathgate.cli import main
from pathgate.config import (
    DEFAULT_SECRET_PATTERNS,
    HOST_ONLY_KEYS,
    PROJECT_KEYS,
    load_host_config,
    user_config_path,
)

SRC = str(Path(pathgate.__file__).resolve().parent.parent)
BIG = 10 * 1024 * 1024 + 1

#: (TOML line, the key the error must name): every loosening a project might try.
LOOSENING = [
    ("allow_outside_root = true", "allow_outside_root"),
    ("enforce_secrets = false", "enforce_secrets"),
    ("secret_patterns = []", "secret_patterns"),
    ('secret_patterns = ["*.pem"]', "secret_patterns"),
    ('ignore_mode = "discovery"', "ignore_mode"),
    (f"size_limit = {BIG}", "size_limit"),
    ("read_budget = 100001", "read_budget"),
    ("search_seconds = 10.5", "search_seconds"),
    ("search_seconds = inf", "search_seconds"),
    (f'model_size_limits = [{{ model = "*", limit = {BIG} }}]', "model_size_limits[0].limit"),
    ("defaults = []", "defaults"),
    ('agent_files = [".aiignore"]', "agent_files"),
    ("git_sources = false", "git_sources"),
    ('excludes_file = "/etc/passwd"', "excludes_file"),
    ("ignore_case = true", "ignore_case"),
    ("max_concurrency = 1000", "max_concurrency"),
    ('fs_backend = "thread"', "fs_backend"),
]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / "src").mkdir(parents=True)
    (root / ".env").write_text("TOKEN=hunter2\n")
    (root / "src" / "app.py").write_text("print('hi')\n")
    (root / "state.tfstate").write_text("{}\n")
    (root / "big.txt").write_text("x" * 5000)
    (tmp_path / "outside.txt").write_text("outside secret\n")
    return root


def _write(root: Path, where: str, line: str) -> Path:
    if where == "pathgate.toml":
        path = root / "pathgate.toml"
        path.write_text(line + "\n")
    else:
        path = root / "pyproject.toml"
        path.write_text(f'[project]\nname = "x"\n\n[tool.pathgate]\n{line}\n')
    return path


def _prefix(where: str) -> str:
    return "tool.pathgate." if where == "pyproject.toml" else ""


@pytest.mark.parametrize("where", ["pathgate.toml", "pyproject.toml"])
@pytest.mark.parametrize(("line", "key"), LOOSENING)
def test_runtime_refuses_a_loosening_project_key(project: Path, where: str, line: str, key: str) -> None:
    path = _write(project, where, line)
    with pytest.raises(ConfigError) as info:
        Runtime(project)
    message = str(info.value)
    assert info.value.key == key
    assert f"`{_prefix(where)}{key}`" in message
    assert str(path) in message
    assert "--config" in message and str(user_config_path()) in message
    assert "not applied" in message


@pytest.mark.parametrize(
    "line",
    [
        "allow_outside_root = false",
        "enforce_secrets = true",
        'ignore_mode = "block"',
        "git_sources = true",
        f"max_concurrency = {Policy().max_concurrency}",  # the default, whatever it is
        f"secret_patterns = {json.dumps([*DEFAULT_SECRET_PATTERNS, '*.tfstate'])}",
        'agent_files = [".pathgateignore", ".aiignore"]',
    ],
)
def test_restating_a_default_or_adding_is_allowed(project: Path, line: str) -> None:
    _write(project, "pathgate.toml", line)
    policy = Runtime(project).policy
    assert policy.allow_outside_root is False and policy.enforce_secrets is True
    assert policy.ignore_mode == "block"


def test_the_key_lists_cover_every_toml_key() -> None:
    from pathgate._policy import _PolicyFile

    assert set(PROJECT_KEYS) | set(HOST_ONLY_KEYS) == set(_PolicyFile.__struct_fields__)
    assert not set(PROJECT_KEYS) & set(HOST_ONLY_KEYS)


def test_tightening_keys_apply(project: Path) -> None:
    (project / ".aiignore").write_text("src/\n")
    _write(project, "pathgate.toml",
           'extra_secret_patterns = ["*.tfstate"]\nsize_limit = 1000\nagent_files = [".pathgateignore", ".aiignore"]')
    rt = Runtime(project)

    async def go() -> dict[str, str]:
        return dict(await rt.call("read_files", {"paths": ["state.tfstate", "big.txt", "src/app.py"]},
                                  renderer="sentinel"))

    out = anyio.run(go)
    assert out == {"state.tfstate": "[BLOCKED]", "big.txt": "[FILE_TOO_LARGE]", "src/app.py": "[BLOCKED]"}


def test_project_tightens_a_host_policy(project: Path) -> None:
    _write(project, "pathgate.toml", 'ignore_mode = "block"\nread_budget = 10\nsize_limit = 100\n'
                                     "search_seconds = 2")
    host = Policy(ignore_mode="discovery", allow_outside_root=True, size_limit=BIG * 2,
                  model_size_limits=(pathgate.config.SizeRule(model="m*", limit=BIG * 3),))
    merged = load_config(project, host=host)
    assert merged.ignore_mode == "block"  # the tighter one wins
    assert merged.allow_outside_root is True  # the host's loosening stays
    assert merged.read_budget == 10
    assert merged.search_seconds == 2.0  # the minimum
    assert load_config(project, host=Policy(search_seconds=1.0)).search_seconds == 1.0
    assert merged.size_limit_for(None) == 100 and merged.size_limit_for("m1") == 100


def test_policy_in_code_is_the_hosts_and_used_as_given(project: Path) -> None:
    _write(project, "pathgate.toml", "enforce_secrets = false")  # would be refused if loaded
    rt = Runtime(project, Policy(allow_outside_root=True))
    assert rt.policy.allow_outside_root is True


def test_extra_secret_patterns_in_code_and_help() -> None:
    p = Policy(extra_secret_patterns=("*.tfstate",))
    assert p.secret_patterns == (*DEFAULT_SECRET_PATTERNS, "*.tfstate")
    assert p.extra_secret_patterns == ("*.tfstate",)
    assert pathgate.config.msgspec.structs.replace(p, read_budget=5).secret_patterns == p.secret_patterns
    text = pydoc.render_doc(pathgate.Policy)
    assert "host_filter" in text and "extra_secret_patterns" in text


# -- CLI and MCP ---------------------------------------------------------------------------


def _cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("where", ["pathgate.toml", "pyproject.toml"])
def test_cli_refuses_the_hostile_project(project: Path, where: str, capsys: pytest.CaptureFixture[str],
                                         monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    _write(project, where, 'allow_outside_root = true\nenforce_secrets = false\nsecret_patterns = []')
    code, out, err = _cli(capsys, "read", "--root", str(project), "--json", ".env", "/etc/passwd",
                          str(tmp_path / "outside.txt"))
    assert code == 2
    assert out == ""
    assert "allow_outside_root" in err and where in err and "hunter2" not in err


def test_mcp_root_refuses_the_hostile_project(project: Path, tmp_path: Path) -> None:
    pytest.importorskip("mcp")
    _write(project, "pathgate.toml", "allow_outside_root = true")
    env = {**os.environ, "PYTHONPATH": SRC, "XDG_CONFIG_HOME": str(tmp_path / "xdg")}
    proc = subprocess.run([sys.executable, "-m", "pathgate", "mcp", "--root", str(project)],
                          input="", capture_output=True, text=True, env=env, timeout=60, check=False)
    assert proc.returncode == 2
    assert "`allow_outside_root`" in proc.stderr and "--config" in proc.stderr


def test_cli_host_config_may_loosen(project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    host = tmp_path / "host.toml"
    host.write_text("allow_outside_root = true\n")
    _write(project, "pathgate.toml", 'extra_secret_patterns = ["*.tfstate"]')
    outside = str(tmp_path / "outside.txt")
    code, out, _ = _cli(capsys, "read", "--root", str(project), "--config", str(host), "--json",
                        outside, "state.tfstate", ".env")
    assert code == 1  # some paths were not served (grep-style exit status)
    got = json.loads(out)
    assert got[outside] == "outside secret\n"  # the host's loosening applies
    assert got["state.tfstate"] == "[BLOCKED]"  # and the project's tightening too
    assert got[".env"] == "[BLOCKED]"


def test_user_level_file_is_the_default_host_config(project: Path, tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str],
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    xdg = tmp_path / "xdg"
    monkeypatch.setenv("XDG_CONFIG_HOME", str(xdg))
    assert user_config_path() == xdg / "pathgate" / "config.toml"
    user_config_path().parent.mkdir(parents=True)
    user_config_path().write_text("allow_outside_root = true\n")
    outside = str(tmp_path / "outside.txt")
    code, out, _ = _cli(capsys, "read", "--root", str(project), "--json", outside)
    assert code == 0 and json.loads(out)[outside] == "outside secret\n"
    assert load_host_config().allow_outside_root is True
    assert load_host_config(user=False) == Policy()
    # the library never reads it implicitly
    assert Runtime(project).policy.allow_outside_root is False


def test_user_config_path_ignores_a_relative_xdg(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", "relative/dir")
    assert user_config_path() == Path.home() / ".config" / "pathgate" / "config.toml"

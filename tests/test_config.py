from __future__ import annotations

from pathlib import Path

import pytest

from pathgate import ConfigError, Policy, load_config
from pathgate.config import DEFAULT_SECRET_PATTERNS, OTHER_AGENT_FILES, RendererRule, SizeRule, load_host_config
from pathgate.runtime.ignore import DEFAULT_IGNORES


def test_defaults() -> None:
    p = Policy()
    assert p.allow_outside_root is False
    assert p.enforce_secrets is True
    assert p.ignore_mode == "block"
    assert p.size_limit == 10 * 1024 * 1024
    assert p.read_budget == 100_000
    assert p.search_seconds == 10.0
    assert p.agent_files == (".pathgateignore",)
    assert p.defaults == DEFAULT_IGNORES
    assert p.default_renderer == "verbose"
    assert "*.pem" in p.secret_patterns and ".netrc" in p.secret_patterns


def test_no_config_file_gives_defaults(tmp_path: Path) -> None:
    assert load_config(tmp_path) == Policy()


def test_pathgate_toml(tmp_path: Path) -> None:
    """A project's tightening keys apply (limits become caps; lists are unions)."""
    (tmp_path / "pathgate.toml").write_text(
        """
ignore_mode = "block"
size_limit = 2048
extra_secret_patterns = ["*.tfstate"]
other_agent_files = true
model_size_limits = [{ model = "tiny-*", limit = 100 }]

[renderers]
default = "sentinel"
rules = [{ model = "gpt-4o-mini*", renderer = "structured" }]
"""
    )
    p = load_config(tmp_path)
    assert p.ignore_mode == "block"
    assert p.secret_patterns[-1] == "*.tfstate"
    assert p.secret_patterns[: len(DEFAULT_SECRET_PATTERNS)] == DEFAULT_SECRET_PATTERNS
    assert p.renderers == (RendererRule(model="gpt-4o-mini*", renderer="structured"),)
    assert p.default_renderer == "sentinel"
    assert SizeRule(model="tiny-*", limit=100) in p.size_caps
    assert p.size_limit_for("tiny-7b") == 100
    assert p.size_limit_for("big") == 2048
    assert p.size_limit_for(None) == 2048
    assert p.all_agent_files == (".pathgateignore", *OTHER_AGENT_FILES)
    assert p.ignore_config().agent_files == p.all_agent_files


def test_host_file_takes_every_key(tmp_path: Path) -> None:
    cfg = tmp_path / "host.toml"
    cfg.write_text('ignore_mode = "discovery"\nsize_limit = 2048\nmodel_size_limits = [{ model = "t*", limit = 9 }]\n')
    p = load_host_config(cfg)
    assert p.ignore_mode == "discovery" and p.size_limit == 2048
    assert p.model_size_limits == (SizeRule(model="t*", limit=9),)
    assert p.size_limit_for("tx") == 9 and p.size_limit_for(None) == 2048


def test_pyproject_section(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\n\n[tool.pathgate]\nread_budget = 5\n')
    assert load_config(tmp_path).read_budget == 5


def test_pyproject_without_section(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\n')
    assert load_config(tmp_path) == Policy()


def test_pathgate_toml_wins_over_pyproject(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.pathgate]\nread_budget = 5\n")
    (tmp_path / "pathgate.toml").write_text("read_budget = 7\n")
    assert load_config(tmp_path).read_budget == 7


def test_explicit_path(tmp_path: Path) -> None:
    cfg = tmp_path / "other.toml"
    cfg.write_text("enforce_secrets = false\n")
    assert load_config(tmp_path, cfg).enforce_secrets is False


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("size_limit = 'big'\n", "size_limit"),
        ("size_limit = 0\n", "size_limit"),
        ("bogus = 1\n", "bogus"),
        ("ignore_mode = 'sometimes'\n", "ignore_mode"),
        ("fs_backend = 'nfs'\n", "fs_backend"),
        ("[renderers]\nrulez = []\n", "renderers.rulez"),
        (
            "[renderers]\nrules = [{model='a', renderer='b'}, {model=3, renderer='b'}]\n",
            "renderers.rules[1].model",
        ),
        ("[renderers]\nrules = [{model='a'}]\n", "renderers.rules[0].renderer"),
        ("model_size_limits = [{model='a', limit=-1}]\n", "model_size_limits[0].limit"),
        ("agent_files = ['sub/.ignore']\n", "agent_files[0]"),
        ("host_filter = 'x'\n", "host_filter"),
        ("enforce_secrets = 'yes'\n", "enforce_secrets"),
    ],
)
def test_bad_values_name_the_key(tmp_path: Path, text: str, key: str) -> None:
    (tmp_path / "pathgate.toml").write_text(text)
    with pytest.raises(ConfigError) as info:
        load_config(tmp_path)
    assert info.value.key == key
    assert f"`{key}`" in str(info.value)


def test_pyproject_error_spells_the_full_key(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.pathgate.renderers]\nrules = [{model=1, renderer='x'}]\n")
    with pytest.raises(ConfigError) as info:
        load_config(tmp_path)
    assert info.value.key == "renderers.rules[0].model"
    assert "`tool.pathgate.renderers.rules[0].model`" in str(info.value)


def test_invalid_toml(tmp_path: Path) -> None:
    (tmp_path / "pathgate.toml").write_text("size_limit = \n")
    with pytest.raises(ConfigError, match="invalid TOML"):
        load_config(tmp_path)


@pytest.mark.parametrize(
    ("kwargs", "key"),
    [
        ({"size_limit": 0}, "size_limit"),
        ({"read_budget": -5}, "read_budget"),
        ({"search_seconds": 0}, "search_seconds"),
        ({"search_seconds": -1.5}, "search_seconds"),
        ({"search_seconds": float("nan")}, "search_seconds"),
        ({"search_seconds": True}, "search_seconds"),
        ({"search_seconds": "10"}, "search_seconds"),
        ({"max_concurrency": True}, "max_concurrency"),
        ({"ignore_mode": "strict"}, "ignore_mode"),
        ({"fs_backend": "x"}, "fs_backend"),
        ({"host_filter": 3}, "host_filter"),
        ({"agent_files": ("..",)}, "agent_files[0]"),
    ],
)
def test_policy_in_code_validates(kwargs: dict[str, object], key: str) -> None:
    with pytest.raises(ConfigError) as info:
        Policy(**kwargs)  # type: ignore[arg-type]
    assert info.value.key == key


def test_git_only() -> None:
    p = Policy(other_agent_files=True).git_only()
    assert p.defaults == () and p.agent_files == () and p.all_agent_files == ()
    assert p.ignore_config().defaults == ()


def test_host_filter_is_code_only() -> None:
    def allow(relpath: str) -> bool:
        return True

    assert Policy(host_filter=allow).host_filter is allow


def test_search_seconds_in_code_and_toml(tmp_path: Path) -> None:
    """A number of seconds: an integer is kept as a float, ``inf`` (a host's "no limit") is
    accepted; in TOML a bad value is an error naming the key."""
    assert Policy(search_seconds=3).search_seconds == 3.0 and isinstance(Policy(search_seconds=3).search_seconds, float)
    assert Policy(search_seconds=float("inf")).search_seconds == float("inf")
    (tmp_path / "pathgate.toml").write_text("search_seconds = 2.5\n")
    assert load_config(tmp_path).search_seconds == 2.5
    (tmp_path / "pathgate.toml").write_text("search_seconds = 4\n")
    assert load_config(tmp_path).search_seconds == 4.0
    for bad in ("0", "-1", "nan", '"10"', "true"):
        (tmp_path / "pathgate.toml").write_text(f"search_seconds = {bad}\n")
        with pytest.raises(ConfigError) as info:
            load_config(tmp_path)
        assert info.value.key == "search_seconds"
    host = tmp_path / "host.toml"
    host.write_text("search_seconds = 60\n")
    assert load_host_config(str(host)).search_seconds == 60.0  # the host may raise it

"""Policy sequence fields given as lists (what people write) are kept as tuples; a bare
string or ``None`` is a clear ``ConfigError``, never a ``TypeError`` from inside pathgate
(red team 12, F6) nor a string silently read as a list of one-character names."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from pathgate import Policy, Runtime
from pathgate.errors import ConfigError


def test_lists_are_accepted_and_kept_as_tuples() -> None:
    p = Policy(extra_secret_patterns=["*.secret"], agent_files=[".pathgateignore", ".aiignore"],
               defaults=["node_modules/"])
    assert p.extra_secret_patterns == ("*.secret",)
    assert "*.secret" in p.secret_patterns
    assert p.agent_files == (".pathgateignore", ".aiignore")
    assert p.defaults == ("node_modules/",)


@pytest.mark.parametrize("key", ["agent_files", "extra_secret_patterns", "defaults", "secret_patterns"])
@pytest.mark.parametrize("value", [".pathgateignore", None, 3])
def test_a_string_or_scalar_is_a_config_error_naming_the_key(key: str, value: object) -> None:
    with pytest.raises(ConfigError) as err:
        Policy(**{key: value})  # type: ignore[arg-type]
    assert err.value.key == key
    assert "expected a list" in str(err.value)


def test_a_list_pattern_blocks_like_a_tuple_one(tmp_path: Path) -> None:
    (tmp_path / "app.secret").write_text("TOKEN=1\n")
    (tmp_path / "a.txt").write_text("hi\n")
    rt = Runtime(tmp_path, policy=Policy(extra_secret_patterns=["*.secret"]))
    out = anyio.run(rt.call, "read_files", {"paths": ["app.secret", "a.txt"]})
    assert "TOKEN" not in str(out) and "hi" in str(out)

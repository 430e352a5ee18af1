"""The README's code blocks run as written (issue 16), checked with ``pytest-examples``.

Conventions for README.md (keep them when you add a block):

* Every ```` ```python ```` block is a complete script. It runs in a fresh sample project
  (the working directory; the placeholder ``/path/to/project`` means that project), with
  ``HOME`` pointing at an empty directory so no user-level config is read.
* A block that cannot run offline says so in its fence, with the reason:
  ```` ```python test="skip" reason="needs an OpenAI API key" ````. Only a real model's API
  key or a running outside service is a reason; :data:`EXPECTED_SKIPS` pins the list, so a
  new skip is a visible decision.
* A ```` ```toml ```` block parses with :mod:`tomllib`; one that starts with
  ``# pathgate.toml`` is also accepted by pathgate's config loader as a project's file.
"""

from __future__ import annotations

import dataclasses
import re
import tomllib
from pathlib import Path

import pytest

pytest_examples = pytest.importorskip("pytest_examples")

from pytest_examples import CodeExample, EvalExample, find_examples  # noqa: E402

from pathgate.config import load_config  # noqa: E402

README = Path(__file__).resolve().parent.parent / "README.md"
PLACEHOLDER_ROOT = "/path/to/project"

#: The blocks that do not run offline, by their skip reason (keep this short).
EXPECTED_SKIPS = {
    "needs a running Phoenix (or another OTLP collector)": 1,
    "needs an OpenAI API key (and langchain-openai)": 1,
    "needs an OpenAI API key": 1,
}

EXAMPLES = [ex for ex in find_examples(README) if ex.prefix.split()[0] in ("python", "py")]
TOML_BLOCKS = [
    (README.read_text()[: m.start()].count("\n") + 1, m.group(1))
    for m in re.finditer(r"^```toml[^\n]*\n(.*?)^```", README.read_text(), re.M | re.S)
]


def _project(root: Path) -> Path:
    """The sample project the README's snippets talk about."""
    files = {
        ".gitignore": "build/\n*.log\n!logs/huge.log\n",
        "src/app.py": "print('hello')\n",
        "build/out.js": "built\n",
        ".env": "TOKEN=hunter2\n",
        "logs/huge.log": "".join(f"line {n}\n" for n in range(1, 40_100)),
    }
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


def _skip_reason(example: CodeExample) -> str | None:
    settings = example.prefix_settings()
    if settings.get("test") != "skip":
        return None
    reason = settings.get("reason")
    assert reason, f"{example}: a skipped block must give reason=\"...\""
    return reason


def test_skips_are_few_and_explicit() -> None:
    found: dict[str, int] = {}
    for ex in EXAMPLES:
        reason = _skip_reason(ex)
        if reason is not None:
            found[reason] = found.get(reason, 0) + 1
    assert found == {k.lower(): n for k, n in EXPECTED_SKIPS.items()}  # fence info is lowercased
    assert len(EXAMPLES) - sum(found.values()) >= 8, "most README blocks must run"


@pytest.mark.parametrize("example", EXAMPLES, ids=str)
def test_python_block_runs(example: CodeExample, eval_example: EvalExample, tmp_path: Path,
                           monkeypatch: pytest.MonkeyPatch) -> None:
    reason = _skip_reason(example)
    if reason is not None:
        pytest.skip(reason)
    root = _project(tmp_path / "project")
    (tmp_path / "home").mkdir()
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    monkeypatch.chdir(root)
    runnable = dataclasses.replace(example, source=example.source.replace(PLACEHOLDER_ROOT, str(root)))
    eval_example.run(runnable, rewrite_assertions=False)


@pytest.mark.parametrize(("line", "text"), TOML_BLOCKS, ids=[f"README.md:{n}" for n, _ in TOML_BLOCKS])
def test_toml_block_is_valid(line: int, text: str, tmp_path: Path) -> None:
    tomllib.loads(text)
    if text.startswith("# pathgate.toml"):
        (tmp_path / "pathgate.toml").write_text(text)
        load_config(tmp_path)  # raises ConfigError naming the key if the README is wrong

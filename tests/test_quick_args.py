"""``pathgate._quick_args`` reads exactly what argparse reads, or nothing: on every command line
it accepts, its namespace equals argparse's; every other one goes to argparse (errors, help,
abbreviations and ``--opt=value`` stay argparse's)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pathgate import _cli_parser, cli
from pathgate._quick_args import quick_args

_WORDS = ["explain", "glob", "search", "-i", "--ignore-case", "--glob", "--context", "2",
          "x", "src/*.py", "a b", "", "build/out.js", "--json", "--root", "r", "--config",
          "c.toml", "--git-only", "--debug", "--path", "p", "--limit", "5", "0", "-1", "x1", "--model", "m",
          "--renderer", "sentinel", "--", "-h", "--jso", "--limit=3", "--version", "-", "ls", "read"]


def _argparse(argv: list[str]) -> dict[str, Any] | None:
    """argparse's namespace for ``argv``, or ``None`` when it exits (error or help)."""
    at = cli._command_index(argv)
    word = argv[at] if at is not None else None
    try:
        parser = cli.build_parser(word if word in cli._COMMANDS else None)
        _cli_parser.suggest_command(parser, argv, at)
        return vars(_cli_parser.parse(parser, argv, cli._GLOBAL_DEFAULTS))
    except SystemExit:
        return None


def _quick(argv: list[str]) -> dict[str, Any] | None:
    got = quick_args(argv, cli._command_index(argv), cli._GLOBAL_DEFAULTS)
    return None if got is None else vars(got)


@pytest.mark.parametrize("argv", [
    ["glob", "**/*.py"],
    ["glob", "*", "--path", "src", "--limit", "3", "--json"],
    ["--root", "r", "glob", "*", "--model", "gpt-4o-mini"],
    ["--git-only", "--config", "c.toml", "glob", "--renderer", "structured", "*"],
    ["glob", "*", "--root", "a", "--root", "b"],
    ["--root", "a", "explain", "x", "--root", "b"],
    ["explain", "build/out.js", ".env", "--json"],
    ["explain", "--json", "a", "b", "c"],
    ["explain", "--debug", "", "a b"],
    ["search", "def main"],
    ["search", "x", "--glob", "**/*.py", "--path", "src", "--limit", "3", "--context", "2", "-i", "--json"],
    ["--root", "r", "search", "--ignore-case", "x", "--model", "m", "--git-only"],
    ["search", "x", "--renderer", "structured", "--context", "0", "--limit", "0"],
])
def test_plain_command_lines_equal_argparse(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    quick = _quick(argv)
    assert quick is not None
    assert quick == _argparse(argv)


@pytest.mark.parametrize("argv", [
    ["glob"], ["glob", "a", "b"], ["glob", "x", "--limit", "-1"], ["glob", "x", "--limit=3"],
    ["glob", "x", "--limit", "five"], ["glob", "x", "--lim", "3"], ["glob", "x", "--model", "m", "--renderer", "r"],
    ["glob", "-h"], ["glob", "--", "-x"], ["explain", "a", "--json", "b"], ["explain"], ["--json", "explain", "a"],
    ["read", "a"], ["ls"], [], ["--version"], ["glob", "x", "--root"], ["glob", "-", "x"],
    ["search"], ["search", "x", "--context", "two"], ["search", "x", "-ix"], ["search", "-x"],
    ["search", "x", "--glob"], ["search", "x", "--cont", "2"], ["search", "x", "y"],
])
def test_other_command_lines_go_to_argparse(argv: list[str]) -> None:
    assert _quick(argv) is None


@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from(_WORDS), max_size=7))
def test_never_disagrees_with_argparse(argv: list[str]) -> None:
    quick = _quick(argv)
    if quick is not None:
        assert quick == _argparse(argv)


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_WORDS), max_size=7))
def test_never_disagrees_with_argparse_exhaustive(argv: list[str]) -> None:
    """``test_never_disagrees_with_argparse`` with the full example count."""
    test_never_disagrees_with_argparse.hypothesis.inner_test(argv)


_GROUPS = [("--json",), ("--root", "r"), ("--limit", "5"), ("--limit", "0"), ("x",), ("a b",), ("",),
           ("--model", "m"), ("--renderer", "sentinel"), ("--path", "p"), ("--git-only",), ("--debug",),
           ("--config", "c.toml"), ("--limit", "x"), ("--json",), ("--context", "3"), ("-i",), ("--ignore-case",),
           ("--glob", "*.py"), ("--context", "x")]


@settings(max_examples=120, deadline=None)
@given(st.sampled_from(["explain", "glob", "search"]),
       st.lists(st.sampled_from(_GROUPS[1:3] + _GROUPS[10:13]), max_size=3),
       st.lists(st.sampled_from(_GROUPS), max_size=6))
def test_well_formed_lines_agree_with_argparse(command: str, before: list[tuple[str, ...]],
                                               after: list[tuple[str, ...]]) -> None:
    argv = [w for g in before for w in g] + [command] + [w for g in after for w in g]
    quick = _quick(argv)
    if quick is not None:
        assert quick == _argparse(argv)


@pytest.mark.slow
@settings(max_examples=400, deadline=None)
@given(st.sampled_from(["explain", "glob", "search"]),
       st.lists(st.sampled_from(_GROUPS[1:3] + _GROUPS[10:13]), max_size=3),
       st.lists(st.sampled_from(_GROUPS), max_size=6))
def test_well_formed_lines_agree_with_argparse_exhaustive(
    command: str, before: list[tuple[str, ...]], after: list[tuple[str, ...]]
) -> None:
    """``test_well_formed_lines_agree_with_argparse`` with the full example count."""
    test_well_formed_lines_agree_with_argparse.hypothesis.inner_test(command, before, after)


def test_explain_glob_and_search_load_no_argparse(tmp_path: Any, capsys: pytest.CaptureFixture[str],
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    def no_parser(only: str | None = None) -> Any:
        raise AssertionError("argparse ran")

    (tmp_path / "a.py").write_text("x\n")
    monkeypatch.setattr(cli, "build_parser", no_parser)
    assert cli.main(["glob", "--root", str(tmp_path), "*.py"]) == 0
    assert cli.main(["explain", "--root", str(tmp_path), "a.py"]) == 0
    assert capsys.readouterr().out.startswith("a.py\n")
    assert cli.main(["search", "--root", str(tmp_path), "x", "--context", "1", "-i"]) == 0
    assert capsys.readouterr().out == "a.py:1:x\n"

"""Red-team round 3, F1 and F2: code_search hits are whole, real lines, as ``rg -n`` / ``grep -n``.

F2: a pattern that can match empty (``^$``, ``\\z``, ``x*``) reported a line after the last
``\\n`` of a streamed piece or of a file (a line that does not exist or does not match), and
the text anchors ``\\A``/``\\z`` (and ``(?-m)``) matched at the ends of whatever buffer a search
got (a batch of files, a piece of a big file): they are line anchors, as in ripgrep.
F1: RE2's ``\\C`` (any byte) matched ``\\n`` despite ``never_nl``: refused, as ripgrep does.
"""

from __future__ import annotations

import random
import shutil
import subprocess
from pathlib import Path

import anyio
import pytest

from pathgate import Policy, Runtime
from pathgate.errors import ToolArgumentError
from pathgate.runtime.tools import _scan
from pathgate.runtime.tools._regex import _line_anchored, compile_regex

EMPTY_MATCHING = ["^$", r"\z", "^", "$", "x*", r"\A", r"(?-m)^", r"(?-m)$", r"(?i-m:^)x", "y$"]
#: The patterns ``grep -n`` reads the same way (basic regular expressions).
GREP_SAFE = {"^$", "^", "$", "x*", "y$"}


def _tree(root: Path) -> dict[str, bytes]:
    """Files with and without a trailing newline, empty lines, an empty file, one of ``\\n``."""
    rnd = random.Random(3)
    files: dict[str, bytes] = {"empty.txt": b"", "nl.txt": b"\n", "x.txt": b"x", "two.txt": b"\n\n"}
    for k in range(10):
        lines = [rnd.choice(["", "x", "ab", "xx y", "hello world", "y"]) for _ in range(rnd.randint(0, 900))]
        files[f"f{k:02d}.txt"] = ("\n".join(lines) + rnd.choice(["", "\n"])).encode()
    root.mkdir()
    for name, data in files.items():
        (root / name).write_bytes(data)
    return files


def _oracle(tool: list[str], root: Path, regex: str) -> list[tuple[str, int, str]]:
    out = subprocess.run([*tool, regex, *sorted(p.name for p in root.iterdir())], cwd=root,
                         capture_output=True, text=True, check=False)
    assert out.returncode in (0, 1), out.stderr
    hits = []
    for row in out.stdout.splitlines():
        path, line, text = row.split(":", 2)
        hits.append((path, int(line), text))
    return sorted(hits)


@pytest.mark.parametrize("region", [0, 512])
def test_empty_matching_patterns_equal_rg_and_grep(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                   region: int) -> None:
    """Streamed (region 512 bytes: the bigger files go in pieces) and not, batched and not."""
    if shutil.which("rg") is None:
        pytest.skip("ripgrep is not installed")
    if region:
        monkeypatch.setattr(_scan, "MIN_REGION", region)
        monkeypatch.setattr(_scan, "MAX_REGION", region)
    root = tmp_path / "t"
    files = _tree(root)
    assert region == 0 or max(map(len, files.values())) > 2 * region  # streaming is exercised
    rt = Runtime(root)
    for regex in EMPTY_MATCHING:
        res = anyio.run(lambda regex=regex: rt.code_search(regex, max_results=0))
        got = sorted((h.path, h.line, h.text) for h in res.hits)
        assert got == _oracle(["rg", "-n", "-H", "--no-heading"], root, regex), regex
        if regex in GREP_SAFE:
            assert got == _oracle(["grep", "-n", "-H"], root, regex), regex


def test_no_phantom_line_after_a_piece_or_the_end(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The red-team's case: 16-byte lines, none empty; pieces end exactly at a ``\\n``."""
    monkeypatch.setattr(_scan, "MIN_REGION", 4096)
    monkeypatch.setattr(_scan, "MAX_REGION", 4096)
    root = tmp_path / "t"
    root.mkdir()
    (root / "big.txt").write_text("".join(f"line {i:010d}\n" for i in range(5000)))
    (root / "small.txt").write_text("a\nb\n")
    rt = Runtime(root, Policy(read_budget=1 << 40))  # every hit: no output budget
    assert anyio.run(lambda: rt.code_search("^$", max_results=0)).hits == ()
    ends = anyio.run(lambda: rt.code_search(r"\z", max_results=0)).hits
    assert [(h.path, h.line) for h in ends if h.path == "small.txt"] == [("small.txt", 1), ("small.txt", 2)]
    assert [h.line for h in ends if h.path == "big.txt"] == list(range(1, 5001))


# -- F1: nothing crosses a line ----------------------------------------------------------

@pytest.mark.parametrize("regex", [r"\C", r"foo\Cbar", r"^\C\C\C$", r"(?s)\C+", r"[a]\C"])
def test_any_byte_is_refused(regex: str) -> None:
    with pytest.raises(ToolArgumentError) as err:
        compile_regex(regex)
    assert err.value.field == "regex"
    assert "`\\C` (any byte) is not supported" in str(err.value)


def test_escaped_backslash_c_is_literal_and_class_c_is_refused() -> None:
    rx = compile_regex(r"a\\C")
    buf = b"xa\\C\n"
    assert rx.search(buf, 0, len(buf)) == (1, 4)
    with pytest.raises(ToolArgumentError):
        compile_regex(r"[\C]")  # RE2 refuses it itself


CROSSERS = [r"(?s).", r"\x0a", r"[\n]", r"\s", r"[^x]", r"\pC", r"[[:space:]]", r"\p{Cc}", r"[\x00-\x7f]",
            r"[\x{a}]", r"\x{0a}", r"[^\S]", r"\v", r"[\s\S]", r"(?s:.)", r"\P{L}", r"[[:^alpha:]]", r"\D", r"\W",
            r"\012", r"[\012]", r"[\d\D]", r"[[:cntrl:]]", r"\p{Any}", r"(?s)[^a]", r"[\x00-\x{10FFFF}]", r"\pZ",
            r"(?U).", r"[\x0a-\x0b]", r"\x0A", r"[[:blank:]]", r"\p{Zl}", r"\p{^L}", r"\S"]


@pytest.mark.parametrize("construct", CROSSERS)
def test_no_construct_crosses_a_line(construct: str) -> None:
    buf = b"a\nb\n\n\x00\n\r\n z\n\x0b\n"
    for regex in (construct, construct + "+", "a" + construct + "b", construct + "*b", f"(?:{construct}|a)+"):
        try:
            rx = compile_regex(regex)
        except ToolArgumentError:
            continue  # refused is fine: it cannot cross a line
        pos = 0
        while pos <= len(buf):
            span = rx.search(buf, pos, len(buf))
            if span is None:
                break
            assert b"\n" not in buf[span[0]:span[1]], (regex, span)
            pos = max(span[1], span[0] + 1)


@pytest.mark.parametrize(("regex", "compiled"), [
    (r"\A", "(?m:^)"), (r"\z", "(?m:$)"), (r"\\z", r"\\z"), (r"\Q\A\z\E\z", r"\Q\A\z\E(?m:$)"),
    (r"(?-m)^", "(?:)^"), (r"(?i-m)x", "(?i)x"), (r"(?-m:x)", "(?:x)"), (r"(?-ms:x)", "(?-s:x)"),
    (r"(?m)x", "(?m)x"), (r"(?P<n>x)", "(?P<n>x)"), (r"[\A(?-m)]", r"[\A(?-m)]"),
])
def test_text_anchors_become_line_anchors(regex: str, compiled: str) -> None:
    assert _line_anchored(regex) == compiled

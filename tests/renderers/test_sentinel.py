"""The sentinel renderer: bare legacy strings, byte for byte; content untouched."""

from __future__ import annotations

import pytest

from pathgate.renderers.sentinel import SentinelRenderer
from pathgate.verdicts import Verdict

from ._facts import BLOCKS, blocked, content, truncated

# Written by hand from the legacy TypeScript constants (FILE_READ_STATUS).
EXPECTED = {
    "ignored": "[BLOCKED]",
    "ignored_deleted": "[BLOCKED]",
    "ancestor": "[BLOCKED]",
    "builtin": "[BLOCKED]",
    "fail_closed": "[BLOCKED]",
    "secret": "[BLOCKED]",
    "host": "[BLOCKED]",
    "missing": "[FILE_DOES_NOT_EXIST]",
    "not_a_file": "[NOT_A_FILE]",
    "outside": "[FILE_OUTSIDE_PROJECT]",
    "too_large": "[FILE_TOO_LARGE]",
    "read_error": "[FILE_READ_ERROR]",
    "binary": "[BINARY_FILE]",
}


def test_every_block_kind_has_an_expectation() -> None:
    assert set(EXPECTED) == set(BLOCKS)


@pytest.mark.parametrize("label", sorted(EXPECTED))
def test_bare_status(label: str) -> None:
    verdict: Verdict = BLOCKS[label]
    out = SentinelRenderer().render_read([blocked("some/file.txt", verdict)])
    assert out == {"some/file.txt": EXPECTED[label]}
    assert SentinelRenderer().render_verdict("some/file.txt", verdict) == EXPECTED[label]


def test_content_unchanged_and_request_order_kept() -> None:
    text = "line 1\r\n\tline 2 [BLOCKED]\n\x00odd"
    out = SentinelRenderer().render_read([
        content("z.txt", text), blocked("a.log", BLOCKS["ignored"]), content("m.txt", ""),
    ])
    assert list(out) == ["z.txt", "a.log", "m.txt"]
    assert out == {"z.txt": text, "a.log": "[BLOCKED]", "m.txt": ""}


def test_truncated_content_is_followed_by_the_bare_notice() -> None:
    out = SentinelRenderer().render_read([truncated("big.txt", "a\nb\n"), truncated("c.txt", "x")])
    assert out == {"big.txt": "a\nb\n[FILE_TOO_LARGE]", "c.txt": "x\n[FILE_TOO_LARGE]"}


def test_no_output_schema() -> None:
    assert SentinelRenderer().output_schema() is None

"""The verbose renderer (SPEC §3): one test per bullet, plus hand-written goldens."""

from __future__ import annotations

import pytest

from pathgate.renderers import READ_FILES_DESCRIPTION
from pathgate.renderers.verbose import VerboseRenderer
from pathgate.verdicts import WRITE_STATUSES, Gate, Remedy, Rule, Status, Verdict

from ._facts import (
    BLOCKS,
    FAIL_CLOSED,
    GITIGNORE_LOG,
    IGNORED_ANCESTOR,
    IGNORED_BUILTIN,
    IGNORED_DELETED,
    IGNORED_FILE,
    blocked,
    content,
    truncated,
)

R = VerboseRenderer()

# Goldens written by hand from the contract (SPEC §3 and issue 4).
EXPECTED = {
    "ignored": (
        "[BLOCKED]: Excluded by ignore rules: `.gitignore:3:*.log` matches it. "
        "This is not an operating-system permission problem. It exists on disk. "
        "The glob, list_directory and code_search tools leave it out too. "
        "To unblock it, add these lines to `.pathgateignore`:\n!/debug.log"
    ),
    "ignored_deleted": (
        "[BLOCKED]: Excluded by ignore rules: `.gitignore:3:*.log` matches it. "
        "This is not an operating-system permission problem. "
        "The glob, list_directory and code_search tools leave it out too."
    ),
    "ancestor": (
        "[BLOCKED]: Excluded by ignore rules: its directory `build/` matches `.gitignore:1:build/`. "
        "This is not an operating-system permission problem. It exists on disk. "
        "The glob, list_directory and code_search tools leave it out too. "
        "A file-level negation cannot re-include a file below an excluded directory. "
        "To unblock it, add these lines to `.pathgateignore`:\n!/build/\n/build/*\n!/build/out.js"
    ),
    "builtin": (
        "[BLOCKED]: Excluded by ignore rules: its directory `node_modules/` matches the built-in "
        "default `node_modules/`. This is not an operating-system permission problem. "
        "It exists on disk. The glob, list_directory and code_search tools leave it out too. "
        "A file-level negation cannot re-include a file below an excluded directory."
    ),
    "fail_closed": (
        "[BLOCKED]: Blocked by ignore-rule checking: the ignore file `pkg/.gitignore` could not "
        "be read. The paths it governs stay withheld until it can be read. It exists on disk. "
        "The glob, list_directory and code_search tools leave it out too."
    ),
    "secret": "[BLOCKED]",
    "host": "[BLOCKED]",
    "missing": "[FILE_DOES_NOT_EXIST]: No file exists at this path.",
    "not_a_file": "[NOT_A_FILE]: It is a directory or a special file, not a regular file.",
    "outside": "[FILE_OUTSIDE_PROJECT]: It resolves outside the project root.",
    "too_large": (
        "[FILE_TOO_LARGE]: The file is 12 MiB; the limit is 10 MiB. Read a line window of it "
        "with read_files offset and limit."
    ),
    "read_error": "[FILE_READ_ERROR]: The file could not be read (EACCES).",
    "binary": "[BINARY_FILE]: It holds binary content that cannot be shown as text.",
}


def test_every_block_kind_has_an_expectation() -> None:
    assert set(EXPECTED) == set(BLOCKS)


@pytest.mark.parametrize("label", sorted(EXPECTED))
def test_golden(label: str) -> None:
    out = R.render_read([blocked("f", BLOCKS[label])])
    assert out == {"f": EXPECTED[label]}
    assert R.render_verdict("f", BLOCKS[label]) == EXPECTED[label]


@pytest.mark.parametrize("label", sorted(EXPECTED))
def test_every_status_keeps_its_sentinel_prefix(label: str) -> None:
    verdict = BLOCKS[label]
    expected_sentinel = "[BLOCKED]" if verdict.opaque else verdict.status.sentinel
    assert R.render_verdict("f", verdict).startswith(expected_sentinel)


# --- ignore block, bullet by bullet -------------------------------------------------------

def test_names_the_deciding_rule_as_file_line_pattern() -> None:
    assert "`.gitignore:3:*.log`" in R.render_verdict("debug.log", IGNORED_FILE)


def test_names_a_builtin_default_as_such() -> None:
    text = R.render_verdict("node_modules/x.js", IGNORED_BUILTIN)
    assert "built-in default `node_modules/`" in text
    assert "<built-in>" not in text


def test_says_it_is_not_a_permission_problem() -> None:
    assert "not an operating-system permission problem" in R.render_verdict("a", IGNORED_FILE)


def test_existence_claimed_only_when_a_stat_confirmed_it() -> None:
    assert "It exists on disk." in R.render_verdict("a", IGNORED_FILE)
    text = R.render_verdict("a", IGNORED_DELETED)  # exists=None: ignored-and-deleted
    assert "exist" not in text.lower()
    deleted = Verdict(status=Status.BLOCKED, gate=Gate.IGNORE, rule=GITIGNORE_LOG, exists=False)
    assert "exist" not in R.render_verdict("a", deleted).lower()


def test_fail_closed_is_hedged_and_names_the_unreadable_file() -> None:
    text = R.render_verdict("pkg/a.py", FAIL_CLOSED)
    assert text.startswith("[BLOCKED]: Blocked by ignore-rule checking")
    assert "`pkg/.gitignore`" in text
    lowered = text.lower()
    for claim in ("excluded by", "matches", "rule `", "permission", "to unblock"):
        assert claim not in lowered, claim


def test_fail_closed_without_a_named_file_still_hedges() -> None:
    verdict = Verdict(status=Status.BLOCKED, gate=Gate.IGNORE, fail_closed=True)
    text = R.render_verdict("a", verdict)
    assert text.startswith("[BLOCKED]: Blocked by ignore-rule checking: an ignore file could not be read.")
    assert "exist" not in text.lower()


def test_fail_closed_never_prints_a_remedy_even_if_one_is_set() -> None:
    verdict = Verdict(status=Status.BLOCKED, gate=Gate.IGNORE, fail_closed=True, unreadable=".gitignore",
                      remedy=Remedy(file=".pathgateignore", lines=("!/a",)))
    assert "!/a" not in R.render_verdict("a", verdict)


def test_says_discovery_tools_leave_it_out() -> None:
    for verdict in (IGNORED_FILE, IGNORED_DELETED, IGNORED_ANCESTOR, FAIL_CLOSED):
        assert "glob, list_directory and code_search tools leave it out too" in R.render_verdict("a", verdict)


def test_excluded_ancestor_caveat_names_directory_and_its_rule() -> None:
    text = R.render_verdict("build/out.js", IGNORED_ANCESTOR)
    assert "its directory `build/`" in text
    assert "`.gitignore:1:build/`" in text
    assert "A file-level negation cannot re-include a file below an excluded directory." in text


def test_no_ancestor_caveat_for_a_file_level_match() -> None:
    assert "negation" not in R.render_verdict("debug.log", IGNORED_FILE)


def test_remedy_lines_are_given_exactly_one_per_line() -> None:
    text = R.render_verdict("build/out.js", IGNORED_ANCESTOR)
    head, _, tail = text.partition("add these lines to `.pathgateignore`:\n")
    assert head and tail.split("\n") == ["!/build/", "/build/*", "!/build/out.js"]


def test_remedy_names_a_nested_agent_file() -> None:
    verdict = Verdict(status=Status.BLOCKED, gate=Gate.IGNORE,
                      rule=Rule(source="pkg/.gitignore", line=7, pattern="gen/"),
                      remedy=Remedy(file="pkg/.pathgateignore", lines=("!/gen/x.py",)))
    assert R.render_verdict("pkg/gen/x.py", verdict).endswith(
        "add these lines to `pkg/.pathgateignore`:\n!/gen/x.py")


def test_no_remedy_sentence_without_a_remedy() -> None:
    assert "unblock" not in R.render_verdict("a", IGNORED_DELETED)


def test_common_ignore_message_is_short() -> None:
    assert len(EXPECTED["ignored"]) < 400
    assert len(R.render_verdict("a", IGNORED_DELETED)) < 400


def test_sentences_stay_short() -> None:
    # One idea per sentence: no sentence of the common message runs past ~90 characters.
    body = EXPECTED["ignored"].split(":\n")[0].removeprefix("[BLOCKED]: ")
    for sentence in body.split(". "):
        assert len(sentence) <= 90, sentence


# --- other statuses ------------------------------------------------------------------------

def test_size_block_gives_size_limit_and_next_step() -> None:
    text = R.render_verdict("big.bin", BLOCKS["too_large"])
    assert "12 MiB" in text and "10 MiB" in text
    assert "line window" in text and "offset and limit" in text
    assert "code_search" not in text  # not a route that works on an oversize file (issue 12 item 10)


def test_size_block_without_facts_still_has_the_next_step() -> None:
    text = R.render_verdict("big.bin", Verdict(status=Status.FILE_TOO_LARGE, gate=Gate.SIZE))
    assert text == ("[FILE_TOO_LARGE]: The file is over the size limit. Read a line window of it "
                    "with read_files offset and limit.")


def test_read_error_without_detail() -> None:
    text = R.render_verdict("a", Verdict(status=Status.FILE_READ_ERROR, gate=Gate.READ))
    assert text == "[FILE_READ_ERROR]: The file could not be read."


def test_truncated_content_then_notice() -> None:
    out = R.render_read([truncated("big.txt", "a\nb\n", total_lines=500)])
    assert out == {"big.txt": (
        "a\nb\n[FILE_TOO_LARGE]: Cut here to fit this call's output budget. The file has 500 lines. "
        "Read the rest with read_files offset and limit.")}


def test_content_unchanged_in_request_order() -> None:
    out = R.render_read([content("b", "B"), blocked("a", BLOCKS["missing"]), content("c", "C")])
    assert list(out.items()) == [("b", "B"), ("a", EXPECTED["missing"]), ("c", "C")]


def test_options_replace_the_hints() -> None:
    r = VerboseRenderer(discovery_note="Search skips it too.", window_hint="Use head.")
    assert "Search skips it too." in r.render_verdict("a", IGNORED_FILE)
    assert r.render_verdict("a", BLOCKS["too_large"]).endswith("Use head.")


def test_tool_description_explains_every_status_once() -> None:
    for status in Status:
        if status is not Status.OK and status not in WRITE_STATUSES:
            assert READ_FILES_DESCRIPTION.count(f"\n{status.sentinel}: ") == 1, status
    assert R.read_files_description == READ_FILES_DESCRIPTION

"""The structured renderer: hand-written objects per status, and the published schema."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from pathgate.renderers.structured import (
    Blocked,
    ReadFilesOutput,
    StructuredRenderer,
    read_files_output_schema,
)
from pathgate.verdicts import WRITE_STATUSES, Gate, Status, Verdict

from ._facts import BLOCKS, blocked, content, truncated

R = StructuredRenderer()

# Written by hand from the contract: non-opaque blocks carry their facts; opaque ones only
# path and status.
EXPECTED: dict[str, dict[str, Any]] = {
    "ignored": {
        "path": "f", "status": "blocked", "gate": "ignore",
        "rule": {"source": ".gitignore", "line": 3, "pattern": "*.log"},
        "ancestor": None, "exists": True, "fail_closed": False, "unreadable": None,
        "remedy": {"file": ".pathgateignore", "lines": ["!/debug.log"], "ancestor": None},
    },
    "ignored_deleted": {
        "path": "f", "status": "blocked", "gate": "ignore",
        "rule": {"source": ".gitignore", "line": 3, "pattern": "*.log"},
        "ancestor": None, "exists": None, "fail_closed": False, "unreadable": None, "remedy": None,
    },
    "ancestor": {
        "path": "f", "status": "blocked", "gate": "ignore",
        "rule": {"source": ".gitignore", "line": 1, "pattern": "build/"},
        "ancestor": "build", "exists": True, "fail_closed": False, "unreadable": None,
        "remedy": {"file": ".pathgateignore", "lines": ["!/build/", "/build/*", "!/build/out.js"],
                   "ancestor": "build"},
    },
    "builtin": {
        "path": "f", "status": "blocked", "gate": "ignore",
        "rule": {"source": "<built-in>", "line": 2, "pattern": "node_modules/"},
        "ancestor": "node_modules", "exists": True, "fail_closed": False, "unreadable": None,
        "remedy": None,
    },
    "fail_closed": {
        "path": "f", "status": "blocked", "gate": "ignore", "rule": None, "ancestor": None,
        "exists": True, "fail_closed": True, "unreadable": "pkg/.gitignore", "remedy": None,
    },
    "secret": {"path": "f", "status": "blocked"},
    "host": {"path": "f", "status": "blocked"},
    "missing": {"path": "f", "status": "file_does_not_exist", "gate": "existence"},
    "not_a_file": {"path": "f", "status": "not_a_file", "gate": "existence"},
    "outside": {"path": "f", "status": "file_outside_project", "gate": "path"},
    "too_large": {"path": "f", "status": "file_too_large", "gate": "size",
                  "size": 12582912, "limit": 10485760},
    "read_error": {"path": "f", "status": "file_read_error", "gate": "read", "detail": "EACCES"},
    "binary": {"path": "f", "status": "binary_file", "gate": "read"},
}


def roundtrip(out: dict[str, Any]) -> ReadFilesOutput:
    return msgspec.json.decode(msgspec.json.encode(out), type=ReadFilesOutput)


def test_every_block_kind_has_an_expectation() -> None:
    assert set(EXPECTED) == set(BLOCKS)


@pytest.mark.parametrize("label", sorted(EXPECTED))
def test_golden(label: str) -> None:
    out = R.render_read([blocked("f", BLOCKS[label])])
    assert out == {"files": [EXPECTED[label]]}
    assert R.render_verdict("f", BLOCKS[label]) == EXPECTED[label]


@pytest.mark.parametrize("label", sorted(EXPECTED))
def test_output_decodes_back_against_the_schema_type(label: str) -> None:
    out = R.render_read([blocked("f", BLOCKS[label]), content("g", "x")])
    decoded = roundtrip(out)
    assert msgspec.to_builtins(decoded) == out


def test_content_entries_in_request_order() -> None:
    out = R.render_read([content("b.txt", "B\n"), blocked(".env", BLOCKS["secret"]),
                         truncated("a", "x\n", 9)])
    assert out == {"files": [
        {"path": "b.txt", "status": "ok", "content": "B\n", "truncated": False, "total_lines": None,
         "limit": None},
        {"path": ".env", "status": "blocked"},
        {"path": "a", "status": "ok", "content": "x\n", "truncated": True, "total_lines": 9, "limit": 100},
    ]}
    roundtrip(out)


def test_opaque_entry_decodes_with_every_fact_unset() -> None:
    entry = roundtrip(R.render_read([blocked(".env", BLOCKS["secret"])])).files[0]
    assert isinstance(entry, Blocked)
    assert entry == Blocked(path=".env")
    assert entry.gate is msgspec.UNSET and entry.exists is msgspec.UNSET


def test_ok_verdict_is_withheld_not_guessed() -> None:
    # A verdict with status OK is a contract breach: render as withheld.
    odd = Verdict(status=Status.OK, gate=Gate.READ)
    assert R.render_verdict("a", odd) == {"path": "a", "status": "blocked"}


# --- the published schema ------------------------------------------------------------------

def test_schema_root_is_an_object_not_a_ref() -> None:
    schema = read_files_output_schema()
    assert schema["type"] == "object"
    assert "$ref" not in schema
    assert schema["required"] == ["files"]
    assert schema["properties"]["files"]["type"] == "array"


def test_schema_refs_all_resolve_inside_defs() -> None:
    schema = read_files_output_schema()
    defs = schema["$defs"]
    refs: list[str] = []

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            if "$ref" in node:
                refs.append(node["$ref"])
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    walk(schema)
    assert refs
    for ref in refs:
        assert ref.startswith("#/$defs/")
        assert ref.removeprefix("#/$defs/") in defs, ref


def test_schema_has_no_keywords_strict_validators_reject() -> None:
    text = msgspec.json.encode(read_files_output_schema()).decode()
    assert '"discriminator"' not in text
    assert '"$schema"' not in text


def test_schema_lists_every_status_code() -> None:
    schema = read_files_output_schema()
    tags = {d["properties"]["status"]["enum"][0] for d in schema["$defs"].values()
            if "status" in d.get("properties", {})}
    assert tags == {s.code for s in Status if s not in WRITE_STATUSES}


def test_schema_opaque_entry_needs_only_path_and_status() -> None:
    blocked_def = read_files_output_schema()["$defs"]["Blocked"]
    assert sorted(blocked_def["required"]) == ["path", "status"]


def test_schema_is_a_fresh_copy_per_call() -> None:
    a = read_files_output_schema()
    a["type"] = "mutated"
    assert read_files_output_schema()["type"] == "object"
    assert R.output_schema() == read_files_output_schema()


def test_schema_validates_outputs_with_jsonschema_when_available() -> None:
    jsonschema = pytest.importorskip("jsonschema")
    validator = jsonschema.Draft202012Validator(read_files_output_schema())
    results = [blocked(f"p{i}", v) for i, v in enumerate(BLOCKS.values())]
    results += [content("c", "text"), truncated("t", "x")]
    validator.validate(R.render_read(results))


def test_fail_closed_never_carries_a_remedy() -> None:
    from pathgate.verdicts import Remedy

    verdict = Verdict(status=Status.BLOCKED, gate=Gate.IGNORE, fail_closed=True, unreadable=".gitignore",
                      remedy=Remedy(file=".pathgateignore", lines=("!/a",)))
    assert R.render_verdict("a", verdict)["remedy"] is None

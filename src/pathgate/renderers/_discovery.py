"""Rendering the discovery tools' results (glob, list_directory, code_search).

Text renderers give a small JSON-ready object: the listed lines (``matches`` / ``entries``
/ ``hits``) and ``notes`` — one short sentence per omission, excluded directory not
searched, truncation or skipped file. The structured renderer gives the result as data
(with a published schema). In both, a blocked start directory is rendered by the
renderer's own ``render_verdict``, so opaque blocks stay the bare ``[BLOCKED]``.

Opaque gates never appear: the tools do not count them, and the notes below name only the
gates they did count.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

import msgspec

from pathgate._names import spell_path
from pathgate._schema import inline_schema
from pathgate.renderers._base import Renderer, is_opaque
from pathgate.results import GlobResult, ListResult, Omission, SearchResult, Unsearched
from pathgate.verdicts import Gate, Rule

__all__ = ["DiscoveryResult", "discovery_output_schema", "render_discovery"]

DiscoveryResult = GlobResult | ListResult | SearchResult

_REASONS: Mapping[Gate, str] = {
    Gate.PATH: "the path check (outside the project, or git internals)",
    Gate.IGNORE: "ignore rules",
    Gate.EXISTENCE: "the file-type check",
    Gate.SIZE: "the size limit",
    Gate.READ: "read errors",
}


def _rule_text(rule: Rule | None) -> str:
    if rule is None:
        return "ignore rules"
    if rule.is_builtin:
        return f"the built-in default `{rule.pattern}`"
    return rule.location()


#: Per unit: (singular, plural, verb phrase) of an omission note.
_UNIT_WORDS: Mapping[str, tuple[str, str, str]] = {
    "matches": ("match", "matches", "omitted by"),
    "entries": ("entry", "entries", "hidden by"),
    "files": ("file", "files", "not searched: excluded by"),
}


def omission_text(om: Omission) -> str | None:
    """One note for one omission, worded by its ``unit`` (never for opaque gates):

    * glob: ``"2 matches omitted by ignore rules, e.g. build/out.js"``;
    * list_directory: ``"1 entry hidden by ignore rules, e.g. build/"``;
    * code_search: ``"3 files not searched: excluded by ignore rules, e.g. build/out.js"``
      — files, not matches: nothing is claimed about what they contain.
    """
    if om.gate in (Gate.SECRETS, Gate.HOST_FILTER) or om.count <= 0:
        return None
    one, many, verb = _UNIT_WORDS.get(om.unit, _UNIT_WORDS["matches"])
    word = one if om.count == 1 else many
    head = f"at least {om.count}" if om.lower_bound else str(om.count)
    reason = _REASONS.get(om.gate, om.gate.value)
    if om.fail_closed:
        reason = "ignore-rule checking (an ignore file that governs them could not be read)"
    text = f"{head} {word} {verb} {reason}"
    if om.examples:
        # a name holding ", " would read as several examples: it is shown C-quoted
        text += ", e.g. " + ", ".join(spell_path(e, force=True) if ", " in e and not e.startswith('"') else e
                                    for e in om.examples)
    return text


_UNSEARCHED_ERRORS: Mapping[str, str] = {
    "EACCES": "permission denied",
    "EPERM": "permission denied",
    "ENAMETOOLONG": "its path is too long to open",
    "ELOOP": "it changed into a symlink during the walk",
    "ENOTDIR": "it changed into a non-directory during the walk",
    "ENOENT": "it disappeared during the walk",
}


def unsearched_text(u: Unsearched) -> str:
    if u.error is not None:
        return f"{u.path}/ not searched: {_UNSEARCHED_ERRORS.get(u.error, 'could not be listed (' + u.error + ')')}"
    if u.fail_closed:
        return f"{u.path}/ not searched: blocked by ignore-rule checking (an ignore file could not be read)"
    return f"{u.path}/ not searched: ignored by {_rule_text(u.rule)}"


def _notes(result: DiscoveryResult) -> list[str]:
    notes: list[str] = []
    for om in result.omitted:
        text = omission_text(om)
        if text:
            notes.append(text)
    if isinstance(result, ListResult):
        if result.truncated:
            notes.append(f"showing the first {len(result.entries)} of {result.total} entries (by name); "
                         "raise the limit, or glob a pattern in this directory to see the others")
        return notes
    for u in result.unsearched:
        notes.append(unsearched_text(u))
    if isinstance(result, GlobResult):
        if result.truncated:
            notes.append(f"showing {len(result.matches)} of {result.total} matches; "
                         "narrow the pattern or raise the limit")
    else:
        if result.output_budget is not None:
            notes.append(_budget_note(len(result.hits), result.output_budget))
        elif result.truncated:
            notes.append(f"showing the first {len(result.hits)} hits; narrow the search or raise max_results")
        if result.time_limit is not None:
            notes.append(_time_note(result.files_searched, result.files_not_searched, result.time_limit))
        for n, what in ((result.skipped_binary, "binary"), (result.skipped_too_large, "over the size limit"),
                        (result.skipped_unreadable, "unreadable")):
            if n:
                notes.append(f"{n} {'file' if n == 1 else 'files'} skipped: {what}")
    if result.walk_stopped_early:
        notes.append("the walk stopped at its work budget; results may be incomplete: narrow the path")
    return notes


def _budget_note(shown: int, budget: int) -> str:
    """code_search's hits cut by the call's output budget (``max_results`` cannot lift it)."""
    hits = "hit" if shown == 1 else "hits"
    return (f"showing the first {shown} {hits}: cut to fit this call's output budget ({budget:,} "
            "characters); narrow the search with a more specific regex, a path or a glob")


def _time_note(searched: int, left: int, seconds: float) -> str:
    """code_search stopped at its time limit: counts and the limit only, never what the files
    left hold (the same note whatever they are)."""
    files = "file" if searched == 1 else "files"
    return (f"the search stopped at its time limit ({seconds:g} s of searching): {searched:,} {files} searched, "
            f"{left:,} not searched (or not to the end), so hits may be missing; narrow the search with a path "
            "or a glob, or a more literal regex")


def _kind_suffix(kind: str) -> str:
    return {"dir": "/", "symlink": "@"}.get(kind, "")


def _entry(name: str, kind: str) -> str:
    """A listed name with its kind's suffix; a name that itself ends in a suffix character
    (``real.txt@`` would read as a symlink) is shown C-quoted."""
    if name.endswith(("@", "/")) and not name.startswith('"'):
        name = spell_path(name, force=True)
    return name + _kind_suffix(kind)


#: A name holding ``:12:`` would read as a hit of another file (``a.py:12:password``).
_FAKE_HIT = re.compile(r":[0-9]+:")


def _hit_lines(result: SearchResult) -> list[str]:
    lines: list[str] = []
    shown: dict[str, str] = {}
    for h in result.hits:
        path = shown.get(h.path)
        if path is None:
            path = shown[h.path] = (spell_path(h.path, force=True)
                                    if _FAKE_HIT.search(h.path) and not h.path.startswith('"') else h.path)
        first = h.line - len(h.context_before)
        for k, text in enumerate(h.context_before):
            lines.append(f"{path}-{first + k}-{text}")
        lines.append(f"{path}:{h.line}:{h.text}")
        for k, text in enumerate(h.context_after):
            lines.append(f"{path}-{h.line + 1 + k}-{text}")
    return lines


def render_text_discovery(renderer: Renderer, result: DiscoveryResult) -> dict[str, Any]:
    """The text renderers' discovery output."""
    key, lines = _lines(result)
    out: dict[str, Any] = {key: lines, "notes": _notes(result)}
    if result.verdict is not None:
        out["notes"] = [renderer.render_verdict(result.path, result.verdict)]
    return out


def _lines(result: DiscoveryResult) -> tuple[str, list[str]]:
    if isinstance(result, GlobResult):
        return "matches", list(result.matches)
    if isinstance(result, ListResult):
        return "entries", [_entry(e.name, e.kind) for e in result.entries]
    return "hits", _hit_lines(result)


def _plain(obj: Any) -> Any:
    """JSON-ready containers (tuples become lists), leaving strings as they are."""
    if isinstance(obj, dict):
        return {k: _plain(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_plain(v) for v in obj]
    return obj


def render_structured_discovery(renderer: Renderer, result: DiscoveryResult) -> dict[str, Any]:
    """The structured renderer's discovery output: the result as data, plus ``notes``.

    Built with ``to_builtins``, not a JSON round trip. Through ``Runtime.call`` every name is
    already spelled JSON-safe (``pathgate._names``); a raw typed result may still hold
    surrogate-escaped names (undecodable bytes), which the host's encoder then decides."""
    data: dict[str, Any] = _plain(msgspec.to_builtins(result))
    verdict = data.pop("verdict", None)
    if result.verdict is not None and verdict is not None:
        data["blocked"] = renderer.render_verdict(result.path, result.verdict)
        if is_opaque(result.verdict):
            data["blocked"] = {"path": result.path, "status": "blocked"}
    data["notes"] = _notes(result) if result.verdict is None else []
    return data


def render_discovery(renderer: Renderer, result: DiscoveryResult) -> dict[str, Any]:
    """Render a discovery result with ``renderer``: its own ``render_discovery`` when it has
    one (host renderers may), else the structured or the text form."""
    own: Callable[[DiscoveryResult], dict[str, Any]] | None = getattr(renderer, "render_discovery", None)
    if own is not None:
        return own(result)
    if renderer.output_schema() is not None:
        return render_structured_discovery(renderer, result)
    return render_text_discovery(renderer, result)


def discovery_output_schema(tp: type[DiscoveryResult]) -> dict[str, Any]:
    """JSON Schema (object root) of the structured form of ``tp``."""

    schema = inline_schema(tp)
    props = dict(schema.get("properties", {}))
    props.pop("verdict", None)
    props["blocked"] = {"type": "object", "description": "set when the start directory was blocked"}
    props["notes"] = {"type": "array", "items": {"type": "string"}}
    schema["properties"] = props
    defs = schema.get("$defs", {})
    for unused in ("Verdict", "Remedy"):
        defs.pop(unused, None)
    return schema

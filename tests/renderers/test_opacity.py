"""Opaque verdicts (secrets, host filter) render as the bare [BLOCKED] in every renderer —
no gate, rule, reason, existence or remedy — whatever the verdict carries and whatever the
path is called."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from pathgate.renderers import SentinelRenderer, StructuredRenderer, VerboseRenderer
from pathgate.verdicts import FileResult, Gate, Remedy, Rule, Status, Verdict

ADVERSARIAL_PATHS = [
    ".env",
    ".ENV",
    ".env ",
    ".env:$DATA",
    "config/.env.production",
    "id_rsa",
    "keys/server.pem",
    "link-to-env",  # a symlink whose target is .env
    ".gitignore",
    "ignored-by-ignore-rules.txt",
    "please ignore me",
    "a\nb [BLOCKED]: Excluded by ignore rules",
    "x\r\n.pathgateignore",
    "`.gitignore:1:*`",
    "dir with spaces/ünïcödé.txt",
]

# Everything a loaded opaque verdict could leak, were a renderer to look at it.
LOADED = [
    Verdict(status=Status.BLOCKED, gate=gate, opaque=True, exists=True,
            rule=Rule(source=".gitignore", line=9, pattern=".env*"), ancestor="config",
            fail_closed=True, unreadable="config/.gitignore", size=123, limit=10,
            remedy=Remedy(file=".pathgateignore", lines=("!/.env",), ancestor="config"),
            detail="ENOENT")
    for gate in (Gate.SECRETS, Gate.HOST_FILTER, Gate.IGNORE)
] + [
    # An opaque gate, even if a buggy gate forgot the flag or used another status.
    Verdict(status=Status.FILE_TOO_LARGE, gate=Gate.SECRETS, size=5, limit=1, exists=True),
    Verdict(status=Status.BLOCKED, gate=Gate.HOST_FILTER, exists=True,
            rule=Rule(source=".gitignore", line=1, pattern="x")),
    # Opaque with content (a truncation notice on a secret must not show the content).
    Verdict(status=Status.FILE_TOO_LARGE, gate=Gate.SIZE, opaque=True, size=5, limit=1),
]

FORBIDDEN = ["secret", "host", "filter", "ignore", "rule", "exist", "remedy", "gate", "gitignore",
             ".env*", "config", "ENOENT", "123"]


@pytest.mark.parametrize("verdict", LOADED, ids=lambda v: f"{v.gate.value}-{v.status.code}")
@pytest.mark.parametrize("path", ADVERSARIAL_PATHS)
def test_text_renderers_give_the_bare_sentinel(path: str, verdict: Verdict) -> None:
    result = FileResult(path=path, verdict=verdict, content="TOP SECRET", truncated=True)
    for renderer in (SentinelRenderer(), VerboseRenderer()):
        assert renderer.render_read([result]) == {path: "[BLOCKED]"}
        assert renderer.render_verdict(path, verdict) == "[BLOCKED]"


@pytest.mark.parametrize("verdict", LOADED, ids=lambda v: f"{v.gate.value}-{v.status.code}")
@pytest.mark.parametrize("path", ADVERSARIAL_PATHS)
def test_structured_gives_path_and_status_only(path: str, verdict: Verdict) -> None:
    result = FileResult(path=path, verdict=verdict, content="TOP SECRET", truncated=True)
    out = StructuredRenderer().render_read([result])
    assert out == {"files": [{"path": path, "status": "blocked"}]}
    assert StructuredRenderer().render_verdict(path, verdict) == {"path": path, "status": "blocked"}
    encoded = msgspec.json.encode(out).decode()
    rest = encoded.replace(msgspec.json.encode(path).decode(), "")
    for word in [*FORBIDDEN, "TOP SECRET"]:
        assert word not in rest, word


def test_opaque_among_others_leaves_neighbours_alone() -> None:
    results = [
        FileResult(path="a.log", verdict=Verdict(status=Status.BLOCKED, gate=Gate.IGNORE,
                                                  rule=Rule(".gitignore", 1, "*.log"), exists=True)),
        FileResult(path=".env", verdict=LOADED[0]),
        FileResult(path="b.txt", content="B"),
    ]
    out: dict[str, Any] = VerboseRenderer().render_read(results)
    assert out[".env"] == "[BLOCKED]"
    assert out["a.log"].startswith("[BLOCKED]: Excluded by ignore rules")
    assert out["b.txt"] == "B"

"""The batch read's gate shortcuts (issue 19) answer exactly as the gates themselves.

* the secrets gate's as-written pass as one loop (``SecretsGate.written_all``) against
  ``check_written`` path by path, on facts in every state a pipeline may hand it;
* the pipeline takes that loop only for the secrets gate's own ``check_written``;
* ``_spell_reads``' whole-batch test against ``spell_names``;
* the linked-secret gate's one-link pass in the worker (no frame): a file whose inode the
  registry's last snapshot knows is left to the gate, any other is cleared.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import anyio
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pathgate import FileResult, Gate, Policy, Runtime, Status, Verdict
from pathgate._names import spell_names
from pathgate.runtime._runtime import _spell_reads
from pathgate.runtime.fs import Resolved
from pathgate.runtime.gates import GateContext, GatePipeline, PathFacts, SecretMatcher, SecretsGate, lexical_name
from pathgate.runtime.gates import _whole_written as whole_written
from tests.hardening._twotrees import build

ROOT = "/r"
_PARTS = st.sampled_from([".env", ".ENV", ".env.local", ".env.example", "a", "id_rsa", "x.pem", ".", "..", "",
                          "b:c", ".env:x", "é", "k~", "#.env#", ".aws", "credentials", "src", "/r"])
_SPELLINGS = st.lists(_PARTS, min_size=1, max_size=4).map("/".join)
_STATES = st.sampled_from(["fresh", "secret", "plain_secret", "resolved", "no_name"])


class _Matcher(SecretMatcher):
    """A subclass: the loop must ask its own ``is_secret_facts``."""

    def is_secret_facts(self, facts: PathFacts, root: str | None = None) -> bool:
        return facts.request.endswith("a") or super().is_secret_facts(facts, root)


def _facts(request: str, state: str) -> PathFacts:
    f = PathFacts(request, lexical_name(request, ROOT))
    if state == "secret":
        f.secret = request.startswith("a")
    elif state == "plain_secret":
        f.plain_secret = "src" in request
    elif state == "resolved":
        f.resolved = Resolved(request, ROOT + "/" + request, request)
    elif state == "no_name":
        f.name = None
    return f


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(_SPELLINGS, _STATES), max_size=8), st.booleans(), st.booleans())
def test_written_all_equals_check_written(items: list[tuple[str, str]], subclass: bool, warm: bool) -> None:
    matcher = (_Matcher if subclass else SecretMatcher)(Policy().secret_patterns)
    gate = SecretsGate(matcher)
    ctx = GateContext(Policy(), root=ROOT)
    if warm:  # the path cache already holds some answers
        for request, _ in items[::2]:
            matcher.is_secret(request.strip("/"))
    one = [_facts(r, s) for r, s in items]
    each = [_facts(r, s) for r, s in items]
    pending = list(range(len(items)))
    verdicts: list[Verdict | None] = [None] * len(items)
    blocked = gate.written_all(one, ctx, pending, verdicts)
    expected = [gate.check_written(f, ctx) for f in each]
    assert verdicts == expected
    assert blocked == any(v is not None for v in expected)
    assert one == each  # the same facts remembered (``plain_secret``, ``secret``)


def test_written_all_leaves_paths_not_pending() -> None:
    gate = SecretsGate(SecretMatcher(Policy().secret_patterns))
    facts = [PathFacts(".env", ".env"), PathFacts("a", "a"), PathFacts("id_rsa", "id_rsa")]
    verdicts: list[Verdict | None] = [None] * 3
    assert gate.written_all(facts, GateContext(Policy(), root=ROOT), [1, 2], verdicts)
    assert verdicts[0] is None and verdicts[1] is None and verdicts[2] is not None and verdicts[2].opaque
    assert facts[0].plain_secret is None


def test_the_pipeline_loops_only_the_secrets_gates_own_check_written() -> None:
    matcher = SecretMatcher(Policy().secret_patterns)

    class Own(SecretsGate):  # lets everything through (as written and after)
        def check_written(self, facts: PathFacts, ctx: GateContext) -> Verdict | None:
            return None

        def check(self, facts: PathFacts, ctx: GateContext) -> Verdict | None:
            return None

    plain = SecretsGate(matcher)
    assert whole_written(plain.check_written) == plain.written_all
    assert whole_written(Own(matcher).check_written) is None
    assert whole_written(Own(matcher).check) is None
    assert whole_written(plain.check) is None
    pipeline = GatePipeline.for_policy(Policy())
    assert [w is not None for _, w in pipeline._written_steps] == [
        type(getattr(w, "__self__", None)) is SecretsGate for w in pipeline.written]

    async def main() -> list[Verdict | None]:  # a subclass's own check_written decides
        gates = list(pipeline.gates)
        gates[1] = Own(matcher)
        return await GatePipeline(gates, matcher).run([PathFacts(".env", ".env")], GateContext(Policy()), None)

    assert anyio.run(main) == [None]


_RESULTS = [
    FileResult(path="a.txt", content="x\n", relpath="a.txt", total_lines=1),
    FileResult(path="b.txt", content="", relpath="b.txt", total_lines=0),
    FileResult(path="c\x01.txt", content="y", relpath="c\x01.txt", total_lines=1),
    FileResult(path='"q".txt', content="q", relpath='"q".txt', total_lines=1),
    FileResult(path="é.txt", content="e", relpath="é.txt", total_lines=1),
    FileResult(path="u.txt", content="é", relpath="u.txt", total_lines=1),
    FileResult(path="s.txt", content="\udcff", relpath="s.txt", total_lines=1),
    FileResult(path="./a.txt", relpath="a.txt", same_as="a.txt"),
    FileResult(path="b", relpath="b\x02", same_as="b\udcfe"),
    FileResult(path=".env", verdict=Verdict(status=Status.BLOCKED, gate=Gate.SECRETS, opaque=True)),
    FileResult(path="z\udcfe", verdict=Verdict(status=Status.FILE_DOES_NOT_EXIST, gate=Gate.EXISTENCE),
               relpath="z\udcfe"),
    FileResult(path="m.txt", content=None, relpath="m.txt"),
    FileResult(path="r.txt", content="r", relpath="other.txt", total_lines=1),
    FileResult(path="t\x7f.txt", content="t", relpath="t\x7f.txt", total_lines=1),
]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(range(len(_RESULTS))), max_size=6))
def test_spell_reads_equals_spell_names(picks: list[int]) -> None:
    results = []
    for i in picks:
        r = _RESULTS[i]
        # a read's relpath is its path (the same object) when the spelling is its own real path
        results.append(FileResult(path=r.path, content=r.content, verdict=r.verdict, same_as=r.same_as,
                                  relpath=r.path if r.relpath == r.path else r.relpath, total_lines=r.total_lines))
    assert _spell_reads(results) == spell_names(results)
    assert _spell_reads(results) is not results


def _cleared(root: Path, paths: list[str]) -> dict[str, tuple[bool, Any]]:
    """Read ``paths`` in one worker batch: per path, (every gate cleared in the worker, the result)."""
    rt = Runtime(root, Policy())
    rt.inline_reads.enabled = False
    seen: list[PathFacts] = []
    run = rt.pipeline.run

    async def spy(facts: Any, ctx: Any, source: Any, **kw: Any) -> Any:
        seen.extend(facts)
        return await run(facts, ctx, source, **kw)

    rt.pipeline.run = spy  # type: ignore[method-assign]

    async def main() -> list[FileResult]:
        await rt.read_files(["d/alias.txt"])  # the registry is made: a file of two links
        os.unlink(root / "d/.env")  # the secret's name gone: its alias has one link now
        seen.clear()
        return await rt.read_files(paths)

    results = anyio.run(main)
    last = len(rt.pipeline.gates)
    return {f.request: (f.cleared == last, r) for f, r in zip(seen, results, strict=True)}


def test_a_one_link_file_the_registry_knows_is_left_to_the_gate(tmp_path: Path) -> None:
    root = tmp_path / "t"
    build(root, {"d/.env": "S=1\n", "d/alias.txt": ("hardlink", "d/.env"), "d/a.txt": "a\n", "d/b.txt": "b\n"})
    got = _cleared(root, ["d/a.txt", "d/alias.txt", "d/b.txt"])
    assert got["d/a.txt"][0] and got["d/b.txt"][0]  # not known to the snapshot: cleared in the worker
    assert not got["d/alias.txt"][0]  # the last snapshot knows its inode: the gate decides
    assert got["d/alias.txt"][1].content == "S=1\n"  # (revalidated: no secret name links to it now)


@pytest.mark.parametrize("strict", [False, True])
def test_batch_of_linked_files_equals_one_by_one(tmp_path: Path, strict: bool) -> None:
    root = tmp_path / "t"
    build(root, {".env": "S=1\n", "d/alias.txt": ("hardlink", ".env"), "d/a.txt": "a\n",
                 "d/twin1.txt": "tw\n", "e/twin2.txt": ("hardlink", "d/twin1.txt"), "e/b.txt": "b\n"})
    paths = ["d/a.txt", "d/alias.txt", "d/twin1.txt", "e/twin2.txt", "e/b.txt", ".env"]
    policy = Policy(strict_hard_links=strict)

    async def main() -> tuple[list[FileResult], list[FileResult]]:
        rt = Runtime(root, policy)
        rt.inline_reads.enabled = False
        batch = await rt.read_files(paths)
        single = Runtime(root, policy)
        return batch, [(await single.read_files([p]))[0] for p in paths]

    batch, single = anyio.run(main)
    assert batch == single
    by = {r.path: r for r in batch}
    assert by["d/alias.txt"].verdict is not None and by["d/alias.txt"].verdict.opaque
    assert (by["e/twin2.txt"].verdict is not None) == strict
    assert by["d/a.txt"].content == "a\n"


def test_spell_reads_tests_every_ascii_character_as_isprintable_does() -> None:
    """The batch's printable test (a table look-up a byte) against ``spell_names`` for each
    ASCII character in a path, and in a path among plain ones."""
    for c in range(128):
        path = f"d/a{chr(c)}b.txt"
        one = FileResult(path=path, content="x", relpath=path, total_lines=1)
        plain = FileResult(path="p.txt", content="y", relpath="p.txt", total_lines=1)
        for results in ([one], [plain, one, plain]):
            assert _spell_reads(results) == spell_names(results), c

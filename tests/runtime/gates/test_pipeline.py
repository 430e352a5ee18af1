"""The gate loop: SPEC order, first blocking gate wins, facts fetched once, host gates,
the discovery entry point."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest

from pathgate import Gate, Policy, Rule, Runtime, Status, Verdict
from pathgate.runtime.gates import (
    Fact,
    GateContext,
    GatePipeline,
    PathFacts,
    SecretMatcher,
    default_gates,
)
from pathgate.runtime.ignore import Match
from tests.runtime.gates._tree import SeamFS, write_tree


def test_default_order_and_names() -> None:
    names = [g.name for g in default_gates(Policy(host_filter=lambda p: True))]
    # the secrets gate has a second step on the open descriptor (hard links), first of the
    # gates that need one
    assert names == ["path", "secrets", "host_filter", "ignore", "secrets", "existence", "size", "read"]
    assert list(dict.fromkeys(names)) == [g.value for g in Gate if g is not Gate.WRITE]
    # switched-off steps are left out of the chain
    assert [g.name for g in default_gates(Policy(enforce_secrets=False))] == [
        "path", "ignore", "existence", "size", "read"
    ]


def test_path_gate_must_come_first() -> None:
    gates = default_gates(Policy())
    with pytest.raises(ValueError, match="path gate"):
        GatePipeline(gates[1:], SecretMatcher(()))


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    return write_tree(
        tmp_path / "root",
        {
            ".gitignore": ".env\nbuild/\n*.bin\n",
            ".env": "S=1\n",
            "build/big.js": "x" * 500,
            "data.bin": b"\x00" * 500,
            "big.txt": b"\x00" * 500,
            "src/a.py": "a\n",
        },
    )


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("path", "gate", "opaque"),
    [
        ("../.env", Gate.SECRETS, True),  # a secret name as written: opaque whatever its target
        ("../x", Gate.PATH, False),  # outside: path first
        (".env", Gate.SECRETS, True),  # secret and ignored: secrets first
        ("src/a.py", Gate.HOST_FILTER, True),  # host filter before ignore
        ("build/gone.js", Gate.IGNORE, False),  # ignored and missing: ignore first
        ("build/big.js", Gate.IGNORE, False),  # ignored and too large: ignore first
        ("data.bin", Gate.IGNORE, False),  # ignored and binary
        ("big.txt", Gate.SIZE, False),  # too large and binary: size first
    ],
)
async def test_first_blocking_gate_wins(tree: Path, path: str, gate: Gate, opaque: bool) -> None:
    policy = Policy(size_limit=100, host_filter=lambda p: p != "src/a.py")
    (r,) = await Runtime(tree, policy).read_files([path])
    assert r.verdict is not None
    assert (r.verdict.gate, r.verdict.opaque) == (gate, opaque)


@pytest.mark.anyio
async def test_later_facts_are_not_fetched_for_blocked_paths(tree: Path) -> None:
    fs = SeamFS()
    rt = Runtime(tree, Policy(), fs=fs)
    await rt.read_files(["../x", ".env", "build/big.js", "src/a.py", "./src/a.py"])
    assert fs.opened == [str(tree.resolve() / "src" / "a.py")]  # one open, for the only survivor


@dataclass(frozen=True)
class NoPyGate:
    """A host gate: blocks *.py files, opaquely, from the path alone."""

    name: str = "no_py"
    needs: frozenset[Fact] = frozenset({Fact.REAL})

    def check(self, facts: PathFacts, ctx: GateContext) -> Verdict | None:
        if facts.relpath is not None and facts.relpath.endswith(".py"):
            return Verdict(status=Status.BLOCKED, gate=Gate.HOST_FILTER, opaque=True, detail=self.name)
        return None


@dataclass(frozen=True)
class ShortFilesOnly:
    """A host gate deciding from the open descriptor (async, to exercise awaitables)."""

    name: str = "short_only"
    needs: frozenset[Fact] = frozenset({Fact.OPEN})

    async def check(self, facts: PathFacts, ctx: GateContext) -> Verdict | None:
        text = facts.opened.text if facts.opened else None
        if text is not None and len(text) > 1:
            return Verdict(status=Status.FILE_TOO_LARGE, gate=Gate.SIZE, detail=self.name)
        return None


@pytest.mark.anyio
async def test_host_gates(tree: Path) -> None:
    write_tree(tree, {"notes.txt": "n\n", "x": "x"})
    rt = Runtime(tree, Policy(), gates=[NoPyGate(), ShortFilesOnly()])
    assert rt.pipeline.names[:3] == ("path", "secrets", "no_py")
    py, notes, x = await rt.read_files(["src/a.py", "notes.txt", "x"])
    assert py.verdict is not None and py.verdict.opaque and py.verdict.detail == "no_py"
    assert notes.verdict is not None and notes.verdict.detail == "short_only"
    assert x.content == "x"


@dataclass(frozen=True)
class Walked:
    relpath: str
    is_dir: bool
    match: Match | None


@pytest.mark.anyio
async def test_check_entries_for_discovery() -> None:
    rule = Rule(source=".gitignore", line=1, pattern="build/")
    policy = Policy(host_filter=lambda p: not p.startswith("private/"), ignore_mode="discovery")
    pipeline = GatePipeline.for_policy(policy)
    ctx = GateContext(policy=policy, purpose="discover")
    entries: Sequence[Walked] = [
        Walked("src/a.py", False, Match(ignored=False)),
        Walked("config/.env.local", False, Match(ignored=False)),
        Walked("private/notes.md", False, Match(ignored=False)),
        Walked("build", True, Match(ignored=True, rule=rule)),
        Walked("build.env", False, None),
    ]
    a, env, private, build, plain = await pipeline.check_entries(entries, ctx)
    assert a is None and plain is None
    assert env is not None and env.opaque and env.gate is Gate.SECRETS
    assert private is not None and private.opaque and private.gate is Gate.HOST_FILTER
    # discovery hides ignored entries even in ignore_mode="discovery"; not opaque: counted
    assert build is not None and not build.opaque and build.rule == rule
    assert pipeline.is_secret("config/.env.local") and not pipeline.is_secret("src/a.py")


@pytest.mark.anyio
async def test_check_entries_keeps_secrets_opaque_without_the_secrets_gate() -> None:
    policy = Policy(enforce_secrets=False)
    pipeline = GatePipeline.for_policy(policy)
    rule = Rule(source=".gitignore", line=1, pattern=".env")
    ctx = GateContext(policy=policy, purpose="discover")
    (v,) = await pipeline.check_entries([Walked(".env", False, Match(ignored=True, rule=rule))], ctx)
    assert v is not None and v.opaque and v.rule is None

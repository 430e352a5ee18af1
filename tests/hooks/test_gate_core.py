"""One decision route, driven two ways: a bare ``GateCore`` without an event loop
(``pathgate hook``, ``pathgate explain``) and a ``Runtime`` on one give the same verdicts."""

from __future__ import annotations

import os
import warnings
from pathlib import Path

import pytest

from pathgate import Gate, Policy, Runtime, Status
from pathgate._explain import explain_paths
from pathgate._hooks._cli import HookArgs, _parser, _plain_args
from pathgate.runtime._gating import GateCore, NeedsEventLoop, run_now
from pathgate.runtime.gates import Fact, GateContext, PathFacts
from pathgate.verdicts import Verdict

PATHS = ["src/app.py", "build/out.js", ".env", "missing.txt", "build", "src", "../x", "./src/app.py",
         "debug.log", ".git/config", "link.py", "out.lnk", "hard.txt", "big.txt", "bin.dat", "src/../.env",
         "src/app.py"]


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    (root / "src").mkdir(parents=True)
    (root / "build").mkdir()
    (root / ".git").mkdir()
    (root / ".git/config").write_text("[core]\n")
    (root / ".gitignore").write_text("build/\n*.log\n")
    (root / ".env").write_text("KEY=1\n")
    (root / "src/app.py").write_text("print(1)\n")
    (root / "build/out.js").write_text("x\n")
    (root / "debug.log").write_text("x\n")
    (root / "big.txt").write_text("x" * 100)
    (root / "bin.dat").write_bytes(b"\x00\x01" * 20)
    (root / "link.py").symlink_to("src/app.py")
    (root / "out.lnk").symlink_to(tmp_path)
    os.link(root / ".env", root / "hard.txt")  # a hard link to a secret
    return root


@pytest.mark.parametrize("purpose", ["read", "discover"])
async def test_check_paths_same_verdicts_with_and_without_an_event_loop(
    anyio_backend: str, tree: Path, purpose: str
) -> None:
    policy = Policy(size_limit=10)
    on_loop = await Runtime(tree, policy=policy).check_paths(PATHS, purpose=purpose)  # type: ignore[arg-type]
    inline = run_now(GateCore(tree, policy=policy).check_paths(PATHS, purpose=purpose))  # type: ignore[arg-type]
    assert inline == on_loop
    assert [v is None for v in inline].count(False) >= 8  # secrets, ignore, outside, .git blocked


async def test_read_verdicts_same_as_read_files(anyio_backend: str, tree: Path) -> None:
    policy = Policy(size_limit=10)
    rt = Runtime(tree, policy=policy)
    results = await rt.read_files(PATHS, budget=1)
    expected = [(r.path, None if r.truncated else r.verdict, r.relpath) for r in results]
    assert [tuple(v) for v in await rt.read_verdicts(PATHS)] == expected
    no_link = [p for p in PATHS if p != "hard.txt"]  # a hard link needs the loop (below)
    inline = run_now(GateCore(tree, policy=policy).read_verdicts(no_link))
    assert [tuple(v) for v in inline] == [e for e in expected if e[0] != "hard.txt"]
    statuses = {v.path: v.verdict.status for v in inline if v.verdict is not None}
    assert statuses["big.txt"] is Status.FILE_TOO_LARGE and statuses["missing.txt"] is Status.FILE_DOES_NOT_EXIST


async def test_explain_needs_the_loop_only_for_a_hard_link(anyio_backend: str, tree: Path) -> None:
    core = GateCore(tree)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no coroutine left un-awaited
        with pytest.raises(NeedsEventLoop):
            run_now(explain_paths(core, ["src/app.py", "hard.txt"]))
    both = await explain_paths(Runtime(tree), ["src/app.py", "hard.txt"])
    assert [e.allowed for e in both] == [True, False] and both[1].gate == "secrets"
    inline = run_now(explain_paths(core, ["src/app.py", "build/out.js", ".env"]))
    on_loop = await explain_paths(Runtime(tree), ["src/app.py", "build/out.js", ".env"])
    assert inline == on_loop


class AsyncGate:
    """A host gate that awaits: it cannot run without an event loop."""

    name = "host_filter"
    needs = frozenset({Fact.NAME})

    async def check(self, facts: PathFacts, ctx: GateContext) -> Verdict | None:
        return Verdict(status=Status.BLOCKED, gate=Gate.HOST_FILTER, opaque=True) if "no" in facts.request else None


async def test_an_awaiting_gate_needs_the_loop(anyio_backend: str, tree: Path) -> None:
    import asyncio

    class Suspends(AsyncGate):
        async def check(self, facts: PathFacts, ctx: GateContext) -> Verdict | None:
            await asyncio.sleep(0)
            return None

    with pytest.raises(NeedsEventLoop):
        run_now(GateCore(tree, gates=[Suspends()]).check_paths(["src/app.py"]))
    verdicts = await Runtime(tree, gates=[AsyncGate()]).check_paths(["src/app.py", "no.txt"])
    assert verdicts[0] is None and verdicts[1] is not None and verdicts[1].opaque


@pytest.mark.parametrize("argv", [
    ["claude-code"], ["cursor", "--root", "/r"], ["gemini", "--renderer=sentinel", "--config", "c.toml"],
    ["claude-code", "--root="],
])
def test_hook_argv_read_without_argparse_as_argparse_reads_it(argv: list[str]) -> None:
    plain = _plain_args(argv)
    assert plain is not None
    parsed = _parser().parse_args(argv)
    assert plain == HookArgs(parsed.agent, parsed.root, parsed.config, parsed.renderer)


@pytest.mark.parametrize("argv", [[], ["-h"], ["claudecode"], ["cursor", "--root"], ["cursor", "--ro", "x"],
                                  ["cursor", "--root", "a", "--root", "b"], ["cursor", "extra"]])
def test_anything_else_goes_to_argparse(argv: list[str]) -> None:
    assert _plain_args(argv) is None


@pytest.mark.parametrize("header", ['[tool.pathgate]', '[tool."pathgate"]', '[tool."p\\u0061thgate"]'])
def test_pyproject_table_found_however_quoted(tmp_path: Path, header: str) -> None:
    """A ``pyproject.toml`` is parsed only when it can hold a pathgate table (start-up): a
    quoted or escaped table name still tightens the policy of a hook or explain."""
    from pathgate.config import load_config

    (tmp_path / "pyproject.toml").write_text(f'[project]\nname = "x"\n\n{header}\nextra_secret_patterns = ["*.md"]\n')
    assert "*.md" in load_config(str(tmp_path)).secret_patterns
    verdicts = run_now(GateCore(tmp_path).check_paths(["README.md"]))
    assert verdicts[0] is not None and verdicts[0].opaque


def test_pyproject_without_a_pathgate_table_is_not_parsed(tmp_path: Path) -> None:
    from pathgate.config import load_config

    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\n')
    assert load_config(str(tmp_path)) == Policy()

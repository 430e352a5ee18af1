"""``pathgate glob`` runs the glob tool's own code on a bare ``GateCore`` (its blocking steps in
the calling thread, driven by ``run_now``: no event loop) and answers exactly what the tool
answers through ``rt.call`` on a ``Runtime``: both drivers of the one ``Discovery`` on the
same trees — secrets and their hard links, ignored and re-included paths, excluded
directories holding matches, symlinks to files, directories, secrets, out of the project,
dangling and looping, non-UTF-8 names, git internals, walk and count budgets cut small,
generated trees — compared as rendered data and as the command's bytes and exit status;
and the command imports neither asyncio nor anyio nor the tool chain."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import msgspec
import pytest

import pathgate.cli as cli
from pathgate import Runtime
from pathgate._cli_inline import run_inline
from pathgate.config import load_config
from pathgate.runtime._gating import GateCore, NeedsEventLoop, run_now
from pathgate.runtime.tools import _discover
from pathgate.runtime.tools.glob import glob

SRC = str(Path(__file__).resolve().parents[1] / "src")

PATTERNS = ("**", "**/*", "**/*.py", "*", "src/**", "build/**", "**/*.js", "**/*.log", "**/.env*",
            "*.md", "**/caf*", "nomatch/**", "**/out.*", "[bs]*/**", "**/*.tfstate", "vendor/*/*")
PATHS = (".", "src", "build", "vendor", ".env", "src/app.py", "missing", "link_dir", "src/notes.txt",
         "..", ".git", "./src/../src", os.fsdecode(b"d\xe9"), '"d\\351"')  # a non-UTF-8 directory, both spellings


def _tree(root: Path, *, strict: bool = False) -> Path:
    files = {
        ".gitignore": "build/\n*.log\n!keep.log\nvendor/**\n!vendor/keep/\n",
        "pathgate.toml": 'extra_secret_patterns = ["*.tfstate"]\n' + ("strict_hard_links = true\n" if strict else ""),
        ".env": "KEY=1\n",
        ".env.example": "KEY=\n",
        "README.md": "hi\n",
        "keep.log": "kept\n",
        "debug.log": "x\n",
        "state.tfstate": "{}\n",
        "src/app.py": "print(1)\n",
        "src/.gitignore": "gen/\n",
        "src/gen/made.py": "x\n",
        "src/config/.env.local": "K=2\n",
        "build/out.js": "x\n",
        "build/deep/more.js": "x\n",
        "build/deep/.env": "K=3\n",
        "build/lib.py": "x\n",
        "vendor/pkg/mod.py": "x\n",
        "vendor/keep/kept.py": "x\n",
        ".git/HEAD": "ref: refs/heads/main\n",
        ".git/config": "[core]\n",
        "docs/guide.md": "guide\n",
    }
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    os.link(root / ".env", root / "src/notes.txt")  # a secret's hard link: as opaque as the secret
    os.link(root / "build/out.js", root / "docs/out-link.js")  # a plain multi-linked file
    os.link(root / "build/deep/.env", root / "build/deep/alias.js")  # a secret's alias inside an excluded dir
    os.symlink("src/app.py", root / "link_app.py")
    os.symlink(".env", root / "link_env")
    os.symlink("src", root / "link_dir")
    os.symlink("build/out.js", root / "link_built.js")
    os.symlink("/etc/hostname", root / "link_out.py")
    os.symlink("nowhere", root / "dangling.py")
    os.symlink("loop.py", root / "loop.py")
    os.symlink("../../src/app.py", root / "build/deep/back.py")
    name = os.fsencode(str(root / "src")) + b"/caf\xe9.py"
    with open(name, "wb") as f:
        f.write(b"x\n")
    os.mkfifo(root / "src/pipe.py")
    os.makedirs(os.fsencode(str(root)) + b"/d\xe9/sub")
    with open(os.fsencode(str(root)) + b"/d\xe9/sub/x\xff.py", "wb") as f:
        f.write(b"x\n")
    return root


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    return _tree(tmp_path / "proj")


@pytest.fixture(scope="module")
def shared_tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``tree`` built once for the read-only matrices (each case only globs it)."""
    return _tree(tmp_path_factory.mktemp("glob-inline") / "proj")


def _both(root: Path, pattern: str, path: str = ".", limit: int | None = 0, *, renderer: str | None = None,
          git_only: bool = False) -> tuple[Any, Any]:
    """The command's inline answer on a ``GateCore``, and ``rt.call("glob")`` on a ``Runtime``."""
    policy = load_config(str(root))
    if git_only:
        policy = policy.git_only()
    args: dict[str, Any] = {"pattern": pattern, "path": path}
    if limit is not None:
        args["limit"] = limit
    now = run_inline(lambda: GateCore(str(root), policy=policy), "glob", args, renderer=renderer)

    async def on_loop() -> Any:
        rt = Runtime(str(root), policy=policy)
        return await rt.call("glob", args, renderer=renderer)

    return now, anyio.run(on_loop)


@pytest.mark.parametrize("pattern", PATTERNS)
def test_same_answer_as_the_tool_for_every_start(shared_tree: Path, pattern: str) -> None:
    for path in PATHS:
        now, tool = _both(shared_tree, pattern, path, renderer="structured")
        assert now == tool, (pattern, path)


@pytest.mark.parametrize("renderer", ["verbose", "sentinel", "structured"])
@pytest.mark.parametrize("limit", [None, 0, 1, 3])
def test_same_answer_under_each_renderer_and_limit(shared_tree: Path, renderer: str, limit: int | None) -> None:
    for pattern in ("**", "**/*.py", "**/*.js", "build/**"):
        for git_only in (False, True):
            now, tool = _both(shared_tree, pattern, ".", limit, renderer=renderer, git_only=git_only)
            assert now == tool, (pattern, git_only)


def test_the_answer_holds_what_matters(tree: Path) -> None:
    """Not two equal wrong answers: secrets, aliases, loops and outsiders are absent."""
    now, _ = _both(tree, "**", renderer="structured")
    matches = set(now["matches"])
    assert {"src/app.py", "keep.log", "README.md", "link_app.py"} <= matches
    assert not matches & {".env", "src/notes.txt", "link_env", "state.tfstate", "src/config/.env.local",
                          "link_out.py", "debug.log", "build/out.js", ".git/HEAD", "build/deep/alias.js",
                          "vendor/keep/kept.py"}  # `vendor/**` still matches it: git ignores it
    assert any("src/caf" in m for m in matches)  # the non-UTF-8 name, spelled for JSON
    counted = {o["gate"]: o["count"] for o in now["omitted"]}
    assert counted["ignore"] >= 4  # debug.log, build/* (not build/deep/.env nor its alias), vendor, gen
    assert not any("alias" in ex or ".env" in ex for o in now["omitted"] for ex in o["examples"])


def test_strict_hard_links_same_answer(tmp_path: Path) -> None:
    root = _tree(tmp_path / "strict", strict=True)
    for pattern in ("**", "docs/*", "**/*.txt", "build/**"):
        for path in (".", "docs", "src/notes.txt"):
            now, tool = _both(root, pattern, path)
            assert now == tool, (pattern, path)
    now, _ = _both(root, "docs/*", renderer="structured")
    assert now["matches"] == ["docs/guide.md"]  # the multi-linked out-link.js is refused


@pytest.mark.parametrize(("walk", "count", "chunk"), [(3, 2, 2), (7, 1, 1024), (12, 0, 5), (20, 3, 1)])
def test_budgets_same_cut(tree: Path, monkeypatch: pytest.MonkeyPatch, walk: int, count: int, chunk: int) -> None:
    """A walk stopped by its budget, an excluded directory counted short, small steps: the
    same cut on both drivers (the budgets are the one module's)."""
    monkeypatch.setattr(_discover, "WALK_BUDGET", walk)
    monkeypatch.setattr(_discover, "COUNT_BUDGET", count)
    monkeypatch.setattr(_discover, "CHUNK", chunk)
    stopped = 0
    for pattern in ("**", "**/*.js", "**/*.py", "build/**"):
        now, tool = _both(tree, pattern, renderer="structured")
        assert now == tool, (walk, count, pattern)
        stopped += now["walk_stopped_early"]
        text_now, text_tool = _both(tree, pattern, renderer="verbose")
        assert text_now == text_tool
    assert stopped  # the cut happened (otherwise the test proves nothing about it)


def test_big_batches_judged_in_a_step(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The batch a Runtime judges in a worker hop is judged inline on a core: same answer."""
    monkeypatch.setattr(_discover, "INLINE_ON_LOOP", 0)
    for pattern in ("**", "build/**"):
        now, tool = _both(tree, pattern, renderer="structured")
        assert now == tool


def _generated(root: Path, seed: int) -> Path:
    """A random tree: nested directories, ``.gitignore`` files with negations, secrets by
    name, hard links of secrets, symlinks to files, directories, secrets and out."""
    rng = random.Random(seed)
    dirs = [""]
    for _ in range(rng.randint(4, 12)):
        parent = rng.choice(dirs)
        name = rng.choice(["src", "lib", "build", "node_modules", "target", "docs", "gen", "conf", "a", "b"])
        dirs.append(f"{parent}/{name}".lstrip("/"))
    files: list[str] = []
    for d in dict.fromkeys(dirs):
        (root / d).mkdir(parents=True, exist_ok=True)
        for _ in range(rng.randint(0, 6)):
            name = rng.choice(["m.py", "x.js", "r.md", ".env", ".env.prod", "id_rsa", "k.pem", "out.log",
                               "keep.log", "secrets.yaml", "n.txt", "z.py"])
            p = root / d / name
            p.write_text(name)
            files.append(str(p.relative_to(root)))
        if rng.random() < 0.5:
            rules = rng.sample(["build/", "*.log", "!keep.log", "node_modules/", "target/**", "gen", "*.md",
                                "!docs/", "/a", "b/**/z.py", "conf/*"], rng.randint(1, 4))
            (root / d / ".gitignore").write_text("\n".join(rules) + "\n")
    if files:
        for _ in range(rng.randint(0, 4)):
            src, dst = rng.choice(files), rng.choice(dirs)
            link = root / dst / f"ln{rng.randint(0, 99)}.py"
            if link.exists() or link.is_symlink():
                continue
            if rng.random() < 0.5:
                os.link(root / src, link)
            else:
                os.symlink(os.path.relpath(root / src, link.parent), link)
    os.symlink("/etc", root / "outside")
    if len(dirs) > 1:
        os.symlink(dirs[1], root / "dirlink")
    return root


@pytest.mark.parametrize("seed", range(12))
def test_generated_trees_same_answer(tmp_path: Path, seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    root = _generated(tmp_path / f"g{seed}", seed)
    if seed % 3 == 0:  # some with tiny budgets
        monkeypatch.setattr(_discover, "WALK_BUDGET", 5 + seed)
        monkeypatch.setattr(_discover, "COUNT_BUDGET", seed // 3)
        monkeypatch.setattr(_discover, "CHUNK", 3)
    for pattern in ("**", "**/*.py", "**/*.log", "*/**/*", "**/.env*"):
        for path in (".", "src", "build", "dirlink"):
            now, tool = _both(root, pattern, path, renderer="structured")
            assert now == tool, (seed, pattern, path)


def test_a_host_filter_runs_inline_too(tree: Path) -> None:
    """A sync host filter: judged on the walked chunks and asked from the count's blocking
    step inside excluded directories — the same answer on both drivers."""
    def hide_js(path: str) -> bool:
        return not path.endswith(".js")

    policy = msgspec.structs.replace(load_config(str(tree)), host_filter=hide_js)
    for pattern in ("**", "build/**", "**/*.js"):
        now = run_now(glob(GateCore(str(tree), policy=policy), pattern, "."))

        async def on_loop(pattern: str = pattern) -> Any:
            return await Runtime(str(tree), policy=policy).glob(pattern, ".")

        assert now == anyio.run(on_loop), pattern
        assert not any(m.endswith(".js") for m in now.matches)
        assert not any(ex.endswith(".js") for o in now.omitted for ex in o.examples)


@pytest.mark.filterwarnings("ignore:coroutine .* was never awaited:RuntimeWarning")
def test_an_async_host_filter_needs_the_loop(tree: Path) -> None:
    """Awaiting several answers at once takes a task group: a bare core cannot, says so
    (the command then runs the tool on a runtime) and leaves nothing un-awaited."""
    async def allow(path: str) -> bool:
        return True

    policy = msgspec.structs.replace(load_config(str(tree)), host_filter=allow)
    with pytest.raises(NeedsEventLoop):
        run_now(glob(GateCore(str(tree), policy=policy), "**", "."))


def test_wait_in_step_on_a_core_runs_the_answer_here(tree: Path) -> None:
    async def answer() -> int:
        return 7

    async def suspends() -> int:
        await anyio.sleep(0)
        return 8

    core = GateCore(str(tree))
    assert core.wait_in_step(answer()) == 7
    with pytest.raises(NeedsEventLoop):
        core.wait_in_step(suspends())


# -- the command: both routes, byte for byte ------------------------------------------------------

def _cli(capsys: pytest.CaptureFixture[str], argv: list[str]) -> tuple[int, str, str]:
    code = cli.main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def _loop_only(*args: Any, **kw: Any) -> Any:
    raise NeedsEventLoop("forced: the tool on a runtime")


@pytest.mark.parametrize("argv", [
    ["**"], ["**/*.py", "--json"], ["*", "--path", "src"], ["**", "--limit", "2"], ["build/**"],
    ["**", "--path", ".env"], ["**", "--path", "missing"], ["**", "--renderer", "structured"],
    ["**", "--renderer", "sentinel", "--json"], ["**", "--git-only"], ["**/*.js", "--model", "gpt-4o-mini"],
    ["x[", "--json"], ["", "--json"], ["**", "--limit", "-1"], ["**", "--renderer", "nonesuch"],
    ["**", "--path", "src/app.py"], ["a" * 5000], ["**/***"], ["**", "--path", "link_out.py"],
])
def test_command_bytes_equal_on_both_routes(shared_tree: Path, capsys: pytest.CaptureFixture[str],
                                           monkeypatch: pytest.MonkeyPatch, argv: list[str]) -> None:
    full = ["glob", "--root", str(shared_tree), *argv]
    now = _cli(capsys, full)
    with monkeypatch.context() as m:
        m.setattr(cli, "_inline", _loop_only)
        tool = _cli(capsys, full)
    assert now == tool


def test_command_budget_notes_equal_on_both_routes(tree: Path, capsys: pytest.CaptureFixture[str],
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_discover, "WALK_BUDGET", 4)
    monkeypatch.setattr(_discover, "COUNT_BUDGET", 1)
    for argv in (["**"], ["**", "--json"], ["build/**"]):
        full = ["glob", "--root", str(tree), *argv]
        now = _cli(capsys, full)
        with monkeypatch.context() as m:
            m.setattr(cli, "_inline", _loop_only)
            assert now == _cli(capsys, full)
    assert "limit" in now[2] or "stopped" in now[2] or "budget" in now[2] or "walk" in now[2]


def test_command_runs_no_event_loop_on_a_plain_tree(tree: Path, capsys: pytest.CaptureFixture[str],
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    def no_loop(*args: Any) -> Any:
        raise AssertionError("the event loop route ran")

    monkeypatch.setattr(cli, "_run_async", no_loop)
    code, out, _ = _cli(capsys, ["glob", "--root", str(tree), "**/*.py"])
    assert code == 0 and "src/app.py" in out.split("\n")
    code, out, _ = _cli(capsys, ["glob", "--root", str(tree), "**", "--path", "missing"])
    assert (code, out) == (1, "")


def test_live_index_from_the_host_config_same_bytes(tree: Path, tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str],
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """A host config asking for the live index: the one-shot command walks (a bare core keeps
    no index), and says what the tool on a live-indexed runtime says."""
    host = tmp_path / "host.toml"
    host.write_text("live_index = true\n")
    for argv in (["**/*.py"], ["**", "--json"], ["build/**", "--json"]):
        live = _cli(capsys, ["glob", "--root", str(tree), "--config", str(host), *argv])
        with monkeypatch.context() as m:
            m.setattr(cli, "_inline", _loop_only)
            assert live == _cli(capsys, ["glob", "--root", str(tree), "--config", str(host), *argv])


# -- what the command imports ----------------------------------------------------------------------

#: Never loaded by ``pathgate glob`` on a plain project: the event loop, anyio, the tool
#: registry and middleware chain, the other tools, tracing, the live index.
NEVER = ("asyncio", "anyio", "sniffio", "argparse", "logging", "opentelemetry", "re2",
         "pathgate.runtime._runtime", "pathgate.runtime._chain", "pathgate.runtime._dispatch",
         "pathgate.runtime._tracing", "pathgate.runtime._live", "pathgate.runtime.fs._backends",
         "pathgate.runtime.fs._sched", "pathgate.runtime.tools.read_files", "pathgate.runtime.tools._live_glob",
         "pathgate.runtime.tools._read_facts",
         "pathgate.runtime.tools.code_search", "pathgate.runtime.tools.list_directory",
         "pathgate.runtime.tools._regex", "pathgate.mcp", "pathgate.adapters")

_PROBE = """
import atexit, gc, json, os, sys
out = os.environ["PATHGATE_TEST_MODULES"]
atexit.register(lambda: open(out, "w").write(json.dumps(
    {"modules": sorted(sys.modules), "frozen": gc.get_freeze_count(), "gc": gc.isenabled()})))
sys.argv = ["pathgate", *sys.argv[1:]]
from pathgate.cli import console
console()
"""


def _probe(root: Path, tmp_path: Path, args: list[str]) -> tuple[int, str, dict[str, Any]]:
    report = tmp_path / "modules.json"
    env = {**os.environ, "PYTHONPATH": SRC, "PATHGATE_TEST_MODULES": str(report)}
    proc = subprocess.run([sys.executable, "-c", _PROBE, *args], capture_output=True, env=env, cwd=root,
                          timeout=60, check=False)
    return proc.returncode, proc.stdout.decode(), json.loads(report.read_text())


def _modules(root: Path, tmp_path: Path, args: list[str]) -> tuple[int, str, list[str]]:
    code, out, report = _probe(root, tmp_path, args)
    return code, out, report["modules"]


@pytest.mark.parametrize("argv", [["**/*.py"], ["**", "--json"], ["**", "--renderer", "structured"]])
def test_glob_imports_no_event_loop(tree: Path, tmp_path: Path, argv: list[str]) -> None:
    code, out, modules = _modules(tree, tmp_path, ["glob", *argv])
    assert code == 0 and "src/app.py" in out
    base = subprocess.run([sys.executable, "-c", "import json, sys; print(json.dumps(sorted(sys.modules)))"],
                          capture_output=True, env={**os.environ, "PYTHONPATH": SRC}, timeout=60, check=True)
    new = set(modules) - set(json.loads(base.stdout))
    assert [n for n in NEVER if any(m == n or m.startswith(n + ".") for m in new)] == []
    assert "pathgate.runtime.tools._discover" in modules  # the tool's own code, not a copy


def test_glob_error_goes_through_the_tool_chain(tree: Path, tmp_path: Path) -> None:
    """A bad pattern: the chain words the error (the command falls back to a runtime)."""
    code, out, modules = _modules(tree, tmp_path, ["glob", ""])
    assert (code, out) == (2, "")
    assert "pathgate.runtime._chain" in modules


# -- the collector after start-up ------------------------------------------------------------------

def test_console_freezes_start_up_objects_and_collects_after(tree: Path, tmp_path: Path) -> None:
    """The console script resumes the collector with start-up's objects frozen (a later
    collection does not walk them again)."""
    code, out, report = _probe(tree, tmp_path, ["glob", "**/*.py"])
    assert code == 0 and "src/app.py" in out
    assert report["gc"] is True
    assert report["frozen"] > 1000  # the modules, classes and the core made at start-up


def test_main_leaves_the_callers_collector_alone(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A caller of ``main`` (tests, a host program) gets its collector back as it was, and
    none of its objects frozen."""
    import gc

    before = gc.get_freeze_count()
    assert gc.isenabled()
    assert _cli(capsys, ["glob", "--root", str(tree), "**/*.py"])[0] == 0
    assert gc.isenabled() and gc.get_freeze_count() == before


def test_console_freezes_only_while_its_main_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    """The freeze belongs to the console script's own run: a ``console()`` called inside a
    longer-lived process (and caught) leaves later ``main()`` calls freezing nothing."""
    seen: list[bool] = []

    def fake_main() -> int:
        seen.append(cli._freeze_on_start)
        return 3

    monkeypatch.setattr(cli, "main", fake_main)
    monkeypatch.setattr(cli, "_exit_now", lambda status: None)
    with pytest.raises(SystemExit) as exited:
        cli.console()
    assert exited.value.code == 3 and seen == [True]
    assert cli._freeze_on_start is False

"""Start-up of ``pathgate`` as a command: what ``check-ignore``, ``explain`` and ``glob`` import
(each only what it needs: no event loop, no argparse for a plain command line, no tool
registry, no tracing, no RE2, no pathlib), and the console entry's quick exit (output
complete, statuses kept, ``atexit`` callbacks still run). Behaviour guards, not timings:
each case runs the real command in a fresh interpreter and checks its answer too."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests._gitinit import git_init

SRC = str(Path(__file__).resolve().parents[1] / "src")

#: Loaded by none of the three commands on a plain project.
NEVER = ("asyncio", "anyio", "sniffio", "argparse", "logging", "opentelemetry", "pathlib", "shutil", "re2",
         "tomllib", "pathgate.runtime._runtime", "pathgate.runtime._chain", "pathgate.runtime._dispatch",
         "pathgate.runtime._tracing", "pathgate.runtime._live", "pathgate.runtime.fs._backends",
         "pathgate.runtime.tools.glob", "pathgate.runtime.tools._discover", "pathgate.runtime.tools.read_files",
         "pathgate.runtime.tools._read_facts",
         "pathgate.runtime.tools.code_search", "pathgate.runtime.tools._regex", "pathgate.mcp", "pathgate.adapters")
#: Besides, check-ignore decides with the ignore engine alone.
NOT_FOR_CHECK_IGNORE = ("pathgate.config", "pathgate.runtime.gates", "pathgate.runtime._gating",
                        "pathgate.renderers", "pathgate.runtime._walk")

_PROBE = """
import atexit, json, os, sys
out = os.environ["PATHGATE_TEST_MODULES"]
atexit.register(lambda: open(out, "w").write(json.dumps(sorted(sys.modules))))
sys.argv = ["pathgate", *sys.argv[1:]]
from pathgate.cli import console
console()
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    (root / "src").mkdir(parents=True)
    (root / "build").mkdir()
    (root / ".gitignore").write_text("build/\n*.log\n")
    (root / ".env").write_text("KEY=1\n")
    (root / "src/app.py").write_text("print(1)\n")
    (root / "build/out.js").write_text("x\n")
    (root / "debug.log").write_text("x\n")
    return root


@pytest.fixture(scope="module")
def baseline() -> frozenset[str]:
    """What the bare interpreter has loaded here (a ``sitecustomize`` or ``.pth`` may import
    ``pathlib``, ``logging``...): not the command's doing."""
    env = {**os.environ, "PYTHONPATH": SRC}
    out = subprocess.run([sys.executable, "-c", "import json, sys; print(json.dumps(sorted(sys.modules)))"],
                         capture_output=True, env=env, timeout=60, check=True).stdout
    return frozenset(json.loads(out))


def _run(project: Path, tmp_path: Path, args: list[str], stdin: bytes = b"") -> tuple[int, str, list[str]]:
    modules = tmp_path / "modules.json"
    env = {**os.environ, "PYTHONPATH": SRC, "PATHGATE_TEST_MODULES": str(modules)}
    proc = subprocess.run([sys.executable, "-c", _PROBE, *args], input=stdin, capture_output=True, env=env,
                          cwd=project, timeout=60, check=False)
    return proc.returncode, proc.stdout.decode(), json.loads(modules.read_text())


def _loaded(modules: list[str], baseline: frozenset[str], names: tuple[str, ...]) -> list[str]:
    new = [m for m in modules if m not in baseline]
    return [n for n in names if any(m == n or m.startswith(n + ".") for m in new)]


def test_glob_answers_through_the_tool(project: Path, tmp_path: Path) -> None:
    code, out, modules = _run(project, tmp_path, ["glob", "**/*"])
    assert (code, out) == (0, ".gitignore\nsrc/app.py\n")
    assert "pathgate.runtime.tools.glob" in modules  # one route: the glob tool (on a bare GateCore)


def test_explain_imports_only_what_it_needs(project: Path, tmp_path: Path, baseline: frozenset[str]) -> None:
    code, out, modules = _run(project, tmp_path, ["explain", "build/out.js"])
    assert code == 1 and out.startswith("build/out.js\n  blocked: [BLOCKED] by the `ignore` gate")
    assert _loaded(modules, baseline, NEVER) == []


@pytest.mark.parametrize("git_only", [False, True])
def test_check_ignore_imports_only_what_it_needs(project: Path, tmp_path: Path, baseline: frozenset[str],
                                                 git_only: bool) -> None:
    git_init(project)  # git check-ignore needs one
    args = ["check-ignore", *(["--git-only"] if git_only else []), "--stdin"]
    code, out, modules = _run(project, tmp_path, args, b"src/app.py\nbuild/out.js\ndebug.log\n.env\n")
    assert (code, out) == (0, "build/out.js\ndebug.log\n")
    assert _loaded(modules, baseline, NEVER + NOT_FOR_CHECK_IGNORE) == []


def test_a_command_line_argparse_must_read_still_works(project: Path, tmp_path: Path) -> None:
    code, out, _ = _run(project, tmp_path, ["glob", "--limit=1", "**/*"])
    assert (code, out) == (0, ".gitignore\n")


# -- the console entry's quick exit ---------------------------------------------------------------

def _console(project: Path, *args: str, pre: str = "") -> subprocess.CompletedProcess[bytes]:
    code = f"import sys\n{pre}\nsys.argv = ['pathgate', *sys.argv[1:]]\nfrom pathgate.cli import console\nconsole()\n"
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, cwd=project, timeout=60,
                          env={**os.environ, "PYTHONPATH": SRC}, check=False)


def test_console_output_complete_on_a_pipe(project: Path) -> None:
    """Block-buffered stdout (a pipe) is flushed before the quick exit: every line arrives."""
    many = project / "many"
    many.mkdir()
    for i in range(3000):
        (many / f"file-{i:05d}.txt").write_text("")
    proc = _console(project, "glob", "many/*")
    lines = proc.stdout.decode().splitlines()
    assert proc.returncode == 0 and len(lines) == 3000 and lines[-1] == "many/file-02999.txt"


@pytest.mark.parametrize(("args", "status"), [(["glob", "*.nothing"], 1), (["explain", ".env"], 1),
                                              (["glob", "x", "--root", "/nonexistent/dir"], 2),
                                              (["explain", "src/app.py"], 0)])
def test_console_exit_statuses(project: Path, args: list[str], status: int) -> None:
    assert _console(project, *args).returncode == status


def test_console_runs_atexit_callbacks(project: Path, tmp_path: Path) -> None:
    """A process with shutdown work left (here an ``atexit`` callback) runs it before the
    quick exit, once."""
    flag = tmp_path / "ran"
    pre = f"import atexit; atexit.register(lambda: open({str(flag)!r}, 'a').write('x'))"
    proc = _console(project, "glob", "**/*", pre=pre)
    assert proc.returncode == 0 and flag.read_text() == "x"
    assert proc.stdout.decode() == ".gitignore\nsrc/app.py\n"


@pytest.mark.parametrize(("args", "status"), [(["glob", "**/*"], 0), (["glob", "*.nothing"], 1)])
def test_console_atexit_output_and_errors(project: Path, args: list[str], status: int) -> None:
    """What the callbacks print arrives after the command's output (in the order the
    shutdown runs them: last registered first), a failing one is reported as the shutdown
    reports it and the next still runs, and the status stands."""
    pre = ("import atexit, sys\n"
           "atexit.register(print, 'first registered')\n"
           "atexit.register(lambda: 1 / 0)\n"
           "atexit.register(print, 'last registered', file=sys.stderr)\n")
    proc = _console(project, *args, pre=pre)
    assert proc.returncode == status
    assert proc.stdout.decode().endswith("first registered\n")
    err = proc.stderr.decode()
    assert err.index("last registered") < err.index("ZeroDivisionError")
    assert "Exception ignored in atexit callback" in err


def test_python_dash_m_is_the_console(project: Path) -> None:
    proc = subprocess.run([sys.executable, "-m", "pathgate", "glob", "**/*.py"], capture_output=True, cwd=project,
                          timeout=60, env={**os.environ, "PYTHONPATH": SRC}, check=False)
    assert (proc.returncode, proc.stdout) == (0, b"src/app.py\n")


def test_user_config_without_a_home_is_an_error_not_a_relative_path(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """As with ``Path.home()``: no home directory never means ``./~/.config/...`` (the
    working directory may be an untrusted project)."""
    from pathgate.config import load_host_config

    (tmp_path / "~/.config/pathgate").mkdir(parents=True)
    (tmp_path / "~/.config/pathgate/config.toml").write_text("allow_outside_root = true\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    monkeypatch.setattr(os.path, "expanduser", lambda p: p)
    with pytest.raises(RuntimeError):
        load_host_config()

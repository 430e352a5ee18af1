"""The command line through its real entry points: output, exit status, errors on stderr."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from pathgate import Status
from pathgate.cli import main
from pathgate.verdicts import WRITE_STATUSES


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    files = {
        ".gitignore": "# comment\nbuild/\n*.log\n",
        "src/app.py": "print('hello')\n",
        "build/out.js": "built\n",
        "debug.log": "log\n",
        ".env": "SECRET=topsecret-value\n",
        "docs/guide.md": "hello guide\n",
    }
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    return root


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_read_plain_and_json(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "read", "--root", str(project), "src/app.py")
    assert (code, out, err) == (0, "print('hello')\n", "")
    code, out, _ = run(capsys, "read", "--root", str(project), "--json", "build/out.js", ".env")
    data = json.loads(out)
    assert list(data) == ["build/out.js", ".env"]
    assert data["build/out.js"].startswith("[BLOCKED]: ") and ".gitignore:2:build/" in data["build/out.js"]
    assert data[".env"] == "[BLOCKED]"
    code, out, _ = run(capsys, "read", "--root", str(project), "--renderer", "sentinel", "--json", "build/out.js")
    assert json.loads(out) == {"build/out.js": "[BLOCKED]"}
    code, out, _ = run(capsys, "read", "--root", str(project), "--renderer", "structured", "--json", ".env")
    assert json.loads(out) == {"files": [{"path": ".env", "status": "blocked"}]}


def test_read_git_only_drops_builtin_defaults(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (project / "node_modules" / "x").mkdir(parents=True)
    (project / "node_modules" / "x" / "i.js").write_text("module\n")
    _, out, _ = run(capsys, "read", "--root", str(project), "--json", "node_modules/x/i.js")
    assert json.loads(out)["node_modules/x/i.js"].startswith("[BLOCKED]")
    _, out, _ = run(capsys, "read", "--root", str(project), "--git-only", "--json", "node_modules/x/i.js")
    assert json.loads(out) == {"node_modules/x/i.js": "module\n"}


def test_glob_lines_on_stdout_notes_on_stderr(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "glob", "--root", str(project), "**")
    assert code == 0
    assert out.splitlines() == [".gitignore", "docs/guide.md", "src/app.py"]
    assert "omitted by ignore rules" in err and "build/ not searched" in err
    assert ".env" not in out + err
    _, out, _ = run(capsys, "glob", "--root", str(project), "**", "--limit", "1")
    assert out.splitlines() == [".gitignore"]


def test_search_and_ls(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "search", "--root", str(project), "hello")
    assert code == 0 and out.splitlines() == ["docs/guide.md:1:hello guide", "src/app.py:1:print('hello')"]
    _, out, _ = run(capsys, "search", "--root", str(project), "topsecret")
    assert out == ""
    _, out, _ = run(capsys, "search", "--root", str(project), "hello", "--glob", "**/*.py")
    assert out.splitlines() == ["src/app.py:1:print('hello')"]
    code, out, err = run(capsys, "ls", "--root", str(project))
    assert code == 0 and out.splitlines() == [".gitignore", "docs/", "src/"]
    assert "hidden by ignore rules" in err


def test_ls_blocked_directory_exits_1(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "ls", "--root", str(project), "missing-dir")
    assert code == 1 and out == "" and Status.FILE_DOES_NOT_EXIST.value in err


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["search", "("], "invalid regular expression"),
        (["read", "--renderer", "nope", "a"], "unknown renderer 'nope'"),
        (["read", "--root", "/definitely/not/here", "a"], "is not a directory"),
        (["glob", ""], "pattern"),
    ],
)
def test_errors_on_stderr_without_traceback(
    project: Path, capsys: pytest.CaptureFixture[str], argv: list[str], needle: str
) -> None:
    if "--root" not in argv:
        argv = [argv[0], "--root", str(project), *argv[1:]]
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""
    assert needle in err and "Traceback" not in err


def test_unreadable_config_is_an_error(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (project / "pathgate.toml").write_text("size_limit = 'big'\n")
    code, _, err = run(capsys, "read", "--root", str(project), "src/app.py")
    assert code == 2 and "size_limit" in err
    code, _, err = run(capsys, "read", "--root", str(project), "--config", str(project / "nope.toml"), "x")
    assert code == 2 and "cannot read" in err


def test_explain_names_the_same_rule_as_check_ignore(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    os.chdir(project)
    code, out, _ = run(capsys, "check-ignore", "--root", ".", "-v", "debug.log", "build/out.js")
    assert code == 0
    rules = [line.split("\t")[0] for line in out.splitlines()]
    assert rules == [".gitignore:3:*.log", ".gitignore:2:build/"]
    code, out, _ = run(capsys, "explain", "--root", str(project), "debug.log", "build/out.js")
    assert code == 1
    assert "decided by: .gitignore:3:*.log" in out
    assert "excluded directory: build/ by .gitignore:2:build/" in out
    assert "!/build/out.js" in out  # the verified remedy


def test_explain_secret_and_readable(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "explain", "--root", str(project), ".env")
    assert code == 1 and "secret" in out and "topsecret-value" not in out
    code, out, _ = run(capsys, "explain", "--root", str(project), "src/app.py")
    assert code == 0 and "readable" in out


def test_every_command_has_help_with_an_example(capsys: pytest.CaptureFixture[str]) -> None:
    for cmd in ("demo", "explain", "read", "glob", "search", "ls", "mcp"):
        with pytest.raises(SystemExit) as info:
            main([cmd, "--help"])
        assert info.value.code == 0
        assert "example:" in capsys.readouterr().out


def test_demo_in_a_fresh_home_shows_every_status(tmp_path: Path) -> None:
    env = {**os.environ, "HOME": str(tmp_path / "home"), "NO_COLOR": "1", "TMPDIR": str(tmp_path / "tmp")}
    (tmp_path / "home").mkdir()
    (tmp_path / "tmp").mkdir()
    proc = subprocess.run([sys.executable, "-m", "pathgate", "demo"], capture_output=True, text=True,
                          env=env, timeout=120, cwd=tmp_path, check=False)
    assert proc.returncode == 0, proc.stderr
    for status in Status:
        if status is not Status.OK and status not in WRITE_STATUSES:
            assert status.value in proc.stdout, status
    assert "demo-secret-do-not-show" not in proc.stdout
    assert "blocked by ignore-rule checking" in proc.stdout.lower()
    assert "\x1b[" not in proc.stdout
    assert list((tmp_path / "tmp").iterdir()) == []  # the temporary project was removed


def test_console_script_entry_point(project: Path) -> None:
    exe = Path(sys.executable).with_name("pathgate")
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "pathgate"]
    proc = subprocess.run([*cmd, "read", "--root", str(project), "src/app.py"], capture_output=True,
                          text=True, timeout=60, check=False)
    assert proc.returncode == 0 and proc.stdout == "print('hello')\n"


def test_structured_without_json_prints_json(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "ls", "--root", str(project), "--renderer", "structured")
    assert code == 0 and {"name": "src", "kind": "dir"} in json.loads(out)["entries"]
    code, out, _ = run(capsys, "ls", "build", "--root", str(project), "--renderer", "structured")
    data = json.loads(out)
    assert code == 1 and data["blocked"]["gate"] == "ignore" and data["entries"] == []


def test_a_file_given_as_a_directory_is_called_a_file(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for argv in (("ls", "src/app.py"), ("glob", "*", "--path", "src/app.py"),
                 ("search", "x", "--path", "src/app.py")):
        code, out, err = run(capsys, *argv, "--root", str(project))
        assert (code, out) == (1, "")
        assert err.strip() == "[NOT_A_FILE]: It is a file, not a directory."


def test_exit_status_follows_grep(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = ("--root", str(project))
    assert run(capsys, "read", *root, "src/app.py")[0] == 0
    assert run(capsys, "read", *root, "src/app.py", "missing.txt")[0] == 1
    assert run(capsys, "read", *root, ".env")[0] == 1
    assert run(capsys, "search", *root, "hello")[0] == 0
    assert run(capsys, "search", *root, "no-such-text-anywhere")[0] == 1
    assert run(capsys, "glob", *root, "**/*.nothing")[0] == 1
    assert run(capsys, "ls", *root, "build")[0] == 1
    assert run(capsys, "search", *root, "(")[0] == 2


def test_global_options_before_the_command(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "--root", str(project), "ls")
    assert code == 0 and out.splitlines() == [".gitignore", "docs/", "src/"]
    code, out, _ = run(capsys, "--root", str(project), "--git-only", "read", "--json", "src/app.py")
    assert code == 0 and json.loads(out) == {"src/app.py": "print('hello')\n"}


def test_typos_get_a_suggestion(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["lss"])
    assert info.value.code == 2
    assert "unknown command 'lss'; did you mean 'ls'?" in capsys.readouterr().err
    with pytest.raises(SystemExit) as info:
        main(["ls", "--root", str(project), "--jsno"])
    assert info.value.code == 2
    assert "did you mean '--json'?" in capsys.readouterr().err


def test_notes_name_the_cli_flag(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _, _, err = run(capsys, "glob", "--root", str(project), "**", "--limit", "1")
    assert "raise --limit" in err and "max_results" not in err
    _, _, err = run(capsys, "search", "--root", str(project), "hello", "--limit", "1")
    assert "raise --limit" in err and "max_results" not in err
    many = project / "many"
    many.mkdir()
    for i in range(501):  # past the model's default glob limit (500): a person gets them all
        (many / f"m{i}.md").write_text("x\n")
    code, out, err = run(capsys, "glob", "--root", str(project), "many/*.md")
    assert code == 0 and len(out.splitlines()) == 501 and "showing" not in err

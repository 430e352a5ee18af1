"""Red team 23's write-guard findings (N4-N8, N10): what a runner started by a hook runs or
reads, named in its own configuration, is unwritable — cargo's ``.cargo/config.toml``
programs (N5), GNU make's ``SHELL``, ``$(eval …)`` and ``-I`` include directories (N4),
just's ``[working-directory]`` recipes (N7), YAML merge keys and escaped keys (N8, N10) —
and a directory listed for a manifest's includes is judged before it is listed (N6).

Each case writes the named file and ``notes.md`` (writable: the configuration was read,
not refused as unchecked); the controls stay writable.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.hardening._write_env import claude_hook, git_project, writable
from tests.runtime.tools._writes import write_tree

pytestmark = pytest.mark.anyio

_PKG = "[package]\nname='r'\nversion='0.1.0'\n"


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return git_project(tmp_path, monkeypatch, {"notes.md": "# n\n"})


_CASES = [
    # N5: cargo's configuration
    ("cargo test", {".cargo/config.toml": '[build]\nrustc-wrapper = "tools/wrap.sh"\n'}, "tools/wrap.sh"),
    ("cargo test", {".cargo/config": '[build]\nrustc = "./tc/rustc"\n'}, "tc/rustc"),
    ("cargo test", {".cargo/config.toml": '[build]\nrustc-workspace-wrapper = "t/w"\n'}, "t/w"),
    ("cargo test", {".cargo/config.toml": '[build]\nrustdoc = "t/doc"\n'}, "t/doc"),
    ("cargo test", {".cargo/config.toml": '[target.x86_64-unknown-linux-gnu]\nrunner = "tools/run.sh"\n'},
     "tools/run.sh"),
    ("cargo test", {".cargo/config.toml": "[target.'cfg(unix)']\nrunner = ['python3', 'tools/run.py', '-q']\n"},
     "tools/run.py"),
    ("cargo test", {".cargo/config.toml": '[target.x86_64-unknown-linux-gnu]\nlinker = "tools/ld"\n'}, "tools/ld"),
    ("cargo test", {".cargo/config.toml": '[build]\nrustflags = ["-C", "linker=tools/ld2"]\n'}, "tools/ld2"),
    ("cargo test", {".cargo/config.toml": '[host]\nlinker = "tools/hl"\n'}, "tools/hl"),
    ("cargo test", {".cargo/config.toml": '[alias]\nt = "run --manifest-path tools/x/Cargo.toml"\n'},
     "tools/x/Cargo.toml"),
    ("cargo test", {".cargo/config.toml": '[patch.crates-io]\nserde = { path = "p/serde" }\n'}, "p/serde/build.rs"),
    ("cargo test", {".cargo/config.toml": '[source.vendored]\ndirectory = "vendor"\n'}, "vendor/a/build.rs"),
    ("cargo test", {".cargo/config.toml": '[env]\nCC = { value = "tools/cc", relative = true }\n'}, "tools/cc"),
    ("cd crates/a && cargo test", {"crates/a/Cargo.toml": _PKG,
                                   ".cargo/config.toml": '[build]\nrustc-wrapper = "tools/wrap.sh"\n'},
     "tools/wrap.sh"),
    ("cargo --config build.rustc-wrapper=\"tools/cw\" test", {}, "tools/cw"),
    ("cargo --config=build.rustc-wrapper=tools/cw test", {}, "tools/cw"),
    # N4: GNU make
    ("make lint", {"Makefile": "SHELL := ./tools/sh\nlint:\n\techo ok\n"}, "tools/sh"),
    ("make lint", {"Makefile": "override SHELL = tools/sh2 # x\n"}, "tools/sh2"),
    ("make lint", {"Makefile": "lint: SHELL := python3 tools/sh.py\n"}, "tools/sh.py"),
    ("make -I mk lint", {"Makefile": "include common.mk\n"}, "mk/common.mk"),
    ("make -Imk lint", {"Makefile": "include common.mk\n"}, "mk/common.mk"),
    ("make --include-dir=mk lint", {"Makefile": "include common.mk\n"}, "mk/common.mk"),
    ("MAKEFLAGS=-Imk make lint", {"Makefile": "include common.mk\n"}, "mk/common.mk"),
    ("make SHELL=./tools/sh lint", {"Makefile": "lint:\n\techo\n"}, "tools/sh"),
    # N7: just's recipe working directory
    ("just lint", {"justfile": "set shell := ['./tools/sh', '-c']\n[working-directory('ci')]\nlint:\n  echo ok\n"},
     "ci/tools/sh"),
    ("just lint", {"justfile": "[private, working-directory: 'ci']\n[script('./py')]\nlint:\n  print(1)\n"},
     "ci/py"),
    ("just lint", {"justfile": "set working-directory := 'w'\nset shell := ['./sh']\n"
                   "[working-directory(\"ci\")]\nlint:\n  echo\n"}, "w/ci/sh"),
]


@pytest.mark.parametrize(("cmd", "files", "path"), _CASES)
async def test_rt23_what_a_runner_configuration_names_is_protected(anyio_backend: str, env: Path, cmd: str,
                                                                   files: dict[str, str], path: str) -> None:
    files = {"Cargo.toml": _PKG, **files} if "cargo" in cmd else files
    write_tree(env, {path: "x\n", **files})
    assert await writable(env, path, "notes.md") == {path: True, "notes.md": True}  # no hook yet
    write_tree(env, claude_hook(cmd))
    assert await writable(env, path, "notes.md") == {path: False, "notes.md": True}


@pytest.mark.parametrize(("cmd", "files", "path"), [
    ("cargo test", {".cargo/config.toml": '[build]\nrustc-wrapper = "sccache"\n'}, "sccache"),
    ("cargo test", {".cargo/config.toml": '[build]\njobs = 4\ntarget-dir = "out"\n'}, "out/x"),
    ("cargo test", {".cargo/config.toml": '[alias]\nb = "build --release"\n'}, "src/main.rs"),
    ("make lint", {"Makefile": "SHELL := /bin/bash\nlint:\n\t@echo \"SHELL=$$SHELL\"\n"}, "bin/bash"),
    ("make lint", {"Makefile": "MYSHELL := ./tools/x\nlint:\n\techo\n"}, "tools/x"),
    ("./gradlew -Iinit.gradle check", {}, "mk/common.mk"),
    ("just lint", {"justfile": "set shell := ['bash', '-c']\n[no-cd]\nlint:\n  echo\n"}, "bash"),
    ("just lint", {"justfile": "set shell := ['./tools/sh', '-c']\n[working-directory('ci')]\nlint:\n  echo\n"},
     "tools/other"),
    ("task lint", {"Taskfile.yml": "version: '3'\nx: &d {silent: true}\ntasks:\n  lint:\n    <<: *d\n"
                   "    cmds: [\"echo \\\"x\\\"\"]\n"}, "ci/Taskfile.yml"),
    ("yarn lint", {".yarnrc.yml": "nodeLinker: node-modules\npackageExtensions:\n  \"a@*\":\n    x: 1\n"},
     "tools/evil.cjs"),
])
async def test_rt23_what_the_configuration_does_not_name_stays_writable(anyio_backend: str, env: Path, cmd: str,
                                                                        files: dict[str, str], path: str) -> None:
    files = {"Cargo.toml": _PKG, **files} if "cargo" in cmd else files
    write_tree(env, {**files, **claude_hook(cmd)})
    assert await writable(env, path, "notes.md") == {path: True, "notes.md": True}


@pytest.mark.parametrize(("cmd", "files"), [
    ("cargo test", {".cargo/config.toml": "[build]\nrustc-wrapper = 5\n"}),
    ("cargo test", {".cargo/config.toml": "[target.x]\nrunner = { a = 1 }\n"}),
    ("cargo test", {".cargo/config.toml": "[build\n"}),
    ("cargo test", {".cargo/config.toml": 'include = "more.toml"\n'}),
    ("cargo test", {".cargo/config.toml": "[env]\nX = 1\n"}),
    ("make lint", {"Makefile": "$(eval include ci/rules.mk)\nlint:\n\techo ok\n"}),
    ("make lint", {"Makefile": "$(foreach m,a b,${eval -include $(m).mk})\n"}),
    ("make lint", {"Makefile": "SHELL := $(TOOLS)/sh\n"}),
    ("make lint", {"Makefile": "SHELL != echo ./x\n"}),
    ("make lint", {"Makefile": "define SHELL\n./x\nendef\n"}),
    ("task lint", {"Taskfile.yml": "version: '3'\nx-base: &base\n  includes:\n    ci: ./ci\n<<: *base\n"}),
    ("task lint", {"Taskfile.yml": "version: '3'\n\"\\x69ncludes\":\n  ci: ./ci\n"}),
    ("task lint", {"Taskfile.yml": "version: '3'\nx: &i\n  taskfile: ./ci\nincludes:\n  ci:\n    <<: *i\n"}),
    ("task lint", {"Taskfile.yml": "version: '3'\n!!str includes:\n  ci: ./ci\n"}),
    ("yarn lint", {".yarnrc.yml": '"\\x79arnPath": ./tools/evil.cjs\n'}),
    ("yarn lint", {".yarnrc.yml": '"yarn\\u0050ath": ./tools/evil.cjs\n'}),
    ("yarn lint", {".yarnrc.yml": "x: &p\n  yarnPath: ./tools/evil.cjs\n<<: *p\n"}),
    ("just lint", {"justfile": "set shell := ['./tools/sh', '-c']\n[no-cd]\nlint:\n  echo\n"}),
    ("just lint", {"justfile": "[working-directory(env('D'))]\nlint:\n  echo\n"}),
])
async def test_rt23_a_name_not_read_with_certainty_leaves_nothing_writable(
        anyio_backend: str, env: Path, cmd: str, files: dict[str, str]) -> None:
    files = {"Cargo.toml": _PKG, **files} if "cargo" in cmd else files
    write_tree(env, {**files, **claude_hook(cmd)})
    assert await writable(env, "notes.md") == {"notes.md": False}
    write_tree(env, claude_hook("echo"))
    assert await writable(env, "notes.md") == {"notes.md": True}


@pytest.mark.parametrize(("dirname", "hidden"), [(".env.d", None), ("private", "private")])
async def test_rt23_a_secret_or_host_filtered_directory_listed_for_members_tells_nothing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, dirname: str, hidden: str | None) -> None:
    """N6: a members glob below a secret (or host-filtered) directory gives one answer
    whether that directory is missing, small, past the listing bound, or a link out of the
    root: absent for a secret one (``notes.md`` writable), unchecked for a host-filtered one."""
    import os

    from pathgate.runtime.tools import _includes
    from tests.runtime.tools._writes import make_rt

    monkeypatch.setattr(_includes, "MAX_LISTED", 8)

    def host(rel: str, purpose: str = "read") -> bool:
        return hidden is None or not (rel == hidden or rel.startswith(hidden + "/"))

    got = []
    for kind in ("absent", "small", "big", "link"):
        (tmp_path / kind).mkdir()
        files = {**claude_hook("cargo test"), "Cargo.toml": f'[workspace]\nmembers = ["{dirname}/*"]\n',
                 "notes.md": "x\n"}
        count = {"small": 2, "big": 12}.get(kind, 0)
        files.update({f"{dirname}/m{i}/Cargo.toml": "[package\n" for i in range(count)})
        root = git_project(tmp_path / kind, monkeypatch, files)
        if kind == "link":
            os.symlink(str(tmp_path), root / dirname)
        async with make_rt(root, require_read_before_write=False, host_filter=host) as rt:
            got.append((await rt.write_file("notes.md", "y\n")).ok)
    assert got == [hidden is None] * 4

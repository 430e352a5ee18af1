"""Issue 12, items 1-3, 5, 9, 10 (and issue 14's read_files lines), each tested the way the
break was found: the same calls on two trees, with and without the secret or filtered
directory, give byte-identical rendered outputs under every renderer and tool."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import anyio
import pytest

from pathgate import Policy, Runtime
from pathgate.config import DEFAULT_SECRET_PATTERNS
from pathgate.runtime._links import SecretInodes
from pathgate.runtime.gates import SecretMatcher
from tests.hardening._twotrees import Call, Spec, build, render_all

BASE: dict[str, str | tuple[str, str]] = {
    "src/app.py": "print('MARKER app')\n",
    "docs/readme.md": "MARKER docs\n",
    ".gitignore": "build/\n",
    "build/out.js": "MARKER build\n",
}


def _private_off(p: str) -> bool:
    return not (p == "private" or p.startswith("private/"))


def _compare(tmp: Path, extra: Spec, calls: list[Call], asked: set[str], policy: Policy | None = None) -> None:
    policy = policy or Policy(host_filter=_private_off)
    with_dir, without_dir = tmp / "with", tmp / "without"
    build(with_dir, {**BASE, **extra})
    build(without_dir, dict(BASE))

    async def main() -> tuple[list[str], list[str]]:
        a = await render_all(with_dir, calls, policy, None)  # must say the bare [BLOCKED] itself
        b = await render_all(without_dir, calls, policy, asked)
        return a, b

    a, b = anyio.run(main)
    for x, y, call in zip(a, b, calls * 3, strict=True):
        assert x == y, (call, x, y)


DISCOVERY: list[Call] = [
    ("glob", {"pattern": "**"}),
    ("glob", {"pattern": "**/*.pem"}),
    ("list_directory", {"path": "."}),
    ("list_directory", {"path": "src"}),
    ("code_search", {"regex": "MARKER"}),
]


@pytest.mark.parametrize("name", ["host:443.pem", "tls:2024.key", "ca:bundle.p12", "src/.env:$DATA"])
def test_item1_colon_names_are_judged_whole(tmp_path: Path, name: str) -> None:
    assert SecretMatcher(DEFAULT_SECRET_PATTERNS).is_secret(name)
    _compare(tmp_path, {name: "MARKER secret\n"}, [("read_files", {"paths": [name, "src/app.py"]}), *DISCOVERY],
             {name})


@pytest.mark.parametrize(
    ("extra", "spelling"),
    [
        ({".env.d/prod/x": "MARKER s\n"}, ".env.d/../src/app.py"),
        ({".env.d/prod/x": "MARKER s\n"}, ".env.d/prod/../../src/app.py"),
        ({".env.d/prod/x": "MARKER s\n"}, ".env.d/nope/../../src/app.py"),
        ({"private/x.txt": "MARKER p\n"}, "private/../src/app.py"),
        ({"private/x.txt": "MARKER p\n"}, "private/x.txt/../../src/app.py"),
    ],
)
def test_item2_dotdot_through_opaque_names_is_no_oracle(tmp_path: Path, extra: Spec, spelling: str) -> None:
    head = spelling.split("/..", 1)[0]
    calls: list[Call] = [
        ("read_files", {"paths": [spelling]}),
        ("list_directory", {"path": f"{head}/.."}),
        ("glob", {"pattern": "*", "path": f"{head}/.."}),
        ("code_search", {"regex": "MARKER", "path": f"{head}/.."}),
        *DISCOVERY,
    ]
    _compare(tmp_path, extra, calls, {spelling})


def test_item3_secret_named_symlinks_are_opaque_and_uncounted(tmp_path: Path) -> None:
    outside = tmp_path / "shared"
    outside.mkdir()
    (outside / ".env").write_text("MARKER outside\n")
    (outside / "id_rsa").write_text("MARKER key\n")
    extra: Spec = {
        ".env": ("symlink", str(outside / ".env")),
        "src/id_rsa": ("symlink", str(outside / "id_rsa")),
        "src/server.pem": ("symlink", "server.pem"),  # loops
        "src/client.key": ("symlink", "app.py"),  # in the project
    }
    names = [".env", "src/id_rsa", "src/server.pem", "src/client.key"]
    _compare(tmp_path, extra, [("read_files", {"paths": [*names, "src/app.py"]}), *DISCOVERY], set(names))


def test_item5_hard_link_to_a_secret_is_a_secret(tmp_path: Path) -> None:
    build(tmp_path, {".env": "TOKEN=MARKER\n", "settings.txt": ("hardlink", ".env"), "a.txt": "a\n",
                     "b.txt": "b\n", "c.txt": ("hardlink", "b.txt"), "build/.env.prod": "x\n",
                     ".gitignore": "build/\n", "build/copy.txt": ("hardlink", "build/.env.prod")})
    rt = Runtime(tmp_path, Policy(ignore_mode="discovery"))

    async def main() -> None:
        out = await rt.call("read_files", {"paths": ["settings.txt", "a.txt", "c.txt", "build/copy.txt"]},
                            renderer="verbose")
        assert out == {"settings.txt": "[BLOCKED]", "a.txt": "a\n", "c.txt": "b\n", "build/copy.txt": "[BLOCKED]"}
        strict = Runtime(tmp_path, Policy(strict_hard_links=True))
        out = await strict.call("read_files", {"paths": ["a.txt", "c.txt"]}, renderer="sentinel")
        assert out == {"a.txt": "a\n", "c.txt": "[BLOCKED]"}

    anyio.run(main)


def test_item5_registry_stays_current(tmp_path: Path) -> None:
    build(tmp_path, {"a.txt": "a\n", "d/b.txt": "b\n", ".git/x": "x\n"})
    os.link(tmp_path / "a.txt", tmp_path / "a2.txt")
    reg = SecretInodes(str(tmp_path), SecretMatcher(DEFAULT_SECRET_PATTERNS).is_secret)
    st = os.stat(tmp_path / "a.txt")
    assert not reg.linked_secret(st) and reg.builds == 1
    assert not reg.linked_secret(os.stat(tmp_path / "a2.txt")) and reg.builds == 1  # validated, not rebuilt
    os.link(tmp_path / "a.txt", tmp_path / "d" / ".env")  # a secret-named link appears
    assert reg.linked_secret(os.stat(tmp_path / "a.txt")) and reg.builds == 2
    os.unlink(tmp_path / "d" / ".env")
    assert not reg.linked_secret(os.stat(tmp_path / "a.txt"))
    assert not reg.linked_secret(os.stat(tmp_path / "d" / "b.txt"))  # one link: no walk needed
    os.link(tmp_path / "d" / "b.txt", tmp_path / ".git" / "id_rsa")  # .git is not walked
    assert not reg.linked_secret(os.stat(tmp_path / "d" / "b.txt"))
    small = SecretInodes(str(tmp_path), lambda p: False, max_entries=2)
    assert small.linked_secret(os.stat(tmp_path / "a.txt"))  # over budget: fails closed


def test_item9_a_file_asked_twice_is_read_and_charged_once(tmp_path: Path) -> None:
    big = "x" * 99 + "\n"
    build(tmp_path, {"big.txt": big * 600, "small.txt": "s\n", "d/e.txt": "e\n"})
    rt = Runtime(tmp_path, Policy())

    async def main() -> None:
        for renderer in ("sentinel", "verbose"):
            out = await rt.call("read_files", {"paths": ["big.txt", "big.txt"]}, renderer=renderer)
            assert out == {"big.txt": big * 600}
            out = await rt.call("read_files", {"paths": ["small.txt"] * 4096}, renderer=renderer)
            assert out == {"small.txt": "s\n"}
            out = await rt.call("read_files", {"paths": ["small.txt", "./small.txt", "d/../small.txt"]},
                                renderer=renderer)
            assert out["small.txt"] == "s\n"
            assert out["./small.txt"] == out["d/../small.txt"] == (
                "[OK]: The same file as `small.txt`; its content is given there once.")
        out = await rt.call("read_files", {"paths": ["big.txt", "./big.txt", "big.txt"]}, renderer="structured")
        files = out["files"]
        assert [f["path"] for f in files] == ["big.txt", "./big.txt", "big.txt"]
        assert files[0]["content"] == big * 600 and not files[0]["truncated"]
        assert files[1] == {"path": "./big.txt", "status": "ok", "content": "", "truncated": False,
                            "total_lines": None, "limit": None, "same_as": "big.txt"}
        assert files[2]["same_as"] == "big.txt" and files[2]["content"] == ""

    anyio.run(main)


ODD = "a\x0cb\nc\x0bd\x1ce\x1df\x1eg\x85h\u2028i\u2029j\nk\r\nl\nlast"


def test_issue14_lines_are_newline_separated(tmp_path: Path) -> None:
    (tmp_path / "odd.txt").write_text(ODD, encoding="utf-8", newline="")
    rt = Runtime(tmp_path, Policy())
    wc = int(subprocess.run(["wc", "-l", str(tmp_path / "odd.txt")], capture_output=True, text=True,
                            check=True).stdout.split()[0])

    async def main() -> None:
        (r,) = await rt.read_files(["odd.txt"])
        assert r.content == ODD and r.total_lines == wc + 1  # wc -l plus the last line without \n
        for offset, limit in [(1, 1), (2, 1), (3, 2), (4, 5), (5, 1), (9, 3)]:
            (w,) = await rt.read_files(["odd.txt"], offset=offset, limit=limit)
            sed = subprocess.run(["sed", "-n", f"{offset},{offset + limit - 1}p", str(tmp_path / "odd.txt")],
                                 capture_output=True, check=True).stdout.decode()
            if not ODD.endswith("\n") and sed.endswith("last\n"):
                sed = sed[:-1]  # sed adds the newline the file lacks
            assert w.content == sed, (offset, limit)

    anyio.run(main)


def test_item10_window_of_an_oversize_file_is_streamed(tmp_path: Path) -> None:
    lines = [f"line {i}\n" for i in range(1, 5001)]
    (tmp_path / "huge.log").write_text("".join(lines))
    (tmp_path / "bin.dat").write_bytes(b"\x00" * 5000)
    rt = Runtime(tmp_path, Policy(size_limit=1000))

    async def main() -> None:
        out = await rt.call("read_files", {"paths": ["huge.log"]}, renderer="verbose")
        hint = out["huge.log"]
        assert hint.startswith("[FILE_TOO_LARGE]") and "offset and limit" in hint and "code_search" not in hint
        (w,) = await rt.read_files(["huge.log"], offset=4000, limit=3)
        assert w.verdict is None and w.content == "".join(lines[3999:4002]) and w.total_lines is None
        (tail,) = await rt.read_files(["huge.log"], offset=4999)
        assert tail.content == "".join(lines[4998:]) and tail.total_lines == 5000
        (past,) = await rt.read_files(["huge.log"], offset=9999, limit=1)
        assert past.content == "" and past.total_lines == 5000
        (b,) = await rt.read_files(["bin.dat"], offset=1, limit=1)
        assert b.verdict is not None and b.verdict.status.sentinel == "[BINARY_FILE]"
        (cut,) = await rt.read_files(["huge.log"], offset=1, budget=50)
        assert cut.truncated and cut.content is not None and len(cut.content) <= 50

    anyio.run(main)

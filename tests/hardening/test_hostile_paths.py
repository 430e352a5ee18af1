"""Hostile paths, table-driven: every row through every tool and every renderer.

Each row is a spelling a manipulated model might send, with the statuses ``read_files`` may
answer. Every row goes through ``read_files`` (thread and aiofiles backends), ``glob``
(``path=`` the row, and ``pattern=`` the row), ``list_directory`` (``path=``) and
``code_search`` (``path=`` and ``glob=``), each under the sentinel, verbose and structured
renderers, via ``Runtime.call``. For every output:

* no content from outside the root or from a secret (markers planted in each) appears;
* no opaque fact appears: secret and host-filtered rows are a bare ``[BLOCKED]``, and no
  secret/host-filtered name, no opaque gate name, appears outside the echoed argument;
* nothing escapes ``rt.call`` and nothing is an ``internal`` error;
* every row gets a verdict (a bracketed status) or a clear argument error naming a field.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pathgate import Policy, Runtime
from pathgate._names import spell_path
from tests._backends import alternating
from tests.hardening import _hostile as H

pytestmark = pytest.mark.anyio

RENDERERS = ("sentinel", "verbose", "structured")

OK = "[OK]"
OPAQUE = "opaque"
OUT = "[FILE_OUTSIDE_PROJECT]"
DNE = "[FILE_DOES_NOT_EXIST]"
NAF = "[NOT_A_FILE]"
IGN = "[BLOCKED]"

# (id, spelling, accepted read_files statuses). "{root}", "{outside}", "{base}" are filled in.
ROWS: list[tuple[str, str, frozenset[str]]] = [
    (i, p, frozenset(s.split("|"))) for i, p, s in [
        # `..` in every position
        ("dotdot", "..", OUT),
        ("dotdot-slash", "../", OUT),
        ("dot-dotdot", "./..", OUT),
        ("escape-and-back", "../p/src/app.py", OUT),
        ("escape-mid", "src/../../p/src/app.py", OUT),
        ("escape-to-outside", "src/../../outside/secret.txt", OUT),
        ("inside-dotdot", "src/../src/app.py", OK),
        ("file-dotdot", "src/app.py/..", f"{DNE}|{NAF}"),
        ("dir-dotdot", "src/..", NAF),
        ("missing-dotdot", "missing/../src/app.py", DNE),
        ("missing-escape", "a/b/c/../../../../outside/secret.txt", OUT),
        ("many-dotdot", "../" * 50 + "etc/passwd", OUT),
        ("backslash-dotdot", "..\\outside\\secret.txt", DNE),
        ("four-dots", "....//secret.txt", DNE),
        ("dots-slashes", "./././src/./app.py", OK),
        ("double-slash", "src//app.py", OK),
        ("trailing-slash-file", "src/app.py/", f"{OK}|{DNE}|{NAF}"),
        ("link-dotdot-inside", "src/back/src/app.py", OK),
        ("link-dotdot-escape", "src/back/../outside/secret.txt", OUT),
        # absolute paths
        ("abs-etc", "/etc/passwd", OUT),
        ("abs-outside", "{outside}/secret.txt", OUT),
        ("abs-inside", "{root}/src/app.py", OK),
        ("abs-root", "{root}", NAF),
        ("abs-root-escape", "{root}/../outside/secret.txt", OUT),
        ("abs-root-back-in", "{root}/../p/src/app.py", OUT),
        ("abs-prefix-sibling", "{root}2/x.txt", OUT),
        ("abs-double-slash", "//etc/passwd", OUT),
        ("abs-slash", "/", OUT),
        ("abs-secret", "{root}/.env", OPAQUE),
        ("abs-proc-alias", "/proc/self/root{root}/src/app.py", f"{OK}|{OUT}"),
        ("abs-proc-alias-secret", "/proc/self/root{root}/.env", f"{OPAQUE}|{OUT}"),
        ("abs-dev-zero", "/dev/zero", OUT),
        ("abs-proc-environ", "/proc/self/environ", OUT),
        # ~ and variables stay literal names
        ("tilde", "~", DNE),
        ("tilde-file", "~/secret.txt", DNE),
        ("tilde-key", "~/.ssh/id_rsa", OPAQUE),
        ("tilde-user", "~root/.bashrc", DNE),
        ("dollar-home", "$HOME/secret.txt", DNE),
        # NUL and control characters
        ("nul-end", "src/app.py\x00", OUT),
        ("nul-only", "\x00", OUT),
        ("nul-secret", ".env\x00.txt", f"{OUT}|{OPAQUE}"),
        ("newline", "src/app.py\n", DNE),
        ("cr", "src/\rapp.py", DNE),
        ("escape-seq", "\x1b[31m.env", DNE),
        ("tab", "\t", DNE),
        ("del", "\x7f", DNE),
        ("newline-secret", ".env\n", f"{DNE}|{OPAQUE}"),
        ("empty", "", f"{OUT}|{DNE}"),
        # very long names and paths
        ("name-max+1", "a" * 256, DNE),
        ("name-max", "n" * 255, OK),
        ("path-max+", "a/" * 2100, DNE),
        ("path-max-dots", "./" * 2100 + "src/app.py", f"{DNE}|{OK}"),
        ("path-max-dotdot", "../" * 1400, f"{OUT}|{DNE}"),
        ("huge", "x" * 100_000, DNE),
        ("deep", "deep/" * 40 + "leaf.txt", OK),
        # invalid UTF-8
        ("surrogate-on-disk", "bad\udcffname.txt", OK),
        ("surrogate-missing", "bad\udcff", DNE),
        ("lone-surrogate", "\ud800", DNE),
        ("overlong-slash", "src\udcc0\udcafapp.py", DNE),
        ("surrogate-secret", ".env\udcff", f"{DNE}|{OPAQUE}"),
        # Unicode look-alikes, NFC/NFD
        ("cyrillic-e", ".еnv", OK),
        ("fullwidth-dot", "．env", DNE),
        ("fullwidth-letters", ".ｅｎｖ", DNE),
        ("zero-width", ".env\u200b", f"{DNE}|{OPAQUE}"),
        ("long-s", "keys/id_rſa", f"{OPAQUE}|{DNE}"),
        ("nfc", "café.txt", OK),
        ("nfd-of-nfc", "cafe\u0301.txt", DNE),
        ("nfd-on-disk", "cafe\u0301-nfd.txt", OK),
        ("nfc-of-nfd", "café-nfd.txt", DNE),
        # trailing dots and spaces
        ("env-dot", ".env.", OPAQUE),
        ("env-space", ".env ", OPAQUE),
        ("env-dots", ".env...", OPAQUE),
        ("env-dot-space", ".env . .", OPAQUE),
        ("cfg-env-space", "cfg/.env ", OPAQUE),
        ("cfg-env-dot", "cfg/.env.", OPAQUE),
        ("file-dot", "src/app.py.", DNE),
        ("file-space", "src/app.py ", DNE),
        ("template-dot", ".env.example.", f"{DNE}|{OPAQUE}"),
        # NTFS streams
        ("env-data", ".env:$DATA", OPAQUE),
        ("env-data2", ".env::$DATA", OPAQUE),
        ("cfg-env-data", "cfg/.env:$DATA", OPAQUE),
        ("file-data", "src/app.py:$DATA", DNE),
        ("key-stream", "keys/id_rsa:stream", OPAQUE),
        ("template-data", ".env.example:$DATA", f"{DNE}|{OPAQUE}"),
        # case variants of secret names
        ("ENV", ".ENV", OPAQUE),
        ("Env", ".Env", OPAQUE),
        ("cfg-ENV", "cfg/.ENV", OPAQUE),
        ("cfg-Env-Local", "cfg/.Env.Local", OPAQUE),
        ("KEYS-ID_RSA", "KEYS/ID_RSA", OPAQUE),
        ("ID_RSA-pub", "keys/ID_RSA.pub", OPAQUE),
        ("PEM", "keys/server.PEM", OPAQUE),
        ("SERVER-pem", "keys/SERVER.pem", OPAQUE),
        ("NETRC", ".NETRC", OPAQUE),
        ("netrc", ".netrc", OPAQUE),
        ("glob-env", "**/.env", OPAQUE),
        ("template", ".env.example", OK),
        ("TEMPLATE", ".ENV.EXAMPLE", DNE),
        # directories named like secrets
        ("secret-dir", "vault/.env", OPAQUE),
        ("secret-dir-slash", "vault/.env/", OPAQUE),
        ("secret-dir-file", "vault/.env/inner.txt", OPAQUE),
        ("secret-dir-secret", "vault/.env/.env", OPAQUE),
        ("secret-dir-dotted", ".env.d", OPAQUE),
        ("secret-dir-dotted-file", ".env.d/local", OPAQUE),
        ("secret-dir-dotdot", "vault/.env/../.env/inner.txt", OPAQUE),
        # symlinks
        ("link-out", "link_out", OUT),
        ("link-out-rel", "link_out_rel", OUT),
        ("dirlink-out", "dir_out", OUT),
        ("dirlink-out-file", "dir_out/secret.txt", OUT),
        ("dirlink-out-deep", "dir_out/dir/file.txt", OUT),
        ("dirlink-out-rel", "dir_out_rel/file.txt", OUT),
        ("dirlink-out-dotdot", "dir_out/../p/src/app.py", OUT),
        ("up", "up", OUT),
        ("up-outside", "up/outside/secret.txt", OUT),
        ("up-back-in", "up/p/src/app.py", OUT),
        ("self-chain", "self/self/self/src/app.py", OK),
        ("link-to-secret", "innocent.txt", OPAQUE),
        ("chain-to-secret", "chain1", OPAQUE),
        ("chain-out", "chain_out1", OUT),
        ("loop", "loop_a", OUT),
        ("loop-below", "loop_a/x", f"{OUT}|{DNE}"),
        ("self-loop", "self_loop", OUT),
        ("dangling", "dangling", DNE),
        ("dangling-out", "dangling_out", OUT),
        ("linkdir", "linkdir", NAF),
        ("linkdir-secret", "linkdir/.ENV", OPAQUE),
        ("link-dir-to-key", "sneaky/x.txt", OPAQUE),
        ("link-to-private", "to_private", OPAQUE),
        ("ok-link", "ok_link", OK),
        ("link-dotdot-secret", "src/back/.env", OPAQUE),
        # host filter
        ("private-file", "private/hidden.txt", OPAQUE),
        ("private-dir", "private", OPAQUE),
        ("private-dotdot", "./private/../private/hidden.txt", OPAQUE),
        ("private-via-dotdot", "src/../private/hidden.txt", OPAQUE),
        ("private-abs", "{root}/private/hidden.txt", OPAQUE),
        # ignored, plain
        ("ignored-dir-file", "build/out.js", IGN),
        ("ignored-file", "notes.log", IGN),
        ("dot", ".", NAF),
        ("dir", "src", NAF),
        ("dir-slash", "src/", NAF),
        ("glob-chars", "src/*.py", DNE),
        ("spaces-tab", "sp ace/tab\tname.txt", OK),
    ]
]

BAD_ROWS = {"nul-end", "nul-only", "nul-secret"}


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Path]]:
    base = tmp_path_factory.mktemp("hostile")
    root = H.build(base)
    old = os.environ.get("HOME")
    os.environ["HOME"] = str(base / "home")
    try:
        yield base, root
    finally:
        if old is None:
            os.environ.pop("HOME", None)
        else:
            os.environ["HOME"] = old


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def fill(spelling: str, base: Path, root: Path) -> str:
    if "{" not in spelling:
        return spelling
    return spelling.replace("{root}", str(root)).replace("{outside}", str(base / "outside"))


def runtime(root: Path, backend: str = "thread") -> Runtime:
    return Runtime(root, policy=Policy(host_filter=H.host_filter, fs_backend=backend))  # type: ignore[arg-type]


def _status_of_read(out: Any, row: str, renderer: str) -> str:
    if renderer == "structured":
        (entry,) = out["files"]
        assert entry["path"] == spell_path(row)  # names are spelled JSON-safe (pathgate._names)
        if entry["status"] == "blocked" and set(entry) == {"path", "status"}:
            return OPAQUE
        return "[" + entry["status"].upper() + "]"
    (text,) = out.values()
    assert isinstance(text, str)
    if text == "[BLOCKED]" and renderer == "verbose":
        return OPAQUE
    if text.startswith("["):
        return text.split("]", 1)[0] + "]"
    return OK


def _is_arg_error(out: Any) -> bool:
    return isinstance(out, dict) and out.get("error_type") == "invalid_arguments" and "field" in out


def _check_common(out: Any, echoes: list[str], what: str) -> list[str]:
    problems: list[str] = []
    if isinstance(out, dict) and "error" in out and not _is_arg_error(out):
        problems.append(f"{what}: not a verdict nor an argument error: {out!r}")
    problems += [f"{what}: leak {x}" for x in H.leaks(out, echoes)]
    return problems


async def _read_checks(rt: Runtime, row: str, accepted: frozenset[str], label: str) -> list[str]:
    problems: list[str] = []
    seen: set[str] = set()
    for renderer in RENDERERS:
        out = await rt.call("read_files", {"paths": [row]}, renderer=renderer)
        what = f"{label}/{renderer}"
        problems += _check_common(out, [row], what)
        if _is_arg_error(out):
            problems.append(f"{what}: a path is a verdict, not an argument error: {out!r}")
            continue
        status = _status_of_read(out, row, renderer)
        if renderer == "sentinel":
            (text,) = out.values()
            if OPAQUE in accepted and text == "[BLOCKED]":
                continue  # sentinel cannot tell opaque from ignore; verbose/structured do
        seen.add(status)
        if status not in accepted:
            problems.append(f"{what}: status {status} not in {sorted(accepted)}: {H.encode(out)[:300]}")
        if status == OPAQUE and renderer != "structured":
            (text,) = out.values()
            if text != "[BLOCKED]":
                problems.append(f"{what}: opaque block is not bare: {text!r}")
    return problems


async def _discovery_checks(rt: Runtime, row: str, accepted: frozenset[str]) -> list[str]:
    problems: list[str] = []
    calls: list[tuple[str, dict[str, Any], bool]] = [
        ("glob", {"pattern": "**/*", "path": row}, True),
        ("list_directory", {"path": row}, True),
        ("code_search", {"regex": ".", "path": row, "max_results": 0}, True),
        ("glob", {"pattern": row}, False),
        ("code_search", {"regex": ".", "glob": row, "max_results": 0}, False),
    ]
    for tool, args, is_path in calls:
        for renderer in RENDERERS:
            out = await rt.call(tool, args, renderer=renderer)
            what = f"{tool}({'path' if is_path else 'pattern'})/{renderer}"
            problems += _check_common(out, [row], what)
            if _is_arg_error(out):
                if is_path:
                    problems.append(f"{what}: a path is a verdict, not an argument error: {out!r}")
                continue
            if not is_path:
                continue
            blocked = out.get("blocked") if renderer == "structured" else None
            notes = out.get("notes", [])
            if accepted == {OPAQUE}:
                if renderer == "structured":
                    if blocked != {"path": row, "status": "blocked"}:
                        problems.append(f"{what}: opaque start dir not bare: {H.encode(out)[:300]}")
                elif notes != ["[BLOCKED]"]:
                    problems.append(f"{what}: opaque start dir not bare: {H.encode(out)[:300]}")
            if accepted == {OUT}:
                text = H.encode(blocked if renderer == "structured" else notes)
                if "outside_project" not in text.lower():
                    problems.append(f"{what}: escape not refused: {H.encode(out)[:300]}")
    return problems




# every row on one event loop (alternating; the read and discovery tests in opposite phase, so
# each row meets both loops): the other loop of each row is the slow exhaustive variant
@pytest.mark.parametrize(("spelling", "accepted", "anyio_backend"),
                         alternating([(p, a) for _, p, a in ROWS], [i for i, _, _ in ROWS]))
async def test_hostile_row_read_files(
    anyio_backend: str, tree: tuple[Path, Path], spelling: str, accepted: frozenset[str]
) -> None:
    base, root = tree
    row = fill(spelling, base, root)
    problems = await _read_checks(runtime(root), row, accepted, "read_files")
    problems += await _read_checks(runtime(root, "aiofiles"), row, accepted, "read_files[aiofiles]")
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize(("spelling", "accepted", "anyio_backend"),
                         alternating([(p, a) for _, p, a in ROWS], [i for i, _, _ in ROWS], phase=1))
async def test_hostile_row_discovery_tools(
    anyio_backend: str, tree: tuple[Path, Path], spelling: str, accepted: frozenset[str]
) -> None:
    base, root = tree
    row = fill(spelling, base, root)
    problems = await _discovery_checks(runtime(root), row, accepted)
    assert not problems, "\n".join(problems)


async def test_all_rows_in_one_call(anyio_backend: str, tree: tuple[Path, Path]) -> None:
    """Every row at once (with duplicates): one result per spelling, in order, no leak."""
    base, root = tree
    rows = [fill(p, base, root) for _, p, _ in ROWS]
    rt = runtime(root)
    for renderer in RENDERERS:
        out = await rt.call("read_files", {"paths": rows + rows[:5]}, renderer=renderer)
        assert not H.leaks(out, rows)
        spelled = [spell_path(r) for r in rows]
        if renderer == "structured":
            assert [f["path"] for f in out["files"]] == spelled + spelled[:5]
        else:
            assert list(out) == list(dict.fromkeys(spelled))
    raw = await rt.read_files(rows)
    assert [r.path for r in raw] == rows
    for r, (_, _, accepted) in zip(raw, ROWS, strict=True):
        if accepted == {OK}:
            assert r.ok, r
        elif accepted == {OPAQUE}:
            assert r.verdict is not None and r.verdict.opaque and r.relpath is None, r


@pytest.mark.parametrize("tool_args", [
    ("glob", {"pattern": "**/*"}),
    ("glob", {"pattern": "**"}),
    ("glob", {"pattern": "**/.*"}),
    ("glob", {"pattern": "*", "path": "cfg"}),
    ("glob", {"pattern": "**/*", "path": "self"}),
    ("list_directory", {"path": "."}),
    ("list_directory", {"path": "cfg"}),
    ("list_directory", {"path": "keys"}),
    ("list_directory", {"path": "vault"}),
    ("list_directory", {"path": "linkdir"}),
    ("list_directory", {"path": "src"}),
    ("code_search", {"regex": ".", "max_results": 0}),
    ("code_search", {"regex": "TOKEN|PG9", "max_results": 0, "context": 5}),
    ("code_search", {"regex": "PG9", "glob": "**/.*", "max_results": 0}),
    ("code_search", {"regex": ".", "path": "self", "max_results": 0}),
], ids=lambda ta: f"{ta[0]}-{'-'.join(str(v) for v in ta[1].values())}")
async def test_discovery_over_the_hostile_tree(
    anyio_backend: str, tree: tuple[Path, Path], tool_args: tuple[str, dict[str, Any]]
) -> None:
    """Walking the whole hostile tree: no secret, filtered or outside name or content is
    listed, counted, searched or named in a note, in any renderer."""
    _, root = tree
    tool, args = tool_args
    rt = runtime(root)
    for renderer in RENDERERS:
        out = await rt.call(tool, args, renderer=renderer)
        assert "error" not in out, out
        assert not H.leaks(out, [str(v) for v in args.values()]), (renderer, H.leaks(out), H.encode(out)[:2000])


async def test_inside_content_is_still_found(anyio_backend: str, tree: tuple[Path, Path]) -> None:
    """The hardening does not blind the tools: ordinary files are read, listed, searched."""
    _, root = tree
    rt = runtime(root)
    (res,) = await rt.read_files(["src/app.py"])
    assert res.content is not None and H.INSIDE_MARKER in res.content
    hits = await rt.code_search(H.INSIDE_MARKER, max_results=0)
    assert [h.path for h in hits.hits] == ["src/app.py"]
    listed = await rt.glob("**/*.txt")
    assert "café.txt" in listed.matches and "bad\udcffname.txt" in listed.matches
    assert "deep/" * 40 + "leaf.txt" in listed.matches
    entries = {e.name for e in (await rt.list_directory(".")).entries}
    assert {".env.example", "src", ".еnv", "n" * 255} <= entries


@pytest.mark.parametrize(("out", "bad"), [
    ({"matches": ["vault/.env/inner.txt"]}, True),
    ({"entries": [".env", "src/"]}, True),
    ({"entries": [".env.example", "src/", ".еnv"]}, False),
    ({"notes": ["1 entry hidden by ignore rules, e.g. .env"]}, True),
    ({"notes": ["2 matches omitted by ignore rules, e.g. build/out.js, innocent.txt"]}, True),
    ({"hits": ["cfg/.env :1:TOKEN=x"]}, True),
    ({"x": f"TOKEN={H.SECRET_MARKER}"}, True),
    ({"blocked": {"path": "x", "status": "blocked", "gate": "secrets"}}, True),
    ({"files": [{"path": ".env", "status": "blocked"}]}, False),  # the echo is scrubbed
], ids=range(9))
def test_the_leak_checker_catches_leaks(out: dict[str, Any], bad: bool) -> None:
    assert bool(H.leaks(out, [".env"] if "files" in out else [])) is bad

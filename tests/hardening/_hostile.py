"""The hostile tree, its markers and the leak checks shared by the hardening tests.

Layout (``base`` is a temporary directory)::

    base/outside/          OUTSIDE_MARKER in every file: nothing here may ever reach a model
    base/home/             $HOME during the tests (``~`` must stay a literal name)
    base/p/                the project root
        .env, cfg/.ENV, cfg/.env␠, cfg/.env., cfg/.env:$DATA, keys/id_rsa, keys/server.PEM,
        .netrc, vault/.env/inner.txt, .env.d/local  SECRET_MARKER in every one
        private/hidden.txt                            FILTERED_MARKER (host filter says no)
        symlinks to outside, to secrets, chains, loops, dangling ones, a directory symlink
        pointing outside, ``..`` links

Every rendered output is JSON-encoded and grepped for the markers and for the names of
secret and host-filtered paths (other than the echo of the caller's own argument).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

SECRET_MARKER = "PG9SECRETMARKERq7Zx"
OUTSIDE_MARKER = "PG9OUTSIDEMARKERk3Vw"
FILTERED_MARKER = "PG9FILTEREDMARKERm5Ty"
INSIDE_MARKER = "PG9INSIDEOKj2Rp"
MARKERS = (SECRET_MARKER, OUTSIDE_MARKER, FILTERED_MARKER)

#: Secret files planted in the tree (relpaths); their names must never be listed or counted.
SECRET_FILES = (
    ".env",
    "cfg/.ENV",
    "cfg/.env ",
    "cfg/.env.",
    "cfg/.env:$DATA",
    "cfg/.Env.Local",
    "keys/id_rsa",
    "keys/ID_RSA.pub",
    "keys/server.PEM",
    ".netrc",
    "vault/.env/inner.txt",
    "vault/.env/.env",
    ".env.d/local",
)
#: Symlinks whose target is a secret (judged by the real target: opaque).
SECRET_LINKS = ("innocent.txt", "chain1", "chain2", "chain3", "linkdir/.ENV", "sneaky/x.txt")
#: Names that must never appear in a rendered output (besides the caller's own argument).
OPAQUE_NAMES = (
    ".env",
    ".ENV",
    ".env ",
    ".env.",
    ".env:$DATA",
    ".Env.Local",
    "id_rsa",
    "ID_RSA.pub",
    "server.PEM",
    ".netrc",
    "innocent.txt",
    "chain1",
    "chain2",
    "chain3",
    "private",
    "hidden.txt",
    "to_private",
    "inner.txt",
    "local",
    "x.txt",
)
#: Words that name an opaque gate or reason.
OPAQUE_WORDS = ("secrets", "host_filter", "host filter", "credential")


def host_filter(relpath: str) -> bool:
    """The host says no to ``private/`` (and anything below it)."""
    return relpath != "private" and not relpath.startswith("private/")


def _write(path: Path, data: str | bytes) -> None:
    raw = os.fsencode(path)
    os.makedirs(os.path.dirname(raw), exist_ok=True)
    with open(raw, "wb") as fh:
        fh.write(data.encode() if isinstance(data, str) else data)


def _link(root: Path, rel: str, target: str) -> None:
    raw = os.fsencode(root / rel)
    os.makedirs(os.path.dirname(raw), exist_ok=True)
    os.symlink(os.fsencode(target), raw)


def build(base: Path) -> Path:
    """Build the hostile tree under ``base``; return the project root."""
    outside = base / "outside"
    _write(outside / "secret.txt", f"{OUTSIDE_MARKER} outside file\n")
    _write(outside / "dir" / "file.txt", f"{OUTSIDE_MARKER} outside dir\n")
    _write(outside / ".gitignore", f"# {OUTSIDE_MARKER}\n!*\n")
    _write(base / "home" / "secret.txt", f"{OUTSIDE_MARKER} home\n")
    _write(base / "home" / ".ssh" / "id_rsa", f"{OUTSIDE_MARKER} home key\n")
    _write(base / "p2" / "x.txt", f"{OUTSIDE_MARKER} sibling project\n")

    root = base / "p"
    files: dict[str, str | bytes] = {
        ".gitignore": "build/\n*.log\n",
        "src/app.py": f"print('{INSIDE_MARKER}')\n",
        "src/util.py": "x = 1\n",
        "build/out.js": "built\n",
        "notes.log": "log line\n",
        ".env.example": "TOKEN=<token>\n",
        "café.txt": "nfc\n",
        "cafe\u0301-nfd.txt": "nfd\n",
        ".еnv": "cyrillic e, not a secret\n",
        "n" * 255: "longest name\n",
        "deep/" * 40 + "leaf.txt": "deep\n",
        "private/hidden.txt": f"{FILTERED_MARKER}\n",
        "sp ace/tab\tname.txt": "odd names\n",
        "bad\udcffname.txt": "undecodable name\n",
    }
    for rel in SECRET_FILES:
        files[rel] = f"TOKEN={SECRET_MARKER}\n"
    for rel, data in files.items():
        _write(root / rel, data)
    links = {
        "link_out": str(outside / "secret.txt"),
        "link_out_rel": "../outside/secret.txt",
        "dir_out": str(outside),
        "dir_out_rel": "../outside/dir",
        "up": "..",
        "self": ".",
        "innocent.txt": ".env",
        "chain1": "chain2",
        "chain2": "chain3",
        "chain3": ".env",
        "chain_out1": "chain_out2",
        "chain_out2": "link_out",
        "loop_a": "loop_b",
        "loop_b": "loop_a",
        "self_loop": "self_loop",
        "dangling": "does-not-exist",
        "dangling_out": "/nonexistent-pg9/outside",
        "linkdir": "cfg",
        "sneaky/x.txt": "../keys/id_rsa",
        "to_private": "private/hidden.txt",
        "ok_link": "src/app.py",
        "src/back": "..",
    }
    for rel, target in links.items():
        _link(root, rel, target)
    return root


# --- leak checks ----------------------------------------------------------------------------


def encode(out: Any) -> str:
    """The JSON text of an output (lone surrogates escaped), what a host would send."""
    return json.dumps(out, default=repr)


def _scrub(text: str, echoes: Iterable[str]) -> str:
    for echo in sorted({e for e in echoes if e}, key=len, reverse=True):
        text = text.replace(json.dumps(echo)[1:-1], "\x00")
    return text


def _name_re(name: str) -> re.Pattern[str]:
    esc = re.escape(json.dumps(name)[1:-1])
    # a whole path component: bounded by start, quote, slash, comma/space separators or `@`
    return re.compile(r'(?:^|(?<=["/ ,`]))' + esc + r'(?=["/@,`:]|$|, |\s\()')


_NAME_RES = [(n, _name_re(n)) for n in OPAQUE_NAMES]


def leaks(out: Any, echoes: Iterable[str] = ()) -> list[str]:
    """What in ``out`` must not be there: markers anywhere (even in echoed arguments the
    model already knows, content is never echoed), opaque names and words outside echoes."""
    text = encode(out)
    found = [m for m in MARKERS if m in text]
    rest = _scrub(text, echoes)
    found += [f"name {n!r}" for n, rx in _NAME_RES if rx.search(rest)]
    lowered = rest.lower()
    found += [f"word {w!r}" for w in OPAQUE_WORDS if w in lowered]
    return found

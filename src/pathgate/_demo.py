"""The built-in demo project: a small tree that trips every gate.

``build_demo(dest)`` writes it; ``pathgate demo`` builds it in a temporary directory, shows
what each renderer gives for each path plus the discovery tools' omission notes, and removes
it. ``DemoFS`` makes ``vendor/.gitignore`` unreadable through the filesystem seam, so the
fail-closed case shows even when running as root (where ``chmod 000`` does not stop reads).
"""

from __future__ import annotations

import errno
import os
from pathlib import Path

from pathgate.runtime.fs import OsFS

__all__ = ["DEMO_PATHS", "DEMO_SIZE_LIMIT", "DemoFS", "build_demo"]

#: The demo's size limit (small, so the large-file case stays small on disk).
DEMO_SIZE_LIMIT = 2048

#: The paths the demo reads, each showing one case (path, what it shows).
DEMO_PATHS: tuple[tuple[str, str], ...] = (
    ("src/app.py", "a readable file"),
    ("build/out.js", "gitignored: build/ is excluded by .gitignore"),
    ("build/keep.js", "a file-level negation (!build/keep.js) cannot re-include below build/"),
    ("node_modules/left-pad/index.js", "excluded by the built-in defaults"),
    ("logs/debug.log", "ignored by *.log and deleted: no existence claim"),
    (".env", "a secret: opaque in every renderer"),
    (".env.local", "a secret: opaque in every renderer"),
    (".env.example", "an env template: readable"),
    ("deploy/id_rsa", "a private key: opaque"),
    ("data/huge.csv", "over the size limit"),
    ("assets/logo.png", "binary content"),
    ("escape", "a symlink whose target is outside the project"),
    ("vendor/lib.c", "its ignore file cannot be read: fail closed"),
    ("src/locked.py", "permission denied when read"),
    ("docs/missing.md", "does not exist"),
    ("src", "a directory, not a file"),
)

_GITIGNORE = """\
# build output
build/
!build/keep.js
*.log
"""


def build_demo(dest: str | os.PathLike[str]) -> Path:
    """Write the demo project into ``dest`` (created if needed) and return its path."""
    root = Path(dest)
    root.mkdir(parents=True, exist_ok=True)
    root = root.resolve()
    files: dict[str, bytes] = {
        ".gitignore": _GITIGNORE.encode(),
        "README.md": b"# demo\nA small project that trips every pathgate gate.\n",
        "src/app.py": b"import os\n\nAPI_URL = os.environ.get('API_URL')\nprint('hello from app')\n",
        "src/util.py": b"def helper():\n    return 'hello'\n",
        "build/out.js": b"console.log('built');\n",
        "build/keep.js": b"console.log('keep me');\n",
        "node_modules/left-pad/index.js": b"module.exports = (s) => s;\n",
        "logs/app.log": b"started\n",
        ".env": b"API_KEY=demo-secret-do-not-show\n",
        ".env.local": b"API_KEY=demo-local-secret\n",
        ".env.example": b"API_KEY=<your key here>\n",
        "deploy/id_rsa": b"-----BEGIN OPENSSH PRIVATE KEY-----\nZGVtbw==\n-----END OPENSSH PRIVATE KEY-----\n",
        "data/huge.csv": b"id,value\n" + b"".join(b"%d,hello\n" % i for i in range(400)),
        "assets/logo.png": b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)),
        "vendor/.gitignore": b"*.o\n",
        "vendor/lib.c": b"int lib(void) { return 1; }\n",
        "src/locked.py": b"LOCKED = True\n",
    }
    for rel, data in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    outside = root.parent / f"{root.name}-outside.txt"
    outside.write_bytes(b"a file outside the project\n")
    link = root / "escape"
    if not link.is_symlink():
        link.symlink_to(outside)
    return root


class DemoFS(OsFS):
    """The real filesystem, except that ``vendor/.gitignore`` and ``src/locked.py`` cannot
    be read (EACCES) — as ``chmod 000`` would do for a user other than root."""

    def __init__(self, root: str | os.PathLike[str]) -> None:
        real = os.path.realpath(root)
        self._unreadable = os.path.join(real, "vendor", ".gitignore")
        self._locked = os.path.join(real, "src", "locked.py")

    def read_bytes(self, path: str) -> bytes:
        if path == self._unreadable:
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), path)
        return super().read_bytes(path)

    def open_fd(self, path: str, dir_fd: int | None = None) -> int:
        full = path
        if dir_fd is not None and not os.path.isabs(path):
            try:
                full = os.path.join(os.readlink(f"/proc/self/fd/{dir_fd}"), path)
            except OSError:
                full = path
        if full == self._locked:
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), full)
        return super().open_fd(path, dir_fd)

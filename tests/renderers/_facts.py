"""Hand-built verdicts and results for renderer tests (no engine, no filesystem)."""

from __future__ import annotations

from pathgate.verdicts import FileResult, Gate, Remedy, Rule, Status, Verdict

GITIGNORE_LOG = Rule(source=".gitignore", line=3, pattern="*.log")
GITIGNORE_BUILD = Rule(source=".gitignore", line=1, pattern="build/")
BUILTIN_NODE_MODULES = Rule(source="<built-in>", line=2, pattern="node_modules/")

IGNORED_FILE = Verdict(
    status=Status.BLOCKED, gate=Gate.IGNORE, rule=GITIGNORE_LOG, exists=True,
    remedy=Remedy(file=".pathgateignore", lines=("!/debug.log",)),
)
IGNORED_DELETED = Verdict(status=Status.BLOCKED, gate=Gate.IGNORE, rule=GITIGNORE_LOG, exists=None)
IGNORED_ANCESTOR = Verdict(
    status=Status.BLOCKED, gate=Gate.IGNORE, rule=GITIGNORE_BUILD, ancestor="build", exists=True,
    remedy=Remedy(file=".pathgateignore", lines=("!/build/", "/build/*", "!/build/out.js"),
                  ancestor="build"),
)
IGNORED_BUILTIN = Verdict(status=Status.BLOCKED, gate=Gate.IGNORE, rule=BUILTIN_NODE_MODULES,
                          ancestor="node_modules", exists=True)
FAIL_CLOSED = Verdict(status=Status.BLOCKED, gate=Gate.IGNORE, fail_closed=True,
                      unreadable="pkg/.gitignore", exists=True)
SECRET = Verdict(status=Status.BLOCKED, gate=Gate.SECRETS, opaque=True, exists=True)
HOST = Verdict(status=Status.BLOCKED, gate=Gate.HOST_FILTER, opaque=True, exists=True)
MISSING = Verdict(status=Status.FILE_DOES_NOT_EXIST, gate=Gate.EXISTENCE, exists=False)
NOT_A_FILE = Verdict(status=Status.NOT_A_FILE, gate=Gate.EXISTENCE, exists=True)
OUTSIDE = Verdict(status=Status.FILE_OUTSIDE_PROJECT, gate=Gate.PATH)
TOO_LARGE = Verdict(status=Status.FILE_TOO_LARGE, gate=Gate.SIZE, exists=True,
                    size=12 * 1024 * 1024, limit=10 * 1024 * 1024)
READ_ERROR = Verdict(status=Status.FILE_READ_ERROR, gate=Gate.READ, exists=True, detail="EACCES")
BINARY = Verdict(status=Status.BINARY_FILE, gate=Gate.READ, exists=True)
BUDGET = Verdict(status=Status.FILE_TOO_LARGE, gate=Gate.SIZE, limit=100)

#: One blocked result of each kind, keyed by a short label.
BLOCKS: dict[str, Verdict] = {
    "ignored": IGNORED_FILE,
    "ignored_deleted": IGNORED_DELETED,
    "ancestor": IGNORED_ANCESTOR,
    "builtin": IGNORED_BUILTIN,
    "fail_closed": FAIL_CLOSED,
    "secret": SECRET,
    "host": HOST,
    "missing": MISSING,
    "not_a_file": NOT_A_FILE,
    "outside": OUTSIDE,
    "too_large": TOO_LARGE,
    "read_error": READ_ERROR,
    "binary": BINARY,
}


def blocked(path: str, verdict: Verdict) -> FileResult:
    return FileResult(path=path, verdict=verdict)


def content(path: str, text: str) -> FileResult:
    return FileResult(path=path, content=text)


def truncated(path: str, text: str, total_lines: int = 500) -> FileResult:
    return FileResult(path=path, content=text, verdict=BUDGET, truncated=True,
                      total_lines=total_lines)

"""Gate 1, ``path``: the real path must stay inside the project root, and never in ``.git``.

Blocks an empty spelling, a NUL byte, an absolute path outside the root, a ``..`` that
climbs above the root, and any symlink (any component, the last included, dangling or
looping) whose real target leaves the root → ``[FILE_OUTSIDE_PROJECT]``. With
``allow_outside_root`` only empty and NUL spellings are refused. ``detail`` says which case
(``empty``, ``nul``, ``escape``, ``absolute``, ``symlink``, ``loop``) for operators.

Git internals are never served, whatever the policy, the ignore rules or the ignore mode
say: a path with a component named ``.git`` — as written, after lexical normalisation or
after resolving symlinks — or inside the git directory a root ``.git`` *file* points to
(``git_dirs``) is ``[BLOCKED]`` with ``detail="git_internals"`` (:data:`GIT_INTERNALS`). The
block is not opaque (that a project uses git is no secret) and has no remedy — unless the
path is also a secret (``.git/x.pem``, a ``.env`` symlink into ``.git``): then it is opaque. The name is
compared the way git's own ``verify_path`` refuses it on every platform: case-folded
(``.GIT``, ``.Git``), with NTFS's trailing dots and spaces stripped (``.git.``) and its 8.3
short name (``git~1``). Decided from the spelling, so the answer never depends on what
exists below ``.git``. :func:`is_git_internal` is the same check for other callers (write
tools must refuse these paths too).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from pathgate.runtime.gates._base import Fact, GateContext, GateResult, PathFacts
from pathgate.verdicts import GIT_INTERNALS, Gate, Status, Verdict

__all__ = ["GIT_INTERNALS", "PathGate", "is_git_internal", "is_git_name"]

_ALWAYS = frozenset({"empty", "nul"})


def is_git_name(name: str) -> bool:
    """Is one path component git's directory name (``.git`` in any case, NTFS spellings)?"""
    folded = name.rstrip(" .").casefold()
    return folded in (".git", "git~1") and name not in (".", "..")


def is_git_internal(path: str, git_dirs: tuple[str, ...] = ()) -> bool:
    """Is ``path`` (``/``-separated; relative to the root, or absolute) git internals?

    True when any component is :func:`is_git_name`, or when the path is one of ``git_dirs``
    (project-relative git directories a ``.git`` file points to) or below one. Pure: no I/O.
    """
    # casefold is per character: a component folding to ``.git``/``git~1`` leaves "git" in
    # the whole path's fold (the common case, no such component, is one C-speed search)
    if "git" in path.casefold() and any(is_git_name(part) for part in path.split("/")):
        return True
    for gitdir in git_dirs:
        if path == gitdir or path.startswith(gitdir + "/"):
            return True
    return False


class PathGate:
    """``[FILE_OUTSIDE_PROJECT]`` for spellings whose real path is not inside the root;
    ``[BLOCKED]`` (``detail="git_internals"``) for git internals, always."""

    name = Gate.PATH.value
    needs = frozenset({Fact.REAL})

    def __init__(self, *, allow_outside_root: bool = False, root: str = "",
                 git_dirs: tuple[str, ...] = (),
                 is_secret: Callable[[PathFacts], bool] | None = None,
                 host_filter: Callable[[str], GateResult] | None = None) -> None:
        self.allow_outside_root = allow_outside_root
        self.root = root.rstrip("/")
        self.git_dirs = git_dirs
        self.is_secret = is_secret
        #: the host filter's answer for a name (``HostFilterGate.judge_name``): a spelling
        #: this gate would explain is first put to it, so a name the host refuses stays a
        #: bare ``[BLOCKED]`` (never "outside the project", never counted in notes)
        self.host_filter = host_filter

    def _written(self, request: str) -> str:
        """The spelling with the root's own components cut off (they are not the project's)."""
        root = self.root
        if root and request.startswith(root + "/"):
            return request[len(root) + 1 :]
        return request

    def is_git(self, facts: PathFacts) -> bool:
        """Git internals, judged on the spelling, its normalisation and its real path."""
        written = self._written(facts.request)
        resolved = facts.resolved
        if resolved is not None and written == facts.name and resolved.relpath == written:
            return is_git_internal(written, self.git_dirs)  # a plain spelling: one path to judge
        spellings = {written}
        if facts.name is not None:
            spellings.add(facts.name)
        if resolved is not None:
            if resolved.relpath is not None:
                spellings.add(resolved.relpath)
            elif resolved.real is not None:
                spellings.add(self._written(resolved.real))
        return any(is_git_internal(s, self.git_dirs) for s in spellings)  # each distinct one once

    def is_git_path(self, relpath: str) -> bool:
        """Is this project-relative path (a walked entry) git internals?"""
        return is_git_internal(relpath, self.git_dirs)

    def check(self, facts: PathFacts, ctx: GateContext) -> GateResult:
        if self.is_git(facts):
            if ctx.purpose == "write" or (self.is_secret is not None and self.is_secret(facts)):
                # a secret name (or a secret-named link into .git) stays opaque; a write
                # into git internals is refused bare (SPEC: never writable, nothing revealed)
                return Verdict(status=Status.BLOCKED, gate=Gate.PATH, opaque=True)
            return self._unless_refused(facts, Verdict(status=Status.BLOCKED, gate=Gate.PATH, detail=GIT_INTERNALS))
        resolved = facts.resolved
        if resolved is None or resolved.outside is None:
            return None
        if self.allow_outside_root and resolved.outside not in _ALWAYS:
            return None
        return self._unless_refused(
            facts, Verdict(status=Status.FILE_OUTSIDE_PROJECT, gate=Gate.PATH, detail=resolved.outside))

    def _unless_refused(self, facts: PathFacts, verdict: Verdict) -> GateResult:
        """``verdict``, unless the host filter refuses the spelling as written (then its
        opaque block). Residual: a spelling through a link to a refused directory under
        another name (``alias`` → ``private/``) is judged by its own name only."""
        judge, name = self.host_filter, facts.name
        if judge is None or not name:
            return verdict
        got = judge(name)
        if got is None:
            return verdict
        if isinstance(got, Verdict):
            return got
        return _await_refused(got, verdict)


async def _await_refused(got: Awaitable[Verdict | None], verdict: Verdict) -> Verdict:
    refused = await got
    return verdict if refused is None else refused

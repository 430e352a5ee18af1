"""Reading a file the write guard decides from, never through a link (for the write guard).

The guard reads the files that decide what agents or git run — an agent CLI's settings, a
git hook script, a runner's manifest — and makes what they name unwritable. Read through a
link to a secret (``.claude/settings.json`` → ``.env``, a hook hard-linked to a key file) or
to a host-filtered file, whether a path is writable would tell the agent something of the
secret's content (a one-bit oracle per write). So, as for the project's ``pathgate.toml``
(:func:`pathgate.config._project_file`), such a file is read only when it is a regular file
with one link, reached without a symbolic link inside the project:

* a path inside the root is opened component by component from the root, none of them
  followed (``O_NOFOLLOW``), and read from the descriptor only when it is still the
  single-link regular file its ``lstat`` saw (:func:`~pathgate.runtime.fs.read_regular`
  with ``same``);
* a path outside the root (a worktree's common ``hooks/``, a ``core.hooksPath`` in the
  home) is followed as git follows it, unless its real path lies inside the root or the
  file has other links.

Anything else raises :class:`Linked`, whatever the link leads to (a secret, a plain file,
nothing): the caller gives the answer it gives for a file it cannot check, the same in
every case, so no answer depends on what a link leads to.

One exception keeps husky-like setups (``.git/hooks/pre-commit -> ../../scripts/pre-commit``,
a shared ``.claude/settings.json``) usable: while the write guard runs :func:`judging` with
the read gates' :class:`Judge`, :func:`read_guarded` follows a symbolic link inside the
project when every step it takes is one the read gates would serve and it ends on a regular
file of one link inside the project. The link is resolved by hand, one component at a time
(at most :data:`MAX_HOPS` links): each path a link's text leads through — before it is
looked at, so no secret's existence is ever asked — and the file it ends on must be served
(:meth:`Judge.serves`: not a secret name nor below one, not host-filtered, not git
internals), no step may leave the root; the file is then read by the descriptor-anchored
route above from its real path, so a component swapped for a link meanwhile is refused. The
caller protects that file too (it is what the link runs). A link to a secret, to a
host-filtered or missing file, out of the root, through a secret directory, to a file with
other hard links — any doubt — is :class:`Linked`, the same answer for each. Standard
library and the bounded reader of :mod:`pathgate.runtime.fs` only.
"""

from __future__ import annotations

import contextvars
import errno
import os
import stat
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager

__all__ = ["MAX_HOPS", "Judge", "Linked", "guard_judge", "judge_key", "judging", "missing_signature", "read_guarded",
           "read_unlinked", "refused_directory", "screened", "served", "unlinked_signature"]


class Linked(Exception):
    """The file is a symbolic link, is reached through one inside the project, or shares its
    inode with another name: it is not read."""


#: ``errno`` values of an open or read that met a link (``ELOOP``: a symbolic link under
#: ``O_NOFOLLOW``; ``ESTALE``: not the single-link file the ``lstat`` saw).
_LINK_ERRORS = (errno.ELOOP, errno.ESTALE, errno.EMLINK)
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def _inside(path: str, root: str) -> str | None:
    """``path`` relative to ``root`` when it lies below it as written, else ``None``."""
    inside = root.rstrip("/") + "/"
    if not path.startswith(inside):
        return None
    rel = os.path.normpath(path[len(inside):])
    return None if rel in (".", "") or rel == ".." or rel.startswith("../") else rel


def read_unlinked(path: str, root: str, cap: int) -> bytes:
    """The bytes of the file at the absolute ``path`` (``root``: the project's real root),
    read without going through a link (see the module). Raises :class:`Linked`,
    ``FileNotFoundError`` when nothing is there (no link on the way), or ``OSError`` as
    :func:`~pathgate.runtime.fs.read_regular` (``EFBIG`` past ``cap``, ``EINVAL`` for a FIFO
    …). Blocking."""
    from pathgate.runtime.fs import read_regular

    rel = _inside(path, root)
    if rel is None:
        try:
            real = os.path.realpath(path)
        except (OSError, ValueError):
            raise Linked from None
        if real == root.rstrip("/") or _inside(real, root) is not None:
            raise Linked  # outside as written, inside through a link
        st = _lstat(real)
        try:
            return read_regular(real, cap, same=st)
        except OSError as exc:
            if exc.errno in _LINK_ERRORS:
                raise Linked from None
            raise
    parts = rel.split("/")
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        for part in parts[:-1]:
            nxt = _open_dir(fd, part)
            os.close(fd)
            fd = nxt
        st = _lstat(parts[-1], fd)
        try:
            return read_regular(parts[-1], cap, dir_fd=fd, same=st)
        except OSError as exc:
            if exc.errno in _LINK_ERRORS:
                raise Linked from None
            raise
    finally:
        os.close(fd)


def _open_dir(fd: int, name: str) -> int:
    """The directory ``name`` below ``fd``, not followed: a symbolic link is :class:`Linked`,
    a missing one (or a file) ``FileNotFoundError``."""
    try:
        return os.open(name, _DIR_FLAGS, dir_fd=fd)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise Linked from None
        if exc.errno == errno.ENOTDIR:
            try:
                is_link = stat.S_ISLNK(os.stat(name, dir_fd=fd, follow_symlinks=False).st_mode)
            except OSError:
                is_link = False
            if is_link:  # (O_DIRECTORY may answer ENOTDIR for a link to a file)
                raise Linked from None
            raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), name) from None
        raise


def _lstat(name: str, fd: int | None = None) -> os.stat_result:
    """The ``lstat`` of ``name`` (below ``fd``): :class:`Linked` for a symbolic link or a
    regular file with other links."""
    st = os.stat(name, dir_fd=fd, follow_symlinks=False)
    if stat.S_ISLNK(st.st_mode) or (stat.S_ISREG(st.st_mode) and st.st_nlink > 1):
        raise Linked
    return st


def unlinked_signature(path: str, *, behind: bool = True) -> tuple[object, ...] | None:
    """A cache signature of ``path`` for a reader that follows a final link only as
    :func:`read_guarded` does: its ``lstat`` (a link swapped in or re-pointed is a new
    signature) with its link count, and for a symbolic link the real path it leads to and
    that file's ``stat`` (a link further on re-pointed, the target edited); ``None`` when
    missing — unless one of its nearest directories is a symbolic link (:func:`missing_signature`;
    not asked without ``behind``: the caller asks itself). Element 3 is the newest change
    time (ns). Blocking."""
    try:
        st = os.lstat(path)
    except (OSError, ValueError):
        return missing_signature(path) if behind else None
    newest = max(st.st_mtime_ns, st.st_ctime_ns)
    if not stat.S_ISLNK(st.st_mode):
        return (st.st_dev, st.st_ino, st.st_size, newest, st.st_mtime_ns, st.st_nlink)
    try:
        real: str | None = os.path.realpath(path)
        t = os.stat(path)
        target: tuple[int, ...] = (t.st_dev, t.st_ino, t.st_size, t.st_mtime_ns, t.st_ctime_ns, t.st_nlink)
        newest = max(newest, t.st_mtime_ns, t.st_ctime_ns)
    except (OSError, ValueError):
        real, target = None, ()
    return (st.st_dev, st.st_ino, st.st_size, newest, st.st_mtime_ns, st.st_nlink, real, *target)


def refused_directory(path: str, root: str) -> bool:
    """Is the directory ``path`` (absolute) inside ``root`` reached through a symbolic link
    the guard would not follow (:func:`read_guarded`'s rule; without a judge, any link)?
    ``False`` for a path outside the root or with no link on the way. A caller that would
    read the files of such a directory (git's hooks) reads none and gives its answer for a
    file it cannot check, whatever the directory holds. Blocking."""
    rel = _inside(path, root)
    if rel is None:
        return False
    head = root.rstrip("/")
    for part in rel.split("/"):  # (one lstat a component: asked on every write)
        head = f"{head}/{part}"
        st = _lstat_or_none(head)
        if st is None:
            return False  # missing, no link before it: nothing there
        if stat.S_ISLNK(st.st_mode):
            break
    else:
        return False
    judge = _JUDGE.get()
    if judge is None or not judge.follow:
        return True
    try:
        _resolve(path, root.rstrip("/") or "/", judge)
    except FileNotFoundError:
        return False  # missing behind served links: nothing there to read
    except Linked:
        return True
    return False


#: Ancestors of a missing path looked at for a symbolic link (a settings file's path adds
#: at most this many directories to the real directory it is read for).
_MISSING_DEPTH = 3


def missing_signature(path: str, depth: int = _MISSING_DEPTH,
                      lstat: Callable[[str], os.stat_result | None] | None = None) -> tuple[object, ...] | None:
    """``None`` for a missing ``path`` none of whose ``depth`` nearest ancestors is a
    symbolic link; else a signature of the link and of where ``path`` leads (a file missing
    behind a link is read — followed or refused — rather than taken as absent, so a link to
    a secret directory answers as one to a secret). ``lstat``: the caller's (memoised)
    ``lstat``, ``None`` for a missing path."""
    head = path
    for _ in range(depth):
        head = head.rpartition("/")[0]
        st = lstat(head) if lstat is not None else _lstat_or_none(head)
        if st is None:
            continue
        if not stat.S_ISLNK(st.st_mode):
            return None
        try:
            real: str | None = os.path.realpath(path)
        except (OSError, ValueError):
            real = None
        return (st.st_dev, st.st_ino, -1, max(st.st_mtime_ns, st.st_ctime_ns), st.st_mtime_ns, -1, head, real)
    return None


def _lstat_or_none(path: str) -> os.stat_result | None:
    try:
        return os.lstat(path)
    except (OSError, ValueError):
        return None


#: Symbolic links one followed path may pass (the kernel's own limit is 40).
MAX_HOPS = 40


class Judge:
    """Would the read gates serve a project-relative path (:meth:`serves`)? Built from a
    runtime's (or hook's) secret matcher, host filter and in-project git directories; only
    read. ``key`` tells judges apart for the guard's caches (equal keys, equal answers)."""

    __slots__ = ("_git_dirs", "_host", "_secret", "follow", "key")

    @property
    def git_dirs(self) -> tuple[str, ...]:
        """The project's git directories (their files are git's, not the read gates')."""
        return self._git_dirs

    def __init__(self, is_secret: Callable[[str], bool], host_filter: Callable[..., object] | None,
                 git_dirs: Sequence[str], key: object, *, follow: bool = True) -> None:
        self._secret = is_secret
        self._host = host_filter
        self._git_dirs = tuple(git_dirs)
        self.key = key
        #: May a link be followed (``False``: the host's own gates cannot be asked here; the
        #: secret and host-filter screen of :meth:`screen` still applies)?
        self.follow = follow

    def screen(self, rel: str) -> None:
        """Before the guard reads the project-relative ``rel`` a repository's file names
        (red team 21 M1: the answer told whether a secret exists, and what it holds): a
        secret (or below a secret-named directory, or a backup of one) is read as absent
        (``FileNotFoundError``; its content is no policy), one the host filter refuses
        cannot be checked (:class:`Linked`: nothing writable) — each judged by the name
        alone, so the answer is the same whether the file exists or not."""
        if self._secret(rel):
            raise FileNotFoundError(rel)
        if self._host is not None and not self.serves(rel):
            raise Linked

    def serves(self, rel: str) -> bool:
        """Is the project-relative ``rel`` neither git internals, a secret (or below a
        secret-named directory) nor refused by the host filter (asked as a read; an
        exception or an awaitable answer counts as a refusal)?"""
        from pathgate.runtime.gates.path import is_git_internal

        if not rel or rel == "." or is_git_internal(rel, self._git_dirs) or self._secret(rel):
            return False
        if self._host is None:
            return True
        try:
            answer = self._host(rel)
        except Exception:
            return False
        if answer is True:
            return True
        close = getattr(answer, "close", None)  # an awaitable answer: refused, never awaited
        if callable(close) and not isinstance(answer, (bool, int, str)):
            close()
        return False


def guard_judge(core: object) -> Judge | None:
    """The :class:`Judge` of a runtime or hook core (``root``, ``policy``, ``pipeline``,
    ``git_dirs``); one that follows no link (``follow`` false) when its pipeline holds gates
    of the host's own, which cannot be asked here."""
    pipeline = getattr(core, "pipeline", None)
    policy = getattr(core, "policy", None)
    if pipeline is None or policy is None:
        return None
    follow = all(type(g).__module__.startswith("pathgate.runtime.gates.") for g in pipeline.gates)  # no host gate
    host = policy.host_filter
    git_dirs = tuple(getattr(core, "git_dirs", ()))
    key = (getattr(core, "root", None), tuple(policy.secret_patterns), host, git_dirs, follow)
    return Judge(pipeline.secrets.is_secret, host, git_dirs, key, follow=follow)


_JUDGE: contextvars.ContextVar[Judge | None] = contextvars.ContextVar("pathgate_guard_judge", default=None)


@contextmanager
def judging(judge: Judge | None) -> Iterator[None]:
    """Within: :func:`read_guarded` may follow links as ``judge`` allows."""
    token = _JUDGE.set(judge)
    try:
        yield
    finally:
        _JUDGE.reset(token)


def served(rel: str) -> bool:
    """Would the read gates serve the project-relative ``rel`` (the current judge's
    answer; ``False`` without one)? A reader asks before it reads a file whose name alone
    is the caller's (an environment file a configuration names): a secret is never read."""
    judge = _JUDGE.get()
    return judge is not None and judge.follow and judge.serves(rel)


def screened(rel: str) -> bool:
    """Would :func:`read_guarded` read the project-relative ``rel`` as absent or refuse it
    by its name alone (a secret, host-filtered: :meth:`Judge.screen`) under the current
    judge (``False`` without one)? A reader that lists a directory skips such an entry, so
    that the answer is the one it gives when the entry does not exist."""
    judge = _JUDGE.get()
    if judge is None:
        return False
    try:
        judge.screen(rel)
    except (FileNotFoundError, Linked):
        return True
    return False


def judge_key() -> object:
    """The current judge's key (``None``: none, no link followed), for the guard's caches."""
    judge = _JUDGE.get()
    return None if judge is None else judge.key


def read_guarded(path: str, root: str, cap: int) -> tuple[bytes, str | None]:
    """:func:`read_unlinked`, or, under :func:`judging`, a symbolic link inside the project
    followed as the module says: the bytes, and the real path of the file a link led to
    (``None``: no link). :class:`Linked` for any doubt once a link was met. Blocking."""
    judge = _JUDGE.get()
    if judge is not None:
        from pathgate.runtime.gates.path import is_git_internal

        rel = _inside(path, root)
        if rel is not None and not is_git_internal(rel, judge.git_dirs):  # (git's hooks are read)
            judge.screen(rel)
    try:
        return read_unlinked(path, root, cap), None
    except Linked:
        if judge is None or not judge.follow or _inside(path, root) is None:
            raise
    real = _resolve(path, root.rstrip("/") or "/", judge)  # (FileNotFoundError: absent behind served links)
    try:
        return read_unlinked(real, root, cap), real
    except (OSError, Linked):
        raise Linked from None


def _resolve(path: str, root: str, judge: Judge) -> str:
    """The real path ``path`` (inside ``root`` as written) leads to, resolved one component
    at a time; each step a link's text takes, and the end, must be served by ``judge``
    (asked before the step is looked at), and so must every step after the first link.
    :class:`Linked` when a step leaves the root, is refused, is missing where a link's text
    leads (a dangling link), past :data:`MAX_HOPS` links, or when no symbolic link is on the
    way (a hard link); ``FileNotFoundError`` when what is missing is the path's own rest
    behind links the judge serves (a settings file a linked directory does not hold)."""
    rel = _inside(path, root)
    assert rel is not None
    stack = [(c, False) for c in reversed(rel.split("/"))]
    cur = root
    hops = 0
    while stack:
        part, from_link = stack.pop()
        if part in ("", "."):
            continue
        if part == "..":
            if cur == root:
                raise Linked  # out of the root
            cur = os.path.dirname(cur)
            continue
        nxt = f"{cur}/{part}"
        if (from_link or hops) and not judge.serves(nxt[len(root) + 1:]):
            raise Linked
        try:
            st = os.lstat(nxt)
        except (OSError, ValueError):
            if hops and not from_link:
                raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), path) from None
            raise Linked from None
        if not stat.S_ISLNK(st.st_mode):
            cur = nxt
            continue
        hops += 1
        if hops > MAX_HOPS:
            raise Linked
        try:
            text = os.readlink(nxt)
        except (OSError, ValueError):
            raise Linked from None
        if text.startswith("/"):
            if not text.startswith(root + "/"):
                raise Linked  # an absolute target outside the root as written
            cur, text = root, text[len(root) + 1:]
        stack += [(c, True) for c in reversed(text.split("/"))]
    if hops == 0 or cur == root or not judge.serves(cur[len(root) + 1:]):
        raise Linked
    return cur

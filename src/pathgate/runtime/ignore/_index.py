"""The per-directory cached index: ignore files found, stat-validated, read, compiled.

Like ripgrep's ``ignore`` crate (``dir.rs``), every directory gets an immutable :class:`DirNode`
linked to its parent; adding a child never mutates a parent, so concurrent sessions share
them. :class:`IgnoreIndex` holds them in a bounded LRU behind a lock and does all the
engine's I/O (through the :class:`~pathgate.runtime.fs.SyncFS` seam): stat signatures of
candidate ignore files, reading them, git's repository-wide sources and config (those in
:mod:`._globals`).
"""

from __future__ import annotations

import errno
import os
import stat as _stat
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import msgspec

from pathgate.runtime.fs import OsFS, SyncFS
from pathgate.runtime.ignore import _gitconfig, _globals
from pathgate.runtime.ignore._globals import Globals
from pathgate.runtime.ignore._plan import ChainPlan
from pathgate.runtime.ignore._rules import IgnoreList, Match
from pathgate.verdicts import BUILTIN_SOURCE

if TYPE_CHECKING:
    from pathgate.runtime.ignore._probe import DirAnchors, Probe
    from pathgate.runtime.ignore._session import IgnoreSession

__all__ = ["DEFAULT_IGNORES", "IgnoreConfig", "IgnoreIndex", "SourceInfo"]

#: Reads of an ignore file whose inode changed during the read (an atomic rewrite) before it
#: is refused as unreadable (fail closed): a file swapped on every attempt is still refused.
SWAP_RETRIES = 4

# The documented built-in default ignore list (lowest precedence; "<built-in>" source).
# Each entry is a gitignore line; ``Rule.line`` is its 1-based position here.
DEFAULT_IGNORES: tuple[str, ...] = (
    # version control metadata
    ".git",
    ".hg/",
    ".svn/",
    # dependency trees and virtual environments
    "node_modules/",
    "bower_components/",
    ".venv/",
    "venv/",
    ".pnpm-store/",
    # Python byte code and tool caches
    "__pycache__/",
    "*.pyc",
    "*.pyo",
    ".mypy_cache/",
    ".pytest_cache/",
    ".ruff_cache/",
    ".hypothesis/",
    ".tox/",
    ".nox/",
    ".cache/",
    # OS litter
    ".DS_Store",
    "Thumbs.db",
    # minified bundles
    "*.min.*",
    # lockfiles (large, generated, rarely useful to read)
    "package-lock.json",
    "npm-shrinkwrap.json",
    "yarn.lock",
    "pnpm-lock.yaml",
    "bun.lockb",
    "poetry.lock",
    "Pipfile.lock",
    "uv.lock",
    "Cargo.lock",
    "composer.lock",
    "Gemfile.lock",
    "go.sum",
)



class IgnoreConfig(msgspec.Struct, frozen=True, kw_only=True):
    """Which ignore sources apply.

    * ``defaults``: built-in patterns (lowest precedence).
    * ``agent_files``: per-directory agent ignore file names, read right after ``.gitignore``
      in the same directory (so they win over it), in this order.
    * ``git_sources``: read ``.git/info/exclude`` and ``core.excludesFile``.
    * ``excludes_file``: explicit ``core.excludesFile`` (``None``: found as git finds it).
    * ``ignore_case``: ASCII case folding (``None``: the repository's ``core.ignoreCase``).
    * ``cache_dirs``: LRU bound on cached directories.
    * ``fail_closed``: an ignore file that exists but cannot be read (``EACCES``, ``EIO``)
      blocks every path it governs (``Match.fail_closed``). ``False`` behaves like git:
      the file counts as empty (``check-ignore`` uses this to mirror git).
    """

    defaults: tuple[str, ...] = DEFAULT_IGNORES
    agent_files: tuple[str, ...] = (".pathgateignore",)
    git_sources: bool = True
    excludes_file: str | None = None
    ignore_case: bool | None = None
    cache_dirs: int = 65536
    fail_closed: bool = True

    @classmethod
    def git_only(cls, **overrides: object) -> IgnoreConfig:
        """git's own sources only: no built-in defaults, no agent ignore files."""
        base = cls(defaults=(), agent_files=(), git_sources=True)
        return msgspec.structs.replace(base, **overrides) if overrides else base

class SourceInfo(msgspec.Struct, frozen=True, kw_only=True):
    """One ignore source consulted for a path (see :meth:`IgnoreSession.explain`).

    ``state``: ``"read"`` (``rules`` lines compiled), ``"unreadable"`` (``error`` names the
    errno; ``EFBIG``: larger than :data:`~pathgate.runtime.fs.MAX_IGNORE_BYTES`;
    ``GitFatal``: a layout or configuration git exits 128 on, every path fails closed),
    ``"symlink"`` (a symlinked per-directory file: not followed, like git), ``"special"``
    (a repository-wide source that is a FIFO or device: never read, no rules),
    ``"builtin"``.
    """

    source: str
    state: str
    rules: int = 0
    error: str | None = None


# ---------------------------------------------------------------------------------------
# directories
# ---------------------------------------------------------------------------------------

_Sig = tuple[int, int, int, int, int] | str | None


def _sig_of(st: os.stat_result) -> tuple[int, int, int, int, int]:
    return (st.st_mode, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


class DirNode:
    """An immutable per-directory node.

    ``stop`` is set when nothing below needs evaluating: the directory is excluded
    (``stop.ancestor`` names it) or fail-closed. ``chain`` lists the non-empty lists that
    apply to entries of this directory, deepest (highest precedence) first; ``plan`` the
    same chain pruned to the rules that can match an entry of this directory.

    ``proof`` is the one field set after construction, at most once by each session that
    validates the node through a descriptor (:meth:`IgnoreSession._down_held`): ``(the
    directory's signature, each present ignore file's (name, signature))`` as the index's
    anchors (:class:`._probe.DirAnchors`) observed them -- its missing ignore files were
    missing right after the directory had that signature. A fact about the directory, not a
    cache of anything the node holds; ``None``: not known.
    """

    __slots__ = ("chain", "lists", "parent", "plan", "proof", "rel", "sigs", "sources", "stop", "view")

    def __init__(self, rel: str, parent: DirNode | None, stop: Match | None,
                 lists: tuple[IgnoreList, ...], sigs: tuple[_Sig, ...],
                 sources: tuple[SourceInfo, ...]) -> None:
        self.rel = rel
        self.parent = parent
        self.stop = stop
        self.lists = lists
        self.sigs = sigs
        self.sources = sources
        self.proof: tuple[tuple[int, ...], tuple[tuple[str, _Sig], ...]] | None = None
        self.view = rel if rel.isascii() else _view(rel)
        parent_chain = parent.chain if parent is not None else ()
        own = tuple(lst for lst in reversed(lists) if len(lst)) if lists else ()
        self.chain: tuple[IgnoreList, ...] = own + parent_chain if own else parent_chain
        # the chain pruned for this directory's entries (None: excluded or fail-closed,
        # nothing is decided here; or no plan above to narrow from)
        pplan = parent.plan if parent is not None else None
        self.plan: ChainPlan | None = None
        if stop is None:
            if pplan is not None and not own and not pplan.narrows:
                self.plan = pplan  # (ChainPlan.for_dir's answer, without the call)
            elif parent is None or pplan is not None:
                self.plan = ChainPlan.for_dir(pplan, own, self.chain, self.view)


def _view(path: str) -> str:
    """The latin-1 view of a path's bytes (identity for ASCII)."""
    if path.isascii():
        return path
    return os.fsencode(path).decode("latin-1")


def _err_name(code: int | None) -> str:
    return errno.errorcode.get(code or 0, str(code))


def _stale(code: int | None) -> str:
    """A signature no stat ever produces: the source failed to read after its ``lstat``
    (maybe transiently), so a node cached under it is rebuilt by the next session."""
    return f"stale:{_err_name(code)}"


class IgnoreIndex:
    """Per-root cache of compiled per-directory matchers, shared by all callers.

    Thread-safe: the LRU is mutated under a lock; the nodes themselves are immutable.
    """

    def __init__(self, root: str | os.PathLike[str], config: IgnoreConfig | None = None,
                 *, fs: SyncFS | None = None) -> None:
        self.root = os.path.realpath(root)
        self.config = config or IgnoreConfig()
        #: Set by the runtime: is this multi-linked regular file (its ``lstat``) a secret?
        #: Such an ignore file is never read as rules (see :meth:`_read_source`).
        self.linked_secret: Callable[[os.stat_result], bool] | None = None
        #: Is this project-relative path a secret (the runtime sets it to the secrets gate's
        #: matcher)? An ignore file whose path is a secret (``agent_files`` naming
        #: ``credentials`` meets ``.aws/credentials``; ``core.excludesFile = .env`` or
        #: ``.git/info/exclude`` linked to it: :mod:`._secret_sources`) is never read: it
        #: counts as absent, so neither its lines nor its existence reach a renderer.
        self.secret_source: Callable[[str], bool] | None = None
        self.fs: SyncFS = fs or OsFS()
        self._lock = threading.Lock()
        self._nodes: OrderedDict[str, DirNode] = OrderedDict()
        self._cap = max(1, self.config.cache_dirs)
        self._globals: Globals | None = None
        self._builtin = (IgnoreList.from_strings(BUILTIN_SOURCE, "", self.config.defaults, False)
                         if self.config.defaults else None)
        self._builtin_folded: IgnoreList | None = None
        self._warned: set[str] = set()
        self._ignore_names = (".gitignore", *self.config.agent_files)
        self._ignore_set = frozenset(self._ignore_names)
        self._no_sigs: tuple[_Sig, ...] = (None,) * len(self._ignore_names)
        self._longest_name = max(len(os.fsencode(n)) for n in self._ignore_names)
        self.on_warning: Callable[[str], None] | None = None
        # files the last git config resolution read (another index's of this root, at first)
        self._git_watch: tuple[str, ...] = _globals.watch_hint(self.root)
        self.git_layout: _gitconfig.GitLayout | None = None  # GIT_DIR (check-ignore sets it)
        #: Without a ``.git`` of its own, is the root looked for below the top of a work tree,
        #: and git's sources above it applied (:mod:`._upper`)? ``check-ignore --root`` names
        #: the top itself and turns it off.
        self.find_top = True
        #: Seconds a validation of the repository-wide sources (git config files, the
        #: ``GIT_*`` environment, ``core.excludesFile``, ``.git/info/exclude``) is reused by
        #: later sessions; ``0`` (the default) re-validates in every session. Per-directory
        #: ignore files are validated in every session whatever this says. The runtime sets it
        #: (README: "Ignore rules", freshness).
        self.globals_ttl = 0.0
        self._clock: Callable[[], float] = time.monotonic
        self._globals_checked = float("-inf")  # clock time the last validation began
        #: The probe of the repository-wide sources (``_probe``), its wall clock, its trust.
        self._probe: Probe | None = None
        self._wall_ns: Callable[[], int] = time.time_ns
        self.trusts_dir: Callable[[str, os.stat_result], bool] = self._local_dir
        self._local_dirs: dict[tuple[str, int], bool] = {}
        self._anchors: DirAnchors | None = None  # per-directory anchors (``_probe``)

    # -- public ------------------------------------------------------------------------

    def session(self, dir_fd: Callable[[str], int | None] | None = None) -> IgnoreSession:
        """A per-call view: each ignore file's stat signature is checked at most once.
        ``dir_fd``: the caller's open descriptor of a directory by relpath, if it holds one
        (its ignore files are then ``lstat``-ed relative to it: no path walk)."""
        from pathgate.runtime.ignore._session import IgnoreSession

        return IgnoreSession(self, dir_fd=dir_fd)

    def match(self, relpath: str, is_dir: bool | None = None) -> Match:
        """One decision in a fresh session."""
        return self.session().match(relpath, is_dir)

    def is_warm(self, reldir: str) -> bool:
        """Are the repository-wide sources loaded and directory ``reldir`` and each of its
        ancestors cached (a session deciding below it stats ignore files but, unless one
        changed, reads none)?"""
        if self._globals is None:
            return False
        nodes = self._nodes
        cur = reldir
        while True:
            if cur not in nodes:
                return False
            if not cur:
                return True
            cur = cur.rpartition("/")[0]

    def cached_dirs(self) -> int:
        """How many directories the LRU holds now."""
        return len(self._nodes)

    def clear(self) -> None:
        """Drop every cached directory (the next session re-reads everything)."""
        with self._lock:
            self._nodes.clear()
            self._anchors = None
            self._globals = None
            self._globals_checked = float("-inf")

    # -- internals -----------------------------------------------------------------------

    def _abs(self, rel: str) -> str:
        return os.path.join(self.root, rel) if rel else self.root

    def _warn(self, message: str) -> None:
        if message in self._warned:
            return
        self._warned.add(message)
        if self.on_warning is not None:
            self.on_warning(message)

    def _stat_sig(self, path: str, follow: bool = False) -> _Sig:
        try:
            st = self.fs.stat(path) if follow else self.fs.lstat(path)
        except OSError as e:
            if e.errno in (errno.ENOENT, errno.ENOTDIR):
                return None
            return f"error:{_err_name(e.errno)}"
        return _sig_of(st)

    def git_steering(self) -> tuple[str, ...]:
        """Absolute paths of what steers git here: every file its configuration was or
        would be read from (``[include]`` targets, the global files), the excludes file,
        ``info/exclude``, ``core.hooksPath`` and ``core.attributesFile`` (validated as a
        session validates them). An agent may not write any of them, nor below them."""
        return self._current_globals().steering

    def git_hooks(self) -> str | None:
        """The directory git runs hooks from here (``core.hooksPath``, else the repository's
        ``hooks/``; ``None`` without a repository), validated as :meth:`git_steering` is: what
        its scripts run is never writable (:mod:`pathgate.runtime.tools._git_hooks`)."""
        return self._current_globals().hooks

    def git_top(self) -> str:
        """The top of the work tree git runs hooks and configured commands from: the root,
        or the directory above it that holds the repository (a root below the top)."""
        return self._current_globals().top or self.root

    def git_config(self) -> tuple[tuple[str, str | None], ...]:
        """Every ``(key, value)`` git reads here, in order (keys as git canonicalises them),
        validated as :meth:`git_steering` is; the same tuple while nothing changed. What its
        command-valued keys run is never writable (:mod:`pathgate.runtime.tools._git_commands`)."""
        return self._current_globals().config

    def _current_globals(self) -> Globals:
        """The repository-wide sources, validated for this session (:mod:`._globals`)."""
        return _globals.current_globals(self)

    def _make_probe(self, g: Globals) -> Probe | None:
        return _globals.make_probe(self, g)

    def _local_dir(self, path: str, st: os.stat_result) -> bool:
        """May a probe rely on directory ``path``'s timestamps? On the real filesystem, of a
        local type (:func:`~pathgate.runtime.fs.is_local_tree`; remembered per device)."""
        if type(self.fs) is not OsFS:
            return False
        known = self._local_dirs.get((path, st.st_dev))
        if known is None:
            from pathgate.runtime.fs import is_local_tree

            known = self._local_dirs[path, st.st_dev] = is_local_tree(os.path.realpath(path))
        return known

    def _lookup(self, rel: str) -> DirNode | None:
        # no lock: each call on the ordered dict is atomic (str keys run no Python code);
        # a node evicted by :meth:`_store` between the two is simply not moved
        nodes = self._nodes
        node = nodes.get(rel)
        if node is not None:
            try:
                nodes.move_to_end(rel)
            except KeyError:
                pass
        return node

    def _store(self, node: DirNode) -> None:
        nodes = self._nodes
        rel = node.rel
        with self._lock:
            if rel in nodes:
                nodes.move_to_end(rel)
            nodes[rel] = node  # (a new key goes last)
            if len(nodes) > self._cap:
                while len(nodes) > self._cap:
                    nodes.popitem(last=False)

    def _names(self) -> tuple[str, ...]:
        return self._ignore_names

    @property
    def ignore_names(self) -> frozenset[str]:
        """The per-directory ignore file names, as a set."""
        return self._ignore_set

    def _unsearchable(self, base: str) -> bool:
        """Is the directory ``base`` (ending in ``/``) itself closed to path lookups?"""
        try:
            self.fs.lstat(base + ".")
        except OSError as e:
            return e.errno == errno.EACCES
        return False

    def own_files_unchanged(self, rel: str, node: DirNode) -> bool:
        """Do the ignore files directory ``rel``'s ``node`` was read from still have the
        signatures it was read under? One ``lstat`` per file the node holds (the live index:
        an edit through another hard link sends the directory's watch no event). Blocking."""
        present = frozenset(name for name, sig in zip(self._ignore_names, node.sigs, strict=True)
                            if sig is not None)
        return not present or self._own_sigs(rel, present, None, False) == node.sigs

    def _own_sigs(self, rel: str, present: frozenset[str] | None,
                  dir_fd: int | None = None, anchored: bool = True) -> tuple[_Sig, ...]:
        """The stat signature of each candidate ignore file of directory ``rel`` (one
        shared tuple of ``None`` when there is none, the common case); ``dir_fd``: an open
        descriptor of ``rel`` (the real filesystem only) to ``lstat`` them relative to, its
        own ``fstat`` standing for the missing ones (``anchored``: :class:`._probe.DirAnchors`)."""
        if present is not None and not present:
            return self._no_sigs  # the listing shows none (the common case): nothing to stat
        fs = self.fs
        if type(fs) is not OsFS:
            dir_fd = None
        elif anchored and dir_fd is not None and present is None:
            anchors = self._anchors
            if anchors is None:
                from pathgate.runtime.ignore import _probe

                anchors = _probe.make_anchors(self)
            return anchors.sigs(rel, dir_fd, self._ignore_names,
                                lambda: self._own_sigs(rel, None, dir_fd, False))
        base = f"{self.root}/{rel}/" if rel else self.root + "/"
        lstat = os.lstat if type(fs) is OsFS else fs.lstat
        out: list[_Sig] | None = None
        for k, name in enumerate(self._ignore_names):
            if present is not None and name not in present:
                continue
            sig: _Sig
            try:
                st = lstat(base + name) if dir_fd is None else \
                    os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
            except (FileNotFoundError, NotADirectoryError):
                continue
            except OSError as e:
                if e.errno == errno.EACCES and self._unsearchable(base):
                    # an unsearchable directory: nothing below it can be opened or listed
                    # at all, so its ignore files decide nothing; reads and walks report
                    # the real cause (permission denied), not "an ignore file failed"
                    continue
                sig = f"error:{_err_name(e.errno)}"
            else:
                sig = (st.st_mode, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
            if out is None:
                out = list(self._no_sigs)
            out[k] = sig
        return self._no_sigs if out is None else tuple(out)

    def _read_source(self, path: str) -> bytes:
        """A per-directory ignore file's bytes. With :attr:`linked_secret` set (the runtime
        sets it; ``check-ignore`` does not), a multi-linked file that shares its inode with
        a secret is refused like an unreadable one (``EACCES``: the paths it governs fail
        closed), so a secret's lines can never become rules a renderer quotes. The file is
        judged before and after the read, and must be the same inode both times: a file
        replaced during the read (an editor's or git's atomic rename) is read again, up to
        :data:`SWAP_RETRIES` times, then refused (``EAGAIN``: the paths it governs fail
        closed for this session only)."""
        refuse = self.linked_secret
        if refuse is None:
            return self.fs.read_bytes(path)
        for _ in range(SWAP_RETRIES):
            before = self._judge_link(path, refuse)
            data = self.fs.read_bytes(path)
            if self._judge_link(path, refuse) == before:
                return data
        raise OSError(errno.EAGAIN, os.strerror(errno.EAGAIN), path)

    def _judge_link(self, path: str, refuse: Callable[[os.stat_result], bool]) -> tuple[int, int]:
        """``(st_dev, st_ino)`` of ``path``; ``EACCES`` when it is a secret's hard link."""
        st = self.fs.lstat(path)
        if _stat.S_ISREG(st.st_mode) and refuse(st):
            raise OSError(errno.EACCES, os.strerror(errno.EACCES), path)
        return st.st_dev, st.st_ino

    def _read_own(self, rel: str, parent: DirNode, sigs: tuple[_Sig, ...], fold: bool,
                  old: DirNode | None, extra: Sequence[str] | None = None) -> DirNode:
        """Build an allowed directory node by reading its ignore files."""
        if sigs is self._no_sigs and extra is None:
            return DirNode(rel, parent, None, (), sigs, ())  # no ignore file: nothing to read
        base_view = (_view(rel) + "/") if rel else ""
        lists: list[IgnoreList] = []
        sources: list[SourceInfo] = []
        stop: Match | None = None
        reuse: dict[str, IgnoreList] = {}
        if old is not None and extra is None:
            reuse = {lst.source: lst for lst in old.lists}
        names = self._names()
        last_agent_idx = len(names) - 1
        kept = list(sigs)  # the signatures the node is cached under
        secret_source = self.secret_source
        for k, (name, sig) in enumerate(zip(names, sigs, strict=True)):
            source = f"{rel}/{name}" if rel else name
            lst: IgnoreList | None = None
            if sig is not None and secret_source is not None and secret_source(source):
                sig = None  # a secret is never read as rules: as if it were not there
            if isinstance(sig, tuple):
                mode = sig[0]
                if _stat.S_ISLNK(mode):
                    # git opens per-directory files with O_NOFOLLOW: not followed, warned.
                    self._warn(f"unable to access '{source}': {os.strerror(errno.ELOOP)}")
                    sources.append(SourceInfo(source=source, state="symlink",
                                              error=_err_name(errno.ELOOP)))
                elif _stat.S_ISREG(mode):
                    prev = reuse.get(source)
                    # (the old node's own signature of the file: a list from the compile
                    # cache carries the signature of its first compile, maybe elsewhere)
                    if prev is not None and old is not None and old.sigs[k] == sig and prev.fold == fold:
                        lst = prev
                    else:
                        try:
                            data = self._read_source(os.path.join(self._abs(rel), name))
                        except OSError as e:
                            # A failed read may be transient (EMFILE, EIO, a race): never
                            # cache its outcome as valid, so the next session reads again.
                            kept[k] = _stale(e.errno)
                            if e.errno in (errno.ENOENT, errno.ENOTDIR):
                                data = None
                            elif e.errno == errno.ELOOP:
                                self._warn(f"unable to access '{source}': {os.strerror(e.errno)}")
                                data = None
                            else:
                                self._warn(f"unable to access '{source}': {os.strerror(e.errno or 0)}")
                                sources.append(SourceInfo(source=source, state="unreadable",
                                                          error=_err_name(e.errno)))
                                if self.config.fail_closed and stop is None:
                                    stop = Match(ignored=True, fail_closed=True, unreadable=source)
                                data = None
                        if data is not None:
                            lst = IgnoreList.compiled(source, base_view, data, fold, sig)
            elif isinstance(sig, str):
                # lstat failed with something other than ENOENT: cannot tell; fail closed.
                self._warn(f"unable to access '{source}': "  # strerror, as git
                           f"{os.strerror(getattr(errno, sig[6:], 0))}")
                sources.append(SourceInfo(source=source, state="unreadable", error=sig[6:]))
                if self.config.fail_closed and stop is None:
                    stop = Match(ignored=True, fail_closed=True, unreadable=source)
            if lst is not None:
                lists.append(lst)
                sources.append(SourceInfo(source=source, state="read", rules=len(lst)))
            if extra is not None and k == last_agent_idx:
                # appended lines: a list right after the file, numbered after its last line
                first = (lst.nlines + 1) if lst is not None else 1
                lists.append(IgnoreList.from_strings(source, base_view, list(extra), fold, first))
        return DirNode(rel, parent, stop, tuple(lists), tuple(kept), tuple(sources))


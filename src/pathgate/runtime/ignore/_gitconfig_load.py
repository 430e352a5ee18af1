"""git's configuration files read with their includes, as ``config.c`` reads them.

``[include] path`` is followed unconditionally; ``[includeIf "<condition>"] path`` when the
condition holds: ``gitdir:``/``gitdir/i:`` (the git directory matches the pattern),
``onbranch:`` (``HEAD`` names a matching branch), ``hasconfig:remote.*.url:`` (some
``remote.<name>.url`` value anywhere in the configuration matches the pattern, with
``WM_PATHNAME``). For the last, git first reads every file with each ``hasconfig`` condition
taken as true to collect the URLs, and dies when a file included by an ``includeIf`` holds a
remote URL in that pass (``forbid_remote_url``): pathgate does the same. Unknown conditions
are false.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Callable, Mapping

from pathgate.runtime.ignore import _gitconfig
from pathgate.runtime.ignore._gitconfig import (
    _MAX_INCLUDE_DEPTH,
    GitLayout,
    config_files,
    expand_path,
    parse_bool,
)
from pathgate.runtime.ignore._gitconfig_parse import ConfigEntry, GitFatal, parse_config, parse_env_parameters
from pathgate.runtime.ignore._wildmatch import Wildmatch

__all__ = ["load_config"]

_HASCONFIG = "hasconfig:remote.*.url:"
_FORBIDDEN = ("fatal: remote URLs cannot be configured in file directly or indirectly included by "
              "includeIf.hasconfig:remote.*.url")


class _Expansion:
    """One include target read with everything it includes, as applied at some depth: its
    entries in order, the longest include chain below it (``height``: 0 when it includes
    nothing), the ``error:`` lines it added and the work it was charged."""

    __slots__ = ("entries", "errors", "height", "units")

    def __init__(self, entries: list[ConfigEntry], height: int, errors: list[str], units: int) -> None:
        self.entries = entries
        self.height = height
        self.errors = errors
        self.units = units


#: Config entries one resolution applies from included files, counted each time they are
#: applied (every line of an included file, and the ``path`` line that includes it): git
#: re-reads a file each time it is included, so a repository's include fan-out (a file that
#: includes the next one 4 times, 8 levels deep, under git's depth limit) multiplies them.
#: Past it the configuration is refused as git refuses one past its include depth (a
#: :class:`GitFatal`: every path fails closed, the reason logged). Real configurations
#: apply a few hundred; 100,000 keeps a resolution well under a second (red team 22 H1).
MAX_INCLUDED_ENTRIES = 100_000

#: :meth:`_Loader._read` outcomes other than the bytes: nothing there, and ``access()``
#: denied on a file that exists.
_MISSING = 0
_NO_ACCESS = -1


class _Loader:
    """Reads config files with their includes, recording every path it looked at.

    git reads and parses an included file again each time it is included, and applies its
    entries again in order. The loader does the same work once per resolution: each file is
    read once (:meth:`_read`), parsed once per way git names it (:meth:`_parse`), judged by
    ``absent`` once (:meth:`_absent`), and an include target's whole expansion is kept and
    applied again (the same entries, ``error:`` lines and include chains) wherever it is
    included at a depth where git's depth limit still holds for it; elsewhere it is expanded
    again, so git's depth error comes from the same place. The resolution is keyed on the
    signatures of the files it read (``_globals._resolve_stable``): a file edited while it
    ran makes it resolve again, as when each include re-read the file."""

    def __init__(self, layout: GitLayout | None, watched: list[str],
                 absent: Callable[[str], bool] | None = None, env: Mapping[str, str] | None = None,
                 unconditional: bool = False, seen: set[str] | None = None) -> None:
        self.layout = layout
        self.watched = watched
        #: what this resolution appended to ``watched`` (each path once)
        self.seen: set[str] = set() if seen is None else seen
        self.errors: list[str] = []
        #: a config file or include target this says is a secret is read as missing (never
        #: parsed: its errors or its mere existence would reach the model through a
        #: fail-closed answer)
        self.absent = absent
        self.env: Mapping[str, str] = {} if env is None else env
        #: git's ``unconditional_remote_url`` pass: every ``hasconfig`` condition holds, and
        #: a file an ``includeIf`` includes may hold no remote URL
        self.unconditional = unconditional
        self.remote_urls: list[str] | None = None
        #: entries applied from included files so far (:data:`MAX_INCLUDED_ENTRIES`)
        self.units = 0
        self._judged: dict[str, bool] = {}
        self._data: dict[str, bytes | int] = {}
        self._parsed: dict[tuple[str, str], tuple[list[ConfigEntry], list[str]]] = {}
        self._expanded: dict[tuple[str, str, bool], _Expansion] = {}
        self._targets: dict[ConfigEntry, tuple[str, str] | None] = {}

    def watch(self, path: str) -> None:
        if path not in self.seen:
            self.seen.add(path)
            self.watched.append(path)

    def _absent(self, path: str) -> bool:
        """``absent(path)``, asked once per path (a realpath and the secret tests each)."""
        if self.absent is None:
            return False
        got = self._judged.get(path)
        if got is None:
            got = self._judged[path] = bool(self.absent(path))
        return got

    def _read(self, path: str) -> bytes | int:
        """The bytes of ``path`` (read once per resolution), :data:`_MISSING`,
        :data:`_NO_ACCESS`, or the errno of a failed read."""
        got = self._data.get(path)
        if got is not None:
            return got
        out: bytes | int
        try:
            if not _gitconfig._access(path, os.R_OK):
                out = _NO_ACCESS if os.path.lexists(path) else _MISSING
            else:
                out = _gitconfig._read_small(path)
        except (FileNotFoundError, NotADirectoryError):
            out = _MISSING
        except OSError as exc:
            out = exc.errno or errno.EIO
        self._data[path] = out
        return out

    def _parse(self, path: str, shown: str, data: bytes) -> tuple[list[ConfigEntry], list[str]]:
        """The entries of the file at ``path`` as git names it ``shown``, and the
        ``error:`` lines parsing it adds (once per pair: a :class:`GitFatal` is not kept,
        it ends the resolution)."""
        key = (path, shown)
        got = self._parsed.get(key)
        if got is None:
            errors: list[str] = []
            got = self._parsed[key] = (parse_config(data.decode("utf-8", "surrogateescape"), shown, path,
                                                    errors), errors)
        return got

    def _charge(self, units: int, shown: str) -> None:
        self.units += units
        if self.units > MAX_INCLUDED_ENTRIES:
            raise GitFatal(f"fatal: more than {MAX_INCLUDED_ENTRIES:,} config entries applied through "
                           f"includes (pathgate's bound), the last from '{shown}'", shown)

    def file(self, path: str, shown: str, eacces_fatal: bool, depth: int = 0, forbid: bool = False,
             by: str = "") -> list[ConfigEntry]:
        """The entries git applies reading the file at ``path`` (named ``shown``) at include
        ``depth`` (included by the file git names ``by``), its includes expanded in place
        (the list returned is not to be changed). As git's ``handle_path_include``, the
        depth limit applies to a file that exists and may be read: an include of a missing
        file is no error at any depth."""
        self.watch(path)
        if self._absent(path):
            return []  # read as missing: `.git/config -> ../.env` (red team 18 J1), any config file
        key = (path, shown, forbid)
        done = self._expanded.get(key) if depth else None
        if done is not None and depth + done.height <= _MAX_INCLUDE_DEPTH:
            self._charge(done.units, shown)
            self.errors.extend(done.errors)
            return done.entries
        data = self._read(path)
        if data == _MISSING or (data == _NO_ACCESS and not eacces_fatal):
            return []
        if depth > _MAX_INCLUDE_DEPTH:
            raise GitFatal(f"fatal: exceeded maximum include depth ({_MAX_INCLUDE_DEPTH}) while "
                           f"including\n\t{shown}\nfrom\n\t{by}", by)
        if isinstance(data, int):
            raise self._unreadable(path, shown, errno.EACCES if data == _NO_ACCESS else data)
        units, errors_at = self.units, len(self.errors)
        parsed, errors = self._parse(path, shown, data)
        self.errors.extend(errors)
        if depth:
            self._charge(1 + len(parsed) + len(errors), shown)
        out: list[ConfigEntry] = []
        height = 0
        for e in parsed:
            if forbid and _is_remote_url(e):
                raise GitFatal(_FORBIDDEN, shown)
            out.append(e)
            inc = self._targets[e] if e in self._targets else self._targets.setdefault(e, self._include_target(e))
            if inc is None:
                continue
            if self._absent(inc[0]):
                self.watch(inc[0])
                continue
            sub = forbid or self.forbids(e)
            out.extend(self.file(inc[0], inc[1], False, depth + 1, sub, shown))
            done = self._expanded.get((inc[0], inc[1], sub))
            if done is not None:  # (none: the target is missing, nothing was included)
                height = max(height, 1 + done.height)
        if depth:
            self._expanded[key] = _Expansion(out, height, self.errors[errors_at:], self.units - units)
        return out

    def _unreadable(self, path: str, shown: str, err: int) -> GitFatal:
        """git's message for a config file it may not read (errno ``err``)."""
        if err == errno.EISDIR:
            return GitFatal(f"warning: unable to access '{shown}': {os.strerror(err)}\n"
                            "fatal: unknown error occurred while reading the configuration "
                            "files", shown)
        msg = f"unable to access '{shown}': {os.strerror(err)}"
        if self.layout is not None and path == os.path.join(self.layout.common_dir, "config"):
            msg = f"warning: {msg}\nfatal: {msg}"  # git's repository-format check warned
        else:
            msg = f"fatal: {msg}"
        return GitFatal(msg, shown)

    def forbids(self, e: ConfigEntry) -> bool:
        """Does the file ``e`` includes (and all it includes) forbid remote URLs?"""
        return self.unconditional and e.key.startswith("includeif.")

    def _include_target(self, e: ConfigEntry) -> tuple[str, str] | None:
        """The file an ``include.path``/``includeIf.*.path`` entry names, if it applies:
        ``(path, how git names it)``."""
        if e.value is None or not e.key.endswith(".path"):
            return None
        if e.key == "include.path":
            pass
        elif e.key.startswith("includeif.") and e.key.count(".") >= 2:
            cond = e.key[len("includeif."):-len(".path")]
            if not self._condition(cond, e):
                return None
        else:
            return None
        target = expand_path(e.value)
        if target.startswith("/"):
            return target, target
        if e.path is None or e.origin is None:
            raise GitFatal("fatal: relative config includes must come from files")
        shown_dir = os.path.dirname(e.origin)
        return (os.path.join(os.path.dirname(e.path), target),
                shown_dir + "/" + target if shown_dir else target)

    def _condition(self, cond: str, e: ConfigEntry) -> bool:
        if cond.startswith(_HASCONFIG):
            return self._by_remote_url(cond[len(_HASCONFIG):])
        if self.layout is None:
            return False
        if cond.startswith("gitdir:"):
            return self._by_gitdir(cond[7:], e, False)
        if cond.startswith("gitdir/i:"):
            return self._by_gitdir(cond[9:], e, True)
        if cond.startswith("onbranch:"):
            return self._by_branch(cond[9:])
        return False

    def _by_gitdir(self, pat: str, e: ConfigEntry, icase: bool) -> bool:
        pat = expand_path(pat)
        prefix = 0
        if pat.startswith("./"):
            if e.path is None:
                raise GitFatal("fatal: relative config include conditionals must come from "
                               "files")
            base = os.path.dirname(os.path.realpath(e.path)) + "/"
            pat = base + pat[2:]
            prefix = len(base)
        elif not pat.startswith("/"):
            pat = "**/" + pat
        if pat.endswith("/"):
            pat += "**"
        assert self.layout is not None
        real = os.path.realpath(self.layout.git_dir)
        for text in (real, os.path.abspath(self.layout.git_dir)):
            if prefix:
                a, b = pat[:prefix], text[:prefix]
                if len(text) < prefix or (a.lower() != b.lower() if icase else a != b):
                    continue
            if Wildmatch(pat[prefix:], True, icase)(text[prefix:]):
                return True
        return False

    def _by_remote_url(self, pat: str) -> bool:
        """git's ``include_by_remote_url``: true in the collecting pass; else some remote
        URL of the whole configuration (collected once, lazily, as git does) matches."""
        if self.unconditional:
            return True
        if self.remote_urls is None:
            sub = _Loader(self.layout, self.watched, self.absent, self.env, unconditional=True, seen=self.seen)
            sub._judged, sub._data, sub._parsed = self._judged, self._data, self._parsed  # the same files
            self.remote_urls = [e.value for e in _load_all(sub) if e.value is not None and _is_remote_url(e)]
        match = Wildmatch(pat, True, False)
        return any(match(url) for url in self.remote_urls)

    def _by_branch(self, pat: str) -> bool:
        assert self.layout is not None
        head = os.path.join(self.layout.git_dir, "HEAD")
        self.watch(head)
        try:
            data = _gitconfig._read_small(head).decode("utf-8", "surrogateescape")
        except OSError:
            return False
        if not data.startswith("ref: refs/heads/"):
            return False
        branch = data[len("ref: refs/heads/"):].rstrip("\n")
        if pat.endswith("/"):
            pat += "**"
        return Wildmatch(pat, True, False)(branch)


def load_config(layout: GitLayout | None, env: Mapping[str, str], watched: list[str],
                absent: Callable[[str], bool] | None = None) -> tuple[list[ConfigEntry], list[str]]:
    """Every config entry git would see, in order, and git's non-fatal ``error:`` lines
    (a config file or include target ``absent`` names is read as missing)."""
    loader = _Loader(layout, watched, absent, env)
    return _load_all(loader), loader.errors


def _load_all(loader: _Loader) -> list[ConfigEntry]:
    layout, env = loader.layout, loader.env
    entries: list[ConfigEntry] = []
    for path, shown, eacces_fatal in config_files(layout, env):
        entries.extend(loader.file(path, shown, eacces_fatal))
    if layout is not None:
        local = [e for e in entries if e.origin == layout.common_display + "/config"]
        wt = [e for e in local if e.key == "extensions.worktreeconfig"]
        if wt and parse_bool(wt[-1].value):
            entries.extend(loader.file(os.path.join(layout.git_dir, "config.worktree"),
                                       layout.git_display + "/config.worktree", True))
    for e in parse_env_parameters(env):
        entries.append(e)
        inc = loader._include_target(e)
        if inc is not None and not loader._absent(inc[0]):
            entries.extend(loader.file(inc[0], inc[1], False, 1, loader.forbids(e)))
    return entries


def _is_remote_url(e: ConfigEntry) -> bool:
    """Is ``e`` a ``remote.<name>.url`` (``parse_config_key`` with a subsection, maybe
    empty)?"""
    section, _, rest = e.key.partition(".")
    return section == "remote" and "." in rest and rest.rsplit(".", 1)[1] == "url"

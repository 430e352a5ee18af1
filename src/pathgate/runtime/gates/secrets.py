"""Gate 2, ``secrets`` (opaque): ``.env`` files and credential names.

A name is judged twice, and is secret when either spelling is: the whole name (on POSIX a
``:`` is an ordinary character, so ``host:443.pem`` is a ``*.pem``), and the name as
Windows/NTFS would see it, cut at the first ``:`` (an alternate data stream,
``.env:$DATA`` is ``.env``). Both drop trailing spaces and dots (``.env ``, ``.env.``) and
are case-folded (``.ENV``). Secret when the normalised basename
is ``.env`` or starts with ``.env.``, ``.env-`` or ``.env_`` — except the templates
``.env.example``, ``.env.sample``, ``.env.template`` (also spelled with ``-`` or ``_``; same
normalisation: ``.ENV.EXAMPLE`` is a template) — or
matches one of the policy's ``secret_patterns`` (:data:`pathgate.config.DEFAULT_SECRET_PATTERNS`).
``.envrc`` and ``app.env`` are not secrets. An editor's backup, autosave or swap file of a
secret name is a secret too (``.env~``, ``#.env#``, ``..env.swp``, ``.env___jb_old___``,
``.aws/credentials~``: see
:func:`backup_of`).

A spelling is secret when a component of the path *as written* (before ``..`` is resolved:
``.env.d/../a`` passes through ``.env.d``), its lexical normalisation or the real
(symlink-resolved) target is: an innocently named link to ``.env`` is a secret, and so is a
secret-named link whatever its target. :class:`LinkedSecretGate` (on the open descriptor)
adds the inode side: a multi-linked regular file sharing its inode with a secret-named file
of the project is a secret (see :mod:`pathgate.runtime._links`).
Everything below a directory named like a secret (``.env/``, ``.env.d/``, ``keys.pem/``) is
secret too: the directory itself is opaque, so no tool may reveal what it holds (glob, search
and an explicit read would otherwise show the directory exists and list its files).
The verdict is a bare, opaque ``[BLOCKED]``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence

from pathgate._policy import ENV_PREFIXES, ENV_TEMPLATES, is_env_name
from pathgate.runtime.fs import PATH_MAX
from pathgate.runtime.gates._base import Fact, GateContext, PathFacts
from pathgate.runtime.gates._secret_program import program
from pathgate.verdicts import Gate, Status, Verdict

__all__ = [
    "ENV_TEMPLATES",
    "LinkedSecretGate",
    "SecretMatcher",
    "SecretsGate",
    "backup_of",
    "is_env_name",
    "name_variants",
    "normalize_name",
    "written_components",
]


#: Directories whose secret decision a matcher keeps (cleared when full; dict operations are
#: atomic, so concurrent sessions share it), and the longest directory path it keeps.
DIR_CACHE = 16384
MAX_CACHED_DIR = 1024
#: Paths whose :meth:`SecretMatcher.is_secret` answer a matcher keeps (the same way: a pure
#: function of the path and the matcher's fixed patterns; agents read the same files again).
PATH_CACHE = 16384
MAX_CACHED_PATH = 512


#: Vim's swap files (``.swp``, then ``.swo``, ``.swn`` … down to ``.swa``).
_SWAP = tuple(f".sw{c}" for c in "abcdefghijklmnop")
#: Copies kept by hand or by tools (``server.key.bak``, ``credentials.json.orig``).
_COPY = (".bak", ".orig", ".old", ".save", ".backup")
#: How an editor's backup, swap or copy file name ends (``.env~``, ``server.key.~1~``,
#: ``#.env#``, ``..env.swp``, ``id_rsa.bak``, JetBrains' safe-write ``.env___jb_old___``).
_BACKUP_ENDS = ("~", "#", *_SWAP, *_COPY, "___jb_old___", "___jb_tmp___")
_NUMBERED = re.compile(r"(.+)\.~[0-9]+")
#: Backup layers peeled from a name (``#.env.bak#~`` is three); a name with more is judged a
#: secret (red team 20 L14: 1,500 ``#`` pairs recursed past Python's limit, every tool failed).
BACKUP_LAYERS = 32


def backup_of(norm: str) -> str | None:
    """The name an editor's backup, autosave, swap or copy file ``norm`` (normalised) keeps
    a copy of: ``.env~`` (Emacs, nano, many others) and ``server.key.~1~`` (Emacs' numbered
    backups) → the name, ``#.env#`` (Emacs autosave) → ``.env``, ``..env.swp`` … ``.swa``
    (Vim's swap of ``.env``) → ``.env``, ``id_rsa.bak`` / ``.orig`` / ``.old`` / ``.save`` /
    ``.backup`` → ``id_rsa``, ``.env___jb_old___`` (JetBrains' safe write) → ``.env``;
    ``None`` for other names. A copy of a secret is a secret, whatever the secret list says."""
    if norm.endswith("~"):
        base = norm.rstrip("~")
        numbered = _NUMBERED.fullmatch(base)
        return (numbered.group(1) if numbered else base).rstrip(" .") or None
    if len(norm) > 2 and norm[0] == "#" and norm[-1] == "#":
        return norm[1:-1].rstrip(" .") or None
    if norm.endswith(_SWAP) and len(norm) > 5 and norm[0] == ".":
        return norm[1:-4].rstrip(" .") or None
    if norm.endswith(_COPY):
        return norm.rpartition(".")[0].rstrip(" .") or None
    if norm.endswith(_BACKUP_ENDS[-2:]):
        return norm[:-12].rstrip(" .") or None
    return None


def normalize_name(name: str) -> str:
    """A basename as NTFS would resolve it: cut ``:stream``, trailing spaces/dots; casefold."""
    name = name.split(":", 1)[0].rstrip(" .")
    return name.casefold()


def name_variants(name: str) -> tuple[str, ...]:
    """The spellings a basename is judged by: the whole name (``:`` is ordinary on POSIX)
    and, when it holds a ``:``, the NTFS reading (cut at the first ``:``)."""
    whole = name.rstrip(" .").casefold()
    if ":" not in name:
        return (whole,)
    return (whole, normalize_name(name))


def written_components(request: str) -> list[str]:
    """The names a spelling passes through as written (``..`` and ``.`` left out, nothing
    resolved): ``.env.d/prod/../../a`` → ``[".env.d", "prod", "a"]``."""
    return [c for c in request.split("/") if c not in ("", ".", "..")]


class SecretMatcher:
    """Decides whether a path names a secret. Built once per policy; no I/O."""

    def __init__(self, patterns: Iterable[str]) -> None:
        patterns = tuple(patterns)
        prog = program(patterns)
        self._base = prog.base
        #: many patterns (:data:`MANY_PATTERNS`): names are judged by pattern class
        #: (:meth:`_quick_base`) rather than by the alternation of them all
        self._big = prog.big
        self._full = prog.full
        # the same path patterns, matching a directory or any of its ancestors
        self._full_dir = prog.full_dir
        self._dirs: dict[str, tuple[bool, str]] = {}
        self._paths: dict[str, bool] = {}
        self._quick = prog.quick
        #: The name pre-test: ``maybe(name.casefold())`` is ``None`` only for a basename
        #: that is no secret in a directory that is none (:func:`_needles`); ``None``
        #: when some pattern holds no literal text to look for (then every name is tested).
        #: ``needles``, the texts it looks for: no needle in a casefolded relpath, no secret
        #: (every component a path is judged by is such a name: its own, its directories').
        self.needles = prog.needles
        self.maybe: Callable[[str], object] | None = prog.maybe

    def is_secret_name(self, basename: str) -> bool:
        """Is this basename (any case, NTFS tricks included, ``:`` kept or cut) a secret?"""
        return any(self._is_secret_norm(n) for n in name_variants(basename))

    def is_secret_written(self, request: str, root: str) -> bool:
        """Does the spelling, as written, pass through a secret-named component? An absolute
        spelling inside ``root`` is judged below the root (the root's own name is not the
        agent's to judge); one outside by every component."""
        body = request
        if request.startswith("/") and (root == "/" or request == root or request.startswith(root + "/")):
            body = request[len(root):]
        return any(self.is_secret_name(c) for c in written_components(body))

    def _is_secret_norm(self, norm: str) -> bool:
        """Is ``norm`` named like a secret, or a backup of one (layer by layer; past
        :data:`BACKUP_LAYERS` layers a secret: fail closed, no recursion on a hostile name)?"""
        name: str | None = norm
        for _ in range(BACKUP_LAYERS + 1):
            if name is None:
                return False
            if self._big:
                if self._quick_base(name):
                    return True
            elif is_env_name(name) or self._base.match(name) is not None:
                return True
            name = backup_of(name)
        return name is not None

    def _quick_base(self, norm: str) -> bool:
        """Is the normalised basename ``norm`` itself named like a secret (``.env`` rules,
        the basename patterns as strings — literals, ``*x`` suffixes, ``x*`` prefixes — and
        the rest as one regex: :class:`_QuickNames`)? Backups not followed."""
        if is_env_name(norm):
            return True
        q = self._quick
        if norm in q.exact or norm.endswith(q.suffixes) or norm.startswith(q.prefixes):
            return True
        if q.contains is not None and q.contains(norm) is not None:
            return True
        return q.rest is not None and q.rest(norm) is not None

    def _quick_name(self, norm: str) -> bool:
        """:meth:`_is_secret_norm` with the basename patterns tested as strings
        (:meth:`_quick_base`), a backup's original too."""
        name: str | None = norm
        for _ in range(BACKUP_LAYERS + 1):
            if name is None:
                return False
            if self._quick_base(name):
                return True
            name = backup_of(name) if name.endswith(_BACKUP_ENDS) else None
        return name is not None

    def _dir_info(self, head: str) -> tuple[bool, str]:
        """``(secret, normalised)`` for a directory path: secret when one of its components
        is named like a secret, or it or an ancestor matches a path pattern. Cached per
        directory (short paths only: a hostile path may be huge)."""
        hit = self._dirs.get(head)
        if hit is not None:
            return hit
        if len(head) > PATH_MAX:
            # No tool serves a path this long (resolution and walks stop at PATH_MAX), so
            # its components need no scan; the basename and path patterns still apply.
            return False, head.casefold()
        parent, sep, last = head.rpartition("/")
        known = self._dirs.get(parent) if sep and ":" not in head else None
        if known is None and sep and ":" not in head and len(head) <= MAX_CACHED_DIR:
            known = self._ancestors(parent)
        if known is not None:
            # from the cached parent (a walk meets parents first): the same answer, one
            # component's work instead of the whole path's (a parent's path-pattern match
            # ends at a "/" or its end, so it still matches below it)
            # (and a new path-pattern match ends at this component: when the patterns' last
            # components are literal, only a component equal to one can end it)
            own = normalize_name(last)
            norm = f"{known[1]}/{own}"
            lasts = self._quick.last
            maybe = self.maybe
            info = (known[0] or ((maybe is None or maybe(last.casefold()) is not None) and (
                self.is_secret_name(last)
                or ((lasts is None or own in lasts) and self._full_dir.match(norm) is not None))), norm)
            if len(head) <= MAX_CACHED_DIR:
                if len(self._dirs) >= DIR_CACHE:
                    self._dirs.clear()
                self._dirs[head] = info
            return info
        comps = head.split("/")
        secret = any(self.is_secret_name(c) for c in set(comps))
        norm = "/".join(normalize_name(c) for c in comps)
        if not secret and ":" in head:
            whole = "/".join(c.rstrip(" .").casefold() for c in comps)
            secret = self._full_dir.match(whole) is not None
        info = (secret or self._full_dir.match(norm) is not None, norm)
        if len(head) <= MAX_CACHED_DIR:
            if len(self._dirs) >= DIR_CACHE:
                self._dirs.clear()
            self._dirs[head] = info
        return info

    def _ancestors(self, parent: str) -> tuple[bool, str] | None:
        """``_dir_info(parent)`` made from the nearest cached ancestor down, one component
        each (a directory's answer from its cached parent's, as :meth:`_dir_info` makes
        it), instead of every component of the whole path: a search asks about a
        directory whose ancestors it never asked about (their entries' names cleared the
        pre-test). Iterative: a path may hold hundreds of components. ``None`` when the
        cache was cleared meanwhile (the caller then takes the whole path)."""
        dirs = self._dirs
        todo = [parent]
        cur = parent
        while True:
            cur, sep, _ = cur.rpartition("/")
            if not sep or cur in dirs:
                break
            todo.append(cur)
        for anc in reversed(todo):
            self._dir_info(anc)
        return dirs.get(parent)

    def is_secret(self, path: str) -> bool:
        """Is this path (project-relative or absolute, ``/``-separated, without ``..``) a
        secret, or below a directory named like one, or an editor's backup of one?"""
        known = self._paths.get(path)
        if known is not None:
            return known
        secret = self._is_secret_path(path)
        if not secret:
            head, _, basename = path.strip("/").rpartition("/")
            original = backup_of(basename.rstrip(" .").casefold())
            secret = original is not None and self.is_secret(f"{head}/{original}" if head else original)
        if len(path) <= MAX_CACHED_PATH:
            paths = self._paths
            if len(paths) >= PATH_CACHE:
                paths.clear()
            paths[path] = secret
        return secret

    def _is_secret_path(self, path: str) -> bool:
        path = path.strip("/")
        head, _, basename = path.rpartition("/")
        if ":" not in path:  # the common case, one spelling (the same tests as below)
            norm = basename.rstrip(" .").casefold()
            if self._quick_name(norm):
                return True
            # a path pattern whose last component is literal can only end its match at a
            # name equal to it (``_QuickNames.last``): others skip the path regex
            lasts = self._quick.last
            if lasts is not None and norm not in lasts:
                return bool(head) and self._dir_info(head)[0]
            if not head:
                return self._full.match(norm) is not None
            secret, head_norm = self._dir_info(head)
            return secret or self._full.match(f"{head_norm}/{norm}") is not None
        norms = name_variants(basename)
        if any(self._is_secret_norm(n) for n in norms):
            return True
        if not head:
            return any(self._full.match(n) is not None for n in norms)
        secret, head_norm = self._dir_info(head)
        if secret or any(self._full.match(f"{head_norm}/{n}") is not None for n in norms):
            return True
        if ":" in path:  # path patterns on the whole spelling too (``:`` ordinary on POSIX)
            whole = "/".join(c.rstrip(" .").casefold() for c in path.split("/"))
            return self._full.match(whole) is not None
        return False

    def dir_is_secret(self, head: str) -> bool:
        """Is every path below directory ``head`` a secret (a component named like one, or
        it or an ancestor matching a path pattern)? For any other directory,
        ``is_secret(head + "/" + name)`` can only hold for a ``name`` that passes
        :attr:`maybe`."""
        head = head.strip("/")
        return bool(head) and self._dir_info(head)[0]

    def in_dir(self, head: str) -> Callable[[str], bool]:
        """``is_secret(head + "/" + name)`` as a function of a basename ``name``, with the
        directory's part decided once (a walk asks about a whole directory's entries)."""
        head = head.strip("/")
        if not head or ":" in head:
            return lambda name: self.is_secret(f"{head}/{name}")
        secret, head_norm = self._dir_info(head)
        if secret:
            return _always
        prefix = head_norm + "/"
        full = self._full.match
        q = self._quick
        exact, suffixes, prefixes, rest, last, contains = q.exact, q.suffixes, q.prefixes, q.rest, q.last, q.contains
        maybe = self.maybe or _always

        def check(name: str) -> bool:
            if maybe(name.casefold()) is None:
                return False
            if ":" in name:
                return self.is_secret(f"{head}/{name}")
            norm = name.rstrip(" .").casefold()
            if norm == ".env" or (norm.startswith(ENV_PREFIXES) and norm not in ENV_TEMPLATES):
                return True
            if norm in exact or norm.endswith(suffixes) or norm.startswith(prefixes):
                return True
            if contains is not None and contains(norm) is not None:
                return True
            if rest is not None and rest(norm) is not None:
                return True
            if norm.endswith(_BACKUP_ENDS):
                return self.is_secret(f"{head}/{name}")
            return (last is None or norm in last) and full(prefix + norm) is not None

        return check

    def in_plain_dir(self, head: str, name: str) -> bool:
        """``is_secret(head + "/" + name)`` for a directory ``head`` that is no secret
        (``dir_is_secret(head)`` false, known to the caller): :meth:`in_dir`'s test of one
        name, the directory's normalised path made only for a name that could end a path
        pattern (most names are decided by themselves)."""
        head = head.strip("/")
        if not head or ":" in head or ":" in name:
            return self.is_secret(f"{head}/{name}" if head else name)
        maybe = self.maybe
        if maybe is not None and maybe(name.casefold()) is None:
            return False
        norm = name.rstrip(" .").casefold()
        if self._quick_base(norm):
            return True
        if norm.endswith(_BACKUP_ENDS):
            return self.is_secret(f"{head}/{name}")
        q = self._quick
        if q.last is not None and norm not in q.last:
            return False
        return self._full.match(f"{self._dir_info(head)[1]}/{norm}") is not None

    def is_secret_facts(self, facts: PathFacts, root: str | None = None) -> bool:
        """Secret by the requested spelling as written (every component, ``..`` not
        resolved: ``src/.env/../a.py`` passes through ``src/.env``), its normalisation or the
        real target (cached on ``facts`` once the real path is known). Without ``root`` an
        absolute spelling is judged by its basename as written."""
        if facts.secret is not None:
            return facts.secret
        resolved = facts.resolved
        request = facts.request
        if request == facts.name and len(request) <= MAX_CACHED_DIR and (
                resolved is None or resolved.relpath == request):
            # a plain relative spelling (its own normalisation: no ``.``, ``..``, ``//``,
            # leading ``/``) that leads to itself: its written components, its name and its
            # real path are one path, judged once (``is_secret`` covers every component)
            secret = facts.plain_secret
            if secret is None:
                secret = facts.plain_secret = self.is_secret(request) if request else False
            if resolved is not None:
                facts.secret = secret
            return secret
        names = {facts.name or ""}
        if resolved is not None:
            names.add(resolved.relpath if resolved.relpath is not None else resolved.real or "")
        names.discard("")
        if root is None and request.startswith("/"):
            written = self.is_secret_name(request.rstrip("/").rsplit("/", 1)[-1])
        else:
            written = self.is_secret_written(request, root or "")
        secret = written or any(self.is_secret(n) for n in names)
        if resolved is not None:
            facts.secret = secret
        return secret


def _always(name: str) -> bool:
    return True


_SECRET = Verdict(status=Status.BLOCKED, gate=Gate.SECRETS, opaque=True)


class SecretsGate:
    """Opaque ``[BLOCKED]`` for secrets (left out of the chain when ``enforce_secrets`` is
    off; the pipeline still makes any later verdict on a secret opaque)."""

    name = Gate.SECRETS.value
    needs = frozenset({Fact.NAME})

    def __init__(self, matcher: SecretMatcher) -> None:
        self.matcher = matcher

    def check_written(self, facts: PathFacts, ctx: GateContext) -> Verdict | None:
        """Before any I/O (ahead of the path gate): a spelling that passes through a
        secret-named component, as written, is opaque whatever exists or lies behind it."""
        if self.matcher.is_secret_facts(facts, ctx.root):
            return _SECRET
        return None

    def check(self, facts: PathFacts, ctx: GateContext) -> Verdict | None:
        if self.matcher.is_secret_facts(facts, ctx.root):
            return _SECRET
        return None

    def written_all(self, facts: Sequence[PathFacts], ctx: GateContext, pending: list[int],
                    verdicts: list[Verdict | None]) -> bool:
        """:meth:`check_written` over the pending paths (``verdicts`` filled in; ``True``
        when one blocked): the pipeline's as-written pass in one loop. A plain relative
        spelling not yet resolved is :meth:`SecretMatcher.is_secret_facts`' own first case
        written out (its remembered answer, else the path's cached one, else ``is_secret``);
        any other spelling is that method's."""
        matcher = self.matcher
        is_secret, is_secret_facts = matcher.is_secret, matcher.is_secret_facts
        known = matcher._paths.get
        root = ctx.root
        blocked = False
        if type(matcher) is not SecretMatcher:  # (a subclass: its own ``is_secret_facts``)
            for i in pending:
                if is_secret_facts(facts[i], root):
                    verdicts[i] = _SECRET
                    blocked = True
            return blocked
        for i in pending:
            f = facts[i]
            request = f.request
            if request is f.name and f.secret is None and f.resolved is None and len(request) <= MAX_CACHED_DIR:
                secret = f.plain_secret
                if secret is None:
                    secret = known(request) if request else False
                    if secret is None:
                        secret = is_secret(request)
                    f.plain_secret = secret
                if not secret:
                    continue
            elif not is_secret_facts(f, root):
                continue
            verdicts[i] = _SECRET
            blocked = True
        return blocked


from pathgate.runtime.gates._linked import LinkedSecretGate  # noqa: E402  (its own module; kept importable here)

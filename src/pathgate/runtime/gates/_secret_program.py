"""What a :class:`~pathgate.runtime.gates.secrets.SecretMatcher` compiles from its patterns:
built once per distinct pattern list (:func:`program`) and shared; past
:data:`MANY_PATTERNS` names are judged by pattern class (red team 22 H2)."""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Callable, Iterable, Sequence

__all__ = ["MANY_PATTERNS", "Program", "program"]

_NEVER = re.compile(r"(?!)")


class Program:
    """What a :class:`SecretMatcher` compiles from its patterns (immutable, shared by the
    matchers of the same patterns: a runtime's read and write pipelines, the runtimes of
    one host)."""

    __slots__ = ("base", "big", "full", "full_dir", "maybe", "needles", "quick")

    def __init__(self, patterns: tuple[str, ...]) -> None:
        self.big = len(patterns) > MANY_PATTERNS
        base: list[str] = []
        full: list[str] = []
        full_dir: list[str] = []
        for pattern in patterns:
            p = pattern.casefold().strip("/")
            if not p:
                continue
            if "/" in p:
                full.append(r"(?:.*/)?" + fnmatch.translate(p))
                full_dir.append(r"(?:.*/)?" + fnmatch.translate(p).removesuffix(r"\Z") + r"(?=/|\Z)")
            elif not self.big:
                base.append(fnmatch.translate(p))
        # (a big list never uses the alternation of all basename patterns: not made)
        self.base = re.compile("|".join(base)) if base and not self.big else _NEVER
        self.full = re.compile("|".join(full)) if full else _NEVER
        self.full_dir = re.compile("|".join(full_dir)) if full_dir else _NEVER
        self.quick = _QuickNames(patterns, self.big)
        self.needles = _needles(patterns)
        self.maybe: Callable[[str], object] | None = None
        if self.needles is not None:
            scan = _literal_search(self.needles) if self.big else None
            self.maybe = scan if scan is not None else re.compile("|".join(re.escape(n) for n in self.needles)).search


#: Patterns past which a matcher judges a name by pattern class (literal names in a set,
#: ``*x`` / ``x*`` as suffix and prefix tuples, ``*x*`` and the name pre-test's needles as
#: one RE2 search for literal text, the rest one regex) instead of by the alternation of
#: every pattern, which costs a name time in proportion to the patterns (a project may add
#: 1,024: ~0.7 ms a name; red team 22 H2). The built-in list (23) and real ones stay below it.
MANY_PATTERNS = 64


def _literal_search(texts: Sequence[str]) -> Callable[[str], object] | None:
    """``search(name)``: ``True`` when one of ``texts`` (non-empty) occurs in ``name``, else
    ``None``; one RE2 program over the UTF-8 bytes (``surrogatepass``: every string has
    one encoding, and a text occurs in a name exactly when its bytes occur in the name's,
    UTF-8 being self-synchronising), every byte written ``\\xHH``. ``None`` when RE2 cannot
    take them (the caller keeps Python's regex)."""
    import re2  # type: ignore[import-untyped]

    options = re2.Options()
    options.encoding = re2.Options.Encoding.LATIN1
    options.never_capture = True
    options.log_errors = False
    options.max_mem = 64 << 20
    body = "|".join("".join(f"\\x{b:02x}" for b in t.encode("utf-8", "surrogatepass")) for t in texts if t)
    if not body:
        return None
    program = re2._re2.RE2(body.encode("ascii"), options)
    if not program.ok():
        return None
    match = program.Match
    anchor = re2._Anchor.UNANCHORED

    def search(name: str) -> object:
        data = name.encode("utf-8", "surrogatepass")
        return True if match(anchor, data, 0, len(data))[0][0] >= 0 else None

    return search


#: Programs kept, by their patterns (cleared when full; dict operations are atomic, and a
#: program built twice by two threads is the same program).
_PROGRAMS: dict[tuple[str, ...], Program] = {}
_PROGRAMS_CAP = 16


def program(patterns: tuple[str, ...]) -> Program:
    """The compiled form of ``patterns`` (built once per distinct tuple: a runtime's read
    and write pipelines used to compile the same patterns each; red team 22 H2)."""
    prog = _PROGRAMS.get(patterns)
    if prog is None:
        prog = Program(patterns)
        if len(_PROGRAMS) >= _PROGRAMS_CAP:
            _PROGRAMS.clear()
        _PROGRAMS[patterns] = prog
    return prog


class _QuickNames:
    """The basename patterns split for plain string tests (``in_dir``): literals, ``*x``
    suffixes, ``x*`` prefixes, the rest one regex; and the literal last components of the
    path patterns (a name can only complete a path pattern's match by equalling its last
    component when that is literal: ``None`` when one is not)."""

    __slots__ = ("contains", "exact", "last", "prefixes", "rest", "suffixes")

    def __init__(self, patterns: Iterable[str], big: bool = False) -> None:
        #: ``*x*`` patterns (literal ``x``) of a big list, one search (:func:`_literal_search`)
        self.contains: Callable[[str], object] | None = None
        inside: list[str] = []
        exact: set[str] = set()
        suffixes: list[str] = []
        prefixes: list[str] = []
        rest: list[str] = []
        last: set[str] | None = set()
        for pattern in patterns:
            p = pattern.casefold().strip("/")
            if not p:
                continue
            if "/" in p:
                tail = p.rpartition("/")[2]
                # literal only when no bracket can hide a "/" (fnmatch's ``a[/]b`` matches
                # ``a/b``: its text after the last "/" is not the path's last component)
                if last is not None and "[" not in p and not _META.search(tail):
                    last.add(tail)
                else:
                    last = None
                continue
            core = p[1:] if p.startswith("*") else p[:-1] if p.endswith("*") else p
            if big and len(p) > 2 and p[0] == p[-1] == "*" and not _META.search(p[1:-1]):
                inside.append(p[1:-1])  # ``*x*``: ``x`` occurs in the name
            elif _META.search(core):
                rest.append(fnmatch.translate(p))
            elif p.startswith("*"):
                suffixes.append(core)
            elif p.endswith("*"):
                prefixes.append(core)
            else:
                exact.add(p)
        self.exact = frozenset(exact)
        self.suffixes = tuple(suffixes)
        self.prefixes = tuple(prefixes)
        if inside:
            self.contains = _literal_search(inside)
            if self.contains is None:  # (RE2 refused them: Python's regex, as before)
                rest += [fnmatch.translate(f"*{x}*") for x in inside]
        self.rest = re.compile("|".join(rest)).match if rest else None
        self.last = None if last is None else frozenset(last)


_META = re.compile(r"[*?\[]")


def _literal_runs(pattern: str) -> list[str]:
    """The literal runs of an :mod:`fnmatch` pattern, split at ``*``, ``?`` and bracket
    expressions (delimited as :func:`fnmatch.translate` delimits them: ``[!]x]`` is one, an
    unclosed ``[`` is literal); the last run is the pattern's literal tail (``""`` when it
    ends with a wildcard)."""
    runs: list[str] = []
    cur: list[str] = []
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        i += 1
        if c == "[":
            j = i
            if j < n and pattern[j] == "!":
                j += 1
            if j < n and pattern[j] == "]":
                j += 1
            while j < n and pattern[j] != "]":
                j += 1
            if j < n:
                runs.append("".join(cur))
                cur = []
                i = j + 1
                continue
        elif c in "*?":
            runs.append("".join(cur))
            cur = []
            continue
        cur.append(c)
    runs.append("".join(cur))
    return runs


def _needle(pattern: str) -> str | None:
    """Text every name a secret pattern (casefolded, stripped of ``/``) can make secret
    holds (``None``: none to rely on). A basename pattern: its longest literal run. A path
    pattern: its literal tail after the last ``/`` (the part of a match that lies in the
    basename: ``*``, ``?`` and brackets also match ``/``)."""
    runs = _literal_runs(pattern)
    if "/" in pattern:
        return runs[-1].rpartition("/")[2] or None
    return max(runs, key=len) or None


def _needles(patterns: Iterable[str]) -> tuple[str, ...] | None:
    """The name pre-test's needles (:attr:`SecretMatcher.needles`; :attr:`SecretMatcher.maybe`
    is one regex search for them): the needles of
    the ``.env`` rule and of every pattern (:func:`_needle`), on the casefolded basename.
    Exact because every spelling a name is judged by is a substring of its casefolded
    whole — the NTFS cut and the trailing `` .`` strip (a prefix), and the original a
    backup name keeps a copy of (``#.env#``, ``..env.swp``, ``server.key.~1~``,
    ``id_rsa.bak``: a substring, down to the recursion's end) — and a pattern's needle
    lies in every name it makes secret. ``None`` when some pattern has no needle."""
    needles = {".env"}
    for pattern in patterns:
        p = pattern.casefold().strip("/")
        if not p:
            continue
        needle = _needle(p)
        if needle is None:
            return None
        needles.add(needle)
    # the longest first (a needle inside another one would also do; order only affects speed)
    return tuple(sorted(needles, key=lambda n: (-len(n), n)))

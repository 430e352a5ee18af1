"""git's config file syntax, ported from ``config.c`` (``git_parse_source``).

The parser is as strict as git's: a line git rejects raises :class:`GitFatal` with git's
message (``bad config line N in file F``), so a broken configuration is never read
"mostly". Values get git's unquoting (``"``, ``\\t``, ``\\n``, ``\\b``, ``\\\\``, ``\\"``,
line continuations; an unknown escape is an error), spaces collapse, ``#``/``;`` start a
comment outside quotes. Keys are ``section.key`` / ``section.<subsection>.key``, the
section and the key lower-cased, the subsection kept as written.
"""

from __future__ import annotations

__all__ = ["ConfigEntry", "GitFatal", "parse_config", "parse_env_parameters"]

from collections.abc import Mapping


class GitFatal(Exception):
    """git would exit 128 here. ``str(self)`` is git's stderr (one or more lines, without
    the final newline); ``source`` names the file at fault as git shows it (``None`` for
    the environment or the command line)."""

    def __init__(self, message: str, source: str | None = None) -> None:
        super().__init__(message)
        self.source = source


class ConfigEntry:
    """One ``key = value`` read from ``origin`` (``None``: ``-c``/the environment) at
    1-based ``line``; ``value`` is ``None`` for a bare key (git's implicit true)."""

    __slots__ = ("key", "line", "origin", "path", "value")

    def __init__(self, key: str, value: str | None, origin: str | None, line: int,
                 path: str | None = None) -> None:
        self.key = key
        self.value = value
        self.origin = origin
        self.line = line
        self.path = path

    def __repr__(self) -> str:
        return f"ConfigEntry({self.key!r}, {self.value!r}, {self.origin!r}, {self.line})"


_SPACE = " \t\n\r"
_BOM = "\ufeff"


def _iskey(c: str) -> bool:
    return c.isascii() and (c.isalnum() or c == "-")


class _Reader:
    """``get_next_char``: CRLF reads as LF, end of input reads as LF once with ``eof``."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0
        self.eof = False
        self.linenr = 1

    def next(self) -> str:
        t = self.text
        if self.pos >= len(t):
            self.eof = True
            self.linenr += 1
            return "\n"
        c = t[self.pos]
        self.pos += 1
        if c == "\r" and self.pos < len(t) and t[self.pos] == "\n":
            c = "\n"
            self.pos += 1
        if c == "\n":
            self.linenr += 1
        return c


def _parse_value(r: _Reader) -> str | None:
    quote = comment = False
    space = 0
    out: list[str] = []
    while True:
        c = r.next()
        if c == "\n":
            if quote:
                r.linenr -= 1
                return None
            return "".join(out)
        if comment:
            continue
        if c in _SPACE and not quote:
            if out:
                space += 1
            continue
        if not quote and c in ";#":
            comment = True
            continue
        if space:
            out.append(" " * space)
            space = 0
        if c == "\\":
            c = r.next()
            if c == "\n":
                continue
            mapped = {"t": "\t", "b": "\b", "n": "\n", "\\": "\\", '"': '"'}.get(c)
            if mapped is None:
                return None
            out.append(mapped)
            continue
        if c == '"':
            quote = not quote
            continue
        out.append(c)


def _base_var(r: _Reader) -> str | None:
    name: list[str] = []
    while True:
        c = r.next()
        if r.eof:
            return None
        if c == "]":
            return "".join(name)
        if c in _SPACE:
            return _extended_base_var(r, "".join(name), c)
        if not _iskey(c) and c != ".":
            return None
        name.append(c.lower())


def _extended_base_var(r: _Reader, base: str, c: str) -> str | None:
    while True:
        if c == "\n":
            r.linenr -= 1
            return None
        c = r.next()
        if c not in _SPACE:
            break
    if c != '"':
        return None
    sub: list[str] = []
    while True:
        c = r.next()
        if c == "\n":
            r.linenr -= 1
            return None
        if c == '"':
            break
        if c == "\\":
            c = r.next()
            if c == "\n":
                r.linenr -= 1
                return None
        sub.append(c)
    if r.next() != "]":
        return None
    return base + "." + "".join(sub)


def parse_config(text: str, origin: str, path: str | None = None,
                 errors: list[str] | None = None) -> list[ConfigEntry]:
    """Every entry of one config file, in order; raises :class:`GitFatal` like git.
    A key before any section is skipped with git's ``error:`` line added to ``errors``."""
    r = _Reader(text[1:] if text.startswith(_BOM) else text)
    entries: list[ConfigEntry] = []
    comment = False
    section: str | None = None
    while True:
        c = r.next()
        if c == "\n":
            if r.eof:
                return entries
            comment = False
            continue
        if comment:
            continue
        if c in _SPACE:
            continue
        if c in "#;":
            comment = True
            continue
        if c == "[":
            section = _base_var(r)
            if not section:
                break
            continue
        if not (c.isascii() and c.isalpha()):
            break
        name = [c.lower()]
        while True:
            c = r.next()
            if r.eof or not _iskey(c):
                break
            name.append(c.lower())
        while c in " \t":
            c = r.next()
        value: str | None = None
        if c != "\n":
            if c != "=":
                break
            value = _parse_value(r)
            if value is None:
                break
        if section is None:
            if errors is not None:
                errors.append(f"error: key does not contain a section: {''.join(name)}")
            continue
        entries.append(ConfigEntry(f"{section}.{''.join(name)}", value, origin, r.linenr - 1,
                                   path))
    raise GitFatal(f"fatal: bad config line {r.linenr} in file {origin}", origin)


def _sq_token(s: str, i: int) -> tuple[str, int] | None:
    """One ``'...'`` token of ``sq_quote`` (``'\\''`` inside), from ``s[i]``."""
    if i >= len(s) or s[i] != "'":
        return None
    out: list[str] = []
    i += 1
    while True:
        j = s.find("'", i)
        if j < 0:
            return None
        out.append(s[i:j])
        i = j + 1
        if s.startswith("\\''", i):
            out.append("'")
            i += 3
            continue
        return "".join(out), i


def _params_error(message: str) -> GitFatal:
    return GitFatal(f"error: {message}\nfatal: unable to parse command-line config")


def parse_env_parameters(env: Mapping[str, str]) -> list[ConfigEntry]:
    """``GIT_CONFIG_PARAMETERS`` then ``GIT_CONFIG_COUNT``/``GIT_CONFIG_KEY_<n>``/
    ``GIT_CONFIG_VALUE_<n>`` (what ``git -c`` and ``git --config-env`` pass down)."""
    entries: list[ConfigEntry] = []
    s = env.get("GIT_CONFIG_PARAMETERS", "")
    i = 0
    while True:
        while i < len(s) and s[i] in " \t\n":
            i += 1
        if i >= len(s):
            break
        tok = _sq_token(s, i)
        if tok is None:
            raise _params_error("bogus format in GIT_CONFIG_PARAMETERS")
        key, i = tok
        value: str | None
        if i < len(s) and s[i] == "=":
            vtok = _sq_token(s, i + 1)
            if vtok is None:
                value, i = "", i + 1
            else:
                value, i = vtok
            entries.append(ConfigEntry(_canon_key(key), value, None, 0))
        else:
            k, eq, v = key.partition("=")
            entries.append(ConfigEntry(_canon_key(k), v if eq else None, None, 0))
    count = env.get("GIT_CONFIG_COUNT")
    if count is None or count == "":
        return entries
    try:
        n = int(count, 10)
        if n < 0 or not count.strip().isdigit():
            raise ValueError
    except ValueError:
        raise _params_error("bogus count in GIT_CONFIG_COUNT") from None
    for idx in range(n):
        ckey = env.get(f"GIT_CONFIG_KEY_{idx}")
        if not ckey:
            raise _params_error(f"missing config key GIT_CONFIG_KEY_{idx}")
        val = env.get(f"GIT_CONFIG_VALUE_{idx}")
        if val is None:
            raise _params_error(f"missing config value GIT_CONFIG_VALUE_{idx}")
        entries.append(ConfigEntry(_canon_key(ckey), val, None, 0))
    return entries


def _canon_key(key: str) -> str:
    """``section.key`` lower-cased, the subsection (between the first and last dot) kept."""
    first, last = key.find("."), key.rfind(".")
    if first < 0:
        return key.lower()
    if first == last:
        return key.lower()
    return key[:first].lower() + key[first:last] + key[last:].lower()

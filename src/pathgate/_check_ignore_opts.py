"""``pathgate check-ignore``'s options, parsed as git's ``parse-options.c`` parses them.

Bundled short flags, abbreviated and negated long options, permuted arguments, ``--`` and
``--end-of-options``; git's messages and exit codes (129 for an unknown option, 130 for an
ambiguous one: :class:`_Fatal`). Used by :mod:`pathgate._check_ignore`.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__: list[str] = []


class _Fatal(Exception):
    """A message git would die with, and its exit code (-1: show the usage, exit 129)."""

    def __init__(self, message: str, code: int = 128) -> None:
        super().__init__(message)
        self.code = code


# ---------------------------------------------------------------------------------------
# option parsing (parse-options.c: bundled short flags, abbreviated and negated long
# options, permuted arguments, ``--`` and ``--end-of-options``)
# ---------------------------------------------------------------------------------------

# (long name, short letter, kind): kind "bool" | "count" | "string" | "help"
# pathgate's own options come first, so an ambiguous abbreviation names git's like git.
_OPTIONS: tuple[tuple[str | None, str | None, str], ...] = (
    ("help", "h", "help"), ("root", None, "string"), ("git-only", None, "bool"),
    ("excludes-file", None, "string"), ("ignore-case", None, "bool"),
    ("quiet", "q", "count"), ("verbose", "v", "bool"), ("stdin", None, "bool"),
    (None, "z", "bool"), ("non-matching", "n", "bool"), ("no-index", None, "bool"),
)


def _key(opt: tuple[str | None, str | None, str]) -> str:
    return opt[1] or str(opt[0])


def _lookup_long(arg: str) -> tuple[tuple[str | None, str | None, str], bool, str | None]:
    """git's ``parse_long_opt`` (``arg`` without the ``--``): ``(option, negated, value
    after '=')``; unique prefixes and ``--no-`` negations as git accepts them."""
    arg_name, eq, arg_value = arg.partition("=")
    Opt = tuple[str | None, str | None, str]
    abbrev: tuple[Opt, bool] | None = None
    ambiguous: tuple[Opt, bool] | None = None
    for opt in _OPTIONS:
        ln = opt[0]
        if ln is None:
            continue
        unset = opt_unset = False
        while True:  # git's "again:"
            rest = arg[len(ln):] if arg.startswith(ln) else None
            is_abbrev = False
            if rest is None:
                if ln.startswith(arg_name):
                    is_abbrev = True
                elif "no-".startswith(arg):
                    unset = is_abbrev = True
                elif not arg.startswith("no-"):
                    if ln.startswith("no-"):
                        ln, opt_unset = ln[3:], True
                        continue
                    break
                else:
                    unset = True
                    if arg[3:].startswith(ln):
                        rest = arg[3 + len(ln):]
                    elif ln.startswith(arg[3:]):
                        is_abbrev = True
                    else:
                        break
            if is_abbrev:
                if abbrev is not None:
                    ambiguous = abbrev
                abbrev = (opt, unset != opt_unset)
                break
            assert rest is not None
            if rest and rest[0] != "=":
                break
            return opt, unset != opt_unset, rest[1:] if rest else None
    if ambiguous is not None and abbrev is not None:
        a, b = ambiguous, abbrev
        raise _Fatal(f"error: ambiguous option: {arg} (could be --{'no-' if a[1] else ''}"
                     f"{a[0][0]} or --{'no-' if b[1] else ''}{b[0][0]})", 130)
    if abbrev is None:
        raise _Fatal(f"error: unknown option `{arg}'", 129)
    return abbrev[0], abbrev[1], arg_value if eq else None


def _set(opts: dict[str, object], opt: tuple[str | None, str | None, str], negated: bool,
         value: str | None, argv: Sequence[str], i: int) -> int:
    key, kind, shown = _key(opt), opt[2], ("no-" if negated else "") + str(opt[0])
    if kind == "help":
        raise _Fatal("", -1)
    if kind == "string":
        if negated:
            if value is not None:
                raise _Fatal(f"error: option `{shown}' takes no value", 129)
            opts.pop(key, None)
            return i
        if value is None:
            if i >= len(argv):
                raise _Fatal(f"error: option `{shown}' requires a value", 129)
            value, i = argv[i], i + 1
        opts[key] = value
        return i
    if value is not None:
        raise _Fatal(f"error: option `{shown}' takes no value", 129)
    if kind == "count":
        prev = opts.get(key, 0)
        opts[key] = 0 if negated else (prev if isinstance(prev, int) else 0) + 1
    else:
        opts[key] = not negated
    return i


def _parse(argv: Sequence[str]) -> tuple[dict[str, object], list[str]]:
    opts: dict[str, object] = {}
    paths: list[str] = []
    shorts = {o[1]: o for o in _OPTIONS if o[1]}
    i = 0
    while i < len(argv):
        a = argv[i]
        i += 1
        if a in ("--", "--end-of-options"):
            paths.extend(argv[i:])
            break
        if not a.startswith("-") or a == "-":
            paths.append(a)
        elif a.startswith("--"):
            opt, negated, value = _lookup_long(a[2:])
            i = _set(opts, opt, negated, value, argv, i)
        else:
            for ch in a[1:]:
                if ch not in shorts:
                    raise _Fatal(f"error: unknown switch `{ch}'", 129)
                i = _set(opts, shorts[ch], False, None, argv, i)
    return opts, paths

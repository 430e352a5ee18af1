"""``code_search``'s regular expressions: RE2 (linear time), ripgrep's dialect family.

Models write the dialect of ripgrep's Rust ``regex`` crate, RE2's family: linear-time
matching, no backreferences, no look-around. The pattern is compiled by RE2 (the
``google-re2`` binding; see benchmarks/RESULTS.md for the measurements behind the choice)
with:

* ``never_nl``: a match never spans lines (character classes such as ``\\s`` or ``[^x]``
  do not match ``\\n``), so a whole buffer can be searched at once and every match lies on
  one line, like ripgrep's line-oriented search;
* ``(?m)``: ``^`` and ``$`` match at line starts and ends;
* a bounded program: the pattern is first compiled with a small budget
  (:data:`PROGRAM_MEM`); a pattern whose program does not fit is refused with a clear error.
  RE2 holds the GIL while it compiles, for a time that grows with the program, so this
  bounds how long a compile can hold up the event loop's thread (~0.1 s). It is then
  compiled again with :data:`MAX_MEM`, which leaves the lazy DFA a larger cache (complex
  patterns search 1.2-1.7× faster than in the small budget);
* the pattern text bounded (:data:`MAX_PATTERN`) and repetition counts bounded
  (:data:`MAX_REPEAT`, checked here: RE2 silently reads an overflowing ``x{99999999999}``
  as literal text).

Every refusal is a :class:`~pathgate.errors.ToolArgumentError` naming the argument
(``regex``) and, for an unsupported construct, the construct ("look-ahead ``(?=`` is not
supported"). Compiling is pure CPU: the caller runs it in a worker thread.
"""

from __future__ import annotations

import re
import time

import re2  # type: ignore[import-untyped]

from pathgate.errors import ToolArgumentError

if not hasattr(re2, "_re2"):  # pragma: no cover - another distribution's module named re2
    raise ImportError("pathgate's code_search needs google-re2 (pip install google-re2); "
                      f"the module `re2` found at {getattr(re2, '__file__', '?')} is another package")

__all__ = ["MAX_MEM", "MAX_PATTERN", "MAX_REPEAT", "PROGRAM_MEM", "Regex", "compile_regex"]

#: Longest pattern accepted (characters).
MAX_PATTERN = 32_768
#: RE2's memory budget that decides which programs are accepted (bytes): the largest
#: program (~87,000 instructions) compiles in ~0.05-0.15 s; at 8 MiB (~350,000) it took
#: 0.3-0.7 s, with the GIL held (benchmarks/RESULTS.md).
PROGRAM_MEM = 2 << 20
#: RE2's memory budget of an accepted pattern (program + DFA cache), bytes: RE2's default.
MAX_MEM = 8 << 20
#: Largest repetition count (``{n}``, ``{n,m}``), as RE2 and ripgrep's default.
MAX_REPEAT = 1000

_ANCHOR = re2._Anchor.UNANCHORED
_REPEAT = re.compile(r"\{(\d+)(?:,(\d*))?\}")

# RE2 error text (prefix) -> what the model is told; first match wins.
_CONSTRUCTS: tuple[tuple[str, str], ...] = (
    ("invalid perl operator: (?=", "look-ahead `(?=...)` is not supported"),
    ("invalid perl operator: (?!", "negative look-ahead `(?!...)` is not supported"),
    ("invalid perl operator: (?<=", "look-behind `(?<=...)` is not supported"),
    ("invalid perl operator: (?<!", "negative look-behind `(?<!...)` is not supported"),
    ("invalid perl operator: (?>", "atomic groups `(?>...)` are not supported"),
    ("invalid perl operator: (?P=", "named backreferences `(?P=name)` are not supported"),
    ("invalid perl operator: (?P>", "recursion `(?P>name)` is not supported"),
    ("invalid perl operator: (?#", "comments `(?#...)` are not supported"),
    ("invalid perl operator: (?x", "the `x` (verbose) flag is not supported"),
    ("invalid perl operator: (?R", "recursion `(?R)` is not supported"),
    ("invalid perl operator: (?(", "conditionals `(?(...)...)` are not supported"),
    ("bad repetition operator: ++", "possessive quantifiers (`++`, `*+`, `?+`) are not supported"),
    ("bad repetition operator: *+", "possessive quantifiers (`++`, `*+`, `?+`) are not supported"),
    ("bad repetition operator: ?+", "possessive quantifiers (`++`, `*+`, `?+`) are not supported"),
    ("invalid escape sequence: \\Z", "`\\Z` is not supported (use `$`)"),
    ("invalid escape sequence: \\K", "`\\K` is not supported"),
    ("invalid escape sequence: \\G", "`\\G` is not supported"),
    ("pattern too large",
     f"the pattern is too large (its compiled program exceeds RE2's {PROGRAM_MEM >> 20} MiB budget)"),
)
_DIALECT = "RE2/ripgrep syntax: no backreferences or look-around"


class Regex:
    """A compiled search pattern: ``search(buf, pos, end)`` is the leftmost match's
    ``(start, end)`` in ``buf[pos:end]`` (offsets into ``buf``), or ``None``.

    RE2 releases the GIL while it matches, so a search in a worker thread never holds up
    the event loop's thread. (A plain slotted class, read-only: a dataclass costs ~3 ms of
    every ``pathgate search`` start, importing :mod:`dataclasses`.)"""

    __slots__ = ("_re", "pattern")

    pattern: str
    _re: object

    def __init__(self, pattern: str, _re: object) -> None:
        object.__setattr__(self, "pattern", pattern)
        object.__setattr__(self, "_re", _re)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"cannot assign to field {name!r}")

    def __repr__(self) -> str:
        return f"Regex(pattern={self.pattern!r}, _re={self._re!r})"

    def search(self, buf: bytes, pos: int, end: int) -> tuple[int, int] | None:
        span: tuple[int, int] = self._re.Match(_ANCHOR, buf, pos, end)[0]  # type: ignore[attr-defined]
        return None if span[0] < 0 else span


def _fail(regex: str, why: str) -> ToolArgumentError:
    shown = regex if len(regex) <= 80 else regex[:77] + "..."
    shown = f"`{shown}`" if shown.isprintable() and "`" not in shown else repr(shown)
    return ToolArgumentError(f"code_search: `regex` {shown}: {why} ({_DIALECT})", field="regex")


#: Unicode property classes (``\\pL``, ``\\PN`` …) a pattern may hold: RE2's parser spends
#: 0.4-4 ms on each before its program budget applies, holding the interpreter lock (32 KB of
#: them stalled every other call for 3-5 s: red team 19 K1).
MAX_UNICODE_CLASSES = 16


def _unicode_classes(regex: str) -> int:
    """How many ``\\p``/``\\P`` escapes ``regex`` holds (each ``\\`` escapes the next character)."""
    count = 0
    i = regex.find("\\")
    while i >= 0:
        if regex[i + 1:i + 2] in ("p", "P"):
            count += 1
        i = regex.find("\\", i + 2)
    return count


def _check_text(regex: str) -> str | None:
    """What RE2 would accept but the dialect refuses: an oversized repetition count (RE2
    takes ``x{99999999999}`` as literal text), a ``\\n`` (a match never spans lines), more
    than :data:`MAX_UNICODE_CLASSES` Unicode property classes."""
    if _unicode_classes(regex) > MAX_UNICODE_CLASSES:
        return (f"more than {MAX_UNICODE_CLASSES} Unicode property classes (`\\p{{..}}`, `\\P{{..}}`); "
                "use fewer, or a character range")
    i, n = 0, len(regex)
    while i < n:
        c = regex[i]
        if c == "\\":
            nxt = regex[i + 1:i + 2]
            if nxt == "n":
                return "`\\n` cannot match: hits are single lines (search for each line's text instead)"
            if nxt.isdigit() and nxt != "0":
                return f"backreferences (`\\{nxt}`) are not supported"
            if nxt == "C":  # RE2's any byte matches \n despite never_nl; ripgrep refuses it
                return "`\\C` (any byte) is not supported (use `.`)"
            i += 2
            continue
        if c == "\n":
            return "a line break cannot match: hits are single lines"
        if c == "[":
            i = _skip_class(regex, i)
            continue
        if c == "(" and regex.startswith(("(?P=", "(?P>"), i):
            return "named backreferences and recursion (`(?P=name)`, `(?P>name)`) are not supported"
        if c == "{":
            m = _REPEAT.match(regex, i)
            if m is not None:
                counts = [int(g) for g in m.groups() if g]
                if max(counts) > MAX_REPEAT:
                    return f"repetition count {m.group()} is over {MAX_REPEAT}"
                i = m.end()
                continue
        i += 1
    return None


_FLAGS = re.compile(r"\(\?([imsU]*)(?:-([imsU]*))?([:)])")


def _line_anchored(regex: str) -> str:
    """``regex`` with its text anchors made line anchors, as in ripgrep's line-by-line
    search: ``\\A`` is ``^`` and ``\\z`` is ``$`` (multi-line), and a flag group's ``-m`` is
    dropped; else they would match at the ends of whatever buffer a search happens to get
    (a batch of files, a piece of a big file). Escapes, ``\\Q...\\E`` and classes are kept."""
    out: list[str] = []
    i, n = 0, len(regex)
    while i < n:
        c = regex[i]
        if c == "\\":
            pair = regex[i:i + 2]
            if pair == "\\Q":
                close = regex.find("\\E", i + 2)
                j = n if close < 0 else close + 2
            else:
                j = i + 2
            out.append({"\\A": "(?m:^)", "\\z": "(?m:$)"}.get(pair, regex[i:j]))
            i = j
        elif c == "[":
            j = _skip_class(regex, i)
            out.append(regex[i:j])
            i = j
        elif (m := _FLAGS.match(regex, i)) is not None and m.group(2) is not None:
            on, off, end = m.group(1), m.group(2).replace("m", ""), m.group(3)
            flags = on + ("-" + off if off else "")
            out.append(f"(?{flags}{end}" if flags else "(?:)" if end == ")" else "(?:")
            i = m.end()
        else:
            out.append(c)
            i += 1
    return "".join(out)


def _skip_class(regex: str, i: int) -> int:
    """The index after the character class starting at ``regex[i] == "["`` (or the end)."""
    n = len(regex)
    j = i + 1
    if j < n and regex[j] == "^":
        j += 1
    if j < n and regex[j] == "]":
        j += 1
    while j < n:
        c = regex[j]
        if c == "\\":
            j += 2
        elif c == "[" and regex[j + 1:j + 2] == ":":
            close = regex.find(":]", j + 2)
            j = j + 1 if close < 0 else close + 2
        elif c == "]":
            return j + 1
        else:
            j += 1
    return n


def compile_regex(regex: object, case_sensitive: bool = True) -> Regex:
    """Compile a model's pattern, or raise :class:`ToolArgumentError` (``field="regex"``)
    saying why. Linear in the pattern's length; bounded memory. Run it in a worker thread."""
    if not isinstance(regex, str) or not regex:
        raise ToolArgumentError("code_search: `regex` must be a non-empty string", field="regex")
    if len(regex) > MAX_PATTERN:
        raise _fail(regex, f"the pattern is {len(regex):,} characters long; the limit is {MAX_PATTERN:,}")
    why = _check_text(regex)
    if why is not None:
        raise _fail(regex, why)
    options = re2.Options()
    options.never_nl = True
    options.never_capture = True  # only the match's bounds are used: the DFA alone finds them
    options.log_errors = False
    options.max_mem = PROGRAM_MEM
    options.case_sensitive = case_sensitive
    anchored = _line_anchored(regex)
    try:
        encoded = ("(?m)" + anchored).encode("utf-8")
    except UnicodeEncodeError:
        raise _fail(regex, "the pattern is not valid Unicode") from None
    compiled = re2._re2.RE2(encoded, options)
    if not compiled.ok():
        raise _fail(regex, _explain(compiled.error(), regex, anchored))
    time.sleep(0)  # let the event loop's thread take the GIL between the two compiles
    options.max_mem = MAX_MEM
    compiled = re2._re2.RE2(encoded, options)
    return Regex(regex, compiled)


def _explain(error: bytes | str, regex: str, compiled: str | None = None) -> str:
    text = error.decode("utf-8", "replace") if isinstance(error, bytes) else str(error)
    text = text.replace("(?m)" + (regex if compiled is None else compiled), regex)
    if len(text) > 120:
        text = text[:117] + "..."
    for prefix, why in _CONSTRUCTS:
        if text.startswith(prefix):
            return why
    if text.startswith("invalid repetition size"):
        return f"{text} (counts go up to {MAX_REPEAT}; nested counts multiply)"
    return f"invalid regular expression: {text}"

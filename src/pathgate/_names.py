"""How a file name that is not plain text is spelled for a model, and read back.

POSIX file names are bytes; Python decodes the bytes that are not UTF-8 to lone surrogates
(``os.fsdecode``: ``b"r\\xe9sum\\xe9"`` → ``"r\\udce9sum\\udce9"``), which no JSON encoder
accepts. Every name pathgate gives a model through a tool call (read_files keys, glob
matches, list entries, search hits, notes) is spelled by :func:`spell_path`:

* a path is shown as it is, unless it contains a byte that is not valid UTF-8, a control
  character (``\\n``, ``\\t``, DEL, ...), or starts with a double quote;
* such a path is shown whole in **git's C-quoting** (what ``git ls-files`` and ``git
  status`` print): between double quotes, with ``\\"``, ``\\\\``, ``\\a \\b \\t \\n \\v \\f \\r``,
  and every other control character or undecodable byte as a three-digit octal escape
  (``\\351``). Valid UTF-8 characters stay as they are (git's ``core.quotePath=false``),
  except C1 controls, line/paragraph separators and invisible format characters (bidi
  overrides), which are octal-escaped too: ``docs/r\\xe9sum\\xe9.txt`` is shown as
  ``"docs/r\\351sum\\351.txt"``.

Every path argument of a tool call is read back by :func:`unspell_path`: an argument that
starts and ends with a double quote is C-unquoted to the original bytes; so is each
``/``-separated component quoted on its own (``docs/"r\\351sum\\351.txt"``: a listed name
joined to its directory); anything malformed is taken literally. The spelling is reversible
(``unspell_path(spell_path(p)) == p``) and JSON-safe. It adds no power: the decoded path is
an ordinary spelling that then goes through every gate (``\\057`` is just ``/``, ``\\000`` is a
NUL the path gate refuses, ``..`` is judged as ``..``), so nothing can be smuggled past a
check by quoting it.
"""

from __future__ import annotations

import unicodedata
from typing import Any, TypeVar, cast

import msgspec

__all__ = ["NAME_FIELDS", "needs_quoting", "spell_names", "spell_path", "unspell_path"]

T = TypeVar("T")

_NAMED = {"\a": "a", "\b": "b", "\t": "t", "\n": "n", "\v": "v", "\f": "f", "\r": "r",
          '"': '"', "\\": "\\"}
_UNNAMED = {v: k for k, v in _NAMED.items()}


#: Unicode categories C-quoted although valid UTF-8: control characters (C1 ``U+0085``
#: included), line and paragraph separators (``U+2028``/``U+2029``: a consumer splitting on
#: Unicode line breaks would see a faked line), and invisible format characters (the bidi
#: overrides ``U+202E`` … that reorder how the rest of a name reads).
_QUOTED_CATEGORIES = frozenset({"Cc", "Cf", "Zl", "Zp"})


def _plain(ch: str) -> bool:
    o = ord(ch)
    if o < 0x80:
        return 0x20 <= o != 0x7F
    return not 0xD800 <= o <= 0xDFFF and unicodedata.category(ch) not in _QUOTED_CATEGORIES


def needs_quoting(path: str) -> bool:
    """Does ``path`` need C-quoting (an undecodable byte, a control character, a leading
    double quote)?"""
    if path.isascii():  # C speed for the common case: printable ASCII is 0x20..0x7E
        return path.startswith('"') or not path.isprintable()
    return path.startswith('"') or not all(_plain(ch) for ch in path)


def spell_path(path: str, *, force: bool = False) -> str:
    """``path`` as a model sees it: unchanged, or C-quoted when :func:`needs_quoting` (or
    ``force``: a renderer quoting a name that would read as its own punctuation)."""
    if not force and not needs_quoting(path):
        return path
    out = ['"']
    for ch in path:
        if ch in _NAMED:
            out.append("\\" + _NAMED[ch])
        elif _plain(ch):
            out.append(ch)
        else:
            for byte in ch.encode("utf-8", "surrogateescape" if 0xDC80 <= ord(ch) <= 0xDCFF
                                  else "surrogatepass"):
                out.append(f"\\{byte:03o}")
    out.append('"')
    return "".join(out)


def unspell_path(text: str) -> str:
    """The path a model's argument names.

    The whole argument, when it is C-quoted (``"docs/r\\351sum\\351.txt"``), is unquoted;
    otherwise each ``/``-separated component that is C-quoted on its own (``docs/"r\\351"/a``,
    as a list_directory entry joined to its directory) is unquoted, unless it would decode
    to a ``/`` or a NUL (then it is taken literally). Anything malformed is taken literally.
    """
    whole = _unquote(text)
    if whole is not None:
        return whole
    if '"' not in text:
        return text
    parts = []
    for part in text.split("/"):
        decoded = _unquote(part)
        parts.append(part if decoded is None or "/" in decoded or "\x00" in decoded else decoded)
    return "/".join(parts)


def _unquote(text: str) -> str | None:
    """C-unquote ``"..."`` to the original name; ``None`` when ``text`` is not well-formed."""
    if len(text) < 2 or not (text.startswith('"') and text.endswith('"')):
        return None
    body = text[1:-1]
    out = bytearray()
    i, n = 0, len(body)
    try:
        while i < n:
            ch = body[i]
            if ch == '"':
                return None  # an unescaped quote inside: not one C-quoted string
            if ch != "\\":
                out += ch.encode("utf-8", "surrogateescape")
                i += 1
                continue
            nxt, octal = body[i + 1 : i + 2], body[i + 1 : i + 4]
            if nxt in _UNNAMED:
                out += _UNNAMED[nxt].encode()
                i += 2
            elif len(octal) == 3 and all(c in "01234567" for c in octal) and int(octal, 8) <= 0xFF:
                out.append(int(octal, 8))
                i += 4
            else:
                return None
    except UnicodeEncodeError:
        return None
    return out.decode("utf-8", "surrogateescape")


# -- results ---------------------------------------------------------------------------------

#: Struct fields that hold a path or a file name: spelled with :func:`spell_path`.
NAME_FIELDS = frozenset({"path", "relpath", "same_as", "name", "matches", "examples", "ancestor", "unreadable",
                         "source", "file"})


def _has_surrogate(text: str) -> bool:
    """A lone surrogate (an undecodable byte's stand-in): exactly what strict UTF-8 cannot
    encode. C speed: file contents and search lines pass through here."""
    if text.isascii():
        return False
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _spell_value(field: str, value: Any) -> Any:
    if isinstance(value, str):
        if field in NAME_FIELDS or _has_surrogate(value):
            # other text (an ignore pattern, a regex) is quoted only when it cannot be encoded
            return spell_path(value)
        return value
    if isinstance(value, msgspec.Struct):
        return spell_names(value)
    if isinstance(value, tuple):
        items = tuple(_spell_value(field, v) for v in value)
        return value if all(a is b for a, b in zip(items, value, strict=True)) else items
    return value


def spell_names(obj: T) -> T:
    """``obj`` (a pathgate result struct, or a list of them) with every path and file name
    spelled by :func:`spell_path`, and any other text that cannot be encoded as UTF-8
    C-quoted too, so the result is JSON-safe. File contents are never touched (they are
    strict UTF-8 already)."""
    if isinstance(obj, list):
        return cast(T, [spell_names(x) for x in obj])
    if not isinstance(obj, msgspec.Struct):
        return obj
    changes: dict[str, Any] = {}
    for field in obj.__struct_fields__:
        value = getattr(obj, field)
        spelled = _spell_value(field, value)
        if spelled is not value:
            changes[field] = spelled
    return msgspec.structs.replace(obj, **changes) if changes else obj

"""``pathgate hook`` under a huge ``.gitignore`` of star-run lines (red team 20 L1).

Lines like ``*[ab]x*q*z*`` (no literal head or tail) are candidates for every path; the hook
decides them without compiling them (``_lazy_direct``). Every payload of the G7 hook test must
get exactly the whole compile's answer, with a few lines compiled only.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pathgate._hooks._run import run_hook
from pathgate.runtime.ignore import _lazy, _rules
from tests._gitinit import git_init
from tests.hooks.test_hook_lazy_ignore import _payloads


def _star_filler(n: int) -> str:
    """Distinct star-run lines whose pieces occur in the project's names, ending (most) with
    a bracket the names do not end with; a few match (``**/*u*[!x]`` and the like)."""
    pieces = ["s", "r", "c", "a", "p", "y", "d", "e", "b", "u", "l", "o", "g", "[ab]", "[!x]", "?", "[a-p]"]
    out = []
    for i in range(n):
        k, parts = i, []
        for _ in range(2 + i % 3):
            parts.append(pieces[k % len(pieces)])
            k //= len(pieces)
        tail = f"[{i % 10}q]" if i % 3 else "*[!y]"
        out.append(("!" if i % 13 == 0 else "") + ("**/" if i % 4 == 0 else "") + "*" + "*".join(parts) + "*" + tail)
    return "\n".join(out) + "\n"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "proj"
    files = {
        ".gitignore": _star_filler(6000) + "build/\n*.log\n!keep.log\nsrc/**/gen_*.py\n!/gen/q/\n/secret-ish\n\\#lit\n",
        ".env": "SECRET=topsecret-value\n",
        "debug.log": "log\n", "keep.log": "k\n", "#lit": "l\n", "secret-ish": "s\n",
        "build/out.js": "built\n", "src/app.py": "print('hello')\n", "src/gen_x.py": "g\n",
        "src/deep/gen_y.py": "g\n", "gen/q/cache12z/y.tmp12": "t\n", "gen/r/cache12z/y.tmp12": "t\n",
        "node_modules/x/index.js": "x\n", "src/local/f.py": "f\n", "x.bak": "b\n",
    }
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    git_init(root)
    assert len(files[".gitignore"]) >= _rules.LAZY_MIN_BYTES
    for var in ("CLAUDE_PROJECT_DIR", "GEMINI_PROJECT_DIR"):
        monkeypatch.delenv(var, raising=False)
    return root


def test_hook_answers_under_star_lines_equal_the_whole_compile(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    made: list[_lazy.LazyIgnoreList] = []
    init = _lazy.LazyIgnoreList.__init__

    def record(self: _lazy.LazyIgnoreList, *args: Any, **kwargs: Any) -> None:
        init(self, *args, **kwargs)
        made.append(self)

    monkeypatch.setattr(_lazy.LazyIgnoreList, "__init__", record)
    payloads = _payloads(project)
    lazy = [run_hook(agent, data, root=str(project)) for agent, data in payloads]
    assert made, "the hook read the big ignore file as a lazy list"
    for lst in made:  # each run: a few deciding lines compiled, never the whole list
        assert lst._full is None
        assert len(lst._pats) < 40
    made.clear()
    monkeypatch.setattr(_rules, "LAZY_MIN_BYTES", 1 << 40)
    whole = [run_hook(agent, data, root=str(project)) for agent, data in payloads]
    assert not made
    for (agent, data), a, b in zip(payloads, lazy, whole, strict=True):
        assert (a.stdout, a.stderr, a.exit_code) == (b.stdout, b.stderr, b.exit_code), (agent, data)
    texts = [a.stdout for a in lazy]
    assert sum("Excluded by ignore rules" in t for t in texts) >= 8  # (not all allows)
    assert sum(t.strip() in ("", "{}", '{"permission": "allow"}') for t in texts) >= 3

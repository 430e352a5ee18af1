"""Red team 16, G2: Gemini CLI's ``read_many_files`` globs every entry case-insensitively.

``read-many-files.ts`` escapes an entry that exists and globs it anyway with
``nocase: true``, so ``NOTES.txt`` also reads ``notes.txt`` (a hard link to ``.env``, an
ignored file, a host-filtered one) and ``PRIVATE/plan.md`` also reads ``private/plan.md``.
An entry with a case-variant sibling anywhere on its path is denied with the same opaque
text whatever that sibling is; one without is still allowed."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from pathgate import Policy
from pathgate._hooks import _many
from pathgate._hooks._core import MANY_TEXT, Target, decide
from pathgate._hooks._many import CaseVariants, glob_view
from pathgate._hooks._run import run_hook
from pathgate.runtime._gating import GateCore, run_now

SECRET_VALUE = "hunter2-secret-value"
#: (exact file the agent names, its case variant)
PAIRS = (("NOTES.txt", "notes.txt"), ("docs/GUIDE.md", "docs/guide.md"),
         ("PRIVATE/plan.md", "private/plan.md"))
KINDS = ("hardlink", "symlink", "ordinary", "ignored", "directory")


def _tree(root: Path, kind: str | None) -> Path:
    """The same tree for every ``kind``; only what each variant is differs (``None``: no
    variants at all)."""
    files = {".gitignore": "*.log\n", ".env": f"API_KEY={SECRET_VALUE}\n", "src/app.py": "print(1)\n",
             **{exact: "decoy\n" for exact, _ in PAIRS}}
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    for _exact, variant in PAIRS if kind is not None else ():
        path = root / variant
        path.parent.mkdir(parents=True, exist_ok=True)
        if kind == "hardlink":
            os.link(root / ".env", path)
        elif kind == "symlink":
            path.symlink_to(os.path.relpath(root / ".env", path.parent))
        elif kind == "directory":
            path.mkdir()
            (path / ".env").write_text("nested\n")
        else:
            path.write_text("plain\n")
            if kind == "ignored":
                with (root / ".gitignore").open("a") as f:
                    f.write(f"/{variant}\n")
    return root


def _gemini(root: Path, **tool_input: Any) -> bytes:
    return json.dumps({"session_id": "s1", "cwd": str(root), "hook_event_name": "BeforeTool",
                       "tool_name": "read_many_files", "tool_input": tool_input}).encode()


def _payloads(root: Path) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for exact, _variant in PAIRS:
        out += [{"include": [exact]}, {"paths": [exact]}, {"paths": ["./" + exact]},
                {"paths": ["src/../" + exact]}, {"include": [exact.replace("/", "\\")]},
                {"paths": [str(root / exact)]}, {"paths": ["src/app.py", exact]}]
    return out


@pytest.fixture(autouse=True)
def _no_project_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in ("CLAUDE_PROJECT_DIR", "GEMINI_PROJECT_DIR"):
        monkeypatch.delenv(var, raising=False)


def _answers(root: Path) -> list[tuple[str, str, int]]:
    out = []
    for tool_input in _payloads(root):
        answer = run_hook("gemini", _gemini(root, **tool_input))
        out.append((answer.stdout, answer.stderr, answer.exit_code))
    return out


def test_an_entry_with_a_case_variant_is_denied_the_same_whatever_the_variant_is(tmp_path: Path) -> None:
    """The same payloads on trees that differ only in what the case variants are (a hard
    link or a symlink to ``.env``, an ordinary file, an ignored file, a directory): the same
    opaque denial, and nothing of the secret."""
    seen = {}
    for kind in KINDS:
        root = _tree(tmp_path / kind / "proj", kind)
        seen[kind] = _answers(root)
        for stdout, stderr, code in seen[kind]:
            assert code == 0 and stderr == "" and SECRET_VALUE not in stdout
            assert json.loads(stdout) == {"decision": "deny", "reason": MANY_TEXT}
    # the trees' paths differ only in the kind's directory name
    normalised = {k: [tuple(str(x).replace(f"/{k}/", "/K/") for x in a) for a in v] for k, v in seen.items()}
    assert all(v == normalised["hardlink"] for v in normalised.values())


def test_an_exact_name_without_case_variants_is_still_allowed(tmp_path: Path) -> None:
    root = _tree(tmp_path / "proj", None)
    for i in range(30):  # siblings that are no case variant of anything named
        (root / "docs" / f"other{i}.md").write_text("x\n")
    for stdout, stderr, code in _answers(root):
        assert (json.loads(stdout), stderr, code) == ({}, "", 0)
    # the secret itself is still the secret's bare answer, variant or not
    out = run_hook("gemini", _gemini(root, paths=[".ENV"]))
    assert json.loads(out.stdout)["reason"] == "[BLOCKED]"


def test_a_variant_of_a_parent_directory_is_seen(tmp_path: Path) -> None:
    """``PRIVATE/plan.md`` with an ignored ``private/`` holding ``plan.md``: denied by the
    parent's variant, without ``private/`` being looked into."""
    root = _tree(tmp_path / "proj", None)
    (root / ".gitignore").write_text("private/\n")
    (root / "private").mkdir()
    out = run_hook("gemini", _gemini(root, include=["PRIVATE/plan.md"]))
    assert json.loads(out.stdout) == {"decision": "deny", "reason": MANY_TEXT}
    (root / "private" / "plan.md").write_text("not for the agent\n")
    assert run_hook("gemini", _gemini(root, include=["PRIVATE\\plan.md"])).stdout == out.stdout
    direct = json.loads(run_hook("gemini", _gemini(root, paths=["private/plan.md"])).stdout)["reason"]
    assert direct.startswith("[BLOCKED]: Excluded by ignore rules")


def test_a_host_filtered_variant_gets_the_same_answer_as_an_ordinary_one(tmp_path: Path) -> None:
    texts = []
    for kind, hidden in (("ordinary", False), ("ordinary", True), ("hardlink", True)):
        root = _tree(tmp_path / f"{kind}{hidden}", kind)
        policy = Policy(host_filter=(lambda rel: rel not in ("notes.txt", "docs/guide.md")) if hidden else None)
        core = GateCore(root, policy)
        for exact, _variant in PAIRS:
            texts.append(run_now(decide(core, [Target("many", exact)], cwd=str(root))))
    assert texts == [MANY_TEXT] * len(texts)


def test_a_variant_below_the_project_root_is_seen_from_a_sub_directory(tmp_path: Path) -> None:
    """Gemini globs each entry in its workspace directory (the project root) as well as the
    hook's ``cwd``: ``app.py`` from ``src/`` with ``APP.py`` at the root is denied."""
    root = _tree(tmp_path / "proj", None)
    core = GateCore(root)
    assert run_now(decide(core, [Target("many", "app.py")], cwd=str(root / "src"))) is None
    (root / "APP.py").write_text("x\n")
    assert run_now(decide(core, [Target("many", "app.py")], cwd=str(root / "src"))) == MANY_TEXT


def test_many_variants_are_denied_at_the_first_one(tmp_path: Path) -> None:
    """1,024 spellings of one name, and a path whose every directory has a variant (2^12
    paths for the glob): denied, having listed one directory each."""
    root = _tree(tmp_path / "proj", None)
    word = "abcdefghij"
    for bits in range(1 << len(word)):
        name = "".join(c.upper() if bits >> i & 1 else c for i, c in enumerate(word))
        (root / name).write_text("x\n")
    deep = root
    for _ in range(12):
        (deep / "d").mkdir()
        (deep / "D").mkdir()
        deep = deep / "D"
    (deep / "f.txt").write_text("x\n")
    core = GateCore(root)
    judge = CaseVariants()
    assert judge.any_variant(word, [str(root)]) and judge.any_variant("D/" * 12 + "f.txt", [str(root)])
    assert len(judge._dirs) == 1  # the root's listing only
    for entry in (word, "D/" * 12 + "f.txt"):
        assert run_now(decide(core, [Target("many", entry)], cwd=str(root))) == MANY_TEXT


def test_past_the_bounds_an_entry_is_denied(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = _tree(tmp_path / "proj", None)
    core = GateCore(root)
    depth = _many._MAX_DEPTH
    for levels, expected in ((depth, None), (depth + 1, MANY_TEXT)):
        entry = "/".join(["n"] * (levels - 1) + ["f.txt"])
        (root / entry).parent.mkdir(parents=True, exist_ok=True)
        (root / entry).write_text("x\n")
        assert run_now(decide(core, [Target("many", entry)], cwd=str(root))) == expected
    monkeypatch.setattr(_many, "_MAX_NAMES", 40)
    wide = root / "wide"
    wide.mkdir()
    for i in range(20):
        (wide / f"f{i}.txt").write_text("x\n")
    assert run_now(decide(core, [Target("many", "wide/f1.txt")], cwd=str(root))) is None
    for i in range(20, 60):
        (wide / f"f{i}.txt").write_text("x\n")
    assert run_now(decide(core, [Target("many", "wide/f1.txt")], cwd=str(root))) == MANY_TEXT


@pytest.mark.parametrize(("name", "sibling"), [
    ("Kit.txt", "\u212ait.txt"),  # the Kelvin sign folds to k (a `u`-flag regular expression)
    ("src.py", "\u017frc.py"),  # long s folds to s
    ("\u03c3\u03b1.md", "\u03a3\u0391.md"),  # Greek
    ("stra\u00dfe.txt", "STRASSE.txt"),  # wider than the tool's match: refused all the same
    ("123.txt", "123.txt.bak"),
])
def test_what_counts_as_a_variant(tmp_path: Path, name: str, sibling: str) -> None:
    (tmp_path / name).write_text("x\n")
    assert not CaseVariants().any_variant(name, [str(tmp_path)])
    (tmp_path / sibling).write_text("x\n")
    assert CaseVariants().any_variant(name, [str(tmp_path)]) is (sibling != "123.txt.bak")


def test_an_unlistable_or_missing_directory(tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_text("x\n")
    assert CaseVariants().any_variant("f.txt/G", [str(tmp_path)])  # not a directory: cannot be told
    assert not CaseVariants().any_variant("missing/F", [str(tmp_path)])  # the glob matches nothing


def test_a_symlinked_directory_on_the_way_is_listed_where_it_leads(tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    (tmp_path / "real" / "NOTES.txt").write_text("x\n")
    (tmp_path / "link").symlink_to("real")
    assert not CaseVariants().any_variant("link/NOTES.txt", [str(tmp_path)])
    (tmp_path / "real" / "notes.txt").write_text("x\n")
    assert CaseVariants().any_variant("link/NOTES.txt", [str(tmp_path)])


@pytest.mark.parametrize(("entry", "base", "view"), [
    ("src/../NOTES.txt", "/r", ("/r", ["NOTES.txt"])),
    ("./a//b/", "/r", ("/r", ["a", "b"])),
    ("../x/Y", "/r/s", ("/r", ["x", "Y"])),
    ("a/../../x", "/r/s", ("/r", ["x"])),
    ("/abs/Path", "/r", ("/", ["abs", "Path"])),
    ("~/x", "/r", ("/r", ["~", "x"])),
])
def test_glob_view(entry: str, base: str, view: tuple[str, list[str]]) -> None:
    assert glob_view(entry, base) == view


def test_the_listing_lookup_is_the_fold_relation_or_wider() -> None:
    """The ASCII shortcut of :class:`_many._Listing` against the relation it stands for,
    name by name (any fold of :data:`_many._FOLDS` equal): never narrower, and equal on
    ASCII names."""
    import random

    rng = random.Random(16)
    alphabet = "aAbBkKsS.1\u212a\u017f\u00df\u03c3\u03c2\u03a3\u0131I\u0130iE\u00e9\u00c9"
    for _ in range(300):
        names = list({"".join(rng.choice(alphabet) for _ in range(rng.randint(1, 3))) for _ in range(12)})
        listing = _many._Listing(names)
        for query in [*names[:4], "".join(rng.choice(alphabet) for _ in range(2))]:
            others = [n for n in names if n != query and any(f(n) == f(query) for f in _many._FOLDS[1:])]
            got = listing.look(query)
            expected = "other" if others else ("exact" if query in names else "none")
            if expected == "other" or (query.isascii() and all(n.isascii() for n in names)):
                assert got == expected, (names, query)
            else:
                assert got in (expected, "other"), (names, query)

"""Red team 16, G2: Gemini CLI's ``read_many_files`` globs every entry case-insensitively.

``read-many-files.ts`` escapes an entry that exists and globs it anyway with
``nocase: true``, so ``NOTES.txt`` also reads ``notes.txt`` (a hard link to ``.env``, an
ignored file, a host-filtered one) and ``PRIVATE/plan.md`` also reads ``private/plan.md``.
An entry that could have a case variant anywhere on its path (a cased letter) is denied with
the same opaque text whether a variant exists or not, and whatever it is (red team 18 J5: a
denial only when one existed told the model that a hidden one did); a name without cased
letters is still allowed."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from pathgate import Policy
from pathgate._hooks import _many
from pathgate._hooks._core import MANY_TEXT, Target, decide
from pathgate._hooks._many import glob_view, may_vary
from pathgate._hooks._run import run_hook
from pathgate.runtime._gating import GateCore, run_now

SECRET_VALUE = "hunter2-secret-value"
#: (exact file the agent names, its case variant)
PAIRS = (("NOTES.txt", "notes.txt"), ("docs/GUIDE.md", "docs/guide.md"),
         ("PRIVATE/plan.md", "private/plan.md"))
KINDS = ("hardlink", "symlink", "ordinary", "ignored", "directory", None)


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


def test_an_entry_is_denied_the_same_whether_a_variant_exists_and_whatever_it_is(tmp_path: Path) -> None:
    """The same payloads on trees that differ only in what the case variants are (a hard
    link or a symlink to ``.env``, an ordinary file, an ignored file, a directory) or in
    having none: the same opaque denial, and nothing of the secret."""
    seen = {}
    for kind in KINDS:
        root = _tree(tmp_path / str(kind) / "proj", kind)
        seen[kind] = _answers(root)
        for stdout, stderr, code in seen[kind]:
            assert code == 0 and stderr == "" and SECRET_VALUE not in stdout
            answer = json.loads(stdout)
            assert answer["decision"] == "deny" and answer["reason"].endswith(MANY_TEXT)
    # the trees' paths differ only in the kind's directory name
    normalised = {k: [tuple(str(x).replace(f"/{k}/", "/K/") for x in a) for a in v] for k, v in seen.items()}
    assert all(v == normalised["hardlink"] for v in normalised.values())


def test_a_name_without_cased_letters_is_still_allowed(tmp_path: Path) -> None:
    root = _tree(tmp_path / "proj", None)
    (root / "2024").mkdir()
    (root / "2024" / "12-01").write_text("x\n")
    for entry in ("2024/12-01", "./2024//12-01", "src/../2024/12-01"):
        out = run_hook("gemini", _gemini(root, paths=[entry]))
        assert (json.loads(out.stdout), out.stderr, out.exit_code) == ({}, "", 0)
    for entry in ("2024", "2024/missing", "2024/1*"):  # a directory, a name not there, a glob
        assert json.loads(run_hook("gemini", _gemini(root, paths=[entry])).stdout)["reason"] == MANY_TEXT
    # the secret itself is still the secret's bare answer
    out = run_hook("gemini", _gemini(root, paths=[".ENV"]))
    assert json.loads(out.stdout)["reason"] == "[BLOCKED]"


def test_a_hidden_variant_is_no_existence_oracle(tmp_path: Path) -> None:
    """Red team 18 J5: the model creates ``NOTES.txt`` and asks for it; the answer is the
    same whether ``notes.txt`` (a hard link to ``.env``, a host-filtered file) exists."""
    texts = []
    for kind, hidden in ((None, False), ("hardlink", False), ("ordinary", True), (None, True)):
        root = _tree(tmp_path / f"{kind}{hidden}", kind)
        policy = Policy(host_filter=(lambda rel: rel not in ("notes.txt", "docs/guide.md")) if hidden else None)
        core = GateCore(root, policy)
        for exact, _variant in PAIRS:
            texts.append(run_now(decide(core, [Target("many", exact)], cwd=str(root))))
    assert texts == [MANY_TEXT] * len(texts)


def test_past_the_depth_bound_an_entry_is_denied(tmp_path: Path) -> None:
    root = _tree(tmp_path / "proj", None)
    core = GateCore(root)
    depth = _many._MAX_DEPTH
    for levels, expected in ((depth, None), (depth + 1, MANY_TEXT)):
        entry = "/".join(["1"] * (levels - 1) + ["2"])
        (root / entry).parent.mkdir(parents=True, exist_ok=True)
        (root / entry).write_text("x\n")
        assert run_now(decide(core, [Target("many", entry)], cwd=str(root))) == expected


@pytest.mark.parametrize(("entry", "cased"), [
    ("Kit.txt", True), ("\u212a", True),  # the Kelvin sign folds to k (a `u`-flag regular expression)
    ("\u017f", True),  # long s folds to s
    ("\u03c3\u03b1.md", True), ("stra\u00dfe", True), ("123.txt", True), ("a", True),
    ("123", False), ("1/2/3-4_5.6", False), ("\u4e2d\u6587", False), ("../x", True),
])
def test_what_could_have_a_variant(tmp_path: Path, entry: str, cased: bool) -> None:
    assert may_vary(entry, [str(tmp_path)]) is cased
    (tmp_path / "x").mkdir()
    assert may_vary(entry, [str(tmp_path / "x")]) is cased  # the tree is never looked at


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

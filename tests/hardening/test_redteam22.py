"""Red-team pass 22: what a repository's own settings cost.

H1: a git config include fan-out (``.git/config`` includes a tracked ``.gitconfig`` that
includes the next file 4 times, 6 levels deep: 4,096 include reads, under git's depth limit)
was read and parsed, and each target judged as a secret source, once per include: the first
call of every agent took 30 s where git took 0.65 s. Now each file is read, parsed and judged
once per resolution, an include target's expansion is applied again wherever git re-reads it
(the same entries, in order), and past :data:`MAX_INCLUDED_ENTRIES` entries applied through
includes the configuration is refused as git refuses one past its depth limit (fail closed).

H2: a project's ``pathgate.toml`` could add 20,000 ``extra_secret_patterns`` (every hook call
14-22 s). Now a project's lists hold at most :data:`MAX_PROJECT_ENTRIES` entries (64 agent
files) of :data:`MAX_PROJECT_ENTRY_CHARS` characters, and past it the file is refused with a
:class:`ConfigError` naming the key and the file, as a loosening key is (the host may set
more); the secret patterns are compiled once per distinct list.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
from collections import Counter
from pathlib import Path

import pytest

import pathgate
from pathgate._hooks._run import run_hook
from pathgate.config import (
    MAX_PROJECT_AGENT_FILES,
    MAX_PROJECT_ENTRIES,
    MAX_PROJECT_ENTRY_CHARS,
    Policy,
    load_config,
    load_host_config,
)
from pathgate.errors import ConfigError
from pathgate.runtime.gates import _secret_program
from pathgate.runtime.ignore import _gitconfig, _gitconfig_load
from pathgate.runtime.ignore._gitconfig_parse import GitFatal
from tests._gitinit import git_init

pytestmark = pytest.mark.anyio

_ENV = {"HOME": "/nonexistent", "GIT_CONFIG_NOSYSTEM": "1"}


def _fanout(root: Path, width: int, depth: int, leaf: str = "[core]\n\tquotepath = true\n") -> None:
    """``.git/config`` includes the tracked ``.gitconfig``, which includes ``cfg/f0`` ``width``
    times; ``cfg/fK`` includes ``cfg/fK+1`` ``width`` times; ``cfg/f<depth>`` holds ``leaf``."""
    git_init(root)
    (root / "cfg").mkdir()
    with open(root / ".git" / "config", "a") as fh:
        fh.write("[include]\n\tpath = ../.gitconfig\n")
    (root / ".gitconfig").write_text("[include]\n" + "\tpath = cfg/f0\n" * width)
    for k in range(depth):
        (root / "cfg" / f"f{k}").write_text("[include]\n" + f"\tpath = f{k + 1}\n" * width)
    (root / "cfg" / f"f{depth}").write_text(leaf)


def _git_list(root: Path, git: str) -> list[tuple[str, str, str | None]]:
    """``git config --list --show-origin -z``: ``(origin, key, value or None)`` in order."""
    out = subprocess.run([git, "-C", str(root), "config", "--list", "--show-origin", "-z"], capture_output=True,
                         text=True, env={**_ENV, "PATH": os.environ["PATH"]}, check=True).stdout
    items = out.split("\0")[:-1]
    got = []
    for origin, item in zip(items[::2], items[1::2], strict=True):
        key, nl, value = item.partition("\n")
        got.append((origin.removeprefix("file:"), key, value if nl else None))
    return got


def _ours(root: Path) -> list[tuple[str, str, str | None]]:
    layout = _gitconfig.find_git_layout(str(root))
    entries, _errors = _gitconfig_load.load_config(layout, _ENV, [])
    return [(e.origin or "", e.key, e.value) for e in entries]


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """Reads of each config file by the loader (``_read_small``), and parses (``parse:`` + path)."""
    counts: Counter[str] = Counter()
    read, parse = _gitconfig._read_small, _gitconfig_load.parse_config

    def counting_read(path: str) -> bytes:
        counts[path] += 1
        return read(path)

    def counting_parse(text: str, origin: str, path: str | None = None, errors: list[str] | None = None):  # type: ignore[no-untyped-def]
        counts[f"parse:{path}"] += 1
        return parse(text, origin, path, errors)

    monkeypatch.setattr(_gitconfig, "_read_small", counting_read)
    monkeypatch.setattr(_gitconfig_load, "parse_config", counting_parse)
    return counts


# --- H1: include fan-out --------------------------------------------------------------------


def test_fanout_reads_and_parses_each_file_once_and_equals_git(tmp_path: Path, git_bin: str,
                                                               counted: Counter[str]) -> None:
    _fanout(tmp_path, 3, 4)  # 3**5 = 243 applications of the leaf
    ours = _ours(tmp_path)
    assert ours == _git_list(tmp_path, git_bin)  # every entry, in order, with git's origin
    assert sum(1 for _o, k, _v in ours if k == "core.quotepath") == 3 ** 5
    files = [k.removeprefix("parse:") for k in counted if k.startswith("parse:")]
    assert len(files) == 7  # .git/config, .gitconfig, cfg/f0..f4
    assert {counted[f] for f in files} == {1} and {counted[f"parse:{f}"] for f in files} == {1}


def test_fanout_judges_each_target_once_and_watches_it_once(tmp_path: Path) -> None:
    _fanout(tmp_path, 4, 4)
    asked: Counter[str] = Counter()

    def absent(path: str) -> bool:
        asked[path] += 1
        return False

    watched: list[str] = []
    layout = _gitconfig.find_git_layout(str(tmp_path))
    entries, _ = _gitconfig_load.load_config(layout, _ENV, watched, absent)
    assert sum(1 for e in entries if e.key == "core.quotepath") == 4 ** 5
    assert asked and set(asked.values()) == {1}
    assert len(watched) == len(set(watched))


def test_repeated_include_applies_its_settings_again_in_order(tmp_path: Path, git_bin: str) -> None:
    """git re-applies an include each time: the last word is the repeated include's, not the
    line between the two includes."""
    git_init(tmp_path)
    (tmp_path / "shared").write_text("[core]\n\texcludesFile = from-shared\n\tignoreCase = true\n")
    with open(tmp_path / ".git" / "config", "a") as fh:
        fh.write("[include]\n\tpath = ../shared\n[core]\n\texcludesFile = between\n\tignoreCase = false\n"
                 "[include]\n\tpath = ../shared\n")
    assert _ours(tmp_path) == _git_list(tmp_path, git_bin)
    s = _gitconfig.resolve(str(tmp_path), env=_ENV)
    assert s.excludes_file == str(tmp_path / "from-shared") and s.ignore_case is True


async def test_excludes_file_from_a_fanout_decides_like_git(tmp_path: Path, git_bin: str,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    for k, v in _ENV.items():
        monkeypatch.setenv(k, v)
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    _fanout(tmp_path, 2, 3, leaf="[core]\n\texcludesFile = cfg/ignored-list\n")
    (tmp_path / "cfg" / "ignored-list").write_text("*.log\n")
    names = ["a.log", "a.txt", "b.log"]
    for name in names:
        (tmp_path / name).write_text("x\n")
    checked = subprocess.run([git_bin, "-C", str(tmp_path), "check-ignore", *names], capture_output=True,
                             text=True, env={**_ENV, "PATH": os.environ["PATH"]})
    assert set(checked.stdout.split()) == {"a.log", "b.log"}
    async with pathgate.Runtime(tmp_path, pathgate.Policy(defaults=())) as rt:
        got = await rt.read_files(names)
    assert {n for n, r in zip(names, got, strict=True) if r.verdict is not None} == {"a.log", "b.log"}


def test_depth_limit_counts_existing_targets_only_as_git(tmp_path: Path, git_bin: str) -> None:
    """git checks its include depth after finding the target readable: a chain 11 deep that
    ends in a missing file is no error; one that ends in an existing file is."""
    git_init(tmp_path)
    with open(tmp_path / ".git" / "config", "a") as fh:
        fh.write("[include]\n\tpath = ../d0\n")
    for k in range(10):
        (tmp_path / f"d{k}").write_text(f"[include]\n\tpath = d{k + 1}\n")
    env = {**_ENV, "PATH": os.environ["PATH"]}
    listed = subprocess.run([git_bin, "-C", str(tmp_path), "config", "--list"], capture_output=True, env=env)
    assert listed.returncode == 0
    assert _ours(tmp_path) == _git_list(tmp_path, git_bin)
    (tmp_path / "d10").write_text("[core]\n\tquotepath = false\n")
    done = subprocess.run([git_bin, "-C", str(tmp_path), "config", "--list"], capture_output=True, text=True, env=env)
    assert done.returncode != 0
    with pytest.raises(GitFatal) as caught:
        _ours(tmp_path)
    assert done.stderr.startswith(str(caught.value))


def test_hasconfig_over_a_fanout_equals_git(tmp_path: Path, git_bin: str) -> None:
    _fanout(tmp_path, 3, 3, leaf='[remote "origin"]\n\turl = https://example.com/r.git\n')
    (tmp_path / "extra").write_text("[core]\n\tattributesFile = from-hasconfig\n")
    with open(tmp_path / ".git" / "config", "a") as fh:
        fh.write('[includeIf "hasconfig:remote.*.url:https://example.com/**"]\n\tpath = ../extra\n')
    ours = _ours(tmp_path)
    assert ours == _git_list(tmp_path, git_bin)
    assert ("core.attributesfile", "from-hasconfig") in [(k, v) for _o, k, v in ours]


def test_past_the_entry_bound_fails_closed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                            counted: Counter[str]) -> None:
    _fanout(tmp_path, 4, 7)  # 4**8 leaf applications: ~240,000 entries through includes
    with pytest.raises(GitFatal, match="more than 100,000 config entries applied through includes"):
        _gitconfig.resolve(str(tmp_path), env=_ENV)
    assert counted and max(counted.values()) == 1
    # under the bound (lowered here) the same shape resolves; over it, refused
    _fanout(tmp_path / "small", 2, 3)
    assert len(_ours(tmp_path / "small")) > 0
    monkeypatch.setattr(_gitconfig_load, "MAX_INCLUDED_ENTRIES", 20)
    with pytest.raises(GitFatal, match="more than 20 config entries"):
        _ours(tmp_path / "small")


async def test_runtime_fails_closed_past_the_bound(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for k in ("HOME", "XDG_CONFIG_HOME"):
        monkeypatch.setenv(k, str(tmp_path / "nohome"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    _fanout(tmp_path, 4, 7)
    (tmp_path / "a.txt").write_text("hello\n")
    async with pathgate.Runtime(tmp_path) as rt:
        (got,) = await rt.read_files(["a.txt"])
    assert got.verdict is not None and got.verdict.fail_closed and got.content is None


# --- H2: bounded project lists --------------------------------------------------------------


def _toml(value: object) -> str:
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{k} = {_toml(v)}" for k, v in value.items()) + " }"
    if isinstance(value, list):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    return json.dumps(value)


def _project(root: Path, **keys: object) -> None:
    (root / "pathgate.toml").write_text("".join(f"{k} = {_toml(v)}\n" for k, v in keys.items()))


def test_project_patterns_past_the_bound_are_refused_naming_key_and_file(tmp_path: Path) -> None:
    _project(tmp_path, extra_secret_patterns=[f"*q{i}*" for i in range(MAX_PROJECT_ENTRIES + 1)])
    with pytest.raises(ConfigError) as caught:
        load_config(tmp_path)
    assert caught.value.key == "extra_secret_patterns"
    assert str(tmp_path / "pathgate.toml") in str(caught.value) and "at most 1,024" in str(caught.value)
    with pytest.raises(ConfigError):
        pathgate.Runtime(tmp_path)
    _project(tmp_path, extra_secret_patterns=[f"*q{i}*" for i in range(MAX_PROJECT_ENTRIES)])
    assert "*q1023*" in load_config(tmp_path).secret_patterns


@pytest.mark.parametrize("key, value, at", [
    ("extra_secret_patterns", ["*.a", "x" * (MAX_PROJECT_ENTRY_CHARS + 1)], "extra_secret_patterns[1]"),
    ("secret_patterns", [*Policy().secret_patterns, *(f"n{i}" for i in range(MAX_PROJECT_ENTRIES))],
     "secret_patterns"),
    ("defaults", [*Policy().defaults, *(f"d{i}/" for i in range(MAX_PROJECT_ENTRIES))], "defaults"),
    ("agent_files", [".pathgateignore", *(f".ai{i}" for i in range(MAX_PROJECT_AGENT_FILES))], "agent_files"),
    ("model_size_limits", [{"model": "m" * 300, "limit": 5}], "model_size_limits[0]"),
])
def test_each_bounded_list(tmp_path: Path, key: str, value: object, at: str) -> None:
    _project(tmp_path, **{key: value})
    with pytest.raises(ConfigError) as caught:
        load_config(tmp_path)
    assert caught.value.key == at and f"`{at}`" in str(caught.value)


def test_renderer_rules_in_pyproject_are_bounded(tmp_path: Path) -> None:
    rules = ",".join(f'{{ model = "m{i}*", renderer = "structured" }}' for i in range(MAX_PROJECT_ENTRIES + 1))
    (tmp_path / "pyproject.toml").write_text(f"[tool.pathgate.renderers]\nrules = [{rules}]\n")
    with pytest.raises(ConfigError, match=r"`tool\.pathgate\.renderers\.rules`: 1,025 entries"):
        load_config(tmp_path)


def test_the_hook_refuses_past_the_bound(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("x\n")
    payload = {"tool_name": "Read", "tool_input": {"file_path": str(tmp_path / "a.txt")},
               "hook_event_name": "PreToolUse", "cwd": str(tmp_path)}
    ok = run_hook("claude-code", json.dumps(payload).encode(), root=str(tmp_path))
    _project(tmp_path, extra_secret_patterns=[f"z{i}.bin" for i in range(MAX_PROJECT_ENTRIES + 1)])
    refused = run_hook("claude-code", json.dumps(payload).encode(), root=str(tmp_path))
    assert ok != refused and "blocked because the check failed" in str(refused)


def test_the_host_may_set_more(tmp_path: Path) -> None:
    many = [f"z{i}.bin" for i in range(MAX_PROJECT_ENTRIES + 10)]
    host = tmp_path / "host.toml"
    host.write_text(f"extra_secret_patterns = {json.dumps(many)}\n")
    assert "z1033.bin" in load_host_config(host).secret_patterns
    (tmp_path / "p").mkdir()
    assert "z1033.bin" in load_config(tmp_path / "p", host=Policy(extra_secret_patterns=tuple(many))).secret_patterns


def test_secret_patterns_compiled_once_per_distinct_list(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    built: list[int] = []
    real = _secret_program.Program.__init__

    def counting(self: _secret_program.Program, patterns: tuple[str, ...]) -> None:
        built.append(len(patterns))
        real(self, patterns)

    monkeypatch.setattr(_secret_program.Program, "__init__", counting)
    _secret_program._PROGRAMS.clear()
    _project(tmp_path, extra_secret_patterns=[f"*q{i}*" for i in range(40)])
    pathgate.Runtime(tmp_path, allow_writes=True)
    n = len(Policy().secret_patterns)
    # the policy's list (read and write pipelines: one build) and the list without the
    # project's additions (the ignore sources' secret test)
    assert sorted(built) == [n, n + 40]


# --- H2: a big pattern list judged by pattern class, exactly as the alternation -------------

_ALPHABET = ["a", "b", "q", "Q", "1", ".", "-", "_", " ", ":", "~", "#", "é", "É", "ß", "\udcff", "ǅ", "K"]


def _word(rng: random.Random, n: int) -> str:
    return "".join(rng.choice(_ALPHABET) for _ in range(rng.randint(1, n)))


def _pattern(rng: random.Random, needles: bool) -> str:
    w = _word(rng, 4)
    kind = rng.choice([0, 1, 2, 3, 4, 5, 7, 8] if needles else range(9))  # (6: no literal text)
    return [w, f"*{w}", f"{w}*", f"*{w}*", f"*{w}*{_word(rng, 2)}", f"{w}?", f"[{w}]*", f"[!{w}]{w}",
            f"{_word(rng, 2)}/*{w}"][kind]


def _name(rng: random.Random, patterns: list[str]) -> str:
    base = rng.choice(patterns).replace("*", _word(rng, 3)).replace("?", "x").replace("[", "").replace("]", "")
    base = base.rpartition("/")[2] or "n"
    if rng.random() < 0.5:
        base = _word(rng, 3) + base + _word(rng, 3)
    if rng.random() < 0.2:
        base = base.upper() if rng.random() < 0.5 else base.swapcase()
    return rng.choice(["", "~", ".bak", ".swp", " .", ":s"]) + base if rng.random() < 0.1 else \
        base + rng.choice(["", "~", ".bak", " .", ":stream"])


def test_big_pattern_lists_judge_like_the_alternation(monkeypatch: pytest.MonkeyPatch) -> None:
    from pathgate.runtime.gates.secrets import SecretMatcher

    for seed in range(12):
        rng = random.Random(seed)
        patterns = list(dict.fromkeys(_pattern(rng, seed % 2 == 0) for _ in range(rng.randint(70, 300))))
        patterns += list(Policy().secret_patterns)
        _secret_program._PROGRAMS.clear()
        monkeypatch.setattr(_secret_program, "MANY_PATTERNS", 10 ** 9)
        ref = SecretMatcher(patterns)
        _secret_program._PROGRAMS.clear()
        monkeypatch.setattr(_secret_program, "MANY_PATTERNS", 64)
        big = SecretMatcher(patterns)
        assert big._big and not ref._big and big._quick.contains is not None
        assert (big.maybe is None) == (ref.maybe is None) == (seed % 2 == 1)
        for _ in range(400):
            name = _name(rng, patterns)
            head = rng.choice(["", "d", "x/y", _name(rng, patterns)])
            path = f"{head}/{name}" if head else name
            assert big.is_secret(path) == ref.is_secret(path), (seed, path)
            assert big.is_secret_name(name) == ref.is_secret_name(name), (seed, name)
            if big.maybe is not None and ref.maybe is not None:
                assert (big.maybe(name.casefold()) is None) == (ref.maybe(name.casefold()) is None), (seed, name)
            if head and ":" not in head:
                assert big.in_dir(head)(name) == ref.is_secret(path), (seed, path)
                if not ref.dir_is_secret(head):
                    assert big.in_plain_dir(head, name) == ref.is_secret(path), (seed, path)
    _secret_program._PROGRAMS.clear()


def test_a_start_parses_the_project_file_once_and_an_edit_is_seen(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    from pathgate import config

    parsed: list[str] = []
    real = config._read_toml

    def counting(found: Path, raw: bytes | None = None):  # type: ignore[no-untyped-def]
        parsed.append(str(found))
        return real(found, raw)

    monkeypatch.setattr(config, "_read_toml", counting)
    _project(tmp_path, extra_secret_patterns=[f"z{i}.bin" for i in range(100)])
    pathgate.Runtime(tmp_path)
    assert len(parsed) == 1  # the policy and the project's own additions: one parse
    _project(tmp_path, extra_secret_patterns=["other.bin"])
    assert "other.bin" in load_config(tmp_path).secret_patterns and len(parsed) == 2

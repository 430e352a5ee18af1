"""The live index (issue 15): answers from memory equal a fresh walk's, after any edits.

Every test compares a runtime with ``live_index=True`` against one without (a fresh walk
per call) on the same tree, right after the edits and without sleeping: the staleness
bound is "any change made by a system call that returned before the query began".
"""

from __future__ import annotations

import errno
import os
import shutil
import sys
import time
from pathlib import Path
from typing import Any

import anyio
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from pathgate import Policy, Runtime
from pathgate.runtime._links import SecretInodes
from pathgate.runtime._live import LiveIndex, _counts, _watches
from pathgate.runtime._live._inotify import IN_Q_OVERFLOW, Event, Inotify
from tests._gitinit import git_init

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="inotify is Linux-only")

_PATTERNS = ("**", "**/*.py", "*", "src/**", "**/*.log", "**/pkg/*.py", "**/[a-m]*", "**/é*")


def _open_fds(tree: Path | None = None) -> int:
    """Descriptors open now; with ``tree``, only those on something inside it or an inotify
    instance (a worker thread another test left finishing its step may hold its own)."""
    if tree is None:
        return len(os.listdir("/proc/self/fd"))
    mine = 0
    inside = str(tree.resolve()) + "/"
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            continue
        mine += target.startswith(inside) or target == inside.rstrip("/") or "inotify" in target
    return mine


async def _dirs(rt: Runtime) -> list[str]:
    """Every listable directory of the project (from a fresh walk)."""
    out = ["."]
    todo = ["."]
    while todo:
        d = todo.pop()
        res = await rt.list_directory(d)
        for e in res.entries:
            if e.kind == "dir":
                sub = e.name if d == "." else f"{d}/{e.name}"
                out.append(sub)
                todo.append(sub)
    return out


async def assert_same(live: Runtime, ref: Runtime) -> None:
    """glob (several patterns), list_directory of every directory and code_search's file set
    answered by ``live`` equal ``ref``'s fresh walks; nothing secret or outside is listed."""
    for pat in _PATTERNS:
        a, b = await live.glob(pat, limit=0), await ref.glob(pat, limit=0)
        assert a == b, pat
        assert not any(m.endswith(".env") or m.startswith("..") for m in a.matches)
    for d in [*await _dirs(ref), "nope", "ign"]:
        assert await live.list_directory(d) == await ref.list_directory(d), d
    a_s, b_s = await live.code_search("x", max_results=10_000), await ref.code_search("x", max_results=10_000)
    assert a_s == b_s


def _seed(root: Path) -> None:
    (root / "src/pkg").mkdir(parents=True)
    (root / "src/pkg/a.py").write_text("x = 1\n")
    (root / "src/b.log").write_text("x\n")
    (root / "ign").mkdir()
    (root / "ign/c.py").write_text("x\n")
    (root / ".env").write_text("SECRET=x\n")
    (root / ".gitignore").write_text("ign/\n*.log\n")


# -- edits a hypothesis run draws --------------------------------------------------------------

_NAMES = ("a", "b", "ign", "src", "pkg", "n.py", "m.log", ".env", "é.py")
_DIRS = ("", "src", "src/pkg", "ign", "a", "b")
_RULES = ("ign/", "*.log", "!b.log", "pkg/", "*.py", "!src/pkg/a.py", "a", "/b")


def _apply(root: Path, outside: Path, op: tuple[Any, ...]) -> None:
    """Apply one edit; edits that make no sense on the current tree are skipped."""
    kind, d, name = op[0], root / op[1], op[2]
    p = d / name
    try:
        if kind == "file":
            p.write_text("x\n")
        elif kind == "mkdir":
            p.mkdir()
            (p / "x.py").write_text("x\n")
        elif kind == "rm":
            if p.is_dir() and not p.is_symlink():
                shutil.rmtree(p)
            else:
                p.unlink()
        elif kind == "rename":
            os.rename(p, root / op[3] / op[4])
        elif kind == "gitignore":
            (d / ".gitignore").write_text("\n".join(op[3]) + "\n")
        elif kind == "symlink":
            target = {"in": root / "src", "out": outside, "secret": root / ".env"}[op[3]]
            tmp = d / ".tmp-link"
            os.symlink(target, tmp)
            os.replace(tmp, p)  # swapped atomically, as an editor would
    except OSError:
        pass


_op = st.one_of(
    st.tuples(st.sampled_from(("file", "mkdir", "rm")), st.sampled_from(_DIRS), st.sampled_from(_NAMES)),
    st.tuples(st.just("rename"), st.sampled_from(_DIRS), st.sampled_from(_NAMES),
              st.sampled_from(_DIRS), st.sampled_from(_NAMES)),
    st.tuples(st.just("gitignore"), st.sampled_from(_DIRS), st.just(""),
              st.lists(st.sampled_from(_RULES), max_size=3)),
    st.tuples(st.just("symlink"), st.sampled_from(_DIRS), st.sampled_from(_NAMES),
              st.sampled_from(("in", "out", "secret"))),
)


_OPS = st.lists(st.lists(_op, min_size=1, max_size=3), min_size=1, max_size=4)
_NO_FIXTURE_CHECK = [HealthCheck.function_scoped_fixture]


@settings(max_examples=12, deadline=None, suppress_health_check=_NO_FIXTURE_CHECK)
@given(ops=_OPS)
def test_random_edits_keep_answers_exact(tmp_path_factory: pytest.TempPathFactory,
                                         ops: list[list[tuple[Any, ...]]]) -> None:
    _random_edits(tmp_path_factory, ops)


@pytest.mark.slow
@settings(max_examples=100, deadline=None, suppress_health_check=_NO_FIXTURE_CHECK)
@given(ops=_OPS)
def test_random_edits_keep_answers_exact_exhaustive(tmp_path_factory: pytest.TempPathFactory,
                                                    ops: list[list[tuple[Any, ...]]]) -> None:
    _random_edits(tmp_path_factory, ops)


def _random_edits(tmp_path_factory: pytest.TempPathFactory, ops: list[list[tuple[Any, ...]]]) -> None:
    base = tmp_path_factory.mktemp("live")
    root, outside = base / "p", base / "outside"
    root.mkdir()
    outside.mkdir()
    (outside / "o.py").write_text("x\n")
    _seed(root)

    async def run() -> None:
        async with Runtime(root, live_index=True) as live, Runtime(root) as ref:
            await assert_same(live, ref)
            for batch in ops:
                for op in batch:
                    _apply(root, outside, op)
                await assert_same(live, ref)  # no sleep: read-after-write
            assert live.live_index is not None and live.live_index.disabled is None

    anyio.run(run)


@pytest.mark.anyio
async def test_read_after_write_and_ignore_file_edits(tmp_path: Path) -> None:
    _seed(tmp_path)
    async with Runtime(tmp_path, live_index=True) as live:
        assert (await live.glob("**/*.py")).matches == ("src/pkg/a.py",)
        (tmp_path / "src/pkg/new.py").write_text("")
        assert "src/pkg/new.py" in (await live.glob("**/*.py")).matches
        (tmp_path / ".gitignore").write_text("*.log\n")  # ign/ is no longer ignored
        assert "ign/c.py" in (await live.glob("**/*.py")).matches
        (tmp_path / "src/.gitignore").write_text("pkg/\n")  # a nested ignore file
        assert (await live.glob("**/*.py")).matches == ("ign/c.py",)
        index = live.live_index
        assert index is not None and index.scans == 1 and index.disabled is None
        # nothing inside an excluded directory is watched
        assert index.watches == index.dirs == 3  # ".", "src", "ign"


# -- fallbacks -----------------------------------------------------------------------------


class _Overflowing(Inotify):
    """Reports one queue overflow at the first drain."""

    fired = False

    def read_events(self) -> list[Event]:
        events = super().read_events()
        if not _Overflowing.fired:
            _Overflowing.fired = True
            return [Event(-1, IN_Q_OVERFLOW, 0, "")]
        return events


class _Limited(Inotify):
    """Reports ENOSPC (the watch limit) after two watches."""

    def add_watch(self, path: str, mask: int = 0) -> int:
        if not hasattr(self, "n"):
            self.n = 0
        self.n += 1
        if self.n > 2:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), path)
        return super().add_watch(path) if mask == 0 else super().add_watch(path, mask)


def _no_inotify() -> Inotify:
    raise OSError(errno.ENOSYS, "inotify is not available on this platform")


@pytest.mark.anyio
@pytest.mark.parametrize("source", ["overflow", "enospc", "none"])
async def test_fallbacks_give_the_same_answers(tmp_path: Path, source: str,
                                               caplog: pytest.LogCaptureFixture) -> None:
    _seed(tmp_path)
    _Overflowing.fired = False
    factory = {"overflow": _Overflowing, "enospc": _Limited, "none": _no_inotify}[source]
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    async with Runtime(tmp_path, live_index=True, tracer_provider=provider) as live, Runtime(tmp_path) as ref:
        live.live_index = LiveIndex(live.index, inotify=factory)
        await assert_same(live, ref)
        (tmp_path / "src/pkg/z.py").write_text("x\n")
        (tmp_path / ".gitignore").write_text("*.log\n")
        await assert_same(live, ref)
        await live.call("glob", {"pattern": "**"})
        index = live.live_index
        if source == "overflow":
            assert index.resets == 1 and index.scans == 2 and index.disabled is None
        else:
            assert index.disabled is not None and index.watches == 0
    modes = [s.attributes.get("pathgate.index") for s in exporter.get_finished_spans()
             if s.attributes and "gen_ai.tool.name" in s.attributes]
    assert modes == ["live" if source == "overflow" else "fallback"]
    assert "live index" in caplog.text


@pytest.mark.anyio
async def test_span_attribute_says_live(tmp_path: Path) -> None:
    _seed(tmp_path)
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    async with Runtime(tmp_path, live_index=True, tracer_provider=provider) as live:
        await live.call("glob", {"pattern": "**"})
        await live.call("list_directory", {"path": "src"})
    async with Runtime(tmp_path, Policy(ignore_mode="discovery"), live_index=True,
                       tracer_provider=provider) as disc:
        await disc.call("list_directory", {"path": "ign"})  # an excluded start: walked
    async with Runtime(tmp_path, tracer_provider=provider) as plain:
        await plain.call("glob", {"pattern": "**"})
    modes = [s.attributes.get("pathgate.index") for s in exporter.get_finished_spans()
             if s.attributes and "gen_ai.tool.name" in s.attributes]
    assert modes == ["live", "live", "fallback", None]


@pytest.mark.anyio
async def test_aclose_leaves_no_descriptor(tmp_path: Path) -> None:
    _seed(tmp_path)
    before = _open_fds(tmp_path)
    live = Runtime(tmp_path, live_index=True)
    await live.glob("**")
    assert _open_fds(tmp_path) == before + 1  # the inotify descriptor, nothing else
    await live.aclose()
    await live.aclose()  # idempotent
    assert _open_fds(tmp_path) == before
    assert live.live_index is not None and live.live_index.watches == 0
    # a closed runtime still answers, by walking
    assert (await live.glob("**/*.py")).matches == ("src/pkg/a.py",)
    assert _open_fds(tmp_path) == before


def test_policy_key_is_host_only(tmp_path: Path) -> None:
    from pathgate import ConfigError, load_config

    assert Runtime(tmp_path, Policy(live_index=True)).live_index is not None
    assert Runtime(tmp_path).live_index is None
    (tmp_path / "pathgate.toml").write_text("live_index = true\n")
    with pytest.raises(ConfigError, match="live_index"):
        load_config(tmp_path)


@pytest.mark.anyio
async def test_evicted_ignore_cache_does_not_force_rescans(tmp_path: Path) -> None:
    import msgspec

    from pathgate.runtime.ignore import IgnoreIndex

    _seed(tmp_path)
    async with Runtime(tmp_path, live_index=True) as live, Runtime(tmp_path) as ref:
        live.index = IgnoreIndex(tmp_path, msgspec.structs.replace(live.index.config, cache_dirs=1))
        live.live_index = index = LiveIndex(live.index)
        await assert_same(live, ref)
        before = index.relists
        (tmp_path / "src/pkg/new.py").write_text("x\n")
        await assert_same(live, ref)
        assert index.relists - before == 1  # src/pkg only, though the root node was rebuilt
        (tmp_path / ".gitignore").write_text("")
        await assert_same(live, ref)
        index.close()


class _NoWatchOnPkg(Inotify):
    """Cannot watch ``src/pkg`` (as with EACCES): it is re-listed at every query."""

    def add_watch(self, path: str, mask: int = 0) -> int:
        if path.endswith("/src/pkg"):
            raise OSError(errno.EACCES, os.strerror(errno.EACCES), path)
        return super().add_watch(path) if mask == 0 else super().add_watch(path, mask)


@pytest.mark.anyio
async def test_unwatchable_directory_is_relisted_every_query(tmp_path: Path) -> None:
    _seed(tmp_path)
    async with Runtime(tmp_path, live_index=True) as live, Runtime(tmp_path) as ref:
        live.live_index = index = LiveIndex(live.index, inotify=_NoWatchOnPkg)
        await assert_same(live, ref)
        (tmp_path / "src/pkg/new.py").write_text("x\n")  # no event can tell
        (tmp_path / "src/pkg/sub").mkdir()
        (tmp_path / "src/pkg/sub/deep.py").write_text("x\n")
        await assert_same(live, ref)
        shutil.rmtree(tmp_path / "src/pkg")
        await assert_same(live, ref)
        assert index.disabled is None and index.resets == 0
        index.close()


@pytest.mark.anyio
@pytest.mark.parametrize("budget", [1, 3, 5, 8])
async def test_walk_budget_stops_where_the_walk_stops(tmp_path: Path, budget: int,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    import pathgate.runtime.tools._discover as discover

    _seed(tmp_path)
    for i in range(4):
        (tmp_path / f"src/pkg/m{i}.py").write_text("x\n")
        (tmp_path / f"d{i}").mkdir()
        (tmp_path / f"d{i}/.env.{i}").write_text("S=1\n")  # secrets are not counted
    monkeypatch.setattr(discover, "WALK_BUDGET", budget)
    async with Runtime(tmp_path, live_index=True) as live, Runtime(tmp_path) as ref:
        for pat in ("**", "**/*.py", "*"):
            a, b = await live.glob(pat, limit=0), await ref.glob(pat, limit=0)
            assert a == b, pat
        assert (await live.glob("**", limit=0)).walk_stopped_early


@pytest.mark.anyio
async def test_edit_storm_with_twenty_agents(tmp_path: Path) -> None:
    """Edits (files, directories, renames, .gitignore rewrites, symlink swaps) while 20
    agents glob and list: no result ever names a secret or leaves the project; after the
    storm the kept set equals git's (secrets aside) and a fresh walk's."""
    import random
    import subprocess

    root = tmp_path / "p"
    root.mkdir()
    _seed(root)
    env = {**os.environ, "GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1"}
    git_init(root, env=env)
    policy = Policy(defaults=(), excludes_file="/dev/null")
    rng = random.Random(15)

    def storm() -> None:
        for _ in range(150):
            kind, d, name = rng.choice(_STORM), rng.choice(_DIRS), rng.choice(_NAMES)
            extra: tuple[Any, ...] = {
                "rename": (rng.choice(_DIRS), rng.choice(_NAMES)),
                "gitignore": (rng.sample(_RULES, 2),),
                "symlink": (rng.choice(("in", "secret")),),
            }.get(kind, ())
            _apply(root, tmp_path, (kind, d, name, *extra))

    async def agent(i: int, live: Runtime) -> None:
        while not done.is_set():
            if i % 2:
                names = list((await live.glob("**", limit=0)).matches)
            else:
                names = [e.name for e in (await live.list_directory(_DIRS[i % len(_DIRS)] or ".")).entries]
            assert not any(n.endswith(".env") or n.startswith(("..", "/")) for n in names)
            await anyio.sleep(0)

    done = anyio.Event()
    async with Runtime(root, policy, live_index=True) as live, Runtime(root, policy) as ref:
        async with anyio.create_task_group() as tg:
            for i in range(20):
                tg.start_soon(agent, i, live)
            await anyio.to_thread.run_sync(storm)
            done.set()
        await assert_same(live, ref)
        out = subprocess.run(["git", "-C", str(root), "ls-files", "-o", "--exclude-standard", "-z"],
                             check=True, env=env, capture_output=True).stdout
        git = {p for p in os.fsdecode(out).split("\0") if p and not p.endswith(".env")
               and not (root / p).is_symlink()}
        mine = {m for m in (await live.glob("**", limit=0)).matches if not (root / m).is_symlink()}
        assert mine == git


_STORM = ("file", "file", "mkdir", "rm", "rename", "gitignore", "symlink")


@pytest.mark.parametrize("budget", [3, 5, 8])
def test_host_filtered_entries_do_not_cut_the_replay(tmp_path: Path, budget: int,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """With a host filter the replay is judged on the loop before the budget is charged:
    the index answers what a walk answers (no entries silently missing, the same
    ``walk_stopped_early``), however many host-filtered files there are."""
    import pathgate.runtime.tools._discover as discover

    for i in range(4):
        (tmp_path / f"a{i}").mkdir()
        for j in range(3):
            (tmp_path / f"a{i}/hidden{j}.txt").write_text("x\n")
        (tmp_path / f"a{i}/m{i}.py").write_text("x\n")
    monkeypatch.setattr(discover, "WALK_BUDGET", budget)
    policy = Policy(host_filter=lambda p: "hidden" not in p)

    async def main() -> None:
        async with Runtime(tmp_path, policy, live_index=True) as live, Runtime(tmp_path, policy) as ref:
            for _ in range(2):  # the first scan, then a warm replay
                assert await live.glob("**", limit=0) == await ref.glob("**", limit=0)

    anyio.run(main)


# -- warm globs: stored verdicts, remembered counts inside excluded directories -----------------


def _seed_excluded(root: Path) -> None:
    (root / "node_modules/a/b").mkdir(parents=True)
    (root / "node_modules/a/b/x.js").write_text("x\n")
    (root / "node_modules/y.js").write_text("x\n")
    (root / "node_modules/.env").write_text("S=1\n")
    (root / "src").mkdir()
    (root / "src/m.js").write_text("x\n")
    (root / ".gitignore").write_text("node_modules/\n")
    time.sleep(0.05)  # later changes get a directory ctime of their own (a timestamp tick)


@pytest.mark.anyio
async def test_excluded_counts_are_remembered_until_a_change_inside(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A warm glob reuses the listing of an excluded directory while the secret-inode
    registry's snapshot vouches for it; any change deep inside (no watch there) is seen by
    the next query, whose answer equals a fresh walk's."""
    monkeypatch.setattr(_counts, "RACY_NS", 0)  # the seeding is older than a tick already
    monkeypatch.setattr(_watches, "RACY_NS", 0)  # (the first scan's directories too)
    _seed_excluded(tmp_path)
    edits = [
        lambda: (tmp_path / "node_modules/a/b/z.js").write_text("x\n"),
        lambda: (tmp_path / "node_modules/a/b/x.js").unlink(),
        lambda: os.rename(tmp_path / "node_modules/a/b", tmp_path / "node_modules/c"),
        lambda: (tmp_path / "node_modules/c/.env.js").write_text("S=1\n"),
        lambda: shutil.rmtree(tmp_path / "node_modules/c"),
    ]
    async with Runtime(tmp_path, live_index=True) as live, Runtime(tmp_path) as ref:
        index = live.live_index
        assert index is not None
        await live.list_directory(".")  # the first scan (its answer is a replay)
        for edit in [None, *edits]:
            if edit is not None:
                edit()
            listed = index.counts.listed
            a = await live.glob("**/*.js", limit=0)
            assert a == await ref.glob("**/*.js", limit=0)
            assert index.counts.listed == listed + 1  # listed after the change
            reused = index.counts.reused_outcomes
            assert await live.glob("**/*.js", limit=0) == a
            # the whole count is reused: nothing listed, no listing even looked up
            assert (index.counts.listed, index.counts.reused_outcomes) == (listed + 1, reused + 1)
            assert await live.glob("**/*.js", path="src", limit=0) == await ref.glob("**/*.js", path="src", limit=0)
            assert await live.glob("**/*.js", limit=0) == a
            time.sleep(0.02)  # the next edit's ctime differs from the listed one's


@pytest.mark.anyio
async def test_remembered_excluded_listings_counted_per_directory(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A warm glob matches a remembered listing of plain files as one list: counts, first
    examples (across directories, in walk order) and notes equal a fresh walk's, with
    listings holding odd entries (a symlink, a ``.git`` path) judged file by file between
    them, and secrets never counted."""
    monkeypatch.setattr(_counts, "RACY_NS", 0)
    monkeypatch.setattr(_watches, "RACY_NS", 0)  # (counts below assume no racy re-list)
    for d in ("a", "b", "c", "d", "e"):
        (tmp_path / f"{d}/node_modules/p").mkdir(parents=True)
        for i in range(4):
            (tmp_path / f"{d}/node_modules/p/f{i}.js").write_text("x\n")
            (tmp_path / f"{d}/node_modules/g{i}.txt").write_text("x\n")
    (tmp_path / "b/node_modules/link.js").symlink_to("../../d/node_modules/.env")
    (tmp_path / "c/node_modules/.git").mkdir()
    (tmp_path / "c/node_modules/.git/h.js").write_text("x\n")
    (tmp_path / "d/node_modules/.env").write_text("S=1\n")
    (tmp_path / ".gitignore").write_text("node_modules/\n")
    time.sleep(0.05)
    async with Runtime(tmp_path, live_index=True) as live, Runtime(tmp_path) as ref:
        index = live.live_index
        assert index is not None
        await live.list_directory(".")  # the first scan (its answer is a replay)
        for pat in ("**", "**/*.js", "**/f[12]*", "**/*.txt", "**/.env"):
            for _ in range(2):  # listed, then remembered
                got = await live.glob(pat, limit=0)
                assert got == await ref.glob(pat, limit=0)
                assert "node_modules/.env" not in repr(got)
        # each later pattern reuses the five listings; each repeat reuses the whole count
        assert (index.counts.reused, index.counts.reused_outcomes) == (4 * 5, 5)


@pytest.mark.anyio
async def test_racy_listings_are_not_remembered(tmp_path: Path) -> None:
    """A directory changed within RACY_NS of its listing may change again without its ctime
    moving: such a listing is taken again at every query."""
    _seed_excluded(tmp_path)
    (tmp_path / "node_modules/new.js").write_text("x\n")  # just now: racy
    async with Runtime(tmp_path, live_index=True) as live, Runtime(tmp_path) as ref:
        index = live.live_index
        assert index is not None
        await live.list_directory(".")  # the first scan (its answer is a replay)
        for _ in range(2):
            assert await live.glob("**/*.js", limit=0) == await ref.glob("**/*.js", limit=0)
        assert (index.counts.listed, index.counts.reused) == (2, 0)


@pytest.mark.anyio
async def test_registry_validated_by_events_and_unwatched_directories(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The secret-inode registry is re-validated in full only after an event (or a change
    in a directory the index does not watch); either way a new hard link of a secret is
    neither listed nor counted, exactly as by a fresh walk."""
    monkeypatch.setattr(_watches, "RACY_NS", 0)  # (counts below assume no racy re-list)
    _seed_excluded(tmp_path)
    async with Runtime(tmp_path, live_index=True) as live, Runtime(tmp_path) as ref:
        reg = live.pipeline.secret_inodes(live.root)
        assert reg is not None
        calls = 0
        current = reg.current

        def counting() -> Any:
            nonlocal calls
            calls += 1
            return current()

        reg.current = counting  # type: ignore[method-assign]
        await live.glob("**", limit=0)
        await live.glob("**", limit=0)  # takes in the first scan's watches: validated once more
        calls = 0
        assert await live.glob("**", limit=0) == await ref.glob("**", limit=0)
        assert calls == 0  # no event, excluded directories unchanged: nothing re-validated
        for link in ("src/alias.txt", "node_modules/a/alias.js"):  # watched, then not
            os.link(tmp_path / "node_modules/.env", tmp_path / link)
            calls = 0
            for pat in ("**", "**/*.js", "**/*.txt"):
                got = await live.glob(pat, limit=0)
                assert got == await ref.glob(pat, limit=0)
                assert "alias" not in repr(got)
            assert calls >= 1


@pytest.mark.parametrize("pattern", ["**", "**/*.py", "**/é*", "**/?.py", "**/src/**/*.py",
                                     "**/[!a]*", "**/*a*b*c*d*e*f*", "**/*a*/**/*b*c*d*e*f*",
                                     "**/*.PY", "**/*a.p[y]", "**/*\\*", "**/*.é", "**/*cdef"])
@pytest.mark.parametrize("ascii_only", [True, False])
def test_flat_select_equals_path_matching(pattern: str, ascii_only: bool) -> None:
    """The list-at-once match of the flattened records (:func:`select_for`) is, path for
    path, the pattern's own match, on ASCII and non-ASCII relpaths."""
    from pathgate.runtime._live._records import Flat
    from pathgate.runtime.tools._live_glob import select_for
    from pathgate.runtime.tools._pattern import compile_glob

    paths = ["a.py", "src/a.py", "src/pkg/b.py", "x/ab/cdef.txt", "abcdef", "ba/x/abcdef",
             ".env", "src/.hidden/a.py", "deep/a/b/c/d/e/f/g.py", "a/bcdef", ".py", "x/.py",
             "a.py/b", "b/a.PY", "c*"]
    if not ascii_only:
        paths += ["é.py", "src/é/a.py", "src/é.txt", "ü/ab/cdéf", "x.é", "é/.py"]
    paths.sort()
    flat = Flat(paths, ascii_only, 0, [])
    pat = compile_glob(pattern)
    select = select_for(pat)
    if select is None:  # no single regex: the glob matches path by path
        assert pat._whole is None
        return
    assert select(flat) == [p for p in paths if pat.match(p)]


def test_flattened_records_follow_changes(tmp_path: Path) -> None:
    """The flattened records are rebuilt after any change: a warm glob sees a new file, a
    removed one, a directory turned ignored and a file turned secret-adjacent at once."""
    _seed(tmp_path)

    async def run() -> None:
        async with Runtime(tmp_path, live_index=True) as live, Runtime(tmp_path) as ref:
            for _ in range(2):
                assert await live.glob("**", limit=0) == await ref.glob("**", limit=0)
            (tmp_path / "src/pkg/new.py").write_text("x\n")
            (tmp_path / "src/b.log").unlink()
            assert await live.glob("**/*.py", limit=0) == await ref.glob("**/*.py", limit=0)
            (tmp_path / "src/.gitignore").write_text("pkg/\n")
            for pat in ("**", "**/*.py"):
                got = await live.glob(pat, limit=0)
                assert got == await ref.glob(pat, limit=0)
                assert "src/pkg/new.py" not in got.matches

    anyio.run(run)


@pytest.mark.anyio
async def test_warm_glob_outcome_kept_until_the_records_change(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The part of a warm glob the flattened records leave to the per-entry loop (records
    with an ignored entry, a symlink, a secret) is kept per pattern until any record
    changes; symlinks are still judged at every query (a target inside an excluded
    directory changes with no event), so every answer equals a fresh walk's."""
    monkeypatch.setattr(_watches, "RACY_NS", 0)  # (counts below assume no racy re-list)
    _seed_excluded(tmp_path)
    (tmp_path / "src/a.log").write_text("x\n")
    (tmp_path / "src/.env").write_text("S=1\n")
    (tmp_path / "src/sub").mkdir()
    (tmp_path / "src/sub/c.js").write_text("x\n")
    (tmp_path / "src/ln.js").symlink_to("../node_modules/y.js")
    (tmp_path / ".gitignore").write_text("node_modules/\n*.log\n")
    async with Runtime(tmp_path, live_index=True) as live, Runtime(tmp_path) as ref:
        index = live.live_index
        assert index is not None

        async def same(expect_scans: int) -> None:
            for pat in ("**", "**/*.js", "**/*.log"):
                got = await live.glob(pat, limit=0)
                assert got == await ref.glob(pat, limit=0)
                assert ".env" not in repr(got)
            assert index.odd_scans == expect_scans

        await live.list_directory(".")  # the first scan (its answer is a replay)
        await same(3)
        await same(3)  # kept: no record changed
        before = await live.glob("**/*.js", limit=0)
        # the link's target becomes a directory: no event reaches a watch, still judged
        (tmp_path / "node_modules/y.js").unlink()
        (tmp_path / "node_modules/y.js").mkdir()
        await same(3)
        assert await live.glob("**/*.js", limit=0) != before
        (tmp_path / "src/b.log").write_text("x\n")  # a record changes: computed again
        await same(6)
        (tmp_path / "src/sub/d.js").write_text("x\n")  # a plain record changes: so does the generation
        await same(9)


def _registry_tree(root: Path) -> None:
    """Secrets, multi-linked and not, in kept, ignored and unlistable directories."""
    _seed_excluded(root)
    (root / "src/deep/er").mkdir(parents=True)
    (root / "src/deep/er/.env").write_text("S=1\n")
    os.link(root / "src/deep/er/.env", root / "src/deep/alias.txt")  # a kept secret, linked
    (root / "node_modules/a/b/id_rsa").write_text("k\n")
    os.link(root / "node_modules/a/b/id_rsa", root / "node_modules/copy")  # an ignored one
    (root / "src/plain.txt").write_text("x\n")
    (root / ".git").mkdir(exist_ok=True)
    (root / ".git/.env").write_text("S=1\n")
    os.link(root / ".git/.env", root / ".git/x")  # never looked at
    (root / "src/ln").symlink_to("deep")
    (root / "locked").mkdir()
    (root / "locked/f.txt").write_text("x\n")


@pytest.mark.anyio
@pytest.mark.parametrize("locked", [False, True])
async def test_registry_seeded_from_the_first_scan_equals_its_own_build(
        tmp_path: Path, locked: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """The secret-inode registry's first snapshot, built from the live index's first scan
    (kept directories not listed twice), is the snapshot the registry's own walk takes:
    the same directories with the same signatures, the same multi-linked secrets, the
    same fail-closed state (an unlistable directory); the answers equal a fresh walk's."""
    seeded_by: list[Any] = []
    real = SecretInodes.seed

    def spy(self: SecretInodes, *args: Any, **kwargs: Any) -> Any:
        seeded_by.append(got := real(self, *args, **kwargs))
        return got

    monkeypatch.setattr(SecretInodes, "seed", spy)
    _registry_tree(tmp_path)
    if locked:
        if os.geteuid() == 0:
            pytest.skip("root lists every directory")
        (tmp_path / "locked").chmod(0)
    try:
        async with Runtime(tmp_path, live_index=True) as live, Runtime(tmp_path) as ref:
            assert await live.glob("**", limit=0) == await ref.glob("**", limit=0)
            # (seeded in the first scan's watch thread: the next query takes it in)
            assert await live.glob("**", limit=0) == await ref.glob("**", limit=0)
            reg = live.pipeline.secret_inodes(live.root)
            assert reg is not None and reg.builds == 1
            assert len(seeded_by) == 1 and seeded_by[0] is not None
            seeded = reg.current()
            assert reg.builds == 1  # still valid
            own = SecretInodes(live.root, reg.is_secret)._build()
            assert seeded.dirs == own.dirs
            assert (seeded.inodes, seeded.overflow) == (own.inodes, own.overflow)
            assert (seeded.secrets, seeded.linked) == (own.secrets, own.linked)
            assert sum(1 for sig in seeded.secrets.values() if sig[1] > 1) == 2  # multi-linked
            assert "src/deep/alias.txt" not in repr(await live.glob("**", limit=0))
    finally:
        (tmp_path / "locked").chmod(0o755)


@pytest.mark.anyio
async def test_registry_not_seeded_after_a_change(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A first scan whose listings were re-listed (an event drained) before the registry
    was asked does not seed it: the registry walks itself, and sees the change."""
    monkeypatch.setattr(SecretInodes, "seed", lambda *_a: pytest.fail("seeded"))
    _registry_tree(tmp_path)
    async with Runtime(tmp_path, live_index=True) as live, Runtime(tmp_path) as ref:
        index = live.live_index
        assert index is not None
        assert index.entries("") is not None  # the first scan, no registry asked
        (tmp_path / "src/x").mkdir()
        (tmp_path / "src/x/.npmrc").write_text("t\n")
        os.link(tmp_path / "src/x/.npmrc", tmp_path / "src/x/npmrc.txt")
        got = await live.glob("**", limit=0)
        assert got == await ref.glob("**", limit=0)
        assert "npmrc.txt" not in repr(got)
        reg = live.pipeline.secret_inodes(live.root)
        assert reg is not None
        own = SecretInodes(live.root, reg.is_secret)._build()
        assert reg.current().inodes == own.inodes
        assert sum(1 for sig in own.secrets.values() if sig[1] > 1) == 3  # multi-linked secrets


def test_registry_not_seeded_without_a_root_record(tmp_path: Path) -> None:
    """A first scan that recorded no root (the root itself excluded: fail-closed) seeds
    nothing: an empty seed would vouch for a project it never listed."""
    _registry_tree(tmp_path)
    rt = Runtime(tmp_path)
    index = LiveIndex(rt.index)
    reg = SecretInodes(str(tmp_path), rt.pipeline.secrets.is_secret)
    try:
        assert index.entries("") is not None
        seed = index._seed
        assert seed is not None and index._seeded(reg) is not None  # the normal case seeds
        reg = SecretInodes(str(tmp_path), rt.pipeline.secrets.is_secret)
        index._seed = seed
        root = index._dirs.pop("")
        assert index._seeded(reg) is None and reg.builds == 0
        index._dirs[""] = root
    finally:
        index.close()


@pytest.mark.anyio
@pytest.mark.parametrize("how", ["secret-link", "oversized"])
async def test_a_kept_directorys_ignore_file_failing_closed_keeps_the_index_live(
        tmp_path: Path, how: str, caplog: pytest.LogCaptureFixture) -> None:
    """Red team 6, F2: ``a/.gitignore`` becoming unreadable as rules (a hard link to a
    secret; over the size cap) once the index is live: its own re-walk found ``a`` itself
    excluded and dropped its record while the parent's still named it, so every query reset
    the index ("index inconsistent") and walked. The parent now decides it afresh."""
    (tmp_path / "a.py").write_text("x\n")
    (tmp_path / "a").mkdir()
    (tmp_path / "a/b.py").write_text("y\n")
    (tmp_path / "k.pem").write_text("K\n")
    live = Runtime(tmp_path, Policy(), live_index=True)
    ref = Runtime(tmp_path, Policy())
    await live.glob("**")
    await live.glob("**")
    if how == "secret-link":
        os.link(tmp_path / "k.pem", tmp_path / "a/.gitignore")
    else:
        with open(tmp_path / "a/.gitignore", "wb") as f:
            f.truncate(65 * 1024 * 1024)  # sparse: over the ignore-file size cap
    caplog.set_level("WARNING", logger="pathgate.live_index")
    for _ in range(3):
        await assert_same(live, ref)
    assert not [r for r in caplog.records if "inconsistent" in r.getMessage()]
    await live.aclose()

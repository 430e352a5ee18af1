"""The pruning walker: kept and excluded entries, excluded directories never entered."""

from __future__ import annotations

import os
from pathlib import Path

from pathgate.runtime._walk import DIR, FILE, SYMLINK, count_below, walk
from pathgate.runtime.fs import OsFS
from pathgate.runtime.ignore import IgnoreConfig, IgnoreIndex


class SpyFS(OsFS):
    def __init__(self) -> None:
        self.listed: list[str] = []

    def scandir_fd(self, fd: int, path: str):  # type: ignore[no-untyped-def]
        self.listed.append(path)
        return super().scandir_fd(fd, path)


def _tree(root: Path) -> None:
    for rel in ("src/a.py", "src/a.log", "build/out/x.js", "build/y", "docs/.gitignore",
                "docs/readme", "docs/tmp.md", ".git/config", "sub/.git", "n/deep/f"):
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text("x")
    (root / ".gitignore").write_text("*.log\nbuild/\nn/\n")
    (root / "docs" / ".gitignore").write_text("tmp.md\n")
    os.symlink("src", root / "link")


def test_walk_yields_kept_and_excluded(tmp_path: Path) -> None:
    _tree(tmp_path)
    fs = SpyFS()
    index = IgnoreIndex(tmp_path, IgnoreConfig.git_only(excludes_file="/dev/null"), fs=fs)
    entries = {e.relpath: e for e in walk(index.session())}
    kept = sorted(p for p, e in entries.items() if e.match is None and e.kind != DIR)
    assert kept == [".gitignore", "docs/.gitignore", "docs/readme", "link", "src/a.py"]
    assert entries["link"].kind == SYMLINK
    assert entries["src/a.log"].match is not None and entries["src/a.log"].kind == FILE
    b = entries["build"]
    assert b.kind == DIR and b.match is not None and b.match.rule is not None
    assert b.match.rule.pattern == "build/"
    assert "build/y" not in entries and "build/out" not in entries
    assert not any(p.endswith("/build") or "/build/" in p for p in fs.listed)
    assert not any(".git" in p.split("/") for p in entries)
    assert entries["docs/tmp.md"].match is not None
    assert not any(p.startswith(str(tmp_path / "link")) for p in fs.listed)


def test_walk_from_start_dir_and_descend_filter(tmp_path: Path) -> None:
    _tree(tmp_path)
    index = IgnoreIndex(tmp_path, IgnoreConfig.git_only(excludes_file="/dev/null"))
    assert [e.relpath for e in walk(index.session(), "docs")] == [
        "docs/.gitignore", "docs/readme", "docs/tmp.md"]
    got = [e.relpath for e in walk(index.session(), descend=lambda rel: rel != "src")]
    assert "src" in got and "src/a.py" not in got
    only = list(walk(index.session(), "build/out"))
    assert len(only) == 1 and only[0].match is not None and only[0].match.ancestor == "build"


def test_count_below_budget(tmp_path: Path) -> None:
    _tree(tmp_path)
    for i in range(10):
        (tmp_path / "build" / f"f{i}").write_text("x")
    session = IgnoreIndex(tmp_path, IgnoreConfig.git_only()).session()
    count, examples, lower = count_below(session, "build")
    assert (count, lower) == (12, False) and len(examples) == 3
    count, _, lower = count_below(session, "build", budget=4)
    assert lower and count <= 4


def test_walk_equals_classifier(tmp_path: Path) -> None:
    _tree(tmp_path)
    index = IgnoreIndex(tmp_path, IgnoreConfig())
    s = index.session()
    for e in walk(s):
        m = s.match(e.relpath, e.kind == DIR)
        assert m.ignored == (e.match is not None), e


def test_want_filters_files_before_deciding(tmp_path: Path) -> None:
    _tree(tmp_path)
    index = IgnoreIndex(tmp_path, IgnoreConfig(defaults=(), git_sources=False))
    full = list(walk(index.session()))

    def want(rel: str) -> bool:
        return rel.endswith((".py", ".md"))

    filtered = list(walk(index.session(), want=want))
    expected = [e for e in full if e.kind == DIR or want(e.relpath)]
    assert filtered == expected
    assert {e.relpath for e in filtered if e.kind != DIR} == {"src/a.py", "docs/tmp.md"}
    assert len(filtered) < len(full)


def test_step_pauses_the_collector_and_restores_it(tmp_path: Path) -> None:
    """A step runs with the cyclic collector paused (its allocations trigger no full
    collection), nested steps of several walkers resume it once, when the last ends, and a
    collector the process turned off stays off."""
    import gc

    from pathgate.runtime import _walk

    _tree(tmp_path)
    index = IgnoreIndex(tmp_path, IgnoreConfig.git_only(excludes_file="/dev/null"))
    seen: list[bool] = []

    class Spy(OsFS):
        def scandir_fd(self, fd: int, path: str):  # type: ignore[no-untyped-def]
            seen.append(gc.isenabled())
            return super().scandir_fd(fd, path)

    assert gc.isenabled()
    w = _walk.Walker(index.session())
    with _walk.GcPaused():  # (an enclosing pause: the step nests inside it)
        w.step()
        assert not gc.isenabled()
    assert gc.isenabled() and w.done
    spied = IgnoreIndex(tmp_path, IgnoreConfig.git_only(excludes_file="/dev/null"), fs=Spy())
    list(walk(spied.session()))
    assert seen and not any(seen) and gc.isenabled()
    gc.disable()
    try:
        seen.clear()
        list(walk(spied.session()))
        assert seen and not gc.isenabled()
        with _walk.GcPaused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_a_pause_held_on_end_by_other_steps_still_collects(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Walks of other threads that never leave a gap keep the collector paused; a step
    that ends while the pause has lasted ``GC_MAX_PAUSE`` collects all the same."""
    import gc

    from pathgate.runtime import _walk

    _tree(tmp_path)
    index = IgnoreIndex(tmp_path, IgnoreConfig.git_only(excludes_file="/dev/null"))
    runs: list[int] = []

    def seen(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            runs.append(info["generation"])

    gc.callbacks.append(seen)
    try:
        with _walk.GcPaused():  # (another thread's step, never ending)
            monkeypatch.setattr(_walk, "GC_MAX_PAUSE", 3600.0)
            list(walk(index.session()))
            assert runs == [] and not gc.isenabled()
            monkeypatch.setattr(_walk, "GC_MAX_PAUSE", 0.0)
            list(walk(index.session()))
            assert 2 in runs and not gc.isenabled()  # a full collection; still paused
        assert gc.isenabled()
    finally:
        gc.callbacks.remove(seen)

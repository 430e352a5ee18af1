"""Absolute spellings are judged as written too: ``<root>/private/../src`` (a host-filtered
directory) and ``<root>/.env.d/../src`` (a secret-named one) are a bare ``[BLOCKED]`` in
every tool, whether the directory exists or not — the answer cannot depend on it."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import anyio
import pytest

from pathgate import Policy, Runtime


def _tree(root: Path, with_dirs: bool) -> Path:
    (root / "src").mkdir(parents=True)
    (root / "src" / "a.py").write_text("needle\n")
    if with_dirs:
        (root / "private").mkdir()
        (root / "private" / "x.py").write_text("needle\n")
        (root / ".env.d").mkdir()
    return root


async def _answers(root: Path) -> list[Any]:
    rt = Runtime(root, Policy(host_filter=lambda p: not p.startswith("private"), allow_writes=True))
    out: list[Any] = []
    for spelling in (f"{root}/private/../src", f"{root}/.env.d/../src"):
        for renderer in ("sentinel", "verbose", "structured"):
            out.append(await rt.call("glob", {"pattern": "**", "path": spelling}, renderer=renderer))
            out.append(await rt.call("list_directory", {"path": spelling}, renderer=renderer))
            out.append(await rt.call("code_search", {"regex": "needle", "path": spelling}, renderer=renderer))
            out.append(await rt.call("read_files", {"paths": [spelling + "/a.py"]}, renderer=renderer))
        verdict, = await rt.check_paths([spelling + "/a.py"])
        assert verdict is not None and verdict.opaque
        written = await rt.write_file(spelling + "/new.py", "x\n", agent="a")
        assert written.verdict is not None and written.verdict.opaque
    return [repr(o).replace(str(root), "<root>") for o in out]


@pytest.mark.parametrize("with_dirs", [True, False])
def test_absolute_spellings_through_opaque_names_are_blocked(tmp_path: Path, with_dirs: bool) -> None:
    root = _tree(tmp_path / "p", with_dirs)

    async def main() -> None:
        rt = Runtime(root, Policy(host_filter=lambda p: not p.startswith("private")))
        for spelling in (f"{root}/private/../src", f"{root}/.env.d/../src"):
            for tool, args in (("glob", {"pattern": "**", "path": spelling}),
                               ("list_directory", {"path": spelling}),
                               ("code_search", {"regex": "needle", "path": spelling})):
                out = await rt.call(tool, args, renderer="sentinel")
                assert out["notes"] == ["[BLOCKED]"], (tool, spelling, out)
            assert await rt.call("read_files", {"paths": [spelling + "/a.py"]}, renderer="sentinel") == \
                {spelling + "/a.py": "[BLOCKED]"}

    anyio.run(main)
    assert not os.path.exists(root / "src" / "new.py")


def test_answers_do_not_depend_on_what_exists(tmp_path: Path) -> None:
    a = anyio.run(_answers, _tree(tmp_path / "with", True))
    b = anyio.run(_answers, _tree(tmp_path / "without", False))
    assert [x.replace("/with", "/X") for x in a] == [x.replace("/without", "/X") for x in b]

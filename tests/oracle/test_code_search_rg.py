"""code_search's hits equal ripgrep's on the shared corpora (git's ignore sources only), apart
from the secret files pathgate never opens. Skipped when rg is not installed or the shared
folder is absent."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import anyio
import pytest

from pathgate import Policy, Runtime

RG_ARGS = ["--no-config", "-n", "--no-heading", "--with-filename", "--color", "never", "--hidden",
           "-g", "!.git", "-g", "!.truth", "--no-ignore-dot", "--no-ignore-global", "--no-ignore-parent"]
PATTERNS = ["lambda delta", r"(lambda|gamma)\s+(alpha|delta)\b", r"^\w+ (pa|re)\w*$"]


@pytest.fixture(scope="module")
def rg() -> str:
    found = shutil.which("rg")
    if found is None:
        pytest.skip("needs ripgrep as the oracle (apt-get install -y ripgrep)")
    return found


def rg_hits(rg: str, tree: Path, regex: str) -> set[tuple[str, int]]:
    out = subprocess.run([rg, *RG_ARGS, "-e", regex], cwd=tree, capture_output=True, check=False,
                         env={"GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1", "PATH": "/usr/bin:/bin"})
    hits: set[tuple[str, int]] = set()
    for line in out.stdout.decode("utf-8", "surrogateescape").splitlines():
        path, lineno, _ = line.split(":", 2)
        hits.add((path.removeprefix("./"), int(lineno)))
    return hits


def check(rg: str, tree: Path, regex: str) -> None:
    rt = Runtime(tree, policy=Policy(read_budget=1 << 40).git_only())  # every hit: no output budget
    res = anyio.run(lambda: rt.code_search(regex, max_results=0))
    got = {(h.path, h.line) for h in res.hits if not h.path.startswith(".truth/")}
    want = rg_hits(rg, tree, regex)
    assert got <= want, sorted(got - want)[:5]
    missing = {p for p, _ in want - got}
    assert all(rt.pipeline.is_secret(p) for p in missing), sorted(p for p in missing if not rt.pipeline.is_secret(p))
    assert len(got) > 0


@pytest.mark.parametrize("regex", PATTERNS)
def test_vercel_hits_equal_rg(vercel_tree: Path, rg: str, regex: str) -> None:
    check(rg, vercel_tree, regex)


@pytest.mark.slow
@pytest.mark.parametrize("regex", PATTERNS)
def test_eugenp_hits_equal_rg(eugenp_tree: Path, rg: str, regex: str) -> None:
    check(rg, eugenp_tree, regex)

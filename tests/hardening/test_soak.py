"""A smaller run of ``benchmarks/soak.py``: agents on one runtime while ``.gitignore`` files
are rewritten; every ignore decision equals git's for the file before or after a rewrite;
descriptors and memory stay flat."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import anyio
import pytest

SOAK = Path(__file__).resolve().parents[2] / "benchmarks" / "soak.py"


def load_soak() -> ModuleType:
    spec = importlib.util.spec_from_file_location("pathgate_bench_soak", SOAK)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow
def test_soak_small(git_bin: str, tmp_path: Path) -> None:
    soak = load_soak()
    result = anyio.run(soak.soak, tmp_path / "p", 20, 100, 0.005, git_bin)
    assert result["error_count"] == 0, result["errors"]
    assert result["calls"] == 2000 and result["rewrites"] > 50
    assert result["fd_after"] <= result["fd_before"] + 2, result
    assert result["rss_after_mib"] - result["rss_before_mib"] < 64, result

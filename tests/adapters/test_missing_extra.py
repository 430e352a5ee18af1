"""Importing an adapter without its framework names the extra to install."""

from __future__ import annotations

import importlib
import sys

import pytest

CASES = [
    ("pathgate.adapters.langchain", "langchain", "pip install 'pathgate[langchain]'"),
    ("pathgate.adapters.pydantic_ai", "pydantic_ai", "pip install 'pathgate[pydantic-ai]'"),
    ("pathgate.adapters.openai_agents", "agents", "pip install 'pathgate[openai-agents]'"),
]


@pytest.mark.parametrize(("module", "framework", "hint"), CASES)
def test_missing_framework_names_the_extra(monkeypatch: pytest.MonkeyPatch, module: str, framework: str,
                                           hint: str) -> None:
    for name in [m for m in sys.modules if m == framework or m.startswith(framework + ".")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, framework, None)  # "not installed"
    if module in sys.modules:
        monkeypatch.delitem(sys.modules, module)
    with pytest.raises(ModuleNotFoundError) as info:
        importlib.import_module(module)
    assert hint in str(info.value) and "is not installed" in str(info.value)
    assert (info.value.name or "").split(".")[0] == framework

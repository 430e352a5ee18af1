"""The public surface: a sorted ``__all__``, each export presented as ``pathgate.X``, typed."""

import inspect
from pathlib import Path

import pathgate


def test_all_is_sorted_and_exported() -> None:
    assert list(pathgate.__all__) == sorted(pathgate.__all__)
    for name in pathgate.__all__:
        obj = getattr(pathgate, name)
        if inspect.isclass(obj) or inspect.isfunction(obj):
            assert obj.__module__ == "pathgate", name


def test_no_private_names_exported() -> None:
    assert not [n for n in pathgate.__all__ if n.startswith("_")]


def test_package_is_typed() -> None:
    assert (Path(pathgate.__file__).parent / "py.typed").is_file()


def test_status_sentinels_are_bracketed() -> None:
    for status in pathgate.Status:
        assert status.value.startswith("[") and status.value.endswith("]")
    assert pathgate.Status.BLOCKED.value == "[BLOCKED]"

import pathgate


def test_all_is_sorted_and_exported() -> None:
    assert list(pathgate.__all__) == sorted(pathgate.__all__)
    for name in pathgate.__all__:
        obj = getattr(pathgate, name)
        assert getattr(obj, "__module__", "pathgate") == "pathgate", name


def test_status_sentinels_are_bracketed() -> None:
    for status in pathgate.Status:
        assert status.value.startswith("[") and status.value.endswith("]")
    assert pathgate.Status.BLOCKED.value == "[BLOCKED]"

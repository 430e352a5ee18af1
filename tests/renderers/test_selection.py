"""Per-model selection and the renderer registry."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import msgspec
import pytest

from pathgate.errors import ConfigError
from pathgate.renderers import (
    DEFAULT_RENDERER,
    Renderer,
    RendererRegistry,
    RendererSelector,
    SentinelRenderer,
    StructuredRenderer,
    VerboseRenderer,
    default_registry,
    register_renderer,
)
from pathgate.verdicts import FileResult, Verdict


class Rule(msgspec.Struct, frozen=True):
    """Shaped like pathgate.config.RendererRule."""

    model: str
    renderer: str


class UpperRenderer:
    name = "upper"
    read_files_description = "upper"

    def __init__(self, *, suffix: str = "") -> None:
        self.suffix = suffix

    def render_read(self, results: Sequence[FileResult], /) -> Mapping[str, Any]:
        return {r.path: (r.content or "").upper() + self.suffix for r in results}

    def render_verdict(self, path: str, verdict: Verdict, /) -> str:
        return verdict.status.sentinel

    def output_schema(self) -> None:
        return None


RULES = [
    Rule("gpt-4o-mini*", "structured"),
    Rule("gpt-4o*", "sentinel"),
    Rule("claude-*", "verbose"),
    Rule("gpt-4o-mini-legacy", "sentinel"),  # shadowed by the first rule
]


def test_first_matching_rule_wins() -> None:
    sel = RendererSelector(RULES, default="sentinel")
    assert isinstance(sel.select("gpt-4o-mini-2024-07-18"), StructuredRenderer)
    assert isinstance(sel.select("gpt-4o-mini-legacy"), StructuredRenderer)
    assert isinstance(sel.select("gpt-4o"), SentinelRenderer)
    assert isinstance(sel.select("claude-sonnet-4"), VerboseRenderer)


def test_default_when_no_rule_matches_or_model_unknown() -> None:
    sel = RendererSelector(RULES, default="structured")
    assert sel.name_for("llama-3") == "structured"
    assert sel.name_for(None) == "structured"
    assert sel.name_for("") == "structured"


def test_default_default_is_verbose() -> None:
    assert DEFAULT_RENDERER == "verbose"
    assert RendererSelector().name_for("anything") == "verbose"


def test_matching_is_case_sensitive_glob() -> None:
    sel = RendererSelector([("GPT-*", "structured"), ("o[13]-*", "sentinel")], default="verbose")
    assert sel.name_for("gpt-4") == "verbose"
    assert sel.name_for("GPT-4") == "structured"
    assert sel.name_for("o3-mini") == "sentinel"
    assert sel.name_for("o2-mini") == "verbose"


def test_tuples_and_rule_objects_both_work_and_are_listed_in_order() -> None:
    sel = RendererSelector([("a*", "sentinel"), Rule("b*", "structured")])
    assert sel.rules == (("a*", "sentinel"), ("b*", "structured"))


def test_each_renderer_is_built_once_and_shared() -> None:
    sel = RendererSelector([("a", "sentinel"), ("b", "sentinel")], default="sentinel")
    assert sel.select("a") is sel.select("b") is sel.select(None)
    assert set(sel.renderers) == {"sentinel"}


@pytest.mark.parametrize(("rules", "default", "key"), [
    ([("gpt-*", "verbos")], "verbose", "renderers.rules[0].renderer"),
    ([("a", "sentinel"), ("b", "fancy")], "verbose", "renderers.rules[1].renderer"),
    ([], "xml", "renderers.default"),
])
def test_unknown_renderer_name_fails_at_construction_naming_it(
        rules: list[tuple[str, str]], default: str, key: str) -> None:
    with pytest.raises(ConfigError) as info:
        RendererSelector(rules, default=default)
    bad = default if key == "renderers.default" else rules[-1][1]
    assert repr(bad) in str(info.value)
    assert info.value.key == key
    assert "known renderers: sentinel, structured, verbose" in str(info.value)


def test_empty_model_pattern_is_a_config_error() -> None:
    with pytest.raises(ConfigError) as info:
        RendererSelector([("", "verbose")])
    assert info.value.key == "renderers.rules[0].model"


def test_host_renderer_with_options_via_a_private_registry() -> None:
    registry = RendererRegistry.with_builtins()
    registry.register("upper", UpperRenderer)
    sel = RendererSelector([("local-*", "upper")], registry=registry,
                           options={"upper": {"suffix": "!"}})
    renderer = sel.select("local-7b")
    assert isinstance(renderer, Renderer)
    assert renderer.render_read([FileResult(path="a", content="hi")]) == {"a": "HI!"}
    assert "upper" not in default_registry()


def test_bad_options_are_a_config_error() -> None:
    with pytest.raises(ConfigError, match="bad options for renderer 'sentinel'"):
        RendererSelector(default="sentinel", options={"sentinel": {"colour": "red"}})


def test_options_for_an_unknown_renderer_are_a_config_error() -> None:
    with pytest.raises(ConfigError, match="'nope'"):
        RendererSelector(options={"nope": {}})


def test_register_renderer_in_the_process_registry() -> None:
    name = "test-selection-upper"
    register_renderer(name, UpperRenderer)
    assert RendererSelector(default=name).name_for(None) == "upper"
    with pytest.raises(ConfigError, match="already registered"):
        register_renderer(name, UpperRenderer)
    register_renderer(name, UpperRenderer, replace=True)


@pytest.mark.parametrize("name", ["", " verbose", 3])
def test_bad_names_are_rejected(name: Any) -> None:
    with pytest.raises(ConfigError):
        RendererRegistry().register(name, UpperRenderer)


def test_builtins_satisfy_the_protocol() -> None:
    for cls in (SentinelRenderer, VerboseRenderer, StructuredRenderer):
        assert isinstance(cls(), Renderer)
    assert default_registry().names()[:3] == ("sentinel", "structured", "verbose") or {
        "sentinel", "structured", "verbose"} <= set(default_registry().names())


# --- config round trip (pathgate.toml [renderers] → Policy → RendererSelector) --------------

def _selector_from_toml(tmp_path: Any, toml: str) -> RendererSelector:
    from pathgate.config import load_config

    (tmp_path / "pathgate.toml").write_text(toml, encoding="utf-8")
    policy = load_config(tmp_path)
    return RendererSelector(policy.renderers, policy.default_renderer)


def test_config_round_trip(tmp_path: Any) -> None:
    sel = _selector_from_toml(tmp_path, (
        '[renderers]\n'
        'default = "sentinel"\n'
        'rules = [\n'
        '  { model = "gpt-4o-mini*", renderer = "structured" },\n'
        '  { model = "claude-*", renderer = "verbose" },\n'
        ']\n'
    ))
    assert sel.rules == (("gpt-4o-mini*", "structured"), ("claude-*", "verbose"))
    assert sel.name_for("gpt-4o-mini-2024-07-18") == "structured"
    assert sel.name_for("claude-opus-4") == "verbose"
    assert sel.name_for("llama") == "sentinel"
    assert sel.name_for(None) == "sentinel"


def test_config_without_renderers_defaults_to_verbose(tmp_path: Any) -> None:
    assert _selector_from_toml(tmp_path, "size_limit = 1000\n").name_for("any") == "verbose"


def test_config_unknown_renderer_name_is_named(tmp_path: Any) -> None:
    with pytest.raises(ConfigError) as info:
        _selector_from_toml(tmp_path, (
            '[renderers]\nrules = [{ model = "a*", renderer = "verbose" },'
            ' { model = "b*", renderer = "structurd" }]\n'))
    assert "'structurd'" in str(info.value)
    assert info.value.key == "renderers.rules[1].renderer"

"""How ``--config FILE`` becomes argv, per vLLM version (FlexibleArgumentParser.load_config_file;
reference: ../shared/reference/vllm-behavior.md §4.1).

0.33.0's behaviour was checked by running vLLM's own ``argparse_utils.py``; the history (lists from
0.10.2, mappings as JSON from 0.16.0, the ``--no-key`` attempt from 0.28.0) is from the reference.
"""

from __future__ import annotations

from typing import Any

import pytest

from vlint.argspec import config_expand
from vlint.argspec.parse import ParsedArgs
from vlint.core.unresolved import UNRESOLVED
from vlint.sources.vllm_yaml import load_config


def expand(spec_factory, text: str, version: str = "0.33.0", *, top_level: bool = True):
    spec = spec_factory(version)
    dropped: list[tuple[Any, str]] = []
    issues: list[Any] = []
    words = list(config_expand.expand(load_config(text, "serve.yaml"), spec, dropped, issues, top_level=top_level))
    return words, dropped, issues


def texts(words) -> list[str]:
    return [w[0] for w in words]


def values(parsed: ParsedArgs) -> dict[str, Any]:
    return {dest: s.value for dest, s in parsed.settings.items()}


# -- scalars ------------------------------------------------------------------------------------------
def test_scalars_become_flag_and_str_value(spec_factory) -> None:
    words, dropped, issues = expand(
        spec_factory, "max-model-len: 4096\ngpu_memory_utilization: 0.90\nseed: null\nlr: 1.0e-5\nx: 16k\n"
    )
    assert texts(words) == [
        "--max-model-len",
        "4096",
        "--gpu_memory_utilization",
        "0.9",
        "--seed",
        "None",
        "--lr",
        "1e-05",
        "--x",
        "16k",
    ]
    assert dropped == [] and issues == []


def test_words_carry_the_key_and_value_spans(spec_factory) -> None:
    words, _, _ = expand(spec_factory, "port: 8000\nserved-model-name:\n  - a\n  - b\n")
    got = [(t, s.line, s.column, unresolved) for t, s, unresolved, _entry in words]
    assert got == [
        ("--port", 1, 1, False),
        ("8000", 1, 7, False),
        ("--served-model-name", 2, 1, False),
        ("a", 3, 5, False),
        ("b", 4, 5, False),
    ]


# -- booleans -------------------------------------------------------------------------------------------
def test_true_is_the_flag(spec_factory) -> None:
    words, _, _ = expand(spec_factory, "enforce-eager: true\ntrust_remote_code: True\nenable-lora: yes\n")
    assert texts(words) == ["--enforce-eager", "--trust_remote_code", "--enable-lora"]


def test_false_is_dropped_by_vllm_serve(spec_factory) -> None:
    """0.33.0 tries ``--no-key`` only if the *expanding* parser has it; for vllm serve that is the
    top-level ``vllm`` parser, which has none: every false is silently dropped."""
    words, dropped, _ = expand(spec_factory, "enable-prefix-caching: false\nenforce_eager: False\n")
    assert words == []
    assert [(e.key, reason) for e, reason in dropped] == [
        ("enable-prefix-caching", "vllm serve drops every false value of a --config file"),
        ("enforce_eager", "vllm serve drops every false value of a --config file"),
    ]


def test_false_becomes_no_flag_for_the_api_server_from_0_28(spec_factory) -> None:
    words, dropped, _ = expand(spec_factory, "enable-prefix-caching: false\n", top_level=False)
    assert texts(words) == ["--no-enable-prefix-caching"] and dropped == []


def test_false_with_underscores_or_without_a_no_option_is_dropped_even_for_the_api_server(spec_factory) -> None:
    """``--no-enable_prefix_caching`` is not an option string; ``--no-seed`` does not exist."""
    words, dropped, _ = expand(spec_factory, "enable_prefix_caching: false\nseed: false\n", top_level=False)
    assert words == []
    assert [e.key for e, _ in dropped] == ["enable_prefix_caching", "seed"]


@pytest.mark.parametrize("version", ["0.10.2", "0.27.1"])
def test_false_is_dropped_before_0_28(spec_factory, version: str) -> None:
    words, dropped, _ = expand(spec_factory, "enable-prefix-caching: false\n", version, top_level=False)
    assert words == []
    ((_, reason),) = dropped
    assert reason == f"vLLM {version} drops false values of a --config file"


# -- lists ------------------------------------------------------------------------------------------------
def test_lists_become_separate_words_from_0_10_2(spec_factory) -> None:
    words, _, issues = expand(spec_factory, "served-model-name: [a, b]\ncudagraph-capture-sizes: [1, 2, 4]\n")
    assert texts(words) == ["--served-model-name", "a", "b", "--cudagraph-capture-sizes", "1", "2", "4"]
    assert issues == []


def test_empty_list_is_dropped(spec_factory) -> None:
    words, dropped, _ = expand(spec_factory, "served-model-name: []\n")
    assert words == [] and [(e.key, r) for e, r in dropped] == [("served-model-name", "an empty list is dropped")]


def test_before_0_10_2_a_list_is_one_python_repr_word(spec_factory) -> None:
    words, _, issues = expand(spec_factory, "served-model-name: [a, b]\n", "0.9.2")
    assert [(t, unresolved) for t, _, unresolved, _ in words] == [
        ("--served-model-name", False),
        ("['a', 'b']", True),
    ]
    (issue,) = issues
    assert issue.code == "VL012" and "0.10.2" in issue.message


def test_json_list_options_break_with_a_yaml_list(spec_factory) -> None:
    """``allowed-origins`` is one JSON value: vLLM fails with 'invalid loads value: http://a'."""
    words, _, issues = expand(spec_factory, "allowed-origins: ['http://a']\n")
    assert words == []
    (issue,) = issues
    assert issue.code == "VL012"
    assert issue.data == {"option": "allowed-origins", "value": ["http://a"]}
    assert "'[\"http://a\"]'" in issue.message  # the fix: write it as a JSON string


# -- mappings -----------------------------------------------------------------------------------------------
def test_mappings_become_json_from_0_16(spec_factory) -> None:
    words, _, issues = expand(spec_factory, "compilation-config:\n  mode: 3\n  pass_config: {x: true}\n")
    assert texts(words) == ["--compilation-config", '{"mode": 3, "pass_config": {"x": true}}']
    assert issues == []


def test_before_0_16_a_mapping_is_its_python_repr(spec_factory) -> None:
    words, _, issues = expand(spec_factory, "compilation-config: {mode: 3}\n", "0.15.1")
    assert [(t, unresolved) for t, _, unresolved, _ in words] == [
        ("--compilation-config", False),
        ("{'mode': 3}", True),
    ]
    (issue,) = issues
    assert issue.code == "VL012" and "0.16.0" in issue.message


# -- unresolved ----------------------------------------------------------------------------------------------
def test_unresolved_entries_stay_unresolved(spec_factory) -> None:
    text = "max-model-len: $LEN\nport: 1\n"
    spec = spec_factory()
    cfg = load_config(text, "run.sh", unresolved=[(text.index("$LEN"), text.index("$LEN") + 4)])
    words = list(config_expand.expand(cfg, spec, [], [], top_level=True))
    assert [(t, u) for t, _, u, _ in words] == [
        ("--max-model-len", False),
        ("$LEN", True),
        ("--port", False),
        ("1", False),
    ]


# -- through the parser ------------------------------------------------------------------------------------------
def test_config_through_the_parser(parse) -> None:
    p = parse(
        ["m", "--config", "serve.yaml", "--port", "9"],
        config=(
            "max_model_len: 4k\n"
            "enforce-eager: true\n"
            "enable-chunked-prefill: false\n"
            "served-model-name: [a, b]\n"
            "compilation-config: {mode: 3}\n"
            "compilation-config.cudagraph_mode: FULL\n"
            "port: 8000\n"
        ),
    )
    assert values(p) == {
        "model": "m",
        "max_model_len": 4000,
        "enforce_eager": True,
        "served_model_name": ["a", "b"],
        "compilation_config": {"cudagraph_mode": "FULL"},  # the dotted key is merged and appended last
        "port": 9,
    }
    assert [e.key for e, _ in p.dropped] == ["enable-chunked-prefill"]
    assert p.issues == []


def test_config_null_for_a_typed_option_is_vl004(parse) -> None:
    (issue,) = parse(["m", "--config", "serve.yaml"], config="max-model-len: null\n").issues
    assert issue.code == "VL004"
    assert issue.message == "argument --max-model-len: invalid human_readable_int_or_auto value: 'None'"
    assert (issue.span.path, issue.span.line) == ("serve.yaml", 1)


def test_config_null_for_an_optional_option_is_none(parse) -> None:
    assert parse(["m", "--config", "serve.yaml"], config="quantization: null\n").value("quantization") is None


def test_unknown_config_key_is_vl001_at_the_key(parse) -> None:
    p = parse(["m", "--config", "serve.yaml"], config="max-model-len: 1\nvllm-release: v2.24.0\n")
    (issue,) = p.issues
    assert issue.code == "VL001" and "--vllm-release" in issue.message
    assert (issue.span.path, issue.span.line, issue.span.column) == ("serve.yaml", 2, 1)


def test_short_alias_as_a_config_key_is_not_the_option(parse) -> None:
    """A key ``tp`` becomes ``--tp``, not ``-tp`` (vLLM: 'unrecognized arguments: --tp 2')."""
    p = parse(["m", "--config", "serve.yaml"], config="tp: 2\n")
    assert [i.code for i in p.issues] == ["VL001"]
    assert p.value("tensor_parallel_size") is None


def test_abbreviated_config_key_is_vl005(parse) -> None:
    p = parse(["m", "--config", "serve.yaml"], config="tensor-parallel: 2\n")
    assert ([i.code for i in p.issues], p.value("tensor_parallel_size")) == (["VL005"], 2)


def test_no_key_written_as_true(parse) -> None:
    """corpus: InferenceX gptoss_fp4_h100.sh — ``no-enable-prefix-caching: true`` is the literal flag."""
    assert (
        parse(["m", "--config", "serve.yaml"], config="no-enable-prefix-caching: true\n").value("enable_prefix_caching")
        is False
    )


def test_bare_config_file_launch(spec_factory) -> None:
    from vlint.argspec.parse import parse_invocation
    from vlint.core.invocation import Invocation
    from vlint.core.span import Span

    inv = Invocation(
        "vllm-config",
        "config",
        Span("serve.yaml", 1, 1),
        config=load_config("model: m\nseed: 3\nenforce-eager: false\n", "serve.yaml"),
    )
    p = parse_invocation(inv, spec_factory())
    assert values(p) == {"model": "m", "seed": 3}
    assert [e.key for e, _ in p.dropped] == ["enforce-eager"]


def test_unresolved_heredoc_value_through_the_parser(parse, spec_factory) -> None:
    from vlint.argspec.parse import parse_invocation
    from vlint.core.invocation import Invocation, Token
    from vlint.core.span import Span

    text = "max-model-len: $LEN\n"
    inv = Invocation(
        "shell",
        "vllm serve",
        Span("run.sh", 5, 1),
        args=[
            Token("m", Span("run.sh", 5, 12)),
            Token("--config", Span("run.sh", 5, 14)),
            Token("c.yaml", Span("run.sh", 5, 23)),
        ],
        config=load_config(text, "run.sh", unresolved=[(15, 19)]),
    )
    p = parse_invocation(inv, spec_factory())
    assert p.value("max_model_len") is UNRESOLVED and p.issues == []

"""Parsing argv like vLLM's FlexibleArgumentParser + argparse.

Expectations were checked against vLLM 0.33.0's own ``vllm/utils/argparse_utils.py`` (run on a
parser built from the bundled schema); the values are hard-coded here. The ``parse`` fixture
(tests/argspec/conftest.py) parses against a small synthetic spec shaped like 0.33.0's.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from vlint.argspec.parse import ParsedArgs, parse_invocation
from vlint.argspec.spec import bundled_versions, load_spec
from vlint.core.invocation import Invocation, Token
from vlint.core.span import Span
from vlint.core.unresolved import UNRESOLVED
from vlint.core.version import Version


def values(parsed: ParsedArgs) -> dict[str, Any]:
    return {dest: s.value for dest, s in parsed.settings.items()}


def codes(parsed: ParsedArgs) -> list[str]:
    return [i.code for i in parsed.issues]


# -- spelling --------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "words",
    [
        ["m", "--max-model-len", "1k"],
        ["m", "--max_model_len", "1k"],
        ["m", "--max-model-len=1k"],
        ["m", "--max_model_len=1k"],
        ["m", "--max_model-len", "1k"],
    ],
)
def test_dash_underscore_and_equals_are_the_same(parse, words: list[str]) -> None:
    p = parse(words)
    assert values(p) == {"model": "m", "max_model_len": 1000}
    assert p.issues == []


def test_the_option_keeps_its_written_spelling(parse) -> None:
    s = parse(["m", "--max_model_len=4096"]).get("max_model_len")
    assert s is not None and (s.option, s.raw, s.origin) == ("--max_model_len", "4096", "cli")


def test_underscores_in_values_are_kept(parse) -> None:
    assert values(parse(["m", "--served-model-name", "a_b", "--quantization=x_y"])) == {
        "model": "m",
        "served_model_name": ["a_b"],
        "quantization": "x_y",
    }


@pytest.mark.parametrize(
    ("words", "value"),
    [
        (["--enable-chunked-prefill"], True),
        (["--no-enable-chunked-prefill"], False),
        (["--disable-chunked-prefill"], False),
        (["--no_enable_chunked_prefill"], False),
        (["--enable-chunked-prefill", "--disable-chunked-prefill"], False),
    ],
)
def test_boolean_flags_and_their_negations(parse, words: list[str], value: bool) -> None:
    assert parse(["m", *words]).value("enable_chunked_prefill") is value


def test_store_true(parse) -> None:
    assert parse(["m", "--disable-log-stats"]).value("disable_log_stats") is True


@pytest.mark.parametrize(
    ("words", "option"),
    [
        (["--enforce-eager=true"], "--enforce-eager"),
        (["--disable-log-stats=1"], "--disable-log-stats"),
        (["--no-enforce-eager=false"], "--no-enforce-eager"),
    ],
)
def test_flag_given_a_value_is_vl004(parse, words: list[str], option: str) -> None:
    p = parse(["m", *words])
    (issue,) = p.issues
    assert issue.code == "VL004"
    assert issue.message == f"argument {option}: ignored explicit argument '{words[0].split('=')[1]}'"


def test_boolean_flag_followed_by_a_value_leaves_the_value_unrecognized(parse) -> None:
    """``--enable-chunked-prefill false``: vLLM fails with ``unrecognized arguments: false``."""
    p = parse(["m", "--enable-chunked-prefill", "false"])
    assert p.value("enable_chunked_prefill") is True
    (issue,) = p.issues
    assert issue.code == "VL001" and "false" in issue.message


# -- short options ------------------------------------------------------------------------------------
def test_short_alias(parse) -> None:
    assert values(parse(["m", "-tp", "2", "-q", "awq"])) == {
        "model": "m",
        "tensor_parallel_size": 2,
        "quantization": "awq",
    }
    assert parse(["m", "-tp=2"]).value("tensor_parallel_size") == 2


@pytest.mark.parametrize("word", ["-O3", "-O=3"])
def test_optimization_level_shorthand(parse, word: str) -> None:
    p = parse(["m", word])
    assert p.value("optimization_level") == "3"
    assert p.issues == []
    s = p.get("optimization_level")
    assert s is not None and s.option == word


def test_optimization_level_as_two_words(parse) -> None:
    p = parse(["m", "-O", "3"])
    assert (p.value("optimization_level"), p.issues) == ("3", [])


def test_single_dash_prefix_abbreviation(parse) -> None:
    p = parse(["m", "-t", "2"])
    assert p.value("tensor_parallel_size") == 2
    assert codes(p) == ["VL005"]


# -- abbreviations, unknown options --------------------------------------------------------------------------
def test_unique_prefix_is_accepted_with_vl005(parse) -> None:
    p = parse(["m", "--max-model", "4k", "--no-enable-prefix", "--trust-remote"])
    assert values(p) == {"model": "m", "max_model_len": 4000, "enable_prefix_caching": False, "trust_remote_code": True}
    assert codes(p) == ["VL005", "VL005", "VL005"]
    assert p.issues[0].data == {"option": "--max-model", "full": "--max-model-len"}
    assert p.issues[1].data == {"option": "--no-enable-prefix", "full": "--no-enable-prefix-caching"}


def test_abbreviation_with_equals(parse) -> None:
    p = parse(["m", "--gpu-memory=0.8"])
    assert p.value("gpu_memory_utilization") == 0.8 and codes(p) == ["VL005"]


def test_prefix_of_several_options_is_ambiguous_vl006(parse) -> None:
    p = parse(["m", "--max-num", "3", "--port", "1"])
    assert codes(p) == ["VL006"]
    assert p.issues[0].data["matches"] == [
        "--max-num-batched-tokens",
        "--max-num-partial-prefills",
        "--max-num-seqs",
    ]
    assert p.issues[0].message.startswith("ambiguous option: --max-num could match --max-num-batched-tokens")
    assert p.value("port") == 1  # parsing goes on


def test_prefix_shared_by_aliases_of_one_option_is_not_ambiguous(parse) -> None:
    """``--device-memory-utilization`` and ``--gpu-memory-utilization`` are one option; a prefix of
    only the one is a plain abbreviation."""
    p = parse(["m", "--device-mem", "0.5"])
    assert (p.value("gpu_memory_utilization"), codes(p)) == (0.5, ["VL005"])


def test_unknown_option_with_did_you_mean(parse) -> None:
    p = parse(["m", "--max-model-length", "4096", "--port", "1"])
    (issue,) = p.issues
    assert issue.code == "VL001"
    assert issue.message == "unrecognized arguments: --max-model-length; did you mean --max-model-len?"
    assert issue.data == {"option": "--max-model-length", "suggestion": "--max-model-len"}
    assert values(p) == {"model": "m", "port": 1}  # its value is not reported again


def test_unknown_option_is_reported_as_written(parse) -> None:
    (issue,) = parse(["m", "--gpu_mem_util", "0.9"]).issues
    assert issue.code == "VL001" and "--gpu_mem_util" in issue.message


def test_extra_positional_is_unrecognized(parse) -> None:
    p = parse(["m", "extra"])
    (issue,) = p.issues
    assert (issue.code, issue.data.get("positional")) == ("VL001", True)
    assert "extra" in issue.message


def test_double_dash_ends_options(parse) -> None:
    p = parse(["m", "--", "--port"])
    assert codes(p) == ["VL001"] and "--port" in p.issues[0].message


# -- values --------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("words", "dest", "value"),
    [
        (["--max-model-len", "1k"], "max_model_len", 1000),
        (["--max-model-len", "1K"], "max_model_len", 1024),
        (["--max-model-len", "25.6k"], "max_model_len", 25600),
        (["--max-model-len", "auto"], "max_model_len", -1),
        (["--max-model-len", "-1"], "max_model_len", -1),
        (["--max-model-len=-1"], "max_model_len", -1),
        (["--max-num-batched-tokens", "4K"], "max_num_batched_tokens", 4096),
        (["--max-num-batched-tokens", "2M"], "max_num_batched_tokens", 2 * 2**20),
        (["--seed", "-1"], "seed", -1),
        (["--gpu-memory-utilization", "0.90"], "gpu_memory_utilization", 0.9),
        (["--gpu-memory-utilization", "1"], "gpu_memory_utilization", 1.0),
        (["--quantization", "None"], "quantization", None),
        (["--compilation-config", '{"mode": 3}'], "compilation_config", {"mode": 3}),
        (["-cc", "3"], "compilation_config", 3),
        (["--served-model-name", "a", "b"], "served_model_name", ["a", "b"]),
    ],
)
def test_value_conversion(parse, words: list[str], dest: str, value: object) -> None:
    p = parse(["m", *words])
    assert p.value(dest) == value and type(p.value(dest)) is type(value)
    assert p.issues == []


@pytest.mark.parametrize(
    ("words", "message"),
    [
        (
            ["--max-model-len", "1.5K"],
            "argument --max-model-len: Decimals are not allowed with binary suffixes like K. "
            "Did you mean to use 1.5k instead?",
        ),
        (["--max-model-len", "abc"], "argument --max-model-len: invalid human_readable_int_or_auto value: 'abc'"),
        (["--max-model-len="], "argument --max-model-len: invalid human_readable_int_or_auto value: ''"),
        (
            ["--max-num-batched-tokens", "4.5"],
            "argument --max-num-batched-tokens: invalid human_readable_int value: '4.5'",
        ),
        (["--max-num-seqs", "8k"], "argument --max-num-seqs: invalid int value: '8k'"),
        (["--port", ""], "argument --port: invalid int value: ''"),
        (["--gpu-memory-utilization", "90%"], "argument --gpu-memory-utilization: invalid float value: '90%'"),
        (
            ["--dtype", "fp16"],
            "argument --dtype: invalid choice: 'fp16' (choose from 'auto', 'half', 'float16', 'bfloat16', 'float', "
            "'float32')",
        ),
        (["--compilation-config", "{mode: 3}"], "argument --compilation-config: invalid loads value: '{mode: 3}'"),
        (["--port"], "argument --port: expected one argument"),
        (["--served-model-name"], "argument --served-model-name: expected at least one argument"),
    ],
)
def test_invalid_values_are_vl004_with_vllms_words(parse, words: list[str], message: str) -> None:
    p = parse(["m", *words])
    assert [(i.code, i.message) for i in p.issues] == [("VL004", message)]


def test_option_value_that_looks_like_an_option(parse) -> None:
    p = parse(["m", "--served-model-name", "--port", "1"])
    assert codes(p) == ["VL004"] and p.value("port") == 1


def test_value_with_a_space_that_starts_with_a_dash_is_a_value(parse) -> None:
    assert parse(["m", "--served-model-name", "-a b"]).value("served_model_name") == ["-a b"]


def test_nargs_plus_stops_at_the_next_option(parse) -> None:
    p = parse(["m", "--api-key", "k1", "k2", "--port", "8000"])
    assert values(p) == {"model": "m", "api_key": ["k1", "k2"], "port": 8000}


# -- duplicates ---------------------------------------------------------------------------------------------
def test_last_occurrence_wins_and_is_vl007(parse) -> None:
    p = parse(["m", "--max-model-len", "4096", "--max_model_len", "8192"])
    assert p.value("max_model_len") == 8192
    (issue,) = p.issues
    assert issue.code == "VL007"
    assert issue.data == {"option": "--max_model_len", "value": 8192, "previous": 4096, "previous_line": 1}
    assert [s.value for s in p.occurrences["max_model_len"]] == [4096, 8192]


def test_a_config_value_overridden_on_the_command_line_is_not_a_duplicate(parse) -> None:
    p = parse(["m", "--config", "serve.yaml", "--max-model-len", "8192"], config="max-model-len: 4096\n")
    assert p.value("max_model_len") == 8192 and p.issues == []
    assert [(s.origin, s.value) for s in p.occurrences["max_model_len"]] == [("config", 4096), ("cli", 8192)]


# -- dotted JSON arguments ---------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("words", "value"),
    [
        (["--compilation-config.mode", "3"], {"mode": 3}),
        (["--compilation-config.mode=3"], {"mode": 3}),
        (
            ["--compilation_config.pass_config.fuse_allreduce_rms", "true"],
            {"pass_config": {"fuse_allreduce_rms": True}},
        ),
        (
            ["--compilation-config.mode", "3", "--compilation-config.cudagraph_mode", "FULL"],
            {"mode": 3, "cudagraph_mode": "FULL"},
        ),
        (
            ["--compilation-config.sizes+", "1,2", "--compilation-config.sizes+", "4"],
            {"sizes": ["1", "2", "4"]},
        ),
        (["--compilation-config.max_size", "1k"], {"max_size": 1000}),
        (["--compilation-config.backend", "inductor"], {"backend": "inductor"}),
    ],
)
def test_dotted_arguments_merge_into_json(parse, words: list[str], value: dict) -> None:
    p = parse(["m", *words])
    assert p.value("compilation_config") == value
    assert p.issues == []


def test_dotted_arguments_replace_a_json_value_given_earlier(parse) -> None:
    """The merged dotted value is appended at the end, so it wins over ``--x '{…}'`` (last wins)."""
    p = parse(["m", "--compilation-config.mode", "3", "--compilation-config", '{"backend": "eager"}'])
    assert p.value("compilation_config") == {"mode": 3}


def test_short_and_long_dotted_heads_are_different_keys(parse) -> None:
    """vLLM 0.33.0: ``-cc.mode 3 --compilation_config.pass_config.x true`` → only the last survives."""
    p = parse(["m", "-cc.mode", "3", "--compilation_config.pass_config.x", "true"])
    assert p.value("compilation_config") == {"pass_config": {"x": True}}


def test_dotted_argument_without_a_value(parse) -> None:
    p = parse(["m", "--compilation-config.mode"])
    assert codes(p) == ["VL004"]


def test_dotted_value_from_a_variable_is_unresolved(parse) -> None:
    p = parse(["m", "--compilation-config.mode", ("$MODE", True)])
    assert p.value("compilation_config") is UNRESOLVED


# -- the model ---------------------------------------------------------------------------------------------------
def test_vllm_serve_model_option_is_deprecated_vl009(parse) -> None:
    p = parse(["--model", "m", "--port", "1"])
    assert p.value("model") == "m"
    assert codes(p) == ["VL009"]
    assert "positional" in p.issues[0].message


@pytest.mark.parametrize("program", ["api_server", "legacy-api-server"])
def test_api_server_takes_the_model_option(parse, program: str) -> None:
    p = parse(["--model", "m"], program=program)
    assert (p.value("model"), p.issues) == ("m", [])


def test_api_server_has_no_positional_model(parse) -> None:
    assert codes(parse(["m"], program="api_server")) == ["VL001"]


def test_no_vl009_where_the_parser_does_not_rewrite_model(spec_factory) -> None:
    """The schema generator records whether a release's parser moves --model (``parser_features``)."""
    spec = spec_factory()
    spec.meta["parser_features"] = {"model_flag_rewrite": False}
    toks = [Token("--model", Span("s.sh", 1, 1)), Token("m", Span("s.sh", 1, 9))]
    p = parse_invocation(Invocation("shell", "vllm serve", Span("s.sh", 1, 1), args=toks), spec)
    assert (p.value("model"), p.issues) == ("m", [])


def test_positional_model_and_model_option_together_fail(parse) -> None:
    assert "VL001" in codes(parse(["m", "--model", "x"]))


def test_positional_model_wins_over_the_config_model(parse) -> None:
    p = parse(["b", "--config", "serve.yaml"], config="model: a\n")
    assert p.value("model") == "b"
    p = parse(["--config", "serve.yaml", "b"], config="model: a\n")
    assert p.value("model") == "b"


def test_config_model_is_used_without_a_positional_model(parse) -> None:
    p = parse(["--config", "serve.yaml", "--port", "1"], config="model: a\n")
    assert (p.value("model"), p.value("port")) == ("a", 1)
    s = p.get("model")
    assert s is not None and s.origin == "config"


def test_no_model_anywhere_fails(parse) -> None:
    assert parse(["--config", "serve.yaml"], config="max-model-len: 4096\n").issues


def test_served_model_name_without_a_model_fails(parse) -> None:
    assert parse(["--served-model-name", "x"]).issues


# -- --config ------------------------------------------------------------------------------------------------------
def test_config_values_come_before_the_command_line(parse) -> None:
    p = parse(
        ["m", "--port", "1", "--config", "serve.yaml", "--max-num-seqs", "4"],
        config="port: 2\nmax-num-seqs: 8\nseed: 3\n",
    )
    assert values(p) == {"model": "m", "port": 1, "max_num_seqs": 4, "seed": 3}
    assert p.issues == []


def test_config_settings_point_at_the_config_file(parse) -> None:
    p = parse(["m", "--config", "serve.yaml"], config="seed: 3\n")
    s = p.get("seed")
    assert s is not None
    assert (s.option, s.origin, s.span.path, s.span.line, s.span.column) == ("seed", "config", "serve.yaml", 1, 1)
    assert s.value_span is not None and (s.value_span.line, s.value_span.column) == (1, 7)


def test_unreadable_config_reference_is_dropped(parse) -> None:
    """The source reported VL010; the parser must not read the path as a model or a flag value."""
    p = parse(["m", "--config", "missing.yaml", "--port", "1"])
    assert values(p) == {"model": "m", "port": 1} and p.issues == []


def test_config_equals_form_is_not_expanded_by_vllm(parse) -> None:
    p = parse(["m", "--config=serve.yaml"], config="seed: 3\n")
    assert p.value("seed") is None


# -- unresolved and opaque words -------------------------------------------------------------------------------------
def test_unresolved_values(parse) -> None:
    p = parse(["m", "--max-model-len", ("$LEN", True), "--port", ('"${PORT}"', True), ("--seed=$S", True)])
    assert values(p) == {"model": "m", "max_model_len": UNRESOLVED, "port": UNRESOLVED, "seed": UNRESOLVED}
    assert p.issues == []
    assert p.get("max_model_len").unresolved  # type: ignore[union-attr]


def test_unquoted_unresolved_model_may_be_any_number_of_words(parse) -> None:
    p = parse([("$MODEL", True), "--port", "1"])
    assert p.opaque and p.issues == [] and p.value("port") == 1


def test_quoted_unresolved_model_is_the_model(parse) -> None:
    p = parse([('"$MODEL"', True), "--port", "1"])
    assert p.value("model") is UNRESOLVED


def test_opaque_words_make_the_argv_opaque_and_are_not_errors(parse) -> None:
    p = parse(["m", ('"$@"', True), ("$EXTRA_ARGS", True)])
    assert p.opaque and p.issues == []


def test_unresolved_option_name_is_not_an_error(parse) -> None:
    p = parse(["m", ("--$FLAG", True), "--port", "1"])
    assert p.opaque and p.issues == [] and p.value("port") == 1


def test_value_of_an_unresolved_option_is_not_an_error(parse) -> None:
    assert parse(["m", ("--$FLAG", True), "1"]).issues == []


def test_unresolved_inside_a_flag_value(parse) -> None:
    assert parse(["m", ("--port=$PORT", True)]).value("port") is UNRESOLVED


def test_opaque_invocation_stays_opaque(parse) -> None:
    assert parse(["m"], opaque=True).opaque


# -- the bundled 0.33.0 schema ----------------------------------------------------------------------------------------
@pytest.fixture
def real() -> Any:
    v = Version.parse("0.33.0")
    if v not in bundled_versions():
        pytest.skip("the vLLM 0.33.0 schema is not bundled")
    spec = load_spec(v)

    def run(words: list[str], program: str = "vllm serve") -> ParsedArgs:
        toks = [Token(w, Span("s.sh", 1, k + 1)) for k, w in enumerate(words)]
        return parse_invocation(Invocation("shell", program, Span("s.sh", 1, 1), args=toks), spec)

    return run


def test_real_schema_common_launch(real) -> None:
    p = real(
        [
            "Qwen/Qwen2.5-7B-Instruct",
            "--max_model_len",
            "32k",
            "-tp",
            "2",
            "--gpu-memory-utilization=0.9",
            "--no-enable-prefix-caching",
            "--enable-chunked-prefill",
            "--served-model-name",
            "a",
            "b",
            "-O3",
            "--compilation-config.cudagraph_mode",
            "FULL",
            "--trust_remote_code",
        ]
    )
    assert p.issues == []
    assert values(p) == {
        "model": "Qwen/Qwen2.5-7B-Instruct",
        "max_model_len": 32000,
        "tensor_parallel_size": 2,
        "gpu_memory_utilization": 0.9,
        "enable_prefix_caching": False,
        "enable_chunked_prefill": True,
        "served_model_name": ["a", "b"],
        "optimization_level": "3",
        "compilation_config": {"cudagraph_mode": "FULL"},
        "trust_remote_code": True,
    }


def test_real_schema_disable_spelling_of_enable_disable_flags(real) -> None:
    p = real(["m", "--disable-chunked-prefill", "--no-enable-chunked-prefill"])
    assert p.value("enable_chunked_prefill") is False


def test_real_schema_ambiguous_and_abbreviated(real) -> None:
    assert codes(real(["m", "--max-num", "3"])) == ["VL006"]
    p = real(["m", "--tensor-parallel", "2"])
    assert (codes(p), p.value("tensor_parallel_size")) == (["VL005"], 2)


def test_real_schema_kv_cache_dtype_is_free_text_but_dtype_has_choices(real) -> None:
    assert real(["m", "--kv-cache-dtype", "fp8_e4m3"]).issues == []
    assert codes(real(["m", "--dtype", "fp16"])) == ["VL004"]


def test_real_schema_json_options(real) -> None:
    p = real(["m", "--speculative-config", '{"method": "ngram", "num_speculative_tokens": 3}'])
    assert p.value("speculative_config") == {"method": "ngram", "num_speculative_tokens": 3}


def test_real_schema_corpus_underscore_equals_line(real) -> None:
    """corpus: KORGym DeepSeek-R1-Distill-Llama-70B.sh (every flag as --flag_with_underscores=value)."""
    p = real(
        [
            "--model",
            "/m/DeepSeek-R1-Distill-Llama-70B",
            "--max_model_len=15000",
            "--pipeline_parallel_size=2",
            "--tensor_parallel_size=4",
            "--gpu_memory_utilization=0.95",
        ],
        program="api_server",
    )
    assert p.issues == []
    assert values(p) == {
        "model": "/m/DeepSeek-R1-Distill-Llama-70B",
        "max_model_len": 15000,
        "pipeline_parallel_size": 2,
        "tensor_parallel_size": 4,
        "gpu_memory_utilization": 0.95,
    }


def test_schema_files_exist() -> None:
    assert (Path(__file__).resolve().parents[2] / "schemas" / "vllm" / "releases" / "0.33.0.json.gz").is_file()


def test_an_omni_launch_is_parsed_by_vllm_omni_so_vllm_refusals_are_warnings(parse) -> None:
    """vllm-omni's `vllm` entry point parses a command line holding --omni with its own parser
    (vllm_omni/entrypoints/cli/main.py): what vLLM's parser refuses is not an error there."""
    plain = parse(["m", "--deploy-config", "x.yaml"])
    assert [(i.code, i.severity) for i in plain.issues] == [("VL001", None)]
    omni = parse(["m", "--deploy-config", "x.yaml", "--omni"])
    assert {(i.code, i.severity) for i in omni.issues} == {("VL001", "warning")}
    assert all("vllm-omni" in i.message and i.data["vllm_omni"] for i in omni.issues)


# -- fixes the parser's issues carry (vlint fix and the editor's quick fixes apply the same Fix) ----------------
@pytest.mark.parametrize(
    ("typo", "fixed"),
    [
        ("--gpu-memory-utilisation", "--gpu-memory-utilization"),
        ("--max-model-length", "--max-model-len"),
        ("--enable-prefix-cachng", "--enable-prefix-caching"),  # --no-enable-prefix-caching is further away
        # two arguments (or both polarities) equally close: a did-you-mean in words, never a guessed rename
        ("--n-async-scheduling", None),
        ("--c-kv-cache-interleave-size", None),
    ],
)
def test_a_unique_did_you_mean_is_a_rename_fix(real, typo: str, fixed: str | None) -> None:
    (issue,) = real(["m", typo, "1"] if "scheduling" not in typo else ["m", typo]).issues
    assert issue.code == "VL001"
    if fixed is None:
        assert issue.fix is None
        return
    assert issue.fix is not None and issue.fix.applicable and issue.fix.unsafe and issue.fix.label == "fix (unsafe)"
    (change,) = issue.fix.changes
    assert (change.action, change.option, change.spans) == ("rename", fixed, (issue.span,))
    assert issue.fix.description == f"rename {typo} to {fixed}"


def test_deprecated_flag_names_its_replacement_vl009() -> None:
    """VL009 says the release that removes a deprecated flag and what replaces it (the table of replacements
    of removed flags); a mechanical replacement is a safe rename, other advice is help, not a fix."""
    v = Version.parse("0.11.0")
    if v not in bundled_versions():
        pytest.skip("the vLLM 0.11.0 schema is not bundled")
    spec = load_spec(v)
    words = ["m", "--override-pooler-config", "{}", "--task", "generate", "--disable-log-requests"]
    toks = [Token(w, Span("s.sh", 1, k + 1)) for k, w in enumerate(words)]
    p = parse_invocation(Invocation("shell", "vllm serve", Span("s.sh", 1, 1), args=toks), spec)
    by = {i.data["option"]: i for i in p.issues if i.code == "VL009"}
    pooler = by["--override-pooler-config"]
    assert "(removed in vLLM 0.12.0); use --pooler-config" in pooler.message
    assert pooler.fix is not None and pooler.fix.label == "fix" and pooler.fix.changes[0].option == "--pooler-config"
    task = by["--task"]
    assert "use --runner {generate,pooling,draft} with --convert" in task.message
    assert task.fix is not None and task.fix.label == "help" and not task.fix.changes
    logs = by["--disable-log-requests"]
    assert "nothing replaces it: request logging is off by default" in logs.message and logs.fix is None


def _at(release: str, words: list[str]) -> ParsedArgs:
    v = Version.parse(release)
    if v not in bundled_versions():
        pytest.skip(f"the vLLM {release} schema is not bundled")
    toks = [Token(w, Span("s.sh", 1, k + 1)) for k, w in enumerate(words)]
    return parse_invocation(Invocation("shell", "vllm serve", Span("s.sh", 1, 1), args=toks), load_spec(v))


@pytest.mark.parametrize("release", ["0.8.5.post1", "0.9.2"])
def test_0_8_5_to_0_9_read_a_dict_option_as_key_value_pairs(release: str) -> None:
    """0.8.5-0.9.x's dict-typed JSON options take ``KEY=VALUE,…`` (oracle-recorded: vLLM accepts it)."""
    p = _at(release, ["m", "--limit-mm-per-prompt", "image=2,video=1"])
    assert codes(p) == [] and values(p)["limit_mm_per_prompt"] == {"image": 2, "video": 1}
    assert "VL004" in codes(_at(release, ["m", "--limit-mm-per-prompt", "image=two"]))  # as nullable_kvs refuses


def test_key_value_pairs_on_0_33_are_refused_in_vllms_words_with_the_json_they_meant() -> None:
    """0.33.0 types --limit-mm-per-prompt parse_type(json.loads) ([0.33.0] vllm/engine/arg_utils.py:161-170,
    :420; MultiModalDummyOptions is a dict subclass, :331-333) and nothing before argparse rewrites
    ``KEY=VALUE`` (vllm/utils/argparse_utils.py parse_args): argparse stops with "Value audio=1 cannot be
    converted to <function loads …>", as the oracle records for --mm-processor-kwargs '{bad'."""
    p = _at("0.33.0", ["m", "--limit-mm-per-prompt", "audio=1"])
    (issue,) = p.issues
    assert issue.code == "VL004"
    assert issue.message.startswith("argument --limit-mm-per-prompt: Value audio=1 cannot be converted to json.loads")
    assert 'write JSON: {"audio": 1}' in issue.message and issue.data["json"] == {"audio": 1}
    assert issue.fix is not None and issue.fix.unsafe
    (change,) = issue.fix.changes
    assert (change.action, change.value, change.spans) == ("set", {"audio": 1}, (Span("s.sh", 1, 3),))


def test_a_word_that_is_not_key_value_pairs_gets_no_json_hint() -> None:
    (issue,) = _at("0.33.0", ["m", "--limit-mm-per-prompt", "audio"]).issues
    assert issue.code == "VL004" and "write JSON" not in issue.message and issue.fix is None
    (issue,) = _at("0.33.0", ["m", "--limit-mm-per-prompt", "audio=one"]).issues  # not int values: not pairs
    assert issue.fix is None
    # an option typed json.loads itself keeps argparse's own wording
    (issue,) = _at("0.33.0", ["m", "--allowed-origins", "http://a"]).issues
    assert issue.message == "argument --allowed-origins: invalid loads value: 'http://a'" and issue.fix is None


def test_the_key_value_form_is_refused_from_0_10_and_by_dataclass_options() -> None:
    assert "VL004" in codes(_at("0.10.2", ["m", "--limit-mm-per-prompt", "image=2"]))
    p = _at("0.9.2", ["m", "--compilation-config", "3"])  # a config class's from_cli: a level, not pairs
    assert "VL004" not in codes(p)

"""Tests for tools/gen_vllm_schema.py (pure part) and the bundled schemas/vllm/*.json.

Nothing here imports vLLM: the parser under test is synthetic, built to look like
the shapes vLLM's argparse setup produces across versions.
"""

from __future__ import annotations

import argparse
import functools
import importlib.util
import json
import sys
from pathlib import Path
from typing import Any, ClassVar

import pytest
from jsonschema import Draft202012Validator

from vlint.argspec.bundle import read_record
from vlint.argspec.jsonschema import build_schema
from vlint.argspec.spec import bundled_versions

ROOT = Path(__file__).resolve().parents[2]


def _load_generator() -> Any:
    path = ROOT / "tools" / "gen_vllm_schema.py"
    spec = importlib.util.spec_from_file_location("gen_vllm_schema", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules["gen_vllm_schema"] = mod
    spec.loader.exec_module(mod)
    return mod


gen = _load_generator()

ARG_FIELDS = {
    "action",
    "action_class",
    "choices",
    "const",
    "default",
    "deprecated",
    "dest",
    "group",
    "help",
    "help_suppressed",
    "hidden_option_strings",
    "kind",
    "metavar",
    "name",
    "nargs",
    "negative_option_strings",
    "option_strings",
    "optional",
    "positional",
    "required",
    "type_name",
    "type_source",
}


# ---- synthetic helpers shaped like vLLM's -------------------------------------------


def human_readable_int(value: str) -> int:
    mult = {"k": 10**3, "K": 2**10, "m": 10**6, "M": 2**20}
    if value and value[-1] in mult:
        return int(float(value[:-1]) * mult[value[-1]])
    return int(value)


def human_readable_int_or_auto(value: str) -> int:
    if value in ("-1", "auto"):
        return -1
    return human_readable_int(value)


def optional_type(return_type: Any) -> Any:
    def _optional_type(val: str) -> Any:
        if val in ("", "None"):
            return None
        return return_type(val)

    return _optional_type


def _make_parse_dataclass() -> Any:
    cls = dict

    def parse_dataclass(val: str, cls: Any = cls) -> Any:
        return cls(json.loads(val))

    return parse_dataclass


class EnableDisableAction(argparse.BooleanOptionalAction):
    """Like vLLM 0.33's: --enable-x also gets --disable-x; --no-enable-x is hidden."""

    _inverse_prefixes: ClassVar[dict[str, str]] = {"--enable-": "--disable-", "--disable-": "--enable-"}

    def __init__(self, option_strings: list[str], dest: str, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, **kwargs)
        inverses = [
            inverse + opt.removeprefix(prefix)
            for opt in option_strings
            for prefix, inverse in self._inverse_prefixes.items()
            if opt.startswith(prefix)
        ]
        negated = {opt for opt in self.option_strings if opt not in option_strings}
        self.negative_option_strings = negated | set(inverses)
        self.visible_option_strings = [*option_strings, *inverses]
        self.option_strings = [*self.option_strings, *inverses]

    def __call__(self, parser: Any, namespace: Any, values: Any, option_string: Any = None) -> None:
        setattr(namespace, self.dest, option_string not in self.negative_option_strings)


class StoreBoolean(argparse.Action):
    """Like vLLM 0.6's: takes "true"/"false"."""

    def __call__(self, parser: Any, namespace: Any, values: Any, option_string: Any = None) -> None:
        setattr(namespace, self.dest, str(values).lower() == "true")


class Opaque:
    def __repr__(self) -> str:
        return "Opaque(x=1) at 0xdeadbeef"


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="vllm serve")
    p.add_argument("model_tag", nargs="?", default=None, help="The model tag to serve.")
    p.add_argument("--config", type=str, default="", help="Read CLI options from a config file.")
    model = p.add_argument_group("ModelConfig", "Model settings.")
    model.add_argument(
        "--max-model-len",
        type=human_readable_int_or_auto,
        default=None,
        help="Model context length (prompt and output). Longer text follows.",
    )
    model.add_argument("--dtype", choices=["auto", "half", "bfloat16"], default="auto", help="Data type.")
    model.add_argument("--quantization", "-q", type=optional_type(str), default=None, help="Method.")
    model.add_argument("--hf-overrides", type=json.loads, default=None, help="Overrides, e.g. a dict.")
    model.add_argument("--served-model-name", nargs="+", type=str, default=None, help="Names.")
    model.add_argument("--enforce-eager", action="store_true", help="Always use eager-mode PyTorch.")
    cache = p.add_argument_group("CacheConfig")
    cache.add_argument("--gpu-memory-utilization", type=float, default=0.9, help="Fraction.")
    cache.add_argument(
        "--swap-space",
        type=float,
        default=4,
        help="CPU swap space size (GiB) per GPU. Deprecated: will be removed in v0.18.",
    )
    cache.add_argument(
        "--enable-prefix-caching",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="Whether to enable prefix caching.",
    )
    ed = cache.add_argument(
        "--enable-chunked-prefill", action=EnableDisableAction, default=None, help="Chunked prefill."
    )
    ed.option_strings = ed.visible_option_strings  # what vLLM's _register_action does
    cache.add_argument(
        "--multi-step-stream-outputs",
        action=StoreBoolean,
        nargs="?",
        const="True",
        default=True,
        help="If False, stream at the end.",
    )
    sched = p.add_argument_group("SchedulerConfig")
    sched.add_argument("--max-num-batched-tokens", type=human_readable_int, default=None, help="Budget.")
    sched.add_argument("--tensor-parallel-size", "-tp", type=int, default=1, help="TP size.")
    sched.add_argument("--compilation-config", "-cc", type=_make_parse_dataclass(), default=Opaque())
    sched.add_argument("--api-key", action="append", default=None, help="Keys.")
    sched.add_argument("--weird", type=lambda s: s.lower(), default="x", help="Odd one.")
    return p


@pytest.fixture(scope="module")
def described() -> dict[str, dict[str, Any]]:
    args = gen.describe_parser(build_parser())
    return {a["dest"]: a for a in args}


def test_every_field_present_and_sorted() -> None:
    args = gen.describe_parser(build_parser())
    for a in args:
        assert set(a) == ARG_FIELDS, a["dest"]
    keys = [(a["dest"], a["name"]) for a in args]
    assert keys == sorted(keys)
    json.dumps(args)  # JSON-serialisable


def test_store_and_aliases(described: dict[str, dict[str, Any]]) -> None:
    tp = described["tensor_parallel_size"]
    assert tp["name"] == "--tensor-parallel-size"
    assert tp["option_strings"] == ["--tensor-parallel-size", "-tp"]
    assert (tp["action"], tp["kind"], tp["default"], tp["group"]) == ("store", "int", 1, "SchedulerConfig")
    assert tp["negative_option_strings"] == []
    q = described["quantization"]
    assert q["option_strings"] == ["--quantization", "-q"]
    assert (q["kind"], q["optional"]) == ("str", True)
    assert described["compilation_config"]["option_strings"] == ["--compilation-config", "-cc"]


def test_kinds(described: dict[str, dict[str, Any]]) -> None:
    assert described["max_model_len"]["kind"] == "human_int_or_auto"
    assert described["max_num_batched_tokens"]["kind"] == "human_int"
    assert described["hf_overrides"]["kind"] == "json"
    assert described["compilation_config"]["kind"] == "json"
    assert described["gpu_memory_utilization"]["kind"] == "float"
    assert described["enforce_eager"]["kind"] == "none"
    assert described["enable_prefix_caching"]["kind"] == "none"
    assert described["model_tag"]["kind"] == "str"
    assert described["api_key"]["kind"] == "str"
    weird = described["weird"]
    assert weird["kind"].startswith("other:")
    assert weird["type_source"] is not None and "lower" in weird["type_source"]


def test_boolean_forms(described: dict[str, dict[str, Any]]) -> None:
    pc = described["enable_prefix_caching"]
    assert pc["action"] == "boolean_optional"
    assert pc["option_strings"] == ["--enable-prefix-caching"]
    assert pc["negative_option_strings"] == ["--no-enable-prefix-caching"]
    assert pc["nargs"] == 0
    cp = described["enable_chunked_prefill"]
    assert cp["action"] == "enable_disable"
    assert cp["action_class"] == "EnableDisableAction"
    assert cp["option_strings"] == ["--enable-chunked-prefill"]
    assert cp["negative_option_strings"] == ["--disable-chunked-prefill", "--no-enable-chunked-prefill"]
    assert cp["hidden_option_strings"] == ["--no-enable-chunked-prefill"]
    ee = described["enforce_eager"]
    assert (ee["action"], ee["negative_option_strings"]) == ("store_true", [])
    sb = described["multi_step_stream_outputs"]
    assert (sb["action"], sb["kind"], sb["nargs"], sb["const"]) == ("StoreBoolean", "bool", "?", "True")


def test_choices_nargs_positional_deprecated(described: dict[str, dict[str, Any]]) -> None:
    assert described["dtype"]["choices"] == ["auto", "half", "bfloat16"]
    assert described["served_model_name"]["nargs"] == "+"
    mt = described["model_tag"]
    assert (mt["positional"], mt["name"], mt["option_strings"], mt["nargs"]) == (True, "model_tag", [], "?")
    assert mt["group"] == "positional arguments"
    assert described["swap_space"]["deprecated"] == "Deprecated: will be removed in v0.18."
    assert described["gpu_memory_utilization"]["deprecated"] is None
    assert described["api_key"]["action"] == "append"


def test_help_first_sentence_and_defaults(described: dict[str, dict[str, Any]]) -> None:
    assert described["max_model_len"]["help"] == "Model context length (prompt and output)."
    assert described["hf_overrides"]["help"] == "Overrides, e.g. a dict."
    # non-JSON default -> repr without the memory address
    assert described["compilation_config"]["default"] == "Opaque(x=1)"
    assert described["compilation_config"]["help"] == ""


def _schema() -> dict[str, Any]:
    args = gen.describe_parser(build_parser())
    return build_schema(args, title="synthetic", x_vlint={"arguments": args}, dotted=True)


def test_schema_is_valid_and_validates_settings() -> None:
    schema = _schema()
    Draft202012Validator.check_schema(schema)
    v = Draft202012Validator(schema)
    good = {
        "max-model-len": "32k",
        "tensor_parallel_size": 2,
        "tensor-parallel-size": 2,
        "enable-prefix-caching": False,
        "no-enable-prefix-caching": True,
        "disable-chunked-prefill": True,
        "served-model-name": ["a", "b"],
        "dtype": "half",
        "quantization": None,
        "compilation-config": {"mode": 3},
        "compilation-config.mode": 3,
        "multi-step-stream-outputs": "false",
    }
    errors = sorted(e.message for e in v.iter_errors(good))
    assert errors == []
    assert not v.is_valid({"no-such-flag": 1})
    assert not v.is_valid({"dtype": "float64"})
    assert not v.is_valid({"tensor-parallel-size": "two"})
    assert not v.is_valid({"enforce-eager": "yes"})
    # positionals, --config and help are not settings keys
    assert "model_tag" not in schema["properties"]
    assert "config" not in schema["properties"]
    assert schema["$defs"]["swap_space"]["deprecated"] is True
    text = gen.dump_schema(schema)
    assert json.loads(text) == schema
    assert text == gen.dump_schema(_schema())  # deterministic


def test_classify_type_unwraps_closures() -> None:
    assert gen.classify_type(optional_type(int)) == ("int", True)
    assert gen.classify_type(optional_type(json.loads)) == ("json", True)
    assert gen.classify_type(human_readable_int) == ("human_int", False)
    assert gen.classify_type(None) == ("str", False)


# ---- bundled schemas ----------------------------------------------------------------

BUNDLED = [str(v) for v in bundled_versions()]
X_KEYS = {
    "vllm_version",
    "generator_version",
    "python",
    "torch",
    "parser_module",
    "prog",
    "config_yaml_semantics",
    "arguments",
    "env_vars",
    "quantization_methods",
    "kv_cache_dtypes",
    "allow_abbrev",
    "dotted_arguments",
    "parser_features",
    "parser_source",
    "parser_fallback_reasons",
    "platform",
    "shims",
    "stubs",
}


def _vkey(v: str) -> tuple[int, ...]:
    return tuple(int(p) for p in v.split(".post")[0].split("."))


@functools.cache
def _read(version: str) -> dict[str, Any]:
    """The release's record, wrapped as the generator writes it (``{"x-vlint": record}``)."""
    return {"x-vlint": read_record(version)}


def _load(version: str) -> dict[str, Any]:
    if version not in BUNDLED:
        pytest.skip(f"{version} not bundled")
    return _read(version)


def _args(version: str) -> dict[str, dict[str, Any]]:
    return {a["dest"]: a for a in _load(version)["x-vlint"]["arguments"]}


def test_some_schemas_are_bundled() -> None:
    assert BUNDLED, "no schemas/vllm/index.json"


#: the keywords of a schema whose values are maps of subschemas (the metaschema checks each value as a
#: schema of its own, whatever the map is in)
_SUBSCHEMA_MAPS = ("properties", "patternProperties", "$defs")


@functools.cache
def _check_subschema(canonical: str) -> None:
    Draft202012Validator.check_schema(json.loads(canonical))


def check_schema(schema: dict[str, Any]) -> None:
    """``Draft202012Validator.check_schema(schema)``, with each distinct subschema of ``properties``,
    ``patternProperties`` and ``$defs`` checked once per session: the metaschema checks those values as
    schemas in their own right (``$dynamicRef: #meta``), so a schema is valid exactly when its skeleton
    (those maps emptied) and each of their values are. The 66 releases' schemas hold ~32,000 such values
    and ~550 distinct ones (most arguments do not change between releases); checking all of them took 10 s."""
    skeleton = {k: ({} if k in _SUBSCHEMA_MAPS and isinstance(v, dict) else v) for k, v in schema.items()}
    Draft202012Validator.check_schema(skeleton)
    for key in _SUBSCHEMA_MAPS:
        for name, sub in (schema.get(key) or {}).items():
            try:
                _check_subschema(json.dumps(sub, sort_keys=True))
            except Exception as e:
                raise AssertionError(f"{key}[{name!r}] is not a valid schema: {e}") from e


def test_check_schema_finds_an_invalid_subschema() -> None:
    """The piecewise check is not vacuous: a bad value inside properties, patternProperties or $defs, and a
    bad top-level keyword, each fail it."""
    good = {"type": "object", "properties": {"a": {"type": "integer"}}, "$defs": {"d": {"enum": [1]}}}
    check_schema(good)
    for bad in (
        {**good, "properties": {"a": {"type": "integr"}}},
        {**good, "patternProperties": {"^x": {"minimum": "1"}}},
        {**good, "$defs": {"d": {"enum": 1}}},
        {**good, "additionalProperties": 3},
    ):
        with pytest.raises(Exception):  # noqa: B017  (jsonschema's SchemaError, or ours naming the key)
            check_schema(bad)


@pytest.mark.parametrize("version", BUNDLED)
def test_bundled_schema_shape(version: str) -> None:
    x = _read(version)["x-vlint"]
    schema = build_schema(
        x["arguments"], title=version, x_vlint={}, dotted=bool(x["parser_features"].get("dotted_args"))
    )
    check_schema(schema)
    assert set(x) >= X_KEYS
    assert x["vllm_version"] == version
    args = x["arguments"]
    assert args and all(set(a) == ARG_FIELDS for a in args)
    assert [(a["dest"], a["name"]) for a in args] == sorted((a["dest"], a["name"]) for a in args)
    assert schema["additionalProperties"] is False
    dests = {a["dest"] for a in args}
    assert {"model_tag", "max_model_len", "tensor_parallel_size", "gpu_memory_utilization"} <= dests
    by = {a["dest"]: a for a in args}
    assert "-tp" in by["tensor_parallel_size"]["option_strings"]
    assert by["model_tag"]["positional"] is True
    assert x["config_yaml_semantics"]["supported"] is True
    # built by vLLM's own CLI main(), not by a fallback
    assert x["parser_fallback_reasons"] == []
    assert x["prog"] == "vllm serve"


def test_swap_space_removed_in_0_18() -> None:
    assert "swap_space" in _args("0.17.1")
    assert "swap_space" not in _args("0.19.1")


def test_num_scheduler_steps_only_up_to_0_10_0() -> None:
    for version in BUNDLED:
        present = "num_scheduler_steps" in _args(version)
        assert present == (_vkey(version) <= (0, 10, 0)), version


def test_gpu_memory_utilization_default_changed() -> None:
    assert _args("0.19.1")["gpu_memory_utilization"]["default"] == 0.9
    assert _args("0.22.1")["gpu_memory_utilization"]["default"] == 0.92


def test_enable_chunked_prefill_shape_changed() -> None:
    old = _args("0.6.6.post1")["enable_chunked_prefill"]
    assert (old["kind"], old["nargs"]) == ("bool", "?")
    new = _args("0.19.1")["enable_chunked_prefill"]
    assert new["action"] == "boolean_optional"
    assert new["negative_option_strings"] == ["--no-enable-chunked-prefill"]


@pytest.mark.parametrize("version", BUNDLED)
def test_bundled_records_carry_registries(version: str) -> None:
    """Every release was generated by the registry-reading generator, and the registries every release
    has (its quantization methods, KV-cache dtypes, load formats, model architectures) were read."""
    x = _read(version)["x-vlint"]
    assert x["generator_version"] == "2"
    regs = x["registries"]
    assert set(regs) == set(gen.REGISTRY_SOURCES)
    for name in ("load_formats", "architectures"):
        assert regs[name]["values"], f"{name} not read for {version}: {regs[name].get('tried')}"
    assert "env_var_choices" in x
    assert x["quantization_methods"]["methods"] and x["kv_cache_dtypes"]["dtypes"]

"""Registry rules (VL017-VL025) on every boundary of the bundled registry history: a value is accepted
by the first release that has it and reported by the release before (and the reverse where a value
was removed). Generated from schemas/vllm/registries.json, not hand-picked."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from vlint.argspec.bundle import contains, registries_doc
from vlint.argspec.spec import load_spec
from vlint.checks import CheckContext, get_check
from vlint.core.invocation import Invocation, Token
from vlint.core.span import Span
from vlint.core.version import V
from vlint.launch.resolver import ResolveOptions, resolve

S = Span("start.sh", 1, 1, 1, 2)

#: registry → (check, option, extra words)
RULES = {
    "quantization_methods": ("registries.quantization", "--quantization", ()),
    "load_formats": ("registries.load_format", "--load-format", ()),
    "kv_cache_dtypes": ("registries.kv_cache_dtype", "--kv-cache-dtype", ()),
    "attention_backends": ("registries.attention_backend", "--attention-backend", ()),
    "tool_call_parsers": ("registries.tool_call_parser", "--tool-call-parser", ("--enable-auto-tool-choice",)),
    "reasoning_parsers": ("registries.reasoning_parser", "--reasoning-parser", ()),
    "guided_decoding_backends": ("registries.guided_decoding_backend", "--guided-decoding-backend", ()),
}


def _judged(version: str, option: str) -> bool:
    """The rule judges this option in this release: it exists and argparse does not check it."""
    hit = load_spec(V(version)).lookup(option)
    return hit is not None and not hit[0].choices


def _boundaries() -> list[tuple[str, str, str, str, str]]:
    """(registry, value, release that has it, neighbouring release that lacks it, added/removed)."""
    doc = registries_doc()
    versions = doc["versions"]
    out = []
    for name, (_, option, _) in RULES.items():
        extracted = doc["extracted"].get(name, [])
        for value, ranges in doc["registries"].get(name, {}).items():
            for i in range(1, len(versions)):
                if not (contains(extracted, i) and contains(extracted, i - 1)):
                    continue
                here, before = contains(ranges, i), contains(ranges, i - 1)
                if here == before:
                    continue
                has, lacks = (versions[i], versions[i - 1]) if here else (versions[i - 1], versions[i])
                if _judged(has, option) and _judged(lacks, option):
                    out.append((name, value, has, lacks, "added" if here else "removed"))
    return out


BOUNDARIES = _boundaries()


def _hits(check: str, version: str, words: list[str], arch: tuple[str, ...] = ()) -> list:
    inv = Invocation(source="t", program="vllm serve", span=S, args=[Token(w, S) for w in ("some/model", *words)])
    dep = resolve(inv, ResolveOptions(vllm_version=V(version)))
    if arch:
        dep.arch = SimpleNamespace(architectures=arch, source="test")
    fn = get_check(check)
    assert fn is not None
    return list(fn(CheckContext(rule=None, dep=dep)))  # type: ignore[arg-type]


def test_there_are_boundaries_to_test() -> None:
    assert {b[0] for b in BOUNDARIES} >= {"quantization_methods", "tool_call_parsers"}


@pytest.mark.parametrize(
    ("name", "value", "has", "lacks", "change"),
    BOUNDARIES,
    ids=[f"{b[0]}:{b[1]}:{b[4]}@{b[2]}|{b[3]}" for b in BOUNDARIES],
)
def test_registry_boundary(name: str, value: str, has: str, lacks: str, change: str) -> None:
    check, option, extra = RULES[name]
    words = [*extra, option, value]
    assert _hits(check, has, words) == [], f"{value} is a {name} value of {has}"
    hits = _hits(check, lacks, words)
    assert len(hits) == 1, f"{value} is not a {name} value of {lacks}"
    note = hits[0].data["note"]
    assert (f"added in {has}" in note) if V(has) > V(lacks) else (f"removed in {lacks}" in note)


def _arch_firsts() -> list[tuple[str, str, str]]:
    """(architecture, first release with it, the release before) for every architecture added after
    the first release whose registry was read."""
    doc = registries_doc()
    versions = doc["versions"]
    extracted = doc["extracted"].get("architectures", [])
    out = []
    for arch, ranges in doc["registries"].get("architectures", {}).items():
        first = ranges[0][0]
        if first > 0 and contains(extracted, first - 1):
            out.append((arch, versions[first], versions[first - 1]))
    return out


ARCHS = _arch_firsts()


@pytest.mark.parametrize(("arch", "first", "before"), ARCHS, ids=[f"{a[0]}@{a[1]}" for a in ARCHS])
def test_architecture_support_starts_at_its_first_release(arch: str, first: str, before: str) -> None:
    assert _hits("registries.architecture", first, [], (arch,)) == []
    hits = _hits("registries.architecture", before, [], (arch,))
    assert len(hits) == 1 and f"not supported before vLLM {first}" in hits[0].data["note"]
    # an error where vLLM has no Transformers fallback (no --model-impl), else a warning
    fallback = "model_impl" in load_spec(V(before)).by_dest
    assert hits[0].severity == ("warning" if fallback else None)


def test_qwen3_first_release() -> None:
    doc = registries_doc()
    first = doc["versions"][doc["registries"]["architectures"]["Qwen3ForCausalLM"][0][0]]
    assert first == "0.8.4"


def test_model_impl_vllm_makes_it_an_error() -> None:
    hits = _hits("registries.architecture", "0.8.3", ["--model-impl", "vllm"], ("Qwen3ForCausalLM",))
    assert len(hits) == 1 and hits[0].severity is None


def test_any_supported_architecture_of_the_list_is_enough() -> None:
    assert _hits("registries.architecture", "0.8.3", [], ("Qwen3ForCausalLM", "Qwen2ForCausalLM")) == []


def test_a_tool_parser_plugin_disables_the_check() -> None:
    words = ["--enable-auto-tool-choice", "--tool-parser-plugin", "p.py", "--tool-call-parser", "nope"]
    assert _hits("registries.tool_call_parser", "0.19.0", words) == []


def test_without_auto_tool_choice_it_is_a_warning() -> None:
    hits = _hits("registries.tool_call_parser", "0.19.0", ["--tool-call-parser", "nope"])
    assert len(hits) == 1 and hits[0].severity == "warning"

"""vLLM ``--config`` YAML files: values as ``yaml.safe_load`` (what vLLM uses) reads them, spans of
keys, values and list items, the errors, and recognising a vLLM config among other YAML files."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
import yaml

from vlint.argspec.history import is_known_option
from vlint.core.span import PositionMap, Span
from vlint.sources import vllm_yaml
from vlint.sources.base import SourceError, SourceText
from vlint.sources.registry import sources_for
from vlint.sources.yaml_nodes import MAX_ALIAS_EXPANSIONS, compose_all, to_python


def sp(s: Span) -> str:
    return f"{s.line}:{s.column}-{s.end_line}:{s.end_column}"


def entries(text: str) -> list[tuple[str, object]]:
    return [(e.key, e.value) for e in vllm_yaml.load_config(text, "c.yaml").entries]


# -- values ------------------------------------------------------------------------------------------
def test_keys_with_dashes_or_underscores_are_kept_as_written() -> None:
    assert entries("max-model-len: 4096\nmax_num_seqs: 8\n--port: 1\n") == [
        ("max-model-len", 4096),
        ("max_num_seqs", 8),
        ("--port", 1),
    ]


@pytest.mark.parametrize(
    "scalar",
    [
        "true", "True", "TRUE", "false", "False", "yes", "Yes", "no", "on", "off", "y", "n", "Y",
        "1", "-1", "+1", "0", "010", "0x1F", "0b101", "1_000", "1:30", "0o17",
        "0.9", "0.90", ".5", "1.0e+3", "1e3", "-.inf", ".Inf", ".nan",
        "null", "Null", "~", "", "4k", "4K", "1.5K", "auto", "'true'", '"1"', "2024-01-01", "fp8", "a b",
    ],
)  # fmt: skip
def test_scalars_read_like_yaml_safe_load(scalar: str) -> None:
    """vLLM reads the file with yaml.safe_load and passes str(value): the text must match."""
    text = f"k: {scalar}\n"
    (entry,) = vllm_yaml.load_config(text, "c.yaml").entries
    expected = yaml.safe_load(text)["k"]
    if isinstance(expected, float) and math.isnan(expected):
        assert isinstance(entry.value, float) and math.isnan(entry.value)
        return
    assert str(entry.value) == str(expected)  # the argv word vLLM builds
    if not hasattr(expected, "isoformat"):  # a date stays text in vlint (same word)
        assert entry.value == expected and type(entry.value) is type(expected)


def test_lists_and_nested_mappings() -> None:
    text = (
        "served-model-name: [a, b]\n"
        "cudagraph-capture-sizes:\n  - 1\n  - 2\n"
        "compilation-config:\n  mode: 3\n  pass_config:\n    fuse_allreduce_rms: true\n"
        'speculative-config: \'{"method": "ngram", "num_speculative_tokens": 3}\'\n'
        "empty: []\n"
    )
    assert entries(text) == [
        ("served-model-name", ["a", "b"]),
        ("cudagraph-capture-sizes", [1, 2]),
        ("compilation-config", {"mode": 3, "pass_config": {"fuse_allreduce_rms": True}}),
        ("speculative-config", '{"method": "ngram", "num_speculative_tokens": 3}'),
        ("empty", []),
    ]


def test_model_key_and_trailing_spaces() -> None:
    assert entries("model: Qwen/Qwen2.5-7B\nenforce-eager: false \n") == [
        ("model", "Qwen/Qwen2.5-7B"),
        ("enforce-eager", False),
    ]


def test_duplicate_keys_are_all_kept_in_order() -> None:
    """yaml.safe_load keeps the last one; expanding every occurrence in order gives the same result."""
    assert entries("port: 1\nmax-model-len: 2\nport: 3\n") == [("port", 1), ("max-model-len", 2), ("port", 3)]


def test_anchors_aliases_and_merge_keys() -> None:
    text = "base: &b {x: 1}\nother: *b\n<<: {merged: 2, other: 9}\n"
    cfg = vllm_yaml.load_config(text, "c.yaml")
    assert [(e.key, e.value) for e in cfg.entries] == [("base", {"x": 1}), ("other", {"x": 1}), ("merged", 2)]
    assert yaml.safe_load(text) == {"base": {"x": 1}, "other": {"x": 1}, "merged": 2}
    # the alias is spanned where it is written, not at the anchor
    assert sp(cfg.entries[1].value_span) == "2:8-2:10"


def test_python_tags_are_never_constructed() -> None:
    text = "a: !!python/object/apply:os.system ['touch /tmp/vlint-pwned']\nb: !custom 3\nc: !!binary aGk=\n"
    assert entries(text) == [("a", ["touch /tmp/vlint-pwned"]), ("b", "3"), ("c", "aGk=")]
    assert not Path("/tmp/vlint-pwned").exists()


def test_alias_bomb_is_bounded() -> None:
    lines = ['a0: &a0 ["x", "x", "x", "x", "x", "x", "x", "x", "x", "x"]']
    lines += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]" for i in range(1, 9)]
    (doc,) = compose_all("\n".join(lines) + "\n", "bomb.yaml")
    with pytest.raises(SourceError, match="aliases more than"):
        to_python(doc)
    assert MAX_ALIAS_EXPANSIONS <= 100_000


def test_deep_nesting_is_an_error_not_a_crash() -> None:
    text = "a: " + "[" * 300 + "]" * 300 + "\n"
    with pytest.raises(SourceError):
        vllm_yaml.load_config(text, "c.yaml")


# -- spans -----------------------------------------------------------------------------------------------
def test_spans_of_keys_values_and_items() -> None:
    text = (
        "model: m\n"
        "max-model-len: 4096   # comment\n"
        "served-model-name: [a, bc]\n"
        "sizes:\n"
        "  - 1\n"
        "  - 16\n"
        "compilation-config:\n"
        "  mode: 3\n"
        "  cudagraph_mode: FULL\n"
        "chat-template: |\n"
        "  {{ messages }}\n"
        "\n"
        "port: 8000\n"
    )
    cfg = vllm_yaml.load_config(text, "c.yaml")
    got = {e.key: (sp(e.key_span), sp(e.value_span), [sp(s) for s in e.item_spans]) for e in cfg.entries}
    assert got == {
        "model": ("1:1-1:6", "1:8-1:9", []),
        "max-model-len": ("2:1-2:14", "2:16-2:20", []),
        "served-model-name": ("3:1-3:18", "3:20-3:27", ["3:21-3:22", "3:24-3:26"]),
        "sizes": ("4:1-4:6", "5:3-6:7", ["5:5-5:6", "6:5-6:7"]),
        "compilation-config": ("7:1-7:19", "8:3-9:23", []),
        "chat-template": ("10:1-10:14", "10:16-11:17", []),
        "port": ("13:1-13:5", "13:7-13:11", []),
    }
    assert cfg.span == cfg.entries[0].key_span
    assert cfg.path == "c.yaml"


def test_spans_through_a_position_map() -> None:
    """A config embedded at line 10, column 5 of another file (a here-document, a block scalar)."""
    text = "max-model-len: 4096\nport: 1\n"
    pm = PositionMap(
        "run.sh",
        [(0, 10, 5), (text.index("port"), 11, 5)],
    )
    cfg = vllm_yaml.load_config(text, "run.sh", posmap=pm, unresolved=[(text.index("1\n"), text.index("1\n") + 1)])
    assert [(sp(e.key_span), sp(e.value_span), e.unresolved) for e in cfg.entries] == [
        ("10:5-10:18", "10:20-10:24", False),
        ("11:5-11:9", "11:11-11:12", True),
    ]


# -- errors --------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "fragment", "line"),
    [
        ("- a\n- b\n", "must be a mapping", 1),
        ("\njust text\n", "must be a mapping", 2),
        ("a: 1\n---\nb: 2\n", "holds several", 3),
        ("a: [1\nb: 2\n", "invalid YAML", 2),
        ("a: 1\n b: 2\n", "invalid YAML", 2),
        ("a: 1\n\tb: 2\n", "invalid YAML", 2),
        ("? [a]\n: 1\n", "plain names", 1),
        ("a: *nope\n", "invalid YAML", 1),
    ],
)
def test_errors_carry_the_line(text: str, fragment: str, line: int) -> None:
    with pytest.raises(SourceError) as e:
        vllm_yaml.load_config(text, "c.yaml")
    assert fragment in e.value.message
    assert e.value.line == line


def test_empty_and_comment_only_files_have_no_entries() -> None:
    assert vllm_yaml.load_config("", "c.yaml").entries == []
    assert vllm_yaml.load_config("# nothing\n", "c.yaml").entries == []
    src = SourceText("c.yaml", Path("c.yaml"), "# nothing\n")
    assert vllm_yaml.extract(src, _no_file).invocations == []


def test_extract_makes_a_config_launch() -> None:
    src = SourceText("c.yaml", Path("c.yaml"), "model: m\nmax-model-len: 4096\n")
    (inv,) = vllm_yaml.extract(src, _no_file).invocations
    assert (inv.program, inv.source, inv.args) == ("config", "vllm-config", [])
    assert inv.config is not None and [e.key for e in inv.config.entries] == ["model", "max-model-len"]
    assert sp(inv.span) == "1:1-1:6"


def _no_file(p: Path) -> SourceText:
    raise SourceError("no such file")


@pytest.mark.parametrize(
    ("ref", "base", "expected"),
    [("c.yaml", "/srv/app", "/srv/app/c.yaml"), ("/etc/vllm/c.yaml", "/srv", "/etc/vllm/c.yaml")],
)
def test_resolve_config_path(ref: str, base: str, expected: str) -> None:
    assert vllm_yaml.resolve_config_path(ref, Path(base)) == Path(expected)


# -- sniffing ------------------------------------------------------------------------------------------------
def looks(text: str) -> bool:
    return vllm_yaml.looks_like_vllm_config(SourceText("c.yaml", Path("c.yaml"), text), is_known_option)


@pytest.mark.parametrize(
    "text",
    [
        "model: m\nmax-model-len: 4096\ngpu-memory-utilization: 0.9\n",
        "gpu_memory_utilization: 0.55\nmax_num_seqs: 64\nenforce_eager: false\n",
        "max-model-len: 4096\n",
        "host: 0.0.0.0\nport: 8000\ngpu-memory-utilization: 0.9\nmax-model-len: 8192\nuvicorn-log-level: info\n",
        "tensor-parallel-size: 2\ncompilation-config:\n  mode: 3\nunknown-key: 1\n",
        "base: &b\n  x: 1\n<<: {max-model-len: 1, max-num-seqs: 2}\n",
    ],
)
def test_recognised_as_vllm_config(text: str) -> None:
    assert looks(text)


@pytest.mark.parametrize(
    "text",
    [
        "host: 0.0.0.0\nport: 8080\ndebug: true\n",  # any web app
        "name: run1\nmodel: llama\nseed: 3\ndtype: float16\n",  # a training config
        "model: gpt-4o\ntemperature: 0.2\nmax_tokens: 1000\n",  # an API client
        "port: 8000\n",
        "apiVersion: v1\nkind: Pod\nmetadata: {name: x}\n",
        "services:\n  vllm:\n    image: vllm/vllm-openai\n",
        "on: push\njobs: {}\n",
        "max-model-len: {{ .Values.len }}\n",
        "- max-model-len\n",
        "a: 1\n---\nmax-model-len: 2\n",
        "mem-fraction-static: 0.9\ntp-size: 2\nkv-cache-dtype: fp8\ntrust-remote-code: true\n",  # SGLang
        "max-model-len: [1\n",
        "",
    ],
)
def test_not_recognised_as_vllm_config(text: str) -> None:
    assert not looks(text)


def test_sglang_negative_control_from_the_corpus(shared: Path) -> None:
    path = (
        shared
        / "corpus/real/yaml-other/modal-labs__modal-examples__06_gpu_and_ml__llm-serving__config_very_large_models.yaml"
    )
    src = SourceText(path.name, path, path.read_text())
    assert not vllm_yaml.looks_like_vllm_config(src, is_known_option)
    assert sources_for(src) == []


def test_every_corpus_vllm_config_is_recognised(shared: Path) -> None:
    files = sorted((shared / "corpus/real/vllm-config-yaml").glob("*.yaml"))
    assert len(files) == 8
    for path in files:
        src = SourceText(path.name, path, path.read_text())
        assert [s.name for s in sources_for(src)] == ["vllm-config"], path.name


def test_only_yaml_files_are_sniffed() -> None:
    src = SourceText("c.txt", Path("c.txt"), "max-model-len: 4096\nmax-num-seqs: 8\n")
    assert "vllm-config" not in [s.name for s in sources_for(src)]

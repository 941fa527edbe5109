"""A bare vLLM --config file without a model is a fragment (Invocation.fragment; JSON
``deployments[].fragment``): its keys are still checked, but it is not a launch of its own."""

from __future__ import annotations

from pathlib import Path

from vlint.core.invocation import ConfigFile, Entry, Invocation
from vlint.core.span import Span
from vlint.run.lint import LintOptions, Reader
from vlint.sources import vllm_yaml


def _config(tmp_path: Path, text: str) -> Invocation:
    (tmp_path / "serve.yaml").write_text(text)
    reader = Reader(LintOptions(root=tmp_path))
    result = vllm_yaml.extract(reader.read(tmp_path / "serve.yaml"), reader.read)
    (inv,) = result.invocations
    return inv


def test_config_without_model_is_a_fragment(tmp_path: Path) -> None:
    inv = _config(tmp_path, "max-model-len: 8192\ngpu-memory-utilization: 0.9\ntensor-parallel-size: 2\n")
    assert inv.fragment
    assert inv.config is not None and inv.config.entries[0].key == "max-model-len"  # still read, so still checked


def test_config_with_a_model_is_a_launch(tmp_path: Path) -> None:
    assert not _config(tmp_path, "model: Qwen/Qwen3-8B\nmax-model-len: 8192\ngpu-memory-utilization: 0.9\n").fragment


def test_other_config_launches_are_not_fragments() -> None:
    # a KAITO ConfigMap (its Workspace runs it) and a launch with argv are launches, model or not
    span = Span("k.yaml", 3, 1, 3, 5)
    cfg = ConfigFile("k.yaml", [Entry("max-model-len", 8192, span, span)], span)
    assert not Invocation(source="kubernetes", program="config", span=span, config=cfg).fragment
    assert Invocation(source="vllm-config", program="config", span=span, config=cfg).fragment

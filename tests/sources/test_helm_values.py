"""Helm values files whose chart is not here (vlint.sources.kube.helm_values): the model setting is the
launch, read from the model only (opaque argv); and the files it must leave alone."""

from __future__ import annotations

import textwrap
from pathlib import Path

from vlint.run.lint import LintOptions, Reader
from vlint.sources.kube import helm_values
from vlint.sources.registry import sources_for


def _src(tmp_path: Path, name: str, text: str, **beside: str):
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip("\n"))
    for other, body in beside.items():
        (path.parent / other).write_text(body)
    reader = Reader(LintOptions(root=tmp_path))
    return reader.read(path), reader.read


def _launches(tmp_path: Path, name: str, text: str, **beside: str):
    src, read = _src(tmp_path, name, text, **beside)
    if not helm_values.sniff(src):
        return None
    result = helm_values.extract(src, read)
    assert result.error is None
    return result.invocations


GENERIC = """
llm-serving:
  service:
    image:
      version: "vllm/vllm-openai:v0.10.2"
  llm:
    hfModelName: Qwen/Qwen2.5-1.5B-Instruct
    args: '--dtype auto'
"""


def test_generic_values_model_key(tmp_path: Path) -> None:
    (inv,) = _launches(tmp_path, "chart/values.yaml", GENERIC)
    assert [t.text for t in inv.args] == ["Qwen/Qwen2.5-1.5B-Instruct"]
    assert inv.span.line == 6 and inv.opaque_args
    assert "inferred" in inv.label and "llm-serving.llm.hfModelName" in inv.label
    assert inv.facts["vllm_version"].value == "0.10.2"


def test_model_mapping_name_and_null_model(tmp_path: Path) -> None:
    (inv,) = _launches(
        tmp_path,
        "a/values.yaml",
        'model:\n  organization: "meta"\n  name: "Llama-3.2-1B"\nimage: {name: vllm/vllm-openai}\n',
    )
    assert inv.args[0].text == "Llama-3.2-1B" and inv.span.line == 3
    (inv,) = _launches(tmp_path, "b/values.yaml", "modelId: null\nvllm:\n  extra: --enforce-eager\n")
    assert inv.args[0].unresolved and inv.span.line == 1


def test_llm_d_deployer_overlay(tmp_path: Path) -> None:
    text = """
    sampleApplication:
      model:
        modelArtifactURI: pvc://model-pvc/RedHatAI/Llama-3.2-1B
      resources:
        limits:
          nvidia.com/gpu: 2
      decode:
        extraArgs:
          - "--tensor-parallel-size"
          - "2"
    """
    (inv,) = _launches(tmp_path, "examples/overlay.yaml", text)
    assert [t.text for t in inv.args] == ["/models/RedHatAI/Llama-3.2-1B", "--tensor-parallel-size", "2"]
    assert inv.facts["gpu_count"].value == 2
    (inv,) = _launches(tmp_path, "examples/hf.yaml", "sampleApplication:\n  model:\n    modelArtifactURI: hf://org/m\n")
    assert inv.args[0].text == "org/m" and not inv.args[0].unresolved


def test_does_not_fire(tmp_path: Path) -> None:
    # a chart beside it: rendered with its templates instead
    assert _launches(tmp_path, "c1/values.yaml", GENERIC, **{"Chart.yaml": "name: x\n"}) is None
    # vLLM only in a comment
    assert _launches(tmp_path, "c2/values.yaml", "# like vllm\nmodel: Qwen/Qwen3-8B\n") is None
    # not named like a values file
    assert _launches(tmp_path, "c3/config.yaml", "engine: vllm\nmodel: Qwen/Qwen3-8B\n") is None
    # a values file of a vLLM chart without a model setting
    assert _launches(tmp_path, "c4/values.yaml", "image:\n  repository: vllm/vllm-openai\nreplicas: 2\n") == []
    # model keys whose values are not model ids
    assert _launches(tmp_path, "c5/values.yaml", "vllm: {}\nmodel:\n  enabled: true\nmodelName: ''\n") == []
    # a Kubernetes manifest named values.yaml
    assert _launches(tmp_path, "c6/values.yaml", "apiVersion: v1\nkind: ConfigMap\ndata: {model: vllm}\n") == []


def test_other_sources_come_first(tmp_path: Path) -> None:
    src, _ = _src(tmp_path, "d/docker-compose.values.yaml", "services:\n  vllm:\n    image: vllm/vllm-openai\n")
    names = [s.name for s in sources_for(src)]
    assert names.index("compose") < names.index("helm-values")

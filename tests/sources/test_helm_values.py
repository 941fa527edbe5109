"""Helm values files whose chart is not here (vlint.sources.kube.helm_values): the model setting is the
launch, read from the model only (opaque argv); and the files it must leave alone."""

from __future__ import annotations

import textwrap
from pathlib import Path

from vlint.engine.catalog import load_catalog
from vlint.engine.runner import Engine
from vlint.run.lint import LintOptions, Reader, lint_paths
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
    (tmp_path / "c1" / "templates").mkdir(parents=True)
    (tmp_path / "c1" / "templates" / "deployment.yaml").write_text("kind: Deployment\n")
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


def _result(tmp_path: Path, name: str, text: str):
    src, read = _src(tmp_path, name, text)
    assert helm_values.sniff(src)
    return helm_values.extract(src, read)


GENERIC_CHART = """
replicaCount: 1
image:
  repository: vllm/vllm-openai
  tag: v0.8.5
deployment:
  command: ["vllm", "serve"]
  args:
    - Qwen/Qwen2.5-7B-Instruct
    - --max-model-len
    - "32768"
  env:
    - name: VLLM_USE_V1
      value: "0"
  livenessProbe:
    exec:
      command: ["curl", "-f", "localhost:8000/health"]
resources:
  limits:
    nvidia.com/gpu: 2
"""


def test_a_generic_chart_command_and_args_are_the_launch(tmp_path: Path) -> None:
    (inv,) = _launches(tmp_path, "g1/values.yaml", GENERIC_CHART)
    assert inv.program == "vllm serve" and [t.text for t in inv.args] == [
        "Qwen/Qwen2.5-7B-Instruct",
        "--max-model-len",
        "32768",
    ]
    assert inv.args[0].span.line == 8 and inv.opaque_args  # the chart's template may add words
    assert "deployment command/args" in inv.label and "templates are not here" in inv.label
    assert inv.facts["vllm_version"].value == "0.8.5" and inv.facts["vllm_version"].span.line == 4
    assert inv.facts["gpu_count"].value == 2 and inv.env["VLLM_USE_V1"].text == "0"


def test_args_alone_run_by_a_vllm_image_split_in_registry_repository_tag(tmp_path: Path) -> None:
    text = """
    image:
      registry: docker.io
      repository: vllm/vllm-openai
      tag: v0.9.2
    args: ["--model", "Qwen/Qwen2.5-7B-Instruct", "--tensor-parallel-size", "2"]
    """
    (inv,) = _launches(tmp_path, "g2/values.yaml", text)
    assert inv.facts["image"].value == "docker.io/vllm/vllm-openai:v0.9.2"
    assert [t.text for t in inv.args][:2] == ["--model", "Qwen/Qwen2.5-7B-Instruct"]


def test_a_vllm_chart_whose_launch_is_not_in_its_values_gets_a_note(tmp_path: Path) -> None:
    text = "image:\n  repository: vllm/vllm-openai\n  tag: v0.8.5\nreplicaCount: 1\nresources: {}\n"
    result = _result(tmp_path, "g3/values.yaml", text)
    assert result.invocations == []
    (note,) = result.notes
    assert "is not checked" in note and "helm template CHART -f values.yaml | vlint -" in note


def test_values_of_a_chart_that_only_talks_to_vllm_stay_silent(tmp_path: Path) -> None:
    text = """
    image:
      repository: ghcr.io/acme/chat-ui
      tag: 1.2.0
    command: ["node", "server.js"]
    args: ["--port", "3000"]
    env:
      VLLM_URL: http://vllm:8000/v1
    """
    result = _result(tmp_path, "g4/values.yaml", text)
    assert result.invocations == [] and result.notes == [] and result.problems == []


def test_a_probe_command_is_not_a_launch(tmp_path: Path) -> None:
    text = """
    image: vllm/vllm-openai:v0.8.5
    livenessProbe:
      exec:
        command: ["python3", "-m", "vllm.entrypoints.openai.api_server", "--help"]
    """
    result = _result(tmp_path, "g5/values.yaml", text)
    assert result.invocations == []


def test_the_pod_of_a_chart_not_here_is_not_docker(tmp_path: Path) -> None:
    text = "image: {repository: vllm/vllm-openai, tag: v0.9.2}\nargs: [--model, Qwen/Qwen2.5-7B-Instruct, -tp, '2']\n"
    (tmp_path / "values.yaml").write_text(text)
    report = lint_paths([tmp_path], Engine(load_catalog()), LintOptions(root=tmp_path))
    assert report.files[0].launches == 1
    # the chart's template writes the pod (its /dev/shm volume): not the 64 MiB of a docker run
    assert [f for f in report.findings if f.code == "VL602"] == []


def test_values_beside_a_chart_that_renders_nothing_here(tmp_path: Path) -> None:
    chart = "apiVersion: v2\nname: wrap\nversion: 0.1.0\n"
    # Chart.yaml without templates/ or charts/ (a wrapper of remote dependencies): read as values alone
    (inv,) = _launches(tmp_path, "w1/values.yaml", GENERIC_CHART, **{"Chart.yaml": chart})
    assert inv.program == "vllm serve"
    # a chart with templates renders them from these values: not read here
    (tmp_path / "w2" / "templates").mkdir(parents=True)
    (tmp_path / "w2" / "templates" / "deployment.yaml").write_text("kind: Deployment\n")
    assert _launches(tmp_path, "w2/values.yaml", GENERIC_CHART, **{"Chart.yaml": chart}) is None
    # templates/ as a symbolic link (it may lead out of the lint root): not listed, taken as a chart that
    # renders here
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (tmp_path / "w3").mkdir()
    (tmp_path / "w3" / "templates").symlink_to(outside, target_is_directory=True)
    assert _launches(tmp_path, "w3/values.yaml", GENERIC_CHART, **{"Chart.yaml": chart}) is None


def test_a_values_file_named_otherwise_reads_like_helm_create(tmp_path: Path) -> None:
    text = GENERIC_CHART + "service:\n  port: 8000\nnodeSelector: {}\ntolerations: []\n"
    (inv,) = _launches(tmp_path, "deploy/prod.yaml", text)
    assert inv.program == "vllm serve"
    # an image and one chart key are not enough
    assert _launches(tmp_path, "deploy/other.yaml", "image: vllm/vllm-openai:v0.8.5\nresources: {}\n") is None


def test_args_that_name_no_model_take_the_values_model_setting(tmp_path: Path) -> None:
    """Values args that start with a flag: the model is the values' model setting (which the chart's
    template puts first), said to be inferred from the key; an item written as a flag and its value is
    the two words a template's shell line makes of it, never the positional model argparse would take
    one word with a space for."""
    text = """
    model:
      organization: "meta-llama"
      name: "Llama-3.2-1B"
      contextLength: "8192"
    image:
      name: "vllm/vllm-openai"
      tag: "v0.9.2"
    args: ["--load-format auto", "--dtype=half", "--served-model-name 'a b'"]
    """
    (inv,) = _launches(tmp_path, "m1/values.yaml", text)
    words = ["Llama-3.2-1B", "--load-format", "auto", "--dtype=half", "--served-model-name 'a b'"]
    assert [t.text for t in inv.args] == words
    assert inv.args[0].span.line == 3 and (inv.args[1].span.line, inv.args[1].span.column) == (8, 9)
    assert (inv.args[2].span.line, inv.args[2].span.column) == (8, 23)
    assert "the model from model.name, inferred from the key's name" in inv.label
    # args that name their model (a positional, --model) keep it; values without a model setting add none
    for args, first in (
        ('["Qwen/Qwen2.5-7B-Instruct", "--load-format auto"]', "Qwen/Qwen2.5-7B-Instruct"),
        ('["--model", "Qwen/Qwen2.5-7B-Instruct"]', "--model"),
    ):
        other = text.replace(text.splitlines()[-2], f"    args: {args}")
        (inv,) = _launches(tmp_path, f"m{len(first)}/values.yaml", other)
        assert inv.args[0].text == first and "inferred from the key" not in inv.label
    bare = 'image:\n  repository: vllm/vllm-openai\n  tag: v0.9.2\nargs: ["--max-model-len 4096", "--model=x/y"]\n'
    (inv,) = _launches(tmp_path, "m3/values.yaml", bare)
    assert [t.text for t in inv.args] == ["--max-model-len", "4096", "--model=x/y"]

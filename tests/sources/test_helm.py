"""Helm values: the argv each chart's template renders, with the chart's traps, and spans in the values file.

Spans are ``line:col-end_line:end_col`` (1-based, end exclusive), counted on the values texts below.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from vlint.core.invocation import Invocation
from vlint.core.span import Span
from vlint.launch.resolver import ResolveOptions, resolve
from vlint.run.lint import LintOptions, Reader
from vlint.sources.base import SourceResult, SourceText
from vlint.sources.kube import helm
from vlint.sources.registry import sources_for
from vlint.sources.yaml_nodes import ScalarNode, compose_all, mapping_get


def sp(s: Span | None) -> str:
    assert s is not None
    return f"{s.line}:{s.column}-{s.end_line}:{s.end_column}"


def extract(tmp_path: Path, text: str, name: str = "values.yaml") -> SourceResult:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    reader = Reader(LintOptions(root=tmp_path))
    src = reader.read(path)
    assert helm.sniff(src)
    result = helm.extract(src, reader.read)
    assert result.error is None, result.error.message
    return result


def launches(tmp_path: Path, text: str) -> list[Invocation]:
    return extract(tmp_path, text).invocations


def one(tmp_path: Path, text: str) -> Invocation:
    (inv,) = launches(tmp_path, text)
    return inv


def argv(inv: Invocation) -> list[str]:
    return [t.text for t in inv.args]


def span_of(inv: Invocation, text: str) -> str:
    return sp(next(t for t in inv.args if t.text == text).span)


BASIC = """\
servingEngineSpec:
  modelSpec:
  - name: "llama3"
    repository: "vllm/vllm-openai"
    tag: "v0.10.2"
    modelURL: "meta-llama/Llama-3.1-8B-Instruct"
    replicaCount: 2
    requestCPU: 10
    requestMemory: "16Gi"
    requestGPU: 1
    vllmConfig:
      enableChunkedPrefill: false
      maxModelLen: 4096
      gpuMemoryUtilization: 0.95
      extraArgs: ["--gpu-memory-utilization", "0.8"]
    hf_token: hf_abcdefghijklmnopqrstuvwxyzABCDEFGH
  - name: "disabled-example"
    enabled: false
    repository: "vllm/vllm-openai"
    tag: "latest"
    modelURL: "mistralai/Mistral-7B-Instruct-v0.2"
"""


def test_production_stack_renders_like_the_chart(tmp_path: Path) -> None:
    result = extract(tmp_path, BASIC)
    (inv,) = result.invocations  # enabled: false is not deployed
    assert inv.source == "helm" and inv.program == "vllm serve"
    assert inv.label == "modelSpec llama3 (production-stack values)"
    assert argv(inv) == [
        "meta-llama/Llama-3.1-8B-Instruct",
        "--host",
        "0.0.0.0",
        "--port",
        "8000",
        "--no-enable-chunked-prefill",
        # the chart's `else` branch: a vllmConfig without a true enablePrefixCaching disables it
        "--no-enable-prefix-caching",
        "--max-model-len",
        "4096",
        "--gpu_memory_utilization",
        "0.95",
        # extraArgs come last, so they win
        "--gpu-memory-utilization",
        "0.8",
    ]
    assert sp(inv.args[0].span) == "6:16-6:48"
    assert span_of(inv, "--no-enable-chunked-prefill") == "12:7-12:27"
    assert span_of(inv, "--no-enable-prefix-caching") == "11:5-11:15"  # the vllmConfig key
    assert span_of(inv, "4096") == "13:20-13:24"
    assert span_of(inv, "0.8") == "15:48-15:51"
    facts = {k: f.value for k, f in inv.facts.items()}
    assert facts["image"] == "vllm/vllm-openai:v0.10.2" and facts["vllm_version"] == "0.10.2"
    assert facts["gpu_count"] == 1 and facts["replicas"] == 2
    assert facts["shm_mounted"] is False  # no tensorParallelSize: no /dev/shm volume
    # the token is stored in a chart-made Secret: the env var is a secret reference, the file holds it
    assert inv.env["HF_TOKEN"].unresolved
    assert [name for name, _ in result.assignments] == ["HF_TOKEN"]


def test_extra_args_win_over_mapped_keys(tmp_path: Path) -> None:
    dep = resolve(one(tmp_path, BASIC), ResolveOptions())
    assert dep.value("gpu_memory_utilization") == 0.8
    assert dep.value("enable_prefix_caching") is False
    assert dep.user_value("enable_chunked_prefill") is False
    # ... which vLLM 0.10.2's V1 engine overrides: it turns chunked prefill back on (defaults.py)
    assert dep.value("enable_chunked_prefill") is True
    assert [s.value for s in dep.args.occurrences["gpu_memory_utilization"]] == [0.95, 0.8]


def test_v0_tensor_parallel_shm_and_lmcache(tmp_path: Path) -> None:
    inv = one(
        tmp_path,
        """\
        servingEngineSpec:
          containerPort: 8080
          vllmApiKey: "abc123XYZ987"
          modelSpec:
          - name: qwen14b
            repository: lmcache/vllm-openai
            tag: "2025-05-27-v1"
            modelURL: Qwen/Qwen2.5-14B-Instruct
            requestGPU: 4
            requestGPUType: amd.com/gpu
            vllmConfig:
              v0: "1"
              enablePrefixCaching: true
              tensorParallelSize: 4
              maxModelLen: 1048576
            shmSize: 4Gi
            lmcacheConfig:
              enabled: true
            chatTemplate: tool.jinja
            modelRevision: abc123
        """,
    )
    assert argv(inv) == [
        "Qwen/Qwen2.5-14B-Instruct",
        "--host",
        "0.0.0.0",
        "--port",
        "8080",
        "--enable-prefix-caching",
        "--max-model-len",
        # Helm reads numbers as float64 and prints them with %v: 1048576 becomes 1.048576e+06
        "1.048576e+06",
        "--tensor-parallel-size",
        "4",
        "--revision",
        "abc123",
        "--kv-transfer-config",
        '{"kv_connector":"LMCacheConnector","kv_role":"kv_both"}',
        "--chat-template",
        "/templates/tool.jinja",
    ]
    assert inv.env["VLLM_USE_V1"].text == "0" and sp(inv.env["VLLM_USE_V1"].span) == "12:11-12:14"
    assert inv.env["VLLM_API_KEY"].unresolved
    facts = {k: f.value for k, f in inv.facts.items()}
    assert facts["gpu_count"] == 4 and facts["gpu_resource"] == "amd.com/gpu"
    assert facts["shm_mounted"] is True and facts["shm_size"] == "4Gi"
    dep = resolve(inv, ResolveOptions())
    assert any(i.code == "VL004" and "1.048576e+06" in i.message for i in dep.args.issues)


def test_tensor_parallel_in_extra_args_gets_no_shm_and_no_gpu_request(tmp_path: Path) -> None:
    inv = one(
        tmp_path,
        """\
        servingEngineSpec:
          modelSpec:
          - name: gpt-oss
            repository: vllm/vllm-openai
            tag: v0.15.1
            modelURL: /data/models/gpt-oss-120b
            vllmConfig:
              enablePrefixCaching: true
              extraArgs:
                - "--tensor-parallel-size=2"
        """,
    )
    assert "--tensor-parallel-size=2" in argv(inv)
    assert inv.facts["shm_mounted"].value is False
    assert "gpu_count" not in inv.facts  # requestGPU absent: the chart renders no GPU request


def test_ray_template_renders_pipeline_parallel(tmp_path: Path) -> None:
    inv = one(
        tmp_path,
        """\
        servingEngineSpec:
          modelSpec:
          - name: "distilgpt2-raycluster"
            repository: "lmcache/vllm-openai"
            tag: "v0.3.1"
            modelURL: "distilbert/distilgpt2"
            replicaCount: 1
            requestGPU: 1
            vllmConfig:
              tensorParallelSize: 1
              pipelineParallelSize: 2
              gpuMemoryUtilization: 0.9
            raySpec:
              enabled: true
              headNode:
                requestGPU: 1
        """,
    )
    assert inv.label == "modelSpec distilgpt2-raycluster (production-stack values, Ray)"
    assert argv(inv)[5:] == [
        "--distributed-executor-backend",
        "ray",
        "--tensor-parallel-size",
        "1",
        "--pipeline-parallel-size",
        "2",
        "--gpu-memory-utilization",
        "0.9",
    ]
    assert inv.facts["gpu_count"].value == 1
    assert inv.facts["cluster_gpu_count"].value == 2 and inv.facts["group_size"].value == 2


def test_engine_disabled_renders_nothing(tmp_path: Path) -> None:
    text = "servingEngineSpec:\n  enableEngine: false\n  modelSpec:\n  - name: a\n    modelURL: m/x\n"
    assert launches(tmp_path, text) == []


def test_kubeai_catalog(tmp_path: Path) -> None:
    invs = launches(
        tmp_path,
        """\
        all:
          enabled: false
        catalog:
          llama-3.1-8b-l4:
            enabled: true
            features: [TextGeneration]
            url: hf://meta-llama/Llama-3.1-8B-Instruct
            engine: VLLM
            args:
              - --max-model-len=16384
              - --gpu-memory-utilization=0.99
            env:
              VLLM_USE_V1: "1"
            resourceProfile: nvidia-gpu-l4:1
          gemma2-2b-cpu:
            enabled: true
            url: "ollama://gemma2:2b"
            engine: OLlama
            resourceProfile: cpu:2
          qwen-h100:
            enabled: false
            url: hf://Qwen/Qwen2.5-72B-Instruct
            engine: VLLM
            args: [--tensor-parallel-size=2]
            resourceProfile: nvidia-gpu-h100:2
        """,
    )
    assert [i.label for i in invs] == [
        "catalog entry llama-3.1-8b-l4 (KubeAI models chart)",
        "catalog entry qwen-h100 (KubeAI models chart, disabled by default)",
    ]
    llama, qwen = invs
    assert argv(llama) == [
        "--model",
        "meta-llama/Llama-3.1-8B-Instruct",
        "--served-model-name",
        "llama-3.1-8b-l4",
        "--max-model-len=16384",
        "--gpu-memory-utilization=0.99",
    ]
    assert sp(llama.args[1].span) == "7:15-7:47"
    assert llama.facts["gpu_type"].value == "l4" and llama.facts["gpu_count"].value == 1
    assert qwen.facts["enabled"].value is False and qwen.facts["gpu_count"].value == 2


LLM_D = """\
modelArtifacts:
  name: facebook/opt-125m
  uri: hf://"{{ .Values.modelArtifacts.name }}"
routing:
  servicePort: 8000
decode:
  create: true
  replicas: 2
  parallelism:
    tensor: 2
  containers:
  - name: "vllm"
    image: "ghcr.io/llm-d/llm-d-cuda:v0.4.0"
    modelCommand: vllmServe
    args:
      - "--enforce-eager"
    env:
      - name: VLLM_LOGGING_LEVEL
        value: DEBUG
prefill:
  create: true
  containers:
  - name: "vllm"
    image: "opea/vllm-gaudi:1.22.0"
    modelCommand: imageDefault
    args:
      - --max-model-len=2048
"""


def test_llm_d_modelservice(tmp_path: Path) -> None:
    decode, prefill = launches(tmp_path, LLM_D)
    assert decode.label == "decode container vllm (llm-d modelservice values)"
    assert decode.program == "vllm serve"
    # hf://"{{ .Values.modelArtifacts.name }}" is rendered with tpl, then the quotes go as YAML quotes
    assert argv(decode) == [
        "facebook/opt-125m",
        "--port",
        "8200",  # decode listens behind the routing proxy (proxy.targetPort, default 8200)
        "--tensor-parallel-size",
        "2",
        "--served-model-name",
        "facebook/opt-125m",
        "--enforce-eager",
    ]
    assert decode.facts["gpu_count"].value == 2 and decode.facts["replicas"].value == 2
    assert decode.env["VLLM_LOGGING_LEVEL"].text == "DEBUG"
    assert span_of(decode, "--enforce-eager") == "16:10-16:25"
    # imageDefault: no command, --model and --port as arguments of the image's entrypoint
    assert prefill.program == "image"
    assert argv(prefill) == [
        "--model",
        "facebook/opt-125m",
        "--port",
        "8000",
        "--served-model-name",
        "facebook/opt-125m",
        "--max-model-len=2048",
    ]


def test_vllm_example_chart_command(tmp_path: Path) -> None:
    inv = one(
        tmp_path,
        """\
        image:
          repository: "vllm/vllm-openai"
          tag: "latest"
          command: ["vllm", "serve", "/data/", "--served-model-name", "opt-125m", "--tensor-parallel-size", "2"]
        resources:
          limits:
            nvidia.com/gpu: 2
        gpuModels:
          - "NVIDIA-L4"
        """,
    )
    assert argv(inv) == ["/data/", "--served-model-name", "opt-125m", "--tensor-parallel-size", "2"]
    assert sp(inv.args[0].span) == "4:31-4:37"
    assert inv.facts["gpu_count"].value == 2 and inv.facts["gpu_type"].value == "NVIDIA-L4"
    assert inv.facts["shm_mounted"].value is False


def test_invalid_template_values_file_is_vl604(tmp_path: Path) -> None:
    result = extract(
        tmp_path,
        """\
        servingEngineSpec:
          modelSpec:
          {{- range .Values.models }}
          - name: {{ .name }}
            modelURL: vllm/{{ .url }}
          {{- end }}
        """,
    )
    assert result.invocations == []
    (problem,) = result.problems
    assert problem.code == "VL604" and sp(problem.span) == "3:3-3:30"


def test_template_source_for_other_vllm_templates(tmp_path: Path) -> None:
    path = tmp_path / "serve.yaml"
    path.write_text("run: |\n  {{ if .x }}vllm serve {{ .model }}{{ end }}\nresources: {{ .res }\n")
    src = Reader(LintOptions(root=tmp_path)).read(path)
    assert [s.name for s in sources_for(src)] == ["template"]
    result = helm.template_extract(src, Reader(LintOptions(root=tmp_path)).read)
    assert [p.code for p in result.problems] == ["VL604"]


@pytest.mark.parametrize(
    ("text", "sniffed"),
    [
        ("servingEngineSpec:\n  modelSpec: []\n", True),
        ("catalog:\n  a:\n    url: hf://x/y\n    engine: VLLM\n", True),
        ("catalog:\n  a:\n    url: ollama://x\n    engine: OLlama\n", False),
        ("modelArtifacts:\n  uri: hf://x/y\ndecode:\n  create: true\n", True),
        ("services:\n  vllm:\n    image: vllm/vllm-openai\n    command: serve x\n", False),
        ("image:\n  repository: nginx\n  command: [nginx]\n", False),
    ],
)
def test_sniffing(tmp_path: Path, text: str, sniffed: bool) -> None:
    assert helm.sniff(SourceText("values.yaml", tmp_path / "values.yaml", text)) is sniffed


@pytest.mark.parametrize(
    ("yaml_value", "rendered"),
    [
        ("4096", "4096"),
        ("999999", "999999"),
        ("1000000", "1e+06"),
        ("1234567", "1.234567e+06"),
        ("0.90", "0.9"),
        ("0.00001", "1e-05"),
        ('"1000000"', "1000000"),
        ("bfloat16", "bfloat16"),
        ("true", "true"),
    ],
)
def test_go_value_prints_numbers_like_helm(yaml_value: str, rendered: str) -> None:
    (doc,) = compose_all(f"k: {yaml_value}\n", "v.yaml")
    node = mapping_get(doc, "k")
    assert isinstance(node, ScalarNode)
    assert helm.go_value(node) == rendered


def test_llm_d_explicit_gpu_limit_wins(tmp_path: Path) -> None:
    # TPU-style or hand-set counts: the chart keeps an explicit accelerator limit and fills in
    # dataLocal x tensor only where none is set
    values = LLM_D.replace(
        "    modelCommand: vllmServe\n",
        '    modelCommand: vllmServe\n    resources:\n      limits:\n        nvidia.com/gpu: "4"\n',
    )
    decode, prefill = launches(tmp_path, values)
    assert decode.facts["gpu_count"].value == 4
    assert "resources.limits[nvidia.com/gpu]" in decode.facts["gpu_count"].detail
    assert prefill.facts["gpu_count"].value == 1  # no limit there: dataLocal x tensor


def test_production_stack_as_a_dependency_of_a_parent_chart(tmp_path: Path) -> None:
    # a parent chart's values for its production-stack dependency, under the dependency's name
    nested = "vllm-stack:\n" + textwrap.indent(BASIC, "  ") + "router:\n  enabled: true\n"
    (inv,) = launches(tmp_path, nested)
    assert inv.label == "modelSpec llama3 (production-stack values)"
    assert argv(inv)[0] == "meta-llama/Llama-3.1-8B-Instruct" and inv.args[0].span.line == 7
    assert inv.facts["vllm_version"].value == "0.10.2"


def test_a_manifest_spec_is_not_a_subchart(tmp_path: Path) -> None:
    text = (
        "apiVersion: llm-d.ai/v1alpha1\nkind: ModelService\nmetadata: {name: m}\n"
        "spec:\n  modelArtifacts: {uri: hf://org/m}\n  decode: {replicas: 1}\n"
    )
    path = tmp_path / "ms.yaml"
    path.write_text(text)
    reader = Reader(LintOptions(root=tmp_path))
    assert helm.extract(reader.read(path), reader.read).invocations == []


def test_a_manifest_with_model_artifacts_in_its_spec_is_not_chart_values(tmp_path: Path) -> None:
    path = tmp_path / "modelservice.yaml"
    text = "apiVersion: llm-d.ai/v1alpha1\nkind: ModelService\nspec:\n  modelArtifacts:\n    uri: x\n  decode: {}\n"
    path.write_text(text)
    reader = Reader(LintOptions(root=tmp_path))
    assert not helm.sniff(reader.read(path))

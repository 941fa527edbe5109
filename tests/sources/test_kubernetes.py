"""Kubernetes manifests: launches per container, argv and env the Kubernetes way, facts, spans.

Spans are written ``line:col-end_line:end_col`` (1-based, end exclusive) and were counted by hand
from the manifests below (the first column of a manifest line is column 1).
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from vlint.core.invocation import Invocation, Token
from vlint.core.span import Span
from vlint.run.lint import LintOptions, Reader
from vlint.sources.base import SourceResult, SourceText
from vlint.sources.kube import kubernetes
from vlint.sources.kube.k8s_common import LineIndex, MappedText, compose_documents, expand_refs, scalar_text
from vlint.sources.registry import sources_for
from vlint.sources.yaml_nodes import ScalarNode, mapping_get


def sp(s: Span | None) -> str:
    assert s is not None
    return f"{s.line}:{s.column}-{s.end_line}:{s.end_column}"


def extract(tmp_path: Path, text: str, name: str = "deploy.yaml") -> SourceResult:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    reader = Reader(LintOptions(root=tmp_path))
    src = reader.read(path)
    assert kubernetes.sniff(src)
    return kubernetes.extract(src, reader.read)


def launches(tmp_path: Path, text: str, **kw: str) -> list[Invocation]:
    result = extract(tmp_path, text, **kw)
    assert result.error is None, result.error.message
    return result.invocations


def one(tmp_path: Path, text: str, **kw: str) -> Invocation:
    (inv,) = launches(tmp_path, text, **kw)
    return inv


def argv(inv: Invocation) -> list[str]:
    return [t.text for t in inv.args]


def arg(inv: Invocation, text: str) -> Token:
    return next(t for t in inv.args if t.text == text)


DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: llm
spec:
  replicas: 3
  template:
    spec:
      nodeSelector:
        cloud.google.com/gke-accelerator: nvidia-l4
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.10.2
          args:
            - --model
            - Qwen/Qwen2.5-7B-Instruct
            - "--max-model-len=8192"
          resources:
            limits:
              nvidia.com/gpu: "2"
          volumeMounts:
            - {name: dshm, mountPath: /dev/shm}
        - name: metrics-sidecar
          image: prom/statsd-exporter:v0.26.0
          args: ["--web.listen-address=:9102"]
      volumes:
        - name: dshm
          emptyDir: {medium: Memory, sizeLimit: 8Gi}
"""


def test_deployment_container_args_run_by_the_image_entrypoint(tmp_path: Path) -> None:
    inv = one(tmp_path, DEPLOYMENT)
    assert inv.source == "kubernetes"
    assert inv.program == "image"  # vllm/vllm-openai v0.10.x: vllm serve or api_server, not pinned down
    assert inv.label == "container vllm in Deployment/llm"
    assert argv(inv) == ["--model", "Qwen/Qwen2.5-7B-Instruct", "--max-model-len=8192"]
    assert [sp(t.span) for t in inv.args] == ["15:15-15:22", "16:15-16:39", "17:16-17:36"]
    assert sp(inv.span) == "13:18-13:42"
    facts = {k: f.value for k, f in inv.facts.items()}
    assert facts["gpu_count"] == 2 and facts["gpu_resource"] == "nvidia.com/gpu"
    assert facts["gpu_type"] == "nvidia-l4" and sp(inv.facts["gpu_type"].span) == "10:43-10:52"
    assert facts["replicas"] == 3
    assert facts["image"] == "vllm/vllm-openai:v0.10.2" and facts["vllm_version"] == "0.10.2"
    assert facts["shm_mounted"] is True and facts["shm_medium"] == "Memory" and facts["shm_size"] == "8Gi"
    assert sp(inv.facts["shm_size"].span) == "28:49-28:52"
    assert sp(inv.facts["gpu_count"].span) == "20:15-20:34"


def test_sidecar_with_other_flags_is_not_a_launch(tmp_path: Path) -> None:
    invs = launches(tmp_path, DEPLOYMENT)
    assert [i.label for i in invs] == ["container vllm in Deployment/llm"]


def test_exec_form_command_k8s_variable_expansion(tmp_path: Path) -> None:
    inv = one(
        tmp_path,
        """\
        apiVersion: v1
        kind: Pod
        metadata: {name: p}
        spec:
          containers:
            - name: server
              image: vllm/vllm-openai:v0.10.2
              command: ["python3", "-m", "vllm.entrypoints.openai.api_server"]
              args:
                - --model=$(MODEL_ID)
                - --served-model-name=$$(MODEL_ID)
                - --download-dir=$(CACHE_DIR)
                - --api-key=$(API_KEY)
                - --port=$(PORT)
              env:
                - name: ORG
                  value: google
                - name: MODEL_ID
                  value: $(ORG)/gemma-7b
                - name: API_KEY
                  valueFrom: {secretKeyRef: {name: keys, key: vllm}}
                - name: LD_LIBRARY_PATH
                  value: ${LD_LIBRARY_PATH}:/usr/local/nvidia/lib64
              envFrom:
                - configMapRef: {name: settings}
        """,
    )
    assert inv.program == "api_server"
    assert sp(inv.span) == "8:18-8:25"  # the python3 word of the command list
    model, served, cache, key, port = inv.args
    # $(MODEL_ID) is the earlier env var (itself expanded from ORG); the span stays on the reference
    assert (model.text, model.unresolved, sp(model.span)) == ("--model=google/gemma-7b", False, "10:11-10:30")
    assert (served.text, served.unresolved) == ("--served-model-name=$(MODEL_ID)", True)  # $$ escapes
    assert cache.unresolved and cache.text == "--download-dir=$(CACHE_DIR)"  # undefined: left as written
    assert key.unresolved  # from a Secret
    assert port.unresolved  # may come from the envFrom ConfigMap
    assert inv.env["MODEL_ID"].text == "google/gemma-7b" and not inv.env["MODEL_ID"].unresolved
    assert inv.env["API_KEY"].unresolved and sp(inv.env["API_KEY"].span) == "21:22-21:61"
    ld = inv.env["LD_LIBRARY_PATH"]
    assert ld.unresolved and ld.text == "${LD_LIBRARY_PATH}:/usr/local/nvidia/lib64"
    assert inv.facts["secret_env"].value == "API_KEY"
    assert inv.facts["k8s_unexpanded_env"].value == "LD_LIBRARY_PATH"
    assert inv.facts["env_from"].value == "configmap/settings"


def test_sh_c_double_quoted_multiline_script(tmp_path: Path) -> None:
    inv = one(
        tmp_path,
        """\
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: lws-like}
        spec:
          template:
            spec:
              containers:
                - name: leader
                  image: vllm/vllm-openai:v0.8.5
                  command:
                    - sh
                    - -c
                    - "ray start --head --port=6379;
                      python3 -m vllm.entrypoints.openai.api_server
                      --model $(MODEL) --tensor-parallel-size 8 --max-model-len 4096"
                  env:
                    - {name: MODEL, value: meta-llama/Llama-3.1-405B-Instruct}
        """,
    )
    assert inv.program == "api_server"
    assert argv(inv) == [
        "--model",
        "meta-llama/Llama-3.1-405B-Instruct",
        "--tensor-parallel-size",
        "8",
        "--max-model-len",
        "4096",
    ]
    # the folded lines of the scalar keep their own lines and columns
    assert sp(inv.span) == "14:15-14:22"
    assert sp(arg(inv, "--model").span) == "15:15-15:22"
    assert sp(arg(inv, "meta-llama/Llama-3.1-405B-Instruct").span) == "15:23-15:31"  # on $(MODEL)
    assert sp(arg(inv, "--max-model-len").span) == "15:57-15:72"


def test_bash_exc_block_scalar_with_continuations_and_container_env(tmp_path: Path) -> None:
    inv = one(
        tmp_path,
        """\
        apiVersion: apps/v1
        kind: StatefulSet
        metadata: {name: prefill}
        spec:
          replicas: 1
          template:
            spec:
              containers:
                - name: app
                  image: ubuntu:22.04
                  command:
                    - /bin/bash
                    - "-exc"
                    - |
                      pip install vllm==0.10.2

                      python -m vllm.entrypoints.openai.api_server \\
                        --model ${MODEL_ID} \\
                        --max-model-len ${MAX_SEQ_LEN}
                  env:
                    - {name: MAX_SEQ_LEN, value: "512"}
                    - {name: MODEL_ID, value: /models/qwen}
        """,
    )
    assert inv.program == "api_server" and inv.label == "container app in StatefulSet/prefill"
    assert argv(inv) == ["--model", "/models/qwen", "--max-model-len", "512"]
    assert sp(inv.span) == "17:15-17:21"
    assert sp(arg(inv, "--model").span) == "18:17-18:24"
    assert sp(arg(inv, "512").span) == "19:33-19:47"  # the ${MAX_SEQ_LEN} the shell expands


def test_block_scalar_args_of_sh_c_command(tmp_path: Path) -> None:
    inv = one(
        tmp_path,
        """\
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: d}
        spec:
          template:
            spec:
              containers:
                - name: server
                  image: vllm/vllm-openai:v0.10.2
                  command: ["sh", "-c"]
                  args:
                    - >
                      vllm serve /models/Qwen3-8B
                      --max-model-len 40960
                      --tensor-parallel-size 4
        """,
    )
    assert inv.program == "vllm serve"
    assert argv(inv) == ["/models/Qwen3-8B", "--max-model-len", "40960", "--tensor-parallel-size", "4"]
    assert [sp(t.span) for t in inv.args[:3]] == ["13:26-13:42", "14:15-14:30", "14:31-14:36"]


def test_lws_leader_gets_the_group_gpus_and_the_worker_is_not_a_launch(tmp_path: Path) -> None:
    inv = one(
        tmp_path,
        """\
        apiVersion: leaderworkerset.x-k8s.io/v1
        kind: LeaderWorkerSet
        metadata: {name: vllm}
        spec:
          replicas: 2
          leaderWorkerTemplate:
            size: 2
            leaderTemplate:
              spec:
                containers:
                  - name: vllm-leader
                    image: vllm/vllm-openai:v0.8.5
                    command: ["sh", "-c", "vllm serve meta-llama/Llama-3.1-405B-Instruct -tp 8 -pp 2"]
                    resources: {limits: {nvidia.com/gpu: "8"}}
            workerTemplate:
              spec:
                containers:
                  - name: vllm-worker
                    image: vllm/vllm-openai:v0.8.5
                    command: ["sh", "-c", "ray start --block --address=$(LWS_LEADER_ADDRESS):6379"]
                    resources: {limits: {nvidia.com/gpu: "8"}}
        """,
    )
    assert inv.label == "container vllm-leader in LeaderWorkerSet/vllm (leader)"
    assert inv.facts["gpu_count"].value == 8
    assert inv.facts["group_size"].value == 2
    assert inv.facts["cluster_gpu_count"].value == 16
    assert inv.facts["replicas"].value == 2


def test_multi_document_list_and_openshift_template(tmp_path: Path) -> None:
    invs = launches(
        tmp_path,
        """\
        apiVersion: v1
        kind: Service
        metadata: {name: s}
        spec: {ports: [{port: 80}]}
        ---
        apiVersion: v1
        kind: List
        items:
          - apiVersion: batch/v1
            kind: CronJob
            metadata: {name: nightly}
            spec:
              jobTemplate:
                spec:
                  template:
                    spec:
                      containers:
                        - name: bench
                          image: vllm/vllm-openai:v0.10.2
                          args: ["Qwen/Qwen2.5-0.5B-Instruct", "--max-model-len", "2048"]
        ---
        apiVersion: template.openshift.io/v1
        kind: Template
        metadata: {name: t}
        objects:
          - apiVersion: serving.kserve.io/v1alpha1
            kind: ServingRuntime
            metadata: {name: vllm-runtime}
            spec:
              containers:
                - name: kserve-container
                  image: $(vllm-image)
                  command: [python, -m, vllm.entrypoints.openai.api_server]
                  args: ["--port=8080", "--model=/mnt/models", "--served-model-name={{.Name}}"]
        """,
    )
    assert [i.label for i in invs] == [
        "container bench in CronJob/nightly",
        "container kserve-container in ServingRuntime/vllm-runtime",
    ]
    cron, runtime = invs
    assert argv(cron)[0] == "Qwen/Qwen2.5-0.5B-Instruct" and not cron.opaque_args
    # KServe appends the InferenceService's arguments at run time: absence of a flag proves nothing
    assert runtime.opaque_args
    served = runtime.args[2]
    assert served.text == "--served-model-name={{.Name}}" and served.unresolved


def test_a_tab_after_a_scalar_does_not_hide_the_workload(tmp_path: Path) -> None:
    inv = one(
        tmp_path,
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec:\n  template:\n    spec:\n"
        "      containers:\n        - name: v\n          image: vllm/vllm-openai:v0.10.2\n"
        '          args: ["--model", "m/x"]\n---\napiVersion: v1\nkind: Service\nmetadata: {name: s}\n'
        "spec:\n  type: LoadBalancer\t\n",
    )
    assert argv(inv) == ["--model", "m/x"]


def test_a_broken_document_is_an_error_but_the_others_are_read(tmp_path: Path) -> None:
    result = extract(
        tmp_path,
        """\
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: d}
        spec:
          template:
            spec:
              containers:
                - name: v
                  image: vllm/vllm-openai:v0.10.2
                  args: ["--model", "m/x"]
        ---
        apiVersion: v1
        kind: ConfigMap
        data: [unclosed
        """,
    )
    assert [argv(i) for i in result.invocations] == [["--model", "m/x"]]
    assert result.error is not None and result.error.line is not None and result.error.line >= 14


def test_unknown_image_is_a_launch_when_its_args_are_vllm_flags(tmp_path: Path) -> None:
    invs = launches(
        tmp_path,
        """\
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: hpu}
        spec:
          template:
            spec:
              affinity:
                nodeAffinity:
                  requiredDuringSchedulingIgnoredDuringExecution:
                    nodeSelectorTerms:
                      - matchExpressions:
                          - {key: nvidia.com/gpu.product, operator: In, values: [NVIDIA-H100-80GB-HBM3]}
              containers:
                - name: server
                  image: intel/redhat-ai-services:1.20.0
                  args:
                    - --model=mistralai/Mistral-7B-Instruct-v0.3
                    - --tensor-parallel-size=1
                    - --max-model-len=6144
                - name: web
                  image: nginx:1.27
                  args: ["--host", "0.0.0.0", "--port", "8080"]
        """,
    )
    assert [i.label for i in invs] == ["container server in Deployment/hpu"]
    assert invs[0].program == "image"
    assert invs[0].facts["gpu_type"].value == "NVIDIA-H100-80GB-HBM3"


def test_kustomize_patch_without_image(tmp_path: Path) -> None:
    inv = one(
        tmp_path,
        """\
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: vllm-gemma-deployment}
        spec:
          template:
            spec:
              containers:
              - name: inference-server
                args:
                - --model=$(MODEL_ID)
                - --tensor-parallel-size=1
                - --max-model-len=1200
        """,
    )
    assert inv.program == "image"
    assert inv.args[0].unresolved  # MODEL_ID is defined in the base the patch applies to


def test_unknown_gpu_label_is_kept_raw(tmp_path: Path) -> None:
    inv = one(
        tmp_path,
        """\
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: tpu}
        spec:
          template:
            spec:
              nodeSelector:
                cloud.google.com/gke-tpu-accelerator: tpu-v6e-slice
                cloud.google.com/gke-gpu-driver-version: latest
              containers:
                - name: vllm-tpu
                  image: vllm/vllm-tpu:nightly
                  command: ["python3", "-m", "vllm.entrypoints.openai.api_server"]
                  args: ["--model=meta-llama/Llama-3.1-70B", "--tensor-parallel-size=8"]
                  resources: {limits: {google.com/tpu: 8}}
        """,
    )
    assert "gpu_type" not in inv.facts
    assert inv.facts["gpu_label"].value == "tpu-v6e-slice"
    assert inv.facts["tpu_count"].value == 8 and "gpu_count" not in inv.facts


def test_annotation_suppress_and_host_ipc(tmp_path: Path) -> None:
    inv = one(
        tmp_path,
        """\
        apiVersion: apps/v1
        kind: Deployment
        metadata:
          name: llm
          annotations:
            vlint.dev/disable: "VL101, VL203"
        spec:
          template:
            metadata:
              annotations: {vlint.dev/disable: VL602}
            spec:
              hostIPC: true
              containers:
                - name: vllm
                  image: vllm/vllm-openai:v0.10.2
                  args: ["--model", "m/x"]
        """,
    )
    assert inv.facts["suppress"].value == "VL101,VL203,VL602"
    assert sp(inv.facts["suppress"].span) == "6:24-6:38"
    assert inv.facts["ipc"].value == "host"


def test_kubeai_model(tmp_path: Path) -> None:
    inv = one(
        tmp_path,
        """\
        apiVersion: kubeai.org/v1
        kind: Model
        metadata:
          name: llama-70b
        spec:
          features: [TextGeneration]
          url: hf://meta-llama/Llama-3.1-70B-Instruct
          engine: VLLM
          args:
            - --max-model-len=8192
            - --tensor-parallel-size=2
          env:
            VLLM_USE_V1: "1"
          minReplicas: 0
          resourceProfile: nvidia-gpu-h100:2
        """,
    )
    assert inv.program == "api_server" and inv.label == "KubeAI Model/llama-70b"
    assert argv(inv) == [
        "--model",
        "meta-llama/Llama-3.1-70B-Instruct",
        "--served-model-name",
        "llama-70b",
        "--max-model-len=8192",
        "--tensor-parallel-size=2",
    ]
    assert sp(inv.args[1].span) == "7:13-7:46"
    assert inv.env["VLLM_USE_V1"].text == "1" and sp(inv.env["VLLM_USE_V1"].span) == "13:19-13:20"
    assert inv.facts["gpu_count"].value == 2 and inv.facts["gpu_type"].value == "h100"
    assert inv.facts["shm_mounted"].value is True  # KubeAI always mounts a memory /dev/shm
    assert inv.facts["replicas"].value == 0


def test_kubeai_model_of_another_engine_is_not_vllm(tmp_path: Path) -> None:
    result = extract(
        tmp_path,
        """\
        apiVersion: kubeai.org/v1
        kind: Model
        metadata: {name: gemma}
        spec:
          url: ollama://gemma2:2b
          engine: OLlama
          resourceProfile: cpu:2
        """,
    )
    assert result.invocations == []


def test_kserve_inference_service_huggingface_runtime(tmp_path: Path) -> None:
    inv = one(
        tmp_path,
        """\
        apiVersion: serving.kserve.io/v1beta1
        kind: InferenceService
        metadata: {name: llama}
        spec:
          predictor:
            nodeSelector: {node.kubernetes.io/instance-type: g5.8xlarge}
            model:
              modelFormat: {name: huggingface}
              args:
                - --model_name=llama
                - --model_id=meta-llama/Llama-3.1-8B-Instruct
                - --gpu-memory-utilization=0.95
                - --backend
                - vllm
                - --max_length=4096
              storageUri: s3://${bucket}/models/llama
              resources: {limits: {nvidia.com/gpu: "1"}}
        """,
    )
    assert inv.program == "api_server"
    # KServe's own options are dropped, --model_id becomes the model, --max_length max_model_len
    assert argv(inv) == [
        "--model",
        "meta-llama/Llama-3.1-8B-Instruct",
        "--gpu-memory-utilization=0.95",
        "--max-model-len",
        "4096",
    ]
    assert sp(inv.args[1].span) == "11:22-11:54"
    # the instance table: g5.8xlarge carries one A10G (vlint.hardware.instances)
    assert inv.facts["gpu_type"].value == "A10G"
    assert inv.facts["instance_gpu_count"].value == 1


def test_llm_inference_service(tmp_path: Path) -> None:
    inv = one(
        tmp_path,
        """\
        apiVersion: serving.kserve.io/v1alpha2
        kind: LLMInferenceService
        metadata: {name: qwen}
        spec:
          model:
            uri: "hf://Qwen/Qwen3-Coder-30B-A3B-Instruct-FP8"
            name: Qwen/Qwen3-Coder-30B-A3B-Instruct-FP8
          parallelism: {tensor: 2, expert: true}
          template:
            containers:
              - name: main
                env:
                  - name: VLLM_ADDITIONAL_ARGS
                    value: >-
                      --enable-auto-tool-choice
                      --tool-call-parser=qwen3_coder --max-model-len 32768
                resources: {limits: {nvidia.com/gpu: "2"}}
        """,
    )
    assert inv.program == "vllm serve"
    assert argv(inv) == [
        "Qwen/Qwen3-Coder-30B-A3B-Instruct-FP8",
        "--served-model-name",
        "Qwen/Qwen3-Coder-30B-A3B-Instruct-FP8",
        "--tensor-parallel-size",
        "2",
        "--enable-expert-parallel",
        "--enable-auto-tool-choice",
        "--tool-call-parser=qwen3_coder",
        "--max-model-len",
        "32768",
    ]
    assert sp(inv.args[0].span) == "6:16-6:53"
    assert sp(arg(inv, "--tool-call-parser=qwen3_coder").span) == "16:15-16:45"
    assert sp(arg(inv, "32768").span) == "16:62-16:67"


def test_template_is_vl604_not_an_error(tmp_path: Path) -> None:
    result = extract(
        tmp_path,
        """\
        {{- if .Values.enabled }}
        apiVersion: apps/v1
        kind: Deployment
        metadata:
          name: {{ .Release.Name }}-vllm
        spec:
          template:
            spec:
              containers:
                - name: vllm
                  image: vllm/vllm-openai:{{ .Values.tag }}
        {{- end }}
        """,
    )
    assert result.error is None and result.invocations == []
    (problem,) = result.problems
    assert problem.code == "VL604" and sp(problem.span) == "1:1-1:26"


def test_templated_command_in_valid_yaml_is_vl604(tmp_path: Path) -> None:
    result = extract(
        tmp_path,
        """\
        apiVersion: serving.kserve.io/v1alpha1
        kind: LLMInferenceServiceConfig
        metadata: {name: c}
        spec:
          template:
            containers:
              - name: main
                command: ["/bin/bash", "-c"]
                args:
                  - |
                    eval "exec vllm serve /mnt/models --tensor-parallel-size {{ .Spec.Parallelism.Tensor }} $@"
        """,
    )
    assert result.error is None and result.invocations == []
    (problem,) = result.problems
    assert problem.code == "VL604" and sp(problem.span) == "11:70-11:100"


def test_non_vllm_template_is_ignored(tmp_path: Path) -> None:
    result = extract(tmp_path, "{{- if .Values.x }}\napiVersion: v1\nkind: ConfigMap\n{{- end }}\n")
    assert result.error is None and result.problems == [] and result.invocations == []


def test_sniffing_needs_top_level_api_version_and_kind(tmp_path: Path) -> None:
    values = tmp_path / "values.yaml"
    values.write_text("servingEngineSpec:\n  modelSpec: []\nextra:\n  apiVersion: v1\n  kind: ConfigMap\n")
    src = Reader(LintOptions(root=tmp_path)).read(values)
    assert not kubernetes.sniff(src)
    assert [s.name for s in sources_for(src)] == ["helm"]
    manifest = SourceText("m.yaml", tmp_path / "m.yaml", "kind: Pod\napiVersion: v1\n")
    assert kubernetes.sniff(manifest)
    assert not kubernetes.sniff(SourceText("m.sh", tmp_path / "m.sh", "kind: Pod\napiVersion: v1\n"))


@pytest.mark.parametrize(
    ("yaml_text", "value"),
    [
        ('k: "a \\"b\\" c"\n', 'a "b" c'),
        ("k: 'it''s'\n", "it's"),
        ("k: |\n  line one\n    indented\n  end\n", "line one\n  indented\nend\n"),
        ("k: >-\n  folded\n  words\n", "folded words"),
        ('k: "joined \\\n  text"\n', "joined text"),
        ("k: plain\n  continued\n", "plain continued"),
    ],
)
def test_scalar_text_maps_every_character_back_to_its_source(yaml_text: str, value: str) -> None:
    lines = LineIndex("f.yaml", yaml_text)
    (doc,) = compose_documents(yaml_text, "f.yaml").nodes
    node = mapping_get(doc, "k")
    assert isinstance(node, ScalarNode)
    mt = scalar_text(node, lines)
    assert mt.text == value
    for ch, off in zip(mt.text, mt.offsets, strict=True):
        # every visible character sits on the same character of the file
        if ch not in " \n":
            assert yaml_text[off] in (ch, "\\"), (ch, off)  # an escaped character sits on its backslash


def test_expand_refs_the_kubernetes_way() -> None:
    from vlint.sources.kube.k8s_common import EnvVar

    lines = LineIndex("f", "$(A)-$(B)-$$(A)-$(C")
    mt = MappedText.at(lines.text, lines, 0, len(lines.text))
    env = {
        "A": EnvVar("A", "x", Token("x", lines.span(0, 1))),
        "B": EnvVar("B", None, Token("$(B)", lines.span(0, 1), True), "secret"),
    }
    out, unresolved = expand_refs(mt, env)
    assert out.text == "x-$(B)-$(A)-$(C"
    assert unresolved
    assert out.offsets[0] == 0 and out.offsets[2] == 5  # the value sits on its reference


def test_production_stack_operator_vllm_runtime(tmp_path: Path) -> None:
    inv = one(
        tmp_path,
        """\
        apiVersion: production-stack.vllm.ai/v1alpha1
        kind: VLLMRuntime
        metadata: {name: sample}
        spec:
          model:
            modelURL: "meta-llama/Llama-3.1-8B-Instruct"
            maxModelLen: 4096
          vllmConfig:
            enableChunkedPrefill: false
            tensorParallelSize: 2
            gpuMemoryUtilization: "0.8"
            v1: true
            port: 8000
          deploymentConfig:
            resources: {gpu: "2"}
            image: {registry: docker.io, name: "lmcache/vllm-openai:2025-05-27-v1"}
        """,
    )
    assert inv.label == "VLLMRuntime/sample (production-stack operator)"
    # the operator renders both switches whatever is written, and never mounts /dev/shm
    assert argv(inv) == [
        "meta-llama/Llama-3.1-8B-Instruct",
        "--host",
        "0.0.0.0",
        "--port",
        "8000",
        "--no-enable-chunked-prefill",
        "--no-enable-prefix-caching",
        "--max-model-len",
        "4096",
        "--tensor-parallel-size",
        "2",
        "--gpu_memory_utilization",
        "0.8",
    ]
    assert inv.env["VLLM_USE_V1"].text == "1"
    assert inv.facts["gpu_count"].value == 2 and inv.facts["shm_mounted"].value is False
    assert inv.facts["image"].value == "docker.io/lmcache/vllm-openai:2025-05-27-v1"


def test_aliases_cannot_multiply_the_walk(tmp_path: Path) -> None:
    pod = "l0: &l0 {containers: [{name: x, image: vllm/vllm-openai:v0.10.2, args: [--model, m/x]}]}"
    levels = [f"  l{i}: &l{i} [{', '.join([f'*l{i - 1}'] * 10)}]" for i in range(1, 12)]
    head = ["apiVersion: apps/v1", "kind: Deployment", "metadata: {name: bomb}", "x:", "  " + pod]
    text = "\n".join([*head, *levels, "spec: {template: {spec: {a: *l11}}}", ""])
    invs = launches(tmp_path, text)
    assert len(invs) == 1  # 10**11 paths lead to the pod spec; it is read once


def test_literal_env_of_every_container_are_assignments_and_secret_values_are_secrets(tmp_path: Path) -> None:
    result = extract(
        tmp_path,
        """\
        apiVersion: v1
        kind: Secret
        metadata: {name: hf}
        stringData:
          token: hf_abcdefghijklmnopqrstuvwxyzABCDEFGH
        ---
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: d}
        spec:
          template:
            spec:
              initContainers:
                - name: download
                  image: python:3.12
                  env: [{name: HF_TOKEN, value: 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}]
              containers:
                - name: vllm
                  image: vllm/vllm-openai:v0.10.2
                  args: ["--model", "m/x"]
                  env: [{name: VLLM_API_KEY, valueFrom: {secretKeyRef: {name: k, key: k}}}]
        """,
    )
    assert [(name, sp(tok.span)) for name, tok in result.assignments] == [("HF_TOKEN", "16:41-16:78")]
    assert [(name, sp(tok.span), encoded) for name, tok, encoded in result.secret_tokens] == [
        ("token", "5:10-5:47", False)
    ]

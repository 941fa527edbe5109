"""NVIDIA Dynamo: a ``DynamoGraphDeployment`` service's ``extraPodSpec.mainContainer`` running
``python3 -m dynamo.vllm`` is a vLLM launch; Dynamo's own options are set aside before vLLM's parser;
the image tag of Dynamo's vllm-runtime maps to the vLLM release Dynamo's support matrix names.

Fixtures are hand-written, modelled on ai-dynamo/dynamo components/backends/vllm/deploy/agg.yaml and
disagg.yaml (services Frontend / VllmDecodeWorker / VllmPrefillWorker, ``resources.limits.gpu``)."""

from __future__ import annotations

import textwrap
from pathlib import Path

from tests.sources.render.helpers import lint, write
from vlint.argspec import dynamo
from vlint.sources.base import SourceText
from vlint.sources.containers.images import image_vllm_version, parse_image
from vlint.sources.kube import kubernetes

# modelled on ai-dynamo/dynamo components/backends/vllm/deploy/disagg.yaml
DISAGG = """\
apiVersion: nvidia.com/v1alpha1
kind: DynamoGraphDeployment
metadata:
  name: vllm-disagg
spec:
  services:
    Frontend:
      componentType: frontend
      replicas: 1
      extraPodSpec:
        mainContainer:
          image: nvcr.io/nvidia/ai-dynamo/vllm-runtime:0.6.1
    VllmDecodeWorker:
      envFromSecret: hf-token-secret
      componentType: worker
      subComponentType: decode
      replicas: 2
      envs:
        - name: VLLM_LOGGING_LEVEL
          value: DEBUG
      resources:
        limits:
          gpu: "2"
      extraPodSpec:
        mainContainer:
          image: nvcr.io/nvidia/ai-dynamo/vllm-runtime:0.6.1
          command: [python3, -m, dynamo.vllm]
          args: [--model, Qwen/Qwen3-0.6B, --tensor-parallel-size, "2", --endpoint, dyn://ns.backend.generate]
    VllmPrefillWorker:
      componentType: worker
      subComponentType: prefill
      resources:
        limits:
          gpu: "1"
      extraPodSpec:
        mainContainer:
          image: nvcr.io/nvidia/ai-dynamo/vllm-runtime:0.6.1
          command: [/bin/sh, -c]
          args:
            - "python3 -m dynamo.vllm --model Qwen/Qwen3-0.6B --is-prefill-worker --connector nixl lmcache"
"""


def _extract(tmp_path: Path, text: str):
    return kubernetes.extract(SourceText("dgd.yaml", tmp_path / "dgd.yaml", text), lambda p: None)  # type: ignore[arg-type,return-value]


def test_each_worker_service_is_a_launch_with_its_facts(tmp_path: Path) -> None:
    result = _extract(tmp_path, DISAGG)
    decode, prefill = result.invocations  # the frontend runs no vLLM
    assert decode.program == prefill.program == dynamo.PROGRAM
    assert decode.label == "service VllmDecodeWorker of DynamoGraphDeployment/vllm-disagg (worker decode)"
    assert (decode.span.line, decode.span.column) == (27, 21)  # the python3 word
    assert decode.facts["gpu_count"].value == 2 and decode.facts["gpu_count"].span.line == 23
    assert decode.facts["replicas"].value == 2
    assert decode.facts["env_from"].value == "secret/hf-token-secret"
    assert decode.facts["vllm_version"].value == "0.11.0"
    assert decode.env["VLLM_LOGGING_LEVEL"].text == "DEBUG"
    assert prefill.facts["gpu_count"].value == 1
    assert (prefill.span.line, prefill.span.column) == (40, 16)  # inside the sh -c string


def test_dynamo_options_are_not_vllm_errors(tmp_path: Path) -> None:
    write(tmp_path, {"dgd.yaml": DISAGG})
    found = lint(tmp_path, "dgd.yaml")
    assert not [f for f in found if f.code in ("VL001", "VL002", "VL601")], [(f.code, f.message) for f in found]


def test_an_option_neither_parser_knows_is_a_warning(tmp_path: Path) -> None:
    write(tmp_path, {"run.sh": "python3 -m dynamo.vllm --model Qwen/Qwen3-0.6B --is-decode-worker --no-such-flag\n"})
    (f,) = [f for f in lint(tmp_path, "run.sh") if f.code == "VL001"]
    assert f.severity == "warning" and "--no-such-flag" in f.message and f.data["dynamo"] is True


def test_the_same_flag_on_vllm_serve_is_still_an_error(tmp_path: Path) -> None:
    # must not: the Dynamo table is for dynamo.vllm only
    write(tmp_path, {"run.sh": "vllm serve Qwen/Qwen3-0.6B --is-prefill-worker\n"})
    (f,) = [f for f in lint(tmp_path, "run.sh") if f.code == "VL001"]
    assert f.severity == "error"


def test_own_option_arity() -> None:
    assert dynamo.own_option("--is-prefill-worker") == ("is-prefill-worker", 0)
    assert dynamo.own_option("--no-is-decode-worker") == ("no-is-decode-worker", 0)
    assert dynamo.own_option("--endpoint=dyn://a.b.c") == ("endpoint", 1)
    assert dynamo.own_option("--connector") == ("connector", "*")
    assert dynamo.own_option("--enforce-eager") is None  # vLLM's too: it stays on vLLM's command line
    assert dynamo.own_option("--max-model-len") is None


def test_runtime_image_tags() -> None:
    assert str(image_vllm_version(parse_image("nvcr.io/nvidia/ai-dynamo/vllm-runtime:0.9.1"))) == "0.14.1"
    # must not: a tag the support matrix does not list, and the Dynamo release number itself
    assert image_vllm_version(parse_image("nvcr.io/nvidia/ai-dynamo/vllm-runtime:my-tag")) is None
    assert image_vllm_version(parse_image("nvcr.io/nvidia/ai-dynamo/vllm-runtime:0.4.0")) is None


def test_multinode_group(tmp_path: Path) -> None:
    text = textwrap.dedent(
        """\
        apiVersion: nvidia.com/v1alpha1
        kind: DynamoGraphDeployment
        metadata: {name: big}
        spec:
          services:
            Worker:
              componentType: worker
              multinode: {nodeCount: 2}
              resources: {limits: {gpu: "8"}}
              extraPodSpec:
                mainContainer:
                  command: [python3, -m, dynamo.vllm]
                  args: [--model, Qwen/Qwen3-0.6B, --tensor-parallel-size, "16"]
        """
    )
    (inv,) = _extract(tmp_path, text).invocations
    assert inv.facts["group_size"].value == 2 and inv.facts["cluster_gpu_count"].value == 16


def test_other_nvidia_kinds_are_not_dynamo(tmp_path: Path) -> None:
    # must not: a services map of another CRD is not read as Dynamo services
    text = "apiVersion: example.com/v1\nkind: DynamoGraphDeployment\nmetadata: {name: x}\nspec:\n  services: {}\n"
    assert _extract(tmp_path, text).invocations == []


def test_kserve_additional_args_are_not_an_unknown_vllm_variable(tmp_path: Path) -> None:
    # modelled on nirjhar17/synapxe-opencode-demo llminferenceservice.yaml: the template expands
    # ${VLLM_ADDITIONAL_ARGS} into its vllm serve command (must not: VL013 for it)
    text = textwrap.dedent(
        """\
        apiVersion: serving.kserve.io/v1alpha2
        kind: LLMInferenceService
        metadata: {name: q}
        spec:
          model: {uri: "hf://Qwen/Qwen3-0.6B"}
          template:
            containers:
              - name: main
                env:
                  - name: VLLM_ADDITIONAL_ARGS
                    value: --max-model-len 8192
                resources: {limits: {nvidia.com/gpu: "1"}}
        """
    )
    write(tmp_path, {"llmisvc.yaml": text})
    found = lint(tmp_path, "llmisvc.yaml")
    assert not [f for f in found if f.code in ("VL013", "VL052", "VL203")], [(f.code, f.message) for f in found]


def _llmisvc(tensor: int, gpus: int) -> str:
    return textwrap.dedent(
        f"""\
        apiVersion: serving.kserve.io/v1alpha1
        kind: LLMInferenceService
        metadata: {{name: q}}
        spec:
          model: {{uri: "hf://Qwen/Qwen2.5-7B-Instruct"}}
          parallelism: {{tensor: {tensor}, pipeline: 2}}
          template:
            containers:
              - name: main
                args: ["--max-model-len", "8192"]
                resources: {{limits: {{nvidia.com/gpu: "{gpus}"}}}}
          worker:
            containers:
              - name: main
                resources: {{limits: {{nvidia.com/gpu: "{gpus}"}}}}
        """
    )


def test_kserve_pipeline_workers_are_one_pod_per_stage(tmp_path: Path) -> None:
    # the pipeline-parallel worker template: --pipeline-parallel-size P --nnodes P, TP GPUs per pod
    write(tmp_path, {"ok.yaml": _llmisvc(2, 2), "short.yaml": _llmisvc(4, 2)})
    assert not [f for f in lint(tmp_path, "ok.yaml") if f.code in ("VL601", "VL613")]  # must not
    assert [f.severity for f in lint(tmp_path, "short.yaml") if f.code == "VL601"] == ["error"]


def test_kserve_prefill_workload_is_its_own_launch(tmp_path: Path) -> None:
    text = textwrap.dedent(
        """\
        apiVersion: serving.kserve.io/v1alpha1
        kind: LLMInferenceService
        metadata: {name: pd}
        spec:
          model: {uri: "hf://Qwen/Qwen2.5-7B-Instruct"}
          replicas: 2
          template:
            containers:
              - name: main
                args: ["--max-model-len", "8192"]
                resources: {limits: {nvidia.com/gpu: "1"}}
          prefill:
            replicas: 1
            parallelism: {tensor: 2}
            template:
              containers:
                - name: main
                  args: ["--max-model-len", "8192"]
                  resources: {limits: {nvidia.com/gpu: "2"}}
        """
    )
    decode, prefill = _extract(tmp_path, text).invocations
    assert "prefill" not in decode.label and decode.facts["replicas"].value == 2
    assert "prefill" in prefill.label and prefill.facts["replicas"].value == 1
    assert [t.text for t in prefill.args][:4] == [
        "Qwen/Qwen2.5-7B-Instruct",
        "--tensor-parallel-size",
        "2",
        "--max-model-len",
    ]
    assert prefill.facts["gpu_count"].value == 2
    # the prefill pod is single-node: its tensor size is one some releases drop (VL613 note)
    assert [p.code for p in prefill.problems] == ["VL613"] and decode.problems == []


def _tp4(shared_memory: str) -> str:
    return textwrap.dedent(
        f"""\
        apiVersion: nvidia.com/v1alpha1
        kind: DynamoGraphDeployment
        metadata: {{name: tp4}}
        spec:
          services:
            Worker:
              componentType: worker
              {shared_memory}
              resources: {{limits: {{gpu: "4"}}}}
              extraPodSpec:
                mainContainer:
                  command: [python3, -m, dynamo.vllm]
                  args: [--model, Qwen/Qwen2.5-7B-Instruct, --tensor-parallel-size, "4", --max-model-len, "8192"]
        """
    )


def test_operator_mounts_dev_shm_unless_disabled(tmp_path: Path) -> None:
    # ai-dynamo/dynamo deploy/cloud/operator/docs/footer.md: 8Gi at /dev/shm by default
    (inv,) = _extract(tmp_path, _tp4("replicas: 1")).invocations
    assert inv.facts["shm_mounted"].value is True and inv.facts["shm_size"].value == "8Gi"
    write(tmp_path, {"default.yaml": _tp4("replicas: 1"), "off.yaml": _tp4("sharedMemory: {disabled: true}")})
    assert not [f for f in lint(tmp_path, "default.yaml") if f.code == "VL602"]  # must not
    assert [f.code for f in lint(tmp_path, "off.yaml") if f.code == "VL602"] == ["VL602"]


# modelled on the v1beta1 example of Dynamo's rolling-update guide (spec.components[].podTemplate)
V1BETA1 = """\
apiVersion: nvidia.com/v1beta1
kind: DynamoGraphDeployment
metadata:
  name: vllm-disagg
spec:
  backendFramework: vllm
  components:
    - name: Frontend
      type: frontend
      podTemplate:
        spec:
          containers:
            - name: main
              image: nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.1.0
              command: [python3]
              args: [-m, dynamo.frontend]
    - name: PrefillWorker
      type: prefill
      replicas: 2
      podTemplate:
        spec:
          containers:
            - name: main
              image: nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.1.0
              command: [python3]
              args: [-m, dynamo.vllm, --model, Qwen/Qwen3-0.6B, --disaggregation-mode, prefill, -tp, "2"]
              resources:
                limits:
                  nvidia.com/gpu: "2"
"""


def test_v1beta1_components(tmp_path: Path) -> None:
    (inv,) = _extract(tmp_path, V1BETA1).invocations  # must not: dynamo.frontend is no vLLM launch
    assert inv.program == dynamo.PROGRAM and "PrefillWorker" in inv.label
    assert inv.facts["replicas"].value == 2 and inv.facts["gpu_count"].value == 2
    assert inv.facts["vllm_version"].value == "0.19.0" and inv.facts["shm_size"].value == "8Gi"
    write(tmp_path, {"dgd.yaml": V1BETA1})
    assert not [f for f in lint(tmp_path, "dgd.yaml") if f.code in ("VL001", "VL601", "VL602")]

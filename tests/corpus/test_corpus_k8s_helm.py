"""Corpus: every Kubernetes, CRD, KServe, Helm and template file of ../shared/corpus/real.

For each file: the run does not crash, the Kubernetes/Helm sources find the expected launches, and each
launch has the expected key settings — (model, tensor_parallel_size, max_model_len,
gpu_memory_utilization) as written (None: not set, "?": unresolved) — plus the expected findings of the
deployment rules (VL601-VL604) and of the plain-text-secret rule these sources feed (VL502).

The table is keyed by INDEX.md row number; it was derived from INDEX.md's "notable settings" and
"what a linter should say" columns and from reading the files. Where vlint disagrees with INDEX.md,
a comment says why.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path
from typing import Any

import pytest

from vlint.core.unresolved import UNRESOLVED
from vlint.engine.catalog import load_catalog
from vlint.engine.results import LintReport
from vlint.engine.runner import Engine
from vlint.launch.deployment import Deployment
from vlint.run.lint import LintOptions, lint_paths
from vlint.sources import registry

FOLDERS = ("k8s", "k8s-crd", "kserve", "helm-other", "helm-production-stack", "helm-templates", "templates-other")
MY_SOURCES = {"kubernetes", "helm", "template"}
CODES = re.compile(r"^VL(60\d|502)$")

#: INDEX row → ([(model, tp, max_model_len, gmu) per launch], sorted VL60x/VL502 codes)
EXPECTED: dict[int, tuple[list[tuple[Any, ...]], list[str]]] = {
    # k8s/DrOSAlchemist__keda-scale-zero-gpu-inference__k8s__vllm-deployment.yaml
    50: (
        [
            ("Qwen/Qwen2.5-1.5B-Instruct", None, 4096, 0.8),
        ],
        [],
    ),
    # k8s/GoogleCloudPlatform__kubernetes-engine-samples__ai-ml__llm-multihost-gpus__vllm-deepseek-r1-A3.…
    52: (
        [
            ("deepseek-ai/DeepSeek-R1", 8, 4096, None),
        ],
        [],
    ),
    # k8s/GoogleCloudPlatform__kubernetes-engine-samples__ai-ml__llm-serving-gemma__vllm__vllm-3-27b-it.y…
    53: (
        [
            ("google/gemma-3-27b-it", 1, 32768, 0.95),
        ],
        [],
    ),
    # INDEX wants the kustomize patch applied to the base; vlint does not run kustomize (the patch
    # file is linted on its own, row 55), so the kustomization itself starts nothing.
    # k8s/GoogleCloudPlatform__kubernetes-engine-samples__ai-ml__llm-serving-gemma__vllm__vllm-7b-kvcache…
    54: ([], []),
    # model: MODEL_ID is defined in the base Deployment the patch is applied to, so $(MODEL_ID) stays
    # unresolved here (INDEX names the base's google/gemma-7b).
    # k8s/GoogleCloudPlatform__kubernetes-engine-samples__ai-ml__llm-serving-gemma__vllm__vllm-7b-kvcache…
    55: (
        [
            ("?", 1, 1200, None),
        ],
        [],
    ),
    # k8s/GoogleCloudPlatform__kubernetes-engine-samples__ai-ml__llm-serving-gemma__vllm__vllm-7b.yaml
    56: (
        [
            ("google/gemma-7b", 2, None, None),
        ],
        [],
    ),
    # k8s/GoogleCloudPlatform__kubernetes-engine-samples__ai-ml__llm-serving-llama__vllm__vllm-llama4-mav…
    57: (
        [
            ("meta-llama/Llama-4-Maverick-17B-128E-Instruct-FP8", 8, 524288, 0.9),
        ],
        [],
    ),
    # k8s/GoogleCloudPlatform__kubernetes-engine-samples__ai-ml__vllm-tpu__vllm-llama3-70b.yaml
    58: (
        [
            ("meta-llama/Llama-3.1-70B", 8, 4096, None),
        ],
        ["VL603"],
    ),
    # envsubst placeholders (${VLLM_MODEL}, ${VLLM_GPU_COUNT}…) are unresolved, not guessed.
    # k8s/felipemoz__vllm-on-azure__k8s__vllm-deployment.yaml
    51: (
        [
            ("?", "?", "?", 0.95),
        ],
        [],
    ),
    # k8s/kubernetes-sigs__lws__docs__examples__vllm__GPU__lws.yaml
    59: (
        [
            ("meta-llama/Llama-3.1-405B-Instruct", 8, None, None),
        ],
        [],
    ),
    # TP 16 over a LeaderWorkerSet group of 4 pods × 4 TPU chips: no VL601.
    # k8s/kubernetes-sigs__lws__docs__examples__vllm__TPU__lws.yaml
    60: (
        [
            ("meta-llama/Llama-3.3-70B-Instruct", 16, None, None),
        ],
        ["VL603"],
    ),
    # INDEX (row 31, same P/D setup) says no GPU is requested: the rendered pods do request
    # nvidia.com/gpu: "1" (llm-d-modelservice _helpers.tpl "resources": dataLocal × tensor ≥ 1).
    # k8s/llm-d-incubation__llm-d-modelservice__examples__output-pd.yaml
    61: (
        [
            ("facebook/opt-125m", None, None, None),
            ("facebook/opt-125m", None, None, None),
        ],
        ["VL603"],
    ),
    # k8s/marcin119a__bielik_vllm__k8s__vllm-deployment.yaml
    62: (
        [
            ("speakleash/Bielik-4.5B-v3.0-Instruct", None, 2048, None),
        ],
        ["VL603"],
    ),
    # k8s/mejavsh__vllm-inference-lke__vllm-deployment.yaml
    63: (
        [
            ("meta-llama/Meta-Llama-3-8B-Instruct", None, 4096, 0.95),
        ],
        ["VL603"],
    ),
    # k8s/rh-aiservices-bu__llm-on-openshift__llm-servers__vllm__gpu__gitops__deployment.yaml
    64: (
        [
            ("mistralai/Mistral-7B-Instruct-v0.2", None, 6144, None),
        ],
        [],
    ),
    # k8s/rh-aiservices-bu__llm-on-openshift__llm-servers__vllm__hpu__gitops__deployment.yaml
    65: (
        [
            ("mistralai/Mistral-7B-Instruct-v0.3", 1, 6144, None),
        ],
        [],
    ),
    # k8s/vllm-project__aibrix__brixbench__benchmark__testdata__deployments__vllm__qwen3-32b-tp4-replicas…
    66: (
        [
            ("/models/Qwen3-32B", 4, 40960, None),
        ],
        [],
    ),
    # k8s/vllm-project__aibrix__samples__adapter__base-api-key.yaml
    67: (
        [
            ("Qwen/Qwen2.5-Coder-1.5B-Instruct", None, None, None),
        ],
        ["VL502"],
    ),
    # k8s/vllm-project__aibrix__samples__heterogeneous__deepseek-coder-7b-v100-deployment.yaml
    68: (
        [
            ("/models/deepseek-coder-6.7b-instruct", None, 10240, None),
        ],
        ["VL502"],
    ),
    # k8s/vllm-project__production-stack__examples__disaggregated_prefill_orchestrated__prefill-deploy.ya…
    69: (
        [
            ("/var/mdl/YOUR-MODEL-PATH", None, 512, None),
        ],
        [],
    ),
    # k8s/vllm-project__production-stack__src__gateway_inference_extension__configs__vllm__gpu-deployment…
    70: (
        [
            ("meta-llama/Llama-3.2-1B-Instruct", 1, None, None),
        ],
        [],
    ),
    # k8s/xprilion__gemma3-vllm-tpu-gke-autoscaling__k8s__vllm-deployment.yaml
    71: (
        [
            ("google/gemma-3-4b-it", 1, 1024, None),
        ],
        ["VL603"],
    ),
    # k8s-crd/substratusai__kubeai__manifests__models__deepseek-r1-distill-qwen-1.5b-rtx4070.yaml
    72: (
        [
            ("deepseek-ai/DeepSeek-R1-Distill-Qwen-1.5B", None, 2048, None),
        ],
        [],
    ),
    # k8s-crd/substratusai__kubeai__manifests__models__deepseek-r1-mi300x.yaml
    73: (
        [
            ("deepseek-ai/DeepSeek-R1", 8, 32768, 0.9),
        ],
        [],
    ),
    # k8s-crd/substratusai__kubeai__manifests__models__llama-3.1-405b-instruct-fp8-mi300x.yaml
    74: (
        [
            ("amd/Llama-3.1-405B-Instruct-FP8-KV", 8, 120000, 0.9),
        ],
        [],
    ),
    # k8s-crd/vllm-project__aibrix__samples__deepseek-r1__deepseek-r1-huggingface.yaml
    75: (
        [
            ("deepseek-ai/DeepSeek-R1", 16, None, None),
        ],
        [],
    ),
    # k8s-crd/vllm-project__aibrix__samples__disaggregation__vllm__1p1d.yaml
    76: (
        [
            ("/models/Qwen3-8B", None, None, None),
            ("/models/Qwen3-8B", None, None, None),
        ],
        [],
    ),
    # VLLMRuntime rendered like the production-stack operator's deploymentForVLLMRuntime.
    # k8s-crd/vllm-project__production-stack__operator__config__samples__production-stack_v1alpha1_vllmruntim…
    77: (
        [
            ("meta-llama/Llama-3.1-8B-Instruct", 1, 4096, 0.8),
        ],
        [],
    ),
    # kserve/kserve__kserve__config__llmisvcconfig__config-llm-worker-data-parallel.yaml
    78: ([], ["VL604"]),
    # kserve/kserve__kserve__config__runtimes__kserve-vllmserver.yaml
    79: (
        [
            ("/mnt/models", None, None, None),
        ],
        [],
    ),
    # model: storageUri s3://${bucket}/… is downloaded to /mnt/models; the bucket placeholder and the
    # local path say nothing about the architecture, so the model stays unresolved.
    # kserve/kserve__kserve__docs__samples__fluid__kserve-isvc.yaml
    80: (
        [
            ("?", 1, 1024, 0.95),
        ],
        [],
    ),
    # kserve/kserve__kserve__docs__samples__llmisvc__agentic-tool-calling__llmisvc-single-gpu.yaml
    81: (
        [
            ("Qwen/Qwen3-Coder-30B-A3B-Instruct-FP8", None, None, None),
        ],
        [],
    ),
    # model: pvc:// storage mounted at /mnt/models (INDEX names the served model, DeepSeek-R1-0528).
    # kserve/kserve__kserve__docs__samples__llmisvc__dp-ep__deepseek-r1-gpu-rdma-roce__llm-inference-service…
    82: (
        [
            ("?", 1, 8192, 0.95),
        ],
        [],
    ),
    # kserve/opendatahub-io__odh-model-controller__config__runtimes__vllm-cuda-template.yaml
    83: (
        [
            ("/mnt/models", None, None, None),
        ],
        [],
    ),
    # kserve/rh-aiservices-bu__llm-on-openshift__serving-runtimes__vllm_runtime__vllm-runtime.yaml
    84: (
        [
            ("/mnt/models/", None, 6144, None),
        ],
        [],
    ),
    # helm-other/GoogleCloudPlatform__kubernetes-engine-samples__app-design-center__ai-inference__values.yaml
    29: ([], []),
    # CAST AI and GKE app-design-center values: their templates' camelCase mapping is chart-specific
    # and not recognisable from the values alone (deployment-formats.md §1.8), so they are left alone.
    # helm-other/castai__helm-charts__charts__castai-hosted-model__child-charts__vllm__values.yaml
    28: ([], []),
    # helm-other/llm-d-incubation__llm-d-modelservice__examples__values-gaudi.yaml
    30: (
        [
            ("meta-llama/Llama-3.1-8B-Instruct", None, 2048, None),
        ],
        [],
    ),
    # helm-other/llm-d-incubation__llm-d-modelservice__examples__values-pd.yaml
    31: (
        [
            ("facebook/opt-125m", None, None, None),
            ("facebook/opt-125m", None, None, None),
        ],
        ["VL603"],
    ),
    # KubeAI models chart: every VLLM entry is a model definition (the chart deploys it when enabled or
    # all.enabled), so disabled entries are read too; OLlama/FasterWhisper/Infinity entries are not vLLM.
    # helm-other/substratusai__kubeai__charts__models__values.yaml
    32: (
        [
            ("neuralmagic/Llama-3.2-11B-Vision-Instruct-FP8-dynamic", None, 8192, 0.99),
            ("intfloat/e5-mistral-7b-instruct", None, None, 0.9),
            ("mistralai/Mistral-Small-24B-Instruct-2501", None, None, 0.9),
            ("mistralai/Mistral-Small-3.1-24B-Instruct-2503", None, 65536, 0.9),
            ("google/gemma-2b-it", None, None, None),
            ("meta-llama/Meta-Llama-3.1-8B-Instruct", None, 32768, None),
            ("meta-llama/Meta-Llama-3.1-8B-Instruct", 4, 8192, None),
            ("neuralmagic/Meta-Llama-3.1-8B-Instruct-FP8", None, 16384, 0.9),
            ("neuralmagic/Meta-Llama-3.1-70B-Instruct-FP8", 2, 65536, 0.9),
            ("neuralmagic/Meta-Llama-3.1-70B-Instruct-FP8", None, 16384, 0.95),
            ("neuralmagic/Meta-Llama-3.1-70B-Instruct-FP8", 2, 32768, 0.9),
            ("neuralmagic/Meta-Llama-3.1-405B-Instruct-FP8", 8, 65536, 0.9),
            ("amd/Llama-3.1-70B-Instruct-FP8-KV", None, 120000, 0.9),
            ("neuralmagic/Meta-Llama-3.1-70B-Instruct-FP8", None, 32768, 0.9),
            ("hugging-quants/Meta-Llama-3.1-70B-Instruct-AWQ-INT4", None, 16384, None),
            ("neuralmagic/Meta-Llama-3.1-405B-Instruct-FP8", 8, 65536, 0.98),
            ("amd/Llama-3.1-405B-Instruct-FP8-KV", 8, 120000, 0.9),
            ("neuralmagic/gemma-2-9b-it-FP8", None, 4096, 0.95),
            ("Qwen/Qwen2.5-7B-Instruct", None, 8192, 0.95),
            ("allenai/Llama-3.1-Tulu-3-8B", None, 8192, 0.95),
            ("unsloth/phi-4-bnb-4bit", None, 8192, 0.95),
            ("deepseek-ai/DeepSeek-R1-Distill-Llama-8B", None, 8192, 0.95),
            ("arcee-ai/Llama-3.1-SuperNova-Lite", None, 2048, 0.95),
            ("meta-llama/Llama-3.3-70B-Instruct", None, 32768, 0.98),
            ("meta-llama/Llama-4-Maverick-17B-128E-Instruct-FP8", 8, 430000, None),
            ("neuralmagic/DeepSeek-R1-Distill-Llama-70B-FP8-dynamic", None, 32768, 0.95),
            ("deepseek-ai/DeepSeek-R1-Distill-Llama-70B", None, 32768, 0.95),
            ("deepseek-ai/DeepSeek-R1-Distill-Qwen-1.5B", None, 2048, None),
            ("deepseek-ai/DeepSeek-R1", 8, 32768, 0.9),
            ("facebook/opt-125m", None, None, None),
            ("facebook/opt-125m", None, None, None),
            ("Qwen/Qwen2.5-Coder-1.5B-Instruct", None, 2048, None),
        ],
        [],
    ),
    # helm-other/vllm-project__vllm__examples__online_serving__chart-helm__values.yaml
    33: (
        [
            ("/data/", None, None, None),
        ],
        ["VL603"],
    ),
    # No VL502 on `hf_token: HUGGINGFACE_TOKEN`: an ALL-CAPS name is a placeholder, not a credential
    # (vlint/security/secrets.py); INDEX only asks for a softer note about plain-string hf_token, which no rule makes.
    # helm-production-stack/vllm-project__production-stack__deployment_on_cloud__aws__production_stack_specification.y…
    34: (
        [
            ("meta-llama/Llama-3.1-8B", None, None, None),
        ],
        ["VL603"],
    ),
    # The chart's example modelSpec has `enabled: false`, which the chart skips (INDEX agrees it must be
    # skipped), so the settings INDEX discusses (0.95 vs extraArgs 0.4, v0) are not deployed.
    # helm-production-stack/vllm-project__production-stack__helm__values.yaml
    35: ([], []),
    # helm-production-stack/vllm-project__production-stack__tutorials__assets__values-01-minimal-amd-example.yaml
    36: (
        [
            ("facebook/opt-125m", None, None, None),
        ],
        ["VL603"],
    ),
    # helm-production-stack/vllm-project__production-stack__tutorials__assets__values-02-basic-config.yaml
    37: (
        [
            ("meta-llama/Llama-3.1-8B-Instruct", None, 4096, 0.8),
        ],
        ["VL603"],
    ),
    # helm-production-stack/vllm-project__production-stack__tutorials__assets__values-05-cpu-offloading.yaml
    38: (
        [
            ("mistralai/Mistral-7B-Instruct-v0.2", None, 32000, None),
        ],
        ["VL603"],
    ),
    # helm-production-stack/vllm-project__production-stack__tutorials__assets__values-11-secure-vllm.yaml
    39: (
        [
            ("facebook/opt-125m", None, None, None),
        ],
        ["VL502", "VL603"],
    ),
    # helm-production-stack/vllm-project__production-stack__tutorials__assets__values-13-tool-enabled.yaml
    40: (
        [
            ("meta-llama/Llama-3.1-8B-Instruct", 1, 4096, None),
        ],
        ["VL603"],
    ),
    # helm-production-stack/vllm-project__production-stack__tutorials__assets__values-14-vllm-v1.yaml
    41: (
        [
            ("meta-llama/Llama-3.1-8B-Instruct", None, 4096, 0.8),
        ],
        ["VL603"],
    ),
    # helm-production-stack/vllm-project__production-stack__tutorials__assets__values-15-a-minimal-pipeline-parallel-e…
    42: (
        [
            ("distilbert/distilgpt2", 1, None, None),
        ],
        ["VL603"],
    ),
    # requestGPU commented out: no GPU resource is rendered; CUDA_VISIBLE_DEVICES pins one GPU each.
    # helm-production-stack/vllm-project__production-stack__tutorials__assets__values-16-disagg-prefill.yaml
    43: (
        [
            ("meta-llama/Llama-3.1-8B-Instruct", None, 32000, None),
            ("meta-llama/Llama-3.1-8B-Instruct", None, 32000, None),
        ],
        [],
    ),
    # helm-production-stack/vllm-project__production-stack__tutorials__assets__values-25-v100-multi-gpu-tp4.yaml
    44: (
        [
            ("Qwen/Qwen2.5-14B-Instruct", 4, 8192, 0.9),
        ],
        [],
    ),
    # INDEX: TP passed in extraArgs for gpt-oss-120b gets no /dev/shm from the chart → VL602.
    # helm-production-stack/vllm-project__production-stack__tutorials__terraform__coreweave__config__llm-stack__helm__…
    45: (
        [
            ("/data/models/gpt-oss-120b", 2, None, 0.95),
            ("/data/models/trinity-mini", None, 8192, 0.8),
            ("/data/models/gemma-3-27b-v", None, 16384, 0.8),
            ("/data/models/qwen3-next-80b", 2, 32768, 0.6),
        ],
        ["VL602"],
    ),
    # helm-production-stack/vllm-project__production-stack__tutorials__terraform__eks__modules__llm-stack__helm__cpu__…
    46: (
        [
            ("/data/models/tinyllama", None, None, None),
        ],
        [],
    ),
    # helm-templates/GoogleCloudPlatform__kubernetes-engine-samples__app-design-center__ai-inference__templates__dep…
    # a template no chart holds here: read without rendering, every .Values unknown (the INDEX's findings:
    # --num-scheduler-steps removed, --max-num-seq an abbreviation, gpu-mem 0.95, all warnings so read)
    47: ([("?", "?", "?", 0.95)], []),
    # helm-templates/vllm-project__production-stack__helm__templates__deployment-vllm-multi.yaml
    48: ([], ["VL604"]),
    # helm-templates/vllm-project__production-stack__helm__templates__ray-cluster.yaml
    49: ([], ["VL604"]),
    # templates-other: Python str.format / TOML templates ({model}), not {{ }} templates; no source of
    # this part reads them (INDEX: nothing to lint without rendering).
    # templates-other/Tandemn-Labs__tandemn-tuna__tuna__templates__baseten__config.yaml.tpl
    136: ([], []),
    # templates-other/Tandemn-Labs__tandemn-tuna__tuna__templates__cerebrium__cerebrium.toml.tpl
    137: ([], []),
    # templates-other/Tandemn-Labs__tandemn-tuna__tuna__templates__shared__vllm_serve_cmd.txt
    138: ([], []),
    # templates-other/Tandemn-Labs__tandemn-tuna__tuna__templates__skyserve__vllm.yaml.tpl
    139: ([], []),
}

#: (INDEX row, an argv word, its line:col in the file): spans point at the right place
SPANS = [
    (50, "--max-model-len", "16:60"),  # flow-style args list
    (59, "--pipeline_parallel_size", "25:144"),  # second line of a double-quoted `sh -c` scalar
    (64, "6144", "60:33"),  # multi-line JSON-style flow sequence
    (66, "--tensor-parallel-size", "39:17"),  # `args: - |` block scalar with \\ continuations
    (75, "--tensor-parallel-size", "96:151"),  # one-string `bash -lc` args after `;`-joined commands
    (82, "--max-model-len", "38:51"),  # VLLM_ADDITIONAL_ARGS env string of an LLMInferenceService
    (32, "--gpu-memory-utilization=0.99", "19:9"),  # KubeAI catalog args
    (44, "--enforce-eager", "50:12"),  # production-stack extraArgs
    (46, "--device=cpu", "33:12"),  # a values file with mixed CRLF/LF line endings
]


@functools.cache
def _index(shared: Path) -> dict[int, Path]:
    root = shared / "corpus" / "real"
    rows: dict[int, Path] = {}
    for line in (root / "INDEX.md").read_text(encoding="utf-8").splitlines():
        m = re.match(r"^\| (\d+) \| `([^`]+)` \|", line)
        if m and m.group(2).split("/", 1)[0] in FOLDERS:
            rows[int(m.group(1))] = root / m.group(2)
    return rows


def _lint(path: Path, monkeypatch: pytest.MonkeyPatch, *, only_mine: bool) -> LintReport:
    """The file's report, with every source or with these sources alone: linted once per session (the
    tests of one file read the same report; they never change it)."""
    return _linted(path, only_mine)


@functools.cache
def _linted(path: Path, only_mine: bool) -> LintReport:
    with pytest.MonkeyPatch.context() as mp:
        if only_mine:
            mine = tuple(s for s in registry.SOURCES if s.name in MY_SOURCES)
            mp.setattr(registry, "SOURCES", mine)
        return lint_paths([path], Engine(load_catalog()), LintOptions(root=path.parent))


def _written(dep: Deployment, dest: str) -> Any:
    s = dep.setting(dest)
    if s is None:
        return None
    return "?" if s.value is UNRESOLVED else s.value


def _row(dep: Deployment) -> tuple[Any, ...]:
    model = dep.model or ("?" if dep.setting("model") is not None else None)
    return (model, *(_written(dep, d) for d in ("tensor_parallel_size", "max_model_len", "gpu_memory_utilization")))


def test_the_table_covers_every_file_of_these_folders(shared: Path) -> None:
    rows = _index(shared)
    on_disk = {p for folder in FOLDERS for p in (shared / "corpus" / "real" / folder).iterdir()}
    assert set(rows.values()) == on_disk
    assert set(EXPECTED) == set(rows)


@pytest.mark.parametrize("row", sorted(EXPECTED))
def test_corpus_file(shared: Path, row: int, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _index(shared)[row]
    # the whole pipeline, every source: no crash and no file error
    (full,) = _lint(path, monkeypatch, only_mine=False).files
    assert full.error is None, full.error
    # the Kubernetes/Helm sources alone: launches, settings and deployment findings
    report = _lint(path, monkeypatch, only_mine=True)
    (fr,) = report.files
    assert fr.error is None, fr.error
    launches, codes = EXPECTED[row]
    mine = [d for d in fr.deployments if d.invocation.source in MY_SOURCES]
    assert [_row(d) for d in mine] == launches
    assert sorted({f.code for f in fr.findings if CODES.match(f.code)}) == codes
    for dep in mine:
        lines = path.read_text(encoding="utf-8").replace("\r\n", "\n").split("\n")
        for tok in dep.invocation.args:
            assert tok.span.path == fr.path
            assert 1 <= tok.span.line <= len(lines)
            assert 1 <= tok.span.column <= len(lines[tok.span.line - 1]) + 1, (tok, lines[tok.span.line - 1])


@pytest.mark.parametrize(("row", "word", "where"), SPANS)
def test_corpus_spans(shared: Path, row: int, word: str, where: str, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _index(shared)[row]
    (fr,) = _lint(path, monkeypatch, only_mine=True).files
    tokens = [t for d in fr.deployments for t in d.invocation.args if t.text == word]
    assert tokens, word
    span = tokens[0].span
    assert f"{span.line}:{span.column}" == where
    line = path.read_text(encoding="utf-8").replace("\r\n", "\n").split("\n")[span.line - 1]
    assert line[span.column - 1 : span.end_column - 1] == word


def test_totals_per_folder(shared: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Per-format counts, for the closing note: files and launches found by these sources."""
    totals: dict[str, list[int]] = {}
    for row, path in _index(shared).items():
        (fr,) = _lint(path, monkeypatch, only_mine=True).files
        t = totals.setdefault(path.parent.name, [0, 0])
        t[0] += 1
        t[1] += len(fr.deployments)
        assert len(fr.deployments) == len(EXPECTED[row][0])
    assert totals == {
        "k8s": [22, 22],
        "k8s-crd": [6, 7],
        "kserve": [7, 6],
        "helm-other": [6, 36],
        "helm-production-stack": [13, 16],
        "helm-templates": [3, 1],
        "templates-other": [4, 0],
    }

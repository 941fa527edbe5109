"""Helm values files of charts that launch vLLM: the argv each chart's template renders from them.

Charts (each rendering is read from the chart's own template; values keep their file positions):

* vLLM production-stack (``servingEngineSpec.modelSpec[]``), rendered like
  ``helm/templates/deployment-vllm-multi.yaml`` (and ``ray-cluster.yaml`` for ``raySpec.enabled``)
  of vllm-project/production-stack at a6c01db, helpers from ``helm/templates/_helpers.tpl``.
  Traps kept as the chart has them: any ``vllmConfig`` without a true ``enablePrefixCaching`` renders
  ``--no-enable-prefix-caching``; ``extraArgs`` come after the mapped flags (so they win); entries
  with ``enabled: false`` are not deployed; ``v0: "1"`` sets ``VLLM_USE_V1=0``; ``pipelineParallelSize``
  is only rendered by the Ray template; numbers go through Go's ``%v`` (``1000000`` → ``1e+06``, the
  Helm float64 conversion, helm/helm#12195); ``/dev/shm`` is only mounted when ``tensorParallelSize`` is
  set; ``requestGPU`` absent or 0 requests no GPU.
* KubeAI models chart (``catalog.<name>``): each entry is a KubeAI ``Model``
  (substratusai/kubeai ``charts/models/templates/models.yaml``); entries render when ``enabled`` or
  ``all.enabled`` is true, so disabled entries are still read as the chart's model definitions.
* llm-d modelservice (``decode``/``prefill`` ``containers[]`` with ``modelCommand``), rendered like
  ``charts/llm-d-modelservice/templates/_helpers.tpl`` (``vllmServeModelCommand``,
  ``imageDefaultModelCommand``, ``argsByProtocol``, ``resources``) of llm-d-incubation/llm-d-modelservice.
* vLLM's example chart (``examples/online_serving/chart-helm``): the full argv is ``image.command``.

Left alone: the CAST AI vLLM chart (its container runs ``/scripts/startup.sh`` from a ConfigMap whose
content at the corpus commit is not known, so the program and model position are not certain) and the
GKE app-design-center chart (its template hard-codes most flags, which have no place in the values
file, and its generic keys — ``model.id``, ``tensorParallelSize`` — do not identify the chart).
"""

from __future__ import annotations

import json
import math
import re

from vlint.core.invocation import Invocation, Token
from vlint.core.record import field, record
from vlint.core.span import Span
from vlint.sources.base import ReadFile, SourceResult, SourceText
from vlint.sources.kube.k8s_common import (
    EnvVar,
    Facts,
    LaunchContext,
    LineIndex,
    MappedText,
    driver_facts,
    finish,
    get,
    gpu_label_fact,
    image_facts,
    image_launch,
    int_value,
    is_false,
    items,
    kubeai_launch,
    label_is_gpu,
    launches,
    node_selection_facts,
    pairs,
    read_documents,
    read_env,
    resource_facts,
    scalar,
    scalar_text,
    text_list,
    truthy,
)
from vlint.sources.sniffing import helm as sniff  # noqa: F401 - re-exported: callers use helm.sniff
from vlint.sources.sniffing import template as template_sniff  # noqa: F401 - re-exported: callers use helm.template_sniff
from vlint.sources.yaml_nodes import MappingNode, Node, ScalarNode, merged_items

NAME = "helm"


@record(slots=True)
class _File:
    src: SourceText
    lines: LineIndex
    read_file: ReadFile
    result: SourceResult = field(default_factory=SourceResult)

    def context(self, label: str, env: dict[str, EnvVar], facts: Facts) -> LaunchContext:
        return LaunchContext(NAME, label, self.lines, self.src.abspath.parent, self.read_file, env, facts)


def extract(src: SourceText, read_file: ReadFile) -> SourceResult:
    lines = LineIndex(src.path, src.text)
    f = _File(src, lines, read_file)
    nodes = read_documents(src, lines, f.result, "this values file")
    roots: list[Node] = []
    for node in nodes:
        if isinstance(node, MappingNode):
            roots.append(node)
            # a parent chart's values for a known chart it depends on, under the dependency's name or alias
            if get(node, "apiVersion") is None:  # (a manifest's spec is not a chart's values)
                roots.extend(v for _, v in merged_items(node) if isinstance(v, MappingNode) and _subchart_values(v))
    for root in roots:
        if get(root, "servingEngineSpec") is not None:
            _production_stack(f, root)
        if get(root, "catalog") is not None:
            _kubeai_catalog(f, root)
        if get(root, "modelArtifacts") is not None:
            _llm_d(f, root)
        if isinstance(get(root, "image", "command"), MappingNode | ScalarNode) or items(get(root, "image", "command")):
            _vllm_chart(f, root)
    return f.result


def _subchart_values(node: MappingNode) -> bool:
    """Values of production-stack or llm-d modelservice nested under a parent chart's key."""
    if get(node, "servingEngineSpec") is not None:
        return True
    roles = get(node, "decode") is not None or get(node, "prefill") is not None
    return get(node, "modelArtifacts") is not None and roles


# -- rendering helpers -------------------------------------------------------------------------
def go_value(node: ScalarNode) -> str:
    """A values scalar as ``{{ . }}``/``quote`` print it: Helm reads every YAML number as a float64
    and Go prints it with ``%v``, so ``1000000`` renders as ``1e+06`` (helm/helm#12195)."""
    text = str(node.value)
    if node.tag not in ("tag:yaml.org,2002:int", "tag:yaml.org,2002:float") or node.style:
        return text
    try:
        value = float(text.replace("_", ""))
    except ValueError:
        return text
    return _go_float(value)


def _go_float(value: float) -> str:
    """Go's ``%v`` of a float64 (``strconv.FormatFloat(v, 'g', -1, 64)``): the shortest digits that
    round-trip, in exponent form when the decimal exponent is below -4 or at least 6."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    if value == 0:
        return "0"
    sign = "-" if value < 0 else ""
    mantissa, _, exp_text = repr(abs(value)).partition("e")
    whole, _, frac = mantissa.partition(".")
    digits = whole + frac
    dp = len(whole) + (int(exp_text) if exp_text else 0)
    stripped = digits.lstrip("0")
    dp -= len(digits) - len(stripped)
    digits = stripped.rstrip("0") or "0"
    nd = len(digits)
    exp = dp - 1
    if exp < -4 or exp >= 6:
        mant = digits[0] + ("." + digits[1:] if nd > 1 else "")
        return f"{sign}{mant}e{'+' if exp >= 0 else '-'}{abs(exp):02d}"
    if dp <= 0:
        return f"{sign}0.{'0' * -dp}{digits}"
    if dp >= nd:
        return f"{sign}{digits}{'0' * (dp - nd)}"
    return f"{sign}{digits[:dp]}.{digits[dp:]}"


@record(slots=True)
class _Argv:
    """An argv under construction; every word has the span of the values entry that produced it."""

    lines: LineIndex
    words: list[Token] = field(default_factory=list)

    def flag(self, text: str, at: Node) -> None:
        self.words.append(Token(text, self.lines.node_span(at)))

    def value(self, node: Node, *, go: bool = True) -> None:
        if isinstance(node, ScalarNode):
            mt = scalar_text(node, self.lines)
            text = go_value(node) if go else mt.text
            tok = mt.token()
            self.words.append(Token(text, tok.span if mt.text else self.lines.node_span(node), tok.unresolved))
        else:  # a list or mapping where the chart prints a value: its source text (str() of the node
            # list recursed through every alias: a billion-laughs values file took minutes and all memory)
            span = self.lines.node_span(node)
            start = self.lines.offset(node.start_mark.line, node.start_mark.column)
            end = self.lines.offset(node.end_mark.line, node.end_mark.column)
            self.words.append(Token(self.lines.text[start:end], span, unresolved=True))

    def literal(self, text: str, span: Span) -> None:
        self.words.append(Token(text, span))


def _key(mapping: Node | None, key: str) -> tuple[ScalarNode, Node] | None:
    for k, v in pairs(mapping):
        if k.value == key:
            return k, v
    return None


# -- production-stack --------------------------------------------------------------------------
def _production_stack(f: _File, root: Node) -> None:
    ses = get(root, "servingEngineSpec")
    if is_false(get(ses, "enableEngine")):
        return
    for spec in items(get(ses, "modelSpec")):
        if not isinstance(spec, MappingNode) or is_false(get(spec, "enabled")):
            continue
        _model_spec(f, ses, spec)
    api_key = get(ses, "vllmApiKey")
    if isinstance(api_key, ScalarNode) and scalar(api_key):
        f.result.assignments.append(("VLLM_API_KEY", scalar_text(api_key, f.lines).token()))


def _model_spec(f: _File, ses: Node, spec: MappingNode) -> None:
    lines = f.lines
    ray = truthy(get(spec, "raySpec", "enabled"))
    name = scalar(get(spec, "name")) or "?"
    url = get(spec, "modelURL")
    anchor = url if url is not None else spec
    argv = _Argv(lines)
    if url is not None:
        argv.value(url, go=False)
    else:
        argv.words.append(Token("", lines.node_span(spec), unresolved=True))
    port_node = get(ses, "containerPort")
    host_at = port_node if port_node is not None else anchor
    argv.literal("--host", lines.node_span(host_at))
    argv.literal("0.0.0.0", lines.node_span(host_at))
    argv.literal("--port", lines.node_span(host_at))
    argv.literal(scalar(port_node) or "8000", lines.node_span(host_at))
    if ray:
        argv.literal("--distributed-executor-backend", lines.node_span(get(spec, "raySpec") or anchor))
        argv.literal("ray", lines.node_span(get(spec, "raySpec") or anchor))
    for key, flag in (("enableLoRA", "--enable-lora"), ("enableTool", "--enable-auto-tool-choice")):
        kv = _key(spec, key)
        if kv and truthy(kv[1]):
            argv.flag(flag, kv[0])
    kv = _key(spec, "toolCallParser")
    if kv and truthy(kv[1]):
        argv.flag("--tool-call-parser", kv[0])
        argv.value(kv[1])
    cfg_kv = _key(spec, "vllmConfig")
    cfg = cfg_kv[1] if cfg_kv else None
    if cfg_kv is not None and truthy(cfg):
        _vllm_config(argv, cfg_kv[0], cfg, ray=ray)
    kv = _key(spec, "modelRevision")
    if kv and truthy(kv[1]):
        argv.flag("--revision", kv[0])
        argv.value(kv[1])
    _lmcache_args(argv, spec, cfg, ray=ray)
    kv = _key(spec, "chatTemplate")
    if kv and truthy(kv[1]) and isinstance(kv[1], ScalarNode):
        argv.flag("--chat-template", kv[0])
        prefix = "" if ray else "/templates/"
        tok = scalar_text(kv[1], lines).token()
        argv.words.append(Token(prefix + tok.text, tok.span, tok.unresolved))
    facts = Facts()
    env = _production_stack_env(f, ses, spec, cfg)
    _production_stack_facts(f, ses, spec, cfg, facts, ray=ray)
    label = f"modelSpec {name} (production-stack values" + (", Ray)" if ray else ")")
    ctx = f.context(label, env, facts)
    inv = Invocation(source=NAME, program="vllm serve", span=argv.words[0].span, args=argv.words)
    finish(inv, ctx)
    f.result.invocations.append(inv)
    hf = get(spec, "hf_token")
    if isinstance(hf, ScalarNode) and scalar(hf):
        f.result.assignments.append(("HF_TOKEN", scalar_text(hf, lines).token()))


#: vllmConfig keys rendered as ``--flag value`` when present (deployment-vllm-multi.yaml 162-193;
#: the Ray template spells gpuMemoryUtilization/maxLoras with dashes and adds pipelineParallelSize)
_VALUE_KEYS = (
    ("maxModelLen", "--max-model-len", "--max-model-len"),
    ("dtype", "--dtype", "--dtype"),
    ("tensorParallelSize", "--tensor-parallel-size", "--tensor-parallel-size"),
    ("pipelineParallelSize", None, "--pipeline-parallel-size"),
    ("maxNumSeqs", "--max-num-seqs", "--max-num-seqs"),
    ("gpuMemoryUtilization", "--gpu_memory_utilization", "--gpu-memory-utilization"),
    ("maxLoras", "--max_loras", "--max-loras"),
    ("runner", "--runner", None),
    ("convert", "--convert", None),
)


def _vllm_config(argv: _Argv, cfg_key: ScalarNode, cfg: Node, *, ray: bool) -> None:
    kv = _key(cfg, "enableChunkedPrefill")
    if kv is not None:
        argv.flag("--enable-chunked-prefill" if truthy(kv[1]) else "--no-enable-chunked-prefill", kv[0])
    kv = _key(cfg, "enablePrefixCaching")
    if kv is not None and truthy(kv[1]):
        argv.flag("--enable-prefix-caching", kv[0])
    elif not ray:
        # the chart's `else` branch: absent or false both disable prefix caching
        argv.flag("--no-enable-prefix-caching", kv[0] if kv is not None else cfg_key)
    for key, flag, ray_flag in _VALUE_KEYS:
        chosen = ray_flag if ray else flag
        kv = _key(cfg, key)
        if kv is None or chosen is None:
            continue
        argv.flag(chosen, kv[0])
        argv.value(kv[1])
    extra = _key(cfg, "extraArgs")
    if extra is not None and truthy(extra[1]):
        for item in items(extra[1]):
            argv.value(item, go=False)


def _lmcache_args(argv: _Argv, spec: Node, cfg: Node | None, *, ray: bool) -> None:
    lm = _key(spec, "lmcacheConfig")
    if lm is None or not truthy(lm[1]) or not truthy(get(lm[1], "enabled")):
        return
    role = scalar(get(lm[1], "kvRole")) or "kv_both"
    v0 = scalar(get(cfg, "v0")) == "1"
    if ray:
        v1 = get(cfg, "v1")
        connector = "LMCacheConnectorV1" if v1 is not None and scalar(v1) == "1" else "LMCacheConnector"
        config: dict[str, object] = {"kv_connector": connector, "kv_role": "kv_both"}
    elif _key(lm[1], "enablePD") is not None:
        config = {
            "kv_connector": "LMCacheConnectorV1",
            "kv_role": role,
            "kv_connector_extra_config": {
                "discard_partial_chunks": False,
                "lmcache_rpc_port": scalar(get(lm[1], "nixlRole")) or "",
            },
        }
    else:
        config = {"kv_connector": "LMCacheConnector" if v0 else "LMCacheConnectorV1", "kv_role": role}
    argv.flag("--kv-transfer-config", lm[0])
    argv.literal(json.dumps(config, separators=(",", ":")), argv.lines.node_span(lm[0]))


def _production_stack_env(f: _File, ses: Node, spec: Node, cfg: Node | None) -> dict[str, EnvVar]:
    lines = f.lines
    env: dict[str, EnvVar] = {}
    at = lines.node_span(get(spec, "name") or spec)

    def fixed(name: str, value: str | None, span: Span, kind: str = "literal") -> None:
        text = value if value is not None else f"$({name})"
        env[name] = EnvVar(name, value, Token(text, span, value is None), kind)

    fixed("PYTHONHASHSEED", "123", at)
    if cfg is not None and truthy(cfg):
        v0 = get(cfg, "v0")
        if v0 is not None and scalar(v0) == "1":
            fixed("VLLM_USE_V1", "0", lines.node_span(v0))
    hf = get(spec, "hf_token")
    if truthy(hf) and hf is not None:
        fixed("HF_TOKEN", None, lines.node_span(hf), "secret")
    key = get(ses, "vllmApiKey")
    if truthy(key) and key is not None and (isinstance(key, ScalarNode) or truthy(get(key, "secretName"))):
        fixed("VLLM_API_KEY", None, lines.node_span(key), "secret")
    read_env(get(ses, "env"), lines, env)
    read_env(get(spec, "env"), lines, env)
    lm = get(spec, "lmcacheConfig")
    cvd = get(lm, "cudaVisibleDevices")
    if isinstance(cvd, ScalarNode):
        fixed("CUDA_VISIBLE_DEVICES", str(cvd.value), lines.node_span(cvd))
    return env


def _production_stack_facts(f: _File, ses: Node, spec: Node, cfg: Node | None, facts: Facts, *, ray: bool) -> None:
    lines = f.lines
    repo, tag = get(spec, "repository"), get(spec, "tag")
    if scalar(repo) and repo is not None:
        image = f"{scalar(repo)}:{scalar(tag)}" if scalar(tag) else str(scalar(repo))
        image_facts(facts, image, lines.node_span(tag if tag is not None else repo), "modelSpec repository:tag")
    count = get(spec, "replicaCount")
    if count is not None:
        facts.set("replicas", int_value(count), lines.node_span(count), "replicaCount")
    if get(spec, "resources") is not None and truthy(get(spec, "resources")):
        resource_facts(facts, get(spec, "resources"), lines, "modelSpec.resources")
    else:
        _request_gpu(facts, spec, lines, "requestGPU")
    if ray:
        head = get(spec, "raySpec", "headNode")
        head_facts = Facts()
        _request_gpu(head_facts, head, lines, "raySpec.headNode.requestGPU")
        per_worker = facts.facts.get("gpu_count")
        workers = int_value(count) or 0
        head_gpus = head_facts.facts.get("gpu_count")
        h = head_gpus.value if head_gpus is not None else 0
        w = per_worker.value if per_worker is not None else 0
        span = lines.node_span(get(spec, "raySpec") or spec)
        facts.facts.pop("gpu_count", None)
        if head_gpus is not None:
            facts.facts["gpu_count"] = head_gpus
        facts.set("group_size", workers + 1, span, "Ray head + replicaCount worker pods")
        facts.set("cluster_gpu_count", h + workers * w, span, f"Ray cluster: head {h} + {workers} × {w} GPUs")
    _shm(facts, spec, cfg, lines)
    affinity = get(spec, "affinity")
    if truthy(affinity):
        node_selection_facts(facts, spec, lines)
    elif truthy(get(spec, "nodeSelectorTerms")) and not truthy(get(spec, "nodeName")):
        _selector_terms(facts, get(spec, "nodeSelectorTerms"), lines)
    if truthy(get(spec, "lmcacheConfig", "enablePD")):
        facts.set("ipc", "host", lines.node_span(get(spec, "lmcacheConfig", "enablePD")), "lmcacheConfig.enablePD")
    priv = get(ses, "containerSecurityContext", "privileged")
    if truthy(priv):
        facts.set("privileged", True, lines.node_span(priv), "servingEngineSpec.containerSecurityContext")


def _request_gpu(facts: Facts, spec: Node | None, lines: LineIndex, what: str) -> None:
    """chart.resources: ``int requestGPU > 0`` requests ``requestGPUType`` (default nvidia.com/gpu)."""
    node = get(spec, "requestGPU")
    count = int_value(node) if node is not None else None
    if node is None or not count or count <= 0:
        return  # no GPU resource is rendered: the scheduler does not know the pod uses GPUs
    kind = scalar(get(spec, "requestGPUType")) or "nvidia.com/gpu"
    span = lines.node_span(node)
    if kind in ("nvidia.com/gpu", "amd.com/gpu"):
        facts.set("gpu_count", count, span, f"{what}: {count} ({kind})")
        facts.set("gpu_resource", kind, span, what)
    else:
        facts.set("accelerator_count", count, span, f"{what}: {count} ({kind})")


def _shm(facts: Facts, spec: Node, cfg: Node | None, lines: LineIndex) -> None:
    tp = get(cfg, "tensorParallelSize") if cfg is not None and truthy(cfg) else None
    if tp is None:
        facts.set(
            "shm_mounted", False, None, "the chart mounts /dev/shm only when vllmConfig.tensorParallelSize is set"
        )
        return
    size = get(spec, "shmSize")
    facts.set("shm_mounted", True, lines.node_span(tp), "vllmConfig.tensorParallelSize mounts a memory emptyDir")
    facts.set("shm_medium", "Memory", lines.node_span(tp), "chart shm volume")
    if size is not None and scalar(size):
        facts.set("shm_size", scalar(size), lines.node_span(size), "shmSize")
    else:
        facts.set("shm_size", "20Gi", lines.node_span(tp), "chart default shmSize 20Gi")


def _selector_terms(facts: Facts, terms: Node | None, lines: LineIndex) -> None:
    """The chart's ``nodeSelectorTerms`` (the pod's required node affinity terms, ORed): the GPU, and the driver
    when there is one term."""
    listed = items(terms)
    driver_facts(facts, [], listed if len(listed) == 1 else [], lines)
    for t in listed:
        for e in items(get(t, "matchExpressions")):
            key = scalar(get(e, "key")) or ""
            vals = [(scalar(v) or "", lines.node_span(v)) for v in items(get(e, "values"))]
            if label_is_gpu(key) and (scalar(get(e, "operator")) or "In") == "In":
                gpu_label_fact(facts, key, [(t, s) for t, s in vals if t], "nodeSelectorTerms")


def vllm_runtime_launch(spec: Node, ctx: LaunchContext) -> Invocation | None:
    """The production-stack operator's ``VLLMRuntime``: ``/opt/venv/bin/vllm serve`` with the
    arguments ``deploymentForVLLMRuntime`` builds (vllm-project/production-stack
    operator/internal/controller/vllmruntime_controller.go). Unlike the chart it always renders both
    ``--(no-)enable-chunked-prefill`` and ``--(no-)enable-prefix-caching``, sets ``VLLM_USE_V1`` from
    ``v1`` and mounts no /dev/shm volume."""
    lines = ctx.lines
    model, cfg = get(spec, "model"), get(spec, "vllmConfig")
    url = get(model, "modelURL")
    if not isinstance(url, ScalarNode):
        return None
    argv = _Argv(lines)
    argv.value(url, go=False)
    port = get(cfg, "port")
    at = lines.node_span(port if port is not None else url)
    for text in ("--host", "0.0.0.0", "--port", scalar(port) or "8000"):
        argv.literal(text, at)
    for node, key, flag in ((model, "enableLoRA", "--enable-lora"), (model, "enableTool", "--enable-auto-tool-choice")):
        kv = _key(node, key)
        if kv and truthy(kv[1]):
            argv.flag(flag, kv[0])
    _value_flags(argv, [(model, "toolCallParser", "--tool-call-parser")])
    for switch, on, off in (
        ("enableChunkedPrefill", "--enable-chunked-prefill", "--no-enable-chunked-prefill"),
        ("enablePrefixCaching", "--enable-prefix-caching", "--no-enable-prefix-caching"),
    ):
        sw = _key(cfg, switch)
        argv.literal(on if sw and truthy(sw[1]) else off, lines.node_span(sw[0] if sw else (cfg or url)))
    _value_flags(
        argv,
        [
            (model, "maxModelLen", "--max-model-len"),
            (model, "dtype", "--dtype"),
            (cfg, "tensorParallelSize", "--tensor-parallel-size"),
            (model, "maxNumSeqs", "--max-num-seqs"),
            (cfg, "gpuMemoryUtilization", "--gpu_memory_utilization"),
            (cfg, "maxLoras", "--max_loras"),
        ],
    )
    for item in items(get(cfg, "extraArgs")):
        argv.value(item, go=False)
    kv = _key(model, "chatTemplate")
    if kv and truthy(kv[1]):
        argv.flag("--chat-template", kv[0])
        argv.literal("/etc/chat-template.json", lines.node_span(kv[1]))
    v1 = truthy(get(cfg, "v1"))
    lm = get(spec, "lmCacheConfig")
    if truthy(get(lm, "enabled")):
        connector = "LMCacheConnectorV1" if v1 else "LMCacheConnector"
        argv.flag("--kv-transfer-config", get(lm, "enabled") or lm or url)
        argv.literal(f'{{"kv_connector":"{connector}","kv_role":"kv_both"}}', lines.node_span(lm or url))
    v1_at = lines.node_span(get(cfg, "v1") or cfg or url)
    ctx.env.setdefault("VLLM_USE_V1", EnvVar("VLLM_USE_V1", "1" if v1 else "0", Token("1" if v1 else "0", v1_at)))
    lora = get(model, "enableLoRA")
    if truthy(lora) and lora is not None:
        name = "VLLM_ALLOW_RUNTIME_LORA_UPDATING"
        ctx.env.setdefault(name, EnvVar(name, "True", Token("True", lines.node_span(lora))))
    read_env(get(cfg, "env"), lines, ctx.env)
    if truthy(get(model, "hfTokenSecret", "hfTokenSecretName")):
        hf = get(model, "hfTokenSecret")
        ctx.env["HF_TOKEN"] = EnvVar("HF_TOKEN", None, Token("$(HF_TOKEN)", lines.node_span(hf or url), True), "secret")
    dc = get(spec, "deploymentConfig")
    registry, name = scalar(get(dc, "image", "registry")), get(dc, "image", "name")
    if scalar(name) and name is not None:
        image_facts(ctx.facts, f"{registry}/{scalar(name)}" if registry else str(scalar(name)), lines.node_span(name))
    gpus = get(dc, "resources", "gpu")
    count = int_value(gpus)
    if count and gpus is not None:
        kind = scalar(get(dc, "resources", "gpuType")) or "nvidia.com/gpu"
        ctx.facts.set("gpu_count", count, lines.node_span(gpus), f"deploymentConfig.resources.gpu: {count} ({kind})")
    replicas = get(dc, "replicas")
    if replicas is not None:
        ctx.facts.set("replicas", int_value(replicas), lines.node_span(replicas), "deploymentConfig.replicas")
    _selector_terms(ctx.facts, get(dc, "nodeSelectorTerms"), lines)
    ctx.facts.set("shm_mounted", False, None, "the operator mounts no /dev/shm volume")
    inv = Invocation(source=ctx.source, program="vllm serve", span=argv.words[0].span, args=argv.words)
    finish(inv, ctx)
    return inv


def _value_flags(argv: _Argv, keys: list[tuple[Node | None, str, str]]) -> None:
    """``--flag value`` for each key that is set to something (Go's non-zero checks)."""
    for node, key, flag in keys:
        kv = _key(node, key)
        if kv and truthy(kv[1]):
            argv.flag(flag, kv[0])
            argv.value(kv[1], go=False)


# -- KubeAI models chart -----------------------------------------------------------------------
def _kubeai_catalog(f: _File, root: Node) -> None:
    all_enabled = truthy(get(root, "all", "enabled"))
    for key, entry in pairs(get(root, "catalog")):
        if not isinstance(entry, MappingNode) or get(entry, "url") is None:
            continue
        name = str(key.value)
        enabled = all_enabled or truthy(get(entry, "enabled"))
        facts = Facts()
        en = get(entry, "enabled")
        facts.set("enabled", enabled, f.lines.node_span(en) if en is not None else None, "catalog entry enabled")
        label = f"catalog entry {name} (KubeAI models chart" + ("" if enabled else ", disabled by default") + ")"
        ctx = f.context(label, {}, facts)
        inv = kubeai_launch(name, entry, ctx, name_span=f.lines.node_span(key), where=f"catalog.{name}")
        if inv is not None:
            f.result.invocations.append(inv)


# -- llm-d modelservice ------------------------------------------------------------------------
def _llm_d(f: _File, root: Node) -> None:
    lines = f.lines
    artifacts = get(root, "modelArtifacts")
    name_node = get(artifacts, "name")
    uri_node = get(artifacts, "uri")
    mount = scalar(get(artifacts, "mountPath")) or "/model-cache"
    proxy_enabled = not is_false(get(root, "routing", "proxy", "enabled"))
    service_port = scalar(get(root, "routing", "servicePort")) or "8000"
    target_port = scalar(get(root, "routing", "proxy", "targetPort")) or "8200"
    accel = (scalar(get(root, "accelerator", "type")) or "nvidia").lower()
    for role in ("decode", "prefill"):
        pd = get(root, role)
        if pd is None or is_false(get(pd, "create")):
            continue
        par = get(pd, "parallelism")
        tp = int_value(get(par, "tensor")) or 1
        dp_local = int_value(get(par, "dataLocal"))
        data = int_value(get(par, "data"))
        workers = int_value(get(par, "workers"))
        dp = data or ((dp_local * workers) if dp_local and workers else dp_local) or 1
        if not dp_local:
            dp_local = (data // workers) if data and workers else (data or 1)
        port = service_port if role == "prefill" or not proxy_enabled else target_port
        for c in items(get(pd, "containers")):
            if not isinstance(c, MappingNode):
                continue
            cname = scalar(get(c, "name")) or "vllm"
            mode = scalar(get(c, "modelCommand")) or "custom"
            facts = Facts()
            _replica_fact(facts, get(pd, "replicas"), lines)
            gpus = dp_local * tp
            rspan = lines.node_span(par if par is not None else pd)
            # an explicit accelerator limit wins; the chart fills in dataLocal × tensor only where the
            # container sets none (llm-d-modelservice _helpers.tpl "llm-d-modelservice.resources": "Respect
            # user's explicit accelerator setting; only auto-fill if not set"; chart versions before that
            # overwrote the limit)
            resource_facts(facts, get(c, "resources"), lines)
            if accel == "nvidia" or accel == "amd":
                facts.setdefault("gpu_count", gpus, rspan, f"llm-d: dataLocal × tensor = {gpus} ({accel})")
            elif accel != "cpu":
                facts.setdefault("accelerator_count", gpus, rspan, f"llm-d: {accel}")
            env: dict[str, EnvVar] = {}
            read_env(get(c, "env"), lines, env)
            image_node = get(c, "image")
            image = scalar(image_node)
            if image and image_node is not None:
                image_facts(facts, image, lines.node_span(image_node))
            label = f"{role} container {cname} (llm-d modelservice values)"
            ctx = f.context(label, env, facts)
            ctx.image = image
            ctx.image_span = lines.node_span(image_node) if image_node is not None else None
            args = text_list(get(c, "args"), lines)
            if mode == "custom":
                command = text_list(get(c, "command"), lines)
                if command:
                    f.result.invocations.extend(launches(command + args, ctx, f.result))
                continue
            argv = _Argv(lines)
            model = _llm_d_model(argv, uri_node, name_node, mount, model_arg=mode == "imageDefault")
            if not model:
                continue
            span = lines.node_span(get(c, "modelCommand") or c)
            argv.literal("--port", span)
            argv.literal(port, span)
            for flag, n in (
                ("--tensor-parallel-size", tp),
                ("--data-parallel-size", dp),
                ("--data-parallel-size-local", dp_local),
            ):
                if n > 1:
                    argv.literal(flag, rspan)
                    argv.literal(str(n), rspan)
            if name_node is not None:
                argv.flag("--served-model-name", name_node)
                argv.value(name_node, go=False)
            argv.words += [a.token() for a in args]
            if mode == "vllmServe":
                inv = Invocation(NAME, "vllm serve", argv.words[0].span, args=argv.words)
                finish(inv, ctx)
                f.result.invocations.append(inv)
            else:
                words = [MappedText.at(t.text, lines, *_offsets(lines, t.span)) for t in argv.words]
                inv2 = image_launch(words, ctx)
                if inv2 is not None:
                    inv2.args = argv.words
                    f.result.invocations.append(inv2)


def _offsets(lines: LineIndex, span: Span) -> tuple[int, int]:
    return lines.offset(span.line - 1, span.column - 1), lines.offset(span.end_line - 1, span.end_column - 1)


def _llm_d_model(argv: _Argv, uri: Node | None, name: Node | None, mount: str, *, model_arg: bool) -> bool:
    """argsByProtocol: ``hf://X`` → X (rendered with ``tpl``), ``pvc://claim/path`` → mountPath/path,
    ``pvc+hf://claim/…/org/model`` → org/model."""
    text = scalar(uri)
    if not text or uri is None:
        return False
    protocol, _, rest = text.partition("://")
    span = argv.lines.node_span(uri)
    if model_arg:
        argv.literal("--model", span)
    if protocol == "hf":
        model = rest
        if "{{" in model and name is not None and scalar(name):
            model = re.sub(r"\{\{-?\s*\.Values\.modelArtifacts\.name\s*-?\}\}", str(scalar(name)), model)
        model = model.strip().strip('"').strip("'")
        argv.words.append(Token(model, span, "{{" in model))
    elif protocol == "pvc":
        path = rest.split("/", 1)[1] if "/" in rest else ""
        argv.words.append(Token(f"{mount}/{path}", span))
    elif protocol == "pvc+hf":
        parts = rest.split("/")
        argv.words.append(Token("/".join(parts[-2:]), span))
    else:
        argv.words.append(Token(text, span, unresolved=True))
    return True


def _replica_fact(facts: Facts, node: Node | None, lines: LineIndex) -> None:
    if node is not None:
        facts.set("replicas", int_value(node), lines.node_span(node), "replicas")


# -- vLLM's example chart ----------------------------------------------------------------------
def _vllm_chart(f: _File, root: Node) -> None:
    """vllm-project/vllm examples/online_serving/chart-helm: ``command: {{ .Values.image.command }}``."""
    lines = f.lines
    image = get(root, "image")
    command = text_list(get(image, "command"), lines)
    if not command:
        return
    facts = Facts()
    repo, tag = scalar(get(image, "repository")), get(image, "tag")
    if repo:
        text = f"{repo}:{scalar(tag)}" if scalar(tag) else repo
        image_facts(facts, text, lines.node_span(tag if tag is not None else get(image, "repository")))
    _replica_fact(facts, get(root, "replicaCount"), lines)
    resource_facts(facts, get(root, "resources"), lines)
    models = [(scalar(v) or "", lines.node_span(v)) for v in items(get(root, "gpuModels"))]
    gpu_label_fact(facts, "nvidia.com/gpu.product", [(t, s) for t, s in models if t], "gpuModels")
    shm = get(root, "shm")
    if truthy(get(shm, "enabled")):
        size = get(shm, "size")
        facts.set("shm_mounted", True, lines.node_span(shm), "shm.enabled")
        if scalar(size) and size is not None:
            facts.set("shm_size", scalar(size), lines.node_span(size), "shm.size")
    else:
        facts.set("shm_mounted", False, lines.node_span(shm) if shm is not None else None, "shm not enabled")
    env: dict[str, EnvVar] = {}
    read_env(get(image, "env"), lines, env)
    ctx = f.context("image.command (vLLM example chart values)", env, facts)
    f.result.invocations.extend(launches(command, ctx, f.result))


# -- other templates ---------------------------------------------------------------------------


def template_extract(src: SourceText, read_file: ReadFile) -> SourceResult:
    """VL604 when the template is not YAML before rendering; nothing to lint either way."""
    result = SourceResult()
    read_documents(src, LineIndex(src.path, src.text), result, "this file")
    return result

"""Kubernetes manifests: the vLLM launches of every container of every workload in a YAML file.

Workloads are found by shape, not by kind: any mapping with a ``containers`` list is a pod spec
(Deployment, StatefulSet, DaemonSet, ReplicaSet, Job, CronJob's ``jobTemplate``, Pod,
LeaderWorkerSet leader/worker templates, KubeRay head/worker groups, AIBrix roles, KServe
``ServingRuntime``…), in multi-document files, ``List`` kinds and OpenShift ``Template.objects``.

Per container the argv is ``command + args`` (Kubernetes semantics: ``$(VAR)`` is expanded from
the container's env, ``${VAR}`` is not); ``sh -c SCRIPT`` bodies go through the shell source;
without ``command`` the image's default entrypoint runs ``args``. The pod spec gives the facts:
GPU count (``resources``), GPU type (``nodeSelector`` / node affinity), ``/dev/shm``, image tag,
replicas, the ``vlint.dev/disable`` annotation.

Custom resources that describe a vLLM launch without a container spell it out themselves:
KubeAI ``Model`` (``spec.url``/``args``/``env``/``resourceProfile``), KServe ``InferenceService``
(``predictor.model``) and ``LLMInferenceService`` (``model``, ``parallelism``,
``VLLM_ADDITIONAL_ARGS``, ``prefill``), NVIDIA Dynamo ``DynamoGraphDeployment`` (each service's
``extraPodSpec.mainContainer`` with the service's ``envs``, ``resources.limits.gpu``, ``replicas``,
``multinode``; ``python -m dynamo.vllm`` is read by argspec/dynamo.py), KubeAIRunway
``ModelDeployment`` with ``engine.type: vllm`` (``model.id``, ``contextLength``, ``trustRemoteCode``,
``resources.gpu.count``; its provider writes the rest of the command).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

from vlint.core.invocation import ConfigFile, Entry, Fact, Invocation, Problem, Token
from vlint.core.record import field, record
from vlint.core.span import Span
from vlint.sources.base import ReadFile, SourceError, SourceResult, SourceText, set_head
from vlint.sources.kube.k8s_common import (
    EnvVar,
    Facts,
    LaunchContext,
    LineIndex,
    MappedText,
    compose_documents,
    expand_refs,
    finish,
    get,
    image_facts,
    image_launch,
    image_script,
    instance_label_fact,
    int_value,
    is_vllm_template,
    items,
    iter_pod_specs,
    kubeai_launch,
    launches,
    node_selection_facts,
    read_documents,
    read_env,
    read_volumes,
    resource_facts,
    scalar,
    scalar_text,
    shm_facts,
    storage_facts,
    suppress_fact,
    template_problem,
    template_span,
    text_list,
    truthy,
    unexpanded_env,
)
from vlint.sources.kube.pod_wiring import ServiceEnv, probe_facts, read_service, service_link_facts
from vlint.sources.scripts import shell
from vlint.sources.sniffing import kubernetes as sniff  # noqa: F401 - re-exported: callers use kubernetes.sniff
from vlint.sources.yaml_nodes import MappingNode, Node, ScalarNode, SequenceNode, first_key, merged_items, to_python

NAME = "kubernetes"

#: top-level keys of every manifest document (``List`` and ``Template`` hold their objects inside)
#: kinds whose containers get more arguments at run time (KServe appends the InferenceService's)
_OPEN_ENDED = {"ServingRuntime", "ClusterServingRuntime", "LLMInferenceServiceConfig"}
#: path keys that name a pod's role in multi-pod workloads
_ROLE_KEYS = {
    "leaderTemplate": "leader",
    "workerTemplate": "worker",
    "headGroupSpec": "Ray head",
    "workerGroupSpecs": "Ray worker",
}


@record(slots=True)
class _File:
    src: SourceText
    lines: LineIndex
    read_file: ReadFile
    result: SourceResult
    #: InferenceService → the ServingRuntime of the same file it runs with
    merged_runtime: dict[int, MappingNode] = field(default_factory=dict)
    #: the file's ServingRuntimes and ClusterServingRuntimes
    runtimes: list[MappingNode] = field(default_factory=list)
    #: the Services of the file that give pods of their namespace environment variables (VL611)
    services: list[ServiceEnv] = field(default_factory=list)


def extract(src: SourceText, read_file: ReadFile) -> SourceResult:
    lines = LineIndex(src.path, src.text)
    f = _File(src, lines, read_file, SourceResult())
    nodes = read_documents(src, lines, f.result, "this manifest")
    objects = [obj for doc in nodes for obj in _objects(doc, 0)]
    runtimes = _serving_runtimes(objects)
    f.runtimes = [obj for obj in objects if _is_runtime(obj)]
    f.services = [svc for obj in objects if (svc := read_service(obj, lines)) is not None]
    used: set[int] = set()
    for obj in objects:
        runtime = _runtime_of(obj, runtimes)
        if runtime is not None:
            used.add(id(runtime))
            f.merged_runtime[id(obj)] = runtime
    for obj in objects:
        service = scalar(get(obj, "kind")) == "InferenceService" and id(obj) not in f.merged_runtime
        if service and _runtime_elsewhere(f, obj):
            continue  # the launch of the two, as the runtime's file makes it
        if id(obj) not in used:  # a runtime an InferenceService here uses is linted through it
            _extract_object(f, obj)
    _kaito_configs(f, objects)
    for inv in f.result.invocations:
        _unused_vllm_args(inv)
    return f.result


def _unused_vllm_args(inv: Invocation) -> None:
    """VL052: a ``VLLM_ARGS`` environment variable that the launch does not expand (``$(VLLM_ARGS)`` in
    the args, ``$VLLM_ARGS`` in a script). vLLM reads no such variable (it is in no release's
    ``vllm/envs.py``), nor does the vllm-openai image's entrypoint (``vllm serve``), so the flags in it
    are never applied. It is then reported here rather than as an unknown vLLM variable (VL013)."""
    tok = inv.env.get("VLLM_ARGS")
    if tok is None or tok.unresolved:
        return
    span = tok.span
    if any(t.span.path == span.path and span.line <= t.span.line <= span.end_line for t in inv.args):
        return  # expanded into the command line: its words are the launch's arguments
    shown = tok.text if len(tok.text) <= 80 else tok.text[:77] + "..."
    inv.problems.append(
        Problem(
            "VL052",
            span,
            f"VLLM_ARGS is not read by vLLM or by the image's entrypoint, so these flags are not applied: {shown} "
            "(put them in the container's args)",
            {"value": tok.text},
        )
    )
    del inv.env["VLLM_ARGS"]


def _objects(node: Node, depth: int, seen: set[int] | None = None) -> list[MappingNode]:
    """Kubernetes objects in a document: the object itself, ``List.items``, ``Template.objects``
    (each node once: aliases cannot multiply the work)."""
    seen = set() if seen is None else seen
    if not isinstance(node, MappingNode) or depth > 5 or id(node) in seen:
        return []
    seen.add(id(node))
    kind = scalar(get(node, "kind")) or ""
    out: list[MappingNode] = []
    if scalar(get(node, "apiVersion")) is not None or kind:
        out.append(node)
    for key in ("items", "objects"):
        for child in items(get(node, key)):
            out.extend(_objects(child, depth + 1, seen))
    return out


def _where(obj: Node) -> str:
    kind = scalar(get(obj, "kind")) or "object"
    name = scalar(get(obj, "metadata", "name")) or "?"
    return f"{kind}/{name}"


def _extract_object(f: _File, obj: MappingNode) -> None:
    kind = scalar(get(obj, "kind")) or ""
    api = scalar(get(obj, "apiVersion")) or ""
    if kind == "Secret":
        _secret_values(f, obj)
    spec = get(obj, "spec")
    if spec is None:
        return
    where = _where(obj)
    base = Facts()
    suppress_fact(base, [get(obj, "metadata")], f.lines, where)
    if kind == "Model" and api.startswith("kubeai.org"):
        name_node = get(obj, "metadata", "name")
        name = scalar(name_node) or "model"
        ctx = _context(f, f"KubeAI {where}", {}, base)
        span = f.lines.node_span(name_node) if name_node is not None else f.lines.node_span(obj)
        _replicas(base, get(spec, "minReplicas"), f.lines, "minReplicas")
        inv = kubeai_launch(name, spec, ctx, name_span=span)
        if inv is not None:
            f.result.invocations.append(inv)
        return
    if kind == "ModelDeployment" and api.startswith("airunway.ai/"):
        inv = _airunway(f, obj, spec, base)
        if inv is not None:
            f.result.invocations.append(inv)
        return
    if kind == "VLLMRuntime" and api.startswith("production-stack.vllm.ai"):
        from vlint.sources.kube.helm import vllm_runtime_launch

        inv = vllm_runtime_launch(spec, _context(f, f"{where} (production-stack operator)", {}, base))
        if inv is not None:
            f.result.invocations.append(inv)
        return
    if kind == "InferenceService" and id(obj) in f.merged_runtime:
        runtime = f.merged_runtime[id(obj)]
        first = len(f.result.invocations)
        _with_runtime(f, obj, spec, runtime, base)
        if not scalar(get(obj, "spec", "predictor", "model", "runtime")):
            for inv in f.result.invocations[first:]:
                inv.facts["linked_by_name"] = _auto_selected_fact(obj, runtime, f.lines)
        return
    if kind == "InferenceService":
        _inference_service(f, obj, spec, base)
    if kind == "LLMInferenceService":
        _llm_inference_service(f, obj, spec, base)
        return
    if kind == "DynamoGraphDeployment" and api.startswith("nvidia.com/"):
        if isinstance(get(spec, "services"), MappingNode):
            _dynamo_graph(f, obj, spec, base)
        else:
            _dynamo_components(f, obj, spec, base)
        return
    if kind in ("ServingRuntime", "ClusterServingRuntime"):
        services = _sibling_objects(f, "InferenceService", _uses_runtime(obj, f.runtimes))
        if services:
            for service in services:
                _runtime_with_service(f, obj, spec, base, service)
            return
    for pod, path in iter_pod_specs(spec, ("spec",)):
        _pod(f, obj, pod, path, base, open_ended=kind in _OPEN_ENDED)


def _airunway(f: _File, obj: MappingNode, spec: Node, base: Facts) -> Invocation | None:
    """KubeAIRunway ``ModelDeployment`` (``airunway.ai/v1alpha1``) whose ``spec.engine.type`` is ``vllm``:
    the provider it selects serves ``spec.model.id`` with vLLM; ``engine.contextLength`` and
    ``engine.trustRemoteCode`` are vLLM's ``--max-model-len`` and ``--trust-remote-code``, and
    ``resources.gpu.count`` the GPUs (kaito-project/kubeairunway docs/crd-reference.md at 849c487). The
    provider writes the rest of the command, so the argv is opaque. An engine left to auto-selection, or
    another engine, is no vLLM launch vlint can be sure of: not read."""
    lines = f.lines
    engine = get(spec, "engine")
    if (scalar(get(engine, "type")) or "").strip().lower() != "vllm":
        return None
    model = get(spec, "model", "id")
    text = scalar(model)
    if model is None or not text:
        return None
    span = lines.node_span(model)
    args = [Token(text, span, "{{" in text or "$" in text)]
    ctx_len = get(engine, "contextLength")
    if scalar(ctx_len) and ctx_len is not None:
        at = lines.node_span(ctx_len)
        args += [Token("--max-model-len", at), Token(str(scalar(ctx_len)), at)]
    trust = get(engine, "trustRemoteCode")
    if truthy(trust) and trust is not None:
        args.append(Token("--trust-remote-code", lines.node_span(trust)))
    count = get(spec, "resources", "gpu", "count")
    if int_value(count) is not None and count is not None:
        base.set("gpu_count", int_value(count), lines.node_span(count), "ModelDeployment resources.gpu.count")
    inv = Invocation(source=NAME, program="vllm serve", span=span, args=args, opaque_args=True)
    finish(inv, _context(f, f"KubeAIRunway {_where(obj)} (engine vllm; its provider writes the command)", {}, base))
    return inv


def _context(f: _File, label: str, env: dict[str, EnvVar], facts: Facts, *, opaque: bool = False) -> LaunchContext:
    return LaunchContext(
        source=NAME,
        label=label,
        lines=f.lines,
        base_dir=f.src.abspath.parent,
        read_file=f.read_file,
        env=env,
        facts=facts,
        opaque=opaque,
    )


def _replicas(out: Facts, node: Node | None, lines: LineIndex, what: str = "replicas") -> None:
    if node is None:
        return
    n = int_value(node)
    out.setdefault("replicas", n if n is not None else scalar(node), lines.node_span(node), what)


def _walk(obj: Node, path: tuple[str, ...]) -> list[Node]:
    """The nodes along ``path`` from the object (pod spec last)."""
    nodes: list[Node] = [obj]
    node: Node | None = obj
    for key in path:
        if node is None:
            break
        if key.startswith("["):
            seq = items(node)
            idx = int(key[1:-1])
            node = seq[idx] if idx < len(seq) else None
        else:
            node = get(node, key)
        if node is not None:
            nodes.append(node)
    return nodes


def _role(path: tuple[str, ...], nodes: list[Node]) -> str:
    """The pod's role in a multi-pod workload: leader/worker, Ray head/worker, a named role."""
    for key in reversed(path):
        if key in _ROLE_KEYS:
            return _ROLE_KEYS[key]
    for node in reversed(nodes[:-1]):
        templated = get(node, "template") is not None or get(node, "podTemplate") is not None
        name = scalar(get(node, "name")) if isinstance(node, MappingNode) and templated else None
        if name:
            return f"role {name}"
    return ""


def _pod(f: _File, obj: Node, pod: Node, path: tuple[str, ...], base: Facts, *, open_ended: bool) -> None:
    lines = f.lines
    nodes = _walk(obj, path)
    where = _where(obj)
    role = _role(path, nodes)
    facts = Facts(dict(base.facts))
    for node in reversed(nodes[:-1]):
        if isinstance(node, MappingNode) and get(node, "replicas") is not None:
            _replicas(facts, get(node, "replicas"), lines)
            break
    metas = [get(n, "metadata") for n in nodes if isinstance(n, MappingNode)]
    suppress_fact(facts, metas, lines, where)
    node_selection_facts(facts, pod, lines)
    if truthy(get(pod, "hostIPC")):
        facts.set("ipc", "host", lines.node_span(get(pod, "hostIPC")), "pod hostIPC: true")
    _multi_node(facts, obj, path, pod, lines)
    volumes = read_volumes(pod, lines)
    if not open_ended:  # a runtime's pods are made by KServe, in the namespace of the InferenceService
        service_link_facts(facts, obj, pod, f.services, lines)
    for c in items(get(pod, "initContainers")):
        _literal_env(f, get(c, "env"))  # secrets in any container's env are secrets in the file
    for c in items(get(pod, "containers")):
        if not isinstance(c, MappingNode):
            continue
        cname = scalar(get(c, "name")) or "?"
        label = f"container {cname} in {where}" + (f" ({role})" if role else "")
        cfacts = Facts(dict(facts.facts))
        if not open_ended:
            probe_facts(cfacts, c, lines)
        for inv in _container(f, c, label, cfacts, volumes, opaque=open_ended):
            f.result.invocations.append(inv)


def _container(
    f: _File,
    c: Node,
    label: str,
    pod_facts: Facts,
    volumes: dict,
    *,
    opaque: bool,
    outer_env: Node | None = None,
) -> list[Invocation]:
    lines = f.lines
    facts = Facts(dict(pod_facts.facts))
    env = _literal_env(f, outer_env) if outer_env is not None else {}
    env.update(_literal_env(f, get(c, "env")))
    env_from = [
        f"{'secret' if get(e, 'secretRef') is not None else 'configmap'}/"
        f"{scalar(get(e, 'secretRef', 'name')) or scalar(get(e, 'configMapRef', 'name')) or '?'}"
        for e in items(get(c, "envFrom"))
    ]
    if env_from:
        facts.set("env_from", ",".join(env_from), lines.node_span(get(c, "envFrom")), "envFrom")
    secrets = [v.name for v in env.values() if v.kind == "secret"]
    if secrets:
        facts.set("secret_env", ",".join(secrets), env[secrets[0]].token.span, "env valueFrom.secretKeyRef")
    literal = unexpanded_env(env)
    if literal:
        facts.set(
            "k8s_unexpanded_env",
            ",".join(v.name for v in literal),
            literal[0].token.span,
            "Kubernetes expands only $(VAR) in env values; ${VAR} and $VAR stay literal",
        )
    resource_facts(facts, get(c, "resources"), lines)
    shm_facts(facts, c, volumes, lines)
    storage_facts(facts, c, volumes, lines)
    if truthy(get(c, "securityContext", "privileged")):
        facts.set("privileged", True, lines.node_span(get(c, "securityContext", "privileged")), "privileged container")
    image_node = get(c, "image")
    image = scalar(image_node)
    image_span = lines.node_span(image_node) if image_node is not None and image else None
    if image and image_span is not None:
        image_facts(facts, image, image_span)
    ctx = _context(f, label, env, facts, opaque=opaque)
    ctx.image, ctx.image_span = image, image_span
    command = [expand_refs(w, env)[0] for w in text_list(get(c, "command"), lines)]
    args = [expand_refs(w, env)[0] for w in text_list(get(c, "args"), lines)]
    if command:
        found = launches(command + args, ctx, f.result)
    else:
        inv = image_launch(args, ctx)
        found = [inv] if inv is not None else []
    head = first_key(c, "command", "args")
    set_head(found, lines.node_span(head) if head is not None else None)
    templated = [w for w in command + args if is_vllm_template(w.text)]
    if not found and templated:
        f.result.problems.append(template_problem(template_span(templated[0]), f"the command of {label}"))
    script = image_script(command + args) if not found and not templated else None
    if script is not None and "vllm" in f"{image or ''} {scalar(get(c, 'name')) or ''}".lower():
        # a container named for vLLM that runs a script of its image: whatever that starts is not read
        f.result.notes.append(
            f"{label} runs {script}, a file of its image that vlint cannot read: a vLLM launch it starts is not checked"
        )
    return found


def _secret_values(f: _File, obj: MappingNode) -> None:
    """Every value of a ``Secret`` is a credential, whatever its key: ``stringData`` as written,
    ``data`` base64-encoded (decoded before it is matched and masked)."""
    for field_name, encoded in (("stringData", False), ("data", True)):
        node = get(obj, field_name)
        if not isinstance(node, MappingNode):
            continue
        for k, v in merged_items(node):
            if isinstance(k, ScalarNode) and isinstance(v, ScalarNode) and not v.tag.endswith(":null"):
                f.result.secret_tokens.append((str(k.value), scalar_text(v, f.lines).token(), encoded))


def _literal_env(f: _File, env_node: Node | None) -> dict[str, EnvVar]:
    """A container's env; its literal values are also the file's assignments (for secret scanning)."""
    env: dict[str, EnvVar] = {}
    read_env(env_node, f.lines, env)
    f.result.assignments.extend((v.name, v.token) for v in env.values() if v.kind == "literal")
    return env


def _gpus(pod: Node | None, lines: LineIndex) -> int | None:
    """GPUs (or TPU chips) the containers of a pod spec request."""
    total = 0
    found = False
    for c in items(get(pod, "containers")):
        facts = Facts()
        resource_facts(facts, get(c, "resources"), lines)
        n = facts.facts.get("gpu_count") or facts.facts.get("tpu_count")
        if n is not None and isinstance(n.value, int):
            total += n.value
            found = True
    return total if found else None


def _multi_node(out: Facts, obj: Node, path: tuple[str, ...], pod: Node, lines: LineIndex) -> None:
    """GPUs of the whole group a launch can use through Ray or multi-node serving: a LeaderWorkerSet
    group (``size`` pods: the leader and ``size - 1`` workers) or a KubeRay head plus worker groups."""
    if "leaderTemplate" in path:
        lwt = get(obj, "spec", "leaderWorkerTemplate")
        size_node = get(lwt, "size")
        size = int_value(size_node)
        lead = _gpus(pod, lines)
        worker = _gpus(get(lwt, "workerTemplate", "spec"), lines)
        if size is not None and size_node is not None and lead is not None:
            total = lead + (size - 1) * (worker if worker is not None else lead)
            span = lines.node_span(size_node)
            out.set("group_size", size, span, "LeaderWorkerSet size (pods per group)")
            out.set("cluster_gpu_count", total, span, f"LeaderWorkerSet group of {size} pods")
        return
    if "headGroupSpec" in path:
        ray = _walk(obj, path[: path.index("headGroupSpec")])[-1]
        head = _gpus(pod, lines) or 0
        total = head
        pods = 1
        for g in items(get(ray, "workerGroupSpecs")):
            n = int_value(get(g, "replicas"))
            per = _gpus(get(g, "template", "spec"), lines) or 0
            if n is not None:
                total += n * per
                pods += n
        span = lines.node_span(get(ray, "workerGroupSpecs") or ray)
        out.set("group_size", pods, span, "Ray cluster pods (head + workers)")
        out.set("cluster_gpu_count", total, span, f"Ray cluster of {pods} pods")


# -- NVIDIA Dynamo -----------------------------------------------------------------------------
def _dynamo_graph(f: _File, obj: Node, spec: Node, base: Facts) -> None:
    """NVIDIA Dynamo ``DynamoGraphDeployment``: one pod per replica of each ``spec.services.<Name>``,
    its container ``extraPodSpec.mainContainer`` (image, command, args), the service's ``envs`` and
    ``envFromSecret``, GPUs per pod in ``resources.limits.gpu`` (else ``requests.gpu``), and
    ``multinode.nodeCount`` pods per replica for multi-node workers, "Total GPUs: multinode.nodeCount
    x gpu" (ai-dynamo/dynamo docs/kubernetes/deployment/multinode-deployment.md, "GPU Distribution")."""
    lines = f.lines
    where = _where(obj)
    services = get(spec, "services")
    if not isinstance(services, MappingNode):
        return
    for key, svc in merged_items(services):
        if not isinstance(svc, MappingNode):
            continue
        name = str(key.value) if isinstance(key, ScalarNode) else "?"
        pod = get(svc, "extraPodSpec")
        main = get(pod, "mainContainer")
        if not isinstance(main, MappingNode):
            continue
        kind = " ".join(x for x in (scalar(get(svc, "componentType")), scalar(get(svc, "subComponentType"))) if x)
        label = f"service {name} of {where}" + (f" ({kind})" if kind else "")
        facts = Facts(dict(base.facts))
        suppress_fact(facts, [svc], lines, where)
        _replicas(facts, get(svc, "replicas"), lines)
        node_selection_facts(facts, pod, lines)
        _dynamo_gpus(facts, get(svc, "resources"), lines)
        secret = get(svc, "envFromSecret")
        if scalar(secret):
            facts.set("env_from", f"secret/{scalar(secret)}", lines.node_span(secret), "envFromSecret")
        nodes = int_value(get(svc, "multinode", "nodeCount"))
        gpus = facts.facts.get("gpu_count")
        if nodes is not None and nodes > 1:
            span = lines.node_span(get(svc, "multinode", "nodeCount"))
            facts.set("group_size", nodes, span, "Dynamo multinode.nodeCount (pods per replica)")
            if gpus is not None and isinstance(gpus.value, int):
                facts.set("cluster_gpu_count", nodes * gpus.value, span, f"Dynamo multinode group of {nodes} pods")
        _dynamo_shm(facts, svc, lines)
        volumes = read_volumes(pod, lines)
        # no probe facts: the operator gives worker components a startup probe of its own (720 x 10 s)
        for inv in _container(f, main, label, facts, volumes, opaque=False, outer_env=get(svc, "envs")):
            f.result.invocations.append(inv)


def _dynamo_components(f: _File, obj: MappingNode, spec: Node, base: Facts) -> None:
    """``nvidia.com/v1beta1`` DynamoGraphDeployment: ``spec.components`` is a list of ``name``, ``type``,
    ``replicas`` and a ``podTemplate`` whose ``spec`` is a pod spec (its containers read as any pod's),
    ``sharedMemorySize`` the size of the operator's /dev/shm volume (kubectl-doc's rendering of the
    v1beta1 CRD; Dynamo's rolling-update guide shows ``podTemplate.spec.containers`` running
    ``python3 -m dynamo.vllm``)."""
    for i, comp in enumerate(items(get(spec, "components"))):
        pod = get(comp, "podTemplate", "spec")
        if not isinstance(comp, MappingNode) or not isinstance(pod, MappingNode):
            continue
        facts = Facts(dict(base.facts))
        _dynamo_shm(facts, comp, f.lines, size_key="sharedMemorySize")
        nodes = int_value(get(comp, "multinode", "nodeCount"))
        per_pod = _gpus(pod, f.lines)
        if nodes is not None and nodes > 1:
            span = f.lines.node_span(get(comp, "multinode", "nodeCount"))
            facts.set("group_size", nodes, span, "Dynamo multinode.nodeCount (pods per replica)")
            if per_pod is not None:
                facts.set("cluster_gpu_count", nodes * per_pod, span, f"Dynamo multinode group of {nodes} pods")
        _pod(f, obj, pod, ("spec", "components", f"[{i}]", "podTemplate", "spec"), facts, open_ended=False)


def _dynamo_shm(out: Facts, svc: Node, lines: LineIndex, size_key: str = "") -> None:
    """The operator mounts an 8Gi memory-backed emptyDir at /dev/shm in every component unless
    ``sharedMemory.disabled``; ``sharedMemory.size`` resizes it (ai-dynamo/dynamo
    deploy/cloud/operator/docs/footer.md, "Shared Memory Configuration"). A volume the main
    container mounts at /dev/shm itself is read after this and wins."""
    shm = get(svc, "sharedMemory")
    if truthy(get(shm, "disabled")):
        return
    size = get(svc, size_key) if size_key else get(shm, "size")
    out.set("shm_mounted", True, None, "the Dynamo operator's default /dev/shm volume")
    out.set("shm_medium", "Memory", None, "the Dynamo operator's default /dev/shm volume (emptyDir, medium Memory)")
    if scalar(size) and size is not None:
        out.set("shm_size", scalar(size), lines.node_span(size), "sharedMemory.size")
    else:
        out.set("shm_size", "8Gi", None, "the Dynamo operator's default /dev/shm size")


def _dynamo_gpus(out: Facts, resources: Node | None, lines: LineIndex) -> None:
    """GPUs per pod of a Dynamo service: ``resources.limits.gpu`` (else ``requests.gpu``), which the
    operator turns into ``nvidia.com/gpu`` of the main container; the mainContainer's own
    ``resources`` (read after this) do not override it."""
    for section in ("limits", "requests"):
        node = get(resources, section, "gpu")
        if node is None:
            continue
        count = int_value(node)
        span = lines.node_span(node)
        if count is None:
            out.setdefault("gpu_count_text", scalar(node) or "", span, f"resources.{section}.gpu")
            continue
        out.setdefault("gpu_count", count, span, f"resources.{section}.gpu: {scalar(node)}")
        out.setdefault("gpu_resource", "nvidia.com/gpu", span, f"Dynamo resources.{section}.gpu")


# -- KServe ------------------------------------------------------------------------------------
#: options of KServe's huggingfaceserver and model server that are not vLLM's: the server reads its
#: arguments with parse_known_args and hands the rest to vLLM (kserve python/huggingfaceserver/
#: huggingfaceserver/__main__.py, kserve/model_server.py)
_KSERVE_FLAGS = {
    "model-name": True,
    "model-dir": True,
    "model-id": True,
    "model-revision": True,
    "tokenizer-revision": True,
    "max-length": True,
    "backend": True,
    "tensor-input-names": True,
    "http-port": True,
    "grpc-port": True,
    "workers": True,
    "max-threads": True,
    "max-asyncio-workers": True,
    "log-config-file": True,
    "access-log-format": True,
    "predictor-host": True,
    "predictor-protocol": True,
    "predictor-request-timeout-seconds": True,
    "predictor-request-retries": True,
    "grpc-max-send-message-length": True,
    "grpc-max-receive-message-length": True,
    "disable-lower-case": False,
    "disable-special-tokens": False,
    "return-token-type-ids": False,
    "return-probabilities": False,
    "enable-grpc": False,
    "enable-docs-ui": False,
    "configure-logging": False,
    "enable-latency-logging": False,
    "predictor-use-ssl": False,
}


@record(slots=True)
class _KaitoWorkload:
    """A KAITO object that runs an inference preset: a Workspace (``inference``/``resource`` at its top
    level) or an InferenceSet (``spec.template.inference``/``.resource``, ``spec.replicas`` Workspaces of
    that template: kaito-project/kaito api/v1alpha1/inferenceset_types.go:32-41,121-128 at 056b8280)."""

    obj: MappingNode
    inference: Node | None
    resource: Node | None
    kind: str


def _kaito_workloads(objects: list[MappingNode]) -> list[_KaitoWorkload]:
    """The file's KAITO Workspaces and InferenceSets that run on vLLM: KAITO's runtime is vLLM unless the
    object's ``kaito.sh/runtime`` annotation says ``transformers`` (GetWorkspaceRuntimeName,
    GetInferenceSetRuntimeName, api/v1beta1/labels.go:118-135,262-279; the vLLM feature gate is on by
    default, pkg/featuregates/featuregates.go:28, at 056b8280)."""
    out: list[_KaitoWorkload] = []
    for obj in objects:
        kind = scalar(get(obj, "kind")) or ""
        if not (scalar(get(obj, "apiVersion")) or "").startswith("kaito.sh"):
            continue
        runtime = (scalar(get(obj, "metadata", "annotations", "kaito.sh/runtime")) or "").strip()
        if runtime == "transformers":
            continue
        if kind == "Workspace":
            out.append(_KaitoWorkload(obj, get(obj, "inference"), get(obj, "resource"), kind))
        elif kind == "InferenceSet":
            template = get(obj, "spec", "template")
            out.append(_KaitoWorkload(obj, get(template, "inference"), get(template, "resource"), kind))
    return [w for w in out if isinstance(w.inference, MappingNode)]


def _kaito_facts(w: _KaitoWorkload, lines: LineIndex) -> Facts:
    """What a KAITO workload states about its launch: the node's GPU from ``resource.instanceType``,
    the Workspaces an InferenceSet runs (``spec.replicas``), and that KAITO picks the parallelism."""
    facts = _kaito_instance(w.resource, lines, w.kind)
    if w.kind == "InferenceSet":
        _replicas(facts, get(w.obj, "spec", "replicas"), lines, "InferenceSet spec.replicas (Workspaces)")
    return facts


def _kaito_configs(f: _File, objects: list[MappingNode]) -> None:
    """KAITO inference parameters: a ConfigMap whose ``data.inference_config.yaml`` holds a ``vllm:``
    mapping, which KAITO's vLLM runtime passes to vLLM as engine arguments (each key a long option, as
    in a ``--config`` file). A ``kaito.sh`` Workspace or InferenceSet of the same file that names the
    ConfigMap (``inference.config``) labels the launch with its preset. The preset's model is KAITO's: a
    preset in KAITO's own table (``vlint/data/kaito_presets.json``, from its supported_models.yaml) names
    it, at the preset's line; another stays unknown. A workload whose preset runs without such a
    ConfigMap of the file is a launch of its own (:func:`_kaito_preset_launch`)."""
    workspaces: dict[str, str] = {}
    nodes: dict[str, Facts] = {}
    presets: dict[str, tuple[str, Span, str]] = {}
    workloads = _kaito_workloads(objects)
    for w in workloads:
        cm = scalar(get(w.inference, "config"))
        if cm:
            preset_node = get(w.inference, "preset", "name")
            preset = scalar(preset_node)
            workspaces[cm] = f"{_where(w.obj)} preset {preset or '?'}"
            nodes[cm] = _kaito_facts(w, f.lines)
            model = kaito_preset_model(preset) if preset else None
            if model is not None and preset_node is not None:
                presets[cm] = (model, f.lines.node_span(preset_node), preset or "")
    read: set[str] = set()
    for obj in objects:
        if scalar(get(obj, "kind")) != "ConfigMap":
            continue
        node = get(obj, "data", "inference_config.yaml")
        if not isinstance(node, ScalarNode):
            continue
        inner = scalar_text(node, f.lines)
        docs = compose_documents(inner.text, f.src.path)
        root = docs.nodes[0] if docs.nodes and not docs.errors else None
        vllm = get(root, "vllm")
        if not isinstance(vllm, MappingNode):
            continue
        entries: list[Entry] = []
        for k, v in vllm.value:
            if not isinstance(k, ScalarNode):
                continue
            try:
                value = to_python(v)
            except SourceError:
                continue
            key_span = inner.span(k.start_mark.index, k.end_mark.index)
            value_span = inner.span(v.start_mark.index, v.end_mark.index)
            entries.append(Entry(str(k.value), value, key_span, value_span))
        if not entries:
            continue
        name = scalar(get(obj, "metadata", "name")) or "?"
        read.add(name)
        label = f"KAITO inference config ConfigMap/{name}" + (f" of {workspaces[name]}" if name in workspaces else "")
        if name in presets and not any(_norm_key(e.key) == "model" for e in entries):
            # KAITO's runtime gives vLLM the preset's weights: the model, where the Workspace names it
            model, at, preset = presets[name]
            entries.insert(0, Entry("model", model, at, at))
            label += f" (model {model}: KAITO's preset {preset})"
        span = entries[0].key_span
        config = ConfigFile(f.src.path, entries, span)
        facts = dict(nodes[name].facts) if name in nodes else {}
        if name in workspaces:
            facts["parallelism_by_runtime"] = Fact(True, span, _KAITO_PARALLELISM)
        f.result.invocations.append(
            Invocation(source=NAME, program="config", span=span, config=config, label=label, facts=facts)
        )
    for w in workloads:
        if (scalar(get(w.inference, "config")) or "") not in read:
            inv = _kaito_preset_launch(f, w)
            if inv is not None:
                f.result.invocations.append(inv)


def _kaito_preset_launch(f: _File, w: _KaitoWorkload) -> Invocation | None:
    """A KAITO preset run with no inference config of the file: KAITO's controller writes the whole
    vLLM command (the preset's model, the parallelism it picks, its default inference config — the
    ``inference-params-template`` ConfigMap of its chart, charts/kaito/workspace/templates/
    inference-params.yaml at 056b8280 — or a ConfigMap elsewhere), so the argv is opaque: the model is
    the launch, at the preset's line. A preset KAITO's table does not list is kept unresolved (its
    model unknown, said so); a workload without a preset (``inference.template``, a pod spec of its own)
    is not a preset launch."""
    preset_node = get(w.inference, "preset", "name")
    preset = scalar(preset_node)
    if not preset or preset_node is None:
        return None
    span = f.lines.node_span(preset_node)
    model = kaito_preset_model(preset)
    if model is not None:
        tok = Token(model, span)
        how = f"model {model}: KAITO's preset {preset}"
    else:
        tok = Token(f"<KAITO preset {preset}>", span, unresolved=True)
        how = f"KAITO preset {preset}, not in vlint's table of KAITO's presets"
    cm = scalar(get(w.inference, "config"))
    label = f"KAITO {_where(w.obj)} ({how}; KAITO writes the vLLM command"
    label += f", with inference config ConfigMap/{cm}: no vllm settings of it in this file)" if cm else ")"
    facts = _kaito_facts(w, f.lines)
    suppress_fact(facts, [get(w.obj, "metadata")], f.lines, _where(w.obj))
    facts.set("parallelism_by_runtime", True, span, _KAITO_PARALLELISM)
    facts.set("settings_by_runtime", "KAITO", span, _KAITO_SETTINGS)
    inv = Invocation(source=NAME, program="vllm serve", span=span, args=[tok], opaque_args=True)
    finish(inv, _context(f, label, {}, facts))
    return inv


#: KAITO's controller, not the Workspace, sets the launch's parallelism (configureParallelism,
#: kaito-project/kaito pkg/model/interface.go:543-570 at 056b8280): data parallel with TP 1 when the model
#: fits on one GPU, else --tensor-parallel-size = the node's GPUs, and --pipeline-parallel-size = the node
#: count when it spreads the model over several nodes (pkg/workspace/inference/preset_inferences.go:196,247)
_KAITO_PARALLELISM = (
    "KAITO sets --tensor-parallel-size/--pipeline-parallel-size itself from the model's size and the nodes' GPUs"
)


#: what KAITO's vLLM runtime picks at start for a preset it runs (presets/workspace/inference/vllm/
#: inference_api.py at 056b8280: --gpu-memory-utilization from the GPU's free memory,
#: get_max_gpu_memory_utilization; the longest sequence that fits found by probing, --kaito-max-probe-steps),
#: beside the parallelism its controller sets (:data:`_KAITO_PARALLELISM`)
_KAITO_SETTINGS = (
    "KAITO writes the command: it sets the parallelism, the GPU memory utilization (from the free memory) and "
    "probes the longest context that fits"
)


def _norm_key(key: str) -> str:
    return key.strip().lstrip("-").replace("_", "-")


@cache
def _kaito_presets() -> dict[str, str]:
    import json

    from vlint.core.paths import data_dir

    doc = json.loads((data_dir() / "kaito_presets.json").read_text(encoding="utf-8"))
    return {str(k).lower(): str(v) for k, v in doc["presets"].items()}


def kaito_preset_model(preset: str) -> str | None:
    """The Hugging Face checkpoint a KAITO inference preset runs (KAITO's supported_models.yaml), or None."""
    return _kaito_presets().get(preset.strip().lower())


def _kaito_instance(resource: Node | None, lines: LineIndex, kind: str = "Workspace") -> Facts:
    """``resource.instanceType`` of a KAITO Workspace or InferenceSet template (the VM size KAITO
    provisions, ``Standard_NC12s_v3``): the GPU type and the node's GPU count from the instance table
    when it lists the size; a size it does not list (or a placeholder, ``<your-vm-sku>``) states nothing."""
    out = Facts()
    node = get(resource, "instanceType")
    text = scalar(node)
    if text and node is not None:
        from vlint.hardware.instances import instance

        if instance(text) is not None:
            values = [(text, lines.node_span(node))]
            instance_label_fact(out, "resource.instanceType", values, kind, instance_key=True)
    return out


def _serving_runtimes(objects: list[MappingNode]) -> dict[str, MappingNode]:
    out: dict[str, MappingNode] = {}
    for obj in objects:
        if scalar(get(obj, "kind")) in ("ServingRuntime", "ClusterServingRuntime"):
            name = scalar(get(obj, "metadata", "name"))
            if name and isinstance(get(obj, "spec"), MappingNode):
                out.setdefault(name, obj)
    return out


def _runtime_of(obj: MappingNode, runtimes: dict[str, MappingNode]) -> MappingNode | None:
    """The ServingRuntime of the same file that an InferenceService names (``predictor.model.runtime``),
    else the one runtime of the file that auto-selects its model format (:func:`_auto_selects`)."""
    if scalar(get(obj, "kind")) != "InferenceService" or not runtimes:
        return None
    name = scalar(get(obj, "spec", "predictor", "model", "runtime"))
    if name:
        return runtimes.get(name)
    chosen = [r for r in runtimes.values() if _auto_selects(r, obj)]
    return chosen[0] if len(chosen) == 1 else None


def _auto_selects(runtime: MappingNode, service: MappingNode) -> bool:
    """KServe's choice for a predictor that names no runtime: a runtime whose ``supportedModelFormats``
    has the predictor's ``modelFormat`` (name, and version when both give one) with ``autoSelect: true``
    (kserve.github.io/website/docs/concepts/resources/servingruntime: "autoSelect"). Which one KServe
    takes also depends on the runtimes of the cluster, not in the files: a link made this way is an
    inference (fact ``linked_by_name``), and only when one runtime of the files qualifies."""
    model = get(service, "spec", "predictor", "model")
    if scalar(get(model, "runtime")) or not _same_namespace(service, runtime):
        return False
    fmt = (scalar(get(model, "modelFormat", "name")) or "").strip().lower()
    version = scalar(get(model, "modelFormat", "version"))
    if not fmt or fmt == "huggingface":
        return False
    for entry in items(get(runtime, "spec", "supportedModelFormats")):
        if (scalar(get(entry, "name")) or "").strip().lower() != fmt or not truthy(get(entry, "autoSelect")):
            continue
        offered = scalar(get(entry, "version"))
        if version and offered and str(version) != str(offered):
            continue
        return True
    return False


def _auto_selected_fact(service: MappingNode, runtime: MappingNode, lines: LineIndex) -> Fact:
    fmt = scalar(get(service, "spec", "predictor", "model", "modelFormat", "name")) or "?"
    node = get(service, "spec", "predictor", "model", "modelFormat") or service
    return Fact(
        _where(runtime),
        lines.node_span(node),
        f"{_where(runtime)} taken for the runtime KServe auto-selects for modelFormat {fmt} of {_where(service)} "
        "(no runtime named; the cluster's other runtimes are not in the files)",
    )


#: fields of ``predictor.model`` that are not container fields
_MODEL_SPEC_ONLY = {"modelFormat", "runtime", "storageUri", "protocolVersion", "storage", "runtimeVersion"}


def _with_runtime(f: _File, obj: MappingNode, spec: Node, runtime: MappingNode, base: Facts) -> None:
    """An InferenceService and the ServingRuntime it names, as KServe runs them: one container, the
    runtime's with the predictor's container fields over it and the predictor's ``args`` after the
    runtime's (kserve pkg/controller/v1beta1/inferenceservice/utils ``MergeRuntimeContainers``: a
    strategic merge, then ``Args = append(runtime.Args, predictor.Args...)``); the pod is the runtime's,
    with the predictor's pod fields (``nodeSelector``, ``tolerations``…) over it."""
    predictor = get(spec, "predictor")
    model = get(predictor, "model")
    rspec = get(runtime, "spec")
    containers = [c for c in items(get(rspec, "containers")) if isinstance(c, MappingNode)]
    if not isinstance(model, MappingNode) or not isinstance(rspec, MappingNode) or not containers:
        _inference_service(f, obj, spec, base)
        return
    rc = next((c for c in containers if scalar(get(c, "name")) == "kserve-container"), containers[0])
    fields: dict[str, tuple[Node, Node]] = {str(k.value): (k, v) for k, v in rc.value if isinstance(k, ScalarNode)}
    for k, v in model.value:
        key = str(k.value) if isinstance(k, ScalarNode) else ""
        if not key or key in _MODEL_SPEC_ONLY:
            continue
        if key in ("args", "env") and key in fields and isinstance(fields[key][1], SequenceNode):
            first = fields[key][1]
            items_ = [*first.value, *(v.value if isinstance(v, SequenceNode) else [])]
            fields[key] = (fields[key][0], SequenceNode(first.tag, items_, first.start_mark, first.end_mark))
        else:
            fields[key] = (k, v)
    merged = MappingNode(rc.tag, list(fields.values()), rc.start_mark, rc.end_mark)
    pod_fields: dict[str, tuple[Node, Node]] = {
        str(k.value): (k, v) for k, v in rspec.value if isinstance(k, ScalarNode) and k.value != "containers"
    }
    for k, v in predictor.value if isinstance(predictor, MappingNode) else []:
        if isinstance(k, ScalarNode) and k.value not in ("model", "containers", "minReplicas", "maxReplicas"):
            pod_fields[str(k.value)] = (k, v)
    ckey = next(k for k, _ in rspec.value if isinstance(k, ScalarNode) and k.value == "containers")
    seq = SequenceNode("tag:yaml.org,2002:seq", [merged], ckey.start_mark, ckey.end_mark)
    pod = MappingNode(rspec.tag, [*pod_fields.values(), (ckey, seq)], rspec.start_mark, rspec.end_mark)
    facts = Facts(dict(base.facts))
    _replicas(facts, get(predictor, "minReplicas"), f.lines, "predictor.minReplicas")
    node_selection_facts(facts, pod, f.lines)
    rname = scalar(get(runtime, "metadata", "name")) or "?"
    label = f"predictor of {_where(obj)} with ServingRuntime/{rname}"
    _storage_fact(facts, get(model, "storageUri"), lines=f.lines)
    invs = _container(f, merged, label, facts, read_volumes(pod, f.lines), opaque=False)
    storage = get(model, "storageUri")
    uri = scalar(storage) or ""
    if uri.startswith("hf://") and storage is not None:
        # KServe's storage initializer downloads the model to /mnt/models, where the runtime reads it
        hf = scalar_text(storage, f.lines).slice(5, len(uri)).token()
        for inv in invs:
            for i, t in enumerate(inv.args):
                if t.text == "/mnt/models" or t.text.rstrip("/") == "/mnt/models":
                    inv.args[i] = hf
                elif t.text.endswith("=/mnt/models") and t.text.startswith("--model"):
                    inv.args[i] = Token(t.text[: -len("/mnt/models")] + hf.text, hf.span)
    f.result.invocations.extend(invs)


@record(slots=True)
class _Linked:
    """An object of another file of the same folder: its node, that file's lines and the path users see
    (with that file and its objects, when it was read from one)."""

    obj: MappingNode
    lines: LineIndex
    path: str
    src: SourceText | None = None
    objects: list[MappingNode] = field(default_factory=list)


#: sibling files read to link an InferenceService and the ServingRuntime it names (the folder's first ones)
_MAX_SIBLINGS = 64


def _same_namespace(a: MappingNode, b: MappingNode) -> bool:
    """KServe looks a runtime up in the InferenceService's namespace (a ClusterServingRuntime in any):
    two objects that both name a namespace must name the same one."""
    if scalar(get(b, "kind")) == "ClusterServingRuntime":
        return True
    na, nb = scalar(get(a, "metadata", "namespace")), scalar(get(b, "metadata", "namespace"))
    return not (na and nb) or na == nb


def _uses_runtime(runtime: MappingNode, rivals: list[MappingNode]) -> Callable[[MappingNode, list[MappingNode]], bool]:
    """An InferenceService of another file that runs with ``runtime``: it names it, or names none and
    ``runtime`` is the one runtime of both files (``rivals``: this file's) that auto-selects its format."""
    name = scalar(get(runtime, "metadata", "name")) or ""

    def test(obj: MappingNode, objects: list[MappingNode]) -> bool:
        used = scalar(get(obj, "spec", "predictor", "model", "runtime"))
        if used:
            return used == name and bool(name) and _same_namespace(obj, runtime)
        others = [r for r in [*rivals, *objects] if r is not runtime and _is_runtime(r) and _auto_selects(r, obj)]
        return not others and _auto_selects(runtime, obj)

    return test


def _is_runtime(obj: MappingNode) -> bool:
    return scalar(get(obj, "kind")) in ("ServingRuntime", "ClusterServingRuntime")


def _named(service: MappingNode, name: str) -> Callable[[MappingNode, list[MappingNode]], bool]:
    def test(obj: MappingNode, _objects: list[MappingNode]) -> bool:
        return bool(name) and scalar(get(obj, "metadata", "name")) == name and _same_namespace(service, obj)

    return test


def _sibling_objects(f: _File, kind: str, test: Callable[[MappingNode, list[MappingNode]], bool]) -> list[_Linked]:
    """Objects of ``kind`` that pass ``test`` in the other YAML files of this file's folder (read through
    the run's reader, so only inside the lint root; a file that cannot be read or parsed is passed over).
    KServe applies an InferenceService with the ServingRuntime of its namespace it names, and repositories
    keep the two in files side by side (``inference-service.yaml``, ``serving-runtime.yaml``)."""
    here = f.src.abspath
    try:
        names = sorted(p.name for p in here.parent.iterdir() if p.suffix in (".yaml", ".yml") and p.name != here.name)
    except OSError:
        return []
    out: list[_Linked] = []
    for name in names[:_MAX_SIBLINGS]:
        try:
            other = f.read_file(here.parent / name)
        except SourceError:
            continue
        if kind not in other.text:
            continue
        docs = compose_documents(other.text, other.path)
        lines = LineIndex(other.path, other.text)
        objects = [obj for doc in docs.nodes for obj in _objects(doc, 0)]
        for obj in objects:
            if scalar(get(obj, "kind")) == kind and test(obj, objects):
                out.append(_Linked(obj, lines, other.path, other, objects))
        if out:
            f.result.linked.append(here.parent / name)
            break
    return out


def _runtime_with_service(f: _File, obj: MappingNode, spec: Node, base: Facts, linked: _Linked) -> None:
    """A ServingRuntime that an InferenceService of a file beside it names: the launch KServe makes of the
    two (:func:`_with_runtime` for the same file): the runtime's container, with what the predictor sets —
    its GPUs (``predictor.model.resources``), replicas, node selection, the storage its model is downloaded
    from (``storageUri``: the model's name, inferred, when the runtime reads ``/mnt/models``) and its
    ``args`` after the runtime's. Facts and arguments from the InferenceService point into its file."""
    svc = linked.obj
    lines = linked.lines
    predictor = get(svc, "spec", "predictor")
    model = get(predictor, "model")
    facts = Facts(dict(base.facts))
    _replicas(facts, get(predictor, "minReplicas"), lines, "predictor.minReplicas")
    node_selection_facts(facts, predictor, lines)
    resource_facts(facts, get(model, "resources"), lines, "predictor.model.resources")
    storage = get(model, "storageUri")
    _storage_fact(facts, storage, lines=lines)
    extra = [w.token() for w in text_list(get(model, "args"), lines)]
    opaque = get(model, "env") is not None or get(model, "command") is not None
    first = len(f.result.invocations)
    for pod, path in iter_pod_specs(spec, ("spec",)):
        _pod(f, obj, pod, path, facts, open_ended=opaque)
    uri = scalar(storage) or ""
    hf = scalar_text(storage, lines).slice(5, len(uri)).token() if uri.startswith("hf://") and storage else None
    auto = not scalar(get(model, "runtime"))
    for inv in f.result.invocations[first:]:
        inv.label += f" with {_where(svc)} of {linked.path}"
        if auto:
            inv.facts["linked_by_name"] = _auto_selected_fact(svc, obj, lines)
        inv.args += extra
        for i, t in enumerate(inv.args if hf is not None else []):
            if t.text.rstrip("/") == "/mnt/models":
                inv.args[i] = hf
            elif t.text.startswith("--model") and t.text.endswith("=/mnt/models"):
                inv.args[i] = Token(t.text[: -len("/mnt/models")] + hf.text, hf.span)


def _runtime_elsewhere(f: _File, obj: MappingNode) -> bool:
    """An InferenceService whose ServingRuntime is in a file beside it (True): the launch KServe makes of
    the two, as the runtime's file builds it (:func:`_runtime_with_service`), anchored at the predictor's
    ``model``. The runtime's file checks it when the run lints that file too: this copy is then dropped
    (``also_in``) and this file says where it is checked; linted alone, this file checks it."""
    name = scalar(get(obj, "spec", "predictor", "model", "runtime")) or ""
    fmt = (scalar(get(obj, "spec", "predictor", "model", "modelFormat", "name")) or "").lower()
    if fmt == "huggingface":
        return False
    if name:
        found = _sibling_objects(f, "ServingRuntime", _named(obj, name)) or _sibling_objects(
            f, "ClusterServingRuntime", _named(obj, name)
        )
    else:
        found = _sibling_objects(f, "ServingRuntime", lambda r, _objects: _auto_selects(r, obj))
    if not (len(found) == 1 or (found and name)):
        return False
    runtime = found[0]
    how = f"ServingRuntime/{name}" if name else f"{_where(runtime.obj)} (auto-selected for its modelFormat)"
    note = f"{_where(obj)} runs with {how} of {runtime.path}: the launch KServe makes of the two is checked there"
    spec = get(runtime.obj, "spec")
    if runtime.src is None or not isinstance(spec, MappingNode):
        f.result.notes.append(note)
        return True
    there = _File(runtime.src, runtime.lines, f.read_file, SourceResult())
    there.runtimes = [o for o in runtime.objects if _is_runtime(o)]
    there.services = [svc for o in runtime.objects if (svc := read_service(o, runtime.lines)) is not None]
    base = Facts()
    suppress_fact(base, [get(runtime.obj, "metadata")], runtime.lines, _where(runtime.obj))
    _runtime_with_service(there, runtime.obj, spec, base, _Linked(obj, f.lines, f.src.path))
    predictor = get(obj, "spec", "predictor")
    key = first_key(predictor, "model") if isinstance(predictor, MappingNode) else None
    anchor = f.lines.node_span(key if key is not None else obj)
    for inv in there.result.invocations:
        inv.label = f"predictor of {_where(obj)} with {how} of {runtime.path}"
        inv.span, inv.head = anchor, None
        inv.also_in, inv.elsewhere_note = str(runtime.src.abspath), note
        f.result.invocations.append(inv)
    return True


def _inference_service(f: _File, obj: Node, spec: Node, base: Facts) -> None:
    """``spec.predictor.model`` of an InferenceService: the huggingface runtime runs vLLM with the
    model from ``--model_id`` or ``storageUri`` (downloaded to /mnt/models) and forwards the engine
    arguments; other runtimes append ``args`` to the ServingRuntime's own (not visible here)."""
    lines = f.lines
    predictor = get(spec, "predictor")
    model = get(predictor, "model")
    if not isinstance(model, MappingNode):
        return
    fmt = (scalar(get(model, "modelFormat", "name")) or "").lower()
    facts = Facts(dict(base.facts))
    _replicas(facts, get(predictor, "minReplicas"), lines, "predictor.minReplicas")
    node_selection_facts(facts, predictor, lines)
    resource_facts(facts, get(model, "resources"), lines, "predictor.model.resources")
    env: dict[str, EnvVar] = {}
    read_env(get(model, "env"), lines, env)
    args = [expand_refs(w, env)[0] for w in text_list(get(model, "args"), lines)]
    where = _where(obj)
    if fmt != "huggingface":
        if not args:
            return
        ctx = _context(f, f"predictor of {where} ({fmt or 'runtime'} runtime)", env, facts, opaque=True)
        inv = Invocation(source=NAME, program="api_server", span=args[0].span())
        inv.args = [a.token() for a in args]
        _finish_all(ctx, [inv], f)
        return
    model_tok, kept = _kserve_hf_args(args, get(model, "storageUri"), lines)
    _storage_fact(facts, get(model, "storageUri"), lines=lines)
    ctx = _context(f, f"predictor of {where} (KServe huggingface runtime)", env, facts)
    span = model_tok.span if model_tok is not None else lines.node_span(model)
    inv = Invocation(source=NAME, program="api_server", span=span)
    if model_tok is not None:
        inv.args = [Token("--model", model_tok.span), model_tok]
    inv.args += kept
    _finish_all(ctx, [inv], f)


def _storage_fact(facts: Facts, node: Node | None, *, lines: LineIndex, where: str = "storageUri") -> None:
    """``model_location``: where KServe's storage initializer downloads the model from (``s3://…/
    meta-llama--Llama-3.1-8B-Instruct``), when that is not a Hugging Face id the launch reads
    directly: its name is a hint to the model (:mod:`vlint.resolve.model_names`), never read."""
    uri = scalar(node) if isinstance(node, ScalarNode) else None
    if uri and not uri.startswith("hf://"):
        facts.set("model_location", uri, lines.node_span(node), where)


def _kserve_hf_args(args: list[MappedText], storage: Node | None, lines: LineIndex) -> tuple[Token | None, list[Token]]:
    model: Token | None = None
    if isinstance(storage, ScalarNode):
        mt = scalar_text(storage, lines)
        if mt.text.startswith("hf://"):
            model = mt.slice(5, len(mt.text)).token()
        else:
            model = Token("/mnt/models", mt.span(), unresolved=True)
    kept: list[Token] = []
    i = 0
    while i < len(args):
        word = args[i]
        name, eq, _ = word.text.partition("=")
        key = name.lstrip("-").replace("_", "-")
        if word.text.startswith("--") and key in _KSERVE_FLAGS:
            takes = _KSERVE_FLAGS[key]
            val: MappedText | None = None
            if takes and eq:
                val = word.slice(len(name) + 1, len(word.text))
            elif takes and i + 1 < len(args):
                val = args[i + 1]
                i += 1
            if key == "model-id" and val is not None:
                model = val.token()
            elif key == "model-revision" and val is not None:
                kept += [Token("--revision", word.span()), val.token()]
            elif key == "max-length" and val is not None:
                kept += [Token("--max-model-len", word.span()), val.token()]
            i += 1
            continue
        kept.append(word.token())
        i += 1
    return model, kept


def _finish_all(ctx: LaunchContext, invs: list[Invocation], f: _File) -> None:
    for inv in invs:
        finish(inv, ctx)
        f.result.invocations.append(inv)


def _llm_inference_service(f: _File, obj: Node, spec: Node, base: Facts) -> None:
    """KServe ``LLMInferenceService``: the controller runs ``vllm serve /mnt/models
    --served-model-name NAME --port 8000`` with the ``spec.parallelism`` flags, then
    ``${VLLM_ADDITIONAL_ARGS}`` and the container's ``args`` (kserve
    config/llmisvcconfig/config-llm-template.yaml and config-llm-worker-data-parallel.yaml).
    ``spec.prefill`` (a workload of its own: ``replicas``, ``parallelism``, ``template``, ``worker``)
    is a second launch of the same model when its template names the containers."""
    _llm_workload(f, obj, spec, spec, base, "")
    prefill = get(spec, "prefill")
    if isinstance(prefill, MappingNode) and items(get(prefill, "template", "containers")):
        _llm_workload(f, obj, spec, prefill, base, "prefill")


def _llm_workload(f: _File, obj: Node, spec: Node, part: Node, base: Facts, role: str) -> None:
    """One workload of an LLMInferenceService: the decode/main one (``part`` is ``spec``) or ``spec.prefill``."""
    lines = f.lines
    where = _where(obj) + (f" {role}" if role else "")
    template = get(part, "template")
    containers = [c for c in items(get(template, "containers")) if isinstance(c, MappingNode)]
    main = next((c for c in containers if scalar(get(c, "name")) == "main"), containers[0] if containers else None)
    facts = Facts(dict(base.facts))
    _replicas(facts, get(part, "replicas"), lines)
    node_selection_facts(facts, template, lines)
    env: dict[str, EnvVar] = {}
    read_env(get(main, "env"), lines, env)
    resource_facts(facts, get(main, "resources"), lines)
    image_node = get(main, "image")
    if scalar(image_node) and image_node is not None:
        image_facts(facts, scalar(image_node) or "", lines.node_span(image_node))
    uri_node = get(spec, "model", "uri")
    name_node = get(spec, "model", "name")
    anchor = lines.node_span(uri_node or get(spec, "model") or obj)
    argv: list[Token] = []
    if isinstance(uri_node, ScalarNode) and str(uri_node.value).startswith("hf://"):
        argv.append(scalar_text(uri_node, lines).slice(5, len(str(uri_node.value))).token())
    else:
        argv.append(Token("/mnt/models", anchor, unresolved=True))
        _storage_fact(facts, uri_node, lines=lines, where="spec.model.uri")
    if isinstance(name_node, ScalarNode):
        argv += [Token("--served-model-name", lines.node_span(name_node)), scalar_text(name_node, lines).token()]
    par = get(part, "parallelism")
    single_node = get(part, "worker") is None
    problems: list[Problem] = []
    for key, flag in (
        ("tensor", "--tensor-parallel-size"),
        ("pipeline", "--pipeline-parallel-size"),
        ("data", "--data-parallel-size"),
        ("dataLocal", "--data-parallel-size-local"),
    ):
        node = get(par, key)
        if isinstance(node, ScalarNode) and int_value(node) is not None:
            span = lines.node_span(node)
            size = int_value(node) or 0
            if single_node and key in ("tensor", "pipeline") and size > 1:
                problems.append(_dropped_parallelism(key, size, span))
            if single_node and key == "pipeline":
                continue  # no released single-node template renders it (kserve #6044)
            argv += [Token(flag, span), Token(str(int_value(node)), span)]
    if truthy(get(par, "expert")):
        argv.append(Token("--enable-expert-parallel", lines.node_span(get(par, "expert"))))
    data, local = int_value(get(par, "data")), int_value(get(par, "dataLocal"))
    pipeline = int_value(get(par, "pipeline"))
    if get(part, "worker") is not None and data and local:
        pods = max(1, data // local)
        facts.set("group_size", pods, lines.node_span(get(par, "data")), "LLMInferenceService data / dataLocal pods")
    elif get(part, "worker") is not None and pipeline and pipeline > 1:
        # the pipeline-parallel worker template runs one pipeline stage per pod: ``--pipeline-parallel-size
        # P --nnodes P`` (kserve config/llmisvcconfig/config-llm-worker-pipeline-parallel.yaml)
        span = lines.node_span(get(par, "pipeline"))
        facts.set("group_size", pipeline, span, "LLMInferenceService pipeline stages (one pod each)")
        per_pod = facts.facts.get("gpu_count")
        if per_pod is not None and isinstance(per_pod.value, int):
            facts.set(
                "cluster_gpu_count", pipeline * per_pod.value, span, f"LLMInferenceService group of {pipeline} pods"
            )
    ctx = _context(f, f"{where} (KServe LLMInferenceService)", env, facts)
    extra = env.get("VLLM_ADDITIONAL_ARGS")
    opaque = extra is not None and extra.value is None
    if extra is not None and not opaque:
        argv += _split_flags(extra, ctx)
    argv += [expand_refs(w, env)[0].token() for w in text_list(get(main, "args"), lines)]
    inv = Invocation(source=NAME, program="vllm serve", span=argv[0].span, args=argv, opaque_args=opaque)
    inv.problems.extend(problems)
    _finish_all(ctx, [inv], f)
    if extra is not None:
        # the template's command line expands it (``${VLLM_ADDITIONAL_ARGS}``): its words are the
        # launch's arguments, not a vLLM environment variable (VL013)
        inv.env.pop("VLLM_ADDITIONAL_ARGS", None)


#: KServe releases that drop ``spec.parallelism`` of a single-node LLMInferenceService (no
#: ``spec.worker``): the single-node templates (config-llm-template, -decode, -prefill) rendered no
#: parallelism flag until kserve PR #5782 (merged 2026-07-07, for issue #5773) added
#: ``--tensor-parallel-size``; ``pipeline`` is still not rendered in KServe v0.20.0 (issue #6044, open;
#: fix proposed in PR #6121, open)
_KSERVE_DROPS = {
    "tensor": "KServe releases before kserve/kserve PR #5782 (issue #5773; v0.20.0 has the fix) render no "
    "--tensor-parallel-size for a single-node LLMInferenceService",
    "pipeline": "no KServe release up to v0.20.0 renders --pipeline-parallel-size for a single-node "
    "LLMInferenceService (kserve/kserve #6044)",
}


def _dropped_parallelism(key: str, size: int, span: Span) -> Problem:
    """VL613: ``spec.parallelism.tensor`` / ``pipeline`` above 1 on a single-node LLMInferenceService."""
    effect = (
        "vLLM runs with pipeline parallel size 1"
        if key == "pipeline"
        else "with those releases vLLM runs with tensor parallel size 1"
    )
    return Problem(
        "VL613",
        span,
        f"spec.parallelism.{key}: {size} is dropped on a single-node LLMInferenceService: {_KSERVE_DROPS[key]}; "
        f"{effect} and the other GPUs stay idle (pass --{key}-parallel-size in the container's args)",
        {"parallelism": key, "size": size},
        severity="warning" if key == "pipeline" else "info",
    )


def _split_flags(var: EnvVar, ctx: LaunchContext) -> list[Token]:
    """Words of a flag string (``VLLM_ADDITIONAL_ARGS``), split like the shell that expands it."""
    mt = var.mapped
    if mt is None or var.value is None:
        return [Token(var.token.text, var.token.span, unresolved=True)]
    anchor = mt.offsets[0] if mt.offsets else mt.anchor
    prefix = MappedText("vllm serve ", [anchor] * len("vllm serve "), mt.lines, anchor)
    text = prefix + mt
    sub = shell.extract_from_text(text.text, text.posmap(), base_dir=ctx.base_dir, read_file=ctx.read_file, source=NAME)
    if not sub.invocations:
        return [Token(var.token.text, var.token.span, unresolved=True)]
    return list(sub.invocations[0].args)

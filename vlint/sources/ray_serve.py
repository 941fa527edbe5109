"""Ray Serve LLM: ``LLMConfig`` settings in Serve config YAML, KubeRay ``RayService`` manifests and
Python (``LLMConfig(...)``, read by :mod:`vlint.sources.python_ast`).

Ray builds the engine as ``AsyncEngineArgs(**engine_kwargs)`` with ``model`` set from
``model_loading_config.model_source`` (else ``model_id``) and creates it with
``usage_context=OPENAI_API_SERVER`` (ray ``python/ray/llm/_internal/serve/engines/vllm/vllm_engine.py``,
``_get_vllm_engine_config``); every key must be an ``AsyncEngineArgs`` or ``FrontendArgs`` field
(``vllm_models.py``, ``VLLMEngineConfig.from_llm_config``: "Unknown engine argument"). So a Ray
launch is an :class:`~vlint.core.invocation.Invocation` of program ``ray-serve`` whose settings are
keyword arguments, with the server's defaults. Each replica gets one GPU per TP×PP worker, of
``accelerator_type``.

Where the settings live: ``applications[].args.llm_configs[]`` of a Serve config (inline, or paths
to per-model YAML files, read relative to the config), a per-model ``LLMConfig`` YAML file itself,
and ``spec.serveConfigV2`` of a KubeRay ``RayService`` — a YAML document inside a string, whose
positions vlint maps back into the manifest. An application with a custom ``import_path``
(``vllm_serve:deployment``) runs user code: :func:`custom_applications` lists them, with the module's
file where the repository has it (beside the config, or under a local ``runtime_env.working_dir``) and
the ``runtime_env.env_vars`` it runs with; :func:`vlint.sources.python_ast.extract_ray_serve` reads the
launches of that module with those variables. A module that is not in the repository yields no
launch (code downloaded from a remote ``working_dir``: a note says it is not read).
"""

from __future__ import annotations

from vlint.core.invocation import SERVER, Entry, Fact, Invocation, Token
from vlint.core.record import field, record
from vlint.core.span import Span
from vlint.core.typing_names import Any
from vlint.sources.base import ReadFile, SourceError, SourceResult, SourceText
from vlint.sources.containers.compose import YamlDoc, get, items, load_yaml, nested_yaml, plain, seq
from vlint.sources.sniffing import ray_serve as sniff  # noqa: F401 - re-exported: callers use ray_serve.sniff
from vlint.sources.yaml_nodes import MappingNode, Node, ScalarNode, SequenceNode, to_python

NAME = "ray-serve"
PROGRAM = "ray-serve"

_LLM_APPS = ("ray.serve.llm:build_openai_app", "ray.serve.llm:build_llm_deployment")
#: builders whose args hold single LLMConfigs (a mapping or a path to a YAML file) under these keys:
#: ``build_dp_openai_app`` (``DPOpenAiServingArgs.llm_config``, ray
#: ``llm/_internal/serve/serving_patterns/data_parallel/builder.py``; ``DPServingArgs`` before) and
#: ``build_pd_openai_app`` (prefill/decode disaggregation, ``prefill_config``/``decode_config``)
_ONE_CONFIG_APPS = {
    "build_dp_openai_app": ("llm_config",),
    "build_dp_deployment": ("llm_config",),
    "build_pd_openai_app": ("prefill_config", "decode_config"),
}


@record(slots=True)
class Field:
    """A setting as written: its value, where key and value are, and nested fields for mappings."""

    value: Any
    key_span: Span
    value_span: Span
    unresolved: bool = False
    children: dict[str, Field] | None = None
    item_spans: tuple[Span, ...] = ()

    def get(self, *path: str) -> Field | None:
        f: Field | None = self
        for k in path:
            f = f.children.get(k) if f is not None and f.children is not None else None
        return f


@record(slots=True)
class LLMConfigSite:
    """One ``LLMConfig`` as found: its fields, where it starts, extra facts from the host file."""

    fields: dict[str, Field]
    span: Span
    label: str
    facts: dict[str, Fact] = field(default_factory=dict)
    #: a ``build_dp_openai_app`` config: each replica is one data-parallel rank (Ray's DP server sets
    #: ``engine_kwargs["data_parallel_rank"]`` per replica, ray ``llm/_internal/serve/deployments/
    #: data_parallel/dp_llm_server.py``), so a replica needs TP x PP GPUs, not x data_parallel_size
    dp_rank_per_replica: bool = False


def yaml_fields(node: Node, doc: YamlDoc, depth: int = 0) -> dict[str, Field]:
    """A YAML mapping as fields (values by the YAML core schema, nested mappings as children)."""
    out: dict[str, Field] = {}
    if depth > 20:
        return out  # engine settings are never nested this deep (an alias cycle is)
    for k, v in items(node):
        kspan = doc.span(k)
        vspan = doc.span(v)
        children = yaml_fields(v, doc, depth + 1) if isinstance(v, MappingNode) else None
        item_spans = tuple(doc.span(i) for i in v.value) if isinstance(v, SequenceNode) else ()
        null = isinstance(v, ScalarNode) and v.tag.endswith(":null")
        out[str(k.value)] = Field(None if null else to_python(v), kspan, vspan, False, children, item_spans)
    return out


def invocation(site: LLMConfigSite) -> Invocation | None:
    """The vLLM launch an ``LLMConfig`` describes (None when it names no model)."""
    f = site.fields
    loading = f.get("model_loading_config")
    model = loading.get("model_source") if loading is not None else None
    if model is None or (model.value is None and not model.unresolved):
        model = loading.get("model_id") if loading is not None else None
    if model is None:
        return None
    inv = Invocation(source=NAME, program=PROGRAM, span=site.span, usage_context=SERVER, label=site.label)
    inv.kwargs.append(Entry("model", model.value, model.key_span, model.value_span, model.unresolved))
    kwargs = f.get("engine_kwargs")
    if kwargs is not None:
        if kwargs.children is None:
            inv.opaque_args = kwargs.value is not None or kwargs.unresolved
        else:
            for key, e in kwargs.children.items():
                inv.kwargs.append(Entry(key, e.value, e.key_span, e.value_span, e.unresolved, e.item_spans))
    inv.facts.update(site.facts)
    if site.dp_rank_per_replica and not any(e.key == "data_parallel_rank" for e in inv.kwargs):
        inv.kwargs.append(Entry("data_parallel_rank", None, site.span, site.span, unresolved=True))
    acc = f.get("accelerator_type")
    if acc is not None and isinstance(acc.value, str) and not acc.unresolved:
        inv.facts["gpu_type"] = Fact(acc.value, acc.value_span, "accelerator_type")
    world = 1
    for key in ("tensor_parallel_size", "pipeline_parallel_size"):
        e = kwargs.get(key) if kwargs is not None else None
        if e is not None:
            world = world * e.value if isinstance(e.value, int) and not e.unresolved and world else 0
    if world:
        inv.facts["gpu_count"] = Fact(world, site.span, "Ray Serve LLM places one GPU per TP x PP worker")
    dep = f.get("deployment_config")
    for key, path in (
        ("replicas", ("num_replicas",)),
        ("min_replicas", ("autoscaling_config", "min_replicas")),
        ("max_replicas", ("autoscaling_config", "max_replicas")),
    ):
        e = dep.get(*path) if dep is not None else None
        if e is not None and not e.unresolved:
            inv.facts[key] = Fact(e.value, e.value_span, "deployment_config." + ".".join(path))
    runtime_env = f.get("runtime_env")
    env = runtime_env.get("env_vars") if runtime_env is not None else None
    for name, e in (env.children or {}).items() if env is not None else []:
        text = "" if e.value is None else str(e.value)
        inv.env[name] = Token(text, e.key_span.to(e.value_span), e.unresolved or e.value is None)
    return inv


@record(slots=True)
class CustomApp:
    """A Serve application whose ``import_path`` names user code: where it is, what it runs with."""

    import_path: str
    #: the module's file, relative to the config's folder (``vllm_serve.py``; under a local working_dir)
    module: str
    span: Span
    label: str
    env: dict[str, Token]
    facts: dict[str, Fact]
    #: ``runtime_env.working_dir`` names the folder Ray uploads (the module is certainly that file); else
    #: the module beside the config is taken for the one the cluster's image imports (an inference)
    uploaded: bool = False
    #: the ``working_dir`` URL the code is downloaded from (nothing to read in the repository), else ""
    remote: str = ""


def custom_applications(src: SourceText) -> list[CustomApp]:
    """The applications of the file's Serve configs (a RayService's ``serveConfigV2`` included) whose
    ``import_path`` is user code of a module path (``module.sub:attr``): with a working_dir that is not a
    URL (:mod:`vlint.sources.python_ast` reads the module), or downloaded from one (``remote``: nothing
    to read, said so). Nothing is read here."""
    out: list[CustomApp] = []
    try:
        docs = load_yaml(src)
    except SourceError:
        return out
    for doc in docs:
        root = doc.root
        if not isinstance(root, MappingNode):
            continue
        configs: list[tuple[YamlDoc, dict[str, Fact]]] = []
        if plain(get(root, "kind")) == "RayService":
            v2 = get(root, "spec", "serveConfigV2")
            if isinstance(v2, ScalarNode):
                workers = _worker_facts(doc)
                try:
                    configs += [(d, workers) for d in nested_yaml(doc, v2) if isinstance(d.root, MappingNode)]
                except SourceError:
                    continue
        elif get(root, "applications") is not None:
            configs.append((doc, {}))
        for d, facts in configs:
            for app in seq(get(d.root, "applications")):
                found = _custom_app(app, d, facts)
                if found is not None:
                    out.append(found)
    return out


def _custom_app(app: Node, doc: YamlDoc, facts: dict[str, Fact]) -> CustomApp | None:
    node = get(app, "import_path")
    path = str(plain(node) or "")
    module, _, attr = path.partition(":")
    working = plain(get(app, "runtime_env", "working_dir"))
    name = plain(get(app, "name")) or path
    span = doc.span(node) if node is not None else doc.span(app)
    if isinstance(working, str) and "://" in working and attr and not module.startswith("ray.") and " " not in path:
        # the code is downloaded from the URL when Ray deploys the application (its folders may hold
        # dashes: Ray imports below the unpacked archive)
        return CustomApp(path, "", span, f"application {name}", {}, facts, uploaded=True, remote=working)
    if not attr or module.startswith("ray.") or not all(part.isidentifier() for part in module.split(".")):
        return None  # a builder of Ray's (read by _serve_config), or not a module path
    if working is not None and (not isinstance(working, str) or "://" in working or working.startswith("/")):
        return None  # the code comes from elsewhere (a path on the cluster)
    prefix = (working.rstrip("/") + "/") if isinstance(working, str) and working not in ("", ".") else ""
    env: dict[str, Token] = {}
    for k, v in items(get(app, "runtime_env", "env_vars")):
        value = plain(v)
        env[str(k.value)] = Token("" if value is None else str(value), doc.span(k).to(doc.span(v)), value is None)
    module_file = prefix + module.replace(".", "/") + ".py"
    return CustomApp(path, module_file, span, f"application {name}", env, facts, uploaded=isinstance(working, str))


def extract(src: SourceText, read_file: ReadFile) -> SourceResult:
    result = SourceResult()
    for doc in load_yaml(src):
        for site in _sites(doc, src, read_file, result):
            inv = invocation(site)
            if inv is not None:
                result.invocations.append(inv)
                for name, tok in inv.env.items():
                    result.assignments.append((name, tok))
    return result


def _sites(doc: YamlDoc, src: SourceText, read_file: ReadFile, result: SourceResult) -> list[LLMConfigSite]:
    root = doc.root
    if not isinstance(root, MappingNode):
        return []
    if plain(get(root, "kind")) == "RayService":
        return _ray_service(doc, src, read_file, result)
    if get(root, "applications") is not None:
        return _serve_config(doc, src, read_file, result, {})
    if get(root, "model_loading_config") is not None:
        return [LLMConfigSite(yaml_fields(root, doc), doc.span(root), "LLMConfig")]
    return []


def _ray_service(doc: YamlDoc, src: SourceText, read_file: ReadFile, result: SourceResult) -> list[LLMConfigSite]:
    spec = get(doc.root, "spec")
    facts = _worker_facts(doc)
    v2 = get(spec, "serveConfigV2")
    sites: list[LLMConfigSite] = []
    if isinstance(v2, ScalarNode):
        try:
            inner = nested_yaml(doc, v2)
        except SourceError as e:
            raise SourceError(f"spec.serveConfigV2: {e.message}", doc.span(v2).line) from None
        for d in inner:
            if isinstance(d.root, MappingNode):
                sites.extend(_serve_config(d, src, read_file, result, facts))
    v1 = get(spec, "serveConfig")
    if isinstance(v1, MappingNode):
        sites.extend(_serve_config(YamlDoc(v1, doc.src, doc.posmap, doc.path), src, read_file, result, facts))
    return sites


def _worker_facts(doc: YamlDoc) -> dict[str, Fact]:
    """``ray_worker_gpus``: the GPUs of a RayService's worker groups (``nvidia.com/gpu`` x replicas)."""
    spec = get(doc.root, "spec")
    total = 0
    for group in seq(get(spec, "rayClusterConfig", "workerGroupSpecs")):
        replicas = plain(get(group, "replicas"))
        for c in seq(get(group, "template", "spec", "containers")):
            gpus = plain(get(c, "resources", "limits", "nvidia.com/gpu"))
            n = int(gpus) if isinstance(gpus, int) or (isinstance(gpus, str) and gpus.isdigit()) else 0
            total += n * (replicas if isinstance(replicas, int) else 1)
    if not total:
        return {}
    return {"ray_worker_gpus": Fact(total, doc.span(get(spec, "rayClusterConfig") or spec), "RayService worker GPUs")}


def _serve_config(
    doc: YamlDoc, src: SourceText, read_file: ReadFile, result: SourceResult, facts: dict[str, Fact]
) -> list[LLMConfigSite]:
    sites: list[LLMConfigSite] = []
    for app in seq(get(doc.root, "applications")):
        path = str(plain(get(app, "import_path")) or "")
        builder = path.rsplit(":", 1)[-1] if path.startswith("ray.") else ""
        if path not in _LLM_APPS and builder not in _ONE_CONFIG_APPS:
            continue
        name = plain(get(app, "name")) or path
        configs = list(seq(get(app, "args", "llm_configs")))
        for key in _ONE_CONFIG_APPS.get(builder, ()):
            one = get(app, "args", key)
            if one is not None:
                configs.append(one)
        first = len(sites)
        for cfg in configs:
            if isinstance(cfg, MappingNode):
                sites.append(LLMConfigSite(yaml_fields(cfg, doc), doc.span(cfg), f"application {name}", dict(facts)))
            elif isinstance(cfg, ScalarNode) and isinstance(plain(cfg), str):
                sites.extend(_linked_config(str(plain(cfg)), src, read_file, result, f"application {name}", facts))
        for site in sites[first:]:
            site.dp_rank_per_replica = builder in ("build_dp_openai_app", "build_dp_deployment")
    return sites


def _linked_config(
    ref: str, src: SourceText, read_file: ReadFile, result: SourceResult, label: str, facts: dict[str, Fact]
) -> list[LLMConfigSite]:
    path = src.abspath.parent / ref
    try:
        linked = read_file(path)
        docs = load_yaml(linked)
    except SourceError:
        return []
    result.linked.append(path)
    return [
        LLMConfigSite(yaml_fields(d.root, d), d.span(d.root), f"{label}, {ref}", dict(facts))
        for d in docs
        if isinstance(d.root, MappingNode)
    ]

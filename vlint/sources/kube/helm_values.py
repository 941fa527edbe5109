"""Helm values files of a vLLM chart that is not here: the model they set is the launch.

A values file is half a launch: the chart's templates turn it into a container command. When the chart
is beside the file (``Chart.yaml`` in the same folder) it is rendered or read with its templates
(:mod:`vlint.sources.render.helm`), and the charts vlint knows the templates of are rendered from the
values alone (:mod:`vlint.sources.kube.helm`). This module reads the rest: a ``values*.yaml`` that
mentions vLLM outside comments, or an overlay of a chart whose model key is distinctive, with no chart
beside it. What vlint can say there is which model the chart will serve and where that is written —
not the flags, which the templates add (the launch's argv is opaque, so no rule reads an absent flag
as absent), so the label says the launch is read from the model setting only.

Model settings, first match in file order:

* the llm-d deployer chart (``llm-d/llm-d-deployer`` ``charts/llm-d``):
  ``sampleApplication.model.modelArtifactURI`` is the ModelService's ``modelArtifacts.uri``
  (``templates/sample-application/modelservice.yaml:22`` at c9e16e9); its presets start
  ``vllm serve {{ default (print "/models/" .ModelPath) .HFModelName }}``
  (``templates/modelservice/presets/basic-gpu-preset.yaml:71``): ``hf://ORG/NAME`` serves ``ORG/NAME``,
  ``pvc://CLAIM/PATH`` serves ``/models/PATH``. ``sampleApplication.decode.extraArgs`` are appended to the
  decode container's args (``modelservice.yaml:30-31``) and ``sampleApplication.resources`` are its
  resources (``:33``).
* any other chart: the first key named like a model setting (``model``, ``modelId``, ``modelName``,
  ``hfModelName``, ``modelPath``, ``modelUri``…, compared without case, ``-`` or ``_``) whose value is a
  string, or the ``name``/``id``/``repo`` of a ``model:`` mapping. A ``null`` value (a model the user
  must supply at install time) is a launch whose model is not resolved. Which key a chart's template
  reads is not known here: the label says the model is inferred from the key's name.

It does not fire on a values file without a model setting, on one that mentions vLLM only in comments,
on the values of a chart that is here, or on files another source claims (Kubernetes manifests,
compose files, vLLM ``--config`` files: those sources come first in the registry).
"""

from __future__ import annotations

from vlint.core.invocation import Invocation, Token
from vlint.sources.base import ReadFile, SourceResult, SourceText
from vlint.sources.kube.k8s_common import (
    Facts,
    LaunchContext,
    LineIndex,
    finish,
    get,
    image_facts,
    items,
    read_documents,
    resource_facts,
    scalar,
)
from vlint.sources.sniffing import helm_values as sniff  # noqa: F401 - re-exported: callers use helm_values.sniff
from vlint.sources.yaml_nodes import MappingNode, Node, ScalarNode, merged_items

NAME = "helm-values"

#: key names (lower case, without ``-``/``_``) that name the model a chart serves
_MODEL_KEYS = frozenset(
    {"model", "modelid", "modelname", "hfmodelname", "hfmodel", "hfmodelid", "modelpath", "modeluri", "modelrepo"}
)
#: children of a ``model:`` mapping that hold the model's id
_MODEL_CHILDREN = ("id", "name", "repo", "repository", "path", "uri")
_MAX_DEPTH = 6


def extract(src: SourceText, read_file: ReadFile) -> SourceResult:
    result = SourceResult()
    lines = LineIndex(src.path, src.text)
    for root in read_documents(src, lines, result, "this values file"):
        if not isinstance(root, MappingNode) or get(root, "apiVersion") is not None:
            continue
        inv = _llm_d_deployer(root, lines) or _generic(root, lines)
        if inv is None:
            continue
        facts = Facts()
        image = _vllm_image(root)
        if image is not None:
            image_facts(facts, str(image.value), lines.node_span(image))
        if inv.label.startswith("llm-d"):
            resource_facts(facts, get(root, "sampleApplication", "resources"), lines)
        ctx = LaunchContext(NAME, inv.label, lines, src.abspath.parent, read_file, {}, facts, opaque=True)
        finish(inv, ctx)
        result.invocations.append(inv)
    return result


def _llm_d_deployer(root: Node, lines: LineIndex) -> Invocation | None:
    uri = get(root, "sampleApplication", "model", "modelArtifactURI")
    text = scalar(uri)
    if uri is None or not text:
        return None
    span = lines.node_span(uri)
    protocol, _, rest = text.partition("://")
    if protocol == "hf" and rest and "{{" not in rest:
        model = Token(rest.strip(), span)
    elif protocol == "pvc" and "/" in rest:
        model = Token("/models/" + rest.split("/", 1)[1], span)
    else:
        model = Token(text, span, unresolved=True)
    args = [model]
    for node in items(get(root, "sampleApplication", "decode", "extraArgs")):
        word = scalar(node)
        if word is None or "{{" in word:
            continue
        args.append(Token(word, lines.node_span(node)))
    inv = Invocation(source=NAME, program="vllm serve", span=span, args=args, opaque_args=True)
    inv.label = "llm-d deployer values: sampleApplication.model.modelArtifactURI (the chart is not here)"
    return inv


def _generic(root: Node, lines: LineIndex) -> Invocation | None:
    found = _model_setting(root, (), 0)
    if found is None:
        return None
    path, key, value = found
    where = ".".join(path)
    if isinstance(value, ScalarNode) and scalar(value):
        text = str(value.value).strip()
        tok = Token(text, lines.node_span(value), "{{" in text or "$" in text)
    else:  # null: supplied at install time
        tok = Token(f"{where}: null", lines.node_span(key), True)
    inv = Invocation(source=NAME, program="vllm serve", span=tok.span, args=[tok], opaque_args=True)
    inv.label = f"Helm values {where} (the chart is not here: the model is inferred from the key's name)"
    return inv


def _norm(key: str) -> str:
    return key.lower().replace("-", "").replace("_", "")


def _model_setting(node: Node, path: tuple[str, ...], depth: int) -> tuple[tuple[str, ...], Node, Node] | None:
    """The first model setting under ``node`` in file order: (key path, key node, value node)."""
    if not isinstance(node, MappingNode) or depth > _MAX_DEPTH:
        return None
    for k, v in merged_items(node):
        if not isinstance(k, ScalarNode):
            continue
        here = (*path, str(k.value))
        if _norm(str(k.value)) in _MODEL_KEYS:
            if isinstance(v, ScalarNode) and (v.tag == "tag:yaml.org,2002:null" or _looks_like_model(str(v.value))):
                return here, k, v
            if isinstance(v, MappingNode):
                for child in _MODEL_CHILDREN:
                    c = get(v, child)
                    if isinstance(c, ScalarNode) and _looks_like_model(str(c.value)):
                        return (*here, child), k, c
        deeper = _model_setting(v, here, depth + 1)
        if deeper is not None:
            return deeper
    return None


def _looks_like_model(text: str) -> bool:
    """A model id or path: not empty, one word, not a number or a boolean."""
    t = text.strip()
    if not t or " " in t or t.lower() in ("true", "false", "yes", "no", "none", "auto"):
        return False
    return not t.replace(".", "", 1).isdigit()


def _vllm_image(root: Node) -> ScalarNode | None:
    """A scalar anywhere in the values that is a whole vLLM image reference with a tag."""
    stack: list[tuple[Node, int]] = [(root, 0)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, ScalarNode):
            text = str(node.value)
            if text.startswith(("vllm/vllm-openai:", "docker.io/vllm/vllm-openai:")) and " " not in text:
                return node
        elif isinstance(node, MappingNode) and depth < _MAX_DEPTH:
            stack.extend((v, depth + 1) for _, v in reversed(merged_items(node)))
        elif depth < _MAX_DEPTH:
            stack.extend((c, depth + 1) for c in reversed(items(node)))
    return None

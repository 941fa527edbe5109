"""Helm values files of a vLLM chart that is not here: the model they set is the launch.

A values file is half a launch: the chart's templates turn it into a container command. When the chart
is beside the file (``Chart.yaml`` in the same folder, with ``templates/`` or vendored ``charts/``) it is
rendered or read with its templates (:mod:`vlint.sources.render.helm`), and the charts vlint knows the
templates of are rendered from the values alone (:mod:`vlint.sources.kube.helm`, also nested under a
parent chart's key for its dependency). This module reads the rest: a values file (``values*.yaml``, or
one that reads like ``helm create``'s) that mentions vLLM outside comments, or an overlay of a chart
whose model key is distinctive, whose chart renders nothing here (not beside it, or a ``Chart.yaml``
without templates: a wrapper of remote dependencies). What vlint can say there is what the values
write — the container's command/args, or which model the chart will serve and where that is written —
not what the templates add (the launch's argv is opaque, so no rule reads an absent flag as absent),
so the label says where the launch was read from.

Launches, first what the values write as a container's argv, else the model setting:

* ``command``/``args`` of any mapping of the values (a generic chart's ``deployment.command``,
  ``server.args``, a top-level ``args``; not a probe's or a hook's), read as a container's: ``vllm
  serve …``, ``python -m vllm.entrypoints…``, ``sh -c "…"``, or ``args`` alone that the nearest
  ``image`` runs (``vllm/vllm-openai``) or that are vLLM's flags. The chart's template may add words, so
  the argv stays opaque; the label says it was read as the container's argv. The nearest ``image`` (a
  reference, or Helm's usual ``{registry, repository, tag}``), ``env`` and ``resources`` are its facts.
  ``args`` alone that name no model (they start with a flag) take the values' model setting (below),
  which the template puts before them, and an item written as a flag with its value (``"--load-format
  auto"``) is the two words a template's shell line makes of it.

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

A values file of a chart that runs vLLM (a vLLM image, a ``vllm serve`` command, a ``vllm:`` settings
mapping) from which none of these can be read gets one note: the launch is not checked, and how to
check it (lint the chart, or ``helm template … | vlint -``). A chart that only talks to vLLM (a client's
``VLLM_URL``) gets none.

It does not fire on a values file without a model setting, on one that mentions vLLM only in comments,
on the values of a chart that renders here, or on files another source claims (Kubernetes manifests,
compose files, vLLM ``--config`` files: those sources come first in the registry).
"""

from __future__ import annotations

import re

from vlint.core.invocation import Invocation, Token
from vlint.core.lazy_re import lazy_compile
from vlint.core.span import Span
from vlint.sources.base import ReadFile, SourceResult, SourceText
from vlint.sources.kube.k8s_common import (
    EnvVar,
    Facts,
    LaunchContext,
    LineIndex,
    MappedText,
    finish,
    get,
    image_facts,
    image_launch,
    items,
    launches,
    read_documents,
    read_env,
    resource_facts,
    scalar,
    text_list,
)
from vlint.sources.sniffing import helm as known_chart
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
_LLM_D_DEPLOYER_KEY = "sampleApplication:"


def extract(src: SourceText, read_file: ReadFile) -> SourceResult:
    result = SourceResult()
    lines = LineIndex(src.path, src.text)
    serving = False
    for root in read_documents(src, lines, result, "this values file"):
        if not isinstance(root, MappingNode) or get(root, "apiVersion") is not None:
            continue
        serving = serving or _serves_vllm(root, lines)
        built = _container_launches(root, lines, src, read_file, result)
        if built:
            result.invocations.extend(built)
            continue
        inv = _llm_d_deployer(root, lines) or _generic(root, lines)
        if inv is None:
            continue
        facts = Facts()
        image = _vllm_image(root, lines)
        if image is not None:
            image_facts(facts, image[0], image[1])
        if inv.label.startswith("llm-d"):
            resource_facts(facts, get(root, "sampleApplication", "resources"), lines)
        ctx = LaunchContext(NAME, inv.label, lines, src.abspath.parent, read_file, {}, facts, opaque=True)
        finish(inv, ctx)
        result.invocations.append(inv)
    # (the charts vlint knows the templates of read the file first: one whose values set no model is theirs)
    known = known_chart(src) or _LLM_D_DEPLOYER_KEY in src.text
    if serving and not known and not result.invocations and result.error is None and not result.problems:
        result.notes.append(
            "values of a Helm chart that runs vLLM, whose templates are not among the files linted: the launch "
            "they configure (its command, args or model) is not in the values, so it is not checked; lint the "
            f"chart folder (its Chart.yaml and templates/) with these values, or `helm template CHART -f "
            f"{src.abspath.name} | vlint -`"
        )
    return result


#: keys whose ``command``/``args`` are not the server's (probes, hooks, jobs around it)
_NOT_THE_SERVER = frozenset(
    {"livenessprobe", "readinessprobe", "startupprobe", "lifecycle", "exec", "initcontainers", "hooks", "tests"}
)


def _container_launches(
    root: MappingNode, lines: LineIndex, src: SourceText, read_file: ReadFile, result: SourceResult
) -> list[Invocation]:
    """Launches written in the values as a container's ``command``/``args`` (a generic chart's
    ``deployment.command``, ``server.args``, a top-level ``args``): the argv the template passes on
    when it copies them into the container, which is what such keys are for. Read like a container's
    (``vllm serve …``, ``python -m vllm.entrypoints…``, ``sh -c "…"``; ``args`` alone when the image
    nearest them runs vLLM or they are vLLM's flags). The chart is not here: its template may add
    words, so the argv is opaque (no rule reads an absent flag as absent), and the label says so."""
    out: list[Invocation] = []
    for path, node in _command_holders(root, (), 0):
        command = text_list(get(node, "command"), lines)
        args = text_list(get(node, "args"), lines)
        if not command and not args:
            continue
        where = ".".join(path) or "the top level"
        label = f"Helm values {where} command/args (the chart's templates are not here: read as the container's argv)"
        facts = Facts()
        image = _image_of(node, lines) or _image_of(root, lines)
        if image is not None:
            image_facts(facts, image[0], image[1])
        resource_facts(facts, get(node, "resources") or get(root, "resources"), lines)
        env: dict[str, EnvVar] = {}
        read_env(get(node, "env"), lines, env)
        ctx = LaunchContext(
            NAME,
            label,
            lines,
            src.abspath.parent,
            read_file,
            env,
            facts,
            image=image[0] if image is not None else None,
            image_span=image[1] if image is not None else None,
            opaque=True,
        )
        if command:
            out.extend(launches(command + args, ctx, result))
        else:
            inv = image_launch(_template_words(args), ctx)
            if inv is not None:
                _model_from_setting(inv, root, lines)
                out.append(inv)
    return out


#: a flag and its value written as one item (``"--load-format auto"``)
_FLAG_WITH_VALUE = lazy_compile(r"-[^\s'\"]*(?:\s+[^\s'\"]+)+")


def _template_words(args: list[MappedText]) -> list[MappedText]:
    """``args`` of values whose template is not here, as the words vLLM gets: an item written as a flag
    and its value (``"--load-format auto"``) is the two words the template's shell line splits it into
    (a chart that passes ``{{ range .Values.args }} {{ . }}{{ end }}`` into ``sh -c``, the way such items
    are meant); as one argv word argparse would take it for the positional model (an argument with a
    space is never an option, ``argparse._parse_optional``). Other items are kept whole."""
    out: list[MappedText] = []
    for a in args:
        if not _FLAG_WITH_VALUE.fullmatch(a.text.strip()):
            out.append(a)
            continue
        out.extend(a.slice(m.start(), m.end()) for m in re.finditer(r"\S+", a.text))
    return out


def _model_from_setting(inv: Invocation, root: MappingNode, lines: LineIndex) -> None:
    """The model of values ``args`` that name none (they start with a flag): the values' model setting
    (``model.name``), which the chart's template puts before them — inferred from the key's name, and
    the label says so. Nothing is added when the args name a model or ``--model``, or the values have no
    such setting."""
    words = [t.text for t in inv.args]
    if not words or not words[0].startswith("-") or any(w == "--model" or w.startswith("--model=") for w in words):
        return
    found = _model_setting(root, (), 0)
    if found is None:
        return
    path, _key, value = found
    if not (isinstance(value, ScalarNode) and scalar(value)):
        return
    text = str(value.value).strip()
    inv.args.insert(0, Token(text, lines.node_span(value), "{{" in text or "$" in text))
    inv.label += f"; the model from {'.'.join(path)}, inferred from the key's name"


def _command_holders(node: Node, path: tuple[str, ...], depth: int) -> list[tuple[tuple[str, ...], MappingNode]]:
    """Mappings (in file order) with a ``command`` or ``args`` key, outside probes and hooks."""
    if not isinstance(node, MappingNode) or depth > _MAX_DEPTH:
        return []
    out: list[tuple[tuple[str, ...], MappingNode]] = []
    if get(node, "command") is not None or get(node, "args") is not None:
        out.append((path, node))
    for k, v in merged_items(node):
        key = str(k.value) if isinstance(k, ScalarNode) else ""
        if key and _norm(key) not in _NOT_THE_SERVER and key not in ("command", "args"):
            out.extend(_command_holders(v, (*path, key), depth + 1))
    return out


def _serves_vllm(root: Node, lines: LineIndex) -> bool:
    """The values run a vLLM server (not only talk to one, as a client's ``vllmUrl`` does): an image
    named like vLLM's, a ``vllm serve`` / ``vllm.entrypoints`` command, or a ``vllm:`` settings mapping."""
    if _vllm_image(root, lines) is not None:
        return True
    if isinstance(root, MappingNode) and isinstance(get(root, "vllm"), MappingNode):
        return True
    stack: list[tuple[Node, int]] = [(root, 0)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, ScalarNode):
            text = str(node.value)
            if "vllm serve" in text or "vllm.entrypoints" in text:
                return True
        elif depth < _MAX_DEPTH:
            children = [v for _, v in merged_items(node)] if isinstance(node, MappingNode) else items(node)
            stack.extend((c, depth + 1) for c in children)
    return False


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
    inv.label = "llm-d deployer values: sampleApplication.model.modelArtifactURI (the chart's templates are not here)"
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
    inv.label = f"Helm values {where} (the chart's templates are not here: the model is inferred from the key's name)"
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


def _vllm_image(root: Node, lines: LineIndex) -> tuple[str, Span] | None:
    """The first vLLM image anywhere in the values (file order): a scalar that is a whole
    ``vllm/vllm-openai:TAG`` reference, or an ``image:`` mapping whose ``repository`` names vLLM
    (``vllm/vllm-openai``, ``…/library/vllm-openai``, ``rocm/vllm``), with its ``tag``."""
    stack: list[tuple[Node, int]] = [(root, 0)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, ScalarNode):
            text = str(node.value)
            if text.startswith(("vllm/vllm-openai:", "docker.io/vllm/vllm-openai:")) and " " not in text:
                return text, lines.node_span(node)
        elif isinstance(node, MappingNode) and depth < _MAX_DEPTH:
            image = _image_of(node, lines)
            if image is not None and "vllm" in image[0].split(":", 1)[0].lower():
                return image
            stack.extend((v, depth + 1) for _, v in reversed(merged_items(node)))
        elif depth < _MAX_DEPTH:
            stack.extend((c, depth + 1) for c in reversed(items(node)))
    return None


def _image_of(node: Node, lines: LineIndex) -> tuple[str, Span] | None:
    """The ``image`` of a values mapping: a reference string, or Helm's usual ``{registry, repository,
    tag}`` mapping joined as the templates join it (``registry/repository:tag``); with the span of the
    tag (where the release is written) or of the reference."""
    image = get(node, "image")
    text = scalar(image)
    if isinstance(image, ScalarNode) and text and " " not in text and "{{" not in text:
        return text.strip(), lines.node_span(image)
    if not isinstance(image, MappingNode):
        return None
    repo_node = get(image, "repository") or get(image, "name")
    repo = scalar(repo_node)
    if not repo or " " in repo or "{{" in repo or repo_node is None:
        return None
    registry = scalar(get(image, "registry"))
    if registry and "/" not in repo.split(":", 1)[0].split("/", 1)[0] and not repo.startswith(registry):
        repo = f"{registry.rstrip('/')}/{repo}"
    tag_node = get(image, "tag")
    tag = scalar(tag_node)
    if tag and tag_node is not None and " " not in tag and "{{" not in tag and ":" not in repo.rsplit("/", 1)[-1]:
        return f"{repo}:{tag}", lines.node_span(tag_node)
    return repo, lines.node_span(repo_node)

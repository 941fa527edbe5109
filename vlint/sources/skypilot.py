"""SkyPilot task / SkyServe YAML: the ``setup:`` and ``run:`` scripts, with ``envs:`` and the
``SKYPILOT_*`` variables SkyPilot sets from ``resources:`` and ``num_nodes:``.

``resources.accelerators`` is ``H100:8``, ``H100`` (one), ``{H100: 8}``, a set of alternatives
(``{L4:1, A100:1}``, ``[L4:1, A100:1]``) or ``any_of``/``ordered`` lists: the GPU count per node is
known when every alternative asks for the same number, the GPU type when there is one alternative.
The vLLM version comes from ``image_id: docker:vllm/vllm-openai:TAG`` or a ``pip install vllm==X``
pin in ``setup:`` (an unquoted ``vllm>=X`` is a shell redirect, not a pin).
"""

from __future__ import annotations

from vlint.core.invocation import Fact, Token
from vlint.core.lazy_re import lazy_compile
from vlint.core.span import Span
from vlint.sources.base import ReadFile, SourceResult, SourceText
from vlint.sources.containers.compose import YamlDoc, get, items, load_yaml, plain, seq
from vlint.sources.containers.dockerfile import Container, Piece, image_facts, merge_result, script_launches
from vlint.sources.containers.images import parse_image
from vlint.sources.sniffing import skypilot as sniff  # noqa: F401 - re-exported: callers use skypilot.sniff
from vlint.sources.yaml_nodes import MappingNode, Node, ScalarNode, SequenceNode

NAME = "skypilot"

_PIN = lazy_compile(r"""\bvllm(?:\[[^\]]*\])?==v?(\d+\.\d+\.\d+(?:\.?post\d+)?)""")


def _accelerators(node: Node | None, doc: YamlDoc) -> list[tuple[str, int | None]]:
    """(GPU type, count) alternatives of a ``resources.accelerators`` value."""
    out: list[tuple[str, int | None]] = []
    if isinstance(node, ScalarNode):
        v = plain(node)
        if v is not None:
            out.append(_one(str(v)))
    elif isinstance(node, MappingNode):
        for k, v in items(node):
            c = plain(v)
            if c is None:
                out.append(_one(str(k.value)))  # {L4:8} in flow style is the key "L4:8"
            else:
                out.append((str(k.value), c if isinstance(c, int) else None))
    elif isinstance(node, SequenceNode):
        for item in node.value:
            out.extend(_accelerators(item, doc))
    return out


def _one(text: str) -> tuple[str, int | None]:
    name, colon, count = text.partition(":")
    if not colon:
        return name.strip(), 1
    return name.strip(), int(count) if count.strip().isdigit() else None


def _resources(doc: YamlDoc) -> tuple[list[tuple[str, int | None]], Span | None]:
    res = get(doc.root, "resources")
    alts = _accelerators(get(res, "accelerators"), doc)
    span = doc.span(get(res, "accelerators")) if get(res, "accelerators") is not None else None
    for key in ("any_of", "ordered"):
        for r in seq(get(res, key)):
            alts.extend(_accelerators(get(r, "accelerators"), doc))
            if span is None and get(r, "accelerators") is not None:
                span = doc.span(get(r, "accelerators"))  # type: ignore[arg-type]
    return alts, span


def _env_tokens(node: Node | None, doc: YamlDoc) -> dict[str, Token]:
    out: dict[str, Token] = {}
    for k, v in items(node):
        span = doc.key_value_span(k, v)
        m = doc.text(v)
        if m is None or (isinstance(v, ScalarNode) and v.tag.endswith(":null")):
            out[str(k.value)] = Token("$" + str(k.value), span, True)  # given with --env / --secret
        else:
            out[str(k.value)] = Token(m.text, span, False)
    return out


def _instance_type(doc: YamlDoc, facts: dict[str, Fact], env: dict[str, Token], *, stated: bool) -> None:
    """``resources.instance_type: g6.24xlarge``: SkyPilot takes the instance's accelerators from its
    catalog (the one vlint's instance table is generated from), so a task that names no
    ``accelerators`` gets the GPU type and count of the instance. ``accelerators`` stated beside it win."""
    from vlint.hardware.instances import instance

    node = get(doc.root, "resources", "instance_type")
    name = plain(node)
    if node is None or not isinstance(name, str):
        return
    got = instance(name)
    span = doc.span(node)
    if got is None:
        return
    how = f"resources.instance_type {name}: {got.describe()}"
    facts["instance_type"] = Fact(name, span, how)
    facts["instance_gpu_count"] = Fact(got.count, span, how)
    if stated:  # accelerators named beside the instance type: they are what the task asks for
        return
    facts["gpu_type"] = Fact(got.gpu.name, span, how)
    facts["gpu_count"] = Fact(got.count, span, f"resources.instance_type {name}")
    env.setdefault("SKYPILOT_NUM_GPUS_PER_NODE", Token(str(got.count), span, False))


def extract(src: SourceText, read_file: ReadFile) -> SourceResult:
    result = SourceResult()
    for doc in load_yaml(src):
        if isinstance(doc.root, MappingNode) and (get(doc.root, "run") or get(doc.root, "setup")):
            _task(doc, src, read_file, result)
    return result


def _task(doc: YamlDoc, src: SourceText, read_file: ReadFile, result: SourceResult) -> None:
    root = doc.root
    env = _env_tokens(get(root, "envs"), doc)
    secrets = _env_tokens(get(root, "secrets"), doc)
    for name, tok in [*env.items(), *secrets.items()]:
        result.assignments.append((name, tok))
    env.update(secrets)
    facts: dict[str, Fact] = {}
    alts, acc_span = _resources(doc)
    counts = {c for _, c in alts}
    types = {t for t, _ in alts}
    if len(counts) == 1 and None not in counts:
        n = next(iter(counts))
        assert n is not None
        facts["gpu_count"] = Fact(n, acc_span, "resources.accelerators")
        if acc_span is not None:
            env["SKYPILOT_NUM_GPUS_PER_NODE"] = Token(str(n), acc_span, False)
    if len(types) == 1:
        facts["gpu_type"] = Fact(next(iter(types)), acc_span, "resources.accelerators")
    _instance_type(doc, facts, env, stated=bool(alts))
    options = list(dict.fromkeys((t, c) for t, c in alts if c is not None))
    if len(options) > 1:
        # SkyPilot launches on one of these: the memory model answers for each (vlint.launch.gpu_fit)
        facts["accelerator_options"] = Fact(options, acc_span, "resources.accelerators")
    nodes_node = get(root, "num_nodes")
    nodes = plain(nodes_node)
    n_nodes = nodes if isinstance(nodes, int) else 1
    nodes_span = doc.span(nodes_node) if nodes_node is not None else doc.span(root)
    facts["num_nodes"] = Fact(n_nodes, nodes_span, "num_nodes")
    if n_nodes > 1 and "gpu_count" in facts:
        total = n_nodes * int(facts["gpu_count"].value)
        facts["cluster_gpu_count"] = Fact(total, nodes_span, f"{n_nodes} nodes x {facts['gpu_count'].value} GPUs")
    env["SKYPILOT_NUM_NODES"] = Token(str(n_nodes), nodes_span, False)
    image_node = get(root, "resources", "image_id")
    image_text = str(plain(image_node) or "")
    if image_text.startswith("docker:"):
        image = parse_image(image_text[len("docker:") :])
        assert image_node is not None
        facts.update(image_facts(image, doc.span(image_node), f"image_id {image_text}"))
        # SkyPilot starts the container with a /dev/shm sized from the node's memory (the Ray
        # autoscaler's docker runner it builds on: _auto_configure_shm)
        facts["shm_size"] = Fact("auto", doc.span(image_node), "SkyPilot sizes the container's /dev/shm")
    setup = get(root, "setup")
    setup_text = doc.text(setup)
    if setup_text is not None and "vllm_version" not in facts:
        m = _PIN.search(setup_text.text)
        if m is not None:
            facts["vllm_version"] = Fact(
                m.group(1).replace("post", ".post").replace("..", "."),
                setup_text.span(doc.posmap, m.start(), m.end()),
                f"setup: pip install vllm=={m.group(1)}",
            )
    base_dir = src.abspath.parent
    for key in ("setup", "run"):
        node = get(root, key)
        body = doc.text(node)
        if body is None:
            continue
        c = Container(NAME, f"{key}: script", env, facts, base_dir, read_file)
        found = script_launches(Piece(body, doc.posmap), c)
        merge_result(found, result)

"""docker compose files: every service that runs vLLM, with the argv, environment and GPUs it gets.

What compose does, in order, and what vlint mirrors:

1. **Interpolation** of every value (not keys): ``${VAR}``, ``${VAR:-default}``, ``${VAR-default}``,
   ``${VAR:?err}``, ``${VAR:+alt}``, ``$$`` → ``$``. Values come from the ``.env`` file next to the
   compose file (compose also reads the shell environment, which vlint cannot see: a variable with
   a default takes the default, one without stays *unresolved*). Without a ``.env``, an example of
   it beside the compose file (``.env.example``, ``env.example``…: the file a repository commits for
   users to copy to ``.env``, which it keeps out of git) gives the values, as an inference: each launch
   that uses one says so (fact ``example_env``), and its errors are warnings that say so.
2. **YAML**: anchors, aliases and ``<<`` merge keys (``x-common-env: &env`` … ``<<: *env``).
3. **The container argv**: ``entrypoint`` replaces the image's ENTRYPOINT (and drops its CMD),
   ``command`` replaces its CMD. A string is split like a shell line without expansion; a list is
   the argv. Folded scalars (``command: >``) keep the line breaks of more-indented lines — they are
   blanks to the splitter. Without ``entrypoint`` the image's own entry point runs: ``vllm serve`` for
   ``vllm/vllm-openai`` images (a ``command`` that starts with ``vllm serve`` repeats it), or the
   ENTRYPOINT/CMD of the Dockerfile named by ``build:`` (read from the build context).
4. **Environment**: the Dockerfile's ``ENV``, then ``env_file:`` files, then ``environment:``.
5. **Devices**: ``deploy.resources.reservations.devices`` (``count: all|N``, ``device_ids``),
   ``gpus:``, ``runtime: nvidia`` (+ ``NVIDIA_VISIBLE_DEVICES``), ``devices: [/dev/kfd, /dev/dri]``,
   then ``CUDA_VISIBLE_DEVICES``/``HIP_VISIBLE_DEVICES`` inside the container → GPU count and ids.

This module also holds the YAML helpers other YAML-hosted sources use: :func:`scalar_text` gives a
scalar's value with the file position of every character (block and folded scalars, quotes and
escapes included), so a token cut out of a ``run: |`` script still points at the right column.
"""

from __future__ import annotations

import re
from operator import itemgetter
from pathlib import Path

from vlint.core.invocation import Fact, Invocation, Token
from vlint.core.record import field, record
from vlint.core.span import PositionMap, Span
from vlint.core.typing_names import Any
from vlint.security.secrets import SECRET_ENV
from vlint.sources.base import ReadFile, SourceError, SourceResult, SourceText, refused, set_head
from vlint.sources.containers.dockerfile import (
    Container,
    Mount,
    Piece,
    container_launches,
    container_reader,
    copy_mounts,
    image_config,
    image_facts,
    load_dockerfile,
    lost_build_args,
    merge_result,
)
from vlint.sources.containers.dotenv import (
    Lookup,
    Mapped,
    dotenv_values,
    interpolate,
    mapping_lookup,
    parse_dotenv,
    split_words,
)
from vlint.sources.containers.images import default_entrypoint, parse_image
from vlint.sources.kube.k8s_common import LineIndex
from vlint.sources.kube.k8s_common import scalar_text as k8s_scalar_text
from vlint.sources.sniffing import compose as sniff  # noqa: F401 - re-exported: callers use compose.sniff
from vlint.sources.yaml_nodes import (
    MappingNode,
    Node,
    ScalarNode,
    SequenceNode,
    compose_all,
    first_key,
    mapping_get,
    merged_items,
    scalar_value,
)

NAME = "compose"


# -- YAML scalars with per-character positions ---------------------------------------------------
def scalar_text(node: ScalarNode, src: Mapped, lines: LineIndex | None = None) -> Mapped:
    """``node.value`` with each character's origin taken from ``src`` (the text the node was read
    from, with its own origins): the Kubernetes source's alignment of value and source text, mapped
    through ``src`` (so a YAML document held in a string still points into the outer file)."""
    mt = k8s_scalar_text(node, lines or LineIndex("", src.text))
    if not src.lo:
        return Mapped.verbatim(mt.text)
    last = len(src.lo) - 1
    offsets = mt.offsets
    if offsets and max(offsets) > last:
        offsets = [min(o, last) for o in offsets]
    if len(offsets) < 2:
        return Mapped(mt.text, [src.lo[o] for o in offsets], [src.hi[o] for o in offsets])
    pick = itemgetter(*offsets)  # one pass in C over the scalar's characters
    return Mapped(mt.text, list(pick(src.lo)), list(pick(src.hi)))


@record(slots=True)
class YamlDoc:
    """A YAML document and what its scalars' positions map through."""

    root: Node
    src: Mapped
    posmap: PositionMap
    path: str
    lines: LineIndex | None = None

    def text(self, node: Node | None) -> Mapped | None:
        if not isinstance(node, ScalarNode):
            return None
        if self.lines is None:
            self.lines = LineIndex(self.path, self.src.text)
        return scalar_text(node, self.src, self.lines)

    def span(self, node: Node) -> Span:
        a = node.start_mark.index
        b = max(a, node.end_mark.index - 1)
        if not self.src.lo:
            return self.posmap.span(0, 0)
        a = min(a, len(self.src.lo) - 1)
        b = min(b, len(self.src.lo) - 1)
        return self.posmap.span(self.src.lo[a], self.src.hi[b])

    def key_value_span(self, key: Node, value: Node | None) -> Span:
        start = self.span(key)
        return start.to(self.span(value)) if value is not None else start


def load_yaml(src: SourceText) -> list[YamlDoc]:
    """Every document of a YAML file (raises SourceError with the line on bad YAML)."""
    docs = compose_all(src.text, src.path)
    mapped = Mapped.verbatim(src.text)
    posmap = PositionMap.for_text(src.path, src.text)
    return [YamlDoc(d, mapped, posmap, src.path) for d in docs]


def first_mapping(src: SourceText) -> YamlDoc | None:
    """The first document of a one-document YAML format (compose, GitHub Actions) if it is a mapping."""
    docs = load_yaml(src)
    return docs[0] if docs and isinstance(docs[0].root, MappingNode) else None


def nested_yaml(doc: YamlDoc, node: ScalarNode) -> list[YamlDoc]:
    """YAML held in a string (KubeRay ``serveConfigV2: |``), positions mapped through the outer file."""
    inner = doc.text(node)
    assert inner is not None
    docs = compose_all(inner.text, doc.path)
    return [YamlDoc(d, inner, doc.posmap, doc.path) for d in docs]


def items(node: Node | None) -> list[tuple[ScalarNode, Node]]:
    """Key/value pairs of a mapping (merge keys applied) whose keys are scalars."""
    if not isinstance(node, MappingNode):
        return []
    return [(k, v) for k, v in merged_items(node) if isinstance(k, ScalarNode)]


def seq(node: Node | None) -> list[Node]:
    return list(node.value) if isinstance(node, SequenceNode) else []


def plain(node: Node | None) -> Any:
    """A scalar's value by the YAML core schema (None for anything else)."""
    return scalar_value(node) if isinstance(node, ScalarNode) else None


def get(node: Node | None, *path: str) -> Node | None:
    for key in path:
        node = mapping_get(node, key) if node is not None else None
    return node


# -- compose -------------------------------------------------------------------------------------
@record(slots=True)
class _Ctx:
    doc: YamlDoc
    src: SourceText
    read_file: ReadFile
    lookup: Lookup
    result: SourceResult
    #: ``env_file:`` files read for this compose file: path → their variables (a file many services
    #: share is read and interpolated once)
    env_files: dict[Path, list[tuple[str, Token]]] = field(default_factory=dict)

    @property
    def dir(self) -> Path:
        return self.src.abspath.parent

    def value(self, node: Node | None) -> Mapped | None:
        """A scalar after compose interpolation."""
        m = self.doc.text(node)
        return None if m is None else interpolate(m, self.lookup)

    def token(self, node: Node, span: Span | None = None) -> Token | None:
        m = self.value(node)
        if m is None:
            return None
        return Token(m.text, span or m.span(self.doc.posmap), m.is_unresolved())


def extract(src: SourceText, read_file: ReadFile) -> SourceResult:
    result = SourceResult()
    doc = first_mapping(src)
    if doc is None:
        return result
    values: dict[str, Mapped | str] = {}
    env_path = src.abspath.parent / ".env"
    example = False
    try:
        env_src = read_file(env_path)
    except SourceError:
        env_src = _example_env(src.abspath.parent, read_file)
        example = env_src is not None
    if env_src is not None:
        entries = parse_dotenv(env_src.text, env_src.path)
        values = {name: e.value for name, e in dotenv_values(entries).items()}
        result.linked.append(env_src.abspath)
    known = mapping_lookup(values)
    used: list[str] = []  # the example's names a service's values took

    def lookup(name: str) -> tuple[str, str | Mapped | None]:
        found = known(name)
        if example and found[0] == "set":
            used.append(name)
        return found

    ctx = _Ctx(doc, src, read_file, lookup, result)
    for key, svc in items(get(doc.root, "services")):
        if isinstance(svc, MappingNode):
            used.clear()
            first = len(result.invocations)
            _service(str(key.value), key, svc, ctx)
            if used and env_src is not None:
                _mark_example_values(result.invocations[first:], env_src.path, sorted(set(used)))
    result.linked = list(dict.fromkeys(result.linked))
    return result


#: examples of a ``.env`` that repositories commit (the ``.env`` itself stays out of git), in this order
EXAMPLE_ENV_NAMES = (".env.example", ".env.sample", ".env.template", "env.example", "example.env")


def _example_env(folder: Path, read_file: ReadFile) -> SourceText | None:
    for name in EXAMPLE_ENV_NAMES:
        try:
            return read_file(folder / name)
        except SourceError:
            continue
    return None


def _mark_example_values(invocations: list[Invocation], shown: str, names: list[str]) -> None:
    """Launches of a service whose values took names of the example ``.env``: an inference."""
    listed = ", ".join(names[:4]) + (", …" if len(names) > 4 else "")
    for inv in invocations:
        inv.facts["example_env"] = Fact(
            shown,
            inv.span,
            f"{listed} from {shown}, an example: docker compose reads .env, which is not here",
        )


def _pieces(node: Node | None, ctx: _Ctx) -> list[Piece] | None:
    """``command:``/``entrypoint:`` as argv pieces (None when absent or null)."""
    if node is None or (isinstance(node, ScalarNode) and node.tag.endswith(":null")):
        return None
    posmap = ctx.doc.posmap
    if isinstance(node, SequenceNode):
        out: list[Piece] = []
        for item in node.value:
            m = ctx.value(item)
            if m is not None:
                out.append(Piece(m, posmap))
        return out
    m = ctx.value(node)
    if m is None:
        return None
    return [Piece(w.text, posmap, w.opaque) for w in split_words(m, stop_at_operators=True)]


def _key_values(node: Node | None, ctx: _Ctx) -> list[tuple[str, Token]]:
    """``environment:`` / ``build.args:`` as a list (``- K=V``, ``- K``) or a mapping (``K: V``, ``K:``);
    a name without a value takes it from the shell that runs compose: unresolved."""
    out: list[tuple[str, Token]] = []
    if isinstance(node, SequenceNode):
        for item in node.value:
            m = ctx.value(item)
            if m is None:
                continue
            name, eq, _ = m.text.partition("=")
            name = name.strip()
            span = ctx.doc.span(item)
            if not eq:
                out.append((name, Token("$" + name, span, True)))  # taken from the shell at `up`
                continue
            value = m.slice(len(m.text) - len(m.text.partition("=")[2]), len(m.text))
            raw = ctx.doc.text(item)
            out.append((name, _value_token(name, raw.text.partition("=")[2] if raw else "", value, span)))
    else:
        for k, v in items(node):
            name = str(k.value)
            span = ctx.doc.key_value_span(k, v)
            m = ctx.value(v)
            if m is None or (isinstance(v, ScalarNode) and v.tag.endswith(":null")):
                out.append((name, Token("$" + name, span, True)))
                continue
            raw = ctx.doc.text(v)
            out.append((name, _value_token(name, raw.text if raw else "", m, span)))
    return out


def _value_token(name: str, raw: str, value: Mapped, span: Span) -> Token:
    """A credential that compose interpolates (``HF_TOKEN: ${HF_TOKEN}``) is written where the
    variable is set (``.env``, the shell), not here: it stays in its source spelling, unresolved."""
    if "$" in raw and SECRET_ENV.match(name):
        return Token(raw, span, True)
    return Token(value.text, span, value.is_unresolved())


def _env_files(node: Node | None, ctx: _Ctx) -> list[tuple[str, Token]]:
    out: list[tuple[str, Token]] = []
    refs = node.value if isinstance(node, SequenceNode) else [node] if node is not None else []
    for ref in refs:
        path_node = get(ref, "path") if isinstance(ref, MappingNode) else ref
        m = ctx.value(path_node)
        if m is None or m.is_unresolved():
            continue
        p = ctx.dir / m.text
        known = ctx.env_files.get(p)
        if known is None:
            try:
                src = ctx.read_file(p)
            except SourceError as e:
                refused(e, m.span(ctx.doc.posmap), ctx.result.problems, f"env_file {m.text}")
                continue
            ctx.result.linked.append(p)
            entries = dotenv_values(parse_dotenv(src.text, src.path, outer=ctx.lookup))
            known = ctx.env_files[p] = [(name, e.token()) for name, e in entries.items()]
        out.extend(known)
    return out


def _build(node: Node | None, ctx: _Ctx) -> tuple[Path | None, Path, str | None, dict[str, Token]]:
    """(Dockerfile path, build context, target stage, build args) of ``build:``."""
    if node is None:
        return None, ctx.dir, None, {}
    if isinstance(node, ScalarNode):
        m = ctx.value(node)
        if m is None or m.is_unresolved():
            return None, ctx.dir, None, {}
        return ctx.dir / m.text / "Dockerfile", ctx.dir / m.text, None, {}
    context = ctx.value(get(node, "context"))
    dockerfile = ctx.value(get(node, "dockerfile"))
    target = ctx.value(get(node, "target"))
    base = ctx.dir / (context.text if context is not None and not context.is_unresolved() else ".")
    path = base / (dockerfile.text if dockerfile is not None and not dockerfile.is_unresolved() else "Dockerfile")
    args = dict(_key_values(get(node, "args"), ctx))
    return path, base, (target.text if target is not None else None), args


def _service(name: str, key: ScalarNode, svc: MappingNode, ctx: _Ctx) -> None:
    doc = ctx.doc
    result = ctx.result
    image_node = get(svc, "image")
    image_m = ctx.value(image_node)
    image = parse_image(image_m.text) if image_m is not None and not image_m.is_unresolved() else None
    image_span = doc.span(image_node) if image_node is not None else doc.span(key)
    facts: dict[str, Fact] = image_facts(image, image_span, f"image: {image.raw}" if image else "")
    env: dict[str, Token] = {}
    df_path, context, target, build_args = _build(get(svc, "build"), ctx)
    for arg, tok in build_args.items():
        result.assignments.append((arg, tok))
    cfg = None
    mounts = _mounts(get(svc, "volumes"), ctx)
    if df_path is not None:
        try:
            df_src = ctx.read_file(df_path)
        except SourceError:
            df_src = None
        if df_src is not None:
            result.linked.append(df_path)
            cfg = image_config(load_dockerfile(df_src, build_args), target)
            if cfg is not None:
                mounts += copy_mounts(cfg, context)
    if cfg is not None:
        env.update(cfg.env)
        facts.update(image_facts(cfg.image, cfg.image_span, f"FROM {cfg.image_text} in {cfg.dockerfile.path}"))
        # the image the service builds installs vLLM itself (FROM a CUDA or Python base): its pin is the release
        pip = next((st.pip_vllm for st in cfg.stage.chain() if st.pip_vllm), None)
        if pip is not None and "vllm_version" not in facts:
            facts["vllm_version"] = Fact(pip[0], pip[1], f"pip install vllm=={pip[0]} in {cfg.dockerfile.path}")
        lost = lost_build_args(cfg.dockerfile, cfg.stage, build_args)
        if lost is not None:
            facts["lost_build_args"] = lost
    for env_name, tok in _env_files(get(svc, "env_file"), ctx):
        env[env_name] = tok
    for env_name, tok in _key_values(get(svc, "environment"), ctx):
        env[env_name] = tok
        result.assignments.append((env_name, tok))
    facts.update(_device_facts(svc, env, ctx))
    facts.update(_runtime_facts(svc, ctx))
    facts["compose_service"] = Fact(name, doc.span(key), "compose service")
    entrypoint = _pieces(get(svc, "entrypoint"), ctx)
    command = _pieces(get(svc, "command"), ctx)
    if entrypoint is not None:
        ep, cmd = entrypoint, command  # a new entrypoint also drops the image's CMD
    elif cfg is not None:
        ep, cmd = cfg.entrypoint, command if command is not None else cfg.cmd
    else:
        ep, cmd = None, command
    if cfg is not None:
        program = cfg.program if ep is None else None
        is_vllm = cfg.image is not None and cfg.image.is_vllm
    else:
        program = default_entrypoint(image) if image is not None and ep is None else None
        is_vllm = image is not None and image.is_vllm
    c = Container(
        source=NAME,
        label=f"service {name}",
        env=env,
        facts=facts,
        base_dir=Path(str(_plain_text(get(svc, "working_dir")) or "/")),
        read_file=container_reader(mounts, ctx.read_file),
        default_program=program,
        image_is_vllm=is_vllm,
        entry_span=doc.span(get(svc, "command") or key) if cfg is None or command is not None else cfg.entry_span,
    )
    found = container_launches(ep, cmd, c)
    head = first_key(svc, "entrypoint", "command") if entrypoint is not None else first_key(svc, "command")
    # a service that runs its image's own command (no command: of its own) is written at its key
    set_head(found.invocations, doc.span(head if head is not None else key))
    if head is None:
        # the image's own command from its Dockerfile (anchored there): the service runs it, so the launch
        # is written at the service's key in this file too (Invocation.lines reads the head's file)
        for inv in found.invocations:
            if inv.head is None and inv.span.path != doc.span(key).path:
                inv.head = doc.span(key)
    merge_result(found, result)


def _plain_text(node: Node | None) -> str | None:
    v = plain(node)
    return str(v) if v is not None else None


def _runtime_facts(svc: MappingNode, ctx: _Ctx) -> dict[str, Fact]:
    facts: dict[str, Fact] = {}
    doc = ctx.doc
    for key, fact in (("shm_size", "shm_size"), ("ipc", "ipc")):
        node = get(svc, key)
        m = ctx.value(node)
        if node is not None and m is not None:
            facts[fact] = Fact(m.text, doc.span(node), f"compose {key}")
    node = get(svc, "privileged")
    if plain(node) is True:
        assert node is not None
        facts["privileged"] = Fact(True, doc.span(node), "compose privileged: true")
    profiles = [str(plain(p)) for p in seq(get(svc, "profiles")) if plain(p) is not None]
    facts["compose_profiles"] = Fact(tuple(profiles), doc.span(get(svc, "profiles") or svc), "compose profiles")
    facts["runs_with"] = Fact("compose:" + ctx.src.path, None, "services of one compose file run together")
    return facts


_VISIBLE = ("CUDA_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES")


def _device_facts(svc: MappingNode, env: dict[str, Token], ctx: _Ctx) -> dict[str, Fact]:
    """GPU ids the container sees (host ids, or "all"), and their count when it is known."""
    devices: list[str] | str | None = None
    detail = ""
    span: Span | None = None
    doc = ctx.doc
    requests = [*seq(get(svc, "deploy", "resources", "reservations", "devices"))]
    gpus = get(svc, "gpus")
    if isinstance(gpus, SequenceNode):
        requests.extend(gpus.value)
    elif gpus is not None:
        m = ctx.value(gpus)
        if m is not None and m.text.strip().lower() == "all":
            devices, detail, span = "all", "compose gpus: all", doc.span(gpus)
    for req in requests:
        caps = [str(plain(c)) for c in seq(get(req, "capabilities"))]
        driver = str(plain(get(req, "driver")) or "")
        if caps and "gpu" not in caps and driver not in ("nvidia", "amd"):
            continue
        ids = [ctx.value(i) for i in seq(get(req, "device_ids"))]
        count_node = get(req, "count")
        count = ctx.value(count_node)
        span = doc.span(req)
        if ids:
            devices = [m.text for m in ids if m is not None]
            detail = "compose device_ids " + ",".join(devices)
            span = doc.span(get(req, "device_ids") or req)  # the line that says which GPUs
        elif count is not None and re.fullmatch(r"[0-9]{1,4}", count.text.strip()):
            span = doc.span(count_node or req)  # the line that says how many
            # one id per device (a count of 200166679055 built a list of that many strings)
            devices = [str(i) for i in range(int(count.text.strip()))]
            detail = f"compose device count {count.text.strip()}"
        else:
            devices = "all"
            detail = "compose devices count: all"
    runtime = ctx.value(get(svc, "runtime"))
    if devices is None and runtime is not None and runtime.text == "nvidia":
        devices, detail, span = "all", "runtime: nvidia", doc.span(get(svc, "runtime") or svc)
        nvd = env.get("NVIDIA_VISIBLE_DEVICES")
        if nvd is not None and not nvd.unresolved and nvd.text.strip() not in ("all", ""):
            devices = [x.strip() for x in nvd.text.split(",") if x.strip()]
            detail, span = f"NVIDIA_VISIBLE_DEVICES={nvd.text}", nvd.span
    if devices is None:
        for d in seq(get(svc, "devices")):
            m = ctx.value(d)
            host = m.text.split(":", 1)[0] if m is not None else ""
            if host in ("/dev/kfd", "/dev/dri"):
                devices, detail, span = "all", f"devices: {host}", doc.span(d)
            elif re.fullmatch(r"/dev/nvidia\d+", host):
                devices = [*(devices if isinstance(devices, list) else []), host[len("/dev/nvidia") :]]
                detail, span = "devices: /dev/nvidiaN", doc.span(d)
    facts: dict[str, Fact] = {}
    for var in _VISIBLE:
        tok = env.get(var)
        if tok is None or tok.unresolved or not tok.text.strip() or tok.text.strip() == "all":
            continue
        ids = [x.strip() for x in tok.text.split(",") if x.strip()]
        if devices is None or devices == "all":
            devices = ids
        elif all(i.isascii() and i.isdigit() and int(i) < len(devices) for i in ids):
            devices = [devices[int(i)] for i in ids]
        else:
            devices = ids
        detail, span = f"{var}={tok.text}", tok.span
        break
    if devices is None:
        return facts
    if isinstance(devices, list):
        facts["gpu_count"] = Fact(len(devices), span, detail)
        facts["gpu_ids"] = Fact(tuple(devices), span, detail)
    else:
        facts["gpu_ids"] = Fact("all", span, detail)
        facts["gpus"] = Fact("all", span, detail)
    return facts


def _mounts(volumes: Node | None, ctx: _Ctx) -> list[Mount]:
    """Bind mounts of repository paths (``./configs/vllm.yaml:/etc/vllm/config.yaml:ro``)."""
    mounts: list[Mount] = []
    for v in seq(volumes):
        if isinstance(v, MappingNode):
            src_m, dst_m = ctx.value(get(v, "source")), ctx.value(get(v, "target"))
            if src_m is None or dst_m is None:
                continue
            host, target = src_m.text, dst_m.text
        else:
            m = ctx.value(v)
            if m is None or m.is_unresolved():
                continue
            parts = m.text.split(":")
            if len(parts) < 2:
                continue
            host, target = parts[0], parts[1]
        if host.startswith(("./", "../")) or (host and not host.startswith(("/", "~", "$")) and "/" in host):
            mounts.append(Mount(target, ctx.dir / host, f"the volume {host}"))
    return mounts

"""Helpers shared by the Kubernetes and Helm sources: YAML scalars with exact positions, Kubernetes
``$(VAR)`` expansion, container environments, the facts a pod spec gives (GPUs, /dev/shm, node
selection, image) and turning a container's argv into :class:`~vlint.core.invocation.Invocation` objects.

Positions: a YAML scalar's *value* is not a verbatim slice of the file (quotes, escapes, folded or
literal block scalars, indentation). :func:`scalar_text` aligns the value with the source so every
character of the value knows its file offset; the shell source and the argument parser then report
``line:col`` of the very character that is wrong, also inside a ``bash -c`` block scalar.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterator
from itertools import pairwise
from pathlib import Path

from vlint.core.invocation import Fact, Invocation, Problem, Token
from vlint.core.lazy_re import lazy_compile
from vlint.core.record import field, record
from vlint.core.span import PositionMap, Span, line_starts
from vlint.sources.base import ReadFile, SourceError, SourceResult, SourceText
from vlint.sources.containers.images import default_entrypoint, image_vllm_version, parse_image
from vlint.sources.expansion_budget import current
from vlint.sources.scripts import shell
from vlint.sources.scripts.shell_eval import Var
from vlint.sources.sniffing import find_template, has_template, is_vllm_template
from vlint.sources.yaml_nodes import (
    MappingNode,
    Node,
    ScalarNode,
    SequenceNode,
    compose_all,
    mapping_get,
    merged_items,
)

_DOLLAR_NAME = lazy_compile(r"\$[A-Za-z_]")
_SHELLS = {"sh", "bash", "zsh", "dash", "ash", "ksh"}


def has_placeholder(text: str) -> bool:
    """A placeholder another tool fills in before Kubernetes sees the manifest (envsubst, Terraform,
    kustomize vars): ``${VAR}``, ``$VAR`` at a word start, ``{{ x }}`` on one line. Linear scans."""
    if "$" in text:
        i = text.find("${")
        if (i >= 0 and text.find("}", i + 2) >= 0) or _DOLLAR_NAME.search(text):
            return True
    pos = 0
    while (hit := find_template(text, pos)) is not None:
        start, end = hit
        nl = text.find("\n", start, end)
        if nl < 0:
            return True
        pos = nl  # the `{{` and `}}` are on different lines: look again from the next line
    return False


# -- positions ---------------------------------------------------------------------------------
class LineIndex:
    """Offsets ↔ 1-based line:column for one file's text."""

    def __init__(self, path: str, text: str) -> None:
        self.path = path
        self.text = text
        self.starts = line_starts(text)

    def offset(self, line0: int, col0: int) -> int:
        """File offset of a 0-based line/column (as YAML marks give them)."""
        if line0 >= len(self.starts):
            return len(self.text)
        return min(self.starts[line0] + col0, len(self.text))

    def pos(self, offset: int) -> tuple[int, int]:
        i = bisect_right(self.starts, offset) - 1
        return i + 1, offset - self.starts[i] + 1

    def span(self, start: int, end: int) -> Span:
        line, col = self.pos(start)
        if end <= start:
            return Span(self.path, line, col, line, col)
        end_line, end_col = self.pos(end - 1)
        return Span(self.path, line, col, end_line, end_col + 1)

    def node_span(self, node: Node) -> Span:
        s, e = node.start_mark, node.end_mark
        return self.span(self.offset(s.line, s.column), self.offset(e.line, e.column))


@record(slots=True)
class MappedText:
    """A string whose every character knows its offset in the file (``offsets[i]``)."""

    text: str
    offsets: list[int]
    lines: LineIndex
    #: where an empty text sits
    anchor: int = 0

    def __post_init__(self) -> None:
        if len(self.offsets) != len(self.text):  # pragma: no cover - construction bug
            raise ValueError("MappedText: one offset per character")

    @classmethod
    def at(cls, text: str, lines: LineIndex, start: int, end: int) -> MappedText:
        """``text`` placed over the file region [start, end) (characters beyond it stay on its end)."""
        last = max(start, end - 1)
        n = len(text)
        inside = max(0, min(n, last - start + 1))  # characters within the region; the rest stay on its end
        return cls(text, [*range(start, start + inside), *([last] * (n - inside))], lines, start)

    def slice(self, a: int, b: int) -> MappedText:
        anchor = self.offsets[a] if a < len(self.offsets) else (self.offsets[-1] if self.offsets else self.anchor)
        return MappedText(self.text[a:b], self.offsets[a:b], self.lines, anchor)

    def __add__(self, other: MappedText) -> MappedText:
        return MappedText(self.text + other.text, self.offsets + other.offsets, self.lines, self.anchor)

    def span(self, a: int = 0, b: int | None = None) -> Span:
        b = len(self.text) if b is None else b
        if b <= a or not self.offsets:
            off = self.offsets[a] if a < len(self.offsets) else self.anchor
            return self.lines.span(off, off)
        return self.lines.span(self.offsets[a], self.offsets[b - 1] + 1)

    def posmap(self) -> PositionMap:
        """A PositionMap from offsets in ``text`` to file positions."""
        if not self.offsets:
            line, col = self.lines.pos(self.anchor)
            return PositionMap(self.lines.path, [(0, line, col)])
        segments: list[tuple[int, int, int]] = []
        prev = -2
        prev_line = -1
        for i, off in enumerate(self.offsets):
            line, col = self.lines.pos(off)
            if off != prev + 1 or line != prev_line:
                segments.append((i, line, col))
            prev, prev_line = off, line
        return PositionMap(self.lines.path, segments)

    def token(self, *, unresolved: bool = False) -> Token:
        return Token(self.text, self.span(), unresolved or has_placeholder(self.text))


_ESCAPES = {
    "0": "\0",
    "a": "\a",
    "b": "\b",
    "t": "\t",
    "\t": "\t",
    "n": "\n",
    "v": "\v",
    "f": "\f",
    "r": "\r",
    "e": "\x1b",
    " ": " ",
    '"': '"',
    "/": "/",
    "\\": "\\",
    "N": "\x85",
    "_": "\xa0",
    "L": "\u2028",
    "P": "\u2029",
}


def scalar_text(node: ScalarNode, lines: LineIndex) -> MappedText:
    """The scalar's value with the file offset of each character.

    The value (quotes removed, escapes decoded, lines folded, block indentation stripped) is aligned
    with the source: each value character is matched to the next source character that produces it,
    skipping what YAML drops (indentation, line breaks of folded lines, quote doubling, escape
    backslashes). When the alignment fails (an exotic escape) every character falls back to the
    scalar's start, so a span is never wrong by more than the scalar.
    """
    value = str(node.value)
    start = lines.offset(node.start_mark.line, node.start_mark.column)
    end = lines.offset(node.end_mark.line, node.end_mark.column)
    src = lines.text
    style = node.style
    p = start
    if style in ('"', "'"):
        p = start + 1
    elif style in ("|", ">"):
        nl = src.find("\n", start, end)
        p = nl + 1 if nl >= 0 else end
    offsets = _align(value, src, p, end, style)
    if offsets is None:
        return MappedText.at(value, lines, start, end)
    return MappedText(value, offsets, lines, start)


def _align(value: str, src: str, p: int, end: int, style: str | None) -> list[int] | None:
    # most scalars are written as they read: the loop below would match them character by character
    if src.startswith(value, p, end) and not (style == '"' and "\\" in value) and not (style == "'" and "'" in value):
        return list(range(p, p + len(value)))
    offsets: list[int] = []
    for c in value:
        while True:
            if p >= end:
                return None
            s = src[p]
            if style == '"' and s == "\\" and p + 1 < end:
                e = src[p + 1]
                if e == "\n":  # escaped line break: joins lines without a space
                    p += 2
                    continue
                decoded, width = _decode_escape(src, p, end)
                if decoded == c:
                    offsets.append(p)
                    p += width
                    break
                return None
            if style == "'" and s == "'" and p + 1 < end and src[p + 1] == "'":
                if c != "'":
                    return None
                offsets.append(p)
                p += 2
                break
            if s == c or (c == " " and s == "\n"):
                offsets.append(p)
                p += 1
                break
            if s in " \t\n\r":
                p += 1
                continue
            return None
    return offsets


def _decode_escape(src: str, p: int, end: int) -> tuple[str | None, int]:
    e = src[p + 1]
    if e in _ESCAPES:
        return _ESCAPES[e], 2
    width = {"x": 2, "u": 4, "U": 8}.get(e)
    if width is not None and p + 2 + width <= end:
        try:
            return chr(int(src[p + 2 : p + 2 + width], 16)), 2 + width
        except ValueError:
            return None, 2
    return None, 2


# -- documents ---------------------------------------------------------------------------------
_DOC_MARK = lazy_compile(r"^(?:---|\.\.\.)(?:[ \t].*)?$", re.MULTILINE)


@record(slots=True)
class Documents:
    nodes: list[Node]
    #: documents that could not be read (the others still are)
    errors: list[SourceError] = field(default_factory=list)


def compose_documents(text: str, path: str) -> Documents:
    """Every YAML document of ``text``; a bad document does not hide the others.

    Kubernetes tools (Go YAML) accept a TAB after a scalar (``type: LoadBalancer<TAB>``); PyYAML does
    not. Such trailing tabs are read as spaces (same width, so positions stay exact).
    """
    try:
        return Documents(compose_all(text, path))
    except SourceError:
        pass
    fixed = trailing_tabs_as_spaces(text)
    try:
        return Documents(compose_all(fixed, path))
    except SourceError:
        pass
    out = Documents([])
    bounds = [*sorted({0, *(m.start() for m in _DOC_MARK.finditer(fixed))}), len(fixed)]
    for a, b in pairwise(bounds):
        chunk = fixed[a:b]
        if not chunk.strip():
            continue
        line0 = fixed.count("\n", 0, a)
        try:
            out.nodes.extend(compose_all("\n" * line0 + chunk, path))
        except SourceError as e:
            out.errors.append(e)
    return out


def trailing_tabs_as_spaces(text: str) -> str:
    """Each line's trailing run of blanks, when it holds a TAB, as spaces of the same width (one pass
    per line; ``[ \t]*\t[ \t]*$`` backtracked cubically over a long run of blanks)."""
    if "\t" not in text:
        return text
    lines = text.split("\n")
    for i, line in enumerate(lines):
        body = line.rstrip(" \t")
        if "\t" in line[len(body) :]:
            lines[i] = body + " " * (len(line) - len(body))
    return "\n".join(lines)


def template_span(mt: MappedText) -> Span:
    """The first ``{{ … }}`` of a text (its first line only)."""
    hit = find_template(mt.text)
    if hit is None:
        return mt.span(0, 0)
    start, end = hit
    eol = mt.text.find("\n", start)
    return mt.span(start, end if eol < 0 else min(end, eol))


def template_problem(span: Span, what: str) -> Problem:
    """VL604: the file (or a command in it) is a template (``{{ … }}``) vlint cannot read unrendered."""
    return Problem(
        "VL604",
        span,
        f"{what} is a template ({{{{ … }}}}) that is only complete once rendered; its vLLM settings are not "
        "linted (lint the values file, or the output of `helm template`)",
        {"what": what},
    )


def file_template_problem(lines: LineIndex, what: str) -> Problem:
    return template_problem(template_span(MappedText.at(lines.text, lines, 0, len(lines.text))), what)


def read_documents(src: SourceText, lines: LineIndex, result: SourceResult, what: str) -> list[Node]:
    """The file's YAML documents. A template of a vLLM file that is not YAML yet is reported as VL604
    (not an error); other templates are silently skipped; a plain YAML error is the file's error."""
    docs = compose_documents(src.text, src.path)
    if docs.errors:
        if is_vllm_template(src.text):
            result.problems.append(file_template_problem(lines, what))
        elif not has_template(src.text):
            result.error = docs.errors[0]
    return docs.nodes


# -- plain data access -------------------------------------------------------------------------
def get(node: Node | None, *path: str) -> Node | None:
    for key in path:
        if node is None:
            return None
        node = mapping_get(node, key)
    return node


def scalar(node: Node | None) -> str | None:
    """The raw text of a scalar node (None for anything else or ``null``)."""
    if isinstance(node, ScalarNode) and node.tag != "tag:yaml.org,2002:null":
        return str(node.value)
    return None


def truthy(node: Node | None) -> bool:
    """Helm/Go truthiness of a value (``false``, ``0``, ``""``, null and empty collections are false)."""
    if node is None:
        return False
    if isinstance(node, ScalarNode):
        if node.tag == "tag:yaml.org,2002:null":
            return False
        v = str(node.value)
        if node.tag == "tag:yaml.org,2002:bool":
            return v.lower() in ("true", "yes", "on", "y")
        if node.tag in ("tag:yaml.org,2002:int", "tag:yaml.org,2002:float"):
            try:
                return float(v.replace("_", "")) != 0
            except ValueError:
                return True
        return v != ""
    return bool(node.value)


def is_false(node: Node | None) -> bool:
    """The value is the boolean ``false`` (not merely absent)."""
    return isinstance(node, ScalarNode) and node.tag == "tag:yaml.org,2002:bool" and not truthy(node)


def items(node: Node | None) -> list[Node]:
    return list(node.value) if isinstance(node, SequenceNode) else []


def pairs(node: Node | None) -> list[tuple[ScalarNode, Node]]:
    if not isinstance(node, MappingNode):
        return []
    return [(k, v) for k, v in merged_items(node) if isinstance(k, ScalarNode)]


def int_value(node: Node | None) -> int | None:
    """An integer written as a number or a quoted number (``"8"``)."""
    text = scalar(node)
    if text is None:
        return None
    t = text.strip()
    if re.fullmatch(r"[+-]?\d+", t):
        return int(t)
    if re.fullmatch(r"[+-]?\d+\.0*", t):
        return int(float(t))
    return None


# -- environment -------------------------------------------------------------------------------
@record(slots=True)
class EnvVar:
    name: str
    #: the value the process sees, None when vlint cannot know it (secret, field, placeholder)
    value: str | None
    token: Token
    #: ``secret``, ``configmap``, ``field``, ``resource`` for ``valueFrom``; ``literal`` otherwise
    kind: str = "literal"
    #: the literal value with the file position of each character
    mapped: MappedText | None = None


def expand_refs(mt: MappedText, env: dict[str, EnvVar]) -> tuple[MappedText, bool]:
    """Kubernetes ``$(VAR)`` expansion (k8s.io/kubernetes third_party/forked/golang/expansion):
    ``$(NAME)`` becomes the value of an env var defined for the container, ``$$`` becomes ``$``, a
    reference to an unknown variable stays as written, and so does one past the file's expansion
    budget (an env value may repeat earlier ones: ``B: $(A)$(A)``, ``C: $(B)$(B)``… doubles per
    variable). ``${VAR}`` and ``$VAR`` are not touched. Returns the text and whether a reference
    could not be resolved."""
    text = mt.text
    if "$" not in text:
        return mt, False
    budget = current()
    out_chars: list[str] = []
    out_offs: list[int] = []
    unresolved = False
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch == "$" and i + 1 < n and text[i + 1] == "$":
            out_chars.append("$")
            out_offs.append(mt.offsets[i])
            i += 2
            continue
        if ch == "$" and i + 1 < n and text[i + 1] == "(":
            close = text.find(")", i + 2)
            if close > i + 2:
                name = text[i + 2 : close]
                var = env.get(name)
                if var is not None and var.value is not None and budget.spend(len(var.value)):
                    ref = mt.offsets[i : close + 1]
                    for k, c in enumerate(var.value):
                        out_chars.append(c)
                        out_offs.append(ref[min(k, len(ref) - 1)])
                    i = close + 1
                    continue
                unresolved = True
                out_chars.extend(text[i : close + 1])
                out_offs.extend(mt.offsets[i : close + 1])
                i = close + 1
                continue
        out_chars.append(ch)
        out_offs.append(mt.offsets[i])
        i += 1
    return MappedText("".join(out_chars), out_offs, mt.lines, mt.anchor), unresolved


def read_env(env_node: Node | None, lines: LineIndex, env: dict[str, EnvVar]) -> None:
    """Add a container's ``env:`` list (or a ``NAME: value`` mapping, as CRDs write it) to ``env``."""
    if isinstance(env_node, MappingNode):
        for k, v in pairs(env_node):
            _add_env(str(k.value), v, None, lines, env)
        return
    for item in items(env_node):
        name = scalar(mapping_get(item, "name"))
        if not name:
            continue
        _add_env(name, mapping_get(item, "value"), mapping_get(item, "valueFrom"), lines, env)


def _add_env(name: str, value: Node | None, value_from: Node | None, lines: LineIndex, env: dict[str, EnvVar]) -> None:
    if value_from is not None:
        kind = "secret" if get(value_from, "secretKeyRef") is not None else "configmap"
        if get(value_from, "fieldRef") is not None:
            kind = "field"
        elif get(value_from, "resourceFieldRef") is not None:
            kind = "resource"
        env[name] = EnvVar(name, None, Token(f"$({name})", lines.node_span(value_from), unresolved=True), kind)
        return
    if not isinstance(value, ScalarNode):
        env[name] = EnvVar(name, "", Token("", _key_span(lines, value), False))
        return
    mt, bad = expand_refs(scalar_text(value, lines), env)
    placeholder = has_placeholder(mt.text)
    resolved = not bad and not placeholder
    token = Token(mt.text, _value_span(mt, value, lines), not resolved)
    env[name] = EnvVar(name, mt.text if resolved else None, token, mapped=mt)


def _value_span(mt: MappedText, node: Node, lines: LineIndex) -> Span:
    return mt.span() if mt.text else lines.node_span(node)


def _key_span(lines: LineIndex, node: Node | None) -> Span:
    return lines.node_span(node) if node is not None else lines.span(0, 0)


def unexpanded_env(env: dict[str, EnvVar]) -> list[EnvVar]:
    """Literal env values with ``${VAR}``/``$VAR`` that Kubernetes passes on unexpanded."""
    return [v for v in env.values() if v.kind == "literal" and v.value is None and "$" in v.token.text]


# -- pod facts ---------------------------------------------------------------------------------
GPU_RESOURCES = ("nvidia.com/gpu", "amd.com/gpu")
#: node labels that name the accelerator, most specific first
GPU_LABELS = (
    "nvidia.com/gpu.product",
    "cloud.google.com/gke-accelerator",
    "karpenter.k8s.aws/instance-gpu-name",
    "amd.com/gpu.product-name",
    "gpu.nvidia.com/class",
    "node.kubernetes.io/instance-type",
    "beta.kubernetes.io/instance-type",
    "karpenter.k8s.aws/instance-type",
    "karpenter.k8s.aws/instance-family",
    "cloud.google.com/gke-tpu-accelerator",
)
_GPU_LABEL_HINT = lazy_compile(r"(gpu[-_.]?(name|product|type|model|class)|accelerator)$", re.IGNORECASE)


def label_is_gpu(key: str) -> bool:
    return key in GPU_LABELS or bool(_GPU_LABEL_HINT.search(key.rsplit("/", 1)[-1]))


@record(slots=True)
class Facts:
    """Facts about a launch's surroundings, collected while reading a workload."""

    facts: dict[str, Fact] = field(default_factory=dict)

    def set(self, name: str, value: object, span: Span | None, detail: str = "") -> None:
        self.facts[name] = Fact(value, span, detail)

    def setdefault(self, name: str, value: object, span: Span | None, detail: str = "") -> None:
        if name not in self.facts:
            self.set(name, value, span, detail)


def image_facts(out: Facts, text: str, span: Span, detail: str = "image") -> None:
    out.set("image", text, span, detail)
    ref = parse_image(text)
    if ref is None:
        return
    version = image_vllm_version(ref)
    if version is not None:
        out.set("vllm_version", str(version), span, f"image tag {ref.raw}")


def resource_facts(out: Facts, resources: Node | None, lines: LineIndex, where: str = "resources") -> None:
    """GPU/TPU counts from ``resources.limits`` (else ``requests``): extended resources must be equal
    in both, and a container gets what the limit says."""
    for section in ("limits", "requests"):
        for key, value in pairs(get(resources, section)):
            rname = str(key.value)
            count = int_value(value)
            span = lines.node_span(key).to(lines.node_span(value))
            text = scalar(value) or ""
            if rname in GPU_RESOURCES or rname.startswith("nvidia.com/mig-"):
                if count is None:
                    out.setdefault("gpu_count_text", text, span, f"{where}.{section}[{rname}]")
                    continue
                out.setdefault("gpu_count", count, span, f"{where}.{section}[{rname}]: {text}")
                out.setdefault("gpu_resource", rname, span, f"{where}.{section}")
            elif rname == "google.com/tpu" and count is not None:
                out.setdefault("tpu_count", count, span, f"{where}.{section}[{rname}]: {text}")
            elif rname.startswith("habana.ai/") and count is not None:
                out.setdefault("accelerator_count", count, span, f"{where}.{section}[{rname}]: {text}")


#: node labels whose value is a family of cloud instance types (``g4dn``: every size carries T4s)
FAMILY_LABELS = ("karpenter.k8s.aws/instance-family",)
#: node labels whose value is a cloud instance type (``g6.24xlarge``, ``Standard_NC24ads_A100_v4``)
INSTANCE_LABELS = (
    "node.kubernetes.io/instance-type",
    "beta.kubernetes.io/instance-type",
    "karpenter.k8s.aws/instance-type",
)


def instance_label_fact(
    out: Facts, key: str, values: list[tuple[str, Span]], where: str, *, instance_key: bool = False
) -> bool:
    """An instance-type label: the GPU and the GPUs per node from the instance table
    (:mod:`vlint.hardware.instances`) when every value is a listed instance with the same GPU
    (``instance_gpu_count`` when they also agree on the count), else a raw ``gpu_label`` unless the
    value is exactly a GPU name of the catalog. The GPU name inside an instance name is never read
    loosely. ``False`` when the key is not an instance-type label (``instance_key``: it is one, a
    field such as KAITO's ``resource.instanceType``)."""
    if key in FAMILY_LABELS:
        return _family_label_fact(out, key, values, where)
    if key not in INSTANCE_LABELS and not instance_key:
        return False
    from vlint.hardware.gpus import exact_gpu
    from vlint.hardware.instances import instance

    if not values:
        return True
    first, span = values[0]
    found = [instance(v) for v, _ in values]
    if all(found) and len({i.gpu.name for i in found if i is not None}) == 1:
        one = found[0]
        assert one is not None
        how = f"{where} {key}={first}: {one.describe()}"
        out.setdefault("gpu_type", one.gpu.name, span, how)
        out.setdefault("instance_type", first, span, how)
        if len({i.count for i in found if i is not None}) == 1:
            out.setdefault("instance_gpu_count", one.count, span, how)
        return True
    gpus = {exact_gpu(v) for v, _ in values}
    if None not in gpus and len({g.name for g in gpus if g is not None}) == 1:
        out.setdefault("gpu_type", first, span, f"{where} {key}={first}")
    else:
        out.setdefault("gpu_label", ",".join(v for v, _ in values), span, f"{where} {key}")
    return True


def _family_label_fact(out: Facts, key: str, values: list[tuple[str, Span]], where: str) -> bool:
    """An instance-family label (Karpenter's ``karpenter.k8s.aws/instance-family: g4dn``,
    https://karpenter.sh/docs/reference/instance-types/): the GPU when every instance type the table
    lists for each family carries the same one (``g4dn`` → T4); how many per node is not known (it
    differs across the family's sizes). Else the raw ``gpu_label``."""
    from vlint.hardware.instances import family_gpu

    if not values:
        return True
    found = [family_gpu(v) for v, _ in values]
    first, span = values[0]
    one = found[0]
    if one is not None and all(found) and len({f[0].name for f in found if f is not None}) == 1:
        gpu, names, source = one
        shown = ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
        how = f"{where} {key}={first}: every {first} instance type ({shown}) carries {gpu.name}"
        how += f" (SkyPilot catalog {source})"
        out.setdefault("gpu_type", gpu.name, span, how)
    else:
        out.setdefault("gpu_label", ",".join(v for v, _ in values), span, f"{where} {key}")
    return True


def gpu_label_fact(out: Facts, key: str, values: list[tuple[str, Span]], where: str) -> None:
    """``gpu_type`` when every value names the same GPU of the catalog, else ``gpu_label`` (raw).
    Instance-type labels go through :func:`instance_label_fact`."""
    from vlint.hardware.gpus import lookup_gpu

    if not values or instance_label_fact(out, key, values, where):
        return
    known = {lookup_gpu(v) for v, _ in values}
    first, span = values[0]
    if None not in known and len({g.name for g in known if g is not None}) == 1:
        out.setdefault("gpu_type", first, span, f"{where} {key}={first}")
    else:
        out.setdefault("gpu_label", ",".join(v for v, _ in values), span, f"{where} {key}")


def node_selection_facts(out: Facts, pod: Node | None, lines: LineIndex) -> None:
    """GPU type from ``nodeSelector`` and node affinity terms (``matchExpressions`` with ``In``)."""
    selector = [(str(k.value), v) for k, v in pairs(get(pod, "nodeSelector"))]
    for key, v in sorted(selector, key=lambda kv: _label_rank(kv[0])):
        text = scalar(v)
        if text and label_is_gpu(key):
            gpu_label_fact(out, key, [(text, lines.node_span(v))], "nodeSelector")
    affinity = get(pod, "affinity", "nodeAffinity")
    terms = items(get(affinity, "requiredDuringSchedulingIgnoredDuringExecution", "nodeSelectorTerms"))
    terms += [get(p, "preference") for p in items(get(affinity, "preferredDuringSchedulingIgnoredDuringExecution"))]
    exprs = [e for t in terms for e in items(get(t, "matchExpressions"))]
    for e in sorted(exprs, key=lambda e: _label_rank(scalar(get(e, "key")) or "")):
        key = scalar(get(e, "key")) or ""
        if not label_is_gpu(key) or (scalar(get(e, "operator")) or "In") != "In":
            continue
        vals = [(scalar(v) or "", lines.node_span(v)) for v in items(get(e, "values"))]
        gpu_label_fact(out, key, [(t, s) for t, s in vals if t], "nodeAffinity")
    required = items(get(affinity, "requiredDuringSchedulingIgnoredDuringExecution", "nodeSelectorTerms"))
    driver_facts(out, selector, required if len(required) == 1 else [], lines)


#: GPU feature discovery's node labels that name the node's NVIDIA driver and the CUDA version it supports
#: (NVIDIA/k8s-device-plugin, GFD: ``nvidia.com/cuda.driver.*`` and their newer ``cuda.driver-version.*`` names)
DRIVER_LABELS = {
    "nvidia.com/cuda.driver.major": ("driver", 0),
    "nvidia.com/cuda.driver-version.major": ("driver", 0),
    "nvidia.com/cuda.driver.minor": ("driver", 1),
    "nvidia.com/cuda.driver-version.minor": ("driver", 1),
    "nvidia.com/cuda.driver.rev": ("driver", 2),
    "nvidia.com/cuda.driver-version.revision": ("driver", 2),
    "nvidia.com/cuda.runtime.major": ("cuda", 0),
    "nvidia.com/cuda.runtime-version.major": ("cuda", 0),
    "nvidia.com/cuda.runtime.minor": ("cuda", 1),
    "nvidia.com/cuda.runtime-version.minor": ("cuda", 1),
}
DRIVER_FULL_LABELS = {"nvidia.com/cuda.driver-version.full": "driver", "nvidia.com/cuda.runtime-version.full": "cuda"}


def driver_facts(out: Facts, selector: list[tuple[str, Node]], terms: list[Node | None], lines: LineIndex) -> None:
    """``node_driver`` / ``node_driver_cuda``: the highest NVIDIA driver (``"535.104.05"``, ``"535"``: any 535.x)
    and driver CUDA version (``"12.2"``) every node the pod may run on has, from ``nodeSelector`` and the one
    required node affinity term (``In`` takes the highest value, ``Lt N`` is N-1; ``Gt``, ``NotIn``, ``Exists``,
    preferred terms and several ORed terms bound nothing). Nothing is set where no label bounds them."""
    # (kind, part) -> (highest allowed value, its span, where); a part bounded twice keeps the lower bound
    bound: dict[tuple[str, int], tuple[int, Span, str]] = {}
    exact: set[tuple[str, int]] = set()

    def put(kind: str, part: int, value: int, span: Span, where: str, is_exact: bool) -> None:
        slot = (kind, part)
        if slot not in bound or value < bound[slot][0]:
            bound[slot] = (value, span, where)
        if is_exact:
            exact.add(slot)

    def full(kind: str, text: str, span: Span, where: str) -> None:
        parts = text.split(".")
        if all(p.isdigit() for p in parts):
            for i, p in enumerate(parts[:3]):
                put(kind, i, int(p), span, where, True)

    for key, v in selector:
        text = (scalar(v) or "").strip()
        where = f"nodeSelector {key}={text}"
        if key in DRIVER_FULL_LABELS:
            full(DRIVER_FULL_LABELS[key], text, lines.node_span(v), where)
        elif key in DRIVER_LABELS and text.isdigit():
            put(*DRIVER_LABELS[key], int(text), lines.node_span(v), where, True)
    for e in [e for t in terms for e in items(get(t, "matchExpressions"))]:
        key = scalar(get(e, "key")) or ""
        op = scalar(get(e, "operator")) or ""
        vals = [(scalar(v) or "", v) for v in items(get(e, "values"))]
        if (key not in DRIVER_LABELS and key not in DRIVER_FULL_LABELS) or not vals:
            continue
        where = f"nodeAffinity {key} {op} {','.join(t for t, _ in vals)}"
        if op == "In" and key in DRIVER_FULL_LABELS and len(vals) == 1:
            full(DRIVER_FULL_LABELS[key], vals[0][0], lines.node_span(vals[0][1]), where)
        elif op == "In" and key in DRIVER_LABELS and all(t.isdigit() for t, _ in vals):
            top, node = max(((int(t), n) for t, n in vals), key=lambda tn: tn[0])
            put(*DRIVER_LABELS[key], top, lines.node_span(node), where, len(vals) == 1)
        elif op == "Lt" and key in DRIVER_LABELS and len(vals) == 1 and vals[0][0].isdigit():
            put(*DRIVER_LABELS[key], int(vals[0][0]) - 1, lines.node_span(vals[0][1]), where, False)
    for kind, name in (("driver", "node_driver"), ("cuda", "node_driver_cuda")):
        if (kind, 0) not in bound:
            continue
        parts = [bound[(kind, 0)][0]]
        # a lower part bounds the version only while every higher part is one exact value
        for i in (1, 2):
            if (kind, i - 1) not in exact or (kind, i) not in bound:
                break
            parts.append(bound[(kind, i)][0])
        _, span, where = bound[(kind, 0)]
        wheres = sorted({bound[(kind, i)][2] for i in range(len(parts))})
        value = ".".join(str(p) if i < 2 else f"{p:02d}" for i, p in enumerate(parts))
        out.setdefault(name, value, span, "; ".join(wheres))


def _label_rank(key: str) -> int:
    return GPU_LABELS.index(key) if key in GPU_LABELS else len(GPU_LABELS)


@record(slots=True)
class Volume:
    name: str
    span: Span
    medium_memory: bool = False
    size_limit: str | None = None
    size_span: Span | None = None
    kind: str = "other"
    #: the storage the volume mounts, as a URI (``gs://bucket`` for a Cloud Storage FUSE volume), else ""
    storage: str = ""


#: CSI drivers that mount object storage: driver → (URI scheme, how users name the volume). Cloud Storage
#: FUSE names its bucket in ``volumeAttributes.bucketName`` (cloud.google.com/kubernetes-engine/docs/how-to/
#: persistent-volumes/cloud-storage-fuse-csi-driver-ephemeral: driver gcsfuse.csi.storage.gke.io)
_STORAGE_DRIVERS = {"gcsfuse.csi.storage.gke.io": ("gs", "Cloud Storage FUSE")}


def read_volumes(pod: Node | None, lines: LineIndex) -> dict[str, Volume]:
    out: dict[str, Volume] = {}
    for v in items(get(pod, "volumes")):
        name = scalar(get(v, "name"))
        if not name:
            continue
        vol = Volume(name, lines.node_span(v))
        driver = _STORAGE_DRIVERS.get(scalar(get(v, "csi", "driver")) or "")
        bucket = scalar(get(v, "csi", "volumeAttributes", "bucketName"))
        if driver is not None and bucket:
            vol.kind, vol.storage = driver[1], f"{driver[0]}://{bucket}"
        empty = get(v, "emptyDir")
        if empty is not None:
            vol.kind = "emptyDir"
            vol.medium_memory = (scalar(get(empty, "medium")) or "") == "Memory"
            size = get(empty, "sizeLimit")
            if scalar(size):
                vol.size_limit = scalar(size)
                vol.size_span = lines.node_span(size)
        out[name] = vol
    return out


def storage_facts(out: Facts, container: Node | None, volumes: dict[str, Volume], lines: LineIndex) -> None:
    """``storage_mounts``: the container's paths that mount object storage (``/gcs-mount`` from a Cloud
    Storage FUSE volume), as (mount path, storage URI, how) — a model read below one is in that storage,
    which vlint does not read (:mod:`vlint.launch.memory_status` says so)."""
    found: list[tuple[str, str, str]] = []
    first: Span | None = None
    for m in items(get(container, "volumeMounts")):
        vol = volumes.get(scalar(get(m, "name")) or "")
        path = (scalar(get(m, "mountPath")) or "").rstrip("/")
        if vol is None or not vol.storage or not path.startswith("/"):
            continue
        sub = (scalar(get(m, "subPath")) or "").strip("/")
        found.append((path, vol.storage + (f"/{sub}" if sub else ""), f"volume {vol.name} ({vol.kind}) at {path}"))
        first = first or lines.node_span(m)
    if found:
        out.set("storage_mounts", tuple(found), first, "volumeMounts of object storage")


def shm_facts(out: Facts, container: Node | None, volumes: dict[str, Volume], lines: LineIndex) -> None:
    """``shm_mounted`` (is anything mounted at /dev/shm), ``shm_medium`` and ``shm_size`` (sizeLimit)."""
    for m in items(get(container, "volumeMounts")):
        path = (scalar(get(m, "mountPath")) or "").rstrip("/")
        if path != "/dev/shm":
            continue
        span = lines.node_span(m)
        vol = volumes.get(scalar(get(m, "name")) or "")
        out.set("shm_mounted", True, span, "volumeMount at /dev/shm")
        if vol is None:
            return
        out.set("shm_medium", "Memory" if vol.medium_memory else vol.kind, vol.span, f"volume {vol.name}")
        if vol.size_limit:
            out.set("shm_size", vol.size_limit, vol.size_span, f"emptyDir sizeLimit of volume {vol.name}")
        elif vol.medium_memory:
            out.set("shm_size", "unlimited", vol.span, f"emptyDir medium Memory without sizeLimit ({vol.name})")
        return
    out.setdefault("shm_mounted", False, None, "no volume mounted at /dev/shm")


def suppress_fact(out: Facts, metadata_nodes: list[Node | None], lines: LineIndex, where: str) -> None:
    """The ``vlint.dev/disable`` annotation (codes to suppress), for the suppression feature."""
    codes: list[str] = []
    span: Span | None = None
    for meta in metadata_nodes:
        node = get(meta, "annotations", "vlint.dev/disable")
        text = scalar(node)
        if text and node is not None:
            codes.extend(c.strip() for c in re.split(r"[,\s]+", text) if c.strip())
            span = span or lines.node_span(node)
    if codes and span is not None:
        out.set("suppress", ",".join(dict.fromkeys(codes)), span, f"vlint.dev/disable annotation on {where}")


# -- argv → launches ---------------------------------------------------------------------------
@record(slots=True)
class LaunchContext:
    """What a source knows around one container when it turns the argv into launches."""

    source: str
    label: str
    lines: LineIndex
    base_dir: Path
    read_file: ReadFile
    env: dict[str, EnvVar]
    facts: Facts
    image: str | None = None
    image_span: Span | None = None
    #: argv words vlint cannot see will be appended at run time (KServe runtime + ISVC args)
    opaque: bool = False


def text_list(node: Node | None, lines: LineIndex) -> list[MappedText]:
    """A ``command``/``args`` value: a list of scalars, or one scalar."""
    if isinstance(node, ScalarNode):
        return [] if node.tag == "tag:yaml.org,2002:null" else [scalar_text(node, lines)]
    return [scalar_text(n, lines) for n in items(node) if isinstance(n, ScalarNode)]


def shell_script(argv: list[MappedText]) -> MappedText | None:
    """The script of ``sh -c SCRIPT`` / ``bash -exc SCRIPT`` / ``/bin/bash -lc -- SCRIPT``."""
    if not argv or argv[0].text.rsplit("/", 1)[-1] not in _SHELLS:
        return None
    i = 1
    has_c = False
    while i < len(argv) and argv[i].text.startswith("-") and argv[i].text not in ("-", "--"):
        flag = argv[i].text
        if not flag.startswith("--") and "c" in flag[1:]:
            has_c = True
        i += 1
    if i < len(argv) and argv[i].text == "--":
        i += 1
    if not has_c or i >= len(argv):
        return None
    return argv[i]


#: interpreters a container's command runs a script file with
_INTERPRETERS = _SHELLS | {"python", "python3"}


def image_script(argv: list[MappedText]) -> str | None:
    """The script file inside the image a container's command runs (``python3 /root/scripts/launcher.py
    --flag``, ``/entrypoint.sh``: an absolute path), as written with its interpreter; None for anything
    else (``sh -c``, ``-m module``, a program on the PATH, a relative path). Such a file is the image's:
    vlint cannot read it."""
    words = [w.text for w in argv]
    if not words:
        return None
    i = 0
    if words[0].rsplit("/", 1)[-1] in _INTERPRETERS:
        i = 1
        while i < len(words) and words[i].startswith("-") and words[i] not in ("-c", "-m"):
            i += 1
        if i >= len(words) or words[i] in ("-c", "-m"):
            return None
    script = words[i]
    if "$" in script or not script.endswith((".py", ".sh")) or not script.startswith("/"):
        return None  # a relative path may be the repository's (the shell source reads those it can)
    return " ".join(words[: i + 1])


def launches(argv: list[MappedText], ctx: LaunchContext, result: SourceResult) -> list[Invocation]:
    """The vLLM launches a container's argv (``command + args``) starts."""
    if not argv:
        return []
    script = shell_script(argv)
    if script is not None:
        return _run_shell(script, ctx, result, exec_form=False)
    # exec form: no shell is involved; quote each word so the shell source sees exactly this argv
    return _run_shell(_quoted(argv), ctx, result, exec_form=True)


def _quoted(argv: list[MappedText]) -> MappedText:
    out: MappedText | None = None
    for word in argv:
        piece = _quote_word(word)
        if out is None:
            out = piece
        else:
            space = MappedText(" ", [out.offsets[-1] if out.offsets else word.anchor], word.lines, word.anchor)
            out = out + space + piece
    assert out is not None
    return out


def _quote_word(word: MappedText) -> MappedText:
    first = word.offsets[0] if word.offsets else word.anchor
    last = word.offsets[-1] if word.offsets else word.anchor
    chars: list[str] = ["'"]
    offs: list[int] = [first]
    for ch, off in zip(word.text, word.offsets, strict=True):
        piece = "'\"'\"'" if ch == "'" else ch
        chars.append(piece)
        offs.extend([off] * len(piece))
    chars.append("'")
    offs.append(last)
    return MappedText("".join(chars), offs, word.lines, word.anchor)


def _shell_env(env: dict[str, EnvVar]) -> dict[str, Var]:
    return {name: Var(v.value, exported=True) for name, v in env.items()}


def _run_shell(text: MappedText, ctx: LaunchContext, result: SourceResult, *, exec_form: bool) -> list[Invocation]:
    sub = shell.extract_from_text(
        text.text,
        text.posmap(),
        base_dir=ctx.base_dir,
        read_file=ctx.read_file,
        env=_shell_env(ctx.env),
        source=ctx.source,
    )
    if sub.error is not None and result.error is None and not has_template(text.text):
        result.error = sub.error
    if not exec_form:
        result.assignments.extend(sub.assignments)
    result.linked.extend(sub.linked)
    out = []
    for inv in sub.invocations:
        if exec_form:
            inv.args = [_mark_placeholder(t) for t in inv.args]
        finish(inv, ctx)
        out.append(inv)
    return out


def _mark_placeholder(tok: Token) -> Token:
    if tok.unresolved or not (has_placeholder(tok.text) or "$(" in tok.text):
        return tok
    return Token(tok.text, tok.span, True)


def image_launch(args: list[MappedText], ctx: LaunchContext) -> Invocation | None:
    """``args`` only: the image's default entrypoint runs them (``vllm serve`` for vllm-openai)."""
    ref = parse_image(ctx.image) if ctx.image else None
    program = default_entrypoint(ref) if ref is not None else None
    if program is None and ref is not None and ref.is_vllm and args and args[0].text.startswith("--"):
        program = "image"  # named like vLLM and given vLLM flags: its entrypoint is the server
    if program is None and looks_like_vllm_args([a.text for a in args]):
        program = "image"  # an image vlint does not know (or none: a patch) given vLLM's flags
    if program is None:
        return None
    anchor = ctx.image_span or (args[0].span() if args else ctx.lines.span(0, 0))
    inv = Invocation(source=ctx.source, program=program, span=anchor)
    inv.facts["image_entrypoint"] = Fact(program, None, "the image's own entry point runs the arguments")
    inv.args = [_mark_placeholder(a.token()) for a in args]
    if args and (args[0].text == "serve" or (len(args) > 1 and args[0].text == "vllm" and args[1].text == "serve")):
        ctx.facts.set("duplicate_serve", True, args[0].span(), "arguments repeat the image's entrypoint")
    finish(inv, ctx)
    return inv


#: options only an LLM engine takes (``--host``/``--port`` alone say nothing)
_DISTINCT_OPTIONS = {
    "--model",
    "--max-model-len",
    "--tensor-parallel-size",
    "--pipeline-parallel-size",
    "--gpu-memory-utilization",
    "--served-model-name",
    "--max-num-seqs",
    "--max-num-batched-tokens",
    "--kv-cache-dtype",
    "--enforce-eager",
    "--quantization",
}


def looks_like_vllm_args(words: list[str]) -> bool:
    """Mostly vLLM option names, one of them an engine option: an argv for an image vlint does not
    know (``intel/…:1.20``, ``${VLLM_IMAGE}``, a kustomize patch without ``image``) is vLLM's."""
    from vlint.argspec.history import is_known_option

    names = [w.split("=", 1)[0].replace("_", "-") for w in words if w.startswith("--")]
    known = [n for n in names if is_known_option(n)]
    return len(known) >= 2 and len(known) / len(names) >= 0.75 and any(n in _DISTINCT_OPTIONS for n in known)


def finish(inv: Invocation, ctx: LaunchContext) -> None:
    """Attach the container's environment, facts and label to a launch."""
    inv.source = ctx.source
    inv.label = ctx.label
    inv.opaque_args = inv.opaque_args or ctx.opaque
    for name, var in ctx.env.items():
        current = inv.env.get(name)
        # the shell source gave container variables the launch's span: use the env entry's own
        if current is None or current.text == (var.value if var.value is not None else "$" + name):
            inv.env[name] = var.token
    for name, fact in ctx.facts.facts.items():
        inv.facts.setdefault(name, fact)


# -- KubeAI ------------------------------------------------------------------------------------
_KUBEAI_GPU_PROFILE = lazy_compile(r"^(nvidia|amd)-gpu-(.+)$")


def kubeai_launch(
    name: str, spec: Node, ctx: LaunchContext, *, name_span: Span, where: str = "KubeAI Model"
) -> Invocation | None:
    """A KubeAI ``Model`` (or a catalog entry of its models chart) with ``engine: VLLM``.

    KubeAI runs ``python3 -m vllm.entrypoints.openai.api_server --model=<hf repo>
    --served-model-name=<name>`` followed by ``spec.args``, with ``spec.env`` and a ``/dev/shm``
    memory volume (substratusai/kubeai internal/modelcontroller/engine_vllm.go, vLLMPodForModel).
    ``resourceProfile: nvidia-gpu-l4:2`` means 2× the profile's resources (one GPU per unit in the
    default profiles: "nvidia-gpu-l4:2 - 2x NVIDIA L4 GPUs", api/v1/model_types.go).
    """
    lines = ctx.lines
    engine = scalar(get(spec, "engine"))
    if engine is not None and engine.lower() != "vllm":
        return None
    url_node = get(spec, "url")
    url = scalar(url_node) or ""
    if url_node is None:
        return None
    url_mt = scalar_text(url_node, lines) if isinstance(url_node, ScalarNode) else MappedText("", [], lines)
    # pvc://, s3://, gs://…: loaded from a cache path vlint cannot see
    model = url_mt.slice(5, len(url_mt.text)) if url.startswith("hf://") else url_mt
    model_tok = model.token(unresolved=not url.startswith("hf://"))
    read_env(get(spec, "env"), lines, ctx.env)
    inv = Invocation(source=ctx.source, program="api_server", span=model_tok.span)
    inv.args = [
        Token("--model", model_tok.span),
        model_tok,
        Token("--served-model-name", name_span),
        Token(name, name_span),
    ]
    inv.args += [_mark_placeholder(a.token()) for a in text_list(get(spec, "args"), lines)]
    ctx.facts.set("shm_mounted", True, None, f"{where}: KubeAI mounts a memory emptyDir at /dev/shm")
    ctx.facts.set("shm_size", "unlimited", None, "KubeAI dshm volume has no sizeLimit")
    profile = get(spec, "resourceProfile")
    text = scalar(profile)
    if text and profile is not None:
        pname, _, mult = text.partition(":")
        span = lines.node_span(profile)
        m = _KUBEAI_GPU_PROFILE.match(pname)
        if m and mult.strip().isdigit():
            ctx.facts.set("gpu_count", int(mult), span, f"resourceProfile {text}")
            ctx.facts.set("gpu_resource", f"{m.group(1)}.com/gpu", span, "resourceProfile")
            gpu_label_fact(ctx.facts, "resourceProfile", [(m.group(2), span)], where)
        ctx.facts.set("resource_profile", text, span, where)
    finish(inv, ctx)
    return inv


def iter_pod_specs(
    node: Node, path: tuple[str, ...] = (), depth: int = 0, seen: set[int] | None = None
) -> Iterator[tuple[Node, tuple[str, ...]]]:
    """Every pod-spec-like mapping (one with a ``containers`` list) below ``node``, with its key path.
    Each node is visited once, so aliases (``*ref``) cannot make the walk explode."""
    seen = set() if seen is None else seen
    if depth > 40 or id(node) in seen:
        return
    seen.add(id(node))
    if isinstance(node, MappingNode):
        cont = mapping_get(node, "containers")
        if isinstance(cont, SequenceNode) and any(isinstance(c, MappingNode) for c in cont.value):
            yield node, path
        for k, v in merged_items(node):
            if isinstance(k, ScalarNode) and k.value != "containers":
                yield from iter_pod_specs(v, (*path, str(k.value)), depth + 1, seen)
    elif isinstance(node, SequenceNode):
        for i, v in enumerate(node.value):
            yield from iter_pod_specs(v, (*path, f"[{i}]"), depth + 1, seen)

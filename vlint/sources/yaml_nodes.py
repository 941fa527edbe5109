"""Safe YAML loading that keeps node positions.

Files are composed into PyYAML node trees with the C loader when available (marks give line and
column of every key and value). Nodes are converted to Python values by :func:`to_python` with
bounded work: aliases are followed at most ``MAX_ALIAS_EXPANSIONS`` times in total and nesting is
capped, so a "billion laughs" document costs nothing. Only the YAML core schema is resolved
(``!!python/object`` and other tags are never constructed: their node is read as plain data).
"""

from __future__ import annotations

import re

import yaml

from vlint.core.lazy_re import lazy_compile
from vlint.core.span import Span
from vlint.core.typing_names import Any
from vlint.sources.base import SourceError

try:
    _Base: type = yaml.CSafeLoader
except AttributeError:  # pragma: no cover - PyYAML built without libyaml
    _Base = yaml.SafeLoader

#: implicit tags by (node kind, value, implicit): libyaml composes in C but resolves each scalar's tag in
#: Python (PyYAML's BaseResolver.resolve, its regular expressions); a file repeats the same keys and
#: values, and the answer depends on nothing else (the safe loader has no path resolvers)
_TAGS: dict[tuple[Any, Any, Any], str] = {}


class _Loader(_Base):  # type: ignore[misc, valid-type]
    def resolve(self, kind: Any, value: Any, implicit: Any) -> str:
        key = (kind, value, implicit)
        tag = _TAGS.get(key)
        if tag is None:
            tag = super().resolve(kind, value, implicit)
            if len(_TAGS) >= 8192:
                _TAGS.clear()
            _TAGS[key] = tag
        return tag


MAX_DEPTH = 200
MAX_ALIAS_EXPANSIONS = 10_000
MAX_NODES = 2_000_000

Node = yaml.Node
MappingNode = yaml.MappingNode
SequenceNode = yaml.SequenceNode
ScalarNode = yaml.ScalarNode


#: the last text composed and its documents (or error): a file's sniffer and its source, or two
#: sniffers, parse the same text one after the other (the nodes are never modified)
_last: tuple[str, str, list[Node] | SourceError] | None = None


def compose_all(text: str, path: str) -> list[Node]:
    """Compose every document of ``text``; raise :class:`SourceError` with the line on bad YAML."""
    global _last
    if _last is not None and _last[1] == path and _last[0] == text:
        hit = _last[2]
        if isinstance(hit, SourceError):
            raise SourceError(hit.message, hit.line, hit.column)
        return list(hit)
    try:
        docs: list[Node] | SourceError = _compose_all(text, path)
    except SourceError as e:
        docs = e
    _last = (text, path, docs)
    if isinstance(docs, SourceError):
        raise SourceError(docs.message, docs.line, docs.column)
    return list(docs)


#: YAML with more nodes than this is not composed: PyYAML builds a Python object per node (about
#: 350 bytes and up to 30 µs each with vlint's checks), so a 10 MiB file of short flow sequences
#: would take 1.2 GB and two minutes. Real launch files have hundreds of nodes; a rendered chart
#: with CRDs, tens of thousands.
MAX_COMPOSED_NODES = 250_000


def estimated_nodes(text: str) -> int:
    """An upper-bound-ish count of a YAML text's nodes from its separators (lines, commas, colons)."""
    return text.count("\n") + text.count(",") + text.count(": ")


def _compose_all(text: str, path: str) -> list[Node]:
    if len(text) > MAX_COMPOSED_NODES and estimated_nodes(text) > MAX_COMPOSED_NODES:
        raise SourceError(
            f"YAML too large to read: about {estimated_nodes(text):,} nodes, over the limit of {MAX_COMPOSED_NODES:,}"
        )
    try:
        docs = [d for d in yaml.compose_all(text, Loader=_Loader) if d is not None]
        if not _shallow(text):
            _check_depth(docs)
        return docs
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        line = mark.line + 1 if mark is not None else None
        col = mark.column + 1 if mark is not None else None
        problem = e.problem or "invalid YAML"
        if "maximum nesting depth" in problem:
            # libyaml ≥ 0.2.6 stops at its own nesting limit (1000), well past ours: same verdict
            raise SourceError(f"YAML nested deeper than {MAX_DEPTH} levels", line, col) from None
        ctx = f" ({e.context})" if e.context else ""
        raise SourceError(f"invalid YAML: {problem}{ctx}", line, col) from None
    except yaml.YAMLError as e:
        raise SourceError(f"invalid YAML: {e}") from None
    except RecursionError:
        raise SourceError(f"YAML nesting deeper than Python can read in {path}") from None


_INDENT = lazy_compile(r"^[ \t]*", re.M)


def _shallow(text: str) -> bool:
    """Whether the text cannot nest ``MAX_DEPTH`` levels (then :func:`_check_depth` need not walk it):
    without aliases (``*``) the tree is the text's own nesting, and every level is an indentation step, a
    sequence or complex-key indicator (``- ``, ``? ``) or a flow bracket — counted over the whole text."""
    if "*" in text:
        return False
    steps = text.count("[") + text.count("{")
    for mark in ("- ", "-\n", "-\t", "? ", "?\n", "?\t"):
        steps += text.count(mark)
    if steps >= MAX_DEPTH:
        return False
    indent = max(map(len, _INDENT.findall(text)), default=0)
    return steps + indent + 2 < MAX_DEPTH


def _check_depth(docs: list[Node]) -> None:
    """Refuse documents nested deeper than ``MAX_DEPTH`` and aliases that contain themselves
    (``&a [*a]``): libyaml composes both, and sources walk the tree recursively. The depth counts
    through aliases (anchors referring to anchors nest too); each node is measured once."""
    height: dict[int, int] = {}
    for doc in docs:
        stack: list[tuple[Node, bool]] = [(doc, False)]
        open_: set[int] = set()
        while stack:
            node, done = stack.pop()
            key = id(node)
            if isinstance(node, ScalarNode) or (key in height and not done):
                continue
            children = [c for kv in node.value for c in kv] if isinstance(node, MappingNode) else node.value
            if done:
                open_.discard(key)
                h = 1 + max((height.get(id(c), 1) for c in children), default=0)
                if h > MAX_DEPTH:
                    mark = node.start_mark
                    raise SourceError(f"YAML nested deeper than {MAX_DEPTH} levels", mark.line + 1, mark.column + 1)
                height[key] = h
                continue
            if key in open_:
                mark = node.start_mark
                raise SourceError(
                    f"YAML nested deeper than {MAX_DEPTH} levels: an alias inside the node it refers to (a cycle)",
                    mark.line + 1,
                    mark.column + 1,
                )
            open_.add(key)
            stack.append((node, True))
            stack.extend((c, False) for c in children if not isinstance(c, ScalarNode) and id(c) not in height)


def node_span(node: Node, path: str) -> Span:
    s, e = node.start_mark, node.end_mark
    return Span(path, s.line + 1, s.column + 1, e.line + 1, e.column + 1)


_BOOL_TRUE = {"true", "True", "TRUE", "yes", "Yes", "YES", "on", "On", "ON", "y", "Y"}
_BOOL_FALSE = {"false", "False", "FALSE", "no", "No", "NO", "off", "Off", "OFF", "n", "N"}


def scalar_value(node: ScalarNode) -> Any:
    """The value of a scalar by the YAML 1.1 resolver PyYAML's SafeLoader uses (plain scalars only)."""
    tag = node.tag
    v = node.value
    if tag == "tag:yaml.org,2002:bool":
        if v in _BOOL_TRUE:
            return True
        if v in _BOOL_FALSE:
            return False
    if tag == "tag:yaml.org,2002:null":
        return None
    if tag == "tag:yaml.org,2002:int":
        try:
            return _yaml_int(v)
        except ValueError:
            return v
    if tag == "tag:yaml.org,2002:float":
        try:
            return _yaml_float(v)
        except ValueError:
            return v
    return v


def _yaml_int(v: str) -> int:
    s = v.replace("_", "")
    sign = -1 if s.startswith("-") else 1
    s = s.lstrip("+-")
    if s.startswith("0b"):
        return sign * int(s[2:], 2)
    if s.startswith("0x"):
        return sign * int(s[2:], 16)
    if s.startswith("0o"):
        return sign * int(s[2:], 8)
    if ":" in s:  # sexagesimal
        total = 0
        for part in s.split(":"):
            total = total * 60 + int(part)
        return sign * total
    if len(s) > 1 and s.startswith("0"):
        return sign * int(s, 8)
    return sign * int(s)


def _yaml_float(v: str) -> float:
    s = v.replace("_", "").lower()
    if s in (".inf", "+.inf"):
        return float("inf")
    if s == "-.inf":
        return float("-inf")
    if s == ".nan":
        return float("nan")
    return float(s)


class _Budget:
    def __init__(self) -> None:
        self.aliases = 0
        self.nodes = 0
        self.seen: dict[int, int] = {}


def to_python(node: Node, *, _budget: _Budget | None = None, _depth: int = 0) -> Any:
    """Convert a node tree to Python data with bounded work (raises SourceError past the limits)."""
    b = _budget or _Budget()
    b.nodes += 1
    if b.nodes > MAX_NODES:
        raise SourceError(f"YAML document too large (more than {MAX_NODES} nodes after aliases)")
    if _depth > MAX_DEPTH:
        raise SourceError(f"YAML nested deeper than {MAX_DEPTH} levels")
    key = id(node)
    if key in b.seen:
        b.aliases += 1
        if b.aliases > MAX_ALIAS_EXPANSIONS:
            raise SourceError(f"YAML uses aliases more than {MAX_ALIAS_EXPANSIONS} times (alias bomb?)")
    b.seen[key] = b.seen.get(key, 0) + 1
    if isinstance(node, ScalarNode):
        return scalar_value(node)
    if isinstance(node, SequenceNode):
        return [to_python(n, _budget=b, _depth=_depth + 1) for n in node.value]
    if isinstance(node, MappingNode):
        out: dict[Any, Any] = {}
        for k, v in merged_items(node):
            kv = to_python(k, _budget=b, _depth=_depth + 1)
            if isinstance(kv, list | dict):
                kv = str(kv)
            out[kv] = to_python(v, _budget=b, _depth=_depth + 1)
        return out
    return None


def merged_items(node: MappingNode, _depth: int = 0) -> list[tuple[Node, Node]]:
    """Key/value node pairs of a mapping with ``<<`` merge keys applied (explicit keys win)."""
    own: list[tuple[Node, Node]] = []
    merged: list[tuple[Node, Node]] = []
    for k, v in node.value:
        if isinstance(k, ScalarNode) and k.tag == "tag:yaml.org,2002:merge":
            sources = v.value if isinstance(v, SequenceNode) else [v]
            for src in sources:
                if isinstance(src, MappingNode) and _depth < 20:
                    merged.extend(merged_items(src, _depth + 1))
        else:
            own.append((k, v))
    if not merged:
        return own
    own_keys = {k.value for k, _ in own if isinstance(k, ScalarNode)}
    seen: set[str] = set()
    result = list(own)
    for k, v in merged:
        if isinstance(k, ScalarNode) and (k.value in own_keys or k.value in seen):
            continue
        if isinstance(k, ScalarNode):
            seen.add(k.value)
        result.append((k, v))
    return result


def mapping_get(node: Node, key: str) -> Node | None:
    """The value node for ``key`` in a mapping node (merge keys applied), or None."""
    if not isinstance(node, MappingNode):
        return None
    for k, v in merged_items(node):
        if isinstance(k, ScalarNode) and k.value == key:
            return v
    return None


def first_key(node: Node | None, *keys: str) -> Node | None:
    """The key node, of ``keys``, written first in a mapping (merge keys applied), or None: where a
    launch held under ``command:``/``args:`` starts as written."""
    if not isinstance(node, MappingNode):
        return None
    found = [k for k, _ in merged_items(node) if isinstance(k, ScalarNode) and k.value in keys]
    return min(found, key=lambda k: (k.start_mark.line, k.start_mark.column)) if found else None

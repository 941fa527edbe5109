"""A chart's templates read **without rendering**, for when ``helm`` is not on PATH or rendering is off.

A chart folder (``Chart.yaml``, ``values.yaml``, ``templates/``) is one unit. Each template that is
not a helper (``_*.tpl``) is turned into the manifest Helm would print, but only as far as its
template actions are plain:

* ``{{ .Values.a.b }}`` (also ``$.Values…``, ``.Chart.Name``/``.Chart.AppVersion`` from ``Chart.yaml``),
  piped through ``quote``, ``squote``, ``toString``, ``default X``, ``toYaml``, ``indent N``,
  ``nindent N``; a missing value prints nothing (Helm removes ``<no value>``); numbers print as Go's
  ``%v`` of a float64, as Helm does (:func:`vlint.sources.kube.helm.go_value`);
* ``{{ if … }}``/``{{ else }}``/``{{ end }}`` over such values with ``not``, ``and``, ``or``, ``eq``, ``ne``;
  ``{{ range .Values.x }}`` (``{{ . }}`` and ``{{ .k }}`` inside), ``{{ with .Values.x }}``;
* the ``{{-``/``-}}`` whitespace trimming of Go's text/template.

Anything else (``include``, ``.Release``, ``tpl``, a condition over something else) stays as its
``{{ … }}`` text, which the sources keep as an *unresolved* word (never a guess), or, for a block,
is left out and counted. Each character of the result keeps where it came from: a value's characters
point at the values file line that set it, the rest at the template, so findings land where the user
fixes them. The manifest is then read like any other (:mod:`vlint.sources.kube.kubernetes`) and each
launch's label says it was read without rendering.
"""

from __future__ import annotations

import re

from vlint.core.invocation import Fact
from vlint.core.lazy_re import lazy_compile
from vlint.core.record import field, record
from vlint.core.span import Span
from vlint.core.typing_names import Any
from vlint.sources.base import ReadFile, SourceResult, SourceText
from vlint.sources.kube.k8s_common import LineIndex, MappedText, compose_documents, get, scalar, scalar_text
from vlint.sources.yaml_nodes import MappingNode, Node, ScalarNode, SequenceNode

#: output characters of one template (a runaway range stays bounded)
_MAX_OUT = 2_000_000
#: template nodes visited for one template (nested ranges that print nothing stay bounded too)
_MAX_STEPS = 200_000
_ACTION = lazy_compile(r"\{\{(-\s)?(.*?)(\s-)?\}\}", re.DOTALL)
_WORD = lazy_compile(r'"(?:[^"\\]|\\.)*"|`[^`]*`|\S+')
#: pipelines that print a block of YAML (left out when unknown: their text would not be YAML)
_BLOCK_OUTPUT = lazy_compile(r"\b(n?indent|toYaml|toJson)\b")
_PATH = lazy_compile(r"^\$?(\.[A-Za-z_][\w-]*)*$|^\.$|^\$$")


class _Unknown(Exception):
    """An expression or block outside the plain forms: kept as its text (inline) or left out (block)."""


_MISSING = object()


@record(slots=True)
class _Val:
    """A value: a values-file node (with its lines), or a plain string (from Chart.yaml or a literal)."""

    node: Node | None = None
    lines: LineIndex | None = None
    text: str | None = None
    #: the characters of ``text`` mapped (a literal or a printed value)
    mapped: MappedText | None = None
    #: the same key in the values files below (``values.yaml`` under a ``-f`` file): Helm merges mappings
    under: list[_Val] = field(default_factory=list)

    @property
    def missing(self) -> bool:
        return self.node is None and self.text is None

    def truthy(self) -> bool:
        if self.node is not None:
            n = self.node
            if isinstance(n, ScalarNode):
                if n.tag == "tag:yaml.org,2002:null":
                    return False
                v = str(n.value)
                if n.tag == "tag:yaml.org,2002:bool":
                    return v.lower() in ("true", "yes", "on", "y")
                if n.tag in ("tag:yaml.org,2002:int", "tag:yaml.org,2002:float"):
                    try:
                        return float(v.replace("_", "")) != 0
                    except ValueError:
                        return True
                return v != ""
            return bool(n.value)
        return bool(self.text)


@record(slots=True)
class _Out:
    """The output text, each character with the file and offset it came from."""

    tpl: LineIndex
    chars: list[str] = field(default_factory=list)
    origin: list[tuple[LineIndex, int]] = field(default_factory=list)
    #: per character, the template offset that wrote it (the action, for a value)
    via: list[int] = field(default_factory=list)
    #: the action being printed
    at: int = 0

    def add(self, text: str, lines: LineIndex, offsets: list[int] | int) -> None:
        if len(self.chars) + len(text) > _MAX_OUT:
            raise _Unknown("output too large")
        for k, ch in enumerate(text):
            self.chars.append(ch)
            off = offsets if isinstance(offsets, int) else offsets[min(k, len(offsets) - 1)] if offsets else 0
            self.origin.append((lines, off))
            self.via.append(off if lines is self.tpl else self.at)

    def add_mapped(self, mt: MappedText) -> None:
        self.add(mt.text, mt.lines, mt.offsets or mt.anchor)

    def line_so_far(self) -> str:
        i = len(self.chars)
        while i > 0 and self.chars[i - 1] != "\n":
            i -= 1
        return "".join(self.chars[i:])


@record(slots=True)
class Reading:
    """A template read without rendering: the manifest text and where each character came from."""

    text: str
    origin: list[tuple[LineIndex, int]]
    via: list[int]
    tpl: LineIndex
    #: template lines of actions kept as text or blocks left out
    unresolved: list[int] = field(default_factory=list)

    def template_line(self, rendered: LineIndex, s: Span) -> int:
        """The template line that wrote the start of a span of the manifest text."""
        if not self.via:
            return 1
        a = min(len(self.via) - 1, rendered.offset(s.line - 1, s.column - 1))
        return self.tpl.pos(self.via[a])[0]

    def span(self, rendered: LineIndex, s: Span) -> Span:
        """A span in the manifest text as a span in the template or values file."""
        if not self.origin:
            return s
        a = min(len(self.origin) - 1, rendered.offset(s.line - 1, s.column - 1))
        b = min(len(self.origin), rendered.offset(s.end_line - 1, s.end_column - 1))
        lines, start = self.origin[a]
        end = start + 1
        if b > a:
            lines_b, last = self.origin[b - 1]
            if lines_b is lines and last >= start:
                end = last + 1
        return lines.span(start, end)


@record(slots=True)
class SetValues:
    """Values given on a ``helm install|upgrade|template`` command line (``--set a.b=c``), as a
    values document whose scalars sit on the script's characters (:mod:`vlint.sources.render.helm_set`)."""

    root: Node
    lines: LineIndex
    #: ``deploy.sh:12``, for the launch's label
    where: str


# -- parsing ------------------------------------------------------------------------------------------
@record(slots=True)
class _Node:
    kind: str  # text | action | if | range | with | skip
    start: int = 0
    end: int = 0
    expr: str = ""
    #: if: [(condition, body)], a last condition "" is the else; range/with: [(expr, body), ("", else)]
    branches: list[tuple[str, list[_Node]]] = field(default_factory=list)


def _parse(text: str) -> list[_Node]:
    """The template as text and actions, Go's trim markers applied, blocks nested."""
    # [kind, start, end, expr, trim before, trim after]
    items: list[list[Any]] = []
    pos = 0
    for m in _ACTION.finditer(text):
        items.append(["text", pos, m.start(), "", False, False])
        items.append(["action", m.start(), m.end(), m.group(2).strip(), bool(m.group(1)), bool(m.group(3))])
        pos = m.end()
    items.append(["text", pos, len(text), "", False, False])
    # trimming: an action's `{{- ` eats the whitespace before it, ` -}}` the whitespace after it
    for i, it in enumerate(items):
        if it[0] != "action":
            continue
        if it[4] and i > 0:
            prev = items[i - 1]
            while prev[2] > prev[1] and text[prev[2] - 1].isspace():
                prev[2] -= 1
        if it[5] and i + 1 < len(items):
            nxt = items[i + 1]
            while nxt[1] < nxt[2] and text[nxt[1]].isspace():
                nxt[1] += 1
    root: list[_Node] = []
    stack: list[_Node] = []
    cur = root

    def body() -> list[_Node]:
        return stack[-1].branches[-1][1] if stack else root

    for kind, start, end, expr, _, _ in items:
        cur = body()
        if kind == "text":
            if end > start:
                cur.append(_Node("text", start, end))
            continue
        if expr.startswith("/*"):
            continue
        word = expr.split(None, 1)[0] if expr else ""
        rest = expr[len(word) :].strip()
        if word in ("if", "range", "with"):
            node = _Node(word, start, end, rest, [(rest, [])])
            cur.append(node)
            stack.append(node)
        elif word in ("define", "block"):
            node = _Node("skip", start, end, expr, [("", [])])
            cur.append(node)
            stack.append(node)
        elif word == "else":
            if not stack:
                raise _Unknown("else outside a block")
            cond = rest[3:].strip() if rest.startswith("if ") or rest == "if" else ""
            if rest and not cond:
                # `else with …`: another form
                stack[-1].kind = "skip"
            stack[-1].branches.append((cond, []))
        elif word == "end":
            if not stack:
                raise _Unknown("end outside a block")
            stack.pop()
        else:
            cur.append(_Node("action", start, end, expr))
    if stack:
        raise _Unknown("unclosed block")
    return root


# -- evaluation ---------------------------------------------------------------------------------------
@record(slots=True)
class _Scope:
    #: the values files, the one that wins first: (document root, lines)
    values: list[tuple[Node | None, LineIndex]]
    chart: dict[str, str]
    dot: _Val | None = None  # None: the root context
    #: no values file is known at all (a template outside any chart): every .Values is unknown, not empty
    values_unknown: bool = False


class _Reader:
    def __init__(self, tpl: LineIndex, scope: _Scope) -> None:
        self.tpl = tpl
        self.text = tpl.text
        self.scope = scope
        self.out = _Out(tpl)
        self.unresolved: list[int] = []
        #: the action being read (literal text maps to it)
        self.at = 0
        self.steps = 0
        #: where a quote opened before an unresolved action closes (the end of its line), or -1
        self.close_at = -1

    def line(self, off: int) -> int:
        return self.tpl.pos(off)[0]

    def step(self) -> None:
        self.steps += 1
        if self.steps > _MAX_STEPS:
            raise _Unknown("too many steps")

    def run(self, nodes: list[_Node], dot: _Val | None) -> None:
        self.step()
        for n in nodes:
            self.step()
            if n.kind == "text":
                if n.start <= self.close_at < n.end:
                    # the quote keep() opened before an unresolved action closes at the end of its line
                    c, self.close_at = self.close_at, -1
                    self.out.add(self.text[n.start : c], self.tpl, list(range(n.start, c)))
                    self.out.add('"', self.tpl, max(n.start, c - 1))
                    self.out.add(self.text[c : n.end], self.tpl, list(range(c, n.end)))
                else:
                    self.out.add(self.text[n.start : n.end], self.tpl, list(range(n.start, n.end)))
            elif n.kind == "action":
                self.action(n, dot)
            elif n.kind == "skip":
                if not n.expr.startswith("define"):
                    self.unresolved.append(self.line(n.start))
            elif n.kind == "if":
                self.if_(n, dot)
            else:
                self.loop(n, dot)

    def action(self, n: _Node, dot: _Val | None) -> None:
        self.at = self.out.at = n.start
        if re.match(r"^\$?\w+\s*:?=", n.expr):
            self.unresolved.append(self.line(n.start))  # a variable: not followed
            return
        try:
            val = self.pipeline(n.expr, dot)
        except _Unknown:
            self.unresolved.append(self.line(n.start))
            if not _BLOCK_OUTPUT.search(n.expr):  # a block of YAML nobody knows: left out
                self.keep(n)
            return
        self.print(val, n.start)

    def keep(self, n: _Node) -> None:
        """An inline action kept as its text; quoted where it would start a YAML value (``- {{ x }}``
        would read as a flow mapping), so the word stays, unresolved."""
        raw = self.text[n.start : n.end]
        offs = list(range(n.start, n.end))
        after = self.text[n.end : n.end + 1]
        starts = re.fullmatch(r"\s*(-\s+)*([^\s#'\"{][^#]*:\s+)?", self.out.line_so_far())
        eol = self.text.find("\n", n.end)
        rest = self.text[n.end : eol if eol >= 0 else len(self.text)].rstrip("\r")
        if starts and (after in ("", "\n", " ", "\r")) and '"' not in raw:
            self.out.add('"', self.tpl, n.start)
            self.out.add(raw, self.tpl, offs)
            self.out.add('"', self.tpl, n.end - 1)
        elif starts and rest and eol >= 0 and '"' not in raw and not re.search(r"[\"'#{}]", rest):
            # the action starts a plain value the line goes on with (`name: {{ .Release.Name }}-vllm`): the
            # value quoted to the end of the line, so that it stays one (unresolved) word, not a flow mapping
            self.out.add('"', self.tpl, n.start)
            self.out.add(raw, self.tpl, offs)
            self.close_at = eol - 1 if self.text[eol - 1 : eol] == "\r" else eol
        else:
            self.out.add(raw, self.tpl, offs)

    def print(self, val: _Val, at: int) -> None:
        if val.mapped is not None:
            self.out.add_mapped(val.mapped)
        elif val.text is not None:
            self.out.add(val.text, self.tpl, at)
        elif isinstance(val.node, ScalarNode) and val.lines is not None:
            self.out.add_mapped(_scalar(val.node, val.lines))
        elif val.node is not None:
            raise _Unknown("a list or mapping printed as Go prints it")

    def if_(self, n: _Node, dot: _Val | None) -> None:
        for cond, body in n.branches:
            try:
                hit = True if cond == "" and body is not n.branches[0][1] else self.pipeline(cond, dot).truthy()
            except _Unknown:
                self.unresolved.append(self.line(n.start))
                return
            if hit:
                self.run(body, dot)
                return

    def loop(self, n: _Node, dot: _Val | None) -> None:
        expr = n.branches[0][0]
        try:
            val = self.pipeline(expr, dot)
        except _Unknown:
            self.unresolved.append(self.line(n.start))
            return
        other = n.branches[1][1] if len(n.branches) > 1 else []
        if not val.truthy():
            self.run(other, dot)
            return
        if n.kind == "with":
            self.run(n.branches[0][1], val)
            return
        node = val.node
        if val.under:
            self.unresolved.append(self.line(n.start))  # a mapping two values files merge
            return
        if isinstance(node, SequenceNode):
            elems = list(node.value)
        elif isinstance(node, MappingNode):
            elems = [v for _, v in sorted(node.value, key=lambda kv: str(kv[0].value))]
        else:
            self.unresolved.append(self.line(n.start))
            return
        for e in elems:
            self.run(n.branches[0][1], _Val(e, val.lines))

    # -- pipelines
    def pipeline(self, expr: str, dot: _Val | None) -> _Val:
        if "(" in expr or ")" in expr:
            raise _Unknown(expr)
        val: _Val | None = None
        for i, cmd in enumerate(_split_pipe(expr)):
            words = _WORD.findall(cmd)
            if not words:
                raise _Unknown(expr)
            val = self.command(words, dot, val if i else None, piped=i > 0)
        if val is None:
            raise _Unknown(expr)
        return val

    def command(self, words: list[str], dot: _Val | None, piped_in: _Val | None, *, piped: bool) -> _Val:
        head, args = words[0], words[1:]
        if not piped and len(words) == 1 and not head.isidentifier():
            return self.term(head, dot)
        vals = [self.term(a, dot) for a in args]
        if piped_in is not None:
            vals.append(piped_in)
        if head in ("quote", "squote") and len(vals) == 1:
            q = '"' if head == "quote" else "'"
            inner = self.mapped(vals[0])
            if inner is None:
                return _Val(text=q + q)
            first = inner.offsets[0] if inner.offsets else inner.anchor
            mark = MappedText(q, [first], inner.lines)
            return _Val(text="", mapped=mark + inner + mark)
        if head == "toString" and len(vals) == 1:
            return vals[0]
        if head == "default" and len(vals) == 2:
            return vals[1] if vals[1].truthy() else vals[0]
        if head == "required" and len(vals) == 2:
            return vals[1]
        if head == "not" and len(vals) == 1:
            return _Val(text="true" if not vals[0].truthy() else "")
        if head in ("and", "or") and vals:
            hits = [v.truthy() for v in vals]
            return _Val(text="true" if (all(hits) if head == "and" else any(hits)) else "")
        if head in ("eq", "ne") and len(vals) == 2:
            a, b = (self.plain(v) for v in vals)
            return _Val(text="true" if (a == b) == (head == "eq") else "")
        if head == "toYaml" and len(vals) == 1:
            return self.to_yaml(vals[0])
        if head in ("indent", "nindent") and len(vals) == 2:
            n = self.plain(vals[0])
            if not n.isdigit():
                raise _Unknown(head)
            return self.indent(vals[1], int(n), newline=head == "nindent")
        raise _Unknown(head)

    def term(self, word: str, dot: _Val | None) -> _Val:
        if word.startswith('"') and word.endswith('"') and len(word) >= 2:
            return _Val(text=bytes(word[1:-1], "utf-8").decode("unicode_escape"))
        if word.startswith("`") and word.endswith("`") and len(word) >= 2:
            return _Val(text=word[1:-1])
        if re.fullmatch(r"-?\d+(\.\d+)?", word) or word in ("true", "false"):
            return _Val(text=word if word != "false" else "")
        if not _PATH.match(word):
            raise _Unknown(word)
        parts = [p for p in word.lstrip("$").split(".") if p]
        if word.startswith("$") or dot is None:
            return self.root(parts)
        return _descend(dot, parts)

    def root(self, parts: list[str]) -> _Val:
        if not parts:
            raise _Unknown("the root context")
        if parts[0] == "Values":
            if self.scope.values_unknown:
                raise _Unknown(".".join(parts))
            if not self.scope.values:
                return _Val()
            (top, lines), *below = self.scope.values
            return _descend(_Val(top, lines, under=[_Val(n, ln) for n, ln in below]), parts[1:])
        if parts[0] == "Chart" and len(parts) == 2 and parts[1] in self.scope.chart:
            return _Val(text=self.scope.chart[parts[1]])
        raise _Unknown(".".join(parts))

    def mapped(self, val: _Val) -> MappedText | None:
        if val.mapped is not None:
            return val.mapped
        if isinstance(val.node, ScalarNode) and val.lines is not None:
            return _scalar(val.node, val.lines)
        if val.node is not None:
            raise _Unknown("a list or mapping")
        if val.text:
            return MappedText(val.text, [self.at] * len(val.text), self.tpl)
        return None

    def plain(self, val: _Val) -> str:
        mt = self.mapped(val)
        return mt.text if mt is not None else ""

    def to_yaml(self, val: _Val) -> _Val:
        node, lines = val.node, val.lines
        if node is None or lines is None:
            return _Val(text="null") if val.missing else _Val(text=val.text)
        if isinstance(node, ScalarNode):
            return _Val(mapped=_scalar(node, lines))
        if val.under:
            raise _Unknown("a mapping two values files merge")
        start = lines.offset(node.start_mark.line, node.start_mark.column)
        end = lines.offset(node.end_mark.line, node.end_mark.column)
        raw = lines.text[start:end].rstrip()
        col = node.start_mark.column
        parts: list[MappedText] = []
        pos = start
        for k, ln in enumerate(raw.split("\n")):
            cut = 0 if k == 0 else min(col, len(ln) - len(ln.lstrip(" ")))
            if k:
                parts.append(MappedText("\n", [pos - 1], lines))
            seg = ln[cut:]
            parts.append(MappedText(seg, list(range(pos + cut, pos + cut + len(seg))), lines))
            pos += len(ln) + 1
        out = parts[0]
        for p in parts[1:]:
            out = out + p
        return _Val(mapped=out)

    def indent(self, val: _Val, n: int, *, newline: bool) -> _Val:
        mt = self.mapped(val)
        if mt is None:
            return _Val(text="\n" if newline else "")
        first = mt.offsets[0] if mt.offsets else mt.anchor
        pad = " " * n
        pieces: list[MappedText] = [MappedText("\n", [first], mt.lines)] if newline else []
        pos = 0
        for k, ln in enumerate(mt.text.split("\n")):
            if k:
                pieces.append(MappedText("\n", [mt.offsets[pos - 1] if pos else first], mt.lines))
            pieces.append(MappedText(pad, [first] * n, mt.lines))
            pieces.append(mt.slice(pos, pos + len(ln)))
            pos += len(ln) + 1
        out = pieces[0]
        for p in pieces[1:]:
            out = out + p
        return _Val(mapped=out)


def _scalar(node: ScalarNode, lines: LineIndex) -> MappedText:
    from vlint.sources.kube.helm import go_value

    mt = scalar_text(node, lines)
    if node.tag == "tag:yaml.org,2002:null":
        return MappedText("", [], lines, lines.offset(node.start_mark.line, node.start_mark.column))
    text = go_value(node)
    if text == mt.text:
        return mt
    at = lines.offset(node.start_mark.line, node.start_mark.column)
    return MappedText(text, [at] * len(text), lines)


def _descend(val: _Val, parts: list[str]) -> _Val:
    """The value at ``parts`` below ``val``: the first values file that sets it (a ``null`` there
    removes the key, as Helm's merge does), with the same key of the files below it kept for mappings."""
    found = [_descend_one(v, parts) for v in (val, *val.under)]
    for i, v in enumerate(found):
        if v.node is None:
            continue
        if isinstance(v.node, ScalarNode) and v.node.tag == "tag:yaml.org,2002:null":
            return _Val()
        rest = [w for w in found[i + 1 :] if isinstance(w.node, MappingNode)]
        return _Val(v.node, v.lines, under=rest if isinstance(v.node, MappingNode) else [])
    return _Val()


def _descend_one(val: _Val, parts: list[str]) -> _Val:
    node = val.node
    for p in parts:
        if node is None:
            return _Val()
        if not isinstance(node, MappingNode):
            if isinstance(node, ScalarNode) and node.tag == "tag:yaml.org,2002:null":
                return _Val()
            raise _Unknown(p)  # a field of a string: Go fails the render
        node = get(node, p)
    return _Val(node, val.lines) if node is not None else _Val()


def _split_pipe(expr: str) -> list[str]:
    out, cur, quote = [], [], ""
    for ch in expr:
        if quote:
            cur.append(ch)
            if ch == quote:
                quote = ""
        elif ch in '"`':
            quote = ch
            cur.append(ch)
        elif ch == "|":
            out.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
    out.append("".join(cur).strip())
    return out


# -- the chart ---------------------------------------------------------------------------------------
def read_template(
    template: SourceText,
    values: list[SourceText | tuple[SourceText, str] | SetValues],
    chart: dict[str, str],
    *,
    values_unknown: bool = False,
) -> Reading | None:
    """The template as Helm would print it with ``values`` (the ``-f`` file first, then ``values.yaml``;
    a (file, key) pair is the part of a parent chart's values for this subchart), as far as it is
    plain; None when its block structure is not one vlint follows."""
    tpl = LineIndex(template.path, template.text)
    roots: list[tuple[Node | None, LineIndex]] = []
    for entry in values:
        if isinstance(entry, SetValues):
            roots.append((entry.root, entry.lines))
            continue
        v, key = entry if isinstance(entry, tuple) else (entry, "")
        docs = compose_documents(v.text, v.path)
        root = docs.nodes[0] if docs.nodes else None
        if key:
            root = get(root, key) if isinstance(root, MappingNode) else None
        roots.append((root, LineIndex(v.path, v.text)))
    try:
        nodes = _parse(template.text)
        reader = _Reader(tpl, _Scope(roots, chart, values_unknown=values_unknown))
        reader.run(nodes, None)
    except _Unknown:
        return None
    except RecursionError:
        return None
    out = reader.out
    return Reading("".join(out.chars), out.origin, out.via, tpl, sorted(set(reader.unresolved)))


def chart_facts(chart_yaml: SourceText | None) -> dict[str, str]:
    """``.Chart.Name``/``.Chart.Version``/``.Chart.AppVersion`` from ``Chart.yaml``."""
    if chart_yaml is None:
        return {}
    docs = compose_documents(chart_yaml.text, chart_yaml.path)
    root = docs.nodes[0] if docs.nodes else None
    out = {}
    for key, name in (("name", "Name"), ("version", "Version"), ("appVersion", "AppVersion")):
        v = scalar(get(root, key)) if isinstance(root, MappingNode) else None
        if v is not None:
            out[name] = str(v).strip()
    return out


def launches(
    template: SourceText,
    values: list[SourceText | tuple[SourceText, str] | SetValues],
    chart_yaml: SourceText | None,
    read_file: ReadFile,
    why: str,
    with_values: str = "",
    *,
    values_unknown: bool = False,
) -> SourceResult:
    """The launches of one template read without rendering with ``values`` (the winning file first),
    spans in the template and values files; each launch's label says so (and ``with_values``, the
    ``-f`` file), and names the template lines left unresolved."""
    from vlint.sources.kube import kubernetes
    from vlint.sources.render.mapping import remap_result

    result = SourceResult()
    reading = read_template(template, values, chart_facts(chart_yaml), values_unknown=values_unknown)
    if reading is None or "vllm" not in reading.text.lower():
        return result
    virtual = f"\x00unrendered:{template.path}"
    rendered = SourceText(virtual, template.abspath, reading.text)
    found = kubernetes.extract(rendered, read_file)
    if not found.invocations:
        return result
    rlines = LineIndex(virtual, reading.text)
    found_args: dict[int, list[Span]] = {}
    out = remap_result(found, lambda s: reading.span(rlines, s) if s.path == virtual else s)
    for before, after in zip(found.invocations, out.invocations, strict=True):
        found_args[id(after)] = [before.span, *(t.span for t in before.args)]
    out.problems = [p for p in out.problems if p.code != "VL604"]
    out.error = None
    for inv in out.invocations:
        # an action left out between the first and last word of the command line may have added words
        at = [reading.template_line(rlines, sp) for sp in found_args[id(inv)] if sp.path == virtual]
        among = [n for n in reading.unresolved if at and min(at) <= n <= max(at) + 1]
        inv.opaque_args = inv.opaque_args or bool(among)
        left = ""
        if among:
            shown = ", ".join(str(n) for n in among[:5]) + ("…" if len(among) > 5 else "")
            left = f"; template actions among its words left unresolved at line(s) {shown}"
        elsewhere = len(reading.unresolved) - len(among)
        if elsewhere:
            left += f"; {elsewhere} other template action(s) of the file left unresolved"
        inv.label = f"{inv.label} (read without rendering{with_values}: {why}{left})"
        # what helm would make of the template's other logic is not known: errors on it are warnings
        inv.facts["read_unrendered"] = Fact(why, None, "the chart's template read without rendering")
    result.invocations = out.invocations
    result.assignments = out.assignments
    result.secret_tokens = out.secret_tokens
    result.problems = out.problems
    result.linked.extend((v[0] if isinstance(v, tuple) else v).abspath for v in values if not isinstance(v, SetValues))
    return result

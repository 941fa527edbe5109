"""Mapping spans in a tool's rendered output back to the files that set each value.

The rendered text is parsed and linted like any other manifest, under a scratch path; every span the
sources put on a launch (argv words, environment, facts, notes) then points into that text. Each
rendered YAML scalar is matched with the source scalar that produced it:

* the candidates are the scalars of the source files with the same value (the text, not the
  spelling: quotes and block styles may differ), each with its key path;
* kustomize (:class:`Origins` with ``later_wins``): the same key path wins, then the later file in
  kustomize's order (a patch over its base), then the same last key;
* Helm: values files in the order ``-f`` gives them (the last one wins), then the chart's
  ``values.yaml``; among several scalars with the value, the one whose key matches the flag or key the
  rendered value sits under (``--max-model-len 8192`` ↔ ``maxModelLen: 8192``); then the literal text
  in the template the document came from (``# Source:``) — a flag the template hard-codes.

Character ``k`` of the rendered value maps to character ``k`` of the source value (they are the same
text), so a finding inside a value (one word of a ``bash -c`` script) keeps its column. A span that
matches nothing points at the fallback (the overlay's ``kustomization.yaml``, the chart's template or
values file) — never at the scratch path.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable

from vlint.core.invocation import ConfigFile, Entry, Fact, Invocation, Problem, Token
from vlint.core.lazy_re import lazy_compile
from vlint.core.record import field, record, replace
from vlint.core.span import Span
from vlint.sources.base import SourceResult
from vlint.sources.kube.k8s_common import LineIndex, MappedText, compose_documents, scalar_text
from vlint.sources.yaml_nodes import MappingNode, Node, ScalarNode, SequenceNode

#: scalars indexed per source file (a values file of a huge chart stays bounded)
_MAX_SCALARS = 200_000
_WORD = lazy_compile(r"[^a-z0-9]")


@record(slots=True)
class _Scalar:
    node: ScalarNode
    lines: LineIndex
    #: key path from the document root (list items as ``[]``, or ``[name=x]`` when they have a name)
    path: tuple[str, ...]
    #: the key this value sits under, or the flag before it in a list (``--max-model-len``)
    context: str
    #: rank of the file (higher wins a tie)
    rank: int
    #: for YAML held in a string of another file (an inline kustomize patch): that file's lines and,
    #: per character of the inner text, its offset there
    outer: tuple[LineIndex, list[int]] | None = None
    _text: MappedText | None = None

    @property
    def text(self) -> MappedText:
        """The value, each character with its offset in the file it is written in."""
        if self._text is None:
            mt = scalar_text(self.node, self.lines)
            if self.outer is not None:
                lines, offs = self.outer
                mt = MappedText(mt.text, [offs[min(o, len(offs) - 1)] for o in mt.offsets], lines, 0)
            self._text = mt
        return self._text

    @property
    def file_lines(self) -> LineIndex:
        return self.outer[0] if self.outer is not None else self.lines


def _walk(node: Node, lines: LineIndex, rank: int, out: list[_Scalar]) -> None:
    stack: list[tuple[Node, tuple[str, ...], str]] = [(node, (), "")]
    seen: set[int] = set()
    while stack and len(out) < _MAX_SCALARS:
        n, p, c = stack.pop()
        if id(n) in seen:
            continue
        seen.add(id(n))
        if isinstance(n, ScalarNode):
            out.append(_Scalar(n, lines, p, c, rank))
        elif isinstance(n, MappingNode):
            for k, v in n.value:
                if isinstance(k, ScalarNode):
                    out.append(_Scalar(k, lines, (*p, str(k.value)), "", rank))  # keys too: facts span them
                    stack.append((v, (*p, str(k.value)), str(k.value)))
        elif isinstance(n, SequenceNode):
            prev = c
            for item in n.value:
                name = _item_name(item)
                stack.append((item, (*p, f"[name={name}]" if name else "[]"), prev))
                if isinstance(item, ScalarNode) and str(item.value).startswith("--"):
                    prev = str(item.value).split("=", 1)[0]
                elif isinstance(item, ScalarNode):
                    prev = c


def _item_name(item: Node) -> str:
    if isinstance(item, MappingNode):
        for k, v in item.value:
            if isinstance(k, ScalarNode) and k.value == "name" and isinstance(v, ScalarNode):
                return str(v.value)
    return ""


def _words(text: str) -> list[tuple[int, int]]:
    """(start, end) of each run of non-space characters, a flag's ``--name=value`` split at ``=``."""
    out: list[tuple[int, int]] = []
    i, n = 0, len(text)
    while i < n:
        while i < n and text[i].isspace():
            i += 1
        j = i
        while j < n and not text[j].isspace():
            j += 1
        if j > i:
            eq = text.find("=", i, j)
            if text.startswith("-", i) and eq > 0:
                out += [(i, eq), (eq + 1, j)] if eq + 1 < j else [(i, eq)]
            else:
                out.append((i, j))
        i = j
    return out


def _norm(text: str) -> str:
    return _WORD.sub("", text.lower().lstrip("-"))


@record(slots=True)
class Origins:
    """The source scalars a rendered output may have come from."""

    #: kustomize: later files win ties (patches over bases); Helm: the rank is the values file order
    later_wins: bool = True
    by_value: dict[str, list[_Scalar]] = field(default_factory=dict)
    #: template files (path → LineIndex) for the literal search, by the ``# Source:`` name
    templates: dict[str, LineIndex] = field(default_factory=dict)

    def add_yaml(self, path: str, text: str, rank: int) -> None:
        lines = LineIndex(path, text)
        found: list[_Scalar] = []
        for doc in compose_documents(text, path).nodes:
            _walk(doc, lines, rank, found)
        for s in found:
            if s.node.tag.endswith(":null"):
                continue
            self.by_value.setdefault(str(s.node.value), []).append(s)

    def add_embedded(self, outer: MappedText, rank: int) -> None:
        """YAML held in a string of another file (``patch: |`` in a kustomization)."""
        inner = LineIndex(outer.lines.path, outer.text)
        found: list[_Scalar] = []
        for doc in compose_documents(outer.text, outer.lines.path).nodes:
            _walk(doc, inner, rank, found)
        for s in found:
            if not s.node.tag.endswith(":null"):
                s.outer = (outer.lines, outer.offsets)
                self.by_value.setdefault(str(s.node.value), []).append(s)

    def add_template(self, name: str, path: str, text: str) -> None:
        self.templates[name] = LineIndex(path, text)

    def best(self, rendered: _Scalar) -> _Scalar | None:
        cands = self.by_value.get(str(rendered.node.value))
        if not cands:
            return None
        return self.best_of(cands, rendered)

    def best_of(self, cands: list[_Scalar], rendered: _Scalar) -> _Scalar:
        ctx = _norm(rendered.context)

        def score(s: _Scalar) -> tuple[int, int, int, int]:
            same_path = _strip_root(s.path) == _strip_root(rendered.path)
            same_ctx = bool(ctx) and _norm(s.context) == ctx
            same_last = bool(s.path) and bool(rendered.path) and s.path[-1] == rendered.path[-1]
            return (int(same_path), int(same_ctx), int(same_last), s.rank if self.later_wins else -s.rank)

        return max(cands, key=score)


def _strip_root(path: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(p if not p.startswith("[") else "[]" for p in path)


class SpanMapper:
    """Maps spans in the rendered text (``rendered_path``) back to source files."""

    def __init__(self, rendered_path: str, text: str, origins: Origins, fallback: Span) -> None:
        self.path = rendered_path
        self.lines = LineIndex(rendered_path, text)
        self.origins = origins
        self.fallback = fallback
        self.scalars: list[_Scalar] = []
        self._doc_sources: list[tuple[int, str]] = []
        for doc in compose_documents(text, rendered_path).nodes:
            _walk(doc, self.lines, 0, self.scalars)
        self.scalars.sort(key=lambda s: s.node.start_mark.index)
        self._starts = [self.lines.offset(s.node.start_mark.line, s.node.start_mark.column) for s in self.scalars]
        self._ends = [self.lines.offset(s.node.end_mark.line, s.node.end_mark.column) for s in self.scalars]
        self._cache: dict[int, list[tuple[LineIndex, int] | None] | None] = {}
        offset = 0
        for line in text.split("\n"):
            if line.startswith("# Source: "):
                self._doc_sources.append((offset, line[len("# Source: ") :].strip()))
            offset += len(line) + 1

    def _target(self, k: int) -> list[tuple[LineIndex, int] | None] | None:
        """Where each character of rendered scalar ``k``'s value came from (file lines, offset)."""
        if k in self._cache:
            return self._cache[k]
        r = self.scalars[k]
        n = len(r.text.offsets)
        best = self.origins.best(r)
        hit: list[tuple[LineIndex, int] | None] | None = None
        if best is not None and len(best.text.offsets) == n:
            hit = [(best.file_lines, o) for o in best.text.offsets]
        else:
            value = str(r.node.value)
            hit = self._literal(k, value, n) if "\n" not in value.rstrip("\n") else None
            if hit is None:
                hit = self._pieces(k)
        self._cache[k] = hit
        return hit

    def _template_texts(self, k: int) -> list[LineIndex]:
        """The template the document of rendered scalar ``k`` came from (``# Source:``), else all."""
        i = bisect_right([o for o, _ in self._doc_sources], self._starts[k]) - 1
        if i >= 0 and self._doc_sources[i][1] in self.origins.templates:
            return [self.origins.templates[self._doc_sources[i][1]]]
        return list(self.origins.templates.values()) if i < 0 else []

    def _literal(self, k: int, first: str, n: int) -> list[tuple[LineIndex, int] | None] | None:
        """The value's first line written literally in the template the document came from."""
        if not first.strip():
            return None
        for lines in self._template_texts(k):
            at = lines.text.find(first)
            if at >= 0:
                last = at + len(first) - 1
                return [(lines, min(at + j, last)) for j in range(n)]
        return None

    def _pieces(self, k: int) -> list[tuple[LineIndex, int] | None] | None:
        """A value the template builds from pieces (``--max-model-len={{ .Values.len }}``, a script with
        ``{{ .Values.model }}`` in it): each word (and each side of a flag's ``=``) found on its own, as a
        value (under the key that matches the flag before it) or literally in the template."""
        r = self.scalars[k]
        value = r.text.text
        out: list[tuple[LineIndex, int] | None] = [None] * len(value)
        templates = self._template_texts(k)
        flag = r.context
        found = False
        for a, b in _words(value):
            word = value[a:b]
            piece = _Scalar(r.node, r.lines, r.path, flag, 0)
            cands = self.origins.by_value.get(word)
            src: list[tuple[LineIndex, int]] | None = None
            if cands and not word.startswith("-"):
                piece_best = self.origins.best_of(cands, piece)
                if len(piece_best.text.offsets) == b - a:
                    src = [(piece_best.file_lines, o) for o in piece_best.text.offsets]
            if src is None and len(word) >= 3:
                for lines in templates:
                    at = lines.text.find(word)
                    if at >= 0:
                        src = [(lines, at + j) for j in range(b - a)]
                        break
            if src is not None:
                out[a:b] = src
                found = True
            if word.startswith("--"):
                flag = word
            elif not (a and value[a - 1] == "="):
                flag = r.context
        return out if found else None

    def _char(self, offset: int) -> tuple[str, LineIndex, int] | None:
        """Where the rendered character at ``offset`` came from (a character of a scalar's value)."""
        k = bisect_right(self._starts, offset) - 1
        if k < 0 or offset >= max(self._ends[k], self._starts[k] + 1):
            return None
        target = self._target(k)
        value = self.scalars[k].text.offsets
        if target is None or not value:
            return None
        j = min(max(bisect_right(value, offset) - 1, 0), len(target) - 1)
        hit = target[j]
        if hit is None:
            return None
        return hit[0].path, hit[0], hit[1]

    def span(self, span: Span) -> Span:
        if span.path != self.path:
            return span
        a_off = self.lines.offset(span.line - 1, span.column - 1)
        b_off = self.lines.offset(span.end_line - 1, span.end_column - 1)
        start = self._char(a_off)
        last = self._char(b_off - 1) if b_off > a_off else None
        if last is not None and (start is None or start[0] != last[0]) and b_off - a_off <= 4096:
            # a word built from pieces of two files (``--max-model-len=`` of the template, ``300000`` of
            # the values file): the span is the last piece, the value that was set
            first = next(o for o in range(a_off, b_off) if (c := self._char(o)) is not None and c[0] == last[0])
            start = self._char(first)
            assert start is not None
            return last[1].span(start[2], min(max(last[2] + 1, start[2]), len(last[1].text)))
        if start is None:
            return self.fallback
        path, lines, a = start
        b = a
        if b_off > a_off:
            b = last[2] + 1 if last is not None and last[0] == path and last[2] >= a else a + (b_off - a_off)
        return lines.span(a, min(b, len(lines.text)))


# -- applying a span map to what a source found ----------------------------------------------------
def remap_result(result: SourceResult, fn: Callable[[Span], Span]) -> SourceResult:
    """``result`` with every span (launches, assignments, secrets, notes) passed through ``fn``."""
    out = SourceResult()
    out.invocations = [remap_invocation(inv, fn) for inv in result.invocations]
    out.assignments = [(n, _token(t, fn)) for n, t in result.assignments]
    out.secret_tokens = [(n, _token(t, fn), b) for n, t, b in result.secret_tokens]
    out.problems = [_problem(p, fn) for p in result.problems]
    out.linked = list(result.linked)
    out.error = result.error
    return out


def _token(t: Token, fn: Callable[[Span], Span]) -> Token:
    return Token(t.text, fn(t.span), t.unresolved)


def _problem(p: Problem, fn: Callable[[Span], Span]) -> Problem:
    return replace(p, span=fn(p.span))


def _entry(e: Entry, fn: Callable[[Span], Span]) -> Entry:
    return replace(
        e, key_span=fn(e.key_span), value_span=fn(e.value_span), item_spans=tuple(fn(s) for s in e.item_spans)
    )


def remap_invocation(inv: Invocation, fn: Callable[[Span], Span]) -> Invocation:
    config = inv.config
    if config is not None:
        config = ConfigFile(config.path, [_entry(e, fn) for e in config.entries], fn(config.span))
    return replace(
        inv,
        span=fn(inv.span),
        args=[_token(t, fn) for t in inv.args],
        config=config,
        kwargs=[_entry(e, fn) for e in inv.kwargs],
        env={k: _token(t, fn) for k, t in inv.env.items()},
        facts={k: Fact(f.value, fn(f.span), f.detail) if f.span is not None else f for k, f in inv.facts.items()},
        problems=[_problem(p, fn) for p in inv.problems],
    )

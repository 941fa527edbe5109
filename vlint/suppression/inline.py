"""Suppressions: ``# vlint: disable=…`` comments and the ``vlint.dev/disable`` annotation.

- ``# vlint: disable=VL101,VL203 -- reason`` at the end of a line suppresses those rules on that
  line; on a line of its own it suppresses them on the next line that is not a comment. A shell or
  Dockerfile command continued with ``\\`` counts as one line, so a comment above a multi-line
  ``vllm serve … \\`` covers every flag in it.
- ``# vlint: disable-file=VL101`` anywhere in a file suppresses the rule in the whole file.
- Without ``=CODES`` (``# vlint: disable``, ``# vlint: disable-file``) the suppression is *blanket*:
  every rule. VL902 (off by default) reports blanket suppressions, for repositories that want every
  suppression to name its rules; VL903 (off by default) reports suppressions without a reason.
- ``metadata.annotations: {vlint.dev/disable: "VL101,VL203"}`` on a Kubernetes workload suppresses
  them for the launches of that workload (the Kubernetes source passes it as the ``suppress`` fact).

Rules are named by code, code prefix (``VL2``), name or ``ALL`` (the same selectors as ``--select``).
A suppression that suppresses nothing (for a rule that ran), names no rule, or is malformed is
reported as VL901; VL901-VL903 themselves are never suppressed by a comment. Comments are found by
a small scanner of the raw text per format (YAML, shell/Dockerfile/.env, Python via
:mod:`tokenize`) that knows ``#`` inside quotes is not a comment; the sources need not keep
comments. Nothing is executed.
"""

from __future__ import annotations

import io
import re
from collections.abc import Callable, Iterator
from pathlib import Path

from vlint.core.finding import Finding
from vlint.core.invocation import Problem
from vlint.core.lazy_re import lazy_compile
from vlint.core.record import field, record
from vlint.core.span import Span
from vlint.core.typing_names import TYPE_CHECKING

if TYPE_CHECKING:
    from vlint.engine.results import FileResult
    from vlint.engine.runner import Engine
    from vlint.launch.deployment import Deployment
    from vlint.sources.base import SourceText

UNUSED = "VL901"
BLANKET = "VL902"
NO_REASON = "VL903"
#: findings about suppressions are not suppressed by suppressions
NOT_SUPPRESSIBLE = frozenset({UNUSED, BLANKET, NO_REASON})
ANNOTATION = "vlint.dev/disable"

#: ``vlint: disable=A,B -- reason`` after the ``#``
_DIRECTIVE = lazy_compile(r"^#+\s*vlint\s*:\s*(?P<body>.*)$", re.IGNORECASE)
_BODY = lazy_compile(
    r"^(?P<kind>disable-file|disable)(?:\s*=\s*(?P<refs>[A-Za-z0-9_-]+(?:\s*,\s*[A-Za-z0-9_-]+)*)\s*,?)?"
    r"\s*(?:(?:--|#)\s*(?P<reason>.*))?$"
)
_REF = lazy_compile(r"[A-Za-z0-9_-]+")


# -- finding comments -----------------------------------------------------------------------------
@record(frozen=True, slots=True)
class Comment:
    line: int
    #: 1-based column of the ``#``
    column: int
    text: str
    #: nothing but whitespace before it on its line
    own_line: bool


def flavor_of(path: str) -> str:
    name = path.replace("\\", "/").rsplit("/", 1)[-1].lower()
    if name.endswith((".py", ".pyi")):
        return "python"
    if name.endswith((".yaml", ".yml")):
        return "yaml"
    return "shell"  # shell scripts, Dockerfiles, .env files, anything else with # comments


def comment_start(line: str, flavor: str) -> int | None:
    """Offset of the ``#`` that starts a comment on ``line``, if any.

    ``shell``: ``#`` at the start of a word, outside quotes (``a#b``, ``$#``, ``${#x}``, ``'#'`` are
    not comments), backslash escapes. ``yaml``: ``#`` after whitespace, outside a quoted scalar (a
    quote opens one only where a scalar starts). ``python``: ``#`` anywhere outside a string.
    """
    quote = ""
    i, n = 0, len(line)
    while i < n:
        c = line[i]
        if quote:
            if c == "\\" and (quote == '"' or flavor == "python"):
                i += 2
                continue
            if c == quote:
                if flavor == "yaml" and quote == "'" and line[i + 1 : i + 2] == "'":
                    i += 2  # '' inside a single-quoted YAML scalar is one quote
                    continue
                quote = ""
            i += 1
            continue
        prev = line[i - 1] if i else " "
        if c == "#":
            if flavor == "python" or prev in " \t" or (flavor == "shell" and prev in ";|&()"):
                return i
        elif c in "'\"":
            if flavor != "yaml" or prev in " \t[{,:":
                quote = c
        elif c == "\\" and flavor == "shell":
            i += 2
            continue
        i += 1
    return None


def _scan_lines(text: str, flavor: str) -> Iterator[Comment]:
    for no, line in enumerate(text.split("\n"), 1):
        if "#" not in line:
            continue
        at = comment_start(line, flavor)
        if at is not None:
            yield Comment(no, at + 1, line[at:].rstrip(), not line[:at].strip())


def _scan_python(text: str) -> Iterator[Comment]:
    import tokenize  # Python files only: not on the path of a YAML or shell lint

    lines = text.split("\n")
    try:
        tokens = [t for t in tokenize.generate_tokens(io.StringIO(text).readline) if t.type == tokenize.COMMENT]
    except (tokenize.TokenError, SyntaxError):
        # broken Python (the source reports it): the line scanner still finds the comments
        yield from _scan_lines(text, "python")
        return
    for tok in tokens:
        no, col = tok.start
        before = lines[no - 1][:col] if no <= len(lines) else ""
        yield Comment(no, col + 1, tok.string.rstrip(), not before.strip())


def scan_comments(text: str, path: str) -> list[Comment]:
    """Every comment of a file (line, column, text)."""
    flavor = flavor_of(path)
    if flavor == "python":
        return list(_scan_python(text))
    return list(_scan_lines(text, flavor))


# -- directives -----------------------------------------------------------------------------------
#: a selector → the rule codes it names (empty: none): a code or name names one, a prefix or ALL several
Resolver = Callable[[str], "tuple[str, ...] | str | None"]


@record(slots=True)
class Ref:
    text: str
    span: Span
    #: the rule codes it names (empty: no such rule)
    codes: tuple[str, ...]
    used: bool = False

    @property
    def code(self) -> str | None:
        """The one rule a code or name names (None for a prefix or an unknown name)."""
        return self.codes[0] if len(self.codes) == 1 else None

    @property
    def everything(self) -> bool:
        return self.text.upper() == "ALL"


def _codes(resolve: Resolver, text: str) -> tuple[str, ...]:
    hit = resolve(text)
    if hit is None:
        return ()
    return (hit,) if isinstance(hit, str) else tuple(hit)


@record(slots=True)
class Directive:
    kind: str  # "disable" | "disable-file" | "annotation" | "malformed"
    path: str
    line: int
    span: Span
    refs: list[Ref] = field(default_factory=list)
    reason: str = ""
    own_line: bool = False
    #: the lines whose findings it covers ("disable")
    covers: frozenset[int] = frozenset()
    #: names no rules (``# vlint: disable``) or ``ALL``: every rule
    blanket: bool = False
    #: a blanket suppression hid something
    used: bool = False


def parse_directives(text: str, path: str, resolve: Resolver, comments: list[Comment] | None = None) -> list[Directive]:
    """The ``# vlint: …`` directives of one file."""
    if "vlint" not in text.lower():
        return []
    lines = text.split("\n")
    comments = scan_comments(text, path) if comments is None else comments
    comment_lines = {c.line for c in comments if c.own_line}
    out: list[Directive] = []
    for c in comments:
        m = _DIRECTIVE.match(c.text)
        if m is None:
            continue
        span = Span(path, c.line, c.column, c.line, c.column + len(c.text))
        body = m.group("body").strip()
        b = _BODY.match(body)
        if b is None:
            out.append(Directive("malformed", path, c.line, span, reason=body, own_line=c.own_line))
            continue
        body_at = c.column + m.start("body")
        refs = []
        for r in _REF.finditer(b.group("refs") or ""):
            col = body_at + b.start("refs") + r.start()
            where = Span(path, c.line, col, c.line, col + len(r.group(0)))
            refs.append(Ref(r.group(0), where, _codes(resolve, r.group(0))))
        d = Directive(b.group("kind"), path, c.line, span, refs, (b.group("reason") or "").strip(), c.own_line)
        d.blanket = not refs or any(r.everything for r in refs)
        if d.kind == "disable":
            d.covers = frozenset(_covered_lines(lines, c.line, c.own_line, comment_lines))
        out.append(d)
    return out


def _continues(line: str) -> bool:
    """Does a physical line end with a ``\\`` line continuation?"""
    stripped = line.rstrip("\r")
    return stripped.endswith("\\") and not stripped.endswith("\\\\")


def _covered_lines(lines: list[str], line: int, own_line: bool, comment_lines: set[int]) -> list[int]:
    """The physical lines a ``disable`` comment on ``line`` covers: its logical line (``\\``
    continuations), or for a comment on its own line, the next non-comment logical line."""
    n = len(lines)
    start = line
    if own_line:
        start = line + 1
        while start <= n and (start in comment_lines or not lines[start - 1].strip()):
            if not lines[start - 1].strip():
                return []  # a blank line ends the comment block: the comment covers nothing
            start += 1
        if start > n:
            return []
    else:
        while start > 1 and _continues(lines[start - 2]):
            start -= 1
    end = start
    while end < n and _continues(lines[end - 1]):
        end += 1
    return list(range(start, end + 1))


def parse_annotation(value: str, span: Span | None, path: str, resolve: Resolver) -> Directive:
    """The ``vlint.dev/disable`` annotation's value: ``"VL101,VL203"``, ``"VL1 -- reason"``, ``"ALL"``."""
    where = span or Span(path, 1, 1)
    codes, _, reason = str(value).partition("--")
    refs = [Ref(r, where, _codes(resolve, r)) for r in _REF.findall(codes)]
    if not refs:
        return Directive("malformed", where.path, where.line, where, reason=str(value))
    d = Directive("annotation", where.path, where.line, where, refs, reason.strip(" ,"))
    d.blanket = any(r.everything for r in refs)
    return d


# -- applying them --------------------------------------------------------------------------------
@record(slots=True)
class _Scope:
    """An annotation and what it covers: the findings of its launches."""

    directive: Directive
    contexts: set[str]
    path: str
    lines: tuple[int, int]


def _deployment_lines(dep: Deployment) -> tuple[int, int]:
    inv = dep.invocation
    spans = [inv.span, *(t.span for t in inv.args), *(t.span for t in inv.env.values())]
    spans += [f.span for f in inv.facts.values() if f.span is not None]
    same = [s for s in spans if s.path == inv.span.path]
    return min(s.line for s in same), max(s.end_line for s in same)


def _annotation_scopes(results: list[FileResult], resolver: Callable[[str], Resolver]) -> list[_Scope]:
    from vlint.engine.runner import describe

    by_span: dict[tuple[str, int, int], _Scope] = {}
    for fr in results:
        for dep in fr.deployments:
            fact = dep.invocation.facts.get("suppress")
            if fact is None or fact.value in (None, ""):
                continue
            value = ",".join(map(str, fact.value)) if isinstance(fact.value, list | tuple) else str(fact.value)
            d = parse_annotation(value, fact.span, dep.invocation.path, resolver(dep.invocation.path))
            key = (d.span.path, d.span.line, d.span.column)
            lo, hi = _deployment_lines(dep)
            scope = by_span.get(key)
            if scope is None:
                by_span[key] = _Scope(d, {describe(dep)}, dep.invocation.path, (lo, hi))
            else:
                scope.contexts.add(describe(dep))
                scope.lines = (min(scope.lines[0], lo), max(scope.lines[1], hi))
    return list(by_span.values())


def _use(directive: Directive, code: str) -> bool:
    """Does ``directive`` suppress ``code``? (Marks what it used.)"""
    hit = False
    for r in directive.refs:
        if code in r.codes:
            r.used = True
            hit = True
    if not directive.refs:  # blanket: every rule
        directive.used = hit = True
    return hit


def _suppressed_by(f: Finding, line_dirs: list[Directive], scopes: list[_Scope], file_dirs: list[Directive]) -> bool:
    for d in line_dirs:
        if f.span.line in d.covers and _use(d, f.code):
            return True
    for s in scopes:
        inside = f.context in s.contexts or (
            not f.context and f.span.path == s.path and s.lines[0] <= f.span.line <= s.lines[1]
        )
        if inside and _use(s.directive, f.code):
            return True
    return any(_use(d, f.code) for d in file_dirs)


def _unused(directives: list[Directive], engine_of: Callable[[str], Engine]) -> Iterator[Problem]:
    """VL901 for suppressions that are malformed, name no rule, or suppressed nothing in this run."""
    for d in directives:
        engine = engine_of(d.path)
        where = "annotation" if d.kind == "annotation" else "comment"
        if d.kind == "malformed":
            yield Problem(
                "VL901",
                d.span,
                f"malformed vlint {where} ({d.reason!r}): write `# vlint: disable=VL101 -- reason` or "
                "`# vlint: disable-file=VL101`; it suppresses nothing",
                {"directive": d.kind, "reason": "malformed"},
            )
            continue
        what = "in this file" if d.kind == "disable-file" else "here"
        if d.kind == "annotation":
            what = "in this workload"
        if not d.refs:
            if not d.used:
                yield Problem(
                    "VL901",
                    d.span,
                    f"unused blanket suppression: no finding is reported {what}; remove the {where}",
                    {"directive": d.kind, "ref": "", "reason": "unused"},
                )
            continue
        for r in d.refs:
            if not r.codes:
                yield Problem(
                    "VL901",
                    r.span,
                    f"suppression names {r.text!r}, which is no vlint rule (`vlint rules` lists them)",
                    {"directive": d.kind, "ref": r.text, "reason": "unknown-rule"},
                )
            elif not r.used and any(c in engine.active_codes and c not in NOT_SUPPRESSIBLE for c in r.codes):
                data = {"directive": d.kind, "ref": r.text, "reason": "unused"}
                if r.code is not None:
                    data["code"] = r.code
                yield Problem(
                    "VL901",
                    r.span,
                    f"unused suppression: {r.text} reports nothing {what}; remove it from the {where}",
                    data,
                )


def _policy(directives: list[Directive]) -> Iterator[Problem]:
    """VL902 (blanket suppressions) and VL903 (suppressions without a reason): off by default."""
    for d in directives:
        if d.kind == "malformed":
            continue
        where = "annotation" if d.kind == "annotation" else "comment"
        if d.blanket:
            example = '`vlint.dev/disable: "VL101"`' if d.kind == "annotation" else f"`# vlint: {d.kind}=VL101`"
            yield Problem(
                "VL902",
                d.span,
                f"blanket suppression: this {where} hides every rule; name the rules it is for, e.g. {example}",
                {"directive": d.kind},
            )
        if not d.reason:
            names = ",".join(r.text for r in d.refs)
            if d.kind == "annotation":
                example = f'vlint.dev/disable: "{names} -- the benchmark needs it"'
            else:
                example = f"# vlint: {d.kind}{'=' + names if names else ''} -- the benchmark needs it"
            yield Problem(
                "VL903",
                d.span,
                f"suppression without a reason: say why after `--`, e.g. `{example}`",
                {"directive": d.kind},
            )


def apply_suppressions(
    results: list[FileResult],
    engine: Engine,
    read: Callable[[Path], SourceText],
    root: Path,
    *,
    engine_for: Callable[[str], Engine] | None = None,
) -> list[Finding]:
    """Drop suppressed findings from each file's findings, add VL901 for suppressions that did not
    suppress anything; return the suppressed findings. ``engine_for`` gives each file's engine (its
    configuration's rules) by display path; default ``engine`` for all."""
    from vlint.sources.base import SourceError

    def engine_of(path: str) -> Engine:
        return engine_for(path) if engine_for is not None else engine

    def resolver(path: str) -> Resolver:
        catalog = engine_of(path).catalog

        def resolve(ref: str) -> tuple[str, ...]:
            return tuple(r.code for r in catalog.resolve_selector(ref))

        return resolve

    owner: dict[str, FileResult] = {}
    for fr in results:
        for f in fr.findings:
            owner.setdefault(f.span.path, fr)
    for fr in results:
        owner[fr.path] = fr
    directives: dict[str, list[Directive]] = {}
    for path, fr in owner.items():
        if fr.error is not None and fr.path == path:
            continue
        try:
            text = read(root / path).text
        except SourceError:
            continue
        directives[path] = parse_directives(text, path, resolver(path))
    scopes = _annotation_scopes(results, resolver)
    suppressed: list[Finding] = []
    for fr in results:
        kept: list[Finding] = []
        for f in fr.findings:
            dirs = directives.get(f.span.path, [])
            line_dirs = [d for d in dirs if d.kind == "disable"]
            file_dirs = [d for d in dirs if d.kind == "disable-file"]
            if f.code not in NOT_SUPPRESSIBLE and _suppressed_by(f, line_dirs, scopes, file_dirs):
                suppressed.append(f)
            else:
                kept.append(f)
        fr.findings[:] = kept
    every = [d for dirs in directives.values() for d in dirs] + [s.directive for s in scopes]
    for p in (*_unused(every, engine_of), *_policy(every)):
        f = engine_of(p.span.path).builtin_finding(p.code, p.span, p.message, p.data)
        if f is not None:
            target = owner.get(p.span.path) or results[0]
            target.findings.append(f)
    for fr in results:
        fr.findings.sort(key=Finding.sort_key)
    return suppressed

"""justfiles (casey/just): the vLLM launches in recipe bodies.

Read the way ``just`` reads them (the just manual, "Recipes", "Variables and Substitution"):

* a recipe is a line at column 0 ``[@]name [params]: [deps]`` followed by indented body lines; each
  body line runs in its own ``sh -cu`` (a body that starts with ``#!`` is one script); ``@`` and ``-``
  in front of a line are just's;
* ``{{ expr }}`` is replaced before the shell sees the line: a variable (``name := "value"``) or a
  recipe parameter with a default (``serve model="Qwen/Qwen3-8B":``) gives its value; anything else
  (a parameter without default, a function call, a backtick, a concatenation) is unresolved;
  ``{{{{`` is a literal ``{{``;
* ``export name := …`` and ``set export`` make variables the recipe's environment.
"""

from __future__ import annotations

from vlint.core.invocation import Token
from vlint.core.lazy_re import lazy_compile
from vlint.core.record import field, record
from vlint.core.span import PositionMap
from vlint.sources.base import ReadFile, SourceResult, SourceText
from vlint.sources.containers.dockerfile import Container, Piece, merge_result, script_launches
from vlint.sources.containers.dotenv import Mapped
from vlint.sources.expansion_budget import ExpansionBudget, current
from vlint.sources.sniffing import justfile as sniff  # noqa: F401 - re-exported: callers use justfile.sniff

NAME = "justfile"

_NAME = lazy_compile(r"[A-Za-z_][A-Za-z0-9_-]*")
_STRING = lazy_compile(r"""("(?:[^"\\\n]|\\.)*"|'[^'\n]*')[ \t]*(?:#.*)?$""")


@record(slots=True)
class _Value:
    value: Mapped | None
    exported: bool = False
    start: int = 0
    end: int = 0


@record(slots=True)
class _Just:
    src: SourceText
    vars: dict[str, _Value] = field(default_factory=dict)
    export_all: bool = False


def extract(src: SourceText, read_file: ReadFile) -> SourceResult:
    result = SourceResult()
    just = _Just(src)
    lines: list[tuple[int, str]] = []
    offset = 0
    for line in src.text.split("\n"):
        lines.append((offset, line))
        offset += len(line) + 1
    recipes: list[tuple[str, dict[str, _Value], list[tuple[int, str]]]] = []
    i = 0
    while i < len(lines):
        start, line = lines[i]
        i += 1
        if not line.strip() or line.startswith((" ", "\t", "#", "[")):
            continue
        if line.startswith("set ") and "export" in line and "false" not in line:
            just.export_all = True
            continue
        assignment = _assignment(line, start)
        if assignment is not None:
            name, value = assignment
            just.vars[name] = value
            continue
        header = _recipe_header(line, start)
        if header is None:
            continue
        name, params = header
        body: list[tuple[int, str]] = []
        while i < len(lines) and (lines[i][1].startswith((" ", "\t")) or not lines[i][1].strip()):
            if lines[i][1].strip():
                body.append(lines[i])
            i += 1
        recipes.append((name, params, body))
    posmap = PositionMap.for_text(src.path, src.text)
    budget = current()
    for name, params, body in recipes:
        scope = {**just.vars, **params}
        env: dict[str, Token] = {}
        for var_name, v in just.vars.items():
            if v.exported or just.export_all:
                span = posmap.span(v.start, v.end)
                env[var_name] = Token(v.value.text if v.value else "$" + var_name, span, v.value is None)
        c = Container(NAME, f"just recipe {name}", env, {}, src.abspath.parent, read_file)
        shebang = bool(body) and body[0][1].strip().startswith("#!")
        chunks = [body] if shebang else [[b] for b in body]
        for chunk in chunks:
            script = Mapped()
            for k, (lstart, line) in enumerate(chunk):
                lead = len(line) - len(line.lstrip(" \t"))
                text = line[lead:]
                skip = 0 if shebang else len(text) - len(text.lstrip("@-"))
                if k:
                    script.add("\n", lstart - 1, lstart)
                script.add_mapped(_interpolate(Mapped.verbatim(text[skip:], lstart + lead + skip), scope, budget))
            if "vllm" not in script.text.lower() and "$" not in script.text:
                continue
            merge_result(script_launches(Piece(script, posmap), c), result)
        for var_name, tok in env.items():
            result.assignments.append((var_name, tok))
    return result


def _assignment(line: str, start: int) -> tuple[str, _Value] | None:
    """``[export] name := "value"``; a value that is not one string literal is unresolved."""
    exported = line.startswith("export ")
    pos = 7 if exported else 0
    m = _NAME.match(line, pos)
    if m is None:
        return None
    k = m.end()
    while k < len(line) and line[k] in " \t":
        k += 1
    if not line.startswith(":=", k):
        return None
    k += 2
    while k < len(line) and line[k] in " \t":
        k += 1
    return m.group(0), _Value(_literal(line, k, start), exported, start, start + len(line))


def _literal(line: str, k: int, start: int) -> Mapped | None:
    lit = _STRING.match(line, k)
    if lit is None:
        return None
    quoted = lit.group(1)
    body = quoted[1:-1]
    if quoted[0] == '"' and "\\" in body:
        return None  # escapes: rare in a launch value, not decoded here
    return Mapped.verbatim(body, start + k + 1)


def _recipe_header(line: str, start: int) -> tuple[str, dict[str, _Value]] | None:
    """``[@]name param="default" *rest: deps`` → (name, parameters with their defaults)."""
    text = line[1:] if line.startswith("@") else line
    m = _NAME.match(text)
    if m is None:
        return None
    colon = text.find(":", m.end())
    if colon < 0 or text.startswith(":=", colon):
        return None
    params: dict[str, _Value] = {}
    pos = m.end()
    head = text[:colon]
    base = start + (1 if line.startswith("@") else 0)
    while pos < len(head):
        while pos < len(head) and head[pos] in " \t+*$":
            pos += 1
        pm = _NAME.match(head, pos)
        if pm is None:
            break
        pos = pm.end()
        value: Mapped | None = None
        if pos < len(head) and head[pos] == "=":
            q = head[pos + 1 : pos + 2]
            if q in ("'", '"'):
                close = head.find(q, pos + 2)
                if close > 0:
                    value = Mapped.verbatim(head[pos + 2 : close], base + pos + 2)
                    pos = close + 1
            else:
                end = pos + 1
                while end < len(head) and head[end] not in " \t":
                    end += 1
                pos = end
        params[pm.group(0)] = _Value(value, False, base + pm.start(), base + pos)
    return m.group(0), params


def _interpolate(m: Mapped, scope: dict[str, _Value], budget: ExpansionBudget) -> Mapped:
    """``{{name}}`` replaced by the variable's or parameter's value while the file's expansion budget
    lasts; other expressions, and what is past the budget, unresolved."""
    pieces: list[Mapped] = []  # joined once (Mapped.concat): appending piece by piece is quadratic
    s = m.text
    pos = 0
    i = s.find("{{")
    while i >= 0:
        pieces.append(m.slice(pos, i))
        if s.startswith("{{{{", i):
            pieces.append(Mapped.literal("{{", m.lo[i], m.hi[i + 3]))
            pos = i + 4
        else:
            j = s.find("}}", i + 2)
            if j < 0:
                pos = i
                break
            expr = s[i + 2 : j].strip()
            lo, hi = m.origin(i, j + 2)
            v = scope.get(expr) if _NAME.fullmatch(expr) else None
            if v is not None and v.value is not None and budget.spend(len(v.value.text)):
                pieces.append(Mapped.literal(v.value.text, lo, hi))
            else:
                pieces.append(Mapped.unresolved_text(s[i : j + 2], lo, hi))
            pos = j + 2
        i = s.find("{{", pos)
    pieces.append(m.slice(pos, len(s)))
    return Mapped.concat(pieces)

"""Makefiles: the vLLM launches in rule recipes (``serve: ; vllm serve $(MODEL) …``).

Read the way GNU make reads them (GNU make manual, "Writing Recipes", "How to Use Variables"):

* a rule line ``target …: prerequisites`` (``;`` may start its first recipe line), then recipe lines
  that start with a TAB; each recipe line (``\\``-newline continuations kept for the shell, the TAB
  after them dropped) runs in its own ``/bin/sh -c``; ``@``, ``-`` and ``+`` in front are make's;
* variables ``NAME = v``, ``NAME := v``, ``NAME ::= v``, ``NAME ?= v`` (only when unset), ``NAME += v``,
  with ``export``/``override`` in front; ``$(NAME)``/``${NAME}``/``$X`` are expanded by make before the
  shell sees the line, ``$$`` is a ``$`` for the shell; a variable the Makefile does not set comes
  from the environment or the command line (``make serve MODEL=…``): unresolved;
* ``$(shell …)``, ``$(wildcard …)`` and other functions, and automatic variables other than ``$@``,
  are unresolved; ``export``ed variables are the recipe's environment;
* ``include``/``-include`` files are read (inside the lint root) for their variables; a file included
  again from the same variables is not read again: what it did is replayed.

Expansion draws on the file's expansion budget (:mod:`vlint.sources.expansion_budget`): past it, and
past its nesting depth, a reference stays unresolved.

Command-line overrides (``make serve MODEL=x``) can change any variable that is not ``override``: the
values written in the Makefile are what runs by default, like a compose ``${VAR:-default}``.
"""

from __future__ import annotations

from pathlib import Path

from vlint.core.invocation import Token
from vlint.core.lazy_re import lazy_compile
from vlint.core.record import field, record
from vlint.core.span import PositionMap
from vlint.sources.base import ReadFile, SourceError, SourceResult, SourceText, refused
from vlint.sources.containers.dockerfile import Container, Piece, merge_result, script_launches
from vlint.sources.containers.dotenv import Mapped
from vlint.sources.expansion_budget import ExpansionBudget, current
from vlint.sources.sniffing import makefile as sniff  # noqa: F401 - re-exported: callers use makefile.sniff

NAME = "makefile"

_NAME_AT = lazy_compile(r"[A-Za-z_.][A-Za-z0-9_.-]*")
_OPERATORS = (":::=", "::=", ":=", "?=", "+=", "!=", "=")
_MODIFIERS = ("export", "override", "private")
_INCLUDE = lazy_compile(r"(-?include|sinclude)[ \t]+(\S.*)$")
_VAR_NAME = lazy_compile(r"[A-Za-z_.][A-Za-z0-9_.-]*$")
#: ``include`` inside included files is followed this deep
_MAX_INCLUDE_DEPTH = 3


@record(slots=True)
class _Var:
    value: Mapped | None  # None: set to something vlint cannot know ($(shell …), !=)
    exported: bool = False
    start: int = 0
    end: int = 0


def _copy(var: _Var) -> _Var:
    return _Var(var.value, var.exported, var.start, var.end)


#: what an include starts from: (included file, include depth, ``export`` of all, the variables)
_IncludeKey = tuple[Path, int, bool, frozenset[tuple[str, int, bool]]]


@record(slots=True)
class _Included:
    """What reading an included file did to the variables, replayed when it is included again from
    the same variables (20 files that include each other were read 20⁴ times)."""

    #: variables it set (copies: a later ``export NAME`` changes the Makefile's own in place)
    changed: dict[str, _Var]
    #: variables set before that it exported
    exported: tuple[str, ...]
    exported_all: bool


@record(slots=True)
class _Includes:
    """The includes of one Makefile (and of the files it includes), each read once per starting point."""

    done: dict[_IncludeKey, _Included] = field(default_factory=dict)
    #: a value's text, origins and unresolved ranges → a number: variables compare by content
    contents: dict[tuple[str, tuple[int, ...], tuple[int, ...], tuple[tuple[int, int], ...]], int] = field(
        default_factory=dict
    )
    #: id of a value numbered → (the value, kept so that the id stays its own; its number)
    numbered: dict[int, tuple[Mapped, int]] = field(default_factory=dict)

    def key(self, path: Path, depth: int, mk: _Makefile) -> _IncludeKey:
        state = frozenset((name, self._number(v.value), v.exported) for name, v in mk.vars.items())
        return path, depth, mk.exported_all, state

    def _number(self, m: Mapped | None) -> int:
        if m is None:
            return -1
        seen = self.numbered.get(id(m))
        if seen is None:
            content = (m.text, tuple(m.lo), tuple(m.hi), tuple(m.unresolved))
            seen = (m, self.contents.setdefault(content, len(self.contents)))
            self.numbered[id(m)] = seen
        return seen[1]


@record(slots=True)
class _Makefile:
    src: SourceText
    read_file: ReadFile
    vars: dict[str, _Var] = field(default_factory=dict)
    exported_all: bool = False
    result: SourceResult = field(default_factory=SourceResult)
    #: the file's expansion budget (shared with the files it includes)
    budget: ExpansionBudget = field(default_factory=current)
    includes: _Includes = field(default_factory=_Includes)
    #: the recipe environment last built: (``export`` of all, the variables it was built from, it)
    env: tuple[bool, list[tuple[str, _Var, bool]], dict[str, Token]] | None = None
    _posmap: PositionMap | None = None

    @property
    def posmap(self) -> PositionMap:
        if self._posmap is None:
            self._posmap = PositionMap.for_text(self.src.path, self.src.text)
        return self._posmap


def _logical_lines(text: str) -> list[tuple[int, int]]:
    """(start, end) offsets of each logical line: a line ending in an odd run of ``\\`` continues."""
    out: list[tuple[int, int]] = []
    start = 0
    pos = 0
    n = len(text)
    while pos <= n:
        nl = text.find("\n", pos)
        end = n if nl < 0 else nl
        run = len(text[pos:end]) - len(text[pos:end].rstrip("\\"))
        if run % 2 and nl >= 0:
            pos = nl + 1
            continue
        out.append((start, end))
        if nl < 0:
            break
        start = pos = nl + 1
    return out


def extract(src: SourceText, read_file: ReadFile) -> SourceResult:
    mk = _Makefile(src, read_file)
    _read(mk, src.text, 0, collect_rules=True)
    return mk.result


def _read(mk: _Makefile, text: str, depth: int, *, collect_rules: bool, base: Path | None = None) -> None:
    target = ""
    in_define = False
    for start, end in _logical_lines(text):
        line = text[start:end]
        if in_define:
            if line.strip().startswith("endef"):
                in_define = False
            continue
        if line.startswith("\t") and target:
            if collect_rules:
                _recipe(mk, text, start + 1, end, target)
            continue
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        head = stripped.split(None, 1)[0]
        if head == "define" or (head in ("export", "override") and stripped.split()[1:2] == ["define"]):
            name = stripped.split()[-1].rstrip("=:?+ ")
            mk.vars[name] = _Var(None)
            in_define = True
            continue
        if head in ("ifeq", "ifneq", "ifdef", "ifndef", "else", "endif", "vpath", ".PHONY"):
            continue
        if stripped == "export":
            mk.exported_all = True
            continue
        inc = _INCLUDE.match(stripped)
        if inc is not None:
            _include(mk, inc.group(2), start + line.index(inc.group(2)), depth, base)
            continue
        a = _assignment(stripped)
        if a is not None:
            lead = len(line) - len(line.lstrip())
            _assign(mk, text, start + lead, start + lead + a[3], end, a[0], a[1], a[2])
            target = ""
            continue
        if head == "export" and len(stripped.split()) > 1:
            for name in stripped.split()[1:]:
                if name in mk.vars:
                    mk.vars[name].exported = True
                else:
                    mk.vars[name] = _Var(Mapped(), exported=True)
            continue
        colon = _rule_colon(line)
        if colon >= 0:
            names = line[:colon].split()
            target = names[0] if names else ""
            semi = line.find(";", colon)
            if semi >= 0 and collect_rules and target:
                _recipe(mk, text, start + semi + 1, end, target)
            continue
        target = ""


def _assignment(line: str) -> tuple[list[str], str, str, int] | None:
    """(modifiers, name, operator, offset of the value) of ``export NAME := value``, else None."""
    mods: list[str] = []
    pos = 0
    while True:
        word = next((w for w in _MODIFIERS if line.startswith(w, pos)), None)
        if word is None or pos + len(word) >= len(line) or line[pos + len(word)] not in " \t":
            break
        mods.append(word)
        pos += len(word)
        while pos < len(line) and line[pos] in " \t":
            pos += 1
    m = _NAME_AT.match(line, pos)
    if m is None:
        return None
    pos = m.end()
    while pos < len(line) and line[pos] in " \t":
        pos += 1
    op = next((o for o in _OPERATORS if line.startswith(o, pos)), None)
    if op is None:
        return None
    return mods, m.group(0), op, pos + len(op)


def _rule_colon(line: str) -> int:
    """Offset of the ``:`` of a rule line (``serve run: deps``), -1 for other lines."""
    if line.startswith("\t"):
        return -1
    colon = line.find(":")
    if colon <= 0 or line.startswith("=", colon + 1) or "=" in line[:colon] or "#" in line[:colon]:
        return -1
    return colon


def _assign(
    mk: _Makefile, text: str, start: int, value_at: int, end: int, words: list[str], name: str, op: str
) -> None:
    raw = text[value_at:end]
    lead = len(raw) - len(raw.lstrip(" \t"))
    comment = _comment_at(raw)
    body = raw[lead:comment].rstrip(" \t")
    value = Mapped.verbatim(body, value_at + lead)
    value = _join_continuations(value)
    old = mk.vars.get(name)
    exported = "export" in words or (old is not None and old.exported)
    if op == "?=" and old is not None:
        return
    if op == "!=":
        mk.vars[name] = _Var(None, exported, start, end)
        return
    if op in (":=", "::=", ":::="):
        value = _expand(mk, value, 0)
    if op == "+=" and old is not None:
        if old.value is None:
            mk.vars[name] = _Var(None, exported, start, end)
            return
        joined = Mapped()
        joined.add_mapped(old.value)
        if old.value.text:
            joined.add(" ", value_at, value_at)
        joined.add_mapped(value)
        value = joined
    mk.vars[name] = _Var(value, exported, start, end)


def _comment_at(raw: str) -> int:
    """Where a ``#`` comment starts in a variable value (``\\#`` is a literal ``#``)."""
    i = raw.find("#")
    while i > 0 and raw[i - 1] == "\\":
        i = raw.find("#", i + 1)
    return len(raw) if i < 0 else i


def _join_continuations(m: Mapped) -> Mapped:
    """``\\``-newline (and the blanks around it) in a variable value is one space."""
    if "\\\n" not in m.text:
        return m
    parts = m.text.split("\\\n")
    pieces: list[Mapped] = []
    pos = 0
    for k, part in enumerate(parts):
        piece = m.slice(pos, pos + len(part))
        if k:
            piece = piece.slice(len(part) - len(part.lstrip(" \t")), len(part))
        if k < len(parts) - 1:
            backslash = pos + len(part)
            pieces += [_rstrip(piece), Mapped.literal(" ", m.lo[backslash], m.hi[backslash])]
        else:
            pieces.append(piece)
        pos += len(part) + 2
    return Mapped.concat(pieces)


def _rstrip(m: Mapped) -> Mapped:
    return m.slice(0, len(m.text.rstrip(" \t")))


def _include(mk: _Makefile, names: str, at: int, depth: int, base: Path | None) -> None:
    if depth > _MAX_INCLUDE_DEPTH or "$" in names:
        return
    folder = base or mk.src.abspath.parent
    offset = at
    for name in names.split():
        path = folder / name
        span = mk.posmap.span(offset, offset + len(name))
        offset += len(name) + 1
        try:
            other = mk.read_file(path)
        except SourceError as e:
            refused(e, span, mk.result.problems, f"include {name}")
            continue
        mk.result.linked.append(other.abspath)
        _include_file(mk, other, depth)


def _include_file(mk: _Makefile, other: SourceText, depth: int) -> None:
    """Read an included file's variables into ``mk`` — or replay what reading it did, when it was
    read from the same variables before (a file is read the same way from the same start)."""
    key = mk.includes.key(other.abspath, depth, mk)
    done = mk.includes.done.get(key)
    if done is None:
        if not mk.budget.pull():
            return
        done = mk.includes.done[key] = _read_included(mk, other, depth)
    for name in done.exported:
        mk.vars[name].exported = True
    for name, var in done.changed.items():
        mk.vars[name] = _copy(var)
    mk.exported_all = mk.exported_all or done.exported_all


def _read_included(mk: _Makefile, other: SourceText, depth: int) -> _Included:
    before = dict(mk.vars)
    unexported = [name for name, var in before.items() if not var.exported]
    sub = _Makefile(other, mk.read_file, mk.vars, mk.exported_all, budget=mk.budget, includes=mk.includes)
    _read(sub, other.text, depth + 1, collect_rules=False, base=other.abspath.parent)
    changed = {name: _copy(var) for name, var in mk.vars.items() if before.get(name) is not var}
    exported = tuple(name for name in unexported if mk.vars[name] is before[name] and before[name].exported)
    return _Included(changed, exported, sub.exported_all)


def _expand(mk: _Makefile, m: Mapped, depth: int, *, target: str = "") -> Mapped:
    """Make's expansion of ``$(…)``, ``${…}``, ``$X`` and ``$$`` in ``m``; what vlint cannot know is
    kept as an unresolved range with its source spelling."""
    s = m.text
    if "$" not in s:
        return m
    pieces: list[Mapped] = []
    pos, n = 0, len(s)
    i = s.find("$")
    while 0 <= i < n - 1:
        pieces.append(m.slice(pos, i))
        nxt = s[i + 1]
        if nxt == "$":
            pieces.append(Mapped.literal("$", m.lo[i], m.hi[i + 1]))
            pos = i + 2
        elif nxt in "({":
            close = _close(s, i + 2, nxt)
            if close < 0:
                pos = i
                break
            pieces.append(_reference(mk, s[i + 2 : close], m, i, close + 1, depth, target))
            pos = close + 1
        else:
            pieces.append(_reference(mk, nxt, m, i, i + 2, depth, target))
            pos = i + 2
        i = s.find("$", pos)
    pieces.append(m.slice(pos, n))
    return Mapped.concat(pieces)


def _close(s: str, j: int, opener: str) -> int:
    closer = ")" if opener == "(" else "}"
    depth = 1
    while j < len(s):
        if s[j] == opener:
            depth += 1
        elif s[j] == closer:
            depth -= 1
            if depth == 0:
                return j
        j += 1
    return -1


def _reference(mk: _Makefile, name: str, m: Mapped, a: int, b: int, depth: int, target: str) -> Mapped:
    lo, hi = m.origin(a, b)
    spelling = m.text[a:b]
    if name == "@" and target:
        return Mapped.literal(target, lo, hi)
    var = mk.vars.get(name) if _VAR_NAME.match(name) else None
    if var is None or var.value is None:
        return Mapped.unresolved_text(spelling, lo, hi)  # the environment, a function, an automatic variable
    # past the file's expansion budget (a first character, then the rest once expanded) or nested too
    # deep (``A = $(A)``, which make refuses), the reference stays as written
    if not mk.budget.nest(depth) or not mk.budget.spend(1):
        return Mapped.unresolved_text(spelling, lo, hi)
    value = _expand(mk, var.value, depth + 1, target=target)
    if not mk.budget.spend(len(value.text) - 1):
        return Mapped.unresolved_text(spelling, lo, hi)
    # the value stands where the reference is written (its characters all point at the reference)
    piece = Mapped.literal(value.text, lo, hi)
    piece.unresolved = list(value.unresolved)
    return piece


def _recipe(mk: _Makefile, text: str, start: int, end: int, target: str) -> None:
    """One recipe line (``start`` after its TAB): make's prefixes dropped, make's expansion done, the
    rest run by ``/bin/sh -c`` with the exported variables."""
    body = Mapped.verbatim(text[start:end], start)
    # continuation lines: make drops the TAB that starts each of them before the shell sees the line
    if "\\\n\t" in body.text:
        keep = [k for k in range(len(body.text)) if not (body.text[k] == "\t" and body.text[k - 2 : k] == "\\\n")]
        body = Mapped("".join(body.text[k] for k in keep), [body.lo[k] for k in keep], [body.hi[k] for k in keep], [])
    k = 0
    while k < len(body.text) and body.text[k] in "@-+ \t":
        k += 1
    body = body.slice(k, len(body.text))
    # a recipe whose last line ends in `\` at the end of the file: make continues it onto nothing, so the
    # shell never sees the backslash (GNU make 4.3: `x:\n\techo a \` runs `echo a`)
    tail = body.text.rstrip(" \t")
    if not text[end:].strip() and (len(tail) - len(tail.rstrip("\\"))) % 2 == 1:
        body = body.slice(0, len(tail) - 1)
    if "vllm" not in body.text.lower() and "$" not in body.text:
        return
    script = _expand(mk, body, 0, target=target)
    env = _recipe_env(mk)
    c = Container(NAME, f"make target {target}", env, {}, mk.src.abspath.parent, mk.read_file)
    found = script_launches(Piece(script, mk.posmap), c)
    merge_result(found, mk.result)
    for name, tok in env.items():
        mk.result.assignments.append((name, tok))


def _recipe_env(mk: _Makefile) -> dict[str, Token]:
    """The exported variables, expanded: a recipe line's environment. Built again only when a
    variable changed since the last recipe line (each line of each rule expanded them all)."""
    state = [(name, var, var.exported) for name, var in mk.vars.items()]
    last = mk.env
    if last is not None and last[0] == mk.exported_all and _same_vars(last[1], state):
        return dict(last[2])
    env: dict[str, Token] = {}
    for name, var in mk.vars.items():
        if not (var.exported or mk.exported_all):
            continue
        span = mk.posmap.span(var.start, var.end)
        if var.value is None:
            env[name] = Token("$" + name, span, True)
        else:
            value = _expand(mk, var.value, 0)
            env[name] = Token(value.text, span, value.is_unresolved())
    mk.env = (mk.exported_all, state, env)
    return dict(env)


def _same_vars(a: list[tuple[str, _Var, bool]], b: list[tuple[str, _Var, bool]]) -> bool:
    """The same variables, as the same objects (kept alive in ``a``), with the same ``export``."""
    return len(a) == len(b) and all(x[0] == y[0] and x[1] is y[1] and x[2] == y[2] for x, y in zip(a, b, strict=True))

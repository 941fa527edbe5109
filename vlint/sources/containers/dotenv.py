"""``.env`` files, and the ``${VAR}`` interpolation that docker compose and Dockerfiles share.

A ``.env`` file on its own starts nothing: it yields its ``NAME=value`` assignments (so that the
plain-text-secret rule sees them) and serves as the source of values when docker compose
interpolates the compose file next to it. Its variables (``environment``) are checked on their own
(VL013, VL014) when no launch of the run reads the file.

The format follows docker compose's dotenv reader (compose-go ``dotenv``): ``KEY=VALUE`` (also
``KEY: VALUE`` and ``export KEY=VALUE``), ``#`` comment lines, an unquoted value ends at `` #``;
single quotes are literal, double quotes take ``\\n``-style escapes and may span lines; unquoted and
double-quoted values expand ``${VAR}`` from earlier keys; a key given twice keeps its last value.

:class:`Mapped` is text that remembers, per character, where in some origin text it came from, so a
value produced by interpolation (or by stripping quotes) still has exact spans.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

from vlint.core.invocation import Token
from vlint.core.lazy_re import lazy_compile
from vlint.core.record import field, record
from vlint.core.span import PositionMap, Span
from vlint.sources.base import ReadFile, SourceResult, SourceText
from vlint.sources.expansion_budget import ExpansionBudget, current
from vlint.sources.sniffing import dotenv as sniff  # noqa: F401 - re-exported: callers use dotenv.sniff
from vlint.sources.sniffing import is_dotenv_name  # noqa: F401 - re-exported: callers use dotenv.is_dotenv_name

NAME = "dotenv"

_NAME_RE = lazy_compile(r"[A-Za-z_][A-Za-z0-9_]*")


# -- text with origins ---------------------------------------------------------------------------
@record(slots=True)
class Mapped:
    """Text whose characters each know the ``[lo, hi)`` range of origin text they stand for.

    ``unresolved`` lists ``[start, end)`` ranges of ``text`` that hold the source spelling of a value
    vlint could not resolve (``${HF_TOKEN}`` with no value anywhere)."""

    text: str = ""
    lo: list[int] = field(default_factory=list)
    hi: list[int] = field(default_factory=list)
    unresolved: list[tuple[int, int]] = field(default_factory=list)

    @classmethod
    def verbatim(cls, text: str, start: int = 0) -> Mapped:
        return cls(text, list(range(start, start + len(text))), list(range(start + 1, start + len(text) + 1)))

    @classmethod
    def concat(cls, pieces: list[Mapped]) -> Mapped:
        """The pieces one after another, in one pass (``add_mapped`` in a loop copies the text so far
        each time: quadratic over many pieces)."""
        out = cls("".join(p.text for p in pieces))
        base = 0
        for p in pieces:
            out.lo.extend(p.lo)
            out.hi.extend(p.hi)
            for a, b in p.unresolved:
                if out.unresolved and out.unresolved[-1][1] == a + base:
                    out.unresolved[-1] = (out.unresolved[-1][0], b + base)
                else:
                    out.unresolved.append((a + base, b + base))
            base += len(p.text)
        return out

    @classmethod
    def literal(cls, text: str, lo: int, hi: int) -> Mapped:
        """``text`` whose every character stands for origin ``[lo, hi)``."""
        return cls(text, [lo] * len(text), [hi] * len(text))

    @classmethod
    def unresolved_text(cls, spelling: str, lo: int, hi: int) -> Mapped:
        out = cls.literal(spelling, lo, hi)
        out.unresolved.append((0, len(spelling)))
        return out

    def add(self, text: str, lo: int, hi: int) -> None:
        """Append ``text`` whose every character stands for origin ``[lo, hi)``."""
        self.text += text
        self.lo.extend([lo] * len(text))
        self.hi.extend([hi] * len(text))

    def add_mapped(self, other: Mapped) -> None:
        base = len(self.text)
        self.text += other.text
        self.lo.extend(other.lo)
        self.hi.extend(other.hi)
        for a, b in other.unresolved:
            a, b = a + base, b + base
            if self.unresolved and self.unresolved[-1][1] == a:
                self.unresolved[-1] = (self.unresolved[-1][0], b)
            else:
                self.unresolved.append((a, b))

    def add_unresolved(self, spelling: str, lo: int, hi: int) -> None:
        start = len(self.text)
        self.add(spelling, lo, hi)
        self.unresolved.append((start, len(self.text)))

    def slice(self, start: int, end: int) -> Mapped:
        un = [(max(a, start) - start, min(b, end) - start) for a, b in self.unresolved if a < end and start < b]
        return Mapped(self.text[start:end], self.lo[start:end], self.hi[start:end], un)

    def is_unresolved(self, start: int = 0, end: int | None = None) -> bool:
        end = len(self.text) if end is None else end
        return any(a < end and start < b for a, b in self.unresolved) or (
            start == end and any(a == b == start for a, b in self.unresolved)
        )

    def origin(self, start: int = 0, end: int | None = None) -> tuple[int, int]:
        """The origin range covered by ``text[start:end]``."""
        end = len(self.text) if end is None else end
        if not self.lo:
            return 0, 0
        if start >= end:
            k = min(start, len(self.lo) - 1)
            return self.lo[k], self.lo[k]
        return min(self.lo[start:end]), max(self.hi[start:end])

    def span(self, posmap: PositionMap, start: int = 0, end: int | None = None) -> Span:
        lo, hi = self.origin(start, end)
        return posmap.span(lo, hi)


# -- ${VAR} interpolation ------------------------------------------------------------------------
#: a variable's state: ("set", value) — known; ("unset", None) — known not to exist;
#: ("unknown", None) — may come from an environment vlint cannot see
Lookup = Callable[[str], tuple[str, "str | Mapped | None"]]


def interpolate(
    text: str | Mapped,
    lookup: Lookup,
    *,
    escape: str = "$",
    defaults_resolve: bool = True,
    budget: ExpansionBudget | None = None,
    _depth: int = 0,
) -> Mapped:
    """Expand ``$VAR``, ``${VAR}``, ``${VAR:-default}``, ``${VAR-default}``, ``${VAR:+alt}``,
    ``${VAR+alt}``, ``${VAR:?err}``, ``${VAR?err}`` (nested in defaults too).

    ``escape`` is what protects a ``$``: ``"$"`` for docker compose (``$$`` → ``$``), ``"\\"`` or
    ``"`"`` for Dockerfiles (``\\$`` → ``$``). A variable that is ``unknown`` takes its default when
    it has one (``defaults_resolve``: the default is what runs unless the environment says
    otherwise); otherwise the expression stays, in its source spelling, as an unresolved range. So
    does a substitution past ``budget`` (by default the budget of the file being read)."""
    budget = budget or current()
    src = text if isinstance(text, Mapped) else Mapped.verbatim(text)
    out = Mapped()
    s = src.text
    i = 0
    n = len(s)
    while i < n:
        c = s[i]
        if c == escape and i + 1 < n and s[i + 1] == "$":
            out.add("$", src.lo[i], src.hi[i + 1])
            i += 2
            continue
        if c != "$" or i + 1 >= n:
            out.add_mapped(src.slice(i, i + 1))
            i += 1
            continue
        nxt = s[i + 1]
        if nxt == "{":
            close = _matching_brace(s, i + 2)
            if close < 0:
                out.add_mapped(src.slice(i, n))
                break
            _expand_braced(
                src,
                i,
                close,
                lookup,
                out,
                escape=escape,
                defaults_resolve=defaults_resolve,
                budget=budget,
                depth=_depth,
            )
            i = close + 1
            continue
        m = _NAME_RE.match(s, i + 1)
        if m is None:
            out.add_mapped(src.slice(i, i + 1))
            i += 1
            continue
        name = m.group(0)
        _substitute(name, src, i, m.end(), lookup, out, budget)
        i = m.end()
    return out


def _matching_brace(s: str, start: int) -> int:
    depth = 1
    j = start
    while j < len(s):
        if s[j] == "$" and j + 1 < len(s) and s[j + 1] == "{":
            depth += 1
            j += 2
            continue
        if s[j] == "}":
            depth -= 1
            if depth == 0:
                return j
        j += 1
    return -1


#: ``${A:-${B:-…}}`` nested deeper than this stays unresolved (each level recursed)
MAX_NESTING = 50


def _expand_braced(
    src: Mapped,
    at: int,
    close: int,
    lookup: Lookup,
    out: Mapped,
    *,
    escape: str,
    defaults_resolve: bool,
    budget: ExpansionBudget,
    depth: int = 0,
) -> None:
    s = src.text
    if depth >= MAX_NESTING:
        out.add_unresolved(s[at : close + 1], *src.origin(at, close + 1))
        return
    inner_start = at + 2
    m = _NAME_RE.match(s, inner_start)
    if m is None or m.end() > close:
        out.add_unresolved(s[at : close + 1], *src.origin(at, close + 1))
        return
    name = m.group(0)
    rest = s[m.end() : close]
    if not rest:
        _substitute(name, src, at, close + 1, lookup, out, budget)
        return
    op = next((o for o in (":-", ":+", ":?", "-", "+", "?") if rest.startswith(o)), None)
    if op is None:
        out.add_unresolved(s[at : close + 1], *src.origin(at, close + 1))
        return
    word = src.slice(m.end() + len(op), close)
    state, value = lookup(name)
    value_text = value.text if isinstance(value, Mapped) else value
    empty = state == "set" and not value_text
    whole = src.origin(at, close + 1)

    def expand_word() -> Mapped:
        return interpolate(
            word, lookup, escape=escape, defaults_resolve=defaults_resolve, budget=budget, _depth=depth + 1
        )

    if op in (":-", "-"):
        if state == "set" and not (empty and op == ":-"):
            _emit_value(value, whole, out, budget, s[at : close + 1])
        elif state == "unset" or (state == "set" and empty) or defaults_resolve:
            out.add_mapped(expand_word())
        else:
            out.add_unresolved(s[at : close + 1], *whole)
    elif op in (":+", "+"):
        if state == "set" and not (empty and op == ":+"):
            out.add_mapped(expand_word())
        elif state == "unset" or (state == "set" and empty):
            return
        else:
            out.add_unresolved(s[at : close + 1], *whole)
    else:  # :? / ?  — an error when missing: the value must come from the environment
        if state == "set" and not (empty and op == ":?"):
            _emit_value(value, whole, out, budget, s[at : close + 1])
        else:
            out.add_unresolved(s[at : close + 1], *whole)


def _substitute(
    name: str, src: Mapped, start: int, end: int, lookup: Lookup, out: Mapped, budget: ExpansionBudget
) -> None:
    state, value = lookup(name)
    whole = src.origin(start, end)
    if state == "set":
        _emit_value(value, whole, out, budget, src.text[start:end])
    elif state == "unset":
        return
    else:
        out.add_unresolved(src.text[start:end], *whole)


#: a substituted value longer than this is not inlined (``A=${A}${A}`` on every line of a .env file
#: would double it each time): the expression stays, unresolved
MAX_VALUE = 64 * 1024


def _emit_value(
    value: str | Mapped | None, whole: tuple[int, int], out: Mapped, budget: ExpansionBudget, spelling: str
) -> None:
    """The value where ``spelling`` (``${A}``) is written: unresolved when too long, or past the budget."""
    text = value.text if isinstance(value, Mapped) else value or ""
    if len(text) + len(out.text) > MAX_VALUE:
        out.add_unresolved("${…}", *whole)
        return
    if not budget.spend(len(text)):
        out.add_unresolved(spelling, *whole)
        return
    if isinstance(value, Mapped):
        # a value that is itself (partly) unresolved keeps that mark; it stands for the expression
        m = Mapped()
        m.add(value.text, *whole)
        m.unresolved = list(value.unresolved)
        out.add_mapped(m)
    elif value:
        out.add(value, *whole)


def mapping_lookup(values: dict[str, Mapped | str], *, missing: str = "unknown") -> Lookup:
    """A lookup over known values; names not in ``values`` are ``missing`` (unknown or unset)."""

    def lookup(name: str) -> tuple[str, str | Mapped | None]:
        if name in values:
            return "set", values[name]
        return missing, None

    return lookup


# -- shell-like word splitting (no expansion) ----------------------------------------------------
@record(slots=True)
class SplitWord:
    text: Mapped
    #: holds an unresolved value outside quotes: it may stand for any number of words
    opaque: bool = False


def split_words(m: Mapped, *, escape: str = "\\", stop_at_operators: bool = False) -> list[SplitWord]:
    """Split like ``go-shellwords`` (what docker compose uses for string ``command:``/``entrypoint:``)
    and Dockerfile ``ENV`` words: blanks separate words, quotes group and are removed, the escape
    character protects the next character (inside double quotes too); nothing is expanded.

    ``stop_at_operators``: an unquoted ``;`` ``&`` ``|`` ``<`` ``>`` ends the command line, and
    go-shellwords drops the rest silently."""
    words: list[SplitWord] = []
    s = m.text
    cur: Mapped | None = None
    opaque = False
    quote = ""
    i = 0
    n = len(s)

    def close() -> None:
        nonlocal cur, opaque
        if cur is not None:
            words.append(SplitWord(cur, opaque))
        cur, opaque = None, False

    while i < n:
        c = s[i]
        if not quote and c in " \t\r\n":
            close()
            i += 1
            continue
        if cur is None:
            cur = Mapped()
        if not quote and stop_at_operators and c in ";&|<>":
            cur = None if not cur.text else cur
            break
        if c == escape and quote != "'" and i + 1 < n:
            piece = m.slice(i + 1, i + 2)
            piece.lo[0] = m.lo[i]
            cur.add_mapped(piece)
            i += 2
            continue
        if c in "'\"" and (not quote or quote == c):
            quote = "" if quote else c
            i += 1
            continue
        if not quote and m.is_unresolved(i, i + 1):
            opaque = True
        cur.add_mapped(m.slice(i, i + 1))
        i += 1
    close()
    return words


# -- .env files ----------------------------------------------------------------------------------
@record(frozen=True, slots=True)
class DotenvEntry:
    name: str
    value: Mapped
    #: ``NAME=value`` as written (the span findings point at)
    span: Span
    name_span: Span

    @property
    def unresolved(self) -> bool:
        return self.value.is_unresolved()

    def token(self) -> Token:
        return Token(self.value.text, self.span, self.unresolved)


_DQ_ESCAPES = {"n": "\n", "r": "\r", "t": "\t", "\\": "\\", '"': '"', "$": "\\$"}


def parse_dotenv(text: str, path: str, *, outer: Lookup | None = None) -> list[DotenvEntry]:
    """Entries in file order (duplicates kept; the last one wins when turned into a dict).

    ``outer`` answers for variables the file does not define (compose: the environment, unknown).
    Without one the result depends on the text alone and is parsed once per run, however many files
    read the same ``.env`` (a thousand compose files beside one large ``.env``), with an expansion
    budget of its own: what it spent is charged to the budget of each file that reads it."""
    budget = current()
    if outer is None:
        entries, spent = _parse_plain(text, path)
        budget.absorb(spent)
        return list(entries)
    return _parse(text, path, outer, budget)


@lru_cache(maxsize=64)
def _parse_plain(text: str, path: str) -> tuple[tuple[DotenvEntry, ...], ExpansionBudget]:
    budget = ExpansionBudget()
    return tuple(_parse(text, path, None, budget)), budget


def _parse(text: str, path: str, outer: Lookup | None, budget: ExpansionBudget) -> list[DotenvEntry]:
    posmap = PositionMap.for_text(path, text)
    entries: list[DotenvEntry] = []
    known: dict[str, Mapped | str] = {}

    def lookup(name: str) -> tuple[str, str | Mapped | None]:
        if name in known:
            return "set", known[name]
        return outer(name) if outer is not None else ("unknown", None)

    i = 0
    n = len(text)
    while i < n:
        # one logical line
        line_end = text.find("\n", i)
        if line_end < 0:
            line_end = n
        j = i
        while j < line_end and text[j] in " \t":
            j += 1
        if j >= line_end or text[j] == "#":
            i = line_end + 1
            continue
        start = j
        if text.startswith("export ", j) or text.startswith("export\t", j):
            j += 7
            while j < line_end and text[j] in " \t":
                j += 1
        m = _NAME_RE.match(text, j)
        k = m.end() if m else j
        while k < line_end and text[k] in " \t":
            k += 1
        if m is None or k >= line_end or text[k] not in "=:":
            i = line_end + 1  # not an assignment: compose rejects it; vlint skips it
            continue
        name = m.group(0)
        name_span = posmap.span(m.start(), m.end())
        v = k + 1
        while v < line_end and text[v] in " \t":
            v += 1
        value, value_end = _read_value(text, v, line_end, lookup, budget)
        entries.append(DotenvEntry(name, value, posmap.span(start, max(value_end, k + 1)), name_span))
        known[name] = value
        nl = text.find("\n", value_end)
        i = n if nl < 0 else nl + 1
    return entries


def _read_value(text: str, v: int, line_end: int, lookup: Lookup, budget: ExpansionBudget) -> tuple[Mapped, int]:
    """(value, offset after it) for the value starting at ``v``."""
    if v < len(text) and text[v] in "'\"":
        quote = text[v]
        out = Mapped()
        j = v + 1
        while j < len(text) and text[j] != quote:
            if quote == '"' and text[j] == "\\" and j + 1 < len(text) and text[j + 1] in _DQ_ESCAPES:
                out.add(_DQ_ESCAPES[text[j + 1]], j, j + 2)
                j += 2
                continue
            out.add(text[j], j, j + 1)
            j += 1
        if j >= len(text):  # unterminated: compose takes the rest of the line literally
            raw = text[v:line_end].rstrip()
            return Mapped.verbatim(raw, v), v + len(raw)
        if quote == '"':
            out = interpolate(out, lookup, escape="\\", budget=budget)
        return out, j + 1
    end = line_end
    hash_at = _inline_comment(text, v, line_end)
    if hash_at >= 0:
        end = hash_at
    raw = text[v:end].rstrip()
    return interpolate(Mapped.verbatim(raw, v), lookup, budget=budget), v + len(raw)


def _inline_comment(text: str, start: int, end: int) -> int:
    for j in range(start, end):
        if text[j] == "#" and (j == start or text[j - 1] in " \t"):
            return j
    return -1


def dotenv_values(entries: list[DotenvEntry]) -> dict[str, DotenvEntry]:
    """Name → the entry that wins (the last one)."""
    out: dict[str, DotenvEntry] = {}
    for e in entries:
        out[e.name] = e
    return out


def extract(src: SourceText, read_file: ReadFile) -> SourceResult:
    result = SourceResult()
    entries = parse_dotenv(src.text, src.path)
    for e in entries:
        result.assignments.append((e.name, e.token()))
    for name, e in dotenv_values(entries).items():  # the value that wins, at the name (not ``export``)
        span = Span(e.span.path, e.name_span.line, e.name_span.column, e.span.end_line, e.span.end_column)
        result.environment.append((name, Token(e.value.text, span, e.unresolved)))
    return result

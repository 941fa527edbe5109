"""Regular expressions searched in linear time, for patterns a repository writes (``when:`` rules).

Python's ``re`` backtracks: ``^(a+)+$`` against ``"a" * 28 + "!"`` takes seconds, doubling per
character, and a custom rule's ``pattern`` and the values it is matched against both come from the
pull request. Here a pattern is parsed by Python's own parser (``re._parser``; ``sre_parse`` on 3.10),
so it means exactly what it means to ``re``, then compiled to a Thompson NFA and simulated one input
character at a time over the *set* of NFA states (the state sets met are memoised, a lazy DFA): work is
O(len(text) × program size) whatever the pattern, never exponential.

Supported: literals, ``.``, character classes (ranges, ``\\d \\w \\s`` and their negations, ``[^…]``),
anchors ``^ $ \\A \\Z \\b \\B``, groups, alternation, ``* + ?``, counted repeats ``{m,n}`` (expanded,
the program capped at :data:`MAX_PROGRAM` instructions), lazy repeats (same yes/no answer) and the
flags ``i s m a x u``, also scoped (``(?i:…)``). Refused with :class:`UnsupportedPattern`, because no
linear-time matcher can answer them: backreferences, lookahead and lookbehind, conditional groups,
atomic groups and possessive repeats.

A character class is one character's test: it is answered by ``re`` itself on that one character (a
single class cannot backtrack), so case folding and Unicode categories agree with ``re`` exactly.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Iterable
from functools import lru_cache

from vlint.core.record import record
from vlint.core.typing_names import Any

if sys.version_info >= (3, 11):
    from re import _constants as _c
    from re import _parser as _p
else:  # pragma: no cover - Python 3.10
    import sre_constants as _c
    import sre_parse as _p

#: instructions a compiled pattern may have once its counted repeats are expanded
MAX_PROGRAM = 1000
#: compile work (nodes visited, repeat copies made) per instruction allowed: ``(?:){9999}`` emits nothing
_WORK_PER_INSTRUCTION = 8
#: memoised state sets per search: past it the memo starts over (memory stays bounded, time linear)
_MAX_DFA_STATES = 4096

_CHAR, _SPLIT, _ASSERT, _MATCH = range(4)

# anchors: what each tests at a position
_BOS, _EOS, _EOS_OR_FINAL_NL, _BOL, _EOL, _WORD_B, _NOT_WORD_B, _WORD_B_ASCII, _NOT_WORD_B_ASCII = range(9)

_ATOMIC_GROUP = getattr(_c, "ATOMIC_GROUP", None)
_POSSESSIVE_REPEAT = getattr(_c, "POSSESSIVE_REPEAT", None)
_REFUSED: dict[Any, str] = {
    _c.GROUPREF: "a backreference",
    _c.GROUPREF_EXISTS: "a conditional group (?(…)…)",
    _ATOMIC_GROUP: "an atomic group (?>…)",
    _POSSESSIVE_REPEAT: "a possessive repeat (*+, ++, ?+, {m,n}+)",
}
_CATEGORIES = {
    _c.CATEGORY_DIGIT: r"\d",
    _c.CATEGORY_NOT_DIGIT: r"\D",
    _c.CATEGORY_SPACE: r"\s",
    _c.CATEGORY_NOT_SPACE: r"\S",
    _c.CATEGORY_WORD: r"\w",
    _c.CATEGORY_NOT_WORD: r"\W",
}
#: the flags a one-character test needs (``re.UNICODE`` is the default for ``str`` patterns)
_CHAR_FLAGS = re.IGNORECASE | re.DOTALL | re.ASCII
_TYPE_FLAGS = re.ASCII | re.UNICODE | re.LOCALE
_WORD = re.compile(r"\w")
_WORD_ASCII = re.compile(r"\w", re.ASCII)
#: ``\b`` and ``\B`` never match the empty string in CPython's ``re`` before 3.14; follow the running one
_BOUNDARY_ON_EMPTY = {_WORD_B: re.search(r"\b", "") is not None, _NOT_WORD_B: re.search(r"\B", "") is not None}

CharTest = Callable[[str], bool]


class UnsupportedPattern(ValueError):
    """A pattern this matcher cannot run in linear time (or at all): the message names the pattern."""


class _Refused(Exception):
    """Raised while compiling: why the pattern is refused (``compile_linear`` names the pattern)."""


@record(frozen=True, slots=True)
class _Instr:
    kind: int
    #: ``_CHAR``: the character test; ``_ASSERT``: the anchor's index in ``LinearRegex.anchors``
    arg: Any = None
    #: ``_SPLIT``: where the threads go (``y`` -1 for a plain jump)
    x: int = -1
    y: int = -1


@record(frozen=True, slots=True)
class LinearRegex:
    pattern: str
    code: tuple[_Instr, ...]
    #: the anchor kinds the program tests, in the order their results make a position's context
    anchors: tuple[int, ...]

    def search(self, text: str) -> bool:
        """``re.search(pattern, text) is not None``, in linear time."""
        return self.run(text)[0]

    def run(self, text: str) -> tuple[bool, int]:
        """(does the pattern match somewhere in ``text``, the NFA steps it took)."""
        return _Search(self, text).run()


class _Search:
    """One search: the lazy DFA (sets of NFA states reached, memoised) over one text."""

    def __init__(self, rx: LinearRegex, text: str) -> None:
        self.rx = rx
        self.text = text
        self.steps = 0
        self.states: dict[tuple[frozenset[int], bool], int] = {}
        self.sets: list[tuple[tuple[int, ...], bool]] = []
        self.edges: dict[tuple[int, str, tuple[bool, ...]], int] = {}

    def run(self) -> tuple[bool, int]:
        state = self._closure([0], self._context(0))
        for i, c in enumerate(self.text):
            if self.sets[state][1]:
                return True, self.steps
            ctx = self._context(i + 1)
            self.steps += 1
            nxt = self.edges.get((state, c, ctx))
            if nxt is None:
                nxt = self._advance(state, c, ctx)
            state = nxt
        return self.sets[state][1], self.steps

    def _advance(self, state: int, c: str, ctx: tuple[bool, ...]) -> int:
        chars = self.sets[state][0]
        code = self.rx.code
        self.steps += len(chars)
        targets = [pc + 1 for pc in chars if code[pc].arg(c)]
        targets.append(0)  # a match may start at every position
        if len(self.sets) >= _MAX_DFA_STATES:
            self.states.clear()
            self.sets.clear()
            self.edges.clear()
            state = self._intern(frozenset(chars), False)
        nxt = self._closure(targets, ctx)
        self.edges[(state, c, ctx)] = nxt
        return nxt

    def _closure(self, targets: Iterable[int], ctx: tuple[bool, ...]) -> int:
        """The state set reached from ``targets`` without reading a character, as a memo index."""
        code = self.rx.code
        seen: set[int] = set()
        chars: list[int] = []
        matched = False
        stack = list(targets)
        while stack:
            pc = stack.pop()
            if pc in seen:
                continue
            seen.add(pc)
            ins = code[pc]
            if ins.kind == _CHAR:
                chars.append(pc)
            elif ins.kind == _SPLIT:
                stack.append(ins.x)
                if ins.y >= 0:
                    stack.append(ins.y)
            elif ins.kind == _ASSERT:
                if ctx[ins.arg]:
                    stack.append(pc + 1)
            else:
                matched = True
        self.steps += len(seen)
        return self._intern(frozenset(chars), matched)

    def _intern(self, chars: frozenset[int], matched: bool) -> int:
        key = (chars, matched)
        found = self.states.get(key)
        if found is None:
            found = self.states[key] = len(self.sets)
            self.sets.append((tuple(sorted(chars)), matched))
        return found

    def _context(self, i: int) -> tuple[bool, ...]:
        return tuple(_holds(kind, self.text, i) for kind in self.rx.anchors)


def _holds(kind: int, text: str, i: int) -> bool:
    """Does the anchor ``kind`` hold at position ``i`` of ``text`` (as CPython's ``_sre`` decides)?"""
    n = len(text)
    if kind == _BOS:
        return i == 0
    if kind == _EOS:
        return i == n
    if kind == _EOS_OR_FINAL_NL:
        return i == n or (i == n - 1 and text[i] == "\n")
    if kind == _BOL:
        return i == 0 or text[i - 1] == "\n"
    if kind == _EOL:
        return i == n or text[i] == "\n"
    word = _WORD if kind in (_WORD_B, _NOT_WORD_B) else _WORD_ASCII
    if n == 0:
        return _BOUNDARY_ON_EMPTY[_WORD_B if kind in (_WORD_B, _WORD_B_ASCII) else _NOT_WORD_B]
    before = i > 0 and word.match(text[i - 1]) is not None
    after = i < n and word.match(text[i]) is not None
    return (before != after) if kind in (_WORD_B, _WORD_B_ASCII) else (before == after)


# -- compiling -------------------------------------------------------------------------------------
@lru_cache(maxsize=512)
def compile_linear(pattern: str) -> LinearRegex:
    """``pattern`` compiled for :meth:`LinearRegex.search`. Raises :class:`UnsupportedPattern` for a
    pattern that is not a valid regular expression, uses a construct with no linear-time matcher, or
    is over :data:`MAX_PROGRAM` instructions once its repeats are expanded."""
    try:
        parsed = _p.parse(pattern, 0)
    except (re.error, OverflowError, RecursionError) as e:
        raise UnsupportedPattern(f"pattern {shown(pattern)} is not a valid regular expression: {e}") from None
    compiler = _Compiler()
    try:
        compiler.sequence(parsed, parsed.state.flags)
        compiler.emit(_MATCH)
    except _Refused as e:
        raise UnsupportedPattern(f"pattern {shown(pattern)} {e}") from None
    except RecursionError:
        raise UnsupportedPattern(f"pattern {shown(pattern)} nests its groups too deeply") from None
    return LinearRegex(pattern, tuple(compiler.code), tuple(compiler.anchors))


def shown(pattern: str, limit: int = 80) -> str:
    """How an error quotes a pattern: its first ``limit`` characters (a rule file may hold a megabyte)."""
    return repr(pattern) if len(pattern) <= limit else repr(pattern[:limit]) + f"… ({len(pattern):,} characters)"


def _cannot(why: str) -> _Refused:
    return _Refused(f"uses {why}, which cannot be matched in linear time")


def _too_large() -> _Refused:
    return _Refused(f"is too large once its counted repeats are expanded (over {MAX_PROGRAM:,} instructions)")


class _Compiler:
    """Thompson's construction over the parse tree ``re`` itself builds."""

    def __init__(self) -> None:
        self.code: list[_Instr] = []
        self.anchors: list[int] = []
        self.work = 0

    def _count(self) -> None:
        self.work += 1
        if self.work > MAX_PROGRAM * _WORK_PER_INSTRUCTION:
            raise _too_large()

    def emit(self, kind: int, arg: Any = None) -> int:
        if len(self.code) >= MAX_PROGRAM:
            raise _too_large()
        self.code.append(_Instr(kind, arg))
        return len(self.code) - 1

    def patch(self, pc: int, x: int, y: int = -1) -> None:
        self.code[pc] = _Instr(_SPLIT, None, x, y)

    def sequence(self, items: Iterable[tuple[Any, Any]], flags: int) -> None:
        for op, av in items:
            self._count()
            self.node(op, av, flags)

    def node(self, op: Any, av: Any, flags: int) -> None:
        if op in (_c.LITERAL, _c.NOT_LITERAL, _c.ANY, _c.IN):
            self.emit(_CHAR, _char_test(_char_source(op, av), flags & _CHAR_FLAGS))
        elif op is _c.AT:
            self.emit(_ASSERT, self._anchor(_anchor_kind(av, flags)))
        elif op is _c.SUBPATTERN:
            _group, add, delete, sub = av
            self.sequence(sub, _combine_flags(flags, add, delete))
        elif op is _c.BRANCH:
            self.branch(av[1], flags)
        elif op in (_c.MAX_REPEAT, _c.MIN_REPEAT):
            self.repeat(av[0], av[1], av[2], flags)
        elif op in (_c.ASSERT, _c.ASSERT_NOT):
            raise _cannot(_lookaround(op, av[0]))
        else:
            raise _cannot(_REFUSED.get(op, f"the construct {op}"))

    def _anchor(self, kind: int) -> int:
        if kind not in self.anchors:
            self.anchors.append(kind)
        return self.anchors.index(kind)

    def branch(self, alternatives: list[Any], flags: int) -> None:
        jumps = []
        for alt in alternatives[:-1]:
            split = self.emit(_SPLIT)
            self.sequence(alt, flags)
            jumps.append(self.emit(_SPLIT))
            self.patch(split, split + 1, len(self.code))
        self.sequence(alternatives[-1], flags)
        for j in jumps:
            self.patch(j, len(self.code))

    def repeat(self, low: int, high: int, sub: Any, flags: int) -> None:
        for _ in range(low):
            self._count()
            self.sequence(sub, flags)
        if high == _c.MAXREPEAT:  # L: split body, out; body; jump L
            loop = self.emit(_SPLIT)
            self.sequence(sub, flags)
            self.patch(self.emit(_SPLIT), loop)
            self.patch(loop, loop + 1, len(self.code))
            return
        splits = []
        for _ in range(high - low):  # (sub(sub(sub)?)?)?: each optional copy may skip to the end
            self._count()
            splits.append(self.emit(_SPLIT))
            self.sequence(sub, flags)
        for s in splits:
            self.patch(s, s + 1, len(self.code))


def _combine_flags(flags: int, add: int, delete: int) -> int:
    """The flags inside ``(?add-delete:…)``, as ``re``'s compiler combines them."""
    if add & _TYPE_FLAGS:
        flags &= ~_TYPE_FLAGS
    return (flags | add) & ~delete


def _lookaround(op: Any, direction: int) -> str:
    negative = "negative " if op is _c.ASSERT_NOT else ""
    if direction < 0:
        return f"a {negative}lookbehind (?<{'!' if negative else '='}…)"
    return f"a {negative}lookahead (?{'!' if negative else '='}…)"


def _anchor_kind(av: Any, flags: int) -> int:
    multiline = bool(flags & re.MULTILINE)
    ascii_only = bool(flags & re.ASCII)
    if av is _c.AT_BEGINNING:
        return _BOL if multiline else _BOS
    if av is _c.AT_BEGINNING_STRING:
        return _BOS
    if av is _c.AT_END:
        return _EOL if multiline else _EOS_OR_FINAL_NL
    if av is _c.AT_END_STRING:
        return _EOS
    if av is _c.AT_BOUNDARY:
        return _WORD_B_ASCII if ascii_only else _WORD_B
    if av is _c.AT_NON_BOUNDARY:
        return _NOT_WORD_B_ASCII if ascii_only else _NOT_WORD_B
    raise _cannot(f"the anchor {av}")


def _char_source(op: Any, av: Any) -> str:
    """A one-character pattern that tests what the node ``(op, av)`` tests."""
    if op is _c.LITERAL:
        return _escape(av)
    if op is _c.NOT_LITERAL:
        return f"[^{_escape(av)}]"
    if op is _c.ANY:
        return "."
    parts = []
    for item, value in av:
        if item is _c.NEGATE:
            parts.append("^")
        elif item is _c.LITERAL:
            parts.append(_escape(value))
        elif item is _c.RANGE:
            parts.append(f"{_escape(value[0])}-{_escape(value[1])}")
        elif item is _c.CATEGORY and value in _CATEGORIES:
            parts.append(_CATEGORIES[value])
        else:
            raise _cannot(f"the class item {item}")
    return "[" + "".join(parts) + "]"


def _escape(code: int) -> str:
    return f"\\U{code:08x}"


@lru_cache(maxsize=4096)
def _char_test(source: str, flags: int) -> CharTest:
    """The test of one character against the one-character pattern ``source``, ASCII from a table."""
    rx = re.compile(source, flags)
    table = tuple(rx.match(chr(i)) is not None for i in range(128))

    def test(c: str) -> bool:
        o = ord(c)
        return table[o] if o < 128 else rx.match(c) is not None

    return test

"""gitignore-style globs matched in linear time.

A glob turned into a regular expression (``*`` → ``[^/]*``) backtracks: ``*a*a*a*a*a*b`` against a
long name takes exponential time in Python's ``re``, and a ``.gitignore`` is written by whoever wrote
the pull request. Here a glob is a small NFA simulated over the path, one set of states per
character: time is O(len(path) × len(pattern)) whatever the pattern, and no pattern can fail to
compile (an invalid range such as ``[z-a]`` matches nothing).

Syntax (gitignore(5)): ``*`` any run of characters but ``/``; ``?`` one character but ``/``;
``[…]`` a character class (ranges, ``!`` or ``^`` negates, ``\\`` escapes); ``**/`` at the start or
after ``/`` any number of leading folders; a trailing ``/**`` everything inside; ``\\x`` a literal x.
"""

from __future__ import annotations

from collections.abc import Callable

from vlint.core.record import record

Pred = Callable[[str], bool]


def _not_slash(c: str) -> bool:
    return c != "/"


def _anything(c: str) -> bool:
    return True


@record(frozen=True, slots=True)
class Glob:
    """A compiled glob: ``moves[i]`` are (predicate, next state) pairs, ``eps[i]`` the states reached
    from ``i`` without a character; the last state accepts."""

    pattern: str
    moves: tuple[tuple[tuple[Pred, int], ...], ...]
    eps: tuple[tuple[int, ...], ...]
    #: the same answer without the NFA, for the common shapes (``Dockerfile``, ``*.yaml``, ``**/x*``)
    fast: Pred | None = None

    def match(self, text: str) -> bool:
        """Does the glob match all of ``text``?"""
        if self.fast is not None:
            return self.fast(text)
        accept = len(self.moves) - 1
        current = self._closure({0})
        for c in text:
            nxt: set[int] = set()
            for s in current:
                for pred, target in self.moves[s]:
                    if pred(c):
                        nxt.add(target)
            if not nxt:
                return False
            current = self._closure(nxt)
        return accept in current

    def _closure(self, states: set[int]) -> set[int]:
        stack = list(states)
        while stack:
            s = stack.pop()
            for t in self.eps[s]:
                if t not in states:
                    states.add(t)
                    stack.append(t)
        return states


class _Builder:
    def __init__(self) -> None:
        self.moves: list[list[tuple[Pred, int]]] = [[]]
        self.eps: list[list[int]] = [[]]

    @property
    def last(self) -> int:
        return len(self.moves) - 1

    def new(self) -> int:
        self.moves.append([])
        self.eps.append([])
        return self.last

    def step(self, pred: Pred) -> None:
        """One character matching ``pred``, from the last state to a new one."""
        a = self.last
        self.moves[a].append((pred, self.new()))

    def loop(self, pred: Pred) -> None:
        """Any number of characters matching ``pred``."""
        a = self.last
        self.moves[a].append((pred, a))
        self.eps[a].append(self.new())

    def folders(self) -> None:
        """``(?:.*/)?``: nothing, or anything that ends with ``/``."""
        a = self.last
        inner = self.new()
        end = self.new()
        self.eps[a].append(end)
        self.moves[a].append((_anything, inner))
        self.moves[inner].append((_anything, inner))
        self.moves[a].append((lambda c: c == "/", end))
        self.moves[inner].append((lambda c: c == "/", end))

    def build(self, pattern: str, fast: Pred | None = None) -> Glob:
        return Glob(pattern, tuple(tuple(m) for m in self.moves), tuple(tuple(e) for e in self.eps), fast)


def _one_star(pattern: str, *, star_crosses_slash: bool) -> Pred | None:
    """A matcher for a pattern of literal characters and at most one ``*`` (no ``?``, ``[``, escapes or
    ``**``), which needs no automaton: a prefix, a suffix, and between them no ``/`` unless ``*`` may
    cross one. None for every other pattern."""
    if any(c in pattern for c in "?[\\") or "**" in pattern or pattern.count("*") > 1:
        return None
    if "*" not in pattern:
        return pattern.__eq__
    head, tail = pattern.split("*")
    least = len(head) + len(tail)

    def fast(text: str) -> bool:
        if len(text) < least or not text.startswith(head) or not text.endswith(tail):
            return False
        return star_crosses_slash or "/" not in text[len(head) : len(text) - len(tail)]

    return fast


def _fast_path(pattern: str) -> Pred | None:
    """:func:`_one_star` for a gitignore glob, also behind a leading ``**/`` (any folders, or none)."""
    rest = pattern[3:] if pattern.startswith("**/") else None
    if rest is None:
        return _one_star(pattern, star_crosses_slash=False)
    inner = _one_star(rest, star_crosses_slash=False)
    if inner is None:
        return None

    def fast(text: str) -> bool:
        if inner(text):
            return True
        i = text.find("/")
        while i >= 0:
            if inner(text[i + 1 :]):
                return True
            i = text.find("/", i + 1)
        return False

    return fast


def compile_glob(pattern: str, *, fnmatch: bool = False) -> Glob:
    """A gitignore glob; with ``fnmatch=True``, :func:`fnmatch.fnmatch`'s dialect instead (``*`` and
    ``?`` also match ``/``, no ``**`` or escapes), for exclude patterns in configuration."""
    b = _Builder()
    i, n = 0, len(pattern)
    if fnmatch:
        return _compile_fnmatch(b, pattern)
    while i < n:
        c = pattern[i]
        at_component_start = i == 0 or pattern[i - 1] == "/"
        if pattern.startswith("**/", i) and at_component_start:
            b.folders()
            i += 3
        elif pattern.startswith("**", i) and at_component_start and i + 2 == n:
            b.loop(_anything)
            i += 2
        elif c == "*":
            b.loop(_not_slash)
            i += 1
        elif c == "?":
            b.step(_not_slash)
            i += 1
        elif c == "[":
            parsed = _char_class(pattern, i)
            if parsed is None:
                b.step(_literal("["))
                i += 1
            else:
                pred, i = parsed
                b.step(pred)
        elif c == "\\" and i + 1 < n:
            b.step(_literal(pattern[i + 1]))
            i += 2
        else:
            b.step(_literal(c))
            i += 1
    return b.build(pattern, _fast_path(pattern))


def _compile_fnmatch(b: _Builder, pattern: str) -> Glob:
    i = 0
    while i < len(pattern):
        c = pattern[i]
        if c == "*":
            b.loop(_anything)
            i += 1
        elif c == "?":
            b.step(_anything)
            i += 1
        elif c == "[" and (parsed := _char_class(pattern, i, slash=True)) is not None:
            pred, i = parsed
            b.step(pred)
        else:
            b.step(_literal(c))
            i += 1
    return b.build(pattern, _one_star(pattern, star_crosses_slash=True))


def _literal(ch: str) -> Pred:
    return lambda c: c == ch


def _char_class(pattern: str, start: int, *, slash: bool = False) -> tuple[Pred, int] | None:
    """``[…]`` at ``start``: (predicate, index after ``]``), or None when there is no closing ``]``
    (then ``[`` is a literal, as git does)."""
    i = start + 1
    negate = i < len(pattern) and pattern[i] in "!^"
    if negate:
        i += 1
    items: list[tuple[str, str]] = []
    first = True
    while i < len(pattern):
        c = pattern[i]
        if c == "]" and not first:
            break
        first = False
        if c == "\\" and i + 1 < len(pattern):
            c = pattern[i + 1]
            i += 1
        if i + 2 < len(pattern) and pattern[i + 1] == "-" and pattern[i + 2] != "]":
            hi = pattern[i + 2]
            if hi == "\\" and i + 3 < len(pattern):
                hi = pattern[i + 3]
                i += 1
            items.append((c, hi))  # an empty range (z-a) matches nothing
            i += 3
        else:
            items.append((c, c))
            i += 1
    else:
        return None
    ranges = tuple(items)

    def pred(ch: str) -> bool:
        if ch == "/" and not slash:
            return False
        inside = any(lo <= ch <= hi for lo, hi in ranges)
        return inside != negate

    return pred, i + 1

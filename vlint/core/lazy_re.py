"""Regular expressions compiled on first use (:func:`lazy_compile`).

Compiling a pattern costs 0.1-1 ms; a module of a dozen patterns costs ~9 ms at import (the credential
shapes of :mod:`vlint.security.secrets`), paid by every ``vlint FILE`` whether the file has a
credential-shaped value or not. A :class:`LazyPattern` stands where the ``re.Pattern`` stood and
compiles at its first ``search``/``match``/``sub``…, then hands that call, and every later one, to the
compiled pattern.
"""

from __future__ import annotations

import re

from vlint.core.typing_names import Any

#: the pattern methods a use calls: once compiled, each is kept in a slot of its own, so that later
#: calls reach the compiled pattern's method directly instead of through ``__getattr__``
_METHODS = ("search", "match", "fullmatch", "sub", "subn", "split", "findall", "finditer")


class LazyPattern:
    """A ``re.Pattern`` compiled when first used; it has every attribute of one."""

    __slots__ = ("_compiled", "_flags", "_source", *_METHODS)

    def __init__(self, pattern: str, flags: int = 0) -> None:
        self._source = pattern
        self._flags = flags
        self._compiled: re.Pattern[str] | None = None

    def compiled(self) -> re.Pattern[str]:
        if self._compiled is None:
            self._compiled = re.compile(self._source, self._flags)
        return self._compiled

    def __getattr__(self, name: str) -> Any:
        # reached only for what is not set: an empty method slot (first use) or another attribute;
        # never for this object's own slots (an instance being unpickled has none set yet)
        if name.startswith("_"):
            raise AttributeError(name)
        value = getattr(self.compiled(), name)
        if name in _METHODS:
            setattr(self, name, value)
        return value

    def __reduce__(self) -> tuple[Any, tuple[str, int]]:
        return (LazyPattern, (self._source, self._flags))

    def __repr__(self) -> str:
        return f"lazy_compile({self._source!r}, {self._flags!r})"


def lazy_compile(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """``re.compile(pattern, flags)``, compiled on first use (typed as the pattern it stands for)."""
    return LazyPattern(pattern, flags)  # type: ignore[return-value]

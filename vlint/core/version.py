"""vLLM version numbers: parse, compare, and format.

vLLM releases look like ``0.10.2``, ``0.6.6.post1``, ``0.10.1.1`` or ``v0.19.1`` (image tags).
A :class:`Version` orders releases the way PyPI does for these simple cases: by the numeric
release tuple, then by the post-release number.
"""

from __future__ import annotations

import re
from functools import lru_cache

from vlint.core.lazy_re import lazy_compile
from vlint.core.record import record

_VERSION_RE = lazy_compile(
    r"^v?(?P<release>\d+(?:\.\d+)*)"
    r"(?:[.-]?post(?P<post>\d+))?"
    r"(?:[.-]?(?P<pre>rc|a|b|dev)(?P<prenum>\d*))?"
    r"(?:\+.*)?$",
    re.IGNORECASE,
)


@record(frozen=True)
class Version:
    """A vLLM release number such as ``0.6.6.post1``."""

    release: tuple[int, ...]
    post: int = 0
    pre: str = ""

    @classmethod
    def parse(cls, text: str) -> Version:
        """Parse ``0.10.2``, ``v0.19.1``, ``0.6.6.post1``; raise ValueError otherwise."""
        return _parse(text)

    @classmethod
    def try_parse(cls, text: str | None) -> Version | None:
        if not text:
            return None
        try:
            return cls.parse(text)
        except ValueError:
            return None

    def _key(self) -> tuple[tuple[int, ...], int, int, str]:
        """The sort key, computed once per instance (versions are compared ~50,000 times per corpus run:
        version-keyed constants and defaults)."""
        try:
            return self.__dict__["_sort_key"]  # type: ignore[no-any-return]
        except KeyError:
            padded = self.release + (0,) * (4 - len(self.release))
            # a pre-release sorts before its final release
            key = (padded, 0 if self.pre else 1, self.post, self.pre)
            object.__setattr__(self, "_sort_key", key)  # a cache beside the fields, not a field
            return key

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, Version):
            return NotImplemented
        return self._key() < other._key()

    def __le__(self, other: object) -> bool:
        if not isinstance(other, Version):
            return NotImplemented
        return self._key() <= other._key()

    def __gt__(self, other: object) -> bool:
        if not isinstance(other, Version):
            return NotImplemented
        return self._key() > other._key()

    def __ge__(self, other: object) -> bool:
        if not isinstance(other, Version):
            return NotImplemented
        return self._key() >= other._key()

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Version):
            return NotImplemented
        return self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    @property
    def minor(self) -> tuple[int, int]:
        """``(major, minor)``: 0.10.2 → (0, 10)."""
        r = (*self.release, 0, 0)
        return (r[0], r[1])

    def __str__(self) -> str:
        s = ".".join(str(p) for p in self.release)
        if self.post:
            s += f".post{self.post}"
        if self.pre:
            s += self.pre
        return s

    def short(self) -> str:
        """``0.10`` for 0.10.2: how release notes name a minor series."""
        return f"{self.minor[0]}.{self.minor[1]}"


@lru_cache(maxsize=512)
def _parse(text: str) -> Version:
    """Versions are immutable and the same few strings are parsed thousands of times per run
    (version-keyed constants, flag histories), so parsed values are shared."""
    m = _VERSION_RE.match(text.strip())
    if not m:
        raise ValueError(f"not a vLLM version: {text!r}")
    release = tuple(int(p) for p in m.group("release").split("."))
    post = int(m.group("post") or 0)
    pre = (m.group("pre") or "").lower() + (m.group("prenum") or "")
    return Version(release, post, pre)


#: shorthand: ``V("0.10.2")`` (the shared parse itself: the memory model calls it ~13,000 times per launch)
V = _parse

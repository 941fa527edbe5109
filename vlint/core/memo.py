"""A bounded memo for pure functions whose arguments are records (:class:`BoundedMemo`).

The memory model sizes one launch on ~11 reference GPUs with mostly the same arguments; its pure helpers
(KV layer specs, the weights of one rank) keep their answers here. Keys that cannot be hashed (a fact
holding a dict) are computed every time; the memo is cleared when full, so a long run stays bounded.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable

from vlint.core.typing_names import Generic, TypeVar

_V = TypeVar("_V")


class BoundedMemo(Generic[_V]):
    __slots__ = ("_items", "_limit")

    def __init__(self, limit: int = 512) -> None:
        self._items: dict[Hashable, _V] = {}
        self._limit = limit

    def get(self, key: Hashable, compute: Callable[[], _V]) -> _V:
        """The answer for ``key``, computed by ``compute()`` the first time."""
        try:
            hit = self._items.get(key)
        except TypeError:  # a fact that cannot be hashed: no memo
            return compute()
        if hit is None:
            hit = compute()
            if len(self._items) >= self._limit:
                self._items.clear()
            self._items[key] = hit
        return hit

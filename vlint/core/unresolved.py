"""The value of a setting vlint cannot see (``$VAR``, a template): one marker every layer compares
with ``is``."""

from __future__ import annotations

from vlint.core.typing_names import Any


class _Unresolved:
    """The value depends on something vlint cannot see (``$VAR``, a template)."""

    _instance: _Unresolved | None = None

    def __new__(cls) -> _Unresolved:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "<unresolved>"

    def __bool__(self) -> bool:
        return False


UNRESOLVED: Any = _Unresolved()

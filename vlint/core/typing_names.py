"""The names of :mod:`typing` vlint's modules use, without importing :mod:`typing` when vlint runs.

``import typing`` costs about 4.6 ms of every ``vlint FILE`` (paired runs on the 2-CPU machine of
``docs/performance.md``), and vlint needs its names for type checkers only: every module starts with
``from __future__ import annotations``, so annotations stay strings that nothing evaluates. A type
checker reads typing's own names (the ``TYPE_CHECKING`` branch: mypy and pyright take a module-level
``TYPE_CHECKING`` as true, whatever module it comes from). When vlint runs, the names are stand-ins that
do what their few run-time uses need:

- ``TYPE_CHECKING`` is ``False``;
- ``class C(Generic[T])`` is an ordinary class, and ``C[int]`` is ``C``;
- ``TypeVar("T", …)`` is its name, ``@overload`` and ``@dataclass_transform(…)`` leave the function as it is;
- ``cast(T, x)`` is ``x``;
- ``Literal["a", "b"]`` in an alias is a placeholder, and so are ``Any``, ``NoReturn`` and ``BinaryIO``
  (inside ``dict[str, Any]`` and the like).

A module that needs more of typing while it runs (a ``Protocol``, ``get_type_hints``) imports :mod:`typing`
itself. The import-set test (``tests/reliability/test_startup.py``) holds typing out of a plain lint.
"""

from __future__ import annotations

TYPE_CHECKING = False

if TYPE_CHECKING:
    from typing import Any as Any
    from typing import BinaryIO as BinaryIO
    from typing import Generic as Generic
    from typing import Literal as Literal
    from typing import NoReturn as NoReturn
    from typing import TypeVar as TypeVar
    from typing import cast as cast
    from typing import dataclass_transform as dataclass_transform
    from typing import overload as overload
else:

    class _Placeholder:
        """A typing special form that is only ever written, never used: ``Literal[…]`` is itself."""

        __slots__ = ("_name",)

        def __init__(self, name: str) -> None:
            self._name = name

        def __getitem__(self, params: object) -> _Placeholder:
            return self

        def __repr__(self) -> str:
            return f"typing.{self._name}"

    Any = _Placeholder("Any")
    BinaryIO = _Placeholder("BinaryIO")
    Literal = _Placeholder("Literal")
    NoReturn = _Placeholder("NoReturn")

    class Generic:
        """The base of a generic class: ``C[int]`` is ``C`` (no slots of its own, so records keep theirs)."""

        __slots__ = ()

        def __class_getitem__(cls, params: object) -> type:
            return cls

    def TypeVar(name: str, *constraints: object, **options: object) -> str:
        return name

    def cast(typ: object, value: object) -> object:
        return value

    def overload(func: object) -> object:
        return func

    def dataclass_transform(**options: object) -> object:
        return lambda func: func

"""``@record``: the standard library's dataclasses, without their start-up cost.

``dataclasses.dataclass`` writes the source of ``__init__``, ``__repr__``, ``__eq__``, ``__hash__``,
``__setattr__`` and ``__delattr__`` of every class and compiles it when the module is imported: about
1 ms per class on a 2-CPU machine, which made class creation a third of ``vlint FILE``'s cold start
(85 classes on one launch; see docs/performance.md). ``record`` gives the same classes for the features
vlint uses (``frozen``, ``slots``, ``field(default=…, default_factory=…, repr=…, hash=…, compare=…)``,
``__post_init__``, ``Generic`` bases), at a fraction of that:

* ``__init__`` is compiled once the class has made :data:`COMPILE_AFTER` instances (a class that makes
  a few never pays: until then a generic ``__init__`` assigns the same fields, defaults and factories
  and calls ``__post_init__``), with the same signature, defaults, factories and ``__post_init__`` call
  as a dataclass;
* ``__repr__``, ``__eq__``, ``__hash__`` and the frozen ``__setattr__``/``__delattr__`` are closures over
  the field names (``operator.attrgetter``), so nothing else is compiled;
* the module does not import :mod:`dataclasses` (which imports :mod:`inspect`, ``ast``, ``dis``,
  ``tokenize``…: ~7 ms of every start on this machine): it has its own :class:`Field`, :func:`field`,
  :func:`fields`, :func:`replace`, :func:`asdict`, :func:`astuple`, :func:`is_record`, :data:`MISSING` and
  :class:`FrozenInstanceError`, which do what their ``dataclasses`` namesakes do. A record keeps its
  fields in ``__record_fields__``, so ``dataclasses`` functions do not take records (use these).

``tests/core/test_record.py`` checks each behaviour against ``dataclasses.dataclass`` on the same class.
What a dataclass has and a record does not (``order``, ``kw_only``, ``InitVar``, ``init=False`` fields,
``unsafe_hash``) raises ``TypeError`` at class creation rather than behaving differently.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from operator import attrgetter

from vlint.core.typing_names import Any, Generic, TypeVar, dataclass_transform, overload

_T = TypeVar("_T")


class _Missing:
    """The marker of a field without a default (``dataclasses.MISSING``'s counterpart)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()


class FrozenInstanceError(AttributeError):
    """Assigning to or deleting a field of a frozen record (as ``dataclasses.FrozenInstanceError``)."""


class Field(Generic[_T]):
    """One field of a record: what :func:`field` was given, with its ``name`` and ``type`` once the class
    is made (the attributes of ``dataclasses.Field`` that vlint uses)."""

    __slots__ = ("compare", "default", "default_factory", "hash", "init", "metadata", "name", "repr", "type")

    def __init__(
        self,
        default: Any,
        default_factory: Any,
        init: bool,
        repr: bool,
        hash: bool | None,
        compare: bool,
        metadata: Any,
    ) -> None:
        self.name: str = ""
        self.type: Any = None
        self.default = default
        self.default_factory = default_factory
        self.init = init
        self.repr = repr
        self.hash = hash
        self.compare = compare
        self.metadata = {} if metadata is None else metadata

    def __repr__(self) -> str:
        return f"Field(name={self.name!r}, type={self.type!r}, default={self.default!r})"


def field(
    *,
    default: Any = MISSING,
    default_factory: Callable[[], Any] | Any = MISSING,
    init: bool = True,
    repr: bool = True,
    hash: bool | None = None,
    compare: bool = True,
    metadata: Any = None,
) -> Any:
    """A field's options, as ``dataclasses.field`` takes them (``init=False`` is refused at class creation)."""
    if default is not MISSING and default_factory is not MISSING:
        raise ValueError("cannot specify both default and default_factory")
    return Field(default, default_factory, init, repr, hash, compare, metadata)


def fields(obj: Any) -> tuple[Field[Any], ...]:
    """The fields of a record class or instance, in order (``dataclasses.fields``)."""
    try:
        return tuple(obj.__record_fields__.values())
    except AttributeError:
        raise TypeError("must be called with a record type or instance") from None


def is_record(obj: Any) -> bool:
    """Whether ``obj`` is a record class or instance (``dataclasses.is_dataclass``)."""
    return hasattr(obj if isinstance(obj, type) else type(obj), "__record_fields__")


def replace(obj: _T, /, **changes: Any) -> _T:
    """A copy of the record ``obj`` with ``changes`` (``dataclasses.replace``: made by its ``__init__``,
    so ``__post_init__`` runs and an unknown name is a ``TypeError``)."""
    for name in obj.__record_fields__:  # type: ignore[attr-defined]
        if name not in changes:
            changes[name] = getattr(obj, name)
    return obj.__class__(**changes)


def asdict(obj: Any, *, dict_factory: Callable[[list[tuple[str, Any]]], Any] = dict) -> Any:
    """The record ``obj`` as a dict, records, lists, tuples and dicts inside it converted too, other
    values deep-copied (``dataclasses.asdict``)."""
    if not is_record(obj) or isinstance(obj, type):
        raise TypeError("asdict() should be called on record instances")
    return _asdict(obj, dict_factory)


def astuple(obj: Any) -> tuple[Any, ...]:
    """The record ``obj``'s field values as a tuple, converted as :func:`asdict` does (``dataclasses.astuple``)."""
    if not is_record(obj) or isinstance(obj, type):
        raise TypeError("astuple() should be called on record instances")
    return tuple(_asdict(getattr(obj, n), dict) for n in obj.__record_fields__)


def _asdict(obj: Any, dict_factory: Callable[[list[tuple[str, Any]]], Any]) -> Any:
    if is_record(obj) and not isinstance(obj, type):
        return dict_factory([(n, _asdict(getattr(obj, n), dict_factory)) for n in obj.__record_fields__])
    if isinstance(obj, tuple) and hasattr(obj, "_fields"):  # a namedtuple
        return type(obj)(*[_asdict(v, dict_factory) for v in obj])
    if isinstance(obj, (list, tuple)):
        return type(obj)(_asdict(v, dict_factory) for v in obj)
    if isinstance(obj, dict):
        return type(obj)((_asdict(k, dict_factory), _asdict(v, dict_factory)) for k, v in obj.items())
    import copy

    return copy.deepcopy(obj)


_CLASSVAR_PREFIXES = ("ClassVar", "typing.ClassVar", "t.ClassVar")
_UNSUPPORTED_PREFIXES = ("InitVar", "dataclasses.InitVar", "KW_ONLY", "dataclasses.KW_ONLY")
#: the marker of a parameter left to its default_factory (a dataclass uses a private sentinel too)
_HAS_FACTORY = object()


def _is_classvar(annotation: object) -> bool:
    if isinstance(annotation, str):
        text = annotation.strip()
        if text.startswith(_UNSUPPORTED_PREFIXES):
            raise TypeError(f"record does not support {text}: use dataclasses.dataclass")
        return text.startswith(_CLASSVAR_PREFIXES)
    import typing

    return annotation is typing.ClassVar or getattr(annotation, "__origin__", None) is typing.ClassVar


def _fields(cls: type) -> dict[str, Field[Any]]:
    """The fields of ``cls``: those of its record bases first, then its own annotations."""
    fields: dict[str, Field[Any]] = {}
    for base in reversed(cls.__mro__[1:]):
        if "__dataclass_fields__" in base.__dict__:
            raise TypeError(f"a record cannot extend the dataclass {base.__qualname__}: make it a record")
        fields.update(base.__dict__.get("__record_fields__", {}))
    for name, annotation in cls.__dict__.get("__annotations__", {}).items():  # noqa: RUF063 - own, unevaluated
        if _is_classvar(annotation):
            continue
        default = cls.__dict__.get(name, MISSING)
        if type(default).__module__ == "dataclasses" and type(default).__name__ == "Field":
            raise TypeError(f"{cls.__qualname__}.{name}: use vlint.core.record.field, not dataclasses.field")
        f = default if isinstance(default, Field) else field(default=default)
        if not f.init:
            raise TypeError(f"record does not support init=False ({cls.__qualname__}.{name})")
        if f.default is not MISSING and f.default.__class__.__hash__ is None:
            raise ValueError(f"mutable default {type(f.default)} for field {name} is not allowed: use default_factory")
        f.name = name
        f.type = annotation
        if isinstance(default, Field):  # as dataclasses do: the class attribute is the plain default
            if f.default is MISSING:
                delattr(cls, name)
            else:
                setattr(cls, name, f.default)
        fields[name] = f
    seen_default = False
    for f in fields.values():
        has_default = f.default is not MISSING or f.default_factory is not MISSING
        if seen_default and not has_default:
            raise TypeError(f"non-default argument {f.name!r} follows default argument")
        seen_default = seen_default or has_default
    return fields


def _init_function(cls: type, fields: dict[str, Field[Any]], frozen: bool) -> Callable[..., None]:
    """Compile the ``__init__`` a dataclass of the same fields would have."""
    namespace: dict[str, Any] = {"__builtins__": __builtins__, "__setter": object.__setattr__}
    params, body = [], []
    # a frozen record's fields are stored past its __setattr__ as object.__setattr__ would store them, without
    # its attribute lookup: through the slot's own descriptor, or into the instance's __dict__ (a data
    # descriptor of the field's name, a property, keeps object.__setattr__)
    how = {n: _store(cls, n) for n in fields} if frozen else {}
    if "dict" in how.values():
        body.append("__d = self.__dict__")
    for f in fields.values():
        if f.default is not MISSING:
            namespace[f"__default_{f.name}"] = f.default
            params.append(f"{f.name}=__default_{f.name}")
            value = f.name
        elif f.default_factory is not MISSING:
            namespace[f"__factory_{f.name}"] = f.default_factory
            namespace["__HAS_FACTORY"] = _HAS_FACTORY
            params.append(f"{f.name}=__HAS_FACTORY")
            value = f"__factory_{f.name}() if {f.name} is __HAS_FACTORY else {f.name}"
        else:
            params.append(f.name)
            value = f.name
        if not frozen:
            body.append(f"self.{f.name} = {value}")
        elif how[f.name] == "dict":
            body.append(f"__d[{f.name!r}] = {value}")
        elif how[f.name] is not None:
            namespace[f"__set_{f.name}"] = how[f.name]
            body.append(f"__set_{f.name}(self, {value})")
        else:
            body.append(f"__setter(self, {f.name!r}, {value})")
    if hasattr(cls, "__post_init__"):
        body.append("self.__post_init__()")
    source = f"def __init__(self, {', '.join(params)}):\n    " + ("\n    ".join(body) or "pass") + "\n"
    exec(source, namespace)
    init: Callable[..., None] = namespace["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    return init


def _store(cls: type, name: str) -> Any:
    """How ``object.__setattr__`` stores field ``name`` of a ``cls`` instance: the slot's ``__set__``,
    ``"dict"`` (the instance's ``__dict__``), or None (anything else: a data descriptor, no ``__dict__``)."""
    for k in cls.__mro__:
        d = k.__dict__.get(name)
        if d is not None:
            if type(d).__name__ == "member_descriptor":
                return d.__set__
            if hasattr(type(d), "__set__") or hasattr(type(d), "__delete__"):
                return None
            break
    has_dict = any("__dict__" in k.__dict__ for k in cls.__mro__ if k is not object)
    return "dict" if has_dict else None


#: instances a record class makes through the generic ``__init__`` before its own is compiled: a
#: compile costs ~50 µs, the generic path ~2 µs more per instance than the compiled one, and most
#: classes of a one-file lint make a few instances (docs/performance.md)
COMPILE_AFTER = 32
_UNSET: Any = object()


def _lazy_init(holder: list[type], fields: dict[str, Field[Any]], frozen: bool) -> Callable[..., None]:
    """The ``__init__`` a record starts with: it assigns the fields as the compiled one would, and
    after :data:`COMPILE_AFTER` instances (or at once, for a call it does not bind: a missing, extra or
    repeated argument) compiles the real one (:func:`_init_function`), which replaces it on the class
    and raises the same ``TypeError`` a dataclass does."""
    names = tuple(fields)
    index = {n: i for i, n in enumerate(names)}
    # per field: (kind, value) — 0 required, 1 default, 2 default factory
    spec = tuple(
        (1, f.default)
        if f.default is not MISSING
        else (2, f.default_factory)
        if f.default_factory is not MISSING
        else (0, None)
        for f in fields.values()
    )
    assign = object.__setattr__ if frozen else setattr
    made = [0]

    def compiled(self: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        cls = holder[0]
        real = cls.__dict__["__init__"]
        if real is __init__:
            real = _init_function(cls, fields, frozen)
            cls.__init__ = real  # type: ignore[misc]
        real(self, *args, **kwargs)

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        made[0] += 1
        if made[0] > COMPILE_AFTER or len(args) > len(names):
            return compiled(self, args, kwargs)
        values = [*args, *(_UNSET,) * (len(names) - len(args))]
        for key, value in kwargs.items():
            i = index.get(key)
            if i is None or values[i] is not _UNSET:
                return compiled(self, args, kwargs)
            values[i] = value
        for i, value in enumerate(values):
            if value is _UNSET:
                kind, given = spec[i]
                if kind == 0:
                    return compiled(self, args, kwargs)
                values[i] = given if kind == 1 else given()
        for name, value in zip(names, values):  # noqa: B905 - same length by construction
            assign(self, name, value)
        if hasattr(holder[0], "__post_init__"):
            self.__post_init__()

    return __init__


def _getter(names: tuple[str, ...]) -> Callable[[Any], tuple[Any, ...]]:
    """A function returning the tuple of ``names``' values (``attrgetter`` returns a bare value for one)."""
    if not names:
        return lambda _obj: ()
    if len(names) == 1:
        one = attrgetter(names[0])
        return lambda obj: (one(obj),)
    return attrgetter(*names)  # type: ignore[return-value]


def _repr_function(names: tuple[str, ...]) -> Callable[[Any], str]:
    busy: set[int] = set()

    def __repr__(self: Any) -> str:
        key = id(self)
        if key in busy:
            return "..."
        busy.add(key)
        try:
            inner = ", ".join(f"{n}={getattr(self, n)!r}" for n in names)
        finally:
            busy.discard(key)
        return f"{self.__class__.__qualname__}({inner})"

    return __repr__


def _eq_function(names: tuple[str, ...]) -> Callable[[Any, object], Any]:
    key = _getter(names)

    def __eq__(self: Any, other: object) -> Any:
        if other.__class__ is self.__class__:
            return key(self) == key(other)
        return NotImplemented

    return __eq__


def _hash_function(names: tuple[str, ...]) -> Callable[[Any], int]:
    key = _getter(names)

    def __hash__(self: Any) -> int:
        return hash(key(self))

    return __hash__


def _frozen_functions(holder: list[type], names: frozenset[str]) -> tuple[Callable[..., None], Callable[..., None]]:
    def __setattr__(self: Any, name: str, value: Any) -> None:
        cls = holder[0]
        if type(self) is cls or name in names:
            raise FrozenInstanceError(f"cannot assign to field {name!r}")
        super(cls, self).__setattr__(name, value)

    def __delattr__(self: Any, name: str) -> None:
        cls = holder[0]
        if type(self) is cls or name in names:
            raise FrozenInstanceError(f"cannot delete field {name!r}")
        super(cls, self).__delattr__(name)

    return __setattr__, __delattr__


def _slots(cls: type) -> tuple[str, ...]:
    slots = cls.__dict__.get("__slots__", ())
    return (slots,) if isinstance(slots, str) else tuple(slots)


def _with_slots(cls: type, names: tuple[str, ...]) -> type:
    """``cls`` made again with ``__slots__`` of its fields (as ``dataclass(slots=True)`` does)."""
    inherited = set(itertools.chain.from_iterable(_slots(b) for b in cls.__mro__[1:-1]))
    cls_dict = dict(cls.__dict__)
    cls_dict["__slots__"] = tuple(n for n in names if n not in inherited)
    for n in names:
        cls_dict.pop(n, None)  # defaults live in __init__; a class attribute would clash with the slot
    cls_dict.pop("__dict__", None)
    cls_dict.pop("__weakref__", None)
    qualname = cls.__qualname__
    new = type(cls)(cls.__name__, cls.__bases__, cls_dict)
    new.__qualname__ = qualname
    return new


def _getstate(self: Any) -> list[Any]:
    return [getattr(self, f) for f in self.__record_fields__]


def _setstate(self: Any, state: list[Any]) -> None:
    """Unpickling (a worker's results, in the parent: serial, so it counts): each field's slot set
    through its member descriptor, past the frozen ``__setattr__``."""
    cls = type(self)
    slots = cls.__dict__.get("__record_slots__")
    if slots is None:
        slots = tuple(getattr(cls, name) for name in cls.__record_fields__)
        cls.__record_slots__ = slots
    for slot, value in zip(slots, state, strict=True):
        slot.__set__(self, value)


def _set_new(cls: type, name: str, value: Any) -> None:
    if name not in cls.__dict__:
        setattr(cls, name, value)


def _process(cls: type, *, frozen: bool, slots: bool, eq: bool, repr: bool) -> type:
    fields = _fields(cls)
    names = tuple(fields)
    if slots:
        cls = _with_slots(cls, names)
    holder = [cls]
    cls.__record_fields__ = fields  # type: ignore[attr-defined]
    _set_new(cls, "__init__", _lazy_init(holder, fields, frozen))
    if repr:
        _set_new(cls, "__repr__", _repr_function(tuple(n for n, f in fields.items() if f.repr)))
    class_hash = cls.__dict__.get("__hash__", MISSING)
    explicit_hash = not (class_hash is MISSING or (class_hash is None and "__eq__" in cls.__dict__))
    if eq:
        _set_new(cls, "__eq__", _eq_function(tuple(n for n, f in fields.items() if f.compare)))
        if not explicit_hash:
            if frozen:
                hashed = tuple(n for n, f in fields.items() if (f.compare if f.hash is None else f.hash))
                cls.__hash__ = _hash_function(hashed)  # type: ignore[method-assign]
            else:
                cls.__hash__ = None  # type: ignore[assignment]
    if frozen:
        if "__setattr__" in cls.__dict__ or "__delattr__" in cls.__dict__:
            raise TypeError(f"cannot overwrite __setattr__/__delattr__ of frozen record {cls.__qualname__}")
        cls.__setattr__, cls.__delattr__ = _frozen_functions(holder, frozenset(names))  # type: ignore[assignment]
        if slots:
            cls.__getstate__ = _getstate  # type: ignore[attr-defined]
            cls.__setstate__ = _setstate  # type: ignore[attr-defined]
    _set_new(cls, "__match_args__", names)
    return cls


@overload
def record(cls: type[_T], /) -> type[_T]: ...


@overload
def record(  # noqa: F811 - an overload (ruff does not know typing_names' overload for typing's)
    *, frozen: bool = False, slots: bool = False, eq: bool = True, repr: bool = True
) -> Callable[[type[_T]], type[_T]]: ...


@dataclass_transform(field_specifiers=(field, Field))
def record(  # noqa: F811 - the overloads' implementation
    cls: type[_T] | None = None, /, *, frozen: bool = False, slots: bool = False, eq: bool = True, repr: bool = True
) -> type[_T] | Callable[[type[_T]], type[_T]]:
    """A dataclass decorator (``@record``, ``@record(frozen=True, slots=True)``): see the module."""

    def wrap(c: type[_T]) -> type[_T]:
        return _process(c, frozen=frozen, slots=slots, eq=eq, repr=repr)  # type: ignore[return-value]

    return wrap if cls is None else wrap(cls)

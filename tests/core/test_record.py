"""``vlint.core.record.record`` behaves as ``dataclasses.dataclass`` for every feature vlint uses: each
test builds the same class with both decorators and compares what they do."""

from __future__ import annotations

import copy
import dataclasses
import pickle
from types import SimpleNamespace
from typing import ClassVar, Generic, TypeVar

import pytest

from vlint.core import record as records
from vlint.core.record import COMPILE_AFTER, record

T = TypeVar("T")
#: each decorator with the functions that go with it (a record is not a dataclass: vlint.core.record has
#: its own field, fields, replace, asdict, astuple, FrozenInstanceError)
DATACLASS = SimpleNamespace(
    deco=dataclasses.dataclass,
    field=dataclasses.field,
    fields=dataclasses.fields,
    replace=dataclasses.replace,
    asdict=dataclasses.asdict,
    astuple=dataclasses.astuple,
    is_it=dataclasses.is_dataclass,
    FrozenInstanceError=dataclasses.FrozenInstanceError,
)
RECORD = SimpleNamespace(
    deco=record,
    field=records.field,
    fields=records.fields,
    replace=records.replace,
    asdict=records.asdict,
    astuple=records.astuple,
    is_it=records.is_record,
    FrozenInstanceError=records.FrozenInstanceError,
)
BOTH = pytest.mark.parametrize("api", [DATACLASS, RECORD], ids=["dataclass", "record"])
field = records.field  # the tests below that use record alone


def _point(api, **opts):
    @api.deco(**opts)
    class Point:
        x: int
        y: int = 2
        tags: list[str] = api.field(default_factory=list)
        note: str | None = api.field(default=None, compare=False, repr=False)
        LIMIT: ClassVar[int] = 9

    return Point


@BOTH
@pytest.mark.parametrize("opts", [{}, {"slots": True}, {"frozen": True}, {"frozen": True, "slots": True}])
@pytest.mark.parametrize("compiled", [False, True], ids=["generic-init", "compiled-init"])
def test_init_defaults_factories_repr_eq(api, opts, compiled):
    Point = _point(api, **opts)
    if compiled:  # a record compiles its __init__ after COMPILE_AFTER instances: test both
        for i in range(COMPILE_AFTER + 1):
            Point(i)
    a, b = Point(1), Point(1, 2, [], note="other")
    assert (a.x, a.y, a.tags, a.note) == (1, 2, [], None)
    assert a == b  # note does not compare
    assert a != Point(2) and a != (1, 2)
    assert a.tags is not Point(1).tags  # one list per instance
    assert repr(Point(3, 4, ["t"])).endswith("Point(x=3, y=4, tags=['t'])")
    assert Point.LIMIT == 9 and "LIMIT" not in {f.name for f in api.fields(Point)}
    assert [f.name for f in api.fields(a)] == ["x", "y", "tags", "note"]
    assert api.is_it(a) and api.is_it(Point)
    assert Point.__match_args__ == ("x", "y", "tags", "note")
    with pytest.raises(TypeError):
        Point()  # x has no default
    with pytest.raises(TypeError):
        Point(1, 2, [], None, "extra")
    with pytest.raises(TypeError):
        Point(1, z=3)


@BOTH
def test_replace_and_asdict(api):
    Point = _point(api, frozen=True, slots=True)
    a = Point(1, tags=["a"])
    b = api.replace(a, y=5)
    assert (b.x, b.y, b.tags) == (1, 5, ["a"]) and type(b) is Point
    assert api.asdict(b) == {"x": 1, "y": 5, "tags": ["a"], "note": None}
    assert api.astuple(b) == (1, 5, ["a"], None)


@BOTH
@pytest.mark.parametrize("slots", [False, True])
def test_frozen_refuses_assignment_and_hashes(api, slots):
    Point = _point(api, frozen=True, slots=slots)
    a = Point(1)
    with pytest.raises(api.FrozenInstanceError):
        a.x = 2
    with pytest.raises(api.FrozenInstanceError):
        del a.x
    hashed = _point(api, frozen=True, slots=slots)
    h = hashed(1, tags=())  # a tuple: hashable
    assert hash(h) == hash(hashed(1, tags=(), note="ignored"))  # compare=False: not hashed either
    assert {h: 1}[hashed(1, tags=())] == 1


@BOTH
def test_mutable_is_unhashable_and_explicit_methods_are_kept(api):
    deco = api.deco
    Point = _point(api, slots=True)
    with pytest.raises(TypeError):
        hash(Point(1))

    @deco(frozen=True)
    class Versioned:
        major: int
        minor: int = 0

        def __eq__(self, other: object) -> bool:
            return isinstance(other, Versioned) and self.major == other.major

        def __hash__(self) -> int:
            return hash(self.major)

        def __repr__(self) -> str:
            return f"v{self.major}"

    assert Versioned(1, 2) == Versioned(1, 3) and hash(Versioned(1, 2)) == hash(1) and repr(Versioned(4)) == "v4"


@BOTH
def test_slots_have_no_dict_and_mutable_records_assign(api):
    Point = _point(api, slots=True)
    a = Point(1)
    a.y = 7
    assert a.y == 7 and not hasattr(a, "__dict__")
    with pytest.raises(AttributeError):
        a.other = 1  # type: ignore[attr-defined]
    assert "x" in Point.__slots__


@BOTH
def test_post_init_runs_after_fields(api):
    deco = api.deco
    seen = []

    @deco(frozen=True, slots=True)
    class Span:
        start: int
        end: int = 0

        def __post_init__(self) -> None:
            seen.append((self.start, self.end))
            if self.end < self.start:
                raise ValueError("end before start")

    Span(1, 2)
    assert seen == [(1, 2)]
    with pytest.raises(ValueError, match="end before start"):
        Span(3, 1)


@BOTH
@pytest.mark.parametrize("frozen", [False, True])
def test_pickle_and_copy(api, frozen):
    Point = _point(api, frozen=frozen, slots=True)
    globals()["_Pickled"] = Point  # pickle finds classes by module-level name
    Point.__qualname__ = "_Pickled"
    try:
        a = Point(1, 3, ["x"], note="n")
        for b in (pickle.loads(pickle.dumps(a)), copy.copy(a), copy.deepcopy(a)):
            assert b == a and b.note == "n" and b is not a
    finally:
        del globals()["_Pickled"]


@BOTH
def test_generic_base_and_inheritance(api):
    deco = api.deco

    @deco(frozen=True, slots=True)
    class Stated(Generic[T]):
        value: T
        source: str = "cli"

    s = Stated(3)
    assert (s.value, s.source) == (3, "cli") and s == Stated(3, "cli")

    @deco
    class Base:
        a: int
        b: int = 1

    @deco
    class Child(Base):
        c: int = 2

    c = Child(5)
    assert (c.a, c.b, c.c) == (5, 1, 2) and [f.name for f in api.fields(Child)] == ["a", "b", "c"]
    assert repr(c).endswith("Child(a=5, b=1, c=2)")


@BOTH
def test_refuses_what_a_dataclass_refuses(api):
    deco = api.deco
    with pytest.raises(ValueError, match="mutable default"):

        @deco
        class Bad:
            items: list[int] = []  # noqa: RUF012

    with pytest.raises(TypeError, match="non-default argument"):

        @deco
        class Order:
            a: int = 1
            b: int


def test_record_refuses_what_it_does_not_implement():
    with pytest.raises(TypeError, match="init=False"):

        @record
        class NoInit:
            a: int = field(default=1, init=False)


def test_init_compiled_once_after_some_instances():
    @record(slots=True)
    class Lazy:
        a: int
        b: list[int] = field(default_factory=list)

    stub = Lazy.__init__
    for i in range(COMPILE_AFTER):
        assert Lazy(i).a == i
    assert Lazy.__init__ is stub  # a class that makes a few instances never compiles
    Lazy(1)
    assert Lazy.__init__ is not stub  # then the real __init__ replaces the stub
    real = Lazy.__init__
    assert Lazy(2, b=[3]).b == [3] and Lazy(2).b == []
    assert Lazy.__init__ is real


@pytest.mark.parametrize("call", [(), (1, 2, 3), (1,), ("kw",)], ids=["missing", "extra", "ok", "unknown-kw"])
def test_the_generic_init_raises_what_the_compiled_one_does(call):
    @record
    class Fresh:
        a: int
        b: int = 0

    @dataclasses.dataclass
    class Same:
        a: int
        b: int = 0

    args, kwargs = (call, {}) if call != ("kw",) else ((1,), {"c": 2})
    try:
        expected = Same(*args, **kwargs)
    except TypeError as e:
        with pytest.raises(TypeError) as got:
            Fresh(*args, **kwargs)
        assert str(got.value).split("__init__() ", 1)[-1] == str(e).split("__init__() ", 1)[-1]
    else:
        assert (Fresh(*args, **kwargs).a, Fresh(*args, **kwargs).b) == (expected.a, expected.b)


def test_vlint_classes_use_record_not_dataclass():
    """A ``@dataclass`` in ``vlint/`` costs ~1 ms of every start, and importing :mod:`dataclasses` at
    all ~7 ms (it imports inspect): use ``@record`` and vlint.core.record's field/replace/asdict."""
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parents[2] / "vlint"
    found = [
        f"{p.relative_to(root.parent)}:{n}"
        for p in sorted(root.rglob("*.py"))
        if p.name != "record.py"
        for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
        if re.match(r"\s*(@(dataclasses\.)?dataclass\b|import dataclasses\b|from dataclasses import)", line)
    ]
    assert found == []


@BOTH
def test_compiled_frozen_init_stores_as_object_setattr_does(api):
    """The compiled frozen ``__init__`` writes slots through their descriptors and other fields into the
    instance dict: the same values as ``object.__setattr__`` for a slots base under a dict-having child,
    and a property of a field's name on a base is still called (a dataclass's ``__init__`` calls it)."""
    deco = api.deco

    @deco(frozen=True, slots=True)
    class Slotted:
        a: int

    @deco(frozen=True)
    class Child(Slotted):
        b: int = 1

    class Guarded:
        @property
        def c(self) -> int:
            return 7

    @deco(frozen=True)
    class Shadowed(Guarded):
        c: int

    for i in range(COMPILE_AFTER + 1):
        x = Child(i, i + 1)
    assert (x.a, x.b) == (COMPILE_AFTER, COMPILE_AFTER + 1) and "a" not in vars(x) and vars(x) == {"b": x.b}
    with pytest.raises(api.FrozenInstanceError):
        x.a = 1
    for _ in range(COMPILE_AFTER + 1):
        with pytest.raises(AttributeError):
            Shadowed(3)  # the property has no setter: refused, as a dataclass refuses it

"""The indented JSON writer produces json.dumps(indent=2, ensure_ascii=False)'s text exactly."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from vlint.core.json_write import dumps_indented

_scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(alphabet=st.characters(min_codepoint=0, max_codepoint=0x10FFFF))
)
_keys = st.text() | st.integers() | st.booleans() | st.none() | st.floats(allow_nan=False)
_docs = st.recursive(
    _scalars,
    lambda inner: st.lists(inner, max_size=4) | st.tuples(inner, inner) | st.dictionaries(_keys, inner, max_size=4),
    max_leaves=30,
)


@given(_docs)
def test_same_text_as_json_dumps(doc: object) -> None:
    assert dumps_indented(doc) == json.dumps(doc, indent=2, ensure_ascii=False)


def test_edge_values() -> None:
    doc = {"nan": math.nan, "inf": -math.inf, "empty": {}, "none": [], "esc": '\x1b\u2028"\\', 1: [True, None]}
    assert dumps_indented(doc) == json.dumps(doc, indent=2, ensure_ascii=False)


def test_refuses_what_json_refuses() -> None:
    with pytest.raises(TypeError):
        dumps_indented({"x": object()})
    with pytest.raises(TypeError):
        dumps_indented({(1, 2): 1})

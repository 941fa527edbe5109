"""The glob fast path (literal, one ``*``, behind ``**/``) gives the automaton's answer on every input."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from vlint.config.globs import compile_glob
from vlint.core import record as records

ALPHABET = "ab/.*?[]\\"
patterns = st.text(alphabet=ALPHABET, max_size=8)
names = st.text(alphabet="ab/.*", max_size=10)


def _slow(g):
    return records.replace(g, fast=None)


@given(patterns, names)
def test_fast_path_agrees_with_the_automaton(pattern: str, text: str) -> None:
    for fnmatch in (False, True):
        g = compile_glob(pattern, fnmatch=fnmatch)
        assert g.match(text) == _slow(g).match(text), (pattern, text, fnmatch)


def test_common_shapes_take_the_fast_path() -> None:
    for p in ("Dockerfile", "*.yaml", "Dockerfile*", "**/values*.yaml", "**/Makefile"):
        assert compile_glob(p).fast is not None, p
    for p in ("*a*b", "[ab].sh", "a?c", "**", "x/**"):
        assert compile_glob(p).fast is None, p
    g = compile_glob("**/values*.yaml")
    assert g.match("values.yaml") and g.match("chart/values-prod.yaml") and not g.match("chart/values/x.yaml")
    assert not compile_glob("*.yaml").match("a/b.yaml") and compile_glob("*.yaml", fnmatch=True).match("a/b.yaml")

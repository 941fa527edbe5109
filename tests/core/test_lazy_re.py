"""vlint.core.lazy_re: a pattern compiled on first use behaves as the compiled pattern."""

from __future__ import annotations

import pickle
import re

from vlint.core.lazy_re import LazyPattern, lazy_compile


def test_compiled_on_first_use_and_then_kept() -> None:
    p = lazy_compile(r"--(\w+)=(\d+)", re.ASCII)
    assert isinstance(p, LazyPattern)
    assert p._compiled is None  # nothing compiled at construction
    m = p.search("vllm serve --port=8000")
    assert m is not None and m.groups() == ("port", "8000")
    compiled = p._compiled
    assert compiled is not None and compiled.flags & re.ASCII
    # every method answers like the compiled pattern's, and the first compile is the only one
    assert p.match("--a=1") is not None and p.match("x--a=1") is None
    assert p.fullmatch("--a=1") is not None
    assert p.sub(r"\1", "--a=1 --b=2") == "a b"
    assert p.subn("", "--a=1") == ("", 1)
    assert p.split("x--a=1y") == ["x", "a", "1", "y"]
    assert p.findall("--a=1 --b=2") == [("a", "1"), ("b", "2")]
    assert [m.group(1) for m in p.finditer("--a=1 --b=2")] == ["a", "b"]
    assert p._compiled is compiled
    # other attributes come from the compiled pattern too
    assert p.pattern == r"--(\w+)=(\d+)" and p.groups == 2


def test_a_used_pattern_still_pickles() -> None:
    p = lazy_compile(r"ab+")
    assert p.search("abb") is not None
    q = pickle.loads(pickle.dumps(p))
    assert q.search("xabbb").group(0) == "abbb"

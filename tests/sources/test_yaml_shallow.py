"""The shortcut that skips the depth walk on texts that cannot nest MAX_DEPTH levels is sound: whenever it
says "shallow", the composed tree is less deep than MAX_DEPTH."""

from __future__ import annotations

import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from vlint.sources import yaml_nodes
from vlint.sources.yaml_nodes import MAX_DEPTH, _shallow


def _depth(node: yaml.Node) -> int:
    if isinstance(node, yaml.ScalarNode):
        return 1
    kids = [c for kv in node.value for c in kv] if isinstance(node, yaml.MappingNode) else node.value
    return 1 + max((_depth(c) for c in kids), default=0)


def _nest(depth: int, kinds: list[int]) -> object:
    doc: object = "x"
    for i in range(depth):
        k = kinds[i % len(kinds)]
        doc = [doc] if k == 0 else {"k": doc} if k == 1 else [doc, "y"] if k == 2 else {"a": 1, "b": doc}
    return doc


@settings(deadline=None)
@given(st.integers(1, 260), st.lists(st.integers(0, 3), min_size=1, max_size=4), st.sampled_from([None, True, False]))
def test_shallow_texts_are_shallow(depth: int, kinds: list[int], flow: bool | None) -> None:
    text = yaml.dump(_nest(depth, kinds), default_flow_style=flow, width=10**6)
    if _shallow(text):
        (doc,) = list(yaml.compose_all(text, Loader=yaml_nodes._Loader))
        assert _depth(doc) < MAX_DEPTH


def test_deep_and_aliased_texts_are_walked() -> None:
    assert not _shallow("a: " + "[" * 250 + "]" * 250 + "\n")
    assert not _shallow("- " * 250 + "x\n")
    assert not _shallow("a: &x [1]\nb: *x\n")  # an alias: the walk decides (cycles, nesting through anchors)
    assert _shallow("apiVersion: v1\nkind: Pod\nspec:\n  containers:\n  - name: c\n    args: [--a, --b]\n")

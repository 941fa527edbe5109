"""Safe YAML loading: the same verdicts whatever libyaml build PyYAML carries."""

from __future__ import annotations

import pytest
import yaml

from vlint.sources import yaml_nodes
from vlint.sources.base import SourceError


def _fresh(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(yaml_nodes, "_last", None)


def test_deep_nesting_is_refused_with_our_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    _fresh(monkeypatch)
    text = "a: " + "[" * (yaml_nodes.MAX_DEPTH + 5) + "]" * (yaml_nodes.MAX_DEPTH + 5) + "\n"
    with pytest.raises(SourceError, match=f"nested deeper than {yaml_nodes.MAX_DEPTH} levels"):
        yaml_nodes.compose_all(text, "deep.yaml")


def test_libyaml_own_nesting_limit_reads_as_ours(monkeypatch: pytest.MonkeyPatch) -> None:
    """libyaml ≥ 0.2.6 stops at 1000 levels before vlint measures: the message must not change."""
    _fresh(monkeypatch)
    mark = yaml.Mark("deep.yaml", 0, 0, 1000, None, None)

    def refuse(*_a: object, **_k: object) -> list[object]:
        raise yaml.scanner.ScannerError(
            None, None, "exceeded maximum nesting depth (while increasing flow level)", mark
        )

    monkeypatch.setattr(yaml, "compose_all", refuse)
    with pytest.raises(SourceError, match=f"nested deeper than {yaml_nodes.MAX_DEPTH} levels") as e:
        yaml_nodes.compose_all("x: 1\n", "deep.yaml")
    assert (e.value.line, e.value.column) == (1, 1001)


def test_other_yaml_errors_keep_libyaml_wording(monkeypatch: pytest.MonkeyPatch) -> None:
    _fresh(monkeypatch)
    with pytest.raises(SourceError, match="invalid YAML") as e:
        yaml_nodes.compose_all("a: [1, 2\n", "bad.yaml")
    assert e.value.line is not None


@pytest.mark.parametrize("alias", [False, True])
@pytest.mark.parametrize("extra", [-1, 0, 1])
def test_depth_limit_is_exact_with_and_without_aliases(
    monkeypatch: pytest.MonkeyPatch, alias: bool, extra: int
) -> None:
    """A document exactly MAX_DEPTH deep (scalar leaves counted) passes; one level more is refused —
    with or without an alias in the document."""
    _fresh(monkeypatch)
    n = yaml_nodes.MAX_DEPTH - 1 + extra  # collections around one scalar: n + 1 levels
    body = "[" * n + "x" + "]" * n
    text = f"a: &k 1\nb: *k\nc: {body}\n" if alias else f"c: {body}\n"
    # the top mapping is one more level
    if n + 2 > yaml_nodes.MAX_DEPTH:
        with pytest.raises(SourceError, match="nested deeper"):
            yaml_nodes.compose_all(text, "d.yaml")
    else:
        assert yaml_nodes.compose_all(text, "d.yaml")

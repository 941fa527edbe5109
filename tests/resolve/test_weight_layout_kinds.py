"""weight_layout sizes each kind of layer once where nothing names a layer: the same layout as sizing
every layer on its own, for the bundled catalog's quantized models that take the shortcut and every
fourth unquantized one (all of
them take ~1 s; ``bench/fuzz.py`` is not needed: the catalog is fixed data)."""

from __future__ import annotations

import pytest

from vlint.resolve.catalog import catalog_ids, lookup_catalog
from vlint.resolve.quant_scheme import _names_no_layer
from vlint.resolve.weight_sizes import layout_of, weight_layout


def _by_kind(arch) -> bool:
    return arch.quant is None or arch.quant.layer_independent


def test_same_layout_as_layer_by_layer() -> None:
    differ = []
    checked = 0
    for i, mid in enumerate(catalog_ids()):
        arch = lookup_catalog(mid)
        if arch is None or arch.block_pattern or (arch.quant is None and i % 4) or not _by_kind(arch):
            continue
        checked += 1
        if weight_layout.__wrapped__(arch) != layout_of(arch, by_kind=False):
            differ.append(mid)
    assert checked > 100
    assert differ == []


def test_layer_naming_schemes_size_each_layer() -> None:
    quantized = [a.quant for a in map(lookup_catalog, catalog_ids()) if a is not None and a.quant is not None]
    assert any(q.layer_independent and q.ignore for q in quantized)  # e.g. ignore: [lm_head]
    naming = [q for q in quantized if q.per_module or any(any(c.isdigit() for c in str(p)) for p in q.ignore)]
    assert naming and not any(q.layer_independent for q in naming)


@pytest.mark.parametrize(
    ("pattern", "style", "free"),
    [
        ("lm_head", "ct", True),
        ("re:.*mlp.gate$", "ct", True),
        ("re:.*self_attn", "ct", True),
        ("model.layers.0.mlp.gate", "ct", False),
        ("re:model.layers.[0-9].mlp", "ct", False),
        ("re:.*layers\\.\\d\\.mlp", "ct", False),
        ("re:.*layers...mlp", "ct", False),  # three wildcards span a one-digit index
        ("re:model\\.layers\\.\\w\\.mlp", "ct", False),
        ("*.mlp.gate", "glob", True),
        ("model.layers.?.mlp", "glob", False),
        ("model.layers.[12].mlp", "glob", False),
        ("visual", "substring", True),
        ("layers.1.", "substring", False),
    ],
)
def test_which_entries_can_single_out_a_layer(pattern: str, style: str, free: bool) -> None:
    assert _names_no_layer(pattern, style) is free

"""weight_layout sizes each kind of layer once where nothing names a layer: the same layout as sizing
every layer on its own, for the bundled catalog's quantized models that take the shortcut and every
fourth unquantized one (all of
them take ~1 s; ``bench/fuzz.py`` is not needed: the catalog is fixed data)."""

from __future__ import annotations

from vlint.resolve.catalog import catalog_ids, lookup_catalog
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
    quantized = [a for a in map(lookup_catalog, catalog_ids()) if a is not None and a.quant is not None]
    assert any(a.quant.layer_independent for a in quantized)
    named = [a for a in quantized if a.quant.ignore or a.quant.per_module]
    assert named and not any(a.quant.layer_independent for a in named)

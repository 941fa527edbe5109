"""Fixtures of the model-catalog tests: the builder's fixture catalog as vlint's package data."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from vlint.resolve import catalog as ms

ROOT = Path(__file__).resolve().parents[2]


def _builder():
    """tools/build_model_catalog.py (a maintainer script, not a package module)."""
    if str(ROOT / "tools") not in sys.path:
        sys.path.insert(0, str(ROOT / "tools"))
    import build_model_catalog

    return build_model_catalog


@pytest.fixture()
def fixture_catalog(tmp_path, monkeypatch):
    """The builder's fixture catalog as vlint's package data (caches cleared around the test)."""
    _builder().build(ROOT / "tests" / "data" / "model_catalog", tmp_path)
    monkeypatch.setattr(ms, "data_dir", lambda: tmp_path)
    ms._index.cache_clear()
    ms.catalog_record.cache_clear()
    yield tmp_path
    ms._index.cache_clear()
    ms.catalog_record.cache_clear()

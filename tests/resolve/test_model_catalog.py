"""The bundled model catalog loader (vlint.resolve.model_sources): lazy, aliases, revisions."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from vlint.resolve import catalog as ms

ROOT = Path(__file__).resolve().parents[2]


def test_ids_aliases_case_and_revision(fixture_catalog):
    ids = ms.catalog_ids()
    assert ids == sorted(ids) and len(ids) == 6 and "org/dense" in ids
    assert "org/dense-instruct" not in ids  # an alias is not an id
    for ref in (
        "org/dense",
        "ORG/Dense",
        "org/dense-instruct",  # alias
        "org/dense@main",
        "org/dense@0123456789abcdef0123456789abcdef01234567",
        "org/dense-instruct@v1.0",
        "hf://org/dense",
    ):
        assert ms.resolve_catalog_id(ref) == "org/dense", ref
    assert ms.resolve_catalog_id("org/unknown") is None
    assert ms.lookup_catalog("org/unknown") is None


def test_arch_keeps_source_confidence_and_sizes(fixture_catalog):
    a = ms.lookup_catalog("org/quant-awq")
    assert a is not None and a.name == "org/quant-awq"
    assert a.source.startswith("bundled catalog: github:example/mirror@")
    assert a.confidence == "high"
    assert a.weight_bytes == 123456 and a.weight_bytes_source == "model.safetensors.index.json metadata.total_size"
    assert a.quant_method == "awq" and a.quant_bits == 4
    d = ms.lookup_catalog("org/dense-instruct")
    assert d is not None and d.params == 202048 and not d.params_estimated
    assert d.aliases == ("org/dense-instruct",)
    m = ms.lookup_catalog("org/modelopt-fp8")
    assert m is not None and m.weight_bytes is None and m.weight_bytes_source is None and m.params_estimated


def test_a_lookup_parses_only_its_own_record(fixture_catalog):
    """Every other line is overwritten with garbage of the same length: a lookup still works, so it
    read its own byte range only; the full listing is what breaks."""
    body = (fixture_catalog / "models.jsonl").read_bytes()
    index = json.loads((fixture_catalog / "models.index.json").read_text())["ids"]
    _, off, length = index["org/moe-fp8"]
    garbled = bytearray(b"#" * len(body))
    for pos in {tuple(p) for p in index.values()}:
        garbled[pos[1] + pos[2]] = ord("\n")
    garbled[off : off + length] = body[off : off + length]
    (fixture_catalog / "models.jsonl").write_bytes(bytes(garbled))
    a = ms.lookup_catalog("org/moe-fp8")
    assert a is not None and a.num_experts == 4
    assert ms.catalog_records() == []  # the whole-file reader refuses the garbled file


def test_missing_or_broken_catalog_is_empty(tmp_path, monkeypatch):
    monkeypatch.setattr(ms, "data_dir", lambda: tmp_path)
    ms._index.cache_clear()
    ms.catalog_record.cache_clear()
    try:
        assert ms.catalog_ids() == [] and ms.lookup_catalog("org/dense") is None
        (tmp_path / "models.index.json").write_text("{not json")
        ms._index.cache_clear()
        assert ms.lookup_catalog("org/dense") is None
    finally:
        ms._index.cache_clear()
        ms.catalog_record.cache_clear()


def test_plain_import_does_not_read_the_catalog():
    """Importing the module (every lint run does) reads no catalog file."""
    import subprocess

    code = (
        "import builtins, vlint.resolve.catalog, vlint.resolve.model_sources\n"
        "opened = []\n"
        "real = builtins.open\n"
        "builtins.open = lambda f, *a, **k: (opened.append(str(f)), real(f, *a, **k))[1]\n"
        "import vlint.run.lint\n"
        "print(any('models.' in p for p in opened))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_bundled_catalog_lookup():
    a = ms.lookup_catalog("facebook/opt-125m")
    assert a is not None and a.model_type == "opt" and a.num_layers == 12 and a.confidence == "medium"
    assert a.tie_word_embeddings  # absent from its config: OPTConfig's default, flagged as derived
    assert ms.resolve_catalog_id("meta-llama/llama-3.1-405b-instruct-fp8") == (
        "meta-llama/Meta-Llama-3.1-405B-Instruct-FP8"
    )

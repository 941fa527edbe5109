"""``vlint models [QUERY]`` and ``vlint models show ID``."""

from __future__ import annotations

import json

from click.testing import CliRunner

from vlint.cli import main
from vlint.resolve import catalog as ms


def run(*args: str):
    return CliRunner().invoke(main, ["models", *args])


def test_list_filters_and_shows_columns(fixture_catalog):
    r = run()
    assert r.exit_code == 0, r.output
    header = r.output.splitlines()[0].split()
    assert header == ["ID", "ARCHITECTURE", "PARAMS", "DTYPE", "QUANTIZATION", "CONTEXT", "SOURCE"]
    assert "6 model(s)" in r.output
    r = run("awq")
    rows = [ln for ln in r.output.splitlines()[1:] if ln.startswith("org/")]
    assert [ln.split()[0] for ln in rows] == ["org/quant-awq"]
    assert "awq 4-bit" in rows[0] and "float16" in rows[0] and "4096" in rows[0]
    r = run("moe", "fp8")  # every word must match
    assert [ln.split()[0] for ln in r.output.splitlines()[1:] if ln.startswith("org/")] == ["org/moe-fp8"]


def test_list_json(fixture_catalog):
    r = run("--format", "json", "dense")
    data = json.loads(r.output)
    assert data["version"] == 1 and data["count"] == 1
    m = data["models"][0]
    assert m["id"] == "org/dense" and m["aliases"] == ["org/dense-instruct"]
    assert m["params"] == 202048 and m["params_estimated"] is False
    assert m["architecture"] == "LlamaForCausalLM" and m["context"] == 4096 and m["quantization"] is None
    assert m["source"][0].startswith("github:example/configs@")


def test_no_match_is_said(fixture_catalog):
    r = run("nothing-like-this")
    assert r.exit_code == 0 and "no model in the bundled catalog matches" in r.output


def test_show_by_alias_and_revision(fixture_catalog):
    r = run("show", "ORG/dense-instruct@main")
    assert r.exit_code == 0, r.output
    out = r.output
    assert out.startswith("org/dense  (looked up as ORG/dense-instruct@main)")
    assert "confidence: high" in out and "github:example/configs@" in out
    assert "derived (not read from a config):" in out and '"num_hidden_layers": 2' in out


def test_show_json_has_every_field(fixture_catalog):
    r = run("show", "org/quant-awq", "--format", "json")
    d = json.loads(r.output)
    assert d["weight_bytes"] == 123456 and d["weight_bytes_source"].startswith("model.safetensors.index.json")
    assert d["quantization"] == {"method": "awq", "bits": 4.0, "group_size": 128}
    assert d["config"]["quantization_config"]["zero_point"] is True
    assert any("model.safetensors.index.json" in s for s in d["source"])


def test_show_unknown_and_usage(fixture_catalog):
    r = run("show", "org/none")
    assert r.exit_code == 2 and "not in the bundled model catalog" in r.output
    assert run("show").exit_code == 2


def test_bundled_catalog_lists():
    ids = ms.catalog_ids()
    assert len(ids) >= 80
    r = run("--format", "json")
    assert r.exit_code == 0
    assert json.loads(r.output)["count"] == len(ids)

"""tools/build_model_catalog.py on a small fixture (tests/data/model_catalog), and the bundled
catalog it produced (vlint/data/models.jsonl + models.index.json)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "tests" / "data" / "model_catalog"


sys.path.insert(0, str(ROOT / "tools"))
import build_model_catalog as bmc  # noqa: E402


@pytest.fixture()
def built(tmp_path):
    models, report, stats = bmc.build(FIXTURE, tmp_path)
    lines = [json.loads(x) for x in (tmp_path / "models.jsonl").read_text().splitlines()]
    index = json.loads((tmp_path / "models.index.json").read_text())
    return models, report, stats, {r["id"]: r for r in lines}, index, tmp_path


def test_records_and_index(built):
    _, _, stats, recs, index, out = built
    assert sorted(recs) == [
        "org/bare-text",
        "org/conflict",
        "org/dense",
        "org/modelopt-fp8",
        "org/moe-fp8",
        "org/quant-awq",
    ]
    assert stats["parsed"] == 6
    body = (out / "models.jsonl").read_bytes()
    for key, (mid, off, length) in index["ids"].items():
        rec = json.loads(body[off : off + length])
        assert rec["id"] == mid
        assert key == mid.lower() or key in [a.lower() for a in rec.get("aliases", [])]
    assert index["ids"]["org/dense-instruct"][0] == "org/dense"  # alias → its record
    assert index["records"] == 6


def test_shared_record_kept_and_harvest_citation_added(built):
    recs = built[3]
    d = recs["org/dense"]
    assert d["params"] == 202048 and d["weight_bytes"] == 404096
    assert d["confidence"] == "high"
    assert d["source"][0].startswith("github:example/configs@")
    assert any(s.startswith("github:example/other@") for s in d["source"])  # agreeing copy cited


def test_index_total_size_is_the_weight_bytes(built):
    r = built[3]["org/quant-awq"]
    assert r["weight_bytes"] == 123456
    assert r["weight_bytes_source"] == "model.safetensors.index.json metadata.total_size"
    assert "_name_or_path" not in r["config"] and "transformers_version" not in r["config"]
    assert r["config"]["quantization_config"]["bits"] == 4  # kept as published


def test_modelopt_quant_config_and_transformers_default(built):
    r = built[3]["org/modelopt-fp8"]
    q = r["config"]["quantization_config"]
    assert q["quant_method"] == "modelopt" and q["quant_algo"] == "FP8" and q["exclude_modules"] == ["lm_head"]
    assert r["config"]["tie_word_embeddings"] is True  # absent → Gemma2Config default, flagged
    assert any("tie_word_embeddings=True: absent, default of" in d for d in r["derived"])
    assert any("hf_quant_config.json" in d for d in r["derived"])
    assert "weight_bytes" not in r  # not found → absent, never guessed


def test_long_module_lists_summarised(built):
    r = built[3]["org/moe-fp8"]
    q = r["config"]["quantization_config"]
    assert q["modules_to_not_convert"] == ["model.layers.*.mlp.gate", "lm_head"]
    assert q["weight_block_size"] == [128, 128]
    assert "id2label" not in r["config"]
    assert any("71 module names summarised as 2 patterns" in n for n in r["notes_short"])


def test_conflicting_copies_are_reported(built):
    _, report, _, recs, _, _ = built
    assert recs["org/conflict"]["config"]["num_hidden_layers"] == 2  # the high-confidence copy
    assert any(line.startswith("conflict org/conflict") for line in report)


def test_misread_records_are_dropped_and_reported(built):
    _, report, stats, recs, _, _ = built
    assert "org/no-layers" not in recs and "org/tiny-1B" not in recs
    assert any(r.startswith("dropped org/no-layers: vlint reads no shapes") for r in report)
    assert any(r.startswith("dropped org/tiny-1B: vlint counts") and "the name says 1B" in r for r in report)
    assert stats["dropped_no_shapes"] == 1 and stats["dropped_size_vs_name"] == 1


def test_transformers_fills_absent_core_fields(built):
    r = built[3]["org/bare-text"]
    tc = r["config"]["text_config"]
    assert tc["num_hidden_layers"] == 2 and tc["hidden_size"] == 64
    assert tc["vocab_size"] == 1000  # present in the config: never overwritten
    assert any("resolved by transformers.models.llama.configuration_llama.LlamaConfig" in d for d in r["derived"])


def test_size_in_name():
    assert bmc._size_in_name("Qwen/Qwen3-30B-A3B") == 30e9
    assert bmc._size_in_name("facebook/opt-125m") == 125e6
    assert bmc._size_in_name("Qwen/Qwen2.5-1.5B-Instruct") == 1.5e9
    assert bmc._size_in_name("meta-llama/Llama-4-Scout-17B-16E-Instruct") is None  # active size
    assert bmc._size_in_name("mistralai/Mixtral-8x7B-v0.1") is None
    assert bmc._size_in_name("openai/gpt-oss-20b") == 20e9
    assert bmc._size_in_name("google/gemma-2-9b-it") == 9e9


def test_reproducible(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    bmc.build(FIXTURE, a)
    bmc.build(FIXTURE, b)
    for name in ("models.jsonl", "models.index.json"):
        assert (a / name).read_bytes() == (b / name).read_bytes()


def test_summarise_module_map_keeps_distinct_settings():
    m = {f"model.layers.{i}.mlp.experts.{j}.up_proj": {"quant_algo": "NVFP4"} for i in range(3) for j in range(30)}
    m["model.layers.0.self_attn.q_proj"] = {"quant_algo": "FP8"}
    m["model.layers.1.self_attn.q_proj"] = {"quant_algo": "NVFP4"}
    out = bmc._summarise_module_map(m)
    assert out["model.layers.*.mlp.experts.*.up_proj"] == {"quant_algo": "NVFP4"}
    assert out["model.layers.*.self_attn.q_proj"] == [{"quant_algo": "FP8"}, {"quant_algo": "NVFP4"}]


# ---- the bundled catalog ------------------------------------------------------------------------

DATA = ROOT / "vlint" / "data"


def test_bundled_catalog_counts():
    """Issue 12: at least 400 models and 80 quantized checkpoints… (see docs/models.md)."""
    body = (DATA / "models.jsonl").read_text().splitlines()
    recs = [json.loads(x) for x in body]
    assert len(recs) >= 400
    quant = [r for r in recs if bmc.quant_config(r["config"]) is not None]
    assert len(quant) >= 80  # issue 12's target
    for mid in (
        "facebook/opt-125m",
        "meta-llama/Llama-3.1-8B",
        "openai/gpt-oss-20b",
        "Qwen/Qwen3-8B-FP8",
        "nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-NVFP4",  # hybrid Nemotron-H, held back until its parser was fixed
    ):
        assert any(r["id"] == mid for r in recs), mid


def test_bundled_catalog_is_consistent():
    index = json.loads((DATA / "models.index.json").read_text())
    body = (DATA / "models.jsonl").read_bytes()
    ids = {pos[0] for pos in index["ids"].values()}
    assert len(ids) == index["records"] == len(body.splitlines())
    for mid, off, length in index["ids"].values():
        rec = json.loads(body[off : off + length])
        assert rec["id"] == mid
        assert rec.get("confidence") in ("high", "medium", "low")
        assert rec.get("source"), mid  # every record cites where its config came from
        if rec.get("weight_bytes"):
            assert rec.get("weight_bytes_source"), mid


def _additions(tmp_path: Path) -> Path:
    p = tmp_path / "additions.json"
    p.write_text(
        json.dumps(
            {
                "_about": "ignored",
                "Org/dense-w8a8": {  # sorts before its base, which is itself an addition
                    "base": "org/dense-copy",
                    "quantization_config": {"quant_method": "compressed-tensors", "format": "int-quantized"},
                    "confidence": "low",
                    "source": ["card"],
                },
                "org/dense-copy": {
                    "config": {
                        "model_type": "llama",
                        "num_hidden_layers": 2,
                        "hidden_size": 64,
                        "num_attention_heads": 4,
                        "intermediate_size": 128,
                        "vocab_size": 100,
                    },
                    "vision_params": 7,
                    "confidence": "low",
                    "source": ["a copy"],
                },
                "org/awq-of-dense": {
                    "base": "org/dense-instruct",
                    "confidence": "medium",
                    "source": ["card"],
                    "quantization_config": {"quant_method": "awq", "bits": 4},
                },
                "org/orphan": {"base": "org/absent", "confidence": "low", "source": ["x"]},
            }
        )
    )
    return p


def test_additions_built_from_a_base_record(tmp_path):
    models, report, _ = bmc.build(FIXTURE, tmp_path / "out", additions=_additions(tmp_path))
    awq = models["org/awq-of-dense"]
    assert awq["config"]["quantization_config"]["quant_method"] == "awq"
    assert awq["config"]["hidden_size"] == models["org/dense"]["config"]["hidden_size"]  # base via its alias
    assert awq["params"] == models["org/dense"]["params"] and "same shapes" in awq["params_source"]
    assert awq["weight_bytes"] is None  # the base's size is not the quantized checkpoint's
    assert any("architecture from the catalog record of org/dense-instruct" in d for d in awq["derived"])
    w8 = models["Org/dense-w8a8"]
    assert w8["config"]["num_hidden_layers"] == 2 and w8["vision_params"] == 7  # an addition as base
    assert "org/orphan" not in models
    assert any("org/orphan" in line and "not in the catalog" in line for line in report)


def test_extend_adds_to_the_built_catalog_only(tmp_path):
    out = tmp_path / "out"
    bmc.build(FIXTURE, out)
    before = (out / "models.jsonl").read_bytes()
    bmc.build(tmp_path / "no-shared-data", out, extend=True)  # nothing to add: byte-identical
    assert (out / "models.jsonl").read_bytes() == before
    models, _, _ = bmc.build(tmp_path / "no-shared-data", out, extend=True, additions=_additions(tmp_path))
    assert "org/awq-of-dense" in models and "org/dense" in models
    kept = {json.loads(x)["id"]: x for x in before.decode().splitlines()}
    now = {json.loads(x)["id"]: x for x in (out / "models.jsonl").read_text().splitlines()}
    assert all(now[k] == v for k, v in kept.items())  # existing records untouched


def test_extend_builds_a_changed_addition_again(tmp_path):
    out = tmp_path / "out"
    bmc.build(FIXTURE, out)
    adds = _additions(tmp_path)
    bmc.build(tmp_path / "none", out, extend=True, additions=adds)
    data = json.loads(adds.read_text())
    data["org/awq-of-dense"]["confidence"] = "low"
    adds.write_text(json.dumps(data))
    models, _, _ = bmc.build(tmp_path / "none", out, extend=True, additions=adds)
    rec = models["org/awq-of-dense"]
    assert rec["confidence"] == "low"
    assert any(s.startswith("architecture (record of org/dense-instruct): ") for s in rec["source"])  # base cited


def test_additions_chain_of_bases(tmp_path):
    """An addition whose base is an addition built from a base record (Qwen3.8-27B-FP8 on Qwen3.8-27B on
    Qwen3.5-27B): built after it, whatever the ids' order."""
    p = tmp_path / "additions.json"
    p.write_text(
        json.dumps(
            {
                "Aa/fp8-of-mid": {  # sorts first; its base is built from a catalog record
                    "base": "org/mid",
                    "quantization_config": {"quant_method": "fp8", "weight_block_size": [128, 128]},
                    "confidence": "low",
                    "source": ["recipe"],
                },
                "org/mid": {"base": "org/dense-instruct", "confidence": "low", "source": ["card"]},
            }
        )
    )
    models, report, _ = bmc.build(FIXTURE, tmp_path / "out", additions=p)
    fp8 = models["Aa/fp8-of-mid"]
    assert fp8["config"]["quantization_config"]["quant_method"] == "fp8"
    assert fp8["config"]["hidden_size"] == models["org/dense"]["config"]["hidden_size"]
    assert not any("Aa/fp8-of-mid" in line for line in report)


def test_alias_entries_name_a_renamed_repository(tmp_path):
    """``alias_of`` entries add an alias (with its evidence in ``derived``) to an existing record; a
    rebuild with ``--extend`` leaves the bytes as they are."""
    p = tmp_path / "additions.json"
    p.write_text(
        json.dumps(
            {
                "neworg/dense": {"alias_of": "org/dense", "source": ["org renamed to neworg (a PR)"]},
                "org/quant-awq": {"alias_of": "org/dense", "source": ["x"]},  # an id: not an alias
                "neworg/absent": {"alias_of": "org/absent", "source": ["x"]},
            }
        )
    )
    out = tmp_path / "out"
    models, report, _ = bmc.build(FIXTURE, out, additions=p)
    rec = models["org/dense"]
    assert "neworg/dense" in rec["aliases"] and "org/quant-awq" not in rec["aliases"]
    assert "alias neworg/dense: org renamed to neworg (a PR)" in rec["derived"]
    assert "neworg/absent" not in json.dumps(models)
    assert any("neworg/absent" in line for line in report) and any("itself an id" in line for line in report)
    index = json.loads((out / "models.index.json").read_text())["ids"]
    assert index["neworg/dense"][0] == "org/dense"
    before = (out / "models.jsonl").read_bytes()
    bmc.build(tmp_path / "none", out, extend=True, additions=p)
    assert (out / "models.jsonl").read_bytes() == before


def test_an_addition_without_a_source_is_skipped_and_reported(tmp_path):
    """Issue 29: a record never enters the catalog without its evidence (an empty or absent ``source``)."""
    p = tmp_path / "additions.json"
    p.write_text(
        json.dumps(
            {
                "org/no-source": {"base": "org/dense-instruct", "confidence": "low"},
                "org/empty-source": {"base": "org/dense-instruct", "confidence": "low", "source": ["  "]},
                "org/cited": {"base": "org/dense-instruct", "confidence": "low", "source": ["its card"]},
            }
        )
    )
    models, report, _ = bmc.build(FIXTURE, tmp_path / "out", additions=p)
    assert "org/cited" in models
    for mid in ("org/no-source", "org/empty-source"):
        assert mid not in models
        assert f"addition {mid}: no source cited; skipped" in report


def test_every_bundled_addition_cites_its_evidence():
    """tools/catalog_additions.json: each entry cites where its facts come from, and one built from another
    record (``base``) lists what was inferred; each is in the bundled catalog (as an id or an alias)."""
    entries = json.loads(bmc.ADDITIONS.read_text())
    index = json.loads((DATA / "models.index.json").read_text())["ids"]
    for mid, add in entries.items():
        if mid.startswith("_"):
            continue
        assert [s for s in add["source"] if s.strip()], mid
        if "alias_of" in add:
            assert index[mid.lower()][0].lower() == add["alias_of"].lower(), mid
            continue
        assert add["confidence"] in ("high", "medium", "low"), mid
        assert "config" in add or "base" in add, mid
        if "base" in add:
            assert add.get("derived") or add["confidence"] != "low", mid  # a low record says what it inferred
        assert index[mid.lower()][0] == mid, mid

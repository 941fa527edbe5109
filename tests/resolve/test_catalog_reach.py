"""Issue 29 (memory reach on unseen repositories): commonly served models added to the bundled catalog,
and the quantized checkpoints named after them that name inference now sizes through them."""

from __future__ import annotations

import pytest

from vlint.resolve.catalog import arch_from_record, catalog_record, resolve_catalog_id
from vlint.resolve.model_names import infer_arch, match


@pytest.mark.parametrize(
    ("mid", "base"),
    [
        # a sibling or a minor update of a catalog model whose card says it keeps the architecture
        ("Qwen/Qwen3-Next-80B-A3B-Instruct", "Qwen/Qwen3-Next-80B-A3B-Thinking"),
        ("deepseek-ai/DeepSeek-V3-0324", "deepseek-ai/DeepSeek-V3"),
        ("deepseek-ai/DeepSeek-R1-0528", "deepseek-ai/DeepSeek-R1"),
    ],
)
def test_an_addition_built_from_its_base_has_the_base_shapes(mid: str, base: str) -> None:
    rec, ref = catalog_record(mid), catalog_record(base)
    assert rec is not None and ref is not None
    assert rec["confidence"] in ("medium", "low") and rec["derived"]  # what was inferred is said
    a, b = arch_from_record(rec), arch_from_record(ref)
    assert a is not None and b is not None
    assert (a.num_layers, a.num_kv_heads, a.head_dim, a.params) == (b.num_layers, b.num_kv_heads, b.head_dim, b.params)
    assert a.quant_method == b.quant_method  # a FP8 release stays FP8 (DeepSeek), a bf16 one bf16


def test_a_fine_tune_from_its_own_config_copy_keeps_its_base_shapes() -> None:
    """zephyr-7b-beta's config copy (not built from a base) agrees with Mistral-7B-v0.1, which its card names."""
    a = arch_from_record(catalog_record("HuggingFaceH4/zephyr-7b-beta") or {})
    b = arch_from_record(catalog_record("mistralai/Mistral-7B-v0.1") or {})
    assert a is not None and b is not None and a.params == b.params and a.num_kv_heads == b.num_kv_heads


@pytest.mark.parametrize(
    ("mid", "layers", "lo", "hi"),
    [
        ("BAAI/bge-m3", 24, 0.5e9, 0.6e9),  # XLM-R large encoder, sized as vLLM builds it (no LM head)
        ("BAAI/bge-large-en-v1.5", 24, 0.3e9, 0.36e9),
        ("sentence-transformers/all-MiniLM-L12-v2", 12, 30e6, 36e6),
        ("cross-encoder/ms-marco-MiniLM-L-6-v2", 6, 20e6, 25e6),
    ],
)
def test_pooling_models_added(mid: str, layers: int, lo: float, hi: float) -> None:
    a = arch_from_record(catalog_record(mid) or {})
    assert a is not None and a.num_layers == layers and lo < a.params < hi


def test_qwen35_small_from_its_transcribed_config() -> None:
    rec = catalog_record("Qwen/Qwen3.5-0.8B")
    assert rec is not None and rec["confidence"] == "medium"
    a = arch_from_record(rec)
    assert a is not None and a.num_layers == 24 and a.num_kv_heads == 2 and a.head_dim == 256
    assert 0.7e9 < a.params < 0.8e9  # text model; the vision tower is counted apart
    assert rec["config"]["text_config"]["layer_types"].count("full_attention") == 6
    four = catalog_record("Qwen/Qwen3.5-4B")
    assert four is not None and four["confidence"] == "low" and four["derived"]  # assembled: said so
    b = arch_from_record(four)
    assert b is not None and b.num_layers == 32 and b.num_kv_heads == 4 and b.vision_params == 0  # tower not found


@pytest.mark.parametrize(
    ("ref", "base", "method"),
    [
        # unknown before: the quantized re-upload of a model the catalog lacked
        ("TheBloke/zephyr-7B-beta-AWQ", "HuggingFaceH4/zephyr-7b-beta", "awq"),
        # (Qwen/Qwen3-Next-80B-A3B-Instruct-FP8 has a record of its own since issue 29)
        ("cyankiwi/Qwen3-Next-80B-A3B-Instruct-AWQ-4bit", "Qwen/Qwen3-Next-80B-A3B-Instruct", "awq"),
        ("cyankiwi/Qwen3.5-4B-AWQ-4bit", "Qwen/Qwen3.5-4B", "awq"),
    ],
)
def test_a_quantized_checkpoint_of_an_added_model_is_sized(ref: str, base: str, method: str) -> None:
    assert resolve_catalog_id(ref) is None
    m = match(ref)
    assert m is not None and m.base == base and m.suffix is not None
    found = infer_arch(ref)
    assert found is not None and found[0].quant is not None and found[0].quant.method == method


@pytest.mark.parametrize(
    "ref",
    [
        "TheBloke/zephyr-7B-beta-GGUF",  # a format no convention sizes: never the unquantized model
        "someone/zephyr-7b-gemma-v0.1",  # another model that only shares a word
    ],
)
def test_no_reach_without_a_matching_name(ref: str) -> None:
    assert match(ref) is None

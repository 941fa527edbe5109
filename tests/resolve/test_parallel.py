"""Tensor-parallel sizes vLLM accepts for a model (vllm/config/model.py verify_with_parallel_config and
QKVParallelLinear's head split, 0.6.6 → 0.33.0)."""

from __future__ import annotations

import pytest

from vlint.core import record as records
from vlint.resolve.catalog import lookup_catalog
from vlint.resolve.parallel import tp_split_error, tp_splits

QWEN7B = lookup_catalog("Qwen/Qwen2.5-7B-Instruct")  # 28 query heads, 4 KV heads, vocab 152,064
PHI4 = lookup_catalog("microsoft/phi-4")  # 40 / 10, vocab 100,352
LLAMA8B = lookup_catalog("meta-llama/Llama-3.1-8B-Instruct")  # 32 / 8
DSV2_LITE = lookup_catalog("deepseek-ai/DeepSeek-V2-Lite")  # MLA, 16 heads


def test_catalog_facts() -> None:
    assert QWEN7B is not None and (QWEN7B.num_attention_heads, QWEN7B.num_kv_heads) == (28, 4)
    assert LLAMA8B is not None and (LLAMA8B.num_attention_heads, LLAMA8B.num_kv_heads) == (32, 8)
    assert DSV2_LITE is not None and DSV2_LITE.is_mla and DSV2_LITE.num_attention_heads == 16


@pytest.mark.parametrize(
    ("tp", "ok"),
    [(1, True), (2, True), (3, False), (4, True), (6, False), (7, False), (8, False), (14, False), (28, False)],
)
def test_qwen_28_heads_4_kv_heads(tp: int, ok: bool) -> None:
    assert QWEN7B is not None
    assert tp_splits(QWEN7B, tp) is ok


def test_the_messages_are_vllms() -> None:
    assert QWEN7B is not None
    e8 = tp_split_error(QWEN7B, 8)
    assert e8 is not None and e8.kv_heads is None
    assert e8.message == (
        "ValueError: Total number of attention heads (28) must be divisible by tensor parallel size (8)."
    )
    e7 = tp_split_error(QWEN7B, 7)  # 28 % 7 == 0, but the padded vocabulary is not split 7 ways
    assert e7 is not None and e7.message == "AssertionError: 152064 is not divisible by 7" and e7.kv_heads is None
    assert PHI4 is not None
    e4 = tp_split_error(PHI4, 4)  # 40 heads and the vocabulary split 4 ways; the 10 KV heads do not
    assert e4 is not None and e4.message == "AssertionError: 10 is not divisible by 4" and e4.kv_heads == 10
    assert tp_splits(PHI4, 2)
    fewer_gpus = records.replace(QWEN7B, num_attention_heads=24, num_kv_heads=8, vocab_size=64 * 6)
    e6 = tp_split_error(fewer_gpus, 6)  # fewer GPUs than KV heads: 8 / 6
    assert e6 is not None and e6.message == "AssertionError: 8 is not divisible by 6"


def test_llama_and_mla() -> None:
    assert LLAMA8B is not None and DSV2_LITE is not None
    assert [t for t in (1, 2, 4, 8, 16, 32) if tp_splits(LLAMA8B, t)] == [1, 2, 4, 8, 16, 32]
    assert not tp_splits(LLAMA8B, 3)
    # MLA: only the query heads count (one latent KV vector, not split per head)
    assert tp_splits(DSV2_LITE, 16) and not tp_splits(DSV2_LITE, 32)


def test_vocabulary_split_comes_before_the_kv_heads() -> None:
    """Qwen3-14B (40 heads, 8 KV heads, vocab 151,936) at TP5: 40 % 5 == 0 passes the config check,
    then the embedding fails first: "151936 is not divisible by 5" (calibration README §8)."""
    qwen14 = lookup_catalog("Qwen/Qwen3-14B")
    assert qwen14 is not None and (qwen14.num_attention_heads, qwen14.num_kv_heads) == (40, 8)
    e = tp_split_error(qwen14, 5)
    assert e is not None and e.message == "AssertionError: 151936 is not divisible by 5"
    odd_vocab = records.replace(qwen14, vocab_size=151_900)  # padded to a multiple of 64 first
    e = tp_split_error(odd_vocab, 5)
    assert e is not None and e.message == "AssertionError: 151936 is not divisible by 5"
    assert tp_splits(qwen14, 8)

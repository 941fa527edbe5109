"""Tensor-parallel sizes vLLM accepts for a model (vllm/config/model.py verify_with_parallel_config and
QKVParallelLinear's head split, 0.6.6 → 0.33.0)."""

from __future__ import annotations

import dataclasses

import pytest

from vlint.resolve.model_arch import lookup_catalog
from vlint.resolve.parallel import tp_split_error, tp_splits

QWEN7B = lookup_catalog("Qwen/Qwen2.5-7B-Instruct")  # 28 query heads, 4 KV heads
LLAMA8B = lookup_catalog("meta-llama/Llama-3.1-8B-Instruct")  # 32 / 8
DSV2_LITE = lookup_catalog("deepseek-ai/DeepSeek-V2-Lite")  # MLA, 16 heads


def test_catalog_facts() -> None:
    assert QWEN7B is not None and (QWEN7B.num_attention_heads, QWEN7B.num_kv_heads) == (28, 4)
    assert LLAMA8B is not None and (LLAMA8B.num_attention_heads, LLAMA8B.num_kv_heads) == (32, 8)
    assert DSV2_LITE is not None and DSV2_LITE.is_mla and DSV2_LITE.num_attention_heads == 16


@pytest.mark.parametrize(
    ("tp", "ok"),
    [(1, True), (2, True), (3, False), (4, True), (6, False), (7, False), (8, False), (14, False), (28, True)],
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
    e7 = tp_split_error(QWEN7B, 7)  # 28 % 7 == 0, but the 4 KV heads cannot be replicated 7/4 times
    assert e7 is not None and e7.message == "AssertionError: 7 is not divisible by 4" and e7.kv_heads == 4
    six = dataclasses.replace(QWEN7B, num_attention_heads=24, num_kv_heads=8)  # fewer GPUs than KV heads
    e6 = tp_split_error(six, 6)
    assert e6 is not None and e6.message == "AssertionError: 8 is not divisible by 6"


def test_llama_and_mla() -> None:
    assert LLAMA8B is not None and DSV2_LITE is not None
    assert [t for t in (1, 2, 4, 8, 16, 32) if tp_splits(LLAMA8B, t)] == [1, 2, 4, 8, 16, 32]
    assert not tp_splits(LLAMA8B, 3)
    # MLA: only the query heads count (one latent KV vector, not split per head)
    assert tp_splits(DSV2_LITE, 16) and not tp_splits(DSV2_LITE, 32)

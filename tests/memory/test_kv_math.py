"""Hand-worked KV-cache arithmetic (vllm-behavior.md §3.3-3.4; calibration README §7)."""

from __future__ import annotations

from vlint.memory.kv import build_layout, estimate_max_model_len, kv_tokens, layer_specs, pp_partition
from vlint.resolve.catalog import lookup_catalog
from vlint.resolve.model_arch import model_arch_from_config

KIB = 1024


def _all_layers(arch, tp: int, kv_bytes: float = 2.0, hybrid: bool = False, indexer_skips: bool = False):
    return layer_specs(
        arch,
        layer_range=(0, arch.num_layers),
        tp=tp,
        kv_bytes=kv_bytes,
        model_dtype_bytes=2,
        kv_cache_dtype="auto",
        treat_windowed_as_full=not hybrid,
        indexer_skips=indexer_skips,
    )


def per_token(arch, tp: int, kv_bytes: float = 2.0, hybrid: bool = False) -> float:
    return sum(s.bytes_per_token for s in _all_layers(arch, tp, kv_bytes, hybrid))


def test_llama31_8b_per_token():
    a = lookup_catalog("meta-llama/Llama-3.1-8B-Instruct")
    assert per_token(a, 1) == 128 * KIB  # 2 x 32 layers x 8 heads x 128 x 2 B
    assert per_token(a, 2) == 64 * KIB
    assert per_token(a, 1, kv_bytes=1) == 64 * KIB  # fp8 KV
    assert per_token(a, 8) == 16 * KIB
    assert per_token(a, 16) == 16 * KIB  # KV-head floor of 1: replicated


def test_llama31_70b_tp8():
    a = lookup_catalog("meta-llama/Llama-3.1-70B-Instruct")
    assert per_token(a, 8) == 40 * KIB  # 80 layers x 1 head x 256 x 2 B


def test_deepseek_v2_lite_mla_replicated():
    a = lookup_catalog("deepseek-ai/DeepSeek-V2-Lite-Chat")
    assert a.is_mla
    expected = 27 * (512 + 64) * 2  # 31,104 B = 30.4 KiB
    assert per_token(a, 1) == expected
    assert per_token(a, 2) == expected


def test_gemma3_27b_hybrid_groups_reproduce_logged_tokens():
    # r067: 19.53 GiB available -> 36,560 tokens in 0.19 (7 groups of 10 layers, 8 padding layers)
    a = lookup_catalog("google/gemma-3-27b-it")
    specs = layer_specs(
        a,
        layer_range=(0, 62),
        tp=1,
        kv_bytes=2,
        model_dtype_bytes=2,
        kv_cache_dtype="auto",
        treat_windowed_as_full=False,
    )
    lay = build_layout(specs, 16, hybrid_manager=True)
    assert lay.num_groups == 7 and lay.group_size == 10 and lay.padding_layers == 8
    blocks = int(19.53 * 2**30 // lay.bytes_per_block)
    assert kv_tokens(lay, blocks, 8192, 8192, group_aware=False, engine="V1") == 36560


def test_sliding_window_request_needs_less_than_full():
    a = lookup_catalog("openai/gpt-oss-20b")
    specs = layer_specs(
        a,
        layer_range=(0, 24),
        tp=1,
        kv_bytes=2,
        model_dtype_bytes=2,
        kv_cache_dtype="auto",
        treat_windowed_as_full=False,
    )
    lay = build_layout(specs, 16, hybrid_manager=True)
    assert lay.num_groups == 2
    full = build_layout(
        layer_specs(
            a,
            layer_range=(0, 24),
            tp=1,
            kv_bytes=2,
            model_dtype_bytes=2,
            kv_cache_dtype="auto",
            treat_windowed_as_full=True,
        ),
        16,
        hybrid_manager=False,
    )
    # 128-token window: a 131072-token request keeps ~half the KV of the all-full layout
    from vlint.memory.kv import request_bytes

    assert request_bytes(lay, 131072, 8192) < 0.6 * request_bytes(full, 131072, 8192)


def test_mamba_hybrid_state_pages():
    cfg = {
        "model_type": "nemotron_h",
        "architectures": ["NemotronHForCausalLM"],
        "hidden_size": 4096,
        "num_hidden_layers": 8,
        "num_attention_heads": 32,
        "num_key_value_heads": 8,
        "head_dim": 128,
        "intermediate_size": 16384,
        "vocab_size": 131072,
        "hybrid_override_pattern": "M-M*M-M*",
        "mamba_num_heads": 128,
        "mamba_head_dim": 64,
        "n_groups": 8,
        "ssm_state_size": 128,
        "conv_kernel": 4,
    }
    a = model_arch_from_config(cfg, name="toy-hybrid", source="test")
    assert a.layer_counts() == {"mamba": 4, "no_kv": 2, "full_attention": 2}
    specs = layer_specs(
        a,
        layer_range=(0, 8),
        tp=1,
        kv_bytes=2,
        model_dtype_bytes=2,
        kv_cache_dtype="auto",
        treat_windowed_as_full=False,
    )
    mamba = [s for s in specs if s.kind == "mamba"]
    conv = 3 * (128 * 64 + 2 * 8 * 128)
    ssm = 128 * 64 * 128
    assert mamba[0].state_bytes == (conv + ssm) * 2


def test_pp_partition_like_vllm():
    assert pp_partition(32, 2) == [16, 16]
    assert pp_partition(62, 4) == [15, 16, 16, 15]
    assert pp_partition(5, 4) == [1, 1, 2, 1]


def test_binary_search_max_model_len():
    a = lookup_catalog("meta-llama/Llama-3.1-8B-Instruct")
    specs = layer_specs(
        a,
        layer_range=(0, 32),
        tp=1,
        kv_bytes=2,
        model_dtype_bytes=2,
        kv_cache_dtype="auto",
        treat_windowed_as_full=True,
    )
    lay = build_layout(specs, 16, hybrid_manager=False)
    avail = 10_000 * 128 * KIB  # exactly 625 blocks of 16 tokens
    assert estimate_max_model_len(lay, avail, 131072, 8192) == 10_000
    assert estimate_max_model_len(lay, 100, 131072, 8192) == 0


def test_context_parallel_spreads_a_request_over_ranks():
    """DCP × PCP: a full-attention layer keeps cdiv(max_model_len, cp) tokens per rank
    ([0.19.1] vllm/v1/kv_cache_interface.py:112-121) and the logged size is multiplied by cp
    ([0.19.1] vllm/v1/core/kv_cache_utils.py:1307-1316)."""
    from vlint.memory.kv import max_concurrency, request_bytes

    specs = _all_layers(lookup_catalog("deepseek-ai/DeepSeek-V2-Lite-Chat"), tp=8)
    one = build_layout(specs, 64, hybrid_manager=False)
    dcp = build_layout(specs, 64, hybrid_manager=False, context_parallel=8)
    per_block = one.bytes_per_block
    assert request_bytes(dcp, 163840, 8192) == 163840 // 8 // 64 * per_block
    assert request_bytes(one, 163840, 8192) == 8 * request_bytes(dcp, 163840, 8192)
    assert request_bytes(dcp, 1000, 8192) == 2 * per_block  # cdiv(1000, 8) = 125 tokens = 2 blocks
    assert kv_tokens(dcp, 1000, 163840, 8192, group_aware=False, engine="V1") == 1000 * 64 * 8
    assert max_concurrency(dcp, 1000, 163840, 8192) == 8 * max_concurrency(one, 1000, 163840, 8192)
    avail = 100 * per_block
    assert estimate_max_model_len(dcp, avail, 10**6, 8192) == 100 * 64 * 8


def _sparse_per_token(model: str, version: str) -> float:
    from vlint.core.version import V
    from vlint.memory.estimate import INDEXER_SKIP_SINCE

    specs = _all_layers(lookup_catalog(model), tp=8, indexer_skips=V(version) >= V(INDEXER_SKIP_SINCE))
    return sum(s.bytes_per_token for s in specs)


def test_sparse_attention_indexer_key_cache():
    """DeepSeek-V3.2 / GLM-5: beside the 576-element latent, each layer's lightning indexer keeps 128 fp8
    keys + one fp32 scale per token (132 B, [0.19.1] deepseek_v2.py:663-670), in the same KV group: vLLM's
    own tests/v1/core/test_kv_cache_utils.py asserts a block of such layers costs
    ``n * mla_page + n * idx_page`` with the indexer spec head_size=132, dtype=uint8."""
    assert _sparse_per_token("deepseek-ai/DeepSeek-V3.2", "0.19.1") == 61 * (576 * 2 + 132)
    # GLM-5.2's IndexCache (index_topk_freq 4, offset 3): until 0.23 every layer builds its indexer ...
    assert _sparse_per_token("zai-org/GLM-5.2", "0.23.0") == 78 * (576 * 2 + 132)
    # ... from 0.24.0 only layers 0-2 and every 4th after (6, 10, ..., 74) do: 21 of 78
    assert _sparse_per_token("zai-org/GLM-5.2", "0.24.0") == 78 * 576 * 2 + 21 * 132
    dense_mla = lookup_catalog("deepseek-ai/DeepSeek-V3")
    assert dense_mla.index_head_dim is None  # no index_topk: no indexer


def test_indexer_pattern_and_mtp_layers():
    from vlint.core.record import replace as dc_replace

    a = dc_replace(lookup_catalog("zai-org/GLM-5.2"), index_topk_pattern="FFSFS")
    assert [a.has_indexer(i, skipped_layers_drop_it=True) for i in range(5)] == [True, True, False, True, False]
    assert a.has_indexer(5, skipped_layers_drop_it=True)  # past the pattern: keeps its indexer
    assert a.has_indexer(a.num_layers, skipped_layers_drop_it=True)  # an MTP layer always builds one
    assert all(a.has_indexer(i, skipped_layers_drop_it=False) for i in range(5))

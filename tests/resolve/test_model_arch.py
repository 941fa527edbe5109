from __future__ import annotations

import json
import struct
from pathlib import Path

from vlint.core.version import V
from vlint.resolve.catalog import lookup_catalog
from vlint.resolve.model_arch import (
    CHUNKED,
    FULL,
    LINEAR,
    SLIDING,
    default_max_model_len,
    derived_max_model_len,
    model_arch_from_config,
)
from vlint.resolve.model_files import local_weight_bytes, read_safetensors_header
from vlint.resolve.model_sources import load_model_arch
from vlint.resolve.weight_sizes import estimated_checkpoint_bytes

LLAMA = {
    "architectures": ["LlamaForCausalLM"],
    "model_type": "llama",
    "hidden_size": 4096,
    "num_hidden_layers": 32,
    "num_attention_heads": 32,
    "num_key_value_heads": 8,
    "intermediate_size": 14336,
    "vocab_size": 128256,
    "max_position_embeddings": 131072,
    "torch_dtype": "bfloat16",
    "rope_scaling": {"factor": 8.0, "original_max_position_embeddings": 8192, "rope_type": "llama3"},
}


def test_dense_llama_derived_head_dim_and_len():
    a = model_arch_from_config(LLAMA, name="x", source="test")
    assert a.head_dim == 128 and a.num_kv_heads == 8 and a.is_dense_full_attention
    assert derived_max_model_len(a, V("0.19.0")) == (131072, "max_position_embeddings")
    assert a.params == 8030261248  # exact layout count (= catalog / safetensors)


def test_nested_multimodal_text_config():
    cfg = {
        "architectures": ["Mistral3ForConditionalGeneration"],
        "model_type": "mistral3",
        "vision_config": {"hidden_size": 1024},
        "text_config": {**LLAMA, "model_type": "mistral"},
    }
    a = model_arch_from_config(cfg, name="mm", source="test")
    assert a.is_multimodal and a.num_layers == 32 and a.text_model_type == "mistral"
    cfg2 = {"architectures": ["InternVLChatModel"], "model_type": "internvl_chat", "llm_config": LLAMA}
    assert model_arch_from_config(cfg2, name="i", source="t").hidden_size == 4096


def test_moe_mla_and_yarn_version_switch():
    a = lookup_catalog("deepseek-ai/DeepSeek-V2-Lite")
    assert a.is_mla and a.kv_lora_rank == 512 and a.qk_rope_head_dim == 64
    assert a.num_experts == 64 and a.num_moe_layers == 26
    # YaRN: ≤0.29 rescales original_max_position_embeddings × factor; ≥0.30 leaves it
    cfg = {
        **LLAMA,
        "max_position_embeddings": 32768,
        "rope_scaling": {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 32768},
    }
    q = model_arch_from_config(cfg, name="q", source="t")
    assert derived_max_model_len(q, V("0.29.0"))[0] == 131072
    assert derived_max_model_len(q, V("0.30.0"))[0] == 32768


def test_longrope_default():
    a = lookup_catalog("microsoft/Phi-3-mini-128k-instruct")
    assert derived_max_model_len(a, V("0.19.0"))[0] == 131072
    assert default_max_model_len(a, V("0.19.0"))[0] == 4096


def test_sliding_and_chunked_patterns():
    g2 = lookup_catalog("google/gemma-2-27b-it")
    assert g2.layer_types[:2] == (SLIDING, FULL)
    g3 = lookup_catalog("google/gemma-3-27b-it")
    assert g3.layer_counts() == {SLIDING: 52, FULL: 10}
    scout = lookup_catalog("meta-llama/Llama-4-Scout-17B-16E-Instruct")
    assert scout.layer_counts() == {CHUNKED: 36, FULL: 12}
    qwen_sw = model_arch_from_config(
        {**LLAMA, "model_type": "qwen2", "sliding_window": 4096, "use_sliding_window": False},
        name="q",
        source="t",
    )
    assert qwen_sw.is_dense_full_attention


def test_hybrid_linear_attention():
    cfg = {
        **LLAMA,
        "model_type": "qwen3_next",
        "num_hidden_layers": 4,
        "layer_types": ["linear_attention", "linear_attention", "linear_attention", "full_attention"],
        "linear_num_key_heads": 16,
        "linear_num_value_heads": 32,
        "linear_key_head_dim": 128,
        "linear_value_head_dim": 128,
        "linear_conv_kernel_dim": 4,
    }
    a = model_arch_from_config(cfg, name="h", source="t")
    assert a.layer_counts() == {LINEAR: 3, FULL: 1} and a.is_hybrid
    assert a.state_ssm_elems == 32 * 128 * 128
    assert a.state_conv_elems == 3 * (16 * 128 * 2 + 32 * 128)


def test_qwen3_next_without_layer_types_follows_its_config_class():
    """Qwen3NextConfig derives layer_types from full_attention_interval (default 4) when the config.json
    does not list them, as Qwen/Qwen3-Next-80B-A3B's does not (huggingface/transformers
    configuration_qwen3_next.py)."""
    cfg = {
        **LLAMA,
        "model_type": "qwen3_next",
        "num_hidden_layers": 8,
        "full_attention_interval": 4,
        "linear_num_key_heads": 16,
        "linear_num_value_heads": 32,
        "linear_key_head_dim": 128,
        "linear_value_head_dim": 128,
        "linear_conv_kernel_dim": 4,
    }
    a = model_arch_from_config(cfg, name="h", source="t")
    assert a.layer_types == (LINEAR, LINEAR, LINEAR, FULL) * 2 and a.has_state_layers
    catalog = lookup_catalog("Qwen/Qwen3-Next-80B-A3B-Thinking")
    assert catalog.layer_counts() == {LINEAR: 36, FULL: 12}
    # a model type that is not Qwen3-Next keeps full attention without layer_types
    assert model_arch_from_config({**cfg, "model_type": "qwen3"}, name="q", source="t").is_dense_full_attention


def test_quantized_weight_bytes():
    awq = {**LLAMA, "quantization_config": {"quant_method": "awq", "bits": 4, "group_size": 128}}
    a = model_arch_from_config(awq, name="awq", source="t")
    assert a.quant_method == "awq" and a.quant_bits == 4
    est = estimated_checkpoint_bytes(a)
    assert 5.3e9 < est < 6.0e9  # catalog AWQ-INT4 Llama-3.1-8B: 5,727,854,592 B
    fp8 = lookup_catalog("nvidia/Llama-3.1-70B-Instruct-FP8")
    assert fp8.kv_cache_quant_algo == "fp8" and fp8.weight_bytes == 72656376832
    mx = lookup_catalog("openai/gpt-oss-20b")
    assert mx.quant_method == "mxfp4" and mx.quant_skips_attention


def _write_safetensors(path: Path, tensors: dict[str, tuple[str, list[int]]]) -> int:
    header, off = {}, 0
    sizes = {"BF16": 2, "F32": 4}
    for name, (dt, shape) in tensors.items():
        n = sizes[dt]
        for s in shape:
            n *= s
        header[name] = {"dtype": dt, "shape": shape, "data_offsets": [off, off + n]}
        off += n
    raw = json.dumps(header).encode()
    path.write_bytes(struct.pack("<Q", len(raw)) + raw + b"\0" * off)
    return off


def test_safetensors_header_only(tmp_path):
    d = tmp_path / "m"
    d.mkdir()
    (d / "config.json").write_text(json.dumps(LLAMA))
    n = _write_safetensors(d / "model-00001.safetensors", {"a": ("BF16", [4, 8]), "b": ("F32", [3])})
    assert n == 4 * 8 * 2 + 12
    assert "a" in read_safetensors_header(d / "model-00001.safetensors")
    assert local_weight_bytes(d) == (n, "safetensors headers of 1 file(s)")
    a = load_model_arch("m", base_dir=tmp_path)
    assert a is not None and a.weight_bytes == n
    (d / "model.safetensors.index.json").write_text(json.dumps({"metadata": {"total_size": 123}}))
    assert load_model_arch(str(d)).weight_bytes == 123


def test_catalog_lookup_alias_and_unknown(tmp_path):
    a = load_model_arch("META-LLAMA/Meta-Llama-3.1-8B-Instruct")
    assert a is not None and a.name == "meta-llama/Llama-3.1-8B" and a.weight_bytes == 16060522496
    assert load_model_arch("meta-llama/Llama-3.1-8B-Instruct@main") is not None
    assert load_model_arch("someone/unknown-model-7B") is None
    assert load_model_arch("") is None
    d = tmp_path / "x"
    d.mkdir()
    (d / "config.json").write_text(json.dumps(LLAMA))
    assert load_model_arch("alias-x", base_dir=tmp_path, model_paths={"alias-x": "x"}) is not None


def test_encoder_only_models_have_no_kv_cache_and_no_lm_head() -> None:
    """BERT-style encoders (embedding and reranker models): two dense matrices per MLP, no LM head, and an
    attention vLLM keeps no KV cache for (EncoderOnlyAttentionSpec). Published sizes: bge-large-en 335M,
    bge-reranker-v2-m3 568M, all-MiniLM-L6-v2 22.7M (the counts leave out position embeddings and norms)."""
    from vlint.resolve.catalog import lookup_catalog

    for mid, published in (
        ("BAAI/bge-large-en", 335e6),
        ("BAAI/bge-reranker-v2-m3", 568e6),
        ("sentence-transformers/all-MiniLM-L6-v2", 22.7e6),
    ):
        arch = lookup_catalog(mid)
        assert arch is not None and arch.params is not None
        assert abs(arch.params - published) / published < 0.02, (mid, arch.params)
        assert not arch.has_kv_cache and set(arch.layer_types) == {"encoder_attention"}
    llama = lookup_catalog("meta-llama/Llama-3.1-8B-Instruct")
    assert llama is not None and llama.has_kv_cache

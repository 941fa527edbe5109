"""Vision-tower parameters counted from vision_config (Qwen3-VL / Qwen3.5 encoders)."""

from __future__ import annotations

from vlint.resolve.model_arch import model_arch_from_config
from vlint.resolve.vision_params import qwen3_vision_params, vision_tower_params

TINY = {
    "hidden_size": 8,
    "intermediate_size": 16,
    "depth": 2,
    "patch_size": 2,
    "temporal_patch_size": 2,
    "in_channels": 3,
    "num_position_embeddings": 4,
    "out_hidden_size": 6,
    "spatial_merge_size": 2,
    "deepstack_visual_indexes": [1],
}


def test_qwen3_vision_tower_by_hand():
    h, i, w, out = 8, 16, 32, 6
    embed = 3 * 2 * 2 * 2 * h + h + 4 * h
    block = 4 * h + 3 * h * h + 3 * h + h * h + h + h * i + i + i * h + h
    merger = 2 * h + w * w + w + w * out + out
    post = 2 * w + w * w + w + w * out + out
    assert qwen3_vision_params(TINY) == embed + 2 * block + merger + post
    assert qwen3_vision_params({**TINY, "depth": None}) is None  # a missing size: not guessed


def test_used_only_for_the_modelled_families_and_only_when_absent():
    assert vision_tower_params({"model_type": "qwen3_5", "vision_config": TINY}) == qwen3_vision_params(TINY)
    assert vision_tower_params({"model_type": "llava", "vision_config": TINY}) is None
    text = {
        "model_type": "qwen3",
        "num_hidden_layers": 2,
        "hidden_size": 64,
        "num_attention_heads": 4,
        "num_key_value_heads": 2,
        "intermediate_size": 128,
        "vocab_size": 100,
    }
    cfg = {
        "model_type": "qwen3_vl",
        "architectures": ["Qwen3VLForConditionalGeneration"],
        "text_config": text,
        "vision_config": TINY,
    }
    assert model_arch_from_config(cfg, name="t", source="t").vision_params == qwen3_vision_params(TINY)
    given = model_arch_from_config({**cfg, "vision_params": 5}, name="t", source="t")
    assert given.vision_params == 5


def test_gemma4_vision_tower_by_hand():
    from vlint.resolve.vision_params import gemma4_vision_params

    vc = {
        "hidden_size": 8,
        "intermediate_size": 16,
        "num_hidden_layers": 2,
        "num_attention_heads": 2,
        "num_key_value_heads": 2,
        "head_dim": 4,
        "patch_size": 2,
        "position_embedding_size": 5,
        "standardize": True,
    }
    h, i, hd = 8, 16, 4
    layer = h * 2 * hd + 2 * h * 2 * hd + 2 * hd * h + 2 * hd + 3 * h * i + 4 * h
    assert gemma4_vision_params(vc, 32) == 3 * 4 * h + 2 * 5 * h + 2 * layer + 2 * h + h * 32
    assert gemma4_vision_params(vc, None) is None


def test_gemma4_moe_layers_keep_their_dense_mlp():
    from vlint.resolve.weight_sizes import layer_linears

    text = {
        "model_type": "gemma4_text",
        "num_hidden_layers": 2,
        "hidden_size": 64,
        "num_attention_heads": 4,
        "num_key_value_heads": 2,
        "head_dim": 16,
        "intermediate_size": 96,
        "moe_intermediate_size": 32,
        "num_experts": 8,
        "top_k_experts": 2,
        "enable_moe_block": True,
        "vocab_size": 100,
    }
    arch = model_arch_from_config({"model_type": "gemma4", "text_config": text}, name="g", source="t")
    names = {m.name: m for m in layer_linears(arch, 0)}
    assert names["mlp.up_proj"].out_f == 96 and not names["mlp.up_proj"].expert
    assert names["experts.0.up_proj"].out_f == 32 and names["experts.0.up_proj"].count == 8
    assert "router.proj" in names


def test_qwen2_5_vl_7b_vision_tower_is_the_count_transformers_reports():
    """Qwen2.5-VL-7B-Instruct's `visual` module counted in a real training script after loading the
    checkpoint: 676,550,144 of 8,292,166,656 parameters (search-index file id 49095663873, a public
    Qwen2.5-VL fine-tuning script printing its parameter counts; the same total in HF's numParameters)."""
    from vlint.resolve.model_sources import find_model

    found = find_model("Qwen/Qwen2.5-VL-7B-Instruct")
    assert found.arch is not None and found.arch.vision_params == 676_550_144


def test_qwen2_5_and_qwen2_vision_towers_by_hand():
    from vlint.resolve.vision_params import qwen2_5_vision_params, qwen2_vision_params

    h, i, out, w = 8, 16, 6, 32
    vc = {"hidden_size": h, "intermediate_size": i, "depth": 2, "patch_size": 2, "out_hidden_size": out}
    block = 2 * h + 3 * h * h + 3 * h + h * h + h + h * 2 * i + 2 * i + i * h + h
    assert qwen2_5_vision_params(vc) == 3 * 2 * 4 * h + 2 * block + h + w * w + w + w * out + out
    assert vision_tower_params({"model_type": "qwen2_5_vl", "vision_config": vc}) == qwen2_5_vision_params(vc)
    assert qwen2_5_vision_params({**vc, "out_hidden_size": None}) is None
    e, m, d = 8, 32, 6
    v2 = {"embed_dim": e, "mlp_ratio": 4, "depth": 2, "patch_size": 2, "hidden_size": d}
    block2 = 4 * e + 3 * e * e + 3 * e + e * e + e + e * m + m + m * e + e
    assert qwen2_vision_params(v2) == 3 * 2 * 4 * e + 2 * block2 + 2 * e + w * w + w + w * d + d
    assert vision_tower_params({"model_type": "qwen2_vl", "vision_config": v2}) == qwen2_vision_params(v2)

"""ModelOpt quantization configs as vLLM reads them: the config.json ``ignore`` list, multimodal
module names, MIXED_PRECISION per-layer algorithms, and lossy catalog summaries of ignore lists."""

from __future__ import annotations

from vlint.resolve.quant_scheme import FP8, NVFP4, module_aliases, scheme_from_config


def test_config_json_ignore_is_the_exclude_list():
    # [0.19.0] modelopt.py:311-313: the config.json form names the excluded modules "ignore"
    q = {
        "quant_method": "modelopt",
        "quant_algo": "NVFP4",
        "ignore": ["lm_head", "model.language_model.layers.0.self_attn*"],
    }
    s = scheme_from_config(q)
    assert s is not None and s.fmt == NVFP4
    assert not s.quantizes("model.layers.0.self_attn.q_proj")  # vlint's name, the checkpoint's spelling matches
    assert s.quantizes("model.layers.1.self_attn.q_proj")
    assert s.quantizes("model.layers.0.mlp.down_proj")


def test_module_aliases():
    names = module_aliases("model.layers.3.mlp.experts.0.gate_proj")
    assert "model.language_model.layers.3.mlp.experts.0.gate_proj" in names
    assert "language_model.model.layers.3.block_sparse_moe.experts.0.w1" in names
    assert module_aliases("lm_head") == ("lm_head",)


def test_mixed_precision_per_layer_formats():
    q = {
        "quant_method": "modelopt",
        "quant_algo": "MIXED_PRECISION",
        "ignore": ["mtp*"],
        "quantized_layers": {
            "model.language_model.layers.*.self_attn.q_proj": {"quant_algo": "FP8"},
            "model.language_model.layers.*.mlp.experts": {"quant_algo": "W4A16_NVFP4", "group_size": 16},
            "lm_head": {"quant_algo": "NVFP4", "group_size": 16},
            "model.layers.*.mlp.down_proj": {"quant_algo": "MXFP8"},
        },
    }
    s = scheme_from_config(q)
    assert s is not None and s.method == "modelopt_mixed"
    q_proj = "model.layers.2.self_attn.q_proj"
    assert s.quantizes(q_proj) and s.for_module(q_proj).fmt == FP8
    expert = "model.layers.2.mlp.experts.0.up_proj"  # a parent entry (FusedMoE) covers its experts
    assert s.quantizes(expert, expert=True) and s.for_module(expert).fmt == NVFP4
    assert s.quantizes("lm_head") and s.for_module("lm_head").fmt == NVFP4
    assert not s.quantizes("model.layers.2.self_attn.k_proj")  # in no entry: unquantized
    mx = s.for_module("model.layers.2.mlp.down_proj")
    assert mx.fmt == FP8 and mx.linear_bytes(64, 64) == 64 * 64 + 64 * 2  # 1 byte + e8m0 per 32
    assert s.for_module(q_proj).linear_bytes(64, 64) == 64 * 64 + 4  # fp32 per-tensor scale


def test_a_summary_that_names_every_layer_is_not_applied():
    # the catalog summarised model.layers.1.* / model.layers.2.* (GLM-5.1's dense layers) as
    # model.layers.*.*: applied, nothing would be quantized
    q = {"quant_method": "modelopt", "quant_algo": "NVFP4", "ignore": ["model.layers.0*", "model.layers.*.*"]}
    s = scheme_from_config(q)
    assert s is not None
    assert not s.quantizes("model.layers.0.mlp.down_proj")
    assert s.quantizes("model.layers.5.mlp.experts.0.down_proj", expert=True)

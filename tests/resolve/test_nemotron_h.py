"""Nemotron-H (hybrid Mamba2 / attention / MLP / MoE, one block per layer) parsed as vLLM builds it.

The shapes are those of the published NVIDIA-Nemotron-3-Nano-30B-A3B config.json (a copy is in the
shared harvest: aiconfigurator's model_configs); layer classes per pattern character and their
modules follow [0.33.0] vllm/model_executor/models/nemotron_h.py (ALL_DECODER_LAYER_TYPES).
"""

from __future__ import annotations

from vlint.resolve.model_arch import FULL, MAMBA, NO_KV, model_arch_from_config
from vlint.resolve.weight_sizes import layer_linears, layer_prefix, weight_layout

NANO_PATTERN = "MEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEMEM*EMEMEMEME"

NANO = {
    "architectures": ["NemotronHForCausalLM"],
    "model_type": "nemotron_h",
    "hidden_size": 2688,
    "num_hidden_layers": 52,
    "hybrid_override_pattern": NANO_PATTERN,
    "num_attention_heads": 32,
    "num_key_value_heads": 2,
    "head_dim": 128,
    "intermediate_size": 1856,
    "moe_intermediate_size": 1856,
    "moe_shared_expert_intermediate_size": 3712,
    "n_routed_experts": 128,
    "n_shared_experts": 1,
    "num_experts_per_tok": 6,
    "mamba_num_heads": 64,
    "mamba_head_dim": 64,
    "n_groups": 8,
    "ssm_state_size": 128,
    "conv_kernel": 4,
    "vocab_size": 131072,
    "tie_word_embeddings": False,
    "torch_dtype": "bfloat16",
}


def test_one_block_per_layer():
    a = model_arch_from_config(NANO, name="nano", source="test")
    assert a.block_pattern == NANO_PATTERN
    assert a.layer_counts() == {MAMBA: 23, NO_KV: 23, FULL: 6}
    # only the "E" blocks are MoE (the parser counted all 52 before: 101B parameters)
    assert a.num_moe_layers == 23
    assert a.moe_layer_indices == tuple(i for i, c in enumerate(NANO_PATTERN) if c == "E")
    assert not a.gated_mlp
    assert layer_prefix(a) == "backbone.layers"
    attn = [m.name for m in layer_linears(a, NANO_PATTERN.index("*"))]
    assert attn == ["mixer.q_proj", "mixer.k_proj", "mixer.v_proj", "mixer.o_proj"]  # no MLP
    mamba = {m.name: (m.out_f, m.in_f) for m in layer_linears(a, 0)}
    # in_proj: 2 x (64 x 64) + 2 x 8 x 128 + 64 heads; out_proj: 4096 -> 2688
    assert mamba == {"mixer.in_proj": (2 * 4096 + 2 * 8 * 128 + 64, 2688), "mixer.out_proj": (2688, 4096)}
    moe = {m.name: (m.out_f, m.in_f, m.count) for m in layer_linears(a, 1)}
    assert moe == {
        "mixer.gate": (128, 2688, 1),
        "mixer.experts.0.up_proj": (1856, 2688, 128),  # no gate_proj: relu2 up/down
        "mixer.experts.0.down_proj": (2688, 1856, 128),
        "mixer.shared_experts.up_proj": (3712, 2688, 1),
        "mixer.shared_experts.down_proj": (2688, 3712, 1),
    }


def test_parameter_count_matches_the_name():
    a = model_arch_from_config(NANO, name="nano", source="test")
    assert 30.0e9 < a.params < 33.0e9  # "30B-A3B"
    lay = weight_layout(a)
    assert abs(lay.params_layout - a.params) < 1e6  # layout and count agree
    assert lay.other == 0


def test_layers_block_type_and_latent_moe():
    # newer configs (Nemotron-3 Ultra) write layers_block_type and omit num_hidden_layers
    blocks = ["mamba", "moe", "attention", "moe", "mlp"]
    cfg = {k: v for k, v in NANO.items() if k not in ("hybrid_override_pattern", "num_hidden_layers")}
    cfg.update(layers_block_type=blocks, moe_latent_size=1024)
    a = model_arch_from_config(cfg, name="toy", source="test")
    assert a.block_pattern == "ME*E-"
    assert a.num_layers == 5 and a.num_moe_layers == 2
    moe = {m.name: (m.out_f, m.in_f) for m in layer_linears(a, 1)}
    assert moe["mixer.experts.0.up_proj"] == (1856, 1024)  # experts run in the latent width
    assert moe["mixer.fc1_latent_proj"] == (1024, 2688)
    assert moe["mixer.fc2_latent_proj"] == (2688, 1024)
    assert [m.name for m in layer_linears(a, 4)] == ["mixer.up_proj", "mixer.down_proj"]


def test_modelopt_exclude_list_uses_checkpoint_names():
    cfg = dict(NANO)
    cfg["quantization_config"] = {
        "quant_method": "modelopt",
        "quant_algo": "NVFP4",
        "group_size": 16,
        "exclude_modules": ["lm_head", "backbone.layers.0.mixer.in_proj", "backbone.layers.0.mixer.out_proj"],
    }
    a = model_arch_from_config(cfg, name="nano-nvfp4", source="test")
    lay = weight_layout(a)
    assert lay.layers_quantized[0] == 0  # layer 0's Mamba projections excluded: bf16
    assert lay.layers_quantized[2] > 0  # layer 2 (also Mamba) quantized
    assert lay.total < 0.35 * weight_layout(model_arch_from_config(NANO, name="bf16", source="t")).total

"""Gated DeltaNet (Qwen3.5/3.6 hybrid) layers in the weight layout and the parameter count."""

from __future__ import annotations

import pytest

from vlint.resolve.catalog import lookup_catalog
from vlint.resolve.model_arch import gdn_params, model_arch_from_config
from vlint.resolve.weight_sizes import layer_linears


def test_gdn_layer_by_hand():
    h, nk, dk, nv, dv, kern = 16, 2, 4, 4, 4, 4
    linear, other = gdn_params((nk, dk, nv, dv, kern, False), h)
    assert linear == h * (2 * 8 + 2 * 16) + h * 2 * nv + 16 * h
    assert other == (2 * 8 + 16) * kern + 2 * nv + dv
    text = {
        "model_type": "qwen3_5_text",
        "num_hidden_layers": 2,
        "hidden_size": h,
        "num_attention_heads": 2,
        "num_key_value_heads": 1,
        "head_dim": 8,
        "intermediate_size": 32,
        "vocab_size": 50,
        "layer_types": ["linear_attention", "full_attention"],
        "linear_num_key_heads": nk,
        "linear_key_head_dim": dk,
        "linear_num_value_heads": nv,
        "linear_value_head_dim": dv,
        "linear_conv_kernel_dim": kern,
    }
    arch = model_arch_from_config({"model_type": "qwen3_5", "text_config": text}, name="q", source="t")
    names = [m.name for m in layer_linears(arch, 0)]
    assert names[:5] == [
        "linear_attn.in_proj_qkv",
        "linear_attn.in_proj_z",
        "linear_attn.in_proj_b",
        "linear_attn.in_proj_a",
        "linear_attn.out_proj",
    ]
    assert not any(n.startswith("self_attn") for n in names)
    assert any(n.startswith("self_attn") for n in (m.name for m in layer_linears(arch, 1)))


@pytest.mark.parametrize(
    "model,size",
    [
        ("Qwen/Qwen3.5-9B", 9e9),
        ("Qwen/Qwen3.5-27B", 27e9),
        ("Qwen/Qwen3.6-35B-A3B", 35e9),
        ("Qwen/Qwen3.5-397B-A17B", 397e9),
    ],
)
def test_hybrid_totals_match_the_size_in_the_name(model, size):
    arch = lookup_catalog(model)
    assert arch is not None and arch.gdn_dims is not None
    total = arch.params + arch.vision_params  # text decoder incl. Gated DeltaNet layers, plus the vision tower
    assert abs(total - size) / size < 0.04, (model, total)

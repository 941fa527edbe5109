"""Gemma-3n / Gemma-4 per-layer embeddings (PLE) are part of the weights vLLM loads."""

from __future__ import annotations

from vlint.resolve.catalog import arch_from_record, catalog_record
from vlint.resolve.model_arch import per_layer_input_params
from vlint.resolve.weight_sizes import weight_layout

GIB = 2**30


def test_gemma4_e4b_counts_its_per_layer_embeddings() -> None:
    rec = catalog_record("google/gemma-4-E4B-it")
    assert rec is not None
    arch = arch_from_record(rec)
    # embed_tokens_per_layer 262,144 × (42 × 256), per_layer_model_projection 2,560 → 42 × 256, and per layer
    # per_layer_input_gate + per_layer_projection (2 × 2,560 × 256) — [0.20.2] gemma4.py:980-1016, :661-689
    assert arch.per_layer_input_params == 262_144 * 42 * 256 + 2_560 * 42 * 256 + 42 * 2 * 2_560 * 256
    # the bf16 checkpoint vLLM loaded took 15.16 GiB on an A100 (h126 of bench/data/calibration); without
    # the per-layer embeddings the layout held 8.9 GiB of it
    total = weight_layout(arch).total / GIB
    assert 13.5 < total < 15.5


def test_no_per_layer_embeddings_elsewhere() -> None:
    rec = catalog_record("meta-llama/Llama-3.1-8B")
    assert rec is not None
    assert arch_from_record(rec).per_layer_input_params == 0
    assert per_layer_input_params(rec["config"], 4096, 32, 128256) == 0
    # a zero per-layer width (Gemma-4 26B-A4B writes hidden_size_per_layer_input: 0) is none either
    assert per_layer_input_params({"hidden_size_per_layer_input": 0}, 2816, 30, 262144) == 0

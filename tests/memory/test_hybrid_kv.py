"""Hybrid (attention + Mamba / Gated DeltaNet) KV pages, as vLLM lays them out per release.

Each case takes the block count a log implies from its "Available KV cache memory" line and checks that
vlint's layout turns it into the logged "GPU KV cache size: N tokens" (vLLM 0.21+: ``int(num_blocks /
blocks per request × max_model_len)``, [0.26.0] vllm/v1/core/kv_cache_utils.py:937-955, 2169-2177; before:
``num_blocks // groups × block_size``). vLLM's block count is ``available bytes // bytes per block``; the
logged GiB is rounded to 0.01, so the count is one of those its rounding interval allows.
"""

from __future__ import annotations

from tests.memory.helpers import inputs
from vlint.core.record import replace
from vlint.core.version import V
from vlint.memory import estimate_memory
from vlint.memory.estimate import hybrid_block_size, mamba_cache_mode, stage_specs, state_cache
from vlint.memory.extras import draft_estimate, draft_kv_arch
from vlint.memory.kv import StateCache, attention_block_size_for_hybrid, layer_specs
from vlint.resolve.catalog import lookup_catalog
from vlint.resolve.defaults import resolve_defaults
from vlint.resolve.model_arch import FULL, LINEAR

GIB = 2**30
#: Qwen3.5/3.6/3.8-27B text layout: 16 full-attention layers (4 KV heads × 256) and 48 Gated DeltaNet
#: layers (conv 3 × 10,240 bf16 + recurrent 48 × 128 × 128 fp32)
QWEN27 = "Qwen/Qwen3.8-27B"


def _blocks(logged_gib: float, bytes_per_block: float) -> range:
    """The block counts ``available // bytes_per_block`` of an available size that prints as ``logged_gib``."""
    lo, hi = ((logged_gib + d) * GIB // bytes_per_block for d in (-0.005, 0.005))
    return range(int(lo), int(hi) + 1)


def test_align_mode_h151_0_27_1():
    # h151: 0.27.1, TP1, bf16 KV, --enable-prefix-caching, max_model_len 4096; the log: "Mamba cache mode is
    # set to 'align'", "Setting attention block size to 784 tokens", 41.03 GiB -> 292,522 tokens (71.42x).
    # A request: cdiv(4096, 784) = 6 attention blocks + 3 linear groups x 2 states = 12 blocks
    inp = inputs(QWEN27, "H100", "0.27.1", max_model_len=4096, enable_prefix_caching=True, language_model_only=True)
    assert mamba_cache_mode(inp) == "align"
    m = estimate_memory(inp)
    assert (m.block_size, m.num_kv_groups, m.stages[0].bytes_per_block) == (784, 4, 16 * 784 * 4096)
    nb = 857
    assert nb in _blocks(41.03, m.stages[0].bytes_per_block)
    assert estimate_memory(replace(inp, num_gpu_blocks_override=nb)).kv_cache_tokens == 292_522


def test_none_mode_h141_0_27_1():
    # h141: 0.27.1 (prefix caching off by default for hybrids), TP2, bf16 KV, max_model_len 65536:
    # 44.73 GiB -> 1,407,894 tokens; a request: cdiv(65536, 784) = 84 + 3 x 1 state = 87 blocks
    inp = inputs(QWEN27, "A100-SXM4-80GB", "0.27.1", max_model_len=65536, tensor_parallel_size=2)
    inp = replace(inp, enable_prefix_caching=False)
    assert mamba_cache_mode(inp) == "none"
    m = estimate_memory(inp)
    nb = 1869
    assert m.block_size == 784 and nb in _blocks(44.73, m.stages[0].bytes_per_block)
    assert estimate_memory(replace(inp, num_gpu_blocks_override=nb)).kv_cache_tokens == 1_407_894


def test_align_default_h183_0_31_0():
    # h183: 0.31.0 (prefix caching and the 'align' mode by default), TP2, bf16 KV, max_model_len 16384:
    # 7.37 GiB -> 186,898 tokens; a request: cdiv(16384, 784) = 21 + 3 x 2 = 27 blocks
    inp = inputs(QWEN27, "L40S", "0.31.0", max_model_len=16384, tensor_parallel_size=2)
    assert mamba_cache_mode(inp) == "align"
    m = estimate_memory(inp)
    nb = 308
    assert nb in _blocks(7.37, m.stages[0].bytes_per_block)
    assert estimate_memory(replace(inp, num_gpu_blocks_override=nb)).kv_cache_tokens == 186_898


def test_before_0_21_the_count_is_blocks_over_groups_h208():
    # h208: 0.19.0, TP4, bf16: 7.0 GiB -> 114,464 tokens = 585 // 4 groups x 784
    inp = inputs("Qwen/Qwen3.5-27B", "RTX-3090", "0.19.0", max_model_len=32768, tensor_parallel_size=4)
    inp = replace(inp, enable_prefix_caching=False)
    m = estimate_memory(inp)
    nb = 585
    assert m.block_size == 784 and nb in _blocks(7.0, m.stages[0].bytes_per_block)
    assert estimate_memory(replace(inp, num_gpu_blocks_override=nb)).kv_cache_tokens == 114_464


def test_mtp_on_a_hybrid_h217_0_25_1():
    # h217: 0.25.1, Qwen3.6-35B-A3B, TP1, bf16 KV, MTP with 3 speculative tokens, max_model_len 262144:
    # 74.22 GiB -> 3,366,051 tokens (12.84x). The conv state keeps 3 + 3 positions (2,195,456 B per state),
    # so the block is 16 x cdiv(2,195,456, 16 x 2,048) = 1,072 tokens; the MTP layer is full attention and
    # joins the 10 full-attention layers: 4 groups of 11 (30 linear layers + 3 padding); a request is
    # cdiv(262144, 1072) = 245 + 3 x (1 + 3) = 257 blocks: 3,300 blocks -> 3,366,051
    inp = inputs(
        "Qwen/Qwen3.6-35B-A3B",
        "GB10",
        "0.25.1",
        max_model_len=262144,
        num_speculative_tokens=3,
        spec_method="mtp",
        enable_prefix_caching=False,
    )
    assert state_cache(inp) == StateCache(conv_positions=3, pages=4)
    m = estimate_memory(inp)
    assert (m.block_size, m.num_kv_groups) == (1072, 4)
    assert m.stages[0].bytes_per_block == 11 * 1072 * 2048
    nb = 3300
    assert nb in _blocks(74.22, m.stages[0].bytes_per_block)
    assert estimate_memory(replace(inp, num_gpu_blocks_override=nb)).kv_cache_tokens == 3_366_051


def test_mtp_drafter_layers_are_full_attention():
    # Qwen3.5's MTP module is one decoder layer built with layer_type="full_attention" ([0.25.1]
    # vllm/model_executor/models/qwen3_5_mtp.py:105-111), although the target's first layer is linear
    inp = inputs("Qwen/Qwen3.6-35B-A3B", "H100", "0.25.1", num_speculative_tokens=3, spec_method="mtp")
    assert inp.arch.layer_types[0] == LINEAR
    est = draft_estimate(inp)
    assert est is not None
    drafter = draft_kv_arch(est)
    assert drafter is not None and drafter.layer_types == (FULL,)


def test_speculative_positions_widen_the_conv_state():
    a = lookup_catalog(QWEN27)
    assert (a.state_family, a.state_conv_width) == ("gdn", 16 * 128 * 2 + 48 * 128)

    def state(st: StateCache | None) -> float:
        specs = layer_specs(
            a,
            layer_range=(0, 4),
            tp=2,
            kv_bytes=1,
            model_dtype_bytes=2,
            kv_cache_dtype="fp8",
            treat_windowed_as_full=False,
            state=st,
        )
        return next(s.state_bytes for s in specs if s.kind == "mamba")

    # TP2: conv (3 + spec) x 5,120 bf16 + recurrent 24 x 128 x 128 fp32
    assert state(None) == 3 * 5120 * 2 + 24 * 128 * 128 * 4 == 1_603_584
    assert state(StateCache(conv_positions=3)) == 6 * 5120 * 2 + 24 * 128 * 128 * 4 == 1_634_304


def test_h108_arithmetic_needs_mtp_depth_3():
    # h108 (0.24, Qwen3.6-27B-FP8 on 2 x RTX 3090, fp8 KV, --enable-prefix-caching, MTP with its depth cut from
    # the excerpt): 5.33 GiB -> 300,220 tokens. Only depth 3 fits: 1,600-token blocks, 17-layer groups and
    # 168 - 4 + 15 = 179 blocks per request -> 205 blocks -> 300,220
    inp = inputs(
        "Qwen/Qwen3.8-27B-FP8",
        "RTX-3090",
        "0.24.0",
        max_model_len=262144,
        tensor_parallel_size=2,
        kv_cache_dtype="fp8",
        num_speculative_tokens=3,
        spec_method="mtp",
        enable_prefix_caching=True,
    )
    assert mamba_cache_mode(inp) == "align"
    m = estimate_memory(inp)
    assert (m.block_size, m.stages[0].bytes_per_block) == (1600, 17 * 1600 * 1024)
    nb = 205
    assert nb in _blocks(5.33, m.stages[0].bytes_per_block)
    assert estimate_memory(replace(inp, num_gpu_blocks_override=nb)).kv_cache_tokens == 300_220


def test_mamba_cache_mode_per_release():
    gdn = inputs("Qwen/Qwen3.5-9B", "H100", "0.19.0")
    nemo = inputs("nvidia/Nemotron-H-56B-Base-8K", "H100", "0.19.0")
    off = replace(gdn, enable_prefix_caching=False)
    assert mamba_cache_mode(off) == "none"
    # prefix caching on: before 0.12 nothing; 0.12-0.14 one state per block where the model supports it,
    # else prefix caching is dropped; 0.15-0.27 'all' where supported, else 'align'; from 0.28 'align'
    assert mamba_cache_mode(replace(gdn, version=V("0.11.0"))) == "none"
    assert mamba_cache_mode(replace(gdn, version=V("0.13.0"))) == "none"
    assert mamba_cache_mode(replace(nemo, version=V("0.13.0"))) == "all"
    assert mamba_cache_mode(gdn) == "align"
    assert mamba_cache_mode(nemo) == "all"
    assert mamba_cache_mode(replace(nemo, version=V("0.28.0"))) == "align"
    assert mamba_cache_mode(replace(nemo, version=V("0.28.0"), mamba_cache_mode="all")) == "all"
    assert mamba_cache_mode(replace(gdn, version=V("0.28.0"), mamba_cache_mode="all")) == "align"
    assert mamba_cache_mode(replace(nemo, version=V("0.32.0"), mamba_cache_mode="all")) == "align"
    # a dense model keeps no states: no mode, no state pages, no block change
    dense = inputs("meta-llama/Llama-3.1-8B-Instruct", "H100", "0.31.0", num_speculative_tokens=3)
    assert mamba_cache_mode(dense) == "none" and state_cache(dense) == StateCache()
    specs = stage_specs(dense, (0, 32), 2.0, 2.0, True, None)
    assert hybrid_block_size(dense, specs) == 16


def test_state_pages_per_mode():
    gdn = inputs("Qwen/Qwen3.5-9B", "H100", "0.26.0", num_speculative_tokens=2)
    assert state_cache(replace(gdn, enable_prefix_caching=False)) == StateCache(2, 3)  # 1 + 2 speculative
    assert state_cache(gdn) == StateCache(2, 4)  # 'align': 2 + 2
    # speculative blocks are counted from 0.15.0 ([0.15.1] vllm/v1/kv_cache_interface.py MambaSpec)
    assert state_cache(replace(gdn, version=V("0.14.0"), enable_prefix_caching=False)).pages == 1
    nemo = inputs("nvidia/Nemotron-H-56B-Base-8K", "H100", "0.26.0", num_speculative_tokens=2)
    assert state_cache(nemo) == StateCache(2, 0, True)  # 'all': one per block; speculative ones from 0.27
    assert state_cache(replace(nemo, version=V("0.27.1"))) == StateCache(2, 2, True)
    # 0.32+: a Mamba2 mixer exports a prefill checkpoint in 'align' (one more page)
    assert state_cache(replace(nemo, version=V("0.32.0"))) == StateCache(2, 5)


def test_all_mode_block_is_a_multiple_of_the_chunk():
    # vLLM's own example ([0.19.0] vllm/model_executor/models/config.py:243-255): a 788 kB state and 2 kB of
    # attention per token hold ~394 tokens, rounded up to a multiple of the 256-token chunk -> 512
    from vlint.memory.kv import LayerSpec

    specs = [LayerSpec("full_attention", bytes_per_token=2048), LayerSpec("mamba", state_bytes=788 * 1024)]
    assert attention_block_size_for_hybrid(specs, 16, 16, chunk=256) == 512
    assert attention_block_size_for_hybrid(specs, 16, 16) == 16 * 25  # without: cdiv(788 kB, 16 x 2 kB) x 16
    assert attention_block_size_for_hybrid(specs[:1], 16, 16, chunk=256) == 16  # no state layer: unchanged


def test_hybrid_prefix_caching_defaults_per_release():
    hybrid = lookup_catalog("Qwen/Qwen3.5-9B")
    dense = lookup_catalog("meta-llama/Llama-3.1-8B-Instruct")

    def default(arch, version: str) -> bool:
        out = resolve_defaults(V(version), gpu=None, usage_context="OPENAI_API_SERVER", arch=arch, user={})
        return bool(out["enable_prefix_caching"].value)

    assert not default(hybrid, "0.19.0")
    assert not default(hybrid, "0.26.0")  # supported but opt-in ([0.26.0] vllm/engine/arg_utils.py:2518-2522)
    assert not default(hybrid, "0.27.1")
    assert default(hybrid, "0.28.0")
    assert default(dense, "0.26.0")

"""Per-release terms of the memory model, each against the vLLM code path it comes from."""

from __future__ import annotations

import pytest

from tests.memory.helpers import inputs
from vlint.core.record import replace
from vlint.core.version import V
from vlint.hardware.gpus import lookup_gpu
from vlint.memory import MemoryInputs, estimate_memory
from vlint.memory.estimate import activation_terms, sampler_bytes_per_element
from vlint.memory.extras import draft_estimate, lora_bytes
from vlint.memory.weights import MoeSplit, rotary_cache_bytes
from vlint.resolve.catalog import lookup_catalog
from vlint.resolve.model_arch import model_arch_from_config
from vlint.resolve.weight_sizes import checkpoint_layout

GIB = 2**30


def _inp(model: str = "Qwen/Qwen3-8B", version: str = "0.19.0", **kw) -> MemoryInputs:  # type: ignore[no-untyped-def]
    return inputs(model, version=version, **{"max_num_seqs": 1024, "max_num_batched_tokens": 8192, **kw})


# ---- sampler rows × vocab, per release range ------------------------------------------------------
@pytest.mark.parametrize(
    ("version", "engine", "path", "extra"),
    [
        ("0.6.6", "V0", "pytorch_sort", 36.0),  # V0 sorts top-k/top-p on the driver
        ("0.8.5", "V1", "pytorch_sort", 36.0),  # FlashInfer only when installed (not a wheel dependency)
        ("0.10.2", "V1", "pytorch_sort", 36.0),
        ("0.11.2", "V1", "pytorch_sort", 36.0),  # FlashInfer sampling opt-in
        ("0.14.1", "V1", "pytorch_sort", 36.0),
        ("0.16.0", "V1", "pytorch_sort", 36.0),
        ("0.17.0", "V1", "triton_inplace", 12.0),  # in-place Triton top-k/top-p from 8 rows
        ("0.19.1", "V1", "triton_inplace", 12.0),
        ("0.21.0", "V1", "flashinfer", 12.0),  # FlashInfer sampler on by default
        ("0.33.0", "V1", "flashinfer", 12.0),
    ],
)
def test_sampler_bytes_per_release(version: str, engine: str, path: str, extra: float) -> None:
    got = sampler_bytes_per_element(_inp(version=version, engine=engine))
    assert got == (extra, path)


def test_sampler_small_batches_sort_and_flashinfer_opt_in() -> None:
    assert sampler_bytes_per_element(_inp(version="0.19.0", max_num_seqs=4)) == (36.0, "pytorch_sort")
    env = {"VLLM_USE_FLASHINFER_SAMPLER": "1"}
    assert sampler_bytes_per_element(_inp(version="0.14.1", env=env)) == (12.0, "flashinfer")


def test_qwen3_8b_h100_sampler_gap_between_011_and_019() -> None:
    """The issue's held-out case: 1024 rows × 151,936 vocab × 24 B more in 0.11 than in 0.19 (3.5 GiB)."""
    old = activation_terms(_inp(version="0.11.0"), 0, 1, 36)
    new = activation_terms(_inp(version="0.19.0"), 0, 1, 36)
    gap = (old.sampler - new.sampler) / GIB
    assert gap == pytest.approx(1024 * 151936 * 24 / GIB, rel=1e-9)
    assert 3.4 < gap < 3.5
    kv_old = estimate_memory(_inp(version="0.11.0")).kv_cache_gib
    kv_new = estimate_memory(_inp(version="0.19.0")).kv_cache_gib
    assert kv_new - kv_old > 3.0


def test_v0_only_the_driver_samples() -> None:
    inp = _inp(model="meta-llama/Llama-3.1-8B-Instruct", version="0.6.6", engine="V0", tensor_parallel_size=2)
    m = estimate_memory(replace(inp, max_num_seqs=256, max_num_batched_tokens=2048))
    assert m.other_ranks_activation_gib is not None and m.other_ranks_kv_cache_gib is not None
    t = activation_terms(replace(inp, max_num_seqs=256, max_num_batched_tokens=2048), 0, 1, 32)
    assert t.sampler == 256 * 128256 * (2 + 36)
    # the driver's peak is the sampler pass, the other ranks' the forward pass
    assert (m.activation_gib - m.other_ranks_activation_gib) * GIB == pytest.approx(t.sampler - t.forward)
    assert m.other_ranks_kv_cache_gib > m.kv_cache_gib


# ---- the verdict band ---------------------------------------------------------------------------
def test_verdict_band_around_the_kv_check() -> None:
    inp = _inp(
        model="meta-llama/Llama-3.1-8B-Instruct", gpu=lookup_gpu("L4"), max_num_seqs=256, max_num_batched_tokens=2048
    )
    far = estimate_memory(replace(inp, max_model_len=131072))
    assert not far.starts and not far.too_close_to_call
    assert far.need_gib - far.left_gib > far.uncertainty_gib > 0
    edge = far.estimated_max_model_len
    assert edge
    just_over = estimate_memory(replace(inp, max_model_len=edge + 64))
    assert not just_over.starts and just_over.too_close_to_call
    just_under = estimate_memory(replace(inp, max_model_len=edge - 64))
    assert just_under.starts and just_under.too_close_to_call
    short = estimate_memory(replace(inp, max_model_len=4096))
    assert short.starts and not short.too_close_to_call
    # unmeasured releases get the wider band
    assert estimate_memory(replace(inp, max_model_len=4096, version=V("0.33.0"))).uncertainty_gib > (
        short.uncertainty_gib
    )


def test_fixed_kv_size_is_never_a_close_call() -> None:
    inp = _inp(model="meta-llama/Llama-3.1-8B-Instruct", kv_cache_memory_bytes=int(1.01 * GIB), max_model_len=8192)
    m = estimate_memory(inp)
    assert m.starts and not m.too_close_to_call


# ---- quantized weights: byte layouts of the formats ---------------------------------------------
def _cfg(quant: dict | None = None, **kw) -> dict:  # type: ignore[type-arg]
    c = {
        "architectures": ["LlamaForCausalLM"],
        "model_type": "llama",
        "num_hidden_layers": 2,
        "hidden_size": 4096,
        "num_attention_heads": 32,
        "num_key_value_heads": 8,
        "intermediate_size": 14336,
        "vocab_size": 128256,
        "torch_dtype": "bfloat16",
        "max_position_embeddings": 8192,
    }
    c.update(kw)
    if quant is not None:
        c["quantization_config"] = quant
    return c


def _linear_bytes(quant: dict) -> float:  # type: ignore[type-arg]
    a = model_arch_from_config(_cfg(quant), name="t", source="test")
    assert a.quant is not None
    return a.quant.linear_bytes(4096, 4096)


@pytest.mark.parametrize(
    ("quant", "expected"),
    [
        # AWQ: qweight 4096×4096/2 + qzeros (32 groups × 4096)/2 + fp16 scales 32 × 4096 × 2
        ({"quant_method": "awq", "bits": 4, "group_size": 128, "zero_point": True}, 8388608 + 65536 + 262144),
        # GPTQ: the same plus int32 g_idx of 4096
        ({"quant_method": "gptq", "bits": 4, "group_size": 128, "desc_act": False}, 8388608 + 65536 + 262144 + 16384),
        # GPTQ 8-bit, one group per channel
        ({"quant_method": "gptq", "bits": 8, "group_size": -1}, 16777216 + 4096 + 8192 + 16384),
        # fp8 per tensor (1 B + one fp32 scale); fp8 block 128×128 (fp32 scale per block)
        ({"quant_method": "fp8"}, 16777216 + 4),
        ({"quant_method": "fp8", "weight_block_size": [128, 128]}, 16777216 + 32 * 32 * 4),
        # ModelOpt NVFP4: e2m1 pairs + fp8 scale per 16 + two fp32 globals
        ({"quant_method": "modelopt", "quant_algo": "NVFP4", "group_size": 16}, 8388608 + 4096 * 256 + 8),
        # bitsandbytes nf4 with double quant: uint8 absmax per 64 + fp32 nested absmax per 256 blocks
        (
            {"quant_method": "bitsandbytes", "load_in_4bit": True, "bnb_4bit_use_double_quant": True},
            8388608 + 262144 + 262144 / 256 * 4,
        ),
        # compressed-tensors w4a16 (pack-quantized, group 128, symmetric): packed + bf16 scales
        (
            {
                "quant_method": "compressed-tensors",
                "format": "pack-quantized",
                "config_groups": {
                    "group_0": {
                        "targets": ["Linear"],
                        "weights": {"num_bits": 4, "type": "int", "strategy": "group", "group_size": 128},
                    }
                },
                "ignore": ["lm_head"],
            },
            8388608 + 32 * 4096 * 2,
        ),
        # compressed-tensors w8a8 int8 per channel: 1 B + a bf16 scale per output channel
        (
            {
                "quant_method": "compressed-tensors",
                "format": "int-quantized",
                "config_groups": {
                    "group_0": {
                        "targets": ["Linear"],
                        "weights": {"num_bits": 8, "type": "int", "strategy": "channel"},
                        "input_activations": {"num_bits": 8, "type": "int", "dynamic": True},
                    }
                },
                "ignore": ["lm_head"],
            },
            16777216 + 4096 * 2,
        ),
    ],
)
def test_quantized_linear_layouts(quant: dict, expected: float) -> None:  # type: ignore[type-arg]
    assert _linear_bytes(quant) == pytest.approx(expected)


def test_unquantized_modules_stay_in_the_serving_dtype() -> None:
    from vlint.resolve.weight_sizes import weight_layout

    ct = {
        "quant_method": "compressed-tensors",
        "format": "float-quantized",
        "config_groups": {
            "g": {"targets": ["Linear"], "weights": {"num_bits": 8, "type": "float", "strategy": "channel"}}
        },
        "ignore": ["lm_head", "re:.*mlp.down_proj"],
    }
    a = model_arch_from_config(_cfg(ct), name="t", source="test")
    lay = weight_layout(a)
    assert lay.lm_head == 128256 * 4096 * 2  # ignored: bf16
    assert lay.embed == 128256 * 4096 * 2
    down = 4096 * 14336
    attn = 4096 * 4096 * 2 + 1024 * 4096 * 2
    q_layer = (attn + 2 * 14336 * 4096) * 1 + (attn / 4096 * 4096 * 0)  # fp8 weights
    # down_proj stays bf16; the rest is fp8 with a bf16 scale per output channel
    assert lay.layers_quantized[0] == pytest.approx(q_layer + (4096 + 1024 + 1024 + 4096 + 14336 * 2) * 2)
    assert lay.layers[0] - lay.layers_quantized[0] == pytest.approx(down * 2 + 2 * 4096 * 2)


def test_gptq_placeholder_biases_are_stored_not_loaded() -> None:
    """AutoGPTQ files hold an fp16 bias per quantized linear that vLLM skips (llama.py "Skip loading
    extra bias for GPTQ models"): TheBloke/MythoMax-L2-13B-GPTQ's file is 4,425,912 B larger than its
    layout without them, 40 layers × 53,248 output channels × 2 B = 4,259,840 B plus its header."""
    from vlint.resolve.weight_sizes import checkpoint_layout, weight_layout

    a = model_arch_from_config(_cfg({"quant_method": "gptq", "bits": 4, "group_size": 128}), name="t", source="t")
    lay = weight_layout(a)
    outs = (4096 + 1024 + 1024 + 4096 + 14336 * 2 + 4096) * a.num_layers
    assert lay.skipped == outs * 2
    assert lay.total == pytest.approx(sum(lay.layers) + lay.embed + lay.lm_head + lay.other + 4096 * 2 + outs * 2)
    exact = replace(a, weight_bytes=int(lay.total))
    m = estimate_memory(_inp(arch=exact))
    assert m.weights_gib * 2**30 == pytest.approx(checkpoint_layout(exact).total - lay.skipped, rel=1e-3)


def test_online_fp8_of_a_bf16_checkpoint() -> None:
    """--quantization fp8 on Llama-3.1-8B: linear layers in 1 B, embeddings/lm_head kept (r076: 8.49 GiB)."""
    m = estimate_memory(_inp(model="meta-llama/Llama-3.1-8B-Instruct", quantization="fp8"))
    assert m.weights_gib == pytest.approx(8.49, abs=0.03)


@pytest.mark.parametrize(("gpu", "loaded"), [("H100", 13.64), ("A100-80GB", 13.72)])
def test_mxfp4_expert_padding_per_gpu(gpu: str, loaded: float) -> None:
    """gpt-oss-20b: Marlin (A100) / Triton (H100) pad the experts 2880×2880 → 3072×2944 (r100, r013)."""
    m = estimate_memory(_inp(model="openai/gpt-oss-20b", gpu=lookup_gpu(gpu)))
    assert m.weights_gib == pytest.approx(loaded, rel=0.01)


def test_mtp_layers_are_stored_but_loaded_only_for_mtp() -> None:
    base = _inp(model="deepseek-ai/DeepSeek-V3", tensor_parallel_size=8)
    plain = estimate_memory(base)
    mtp = estimate_memory(replace(base, spec_method="mtp", num_speculative_tokens=1))
    extra = (mtp.weights_gib - plain.weights_gib) * 8
    assert 9.0 < extra < 13.0  # one MoE decoder layer of 256 experts in fp8 + eh_proj
    assert mtp.kv_bytes_per_token > plain.kv_bytes_per_token  # the MTP layer's latent KV


# ---- data and expert parallelism split the routed experts --------------------------------------
def _routed_and_rest(model: str) -> tuple[float, float]:
    lay = checkpoint_layout(lookup_catalog(model))
    routed = sum(lay.layers_expert)
    return routed, lay.total - lay.mtp - routed


@pytest.mark.parametrize(
    ("tp", "dp", "ep", "expert_share", "rest_share"),
    [
        (1, 8, True, 1 / 8, 1.0),  # DP8 + EP: 32 of 256 experts per rank, attention whole
        (1, 8, False, 1 / 8, 1.0),  # DP8 without EP: every expert sliced 8 ways (TP flattened over DP)
        (2, 2, False, 1 / 4, 1 / 2),  # DP2 × TP2: experts over 4 ranks, attention over 2
        (8, 1, True, 1 / 8, 1 / 8),  # TP8 + EP: the same bytes as TP8
    ],
)
def test_moe_experts_split_over_data_parallel_ranks(
    tp: int, dp: int, ep: bool, expert_share: float, rest_share: float
) -> None:
    """vLLM flattens TP across DP for FusedMoE layers ([0.33.0] fused_moe/config.py:1106-1245)."""
    routed, rest = _routed_and_rest("deepseek-ai/DeepSeek-R1")
    inp = _inp(
        model="deepseek-ai/DeepSeek-R1",
        gpu=lookup_gpu("H200"),
        tensor_parallel_size=tp,
        data_parallel_size=dp,
        expert_parallel=ep,
    )
    m = estimate_memory(inp)
    rope = rotary_cache_bytes(inp.arch, 2.0)
    assert m.weights_gib * GIB == pytest.approx(routed * expert_share + rest * rest_share + rope, rel=1e-6)
    assert routed > 0.9 * (routed + rest)  # the experts are most of DeepSeek-R1
    if dp == 8:
        assert m.starts, "DeepSeek-R1 at DP8 on H200 is the published recipe: it starts"
        assert any("expert" in a for a in m.assumptions)


def test_expert_parallel_gives_whole_experts_to_ranks() -> None:
    """Qwen1.5-MoE's 60 experts over EP 8: the fullest rank holds 8 (vLLM's determine_expert_map)."""
    assert MoeSplit.of(1, 8, expert_parallel=True).expert_share(60) == pytest.approx(8 / 60)
    assert MoeSplit.of(1, 8, expert_parallel=False).expert_share(60) == pytest.approx(1 / 8)
    assert MoeSplit.of(2, 1).expert_share(60) == pytest.approx(1 / 2)
    # EPLB: 256 experts + 32 redundant copies over EP 8 = 36 per rank
    assert MoeSplit.of(1, 8, expert_parallel=True, redundant=32).expert_share(256) == pytest.approx(36 / 256)
    assert MoeSplit.of(8, 1, expert_parallel=False, redundant=32).expert_share(256) == pytest.approx(1 / 8)


def test_dense_models_are_not_split_by_data_parallelism() -> None:
    one = estimate_memory(_inp(model="Qwen/Qwen3-8B"))
    dp = estimate_memory(_inp(model="Qwen/Qwen3-8B", data_parallel_size=4, expert_parallel=True))
    assert dp.weights_gib == pytest.approx(one.weights_gib)


@pytest.mark.parametrize(
    ("version", "backend", "chunk", "gathers"),
    [
        ("0.10.1", None, 32768, True),  # naive multicast, 32k fused-MoE chunks
        ("0.19.0", None, 16384, True),  # allgather_reducescatter, 16k chunks from 0.12
        ("0.19.0", "deepep_high_throughput", 16384, False),  # DeepEP sends tokens to their experts only
    ],
)
def test_data_parallel_moe_profiles_every_ranks_tokens(
    version: str, backend: str | None, chunk: int, gathers: bool
) -> None:
    model = "Qwen/Qwen3-30B-A3B"
    one = _inp(model=model, version=version, expert_parallel=True, tensor_parallel_size=8)
    dp = replace(one, tensor_parallel_size=1, data_parallel_size=8, all2all_backend=backend)
    a = one.arch
    t_one, t_dp = activation_terms(one, 0, 1, a.num_layers), activation_terms(dp, 0, 1, a.num_layers)
    assert t_one.moe_workspace == pytest.approx(8192 * 8 * 3 * a.moe_intermediate_size * 2)
    if gathers:
        gathered = 8 * 8192
        expected = chunk * 8 * 3 * a.moe_intermediate_size * 2 + 2 * gathered * a.hidden_size * 2
        assert t_dp.moe_workspace == pytest.approx(expected)
    else:
        assert t_dp.moe_workspace == pytest.approx(t_one.moe_workspace)


def test_mtp_layer_experts_split_like_the_target() -> None:
    base = _inp(model="deepseek-ai/DeepSeek-V3", data_parallel_size=8, expert_parallel=True)
    plain = estimate_memory(base)
    mtp = estimate_memory(replace(base, spec_method="mtp", num_speculative_tokens=1))
    extra = mtp.weights_gib - plain.weights_gib
    assert 0.5 < extra < 2.5  # the MTP layer's attention whole, 32 of its 256 experts


# ---- --mm-encoder-tp-mode data: the encoder whole on every TP rank --------------------------------
def test_encoder_data_parallel_keeps_the_vision_tower_whole_per_rank() -> None:
    model = "Qwen/Qwen3-VL-32B-Instruct"
    sharded = estimate_memory(_inp(model=model, tensor_parallel_size=4))
    data = estimate_memory(_inp(model=model, tensor_parallel_size=4, mm_encoder_tp_mode="data"))
    vision = checkpoint_layout(lookup_catalog(model)).vision
    assert vision > 0.5 * GIB
    assert (data.weights_gib - sharded.weights_gib) * GIB == pytest.approx(vision * 3 / 4, rel=1e-6)
    assert any("--mm-encoder-tp-mode data" in a for a in data.assumptions)


@pytest.mark.parametrize(
    ("model", "version", "tp"),
    [
        ("llava-hf/llava-1.5-7b-hf", "0.19.0", 2),  # LLaVA's class does not support it: vLLM falls back to weights
        ("Qwen/Qwen3-VL-32B-Instruct", "0.10.1", 4),  # before supports_encoder_tp_data (0.10.2)
        ("Qwen/Qwen3-VL-32B-Instruct", "0.19.0", 1),  # nothing to split at TP 1
    ],
)
def test_encoder_data_parallel_only_where_vllm_honours_it(model: str, version: str, tp: int) -> None:
    base = _inp(model=model, version=version, tensor_parallel_size=tp)
    assert estimate_memory(replace(base, mm_encoder_tp_mode="data")).weights_gib == pytest.approx(
        estimate_memory(base).weights_gib
    )


# ---- speculative decoding, multimodal, LoRA -----------------------------------------------------
def test_speculative_drafters() -> None:
    base = _inp(model="meta-llama/Llama-3.1-8B-Instruct")
    assert draft_estimate(replace(base, spec_method="ngram", num_speculative_tokens=3)) is None
    eagle = draft_estimate(replace(base, spec_method="eagle", num_speculative_tokens=3))
    assert eagle is not None and eagle.layers == 1
    one_layer = (4096 * 4096 * 2 + 1024 * 4096 * 2 + 3 * 4096 * 14336 + 2 * 4096) * 2
    assert eagle.weights_bytes == pytest.approx(one_layer + 2 * 4096 * 4096 * 2)
    m0 = estimate_memory(base)
    m1 = estimate_memory(replace(base, spec_method="eagle3", num_speculative_tokens=3))
    assert m1.kv_bytes_per_token == pytest.approx(m0.kv_bytes_per_token * 33 / 32)
    assert m1.weights_gib > m0.weights_gib + 0.4


def test_vision_tower_and_encoder_profiling() -> None:
    cfg = {
        "architectures": ["Gemma3ForConditionalGeneration"],
        "model_type": "gemma3",
        "mm_tokens_per_image": 256,
        "text_config": {
            "model_type": "gemma3_text",
            "num_hidden_layers": 34,
            "hidden_size": 2560,
            "num_attention_heads": 8,
            "num_key_value_heads": 4,
            "head_dim": 256,
            "intermediate_size": 10240,
            "vocab_size": 262208,
        },
        "vision_config": {"model_type": "siglip_vision_model", "image_size": 896, "patch_size": 14},
        "vision_params": 416_866_032,
        "torch_dtype": "bfloat16",
    }
    a = model_arch_from_config(cfg, name="g", source="test")
    assert a.mm_tokens_per_item == 256 and a.mm_item_elems == 3 * 896 * 896
    inp = MemoryInputs(
        arch=a,
        gpu=lookup_gpu("H100"),
        version=V("0.19.0"),
        max_model_len=8192,
        max_num_seqs=1024,
        max_num_batched_tokens=8192,
    )
    t = activation_terms(inp, 0, 1, 34)
    # 8192 // 256 = 32 dummy images: float32 pixels + bf16 embeddings kept through the pass
    assert t.multimodal == pytest.approx(32 * (3 * 896 * 896 * 4 + 256 * 2560 * 2))
    off = replace(inp, limit_mm_per_prompt={"image": 0})
    assert activation_terms(off, 0, 1, 34).multimodal == 0
    # from 0.16 a modality limited to 0 skips loading the tower
    w_on = estimate_memory(inp).weights_gib
    assert w_on - estimate_memory(off).weights_gib == pytest.approx(416_866_032 * 2 / GIB, rel=1e-6)
    old = replace(off, version=V("0.15.1"))
    assert estimate_memory(old).weights_gib == pytest.approx(w_on, rel=1e-9)


def test_lora_slots() -> None:
    base = _inp(model="meta-llama/Llama-3.1-8B-Instruct")
    assert lora_bytes(base, [32])[0] == [0.0]
    got, notes = lora_bytes(replace(base, max_loras=4, max_lora_rank=64), [32])
    h, kv, inter, r = 4096, 1024, 14336, 64
    # column-parallel: lora_a r × in, lora_b out × r; row-parallel the same at TP1
    per_layer = r * (h + h + h) + r * (h + kv + kv) + r * h + h * r + r * (h + h) + r * (2 * inter) + r * inter + h * r
    assert got[0] == pytest.approx(32 * per_layer * 4 * 2)
    assert notes and "4 slot(s) of rank 64" in notes[0]
    m0, m1 = estimate_memory(base), estimate_memory(replace(base, max_loras=4, max_lora_rank=64))
    assert m1.weights_gib - m0.weights_gib == pytest.approx(got[0] / GIB)


@pytest.mark.parametrize(("version", "factor"), [("0.25.0", 2), ("0.26.0", 1)])
def test_prefill_context_parallelism_shards_kv_until_026(version: str, factor: int) -> None:
    """DCP × PCP spread a request's KV until 0.25; from 0.26.0 only DCP does
    ([0.26.0] vllm/v1/kv_cache_interface.py:258-263)."""
    base = _inp(model="Qwen/Qwen3-8B", version=version, max_model_len=131072)
    one = estimate_memory(base)
    pcp = estimate_memory(replace(base, prefill_context_parallel_size=2))
    assert pcp.max_concurrency == pytest.approx(factor * one.max_concurrency, rel=0.01)


@pytest.mark.parametrize(
    ("model", "version", "gpu", "tp", "kv", "expected"),
    [
        ("deepseek-ai/DeepSeek-V3.2", "0.11.0", "H200", 8, "auto", "fp8_ds_mla"),  # 0.11.0: auto too
        ("deepseek-ai/DeepSeek-V3.2", "0.13.0", "H200", 8, "auto", "auto"),
        ("deepseek-ai/DeepSeek-V3.2", "0.13.0", "B200", 8, "fp8", "fp8_ds_mla"),  # config.py converts fp8
        ("zai-org/GLM-5", "0.16.0", "H200", 8, "fp8", None),  # GLM-5's class is not converted there: unknown
        ("zai-org/GLM-5", "0.19.0", "H200", 8, "fp8", "fp8_ds_mla"),  # Hopper: FlashMLA-sparse
        ("zai-org/GLM-5", "0.19.0", "B200", 8, "fp8", "fp8"),  # Blackwell prefers FlashInfer-sparse for fp8
        ("deepseek-ai/DeepSeek-V3.2", "0.18.0", "B200", 8, "fp8", "fp8"),  # 128 heads / 8 = 16: FlashInfer
        ("deepseek-ai/DeepSeek-V3.2", "0.18.0", "B200", 4, "fp8", "fp8_ds_mla"),  # 32 heads per rank: FlashMLA
        ("deepseek-ai/DeepSeek-V3.2", "0.33.0", "A100-80GB", 8, "fp8", None),
        ("deepseek-ai/DeepSeek-V3", "0.33.0", "H200", 8, "fp8", "fp8"),  # dense MLA: not sparse
    ],
)
def test_sparse_mla_fp8_layout(model: str, version: str, gpu: str, tp: int, kv: str, expected: str | None) -> None:
    from vlint.memory.estimate import sparse_mla_cache_dtype

    inp = _inp(model=model, version=version, gpu=lookup_gpu(gpu), tensor_parallel_size=tp, kv_cache_dtype=kv)
    assert sparse_mla_cache_dtype(inp) == expected
    m = estimate_memory(inp)
    per_layer = m.kv_bytes_per_token / lookup_catalog(model).num_layers
    if expected == "fp8_ds_mla":
        assert per_layer == pytest.approx(656 + 132)
    elif lookup_catalog(model).index_head_dim and kv == "fp8":
        assert per_layer == pytest.approx(576 + 132)


def test_uncounted_sparse_index_cache_is_said() -> None:
    m = estimate_memory(_inp(model="MiniMaxAI/MiniMax-M3", gpu=lookup_gpu("H200"), tensor_parallel_size=8))
    assert any("index-key cache" in r and "not counted" in r for r in m.risks)
    plain = estimate_memory(_inp(model="Qwen/Qwen3-8B"))
    assert not any("index-key cache" in r for r in plain.risks)


def test_dispatch_kernel_buffers_are_said_not_counted() -> None:
    base = _inp(model="Qwen/Qwen3-30B-A3B", data_parallel_size=8, expert_parallel=True)
    assert not any("all-to-all backend" in r for r in estimate_memory(base).risks)
    deepep = estimate_memory(replace(base, all2all_backend="deepep_high_throughput"))
    assert any("deepep_high_throughput" in r and "not counted" in r for r in deepep.risks)

"""Defaults per version; each test names the vLLM source it reproduces."""

from __future__ import annotations

from vlint.core.version import V
from vlint.hardware.gpus import lookup_gpu
from vlint.resolve.catalog import lookup_catalog
from vlint.resolve.defaults import resolve_defaults, resolve_engine

LLAMA = lookup_catalog("meta-llama/Llama-3.1-8B-Instruct")


def r(version, gpu, ctx="OPENAI_API_SERVER", **user):
    out = resolve_defaults(V(version), gpu=lookup_gpu(gpu) if gpu else None, usage_context=ctx, arch=LLAMA, user=user)
    return {k: v.value for k, v in out.items()}, out


def test_h100_serve_0191():
    # [0.19.1] vllm/engine/arg_utils.py:2053-2062: >= 70 GiB, not A100 -> serve 8192 / 1024
    v, out = r("0.19.1", "H100")
    assert (v["max_num_batched_tokens"], v["max_num_seqs"]) == (8192, 1024)
    assert v["gpu_memory_utilization"] == 0.9 and v["max_model_len"] == 131072
    assert v["enable_chunked_prefill"] and v["enable_prefix_caching"] and v["engine"] == "V1"
    assert out["max_num_seqs"].origin == "default" and "2053" in out["max_num_seqs"].why
    assert v["max_cudagraph_capture_size"] == 512 and len(v["cudagraph_capture_sizes"]) == 51


def test_h100_llm_class():
    v, _ = r("0.19.1", "H100", ctx="LLM_CLASS")
    assert (v["max_num_batched_tokens"], v["max_num_seqs"]) == (16384, 1024)


def test_a100_excluded_by_name():
    # [0.19.1] vllm/engine/arg_utils.py:2053: "a100" not in device_name (PR #17885)
    v, _ = r("0.19.1", "A100-80GB")
    assert (v["max_num_batched_tokens"], v["max_num_seqs"]) == (2048, 256)
    v, _ = r("0.8.5", "A100-80GB")  # [0.8.5.post1] memory tier only, no name check yet
    assert v["max_num_seqs"] == 1024


def test_l4_small_tier_and_gmu_020():
    # [0.20.0] vllm/config/cache.py:66 gmu 0.92; small tier 2048/256
    v, _ = r("0.20.0", "L4")
    assert v["gpu_memory_utilization"] == 0.92 and v["estimate_cudagraphs"]
    assert (v["max_num_batched_tokens"], v["max_num_seqs"]) == (2048, 256)


def test_b200_tiers():
    # [0.28.0] vllm/engine/arg_utils.py:2582: >= 160 GiB -> 16384 / 1024 for serve too
    v, _ = r("0.28.0", "B200")
    assert (v["max_num_batched_tokens"], v["max_num_seqs"]) == (16384, 1024)
    assert v["max_cudagraph_capture_size"] == 1024  # Blackwell cap ([0.28.0] vllm/config/vllm.py:1884)
    v, _ = r("0.19.1", "B200")
    assert (v["max_num_batched_tokens"], v["max_num_seqs"]) == (8192, 1024)


def test_user_values_win_and_clamps():
    # [0.19.1] vllm/engine/arg_utils.py:2180-2240: only MNBT set -> MNS = min(MNS, MNBT)
    v, out = r("0.19.1", "H100", max_num_batched_tokens=512)
    assert v["max_num_seqs"] == 512 and out["max_num_batched_tokens"].origin == "user"
    v, _ = r("0.19.1", "H100", enable_chunked_prefill=False, max_model_len=32768)
    assert v["max_num_batched_tokens"] == 32768  # chunked off -> raised to max_model_len


def test_v0_defaults_and_long_context_rule():
    # [0.6.6.post1] vllm/engine/arg_utils.py:1080-1110 and vllm/config.py:1427-1442
    v, _ = r("0.6.6.post1", "RTX 3090", max_model_len=20000)
    assert v["engine"] == "V0" and not v["enable_chunked_prefill"]
    assert v["max_num_batched_tokens"] == 20000 and v["max_num_seqs"] == 256
    v, _ = r("0.6.6.post1", "RTX 3090", max_model_len=40000)
    assert v["enable_chunked_prefill"] and v["max_num_batched_tokens"] == 2048
    v, _ = r("0.6.3", "RTX 3090", max_model_len=40000)
    assert v["max_num_batched_tokens"] == 512


def test_engine_selection_env():
    assert resolve_engine(V("0.7.3"), {})[0] == "V0"
    assert resolve_engine(V("0.7.3"), {"VLLM_USE_V1": "1"})[0] == "V1"
    assert resolve_engine(V("0.9.2"), {"VLLM_USE_V1": "0"})[0] == "V0"
    assert resolve_engine(V("0.12.0"), {"VLLM_USE_V1": "0"})[0] == "V1"
    v, _ = r("0.19.1", "H100", env_VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS="1")
    assert v["estimate_cudagraphs"]


def test_unknown_gpu_does_not_crash():
    v, out = r("0.19.1", None)
    assert (v["max_num_batched_tokens"], v["max_num_seqs"]) == (2048, 256)
    assert "unknown GPU" in out["max_num_seqs"].why
    v2 = resolve_defaults(V("0.19.1"), gpu=None, usage_context="OPENAI_API_SERVER", arch=None, user={})
    assert v2["max_model_len"].value is None


def test_auto_dtype_on_a_gpu_without_bfloat16() -> None:
    """vLLM ≥ 0.9 falls back to float16 on pre-Ampere GPUs, to float32 for the models it keeps off
    float16 (Gemma 2/3, GLM-4): the weights then take twice the memory."""
    t4 = lookup_gpu("T4")
    gemma = lookup_catalog("google/gemma-2-9b-it")
    assert t4 is not None and gemma is not None and LLAMA is not None

    def dtype(arch: object, version: str) -> object:
        out = resolve_defaults(V(version), gpu=t4, usage_context="OPENAI_API_SERVER", arch=arch, user={})  # type: ignore[arg-type]
        return out["dtype"].value

    assert dtype(LLAMA, "0.19.1") == "float16"
    assert dtype(gemma, "0.19.1") == "float32"
    assert dtype(gemma, "0.8.5.post1") == "bfloat16"  # no fallback yet: kept, and the worker refuses it (VL206)
    assert dtype(LLAMA, "0.8.5.post1") == "bfloat16"


def test_prefix_caching_default_of_hybrid_and_state_only_models() -> None:
    """vLLM's is_prefix_caching_supported: hybrid (attention + Mamba/linear attention) models off before
    0.26.0 ([0.19.1]/[0.25.1] vllm/config/model.py); supported from 0.26.0 but opt-in in 0.26 and 0.27
    ([0.26.0] vllm/engine/arg_utils.py:2518-2522, [0.27.1] :2602-2606), on by default from 0.28.0 ([0.28.0]
    :2650); state-only models off."""

    from vlint.core.record import replace
    from vlint.resolve.model_arch import MAMBA

    hybrid = lookup_catalog("nvidia/Nemotron-H-56B-Base-8K")
    assert hybrid is not None and hybrid.has_state_layers

    def pc(arch, version: str) -> object:
        out = resolve_defaults(V(version), gpu=None, usage_context="OPENAI_API_SERVER", arch=arch, user={})
        return out["enable_prefix_caching"].value

    assert [pc(hybrid, v) for v in ("0.12.0", "0.19.1", "0.25.1", "0.26.0", "0.27.1", "0.28.0", "0.33.0")] == [
        False,
        False,
        False,
        False,
        False,
        True,
        True,
    ]
    assert pc(LLAMA, "0.19.1") is True
    state_only = replace(hybrid, layer_types=(MAMBA,) * len(hybrid.layer_types))
    assert pc(state_only, "0.33.0") is False
    explicit = resolve_defaults(
        V("0.19.1"), gpu=None, usage_context="OPENAI_API_SERVER", arch=hybrid, user={"enable_prefix_caching": True}
    )
    assert explicit["enable_prefix_caching"].value is True  # the user's setting stands

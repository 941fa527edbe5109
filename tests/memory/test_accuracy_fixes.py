"""Terms fixed against vLLM's code after the second calibration harvest: each case is the vLLM code
path the term comes from, not a fit to the logs."""

from __future__ import annotations

from tests.memory.helpers import inputs
from vlint.core.record import replace
from vlint.core.version import V
from vlint.memory import MemoryInputs, estimate_memory
from vlint.memory.estimate import activation_terms
from vlint.resolve.catalog import lookup_catalog

GIB = 2**30


def _inp(model: str, version: str = "0.13.0", **kw) -> MemoryInputs:  # type: ignore[no-untyped-def]
    return inputs(model, version=version, **{"max_num_batched_tokens": 8192, **kw})


def test_pooling_runner_drops_lm_head_and_sampler() -> None:
    # [0.13.0] adapters.py _create_pooling_model_cls deletes lm_head; gpu_model_runner.py profile_run
    # warms up the pooler instead of the sampler
    gen = estimate_memory(_inp("Qwen/Qwen3-Embedding-8B"))
    pool = estimate_memory(_inp("Qwen/Qwen3-Embedding-8B", runner="pooling"))
    a = lookup_catalog("Qwen/Qwen3-Embedding-8B")
    lm_head = a.vocab_size * a.hidden_size * 2 / GIB
    assert abs((gen.weights_gib - pool.weights_gib) - lm_head) < 0.01
    assert activation_terms(_inp("Qwen/Qwen3-Embedding-8B", runner="pooling"), 0, 1, 36).sampler == 0.0
    assert activation_terms(_inp("Qwen/Qwen3-Embedding-8B"), 0, 1, 36).sampler > 0.0
    assert pool.kv_cache_gib > gen.kv_cache_gib


def test_pooling_runner_of_a_tied_model_keeps_its_embeddings() -> None:
    gen = estimate_memory(_inp("Qwen/Qwen3-Embedding-0.6B"))
    pool = estimate_memory(_inp("Qwen/Qwen3-Embedding-0.6B", runner="pooling"))
    assert abs(gen.weights_gib - pool.weights_gib) < 1e-9  # tied: lm_head is embed_tokens


def test_checkpoint_kv_scheme_per_release() -> None:
    from vlint.resolve.model_arch import checkpoint_kv_cache_dtype, model_arch_from_config

    base = {
        "architectures": ["LlamaForCausalLM"],
        "model_type": "llama",
        "num_hidden_layers": 2,
        "hidden_size": 512,
        "num_attention_heads": 8,
        "num_key_value_heads": 8,
        "intermediate_size": 1024,
        "vocab_size": 1000,
        "torch_dtype": "bfloat16",
    }
    fp8 = {"dynamic": False, "num_bits": 8, "type": "float"}
    # ModelOpt with a kv_cache_scheme dict (no kv_cache_quant_algo): read by get_kv_cache_quant_algo_string
    mo = model_arch_from_config(
        {**base, "quantization_config": {"quant_method": "modelopt", "quant_algo": "NVFP4", "kv_cache_scheme": fp8}},
        name="t/modelopt",
        source="test",
    )
    assert mo.kv_cache_quant_algo == "fp8"
    assert checkpoint_kv_cache_dtype(mo, V("0.13.0")) is None
    assert checkpoint_kv_cache_dtype(mo, V("0.14.0")) == "fp8"
    ct = model_arch_from_config(
        {
            **base,
            "quantization_config": {
                "quant_method": "compressed-tensors",
                "config_groups": {"g": {"targets": ["Linear"], "weights": {"num_bits": 8, "type": "float"}}},
                "kv_cache_scheme": fp8,
            },
        },
        name="t/ct",
        source="test",
    )
    assert checkpoint_kv_cache_dtype(ct, V("0.14.0")) is None
    assert checkpoint_kv_cache_dtype(ct, V("0.15.0")) == "fp8"


def test_cpu_offload_moves_decoder_layers_only() -> None:
    # vLLM offloads make_layers' decoder layers only: with a budget above them, the embeddings and
    # lm_head (2 × 128256 × 4096 × 2 B = 1.96 GiB for Llama-3.1-8B) stay (h225 logged 1.99 GiB)
    full = _inp("meta-llama/Llama-3.1-8B-Instruct", "0.8.5")
    off = estimate_memory(replace(full, cpu_offload_gb=30.0))
    assert 1.95 < off.weights_gib < 2.05
    some = estimate_memory(replace(full, cpu_offload_gb=4.0))
    assert abs(estimate_memory(full).weights_gib - some.weights_gib - 4.0) < 1e-6


def test_mtp_layer_left_unquantized_by_the_checkpoint_is_sized_in_bf16() -> None:
    from vlint.memory.extras import _mtp_probe, draft_estimate

    # nvidia's Qwen3.6-35B-A3B NVFP4 export ignores "mtp*": its MTP MoE layer loads in bf16
    # (256 experts × 3 × 2048 × 512 × 2 B ≈ 1.5 GiB), not at the NVFP4 rate of the decoder layers
    inp = _inp("nvidia/Qwen3.6-35B-A3B-NVFP4", "0.25.1", spec_method="mtp", num_speculative_tokens=3)
    assert _mtp_probe(inp.arch).startswith("mtp.layers.0.")
    d = draft_estimate(inp)
    assert d is not None and 1.5 < d.weights_bytes / GIB < 1.8
    # a checkpoint that quantizes its MTP layer keeps the quantized size
    q = draft_estimate(_inp("Inferact/Qwen3.8-27B-NVFP4", "0.25.1", spec_method="mtp", num_speculative_tokens=3))
    assert q is not None and q.weights_bytes / GIB < 0.5


def test_graph_counts_per_release_and_mode() -> None:
    from vlint.memory.estimate import cudagraph_mode, graph_counts

    # 0.10: PIECEWISE only, one graph per capture size
    old = _inp("meta-llama/Llama-3.1-8B-Instruct", "0.10.2", cudagraph_capture_sizes=(1, 2, 4, 8, 16, 512))
    assert cudagraph_mode(old) == "PIECEWISE" and graph_counts(old) == (6, 0)
    # 0.11+: FULL_AND_PIECEWISE adds a FULL decode graph per size <= max_num_seqs (256 here)
    new = replace(old, version=V("0.19.0"))
    assert cudagraph_mode(new) == "FULL_AND_PIECEWISE" and graph_counts(new) == (6, 5)
    # with 3 speculative tokens the decode batches are 4 tokens per request: sizes 4..1024
    assert graph_counts(replace(new, num_speculative_tokens=3)) == (6, 4)
    # pooling models fall back to PIECEWISE
    assert graph_counts(replace(new, runner="pooling")) == (6, 0)
    assert graph_counts(replace(new, enforce_eager=True)) == (0, 0)


def test_pooling_runner_from_the_launch() -> None:
    from vlint.launch.memory_inputs import pooling_runner

    class Dep:
        def __init__(self, **values: object) -> None:
            self.values = values

        def value(self, name: str) -> object:
            return self.values.get(name)

    assert pooling_runner(Dep(runner="pooling"))  # type: ignore[arg-type]
    assert pooling_runner(Dep(task="embed"))  # type: ignore[arg-type]  # --task before --runner ([0.9.1])
    assert not pooling_runner(Dep(runner="generate"))  # type: ignore[arg-type]
    assert not pooling_runner(Dep())  # type: ignore[arg-type]


def test_graph_counts_match_the_logged_profile_line() -> None:
    from vlint.memory.estimate import graph_counts

    # h207 (0.19.0, Qwen3.5-9B, max_num_seqs 256, max_num_batched_tokens 2048) logs
    # "Profiling CUDA graph memory: PIECEWISE=51 (largest=512), FULL=35 (largest=256)"
    inp = _inp("Qwen/Qwen3.5-9B", "0.19.0", max_model_len=32768, max_num_batched_tokens=2048)
    assert graph_counts(inp) == (51, 35)

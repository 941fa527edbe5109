"""Terms fixed against vLLM's code after the second calibration harvest: each case is the vLLM code
path the term comes from, not a fit to the logs."""

from __future__ import annotations

from vlint.core.version import V
from vlint.hardware.gpus import lookup_gpu
from vlint.memory import MemoryInputs, estimate_memory
from vlint.memory.estimate import activation_terms
from vlint.resolve.catalog import lookup_catalog

GIB = 2**30


def _inp(model: str, version: str = "0.13.0", **kw) -> MemoryInputs:  # type: ignore[no-untyped-def]
    base = dict(
        arch=lookup_catalog(model),
        gpu=lookup_gpu("H100"),
        version=V(version),
        max_model_len=8192,
        max_num_seqs=256,
        max_num_batched_tokens=8192,
    )
    base.update(kw)
    return MemoryInputs(**base)


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

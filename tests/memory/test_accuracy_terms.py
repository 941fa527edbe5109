"""Term fixes found by bench/accuracy.py, each pinned to the vLLM code it mirrors (small, in-process)."""

from __future__ import annotations

from dataclasses import replace

from tests.conftest import load_script
from vlint.core.version import V
from vlint.hardware.gpus import lookup_gpu
from vlint.memory import MemoryInputs, estimate_memory
from vlint.resolve.catalog import lookup_catalog


def _hybrid(version: str = "0.26.0", **kw) -> MemoryInputs:  # type: ignore[no-untyped-def]
    # Qwen3.8-27B NVFP4 on one RTX 5090 at 8K context: a KV pool of ~30-90 blocks, fewer than the
    # default 256 sequences (the recipe's "1x RTX 5090" launch)
    base = dict(
        arch=lookup_catalog("Inferact/Qwen3.8-27B-NVFP4"),
        gpu=lookup_gpu("RTX 5090"),
        version=V(version),
        max_model_len=8192,
        kv_cache_dtype="fp8",
        max_num_seqs=256,
        max_num_batched_tokens=2048,
    )
    base.update(kw)
    return MemoryInputs(**base)


def test_mamba_block_check_needs_full_cuda_graphs():
    # [0.26.0] vllm/config/compilation.py:1366-1369 returns before the check with cudagraph_mode NONE
    graphs = estimate_memory(_hybrid())
    assert 0 < graphs.num_blocks < 256
    assert graphs.failure_stage == "mamba_blocks"
    assert "CUDA graph capture cannot proceed" in (graphs.failure or "")
    assert any("--enforce-eager" in r for r in graphs.risks)
    eager = estimate_memory(_hybrid(enforce_eager=True))
    assert eager.failure_stage is None and eager.starts


def test_mamba_block_check_from_0_20():
    # [0.19.0] vllm/config/compilation.py:1282-1330 only caps the capture sizes (a warning)
    inp = _hybrid()
    assert estimate_memory(replace(inp, version=V("0.19.0"))).failure_stage != "mamba_blocks"
    assert estimate_memory(replace(inp, version=V("0.20.0"))).failure_stage == "mamba_blocks"


def test_bench_passes_logged_other_args():
    # a record's other_args that are vLLM arguments reach the memory model (h017: DCP 8)
    bench = load_script("vlint_bench_accuracy", "bench/accuracy.py")
    rec = {
        "id": "t1",
        "model": "Qwen/Qwen3-8B",
        "gpu": "H100 80GB",
        "vllm_version": "0.19.0",
        "tensor_parallel_size": 8,
        "args": {"max_model_len": 8192},
        "other_args": {"decode_context_parallel_size": 8, "language_model_only": True, "speculative_config": "MTP"},
        "observed_numeric": {"kv_cache_gib": 10.0},
    }
    p, why = bench.prepare(rec)
    assert p is not None, why
    assert p.sample.inp.decode_context_parallel_size == 8
    assert p.sample.inp.language_model_only is True

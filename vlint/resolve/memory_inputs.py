"""Deployment → memory-model inputs: the one place that decides whether an estimate is possible."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from vlint.argspec.parse import UNRESOLVED

if TYPE_CHECKING:
    from vlint.deployment import Deployment
    from vlint.memory import MemoryEstimate

#: settings the memory model needs; an unresolved value for any of them makes the estimate a guess
NEEDED = (
    "max_model_len",
    "gpu_memory_utilization",
    "max_num_seqs",
    "max_num_batched_tokens",
    "tensor_parallel_size",
    "pipeline_parallel_size",
    "kv_cache_dtype",
    "block_size",
    "enforce_eager",
    "dtype",
    "quantization",
    "cpu_offload_gb",
    "kv_cache_memory_bytes",
    "num_gpu_blocks_override",
    "enable_chunked_prefill",
)


def blocked_by(dep: Deployment) -> str | None:
    """Why no estimate can be made (unknown model/GPU, unresolved setting), or None."""
    if dep.arch is None:
        if dep.model_note:
            return dep.model_note
        return "the model is unknown to vlint" if dep.model else "no model is named"
    if dep.gpu is None:
        return "the GPU type is unknown (pass --gpu)"
    for d in NEEDED:
        s = dep.setting(d)
        if s is not None and s.value is UNRESOLVED:
            return f"{d} is not resolved ({s.raw or s.option})"
        if s is not None and (_absurd(s.value) or (d.endswith("_parallel_size") and _too_many_ranks(s.value))):
            return f"{d} is {s.raw or s.value}, beyond what the memory model computes with"
    tp = dep.value("tensor_parallel_size")
    if isinstance(tp, int) and not isinstance(tp, bool) and tp > 1:
        from vlint.resolve.parallel import tp_split_error

        err = tp_split_error(dep.arch, tp)
        if err is not None:
            return f"tensor_parallel_size {tp} cannot split the model evenly ({err.message})"
    return None


#: tensor/pipeline parallel sizes past this are no deployment (the model lays out one entry per rank)
MAX_RANKS = 4096


def _too_many_ranks(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value > MAX_RANKS


def _absurd(value: object) -> bool:
    """NaN, infinities and integers past float precision (``--max-model-len 1e309``, ``10**400``):
    vLLM rejects or cannot use them, and the arithmetic would overflow."""
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return abs(value) > 2**53
    return isinstance(value, float) and not math.isfinite(value)


def estimate_for(dep: Deployment) -> MemoryEstimate | None:
    if blocked_by(dep) is not None:
        return None
    from vlint.memory import estimate_memory, inputs_from_resolved

    assert dep.arch is not None and dep.gpu is not None
    env = {k: v for k, v in dep.env.items() if isinstance(v, str)}
    extra = {"gpu_count": dep.gpu_count, "env": env}
    inputs = inputs_from_resolved(dep.arch, dep.gpu, dep.version, dep.resolved, **extra)
    return estimate_memory(inputs)

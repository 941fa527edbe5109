"""vLLM's startup memory model: pure arithmetic over one launch's inputs (weights, KV layouts,
activation, CUDA graphs, platforms). Imports vlint.resolve, vlint.hardware and below."""

from vlint.memory.estimate import (
    MemoryEstimate,
    StageEstimate,
    estimate_memory,
    inputs_from_resolved,
    max_model_len_that_fits,
)
from vlint.memory.inputs import MemoryInputs
from vlint.memory.kv import (
    KVLayout,
    LayerSpec,
    build_layout,
    estimate_max_model_len,
    layer_specs,
    pp_partition,
)

__all__ = [
    "KVLayout",
    "LayerSpec",
    "MemoryEstimate",
    "MemoryInputs",
    "StageEstimate",
    "build_layout",
    "estimate_max_model_len",
    "estimate_memory",
    "inputs_from_resolved",
    "layer_specs",
    "max_model_len_that_fits",
    "pp_partition",
]

"""Memory-model inputs for a catalog model on a catalog GPU at one release (the tests' one way to build them)."""

from __future__ import annotations

from typing import Any

from vlint.core.version import V
from vlint.hardware.gpus import lookup_gpu
from vlint.memory import MemoryInputs
from vlint.resolve.catalog import lookup_catalog


def inputs(model: str, gpu: str = "H100", version: str = "0.19.0", **kw: Any) -> MemoryInputs:
    """``MemoryInputs`` of ``model`` on ``gpu`` at ``version``, 8,192 tokens of context unless ``kw`` says
    otherwise (every other field its default or ``kw``'s; ``arch=`` / ``gpu=`` in ``kw`` replace the looked-up
    ones)."""
    arch, spec = kw.pop("arch", None) or lookup_catalog(model), kw.pop("gpu", None) or lookup_gpu(gpu)
    assert arch is not None and spec is not None, (model, gpu)
    return MemoryInputs(arch=arch, gpu=spec, version=V(version), **{"max_model_len": 8192, **kw})

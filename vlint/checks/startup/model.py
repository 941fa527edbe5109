"""ModelConfig and quantization versus the GPU (VL307)."""

from __future__ import annotations

from collections.abc import Iterator

from vlint.checks import CheckContext, Hit, check
from vlint.core.typing_names import TYPE_CHECKING
from vlint.core.version import V

if TYPE_CHECKING:
    pass
from vlint.checks.startup.common import _refuse, _since

# -- quantization vs the GPU (VL307) -------------------------------------------------------------------

#: ``QuantizationConfig.get_min_capability()`` of the base methods (the Marlin variants vLLM switches to
#: only where the GPU supports them), as (method, since, until, capability) —
#: ``vllm/model_executor/layers/quantization/<method>.py`` of each release
MIN_CAPABILITY: tuple[tuple[str, str, str | None, int], ...] = (
    ("awq", "0.6.0", None, 75),  # awq.py "The AWQ kernel only supports Turing or newer GPUs."
    ("gptq", "0.6.0", None, 60),  # gptq.py
    ("fp8", "0.6.0", "0.14.1", 80),  # fp8.py (Ampere; FP8 Marlin below Ada)
    ("fp8", "0.14.1", None, 75),  # [0.14.1] fp8.py: Turing and newer
    ("compressed-tensors", "0.6.0", None, 70),  # compressed_tensors/compressed_tensors.py
    ("bitsandbytes", "0.6.0", "0.28.0", 70),  # bitsandbytes.py
)


@check("startup.quantization_gpu_capability")
def quantization_gpu_capability(ctx: CheckContext) -> Iterator[Hit]:
    """``VllmConfig._get_quantization_config``: the method's minimum compute capability against the GPU
    (``The quantization method awq is not supported for the current GPU. Minimum capability: 75. Current
    capability: 70.``; [0.10.2] vllm/config/__init__.py:3283-3293, [0.33.0] vllm/config/vllm.py:925-936)."""
    dep = ctx.dep
    assert dep is not None
    gpu = dep.gpu
    cc = gpu.cc_major_minor if gpu is not None and gpu.vendor == "nvidia" else None
    method = dep.value("quantization")
    if cc is None or not isinstance(method, str):
        return
    current = cc[0] * 10 + cc[1]
    for name, since, until, need in MIN_CAPABILITY:
        if name != method or not _since(dep, since) or (until is not None and dep.version >= V(until)):
            continue
        if current >= need:
            return
        assert gpu is not None
        where = (
            "--quantization" if dep.is_set("quantization") else f"the checkpoint's quantization_config ({dep.model})"
        )
        yield Hit(
            dep.span_of("quantization"),
            {"method": method, "minimum": need, "current": current, "gpu": gpu.name},
            message=_refuse(
                f"The quantization method {method} is not supported for the current GPU. Minimum capability: "
                f"{need}. Current capability: {current}. ({gpu.name}; the method comes from {where})"
            ),
        )
        return

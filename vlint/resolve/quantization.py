"""Whether ``--quantization`` agrees with the checkpoint's own method, as vLLM decides it.

``ModelConfig._verify_quantization`` reads ``quantization_config.quant_method`` from ``config.json``,
lets each quantization method "override" it (a GPTQ checkpoint runs as ``gptq_marlin``, an AWQ one
as ``awq_marlin``, MoE GPTQ/AWQ as ``moe_wna16``…), and then raises ``ValueError: Quantization method
specified in the model config (gptq) does not match the quantization method specified in the
`quantization` argument (awq).`` (``vllm/config/model.py:1383-1462`` in 0.33.0; the same check since
0.6). The overrides only ever stay inside a format's family, so vlint reports a mismatch only when the
flag and the checkpoint belong to two different families below; methods outside them (``moe_wna16``,
``modelopt*``, ``inc``/``auto-round``, ``humming``, ``ipex``…) can claim other formats and are never
reported.
"""

from __future__ import annotations

_FAMILIES: dict[str, str] = {
    **dict.fromkeys(("awq", "awq_marlin", "auto_awq", "awq_triton"), "AWQ"),
    **dict.fromkeys(("gptq", "gptq_marlin", "gptq_marlin_24", "gptq_bitblas", "auto_gptq", "marlin"), "GPTQ"),
    "fp8": "FP8",
    "compressed-tensors": "compressed-tensors",
    "bitsandbytes": "bitsandbytes",
    **dict.fromkeys(("mxfp4", "gpt_oss_mxfp4"), "MXFP4"),
    "gguf": "GGUF",
}


def family(method: str | None) -> str | None:
    return _FAMILIES.get(str(method or "").strip().lower())


def quantization_mismatch(checkpoint: str | None, flag: str | None) -> str | None:
    """vLLM's error when ``--quantization flag`` cannot load a ``checkpoint``-quantized model."""
    a, b = family(checkpoint), family(flag)
    if a is None or b is None or a == b:
        return None
    return (
        f"ValueError: Quantization method specified in the model config ({checkpoint}) does not match "
        f"the quantization method specified in the `quantization` argument ({flag})."
    )
